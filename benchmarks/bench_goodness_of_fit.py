"""Benchmarks of the goodness-of-fit test (``KernelSteinTest``,
``goodness_of_fit_test``): level, power and time.

Parts (``--parts``, several allowed; each prints a table headed by the
command, the sizes, the repetitions and the seed range):

``level``
    Type-I error at alpha = 0.05 over ``--reps`` draws (default 1000) of
    n = 500 rows, default settings (999 draws of the bootstrap): a standard
    normal in d = 1 and d = 5, a Student t(5) with its own score in d = 1 and
    d = 5, and a ``GaussianMixture`` of 3 components fitted on 2000 rows of a
    two-cluster law in d = 2 and tested on 500 fresh draws from itself.
    ``--cases`` also takes laws whose density is positive at an edge of
    their support, tested on the line (``BOUNDED_LAWS``: ``expon()``,
    ``uniform()``, ``halfnorm()``, ``truncnorm(-1, 1)``).
    ``--aggregated``: ``AggregatedKernelSteinTest`` with its defaults
    instead; ``--learned``: the ``skmmd_learned`` method below (the
    mixture's fitted model used as given).
``power``
    Rejection rates at alpha = 0.05 on the problems of Jitkrittum et al.
    (2017), re-implemented from the paper's description, on the same draws
    for every method: ``laplace`` (model N(0, 1), rows Laplace of variance
    1, d = 1), ``gvd`` (model N(0, I_50), rows with the first variance 2),
    ``rbm`` (a Gaussian-Bernoulli RBM of d = 50 visible and 40 hidden units,
    weights B in {-1, 1}, biases N(0, 1); rows from the same RBM with
    N(0, 0.02^2) added to every weight, drawn by Gibbs sampling after
    ``RBM_BURN_IN`` sweeps). Methods: ``skmmd`` (the test with its
    defaults), ``exact`` (the quadratic KSD test with the same kernel,
    ``transformer=None``), ``skmmd_agg`` (``AggregatedKernelSteinTest``
    with its defaults: 5 bandwidths), ``skmmd_learned`` (the test with a
    ``LearnedFourierSampler`` of 256 features fit with ``train_size=0.2``:
    one length scale per coordinate learned for power on 20 % of the rows,
    the other 80 % tested), ``fssd_opt`` (hyppo's ``FSSD``: 5 locations and
    the Gaussian width optimized for its power criterion on 20 % of the
    rows, as in the paper, tested on the other 80 %), ``mmd`` (``MMDTest``
    of the rows against as many draws from the model). hyppo is a
    benchmark-only dependency.
``speed``
    Wall time of the test (default settings) against hyppo's ``FSSD`` with
    10 locations drawn from the rows (a N(0, I_10) model, d = 10) at
    n = 10^5, alternated ``--reps`` times, each in a fresh process timing a
    first call and a second on new rows; then the test alone at n = 10^6 and
    10^7 through ``partial_fit`` on chunks of 10^5 rows drawn as they are fed
    (peak resident memory reported).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
from time import perf_counter

import numpy as np
from bench_explain import Report, header, mean_se, progress, rate
from scipy import stats
from scipy.special import expit

from skmmd import (
    AggregatedKernelSteinTest,
    KernelSteinTest,
    LearnedFourierSampler,
    MMDTest,
    goodness_of_fit_test,
)

ALPHA = 0.05
# The skmmd tests' bootstrap draws: 999 behind the figures on the benchmarks
# page (the family's default is n_resamples="auto"); --n-resamples sets them.
DRAWS = {"n_resamples": 999}
RBM_BURN_IN = 1000
RBM_HIDDEN = 40
RBM_PERTURBATION = 0.02
# The share of the rows a learned kernel is fit on (FSSD-opt's, in the paper),
# and its features (the default test's 128 frequencies).
LEARN_SHARE = 0.2
LEARN_COMPONENTS = 256


# ---------------------------------------------------------------- problems


class RBM:
    """A Gaussian-Bernoulli RBM, ``p(x) ~ sum_h exp(x'Bh + b'x + c'h -
    ||x||^2 / 2)`` with ``h`` in ``{-1, 1}^dh``: its score ``b - x + B
    tanh(B'x + c)``, its log-density up to a constant, and Gibbs draws."""

    def __init__(self, B, b, c):
        self.B, self.b, self.c = B, b, c

    @classmethod
    def random(cls, rng, d=50, dh=RBM_HIDDEN):
        B = rng.choice([-1.0, 1.0], size=(d, dh))
        return cls(B, rng.normal(size=d), rng.normal(size=dh))

    def perturbed(self, rng, sd=RBM_PERTURBATION):
        return RBM(self.B + sd * rng.normal(size=self.B.shape), self.b, self.c)

    def score(self, X):
        return self.b - X + np.tanh(X @ self.B + self.c) @ self.B.T

    def log_density(self, X):
        a = X @ self.B + self.c
        log_cosh = np.abs(a) + np.log1p(np.exp(-2 * np.abs(a))) - np.log(2)
        return X @ self.b - 0.5 * np.sum(X * X, axis=1) + log_cosh.sum(axis=1)

    def sample(self, rng, n, burn_in=RBM_BURN_IN):
        X = rng.normal(size=(n, self.B.shape[0]))
        for _ in range(burn_in):
            prob = expit(2.0 * (X @ self.B + self.c))
            H = np.where(rng.random(prob.shape) < prob, 1.0, -1.0)
            X = H @ self.B.T + self.b + rng.normal(size=X.shape)
        return X


class Problem:
    """A model (score, log-density, sampler) and a law of the rows."""

    def __init__(self, name, score, log_density, model_sample, rows):
        self.name, self.score, self.log_density = name, score, log_density
        self.model_sample, self.rows = model_sample, rows


def problem(name, seed):
    """The benchmark problem ``name``; the RBM is drawn from ``seed``."""
    if name == "laplace":
        return Problem(
            name,
            lambda X: -X,
            lambda X: -0.5 * np.sum(X * X, axis=1),
            lambda rng, n: rng.normal(size=(n, 1)),
            lambda rng, n: rng.laplace(scale=1 / np.sqrt(2), size=(n, 1)),
        )
    if name == "gvd":
        scale = np.ones(50)
        scale[0] = np.sqrt(2.0)
        return Problem(
            name,
            lambda X: -X,
            lambda X: -0.5 * np.sum(X * X, axis=1),
            lambda rng, n: rng.normal(size=(n, 50)),
            lambda rng, n: rng.normal(size=(n, 50)) * scale,
        )
    model = RBM.random(np.random.default_rng([seed, 1]))
    rows = model.perturbed(np.random.default_rng([seed, 2]))
    return Problem(name, model.score, model.log_density, model.sample, rows.sample)


# ---------------------------------------------------------------- methods


def fssd_opt(p, X, seed, n_locations=5, train=0.2):
    """hyppo's FSSD with ``n_locations`` locations and the Gaussian width
    optimized on the first ``train`` share of the rows for its power
    criterion (L-BFGS on autograd's gradient), tested on the rest: the
    p-value."""
    import autograd
    import autograd.numpy as anp
    from hyppo.kgof import FSSD, FSSDH0SimCovObs, KGauss
    from hyppo.kgof.density import UnnormalizedDensity
    from hyppo.kgof.fssd import power_criterion
    from scipy.optimize import minimize

    class Model(UnnormalizedDensity):
        def log_den(self, X):
            return p.log_density(X)

        def grad_log(self, X):
            return p.score(X)

        def dim(self):
            return X.shape[1]

    class TracedGauss(KGauss):
        # The Gaussian kernel in autograd's numpy, so the criterion's
        # gradient reaches the locations and the width.
        def eval(self, A, V):
            sq = anp.sum(A**2, 1)[:, None] - 2 * anp.dot(A, V.T) + anp.sum(V**2, 1)
            return anp.exp(-sq / (2.0 * self.sigma2))

        def gradX_y(self, A, v):
            diff = A - v
            k = anp.exp(-anp.sum(diff**2, 1) / (2.0 * self.sigma2))
            return -k[:, None] * diff / self.sigma2

    rng = np.random.default_rng(seed)
    n_train = int(train * X.shape[0])
    Xtr, Xte = X[:n_train], X[n_train:]
    d = X.shape[1]
    mean, cov = Xtr.mean(axis=0), np.cov(Xtr.T).reshape(d, d) + 1e-6 * np.eye(d)
    V0 = rng.multivariate_normal(mean, cov, size=n_locations)
    sq = np.sum((Xtr[:, None, :] - Xtr[None, :, :]) ** 2, axis=2)
    w0 = np.median(sq[np.triu_indices(n_train, 1)])
    model = Model()

    def objective(theta):
        V = anp.reshape(theta[:-1], (n_locations, d))
        return -power_criterion(model, Xtr, TracedGauss(anp.exp(theta[-1])), V)

    theta0 = np.r_[V0.ravel(), np.log(w0)]
    # The criterion is small in high dimension (features scaled by 1 /
    # sqrt(dJ)): scaled to start at magnitude 1, so L-BFGS's tolerances
    # bite; the width kept within a factor 100 of the median heuristic.
    scale = 1.0 / max(abs(float(objective(theta0))), 1e-12)

    def scaled(theta):
        return scale * objective(theta)

    bounds = [(None, None)] * (theta0.size - 1)
    bounds.append((np.log(w0) - np.log(100), np.log(w0) + np.log(100)))
    fit = minimize(
        scaled,
        theta0,
        jac=autograd.grad(scaled),
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": 200},
    )
    V = fit.x[:-1].reshape(n_locations, d)
    kernel = KGauss(float(np.exp(fit.x[-1])))
    null = FSSDH0SimCovObs(n_simulate=2000, seed=seed)
    return FSSD(model, kernel, V, null_sim=null, alpha=ALPHA).test(Xte)["pvalue"]


def learned_p_value(X, model, seed):
    """The test with features learned for power on ``LEARN_SHARE`` of the
    rows (a fitted model used as given), tested on the rest."""
    sampler = LearnedFourierSampler(n_components=LEARN_COMPONENTS, random_state=seed)
    test = KernelSteinTest(
        model, transformer=sampler, train_size=LEARN_SHARE, random_state=seed, **DRAWS
    )
    return test.fit(X).p_value_


def method_p_value(method, p, X, seed):
    if method == "skmmd":
        return goodness_of_fit_test(X, p.score, random_state=seed, **DRAWS).pvalue
    if method == "skmmd_learned":
        return learned_p_value(X, p.score, seed)
    if method == "skmmd_agg":
        test = AggregatedKernelSteinTest(p.score, random_state=seed, **DRAWS)
        return test.fit(X).p_value_
    if method == "exact":
        return goodness_of_fit_test(
            X, p.score, transformer=None, random_state=seed, **DRAWS
        ).pvalue
    if method == "fssd_opt":
        return fssd_opt(p, X, seed)
    if method == "mmd":
        Y = p.model_sample(np.random.default_rng([seed, 3]), X.shape[0])
        return MMDTest(random_state=seed).fit(X, Y).p_value_
    raise ValueError(method)


# ---------------------------------------------------------------- parts


def _level_draws(name, rng, n):
    if name == "normal d=1":
        return rng.normal(size=(n, 1)), stats.norm()
    if name == "normal d=5":
        return rng.normal(size=(n, 5)), stats.norm()
    if name == "t(5) d=1":
        return rng.standard_t(5, size=(n, 1)), stats.t(5)
    if name == "t(5) d=5":
        return rng.standard_t(5, size=(n, 5)), stats.t(5)
    if name in BOUNDED_LAWS:  # a density positive at an edge of its support
        law = BOUNDED_LAWS[name]
        return law.rvs(size=(n, 1), random_state=rng), law
    from sklearn.mixture import GaussianMixture

    def law(size):
        half = size // 2
        return np.vstack(
            [rng.normal(-1.5, 1.0, (half, 2)), rng.normal(1.5, 0.6, (size - half, 2))]
        )

    gm = GaussianMixture(3, random_state=0).fit(law(2000))
    # sample() draws from the mixture's own random_state: a fresh one per draw.
    X, _ = gm.set_params(random_state=int(rng.integers(2**31))).sample(n)
    return rng.permutation(X), gm


LEVEL_CASES = ("normal d=1", "normal d=5", "t(5) d=1", "t(5) d=5", "mixture d=2")
# Laws tested on the line (``goodness_of_fit._support``): ``--cases`` names them.
BOUNDED_LAWS = {
    "expon d=1": stats.expon(),
    "uniform d=1": stats.uniform(),
    "halfnorm d=1": stats.halfnorm(),
    "truncnorm(-1, 1) d=1": stats.truncnorm(-1, 1),
}


def part_level(args, out):
    cases = args.cases or LEVEL_CASES
    header(
        out,
        "level",
        args,
        args.n,
        "1 to 5",
        args.reps,
        (
            "AggregatedKernelSteinTest(model, random_state=seed)"
            if args.aggregated
            else f"KernelSteinTest(model, LearnedFourierSampler({LEARN_COMPONENTS}), "
            f"train_size={LEARN_SHARE})"
            if args.learned
            else "goodness_of_fit_test(X, model, random_state=seed)"
        )
        + f" at alpha={ALPHA}, "
        f"defaults, n_resamples={DRAWS['n_resamples']!r}; cases {list(cases)}; "
        "a mixture's "
        "model fitted on 2000 held-out rows, tested on fresh draws from itself",
    )
    rows = []
    for case in cases:
        start, hits, p_values = perf_counter(), [], []
        for k, seed in enumerate(range(args.seed, args.seed + args.reps), 1):
            X, model = _level_draws(case, np.random.default_rng([seed, 7]), args.n)
            if args.aggregated:
                test = AggregatedKernelSteinTest(model, random_state=seed, **DRAWS)
                p = test.fit(X).p_value_
            elif args.learned:
                p = learned_p_value(X, model, seed)
            else:
                p = goodness_of_fit_test(X, model, random_state=seed, **DRAWS).pvalue
            hits.append(p <= ALPHA)
            p_values.append(p)
            progress(k, args.reps, start)
        rows.append(
            [case, rate(hits), mean_se(p_values), f"{perf_counter() - start:.0f}"]
        )
    out.table(["null", "type-I error +- MC se", "mean p-value", "seconds"], rows)


def part_power(args, out):
    problems = args.problems or ("laplace", "gvd", "rbm")
    methods = args.methods or ("skmmd", "exact", "fssd_opt", "mmd")
    sizes = args.sizes or (1000, 4000)
    header(
        out,
        "power",
        args,
        list(sizes),
        "1 or 50",
        args.reps,
        f"rejection rate at alpha={ALPHA} on the same draws; problems "
        f"{list(problems)}, methods {list(methods)}, RBM burn-in {RBM_BURN_IN}",
    )
    rows = []
    for name in problems:
        for n in sizes:
            start = perf_counter()
            hits = {m: [] for m in methods}
            seconds = dict.fromkeys(methods, 0.0)
            for k, seed in enumerate(range(args.seed, args.seed + args.reps), 1):
                p = problem(name, seed)
                X = p.rows(np.random.default_rng([seed, 4]), n)
                for m in methods:
                    tic = perf_counter()
                    hits[m].append(method_p_value(m, p, X, seed) <= ALPHA)
                    seconds[m] += perf_counter() - tic
                progress(k, args.reps, start)
            for m in methods:
                rows.append(
                    [name, n, m, rate(hits[m]), f"{seconds[m] / args.reps:.2f}"]
                )
            out.table(["problem", "n", "method", "power +- MC se", "s / test"], rows)


def _fssd10(X, seed):
    """hyppo's FSSD with 10 locations drawn from the rows and the Gaussian
    width at their median squared distance (a subsample of 1000 rows)."""
    from hyppo.kgof import FSSD, FSSDH0SimCovObs, KGauss
    from hyppo.kgof.density import IsotropicNormal

    rng = np.random.default_rng(seed)
    n, d = X.shape
    V = X[rng.choice(n, 10, replace=False)]
    sub = X[rng.choice(n, 1000, replace=False)]
    sq = np.sum((sub[:, None] - sub[None]) ** 2, axis=2)
    kernel = KGauss(float(np.median(sq[np.triu_indices(1000, 1)])))
    test = FSSD(
        IsotropicNormal(np.zeros(d), 1.0),
        kernel,
        V,
        null_sim=FSSDH0SimCovObs(n_simulate=2000, seed=seed),
    )
    return test.test(X)["pvalue"]


def measure(method, n, seed):
    """Timed runs in this process: the first call (a fresh process: numba
    loads its cached kernels) and a second on new rows, seconds; peak RSS
    (MB)."""
    rng = np.random.default_rng(seed)
    d, chunk = 10, 100_000
    p = problem("gvd", seed)  # only its N(0, I) score is used, in d = 10
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    if n > chunk:  # partial_fit on chunks drawn as they are fed, once
        tic = perf_counter()
        test = KernelSteinTest(p.score, random_state=seed, **DRAWS)
        for _ in range(n // chunk):
            test.partial_fit(rng.normal(size=(chunk, d)))
        pvalue = test.p_value_
        times.append(perf_counter() - tic)
    else:
        for _ in range(2):
            X = rng.normal(size=(n, d))
            tic = perf_counter()
            if method == "fssd10":
                pvalue = _fssd10(X, seed)
            else:
                pvalue = goodness_of_fit_test(
                    X, p.score, random_state=seed, **DRAWS
                ).pvalue
            times.append(perf_counter() - tic)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": times, "peak_mb": peak, "before_mb": before, "p": pvalue}


def _in_child(method, n, seed):
    command = [
        sys.executable,
        __file__,
        "--measure",
        method,
        "--n",
        str(n),
        "--seed",
        str(seed),
        "--n-resamples",
        str(DRAWS["n_resamples"]),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def part_speed(args, out):
    header(
        out,
        "speed",
        args,
        "10^5 .. 10^7",
        10,
        args.reps,
        "N(0, I_10) rows and model; each run a fresh process, timing a first "
        "call (numba loads its cached kernels) and a second on new rows; "
        "KernelSteinTest defaults (128 frequencies), "
        f"n_resamples={DRAWS['n_resamples']!r}; above 10^5 rows "
        "partial_fit on chunks of 10^5 drawn as fed",
    )
    runs = {"skmmd": [], "fssd10": []}
    for rep in range(args.reps):
        for method in ("skmmd", "fssd10") if rep % 2 == 0 else ("fssd10", "skmmd"):
            runs[method].append(_in_child(method, 100_000, args.seed + rep))
    rows, medians = [], {}
    for method, results in runs.items():
        first = np.median([r["seconds"][0] for r in results])
        second = np.median([r["seconds"][1] for r in results])
        medians[method] = (first, second)
        peak = max(r["peak_mb"] for r in results)
        rows.append([method, "10^5", f"{first:.2f}", f"{second:.2f}", f"{peak:.0f}"])
    for n in args.big or (10**6, 10**7):
        r = _in_child("skmmd", n, args.seed)
        rows.append(
            ["skmmd", f"{n:.0e}", f"{r['seconds'][0]:.1f}", "", f"{r['peak_mb']:.0f}"]
        )
    out.table(["method", "n", "first call s", "second call s", "peak RSS MB"], rows)
    out(
        f"fssd10 / skmmd time at n = 10^5 (medians of {args.reps}): first call "
        f"{medians['fssd10'][0] / medians['skmmd'][0]:.2f}, second "
        f"{medians['fssd10'][1] / medians['skmmd'][1]:.2f}"
    )


PARTS = {"level": part_level, "power": part_power, "speed": part_speed}


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=["level"])
    parser.add_argument("--n", type=int, default=500, help="level: rows")
    parser.add_argument(
        "--reps", type=int, help="repetitions (level 1000, power 200, speed 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument(
        "--cases", nargs="+", choices=(*LEVEL_CASES, *BOUNDED_LAWS), help="level"
    )
    parser.add_argument(
        "--aggregated", action="store_true", help="level: AggregatedKernelSteinTest"
    )
    parser.add_argument(
        "--learned", action="store_true", help="level: learned features (skmmd_learned)"
    )
    parser.add_argument("--problems", nargs="+", choices=("laplace", "gvd", "rbm"))
    parser.add_argument(
        "--methods",
        nargs="+",
        choices=("skmmd", "skmmd_agg", "skmmd_learned", "exact", "fssd_opt", "mmd"),
    )
    parser.add_argument("--sizes", nargs="+", type=int, help="power: n")
    parser.add_argument("--big", nargs="+", type=int, help="speed: large n")
    parser.add_argument("--out", help="also write the output to this file")
    parser.add_argument(
        "--n-resamples",
        default="999",
        help='skmmd\'s bootstrap draws: a number, or "auto" (its default)',
    )
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    n_resamples = args.n_resamples
    DRAWS["n_resamples"] = n_resamples if n_resamples == "auto" else int(n_resamples)
    if args.measure:
        print(json.dumps(measure(args.measure, args.n, args.seed)))
        return 0
    out = Report(args.out)
    given = args.reps
    for part in args.parts:
        args.reps = given or {"level": 1000, "power": 200, "speed": 3}[part]
        PARTS[part](args, out)
        out()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())

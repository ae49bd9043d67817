"""Composite goodness of fit against ``scipy.stats.goodness_of_fit``.

"Is this sample normal?" with the parameters estimated: ``goodness_of_fit_test(x,
family, known_params=...)`` (a parametric bootstrap that refits the family on
every resample) and scipy's Monte Carlo test with the Anderson-Darling
statistic, which refits too, on the same draws (``--scipy``; ``--anderson``:
scipy's ``anderson``, the same statistic against Stephens' tables, for the
normal and the exponential):

- ``--level``: rejection rate at alpha = 0.05 of the composite normal
  (location and scale estimated), exponential (scale; location 0), gamma
  (shape and scale), Weibull (shape and scale), at ``--sizes``;
- ``--power``: the normal family against t(5), Laplace and a skew-normal;
  the exponential family against gamma(1.5) and Weibull(1.3);
- ``--multivariate``: where scipy has nothing, the level of a fitted
  ``multivariate_normal`` (d = 2 and 5) and of a refit 3-component
  ``GaussianMixture`` in d = 2 (n = 500);
- ``--edges``: the level of the families whose support starts at their
  free location (exponential, Pareto, Weibull, gamma, generalized Pareto;
  the edge conditioned on), beside scipy's with ``--scipy``
  (``--only-scipy``: scipy's alone, e.g. on fewer draws);
- ``--mixtures``: separated blobs (``--blobs`` k, ``--dims`` d, n = 400)
  against ``GaussianMixture(k - 1)``, fixed and composite, and the level of
  ``GaussianMixture(k)`` composite, at the default (aggregated for a
  mixture, on every coordinate and on the mixture's principal views), the
  grid on every coordinate alone (``views=None``) and with one kernel
  (``--runs`` picks the runs, ``--cases`` the cells; ``--cases law``: the
  blobs' own law as a fixed ``GaussianMixture(k)``, the level of a fixed
  law), with the median time of a test;
- ``--mixtime``: seconds of a composite ``GaussianMixture(2)`` test
  (3 blobs, d = 2, n = 400) at the default and with one kernel (or the
  ``--runs`` given), wall and CPU, medians over ``--reps`` datasets;
- ``--time``: one test of each at n = 1000 on normal rows, each at its
  defaults (skmmd: ``n_resamples="auto"``; scipy: 9999 Monte Carlo
  samples), and each with 999 (``--time-defaults``: the defaults alone),
  alternated on ``--reps`` samples and ``--near`` more whose p-value is
  near alpha; wall and CPU time, with the load average.

Each line is one cell: the rejection rate over ``--reps`` draws with its
95 % Wilson interval (``--shard I K`` and ``--aggregate`` as in
``bench_time_series.py``).

    python benchmarks/bench_gof_scipy.py --level --reps 1000 --sizes 300
    python benchmarks/bench_gof_scipy.py --power --reps 500 --sizes 100 300 --scipy
    python benchmarks/bench_gof_scipy.py --multivariate --reps 300
    python benchmarks/bench_gof_scipy.py --time --reps 5
    python benchmarks/bench_gof_scipy.py --time --time-defaults --reps 20 --near 5
    python benchmarks/bench_gof_scipy.py --edges --reps 1000 --sizes 150 \
        --n-resamples auto
    python benchmarks/bench_gof_scipy.py --mixtures --reps 100 --blobs 3 \
        --dims 2 --n-resamples auto
    python benchmarks/bench_gof_scipy.py --mixtures --reps 100 --blobs 4 \
        --dims 5 --n-resamples auto --runs default "grid alone"
"""

import os
import time
import warnings

import numpy as np
from bench_time_series import report, run_experiments, shard
from scipy import stats
from sklearn.mixture import GaussianMixture

import skmmd

ALPHA = 0.05

# family, its known parameters, and the law of the rows under the null.
FAMILIES = {
    "normal": (stats.norm, {}, stats.norm(1.0, 2.0)),
    "exponential": (stats.expon, {"loc": 0.0}, stats.expon(scale=2.0)),
    "gamma": (stats.gamma, {"loc": 0.0}, stats.gamma(2.0, scale=1.5)),
    "weibull": (stats.weibull_min, {"loc": 0.0}, stats.weibull_min(1.5)),
}
# Families whose support starts at their free location (the edge conditioned
# on: the rows above the smallest, shifted by it, are tested).
EDGES = {
    "exponential, free location": (stats.expon, {}, stats.expon(1.0, 2.0)),
    "Pareto, free location": (stats.pareto, {}, stats.pareto(3.0, 0.5, 1.0)),
    "Weibull, free location": (
        stats.weibull_min,
        {},
        stats.weibull_min(1.5, 1.0, 2.0),
    ),
    "gamma, free location": (stats.gamma, {}, stats.gamma(2.0, 1.0, 1.5)),
    "generalized Pareto, free location": (
        stats.genpareto,
        {},
        stats.genpareto(0.2, 0.0, 1.0),
    ),
}
# family tested, and the law of the rows (not in the family).
ALTERNATIVES = {
    "t(5)": ("normal", stats.t(5)),
    "Laplace": ("normal", stats.laplace()),
    "skew-normal(4)": ("normal", stats.skewnorm(4.0)),
    "gamma(1.5)": ("exponential", stats.gamma(1.5)),
    "Weibull(1.3)": ("exponential", stats.weibull_min(1.3)),
}


def ours(x, family, known, seed, n_resamples=999, aggregate=False, **options):
    if known:
        options["known_params"] = known
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skmmd.goodness_of_fit_test(
            x,
            family,
            n_resamples=n_resamples,
            random_state=seed,
            aggregate=aggregate,
            **options,
        ).pvalue


def scipy_ad(x, family, known, seed, n_mc_samples=9999):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.goodness_of_fit(
            family,
            x,
            known_params=known or None,
            statistic="ad",
            n_mc_samples=n_mc_samples,
            random_state=seed,
        ).pvalue


def scipy_anderson(x, family, known, seed):
    """scipy's ``anderson``: the Anderson-Darling test with estimated
    parameters, its p-value interpolated in Stephens' tables (the normal's
    location and scale; the exponential's scale, its location 0)."""
    dist = {stats.norm: "norm", stats.expon: "expon"}[family]
    if dist == "expon" and known != {"loc": 0.0}:
        raise ValueError("anderson's exponential has its location at 0")
    return stats.anderson(np.ravel(x), dist=dist, method="interpolate").pvalue


def methods(args):
    out = {}
    if not args.only_scipy:
        out["skmmd"] = lambda x, f, k, s: ours(x, f, k, s, args.n_resamples)
    if args.aggregated:
        out["skmmd aggregated"] = lambda x, f, k, s: ours(
            x, f, k, s, args.n_resamples, aggregate=True
        )
    if args.median:
        out["skmmd, median bandwidth"] = lambda x, f, k, s: ours(
            x, f, k, s, args.n_resamples, bandwidth="median"
        )
    if args.scipy:
        out["scipy AD"] = lambda x, f, k, s: scipy_ad(x, f, k, s, args.scipy_mc)
    if args.anderson:
        out["scipy anderson"] = scipy_anderson
    return out


def cells(args, kind, cases):
    """Rejection rates of each method on the same draws of each case."""
    for name, (family, known, law) in cases.items():
        for n in args.sizes:
            hits, seconds, reps = {}, {}, 0
            for r in shard(args):
                rng = np.random.default_rng([args.seed, n, len(name), r])
                x = law.rvs(size=n, random_state=rng)
                for method, run in methods(args).items():
                    start = time.perf_counter()
                    hits[method] = hits.get(method, 0) + (
                        run(x, family, known, r) <= ALPHA
                    )
                    seconds[method] = (
                        seconds.get(method, 0.0) + time.perf_counter() - start
                    )
                reps += 1
            for method in hits:
                report(
                    args,
                    f"{kind} {name} n={n} {method}",
                    hits[method],
                    reps,
                    seconds[method],
                )


def level(args):
    cases = {k: v for k, v in FAMILIES.items() if k in (args.families or FAMILIES)}
    cases = cases or FAMILIES
    cells(args, "level", cases)


def edges(args):
    """Levels of the families whose support starts at their free location
    (``EDGES``; ``--families`` picks by the name's first word)."""
    cases = {
        k: v
        for k, v in EDGES.items()
        if not args.families or k.split(",")[0].split()[0] in args.families
    }
    cells(args, "level", cases)


def power(args):
    cases = {}
    for name, (family_name, law) in ALTERNATIVES.items():
        if args.alternatives and name not in args.alternatives:
            continue
        family, known, _ = FAMILIES[family_name]
        cases[f"{family_name} vs {name}"] = (family, known, law)
    cells(args, "power", cases)


def multivariate(args):
    """Levels where scipy has no test: a fitted multivariate normal and a
    refit 3-component mixture (rows from a fixed mixture of that family)."""
    rng = np.random.default_rng(12345)
    source = GaussianMixture(3, random_state=0).fit(
        np.vstack([rng.normal(c, 1.0, (400, 2)) for c in ((-3, 0), (3, 0), (0, 4))])
    )
    cases = {
        "multivariate_normal d=2": (2, stats.multivariate_normal, 300),
        "multivariate_normal d=5": (5, stats.multivariate_normal, 300),
        "GaussianMixture(3) d=2": (2, GaussianMixture(3, random_state=0), 500),
    }
    for name, (d, family, n) in cases.items():
        hits, reps, start = 0, 0, time.perf_counter()
        for r in shard(args):
            rng = np.random.default_rng([args.seed, d, len(name), r])
            if isinstance(family, GaussianMixture):
                source.random_state = int(rng.integers(2**31 - 1))
                X = source.sample(n)[0]
            else:
                X = rng.normal(size=(n, d)) @ np.tril(np.ones((d, d)))
            hits += ours(X, family, {}, r, args.n_resamples) <= ALPHA
            reps += 1
        report(
            args, f"level {name} n={n} skmmd", hits, reps, time.perf_counter() - start
        )


def centres(k, d):
    """The centres of ``k`` blobs: on a circle in the first two coordinates,
    neighbouring centres 3 apart."""
    angles = 2 * np.pi * np.arange(k) / k
    radius = 3.0 / (2 * np.sin(np.pi / k))
    out = np.zeros((k, d))
    out[:, 0], out[:, 1] = radius * np.cos(angles), radius * np.sin(angles)
    return out


def blobs(k, d, n, rng):
    """``n`` rows from ``k`` blobs (sd 0.7) whose neighbouring centres, on a
    circle in the first two coordinates, are 3 apart."""
    return centres(k, d)[rng.integers(k, size=n)] + 0.7 * rng.normal(size=(n, d))


def blobs_law(k, d):
    """The blobs' own law as a fitted ``GaussianMixture`` (spherical, sd 0.7,
    equal weights): the fixed law that is right."""
    model = GaussianMixture(k, covariance_type="spherical")
    model.weights_, model.means_ = np.full(k, 1 / k), centres(k, d)
    model.covariances_ = np.full(k, 0.49)
    model.precisions_cholesky_ = 1 / np.sqrt(model.covariances_)
    model.precisions_ = 1 / model.covariances_
    return model


# The mixture cells' runs: goodness_of_fit_test's options.
MIXTURE_RUNS = {
    "default": {"aggregate": "auto"},
    "grid alone": {"aggregate": True, "views": None},
    "one kernel": {"aggregate": False},
}


def mixtures(args, n=400):
    """Separated blobs against Gaussian mixtures: ``GaussianMixture(k - 1)``
    (one component short) fitted on 4000 other rows and tested on fresh
    rows ("fixed"), or as a family refit on every resample ("composite");
    ``GaussianMixture(k)`` as a family (the level). Each at the default
    (``aggregate="auto"``: the aggregated test for a mixture, with its
    views), the grid on every coordinate alone (``views=None``, the default
    before them) and one kernel (``aggregate=False``), those of ``--runs``;
    the same draws."""
    runs = {m: MIXTURE_RUNS[m] for m in args.runs}
    for k in args.blobs:
        for d in args.dims:
            for case, kind, components in (
                ("fixed", "fixed", k - 1),
                ("composite", "composite", k - 1),
                ("level", "composite", k),
                ("law", "the blobs' law, fixed", k),
            ):
                if case not in args.cases:
                    continue
                name = f"{k} blobs d={d} GaussianMixture({components}) {kind}"
                hits, seconds, reps = dict.fromkeys(runs, 0), {m: [] for m in runs}, 0
                for r in shard(args):
                    rng = np.random.default_rng([args.seed, k, d, components, r])
                    X = blobs(k, d, n, rng)
                    model = GaussianMixture(components, random_state=0)
                    if case == "law":
                        model = blobs_law(k, d)
                    elif kind == "fixed":
                        model.fit(blobs(k, d, 4000, rng))
                    for method, options in runs.items():
                        start = time.perf_counter()
                        p = ours(X, model, {}, r, args.n_resamples, **options)
                        seconds[method].append(time.perf_counter() - start)
                        hits[method] += p <= ALPHA
                    reps += 1
                for method in runs:
                    key = f"{name} n={n} {method}"
                    report(args, key, hits[method], reps, sum(seconds[method]))
                    if args.shard == (0, 1):
                        print(
                            f"  median {np.median(seconds[method]):.2f} s, "
                            f"max {np.max(seconds[method]):.2f} s",
                            flush=True,
                        )


def mixture_time(args, n=400):
    """Seconds of one composite ``GaussianMixture(2)`` test on 3 blobs
    (d = 2, n = 400), at the default (aggregated) and with one kernel,
    alternated over ``--reps`` datasets: medians of the wall time and of
    the process's CPU time (one thread: the wall time of an idle machine)."""
    runs = {m: MIXTURE_RUNS[m] for m in args.runs}
    wall, cpu = {m: [] for m in runs}, {m: [] for m in runs}
    for r in range(args.reps):
        X = blobs(3, 2, n, np.random.default_rng([args.seed, r]))
        for method, options in runs.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            ours(X, GaussianMixture(2, random_state=0), {}, r, "auto", **options)
            wall[method].append(time.perf_counter() - start)
            cpu[method].append(time.process_time() - start_cpu)
    for method in runs:
        print(
            f"time composite GaussianMixture(2) n={n} {method}: median "
            f"{np.median(wall[method]):.2f} s wall, {np.median(cpu[method]):.2f} "
            f"s CPU (max {np.max(cpu[method]):.2f}) over {args.reps} datasets",
            flush=True,
        )


def near_alpha(args, n, count):
    """``count`` normal samples of n rows whose p-value is near alpha
    (skmmd's, with 199 resamples, in [0.02, 0.12]): the calls that draw the
    most resamples."""
    found, r = [], 10**6
    while len(found) < count:
        x = np.random.default_rng([args.seed, r]).normal(size=n)
        if 0.02 <= ours(x, stats.norm, {}, r, 199) <= 0.12:
            found.append(x)
        r += 1
    return found


def timing(args, n=1000):
    """Seconds per test at n, alternated: skmmd and scipy's Anderson-Darling
    test at their defaults (skmmd: n_resamples="auto"; scipy: 9999 samples),
    and each with 999 (``--time-defaults``: the defaults alone), on
    ``--reps`` normal samples and ``--near`` more whose p-value is near
    alpha. Wall and CPU time (one thread: the CPU time is the wall time of
    an idle machine), their ratios per sample, and the load average."""
    x0 = np.random.default_rng(args.seed).normal(size=n)
    ours(x0, stats.norm, {}, 0)  # compiled kernels loaded, as in a session
    runs = {
        'skmmd (n_resamples="auto", default)': lambda x, r: ours(
            x, stats.norm, {}, r, "auto"
        ),
        "skmmd (999 resamples)": lambda x, r: ours(x, stats.norm, {}, r, 999),
        "scipy AD (9999 samples)": lambda x, r: scipy_ad(x, stats.norm, {}, r),
        "scipy AD (999 samples)": lambda x, r: scipy_ad(x, stats.norm, {}, r, 999),
    }
    if args.time_defaults:
        defaults = ('skmmd (n_resamples="auto", default)', "scipy AD (9999 samples)")
        runs = {k: runs[k] for k in defaults}
    samples = [
        np.random.default_rng([args.seed, r]).normal(size=n) for r in range(args.reps)
    ]
    samples += near_alpha(args, n, args.near)
    wall, cpu, pvalues = {k: [] for k in runs}, {k: [] for k in runs}, []
    for r, x in enumerate(samples):
        for name, run in runs.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            p = run(x, r)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
            if name.startswith("skmmd (n_"):
                pvalues.append(p)
    print(
        f"time n={n}: {len(samples)} samples, skmmd p-values "
        f"{np.round(np.sort(pvalues), 3).tolist()}; load average "
        f"{np.round(os.getloadavg(), 1).tolist()}",
        flush=True,
    )
    for clock, seconds in (("wall", wall), ("CPU", cpu)):
        base = np.array(seconds["scipy AD (9999 samples)"])
        for name, values in seconds.items():
            ratio = base / np.array(values)
            print(
                f"time n={n} {name} ({clock}): median {np.median(values):.3f} s, "
                f"scipy / it {np.median(ratio):.1f}x (min {np.min(ratio):.1f}, "
                f"max {np.max(ratio):.1f})",
                flush=True,
            )


def _options(parser):
    parser.add_argument("--sizes", nargs="*", type=int, default=[300])
    parser.add_argument("--scipy", action="store_true", help="also scipy's AD test")
    parser.add_argument(
        "--anderson",
        action="store_true",
        help="also scipy's anderson (tabulated critical values at 0.05)",
    )
    parser.add_argument(
        "--aggregated",
        action="store_true",
        help="also goodness_of_fit_test(aggregate=True)",
    )
    parser.add_argument("--alternatives", nargs="*", choices=list(ALTERNATIVES))
    parser.add_argument(
        "--families",
        nargs="*",
        choices=[*FAMILIES, "exponential", "Pareto", "Weibull", "generalized"],
    )
    parser.add_argument(
        "--only-scipy", action="store_true", help="scipy's AD test alone"
    )
    parser.add_argument(
        "--median",
        action="store_true",
        help="also the median bandwidth (a family's default is twice it)",
    )
    parser.add_argument("--scipy-mc", type=int, default=9999)
    parser.add_argument(
        "--near", type=int, default=0, help="--time: samples with p near alpha"
    )
    parser.add_argument(
        "--time-defaults", action="store_true", help="--time: the defaults alone"
    )
    parser.add_argument("--blobs", nargs="*", type=int, default=[3, 4])
    parser.add_argument("--dims", nargs="*", type=int, default=[2, 5])
    parser.add_argument(
        "--runs",
        nargs="*",
        choices=list(MIXTURE_RUNS),
        default=["default", "one kernel"],
        help="--mixtures, --mixtime: the runs on the same draws",
    )
    parser.add_argument(
        "--cases",
        nargs="*",
        choices=["fixed", "composite", "level", "law"],
        default=["fixed", "composite", "level"],
        help="--mixtures: GaussianMixture(k - 1) fixed or composite, "
        "GaussianMixture(k) composite (the level), or the blobs' own law "
        "fixed (the level of a fixed law)",
    )


def main(argv=None):
    experiments = {
        "level": level,
        "edges": edges,
        "power": power,
        "multivariate": multivariate,
        "mixtures": mixtures,
        "mixtime": mixture_time,
        "time": timing,
    }
    description = __doc__.splitlines()[0]
    return run_experiments(experiments, description, argv, _options, 999)


if __name__ == "__main__":
    main()

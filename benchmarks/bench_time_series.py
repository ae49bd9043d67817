"""Rows in time order: every family's level and power with ``block_size``.

Each experiment draws time series (AR(1) at several ``phi``, a VAR(1) in
d = 5, a GARCH(1,1) whose dependence is in the variance only, an MA(5)) and
counts how often each test rejects at alpha = 0.05:

- ``--level``: two samples from one stationary law (``MMDTest``,
  ``AggregatedMMDTest``), two independent series (``HSICTest``), a series
  whose stationary marginal is the model (``KernelSteinTest``), with
  ``block_size="auto"`` (and ``None`` for contrast);
- ``--warning``: how often the order check warns on AR(1) rows at phi =
  0.5 and on exchangeable rows;
- ``--power``: a mean shift in the second window, a variance change, two
  AR series coupled through a lagged term; and the power ``"auto"`` costs on
  exchangeable rows;
- ``--explain``: the family-wise error of ``explain`` on a table of AR(1)
  columns;
- ``--hyppo``: ``HSICTest(block_size="auto")`` against hyppo's
  ``time_series.DcorrX`` and ``MGCX`` on the same draws (level, power,
  time);
- ``--mcmc``: unthinned random-walk Metropolis chains (a 2-D banana, a
  10-D Gaussian) against their target, and biased (unadjusted Langevin)
  chains of the same length;
- ``--coverage``: the HSIC interval's coverage on coupled AR(1) series;
- ``--time``: seconds per test against the number of rows.

Each line printed is one cell: the experiment, the test, the setting, the
rejection rate over ``--reps`` repetitions with its 95 % interval.

    python benchmarks/bench_time_series.py --level --reps 1000
    python benchmarks/bench_time_series.py --warning --reps 1000
    python benchmarks/bench_time_series.py --power --reps 500
    python benchmarks/bench_time_series.py --mcmc --reps 500
    python benchmarks/bench_time_series.py --explain --reps 500
    python benchmarks/bench_time_series.py --hyppo --reps 200
    python benchmarks/bench_time_series.py --coverage --reps 500
    python benchmarks/bench_time_series.py --time
"""

import argparse
import time
import warnings

import numpy as np
from mcmc_chains import banana, gaussian, integrated_time, rwm, ula
from scipy import signal, stats

import skmmd

ALPHA = 0.05


# ---------------------------------------------------------------- the series
def ar1(rng, n, phi, d=1):
    """A stationary AR(1) series of ``n`` rows in ``d`` independent
    coordinates with N(0, 1) marginals."""
    start = rng.normal(size=(1, d))
    noise = rng.normal(size=(n - 1, d)) * np.sqrt(1 - phi**2)
    rest, _ = signal.lfilter([1.0], [1.0, -phi], noise, axis=0, zi=phi * start)
    return np.vstack([start, rest])


def var1(rng, n, d=5, rho=0.6, burn=500):
    """A VAR(1) in ``d`` coordinates with cross-coupling, started at its
    stationary law by a burn-in."""
    A = rho * (np.eye(d) + 0.2 * np.eye(d, k=1))
    x, out = np.zeros(d), np.empty((n + burn, d))
    noise = rng.normal(size=(n + burn, d))
    for t in range(n + burn):
        x = A @ x + noise[t]
        out[t] = x
    return out[burn:]


def garch(rng, n, d=1, omega=0.1, a=0.15, b=0.8, burn=500):
    """GARCH(1,1) rows: uncorrelated, dependent in their variance only."""
    out = np.empty((n + burn, d))
    sigma2 = np.full(d, omega / (1 - a - b))
    x = np.zeros(d)
    noise = rng.normal(size=(n + burn, d))
    for t in range(n + burn):
        sigma2 = omega + a * x**2 + b * sigma2
        x = np.sqrt(sigma2) * noise[t]
        out[t] = x
    return out[burn:]


def ma(rng, n, q=5, d=1):
    """An MA(q) series (finite memory of q rows), unit variance."""
    noise = rng.normal(size=(n + q, d))
    return signal.lfilter(np.ones(q + 1) / np.sqrt(q + 1), [1.0], noise, axis=0)[q:]


SERIES = {
    "ar(0.5)": lambda rng, n, d: ar1(rng, n, 0.5, d),
    "ar(0.9)": lambda rng, n, d: ar1(rng, n, 0.9, d),
    "ar(0.99)": lambda rng, n, d: ar1(rng, n, 0.99, d),
    "var(1)": lambda rng, n, d: var1(rng, n, 5),
    "garch": lambda rng, n, d: garch(rng, n, d),
    "ma(5)": lambda rng, n, d: ma(rng, n, 5, d),
    "iid": lambda rng, n, d: rng.normal(size=(n, d)),
}


# ------------------------------------------------------------------ the tests
def _quiet(fit):
    """The p-value of ``fit()`` (read inside: a two-sample test calibrates
    when its results are first read), its warnings (a coarse null) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit().p_value_


def two_sample(aggregated=False):
    def run(rng, series, n, block_size, seed, n_resamples=199, shift=0.0):
        X, Y = series(rng, n, 2), series(rng, n, 2) + shift
        cls = skmmd.AggregatedMMDTest if aggregated else skmmd.MMDTest
        test = cls(block_size=block_size, n_resamples=n_resamples, random_state=seed)
        return _quiet(lambda: test.fit(X, Y))

    return run


def independence(rng, series, n, block_size, seed, n_resamples=199, coupling=0.0):
    x, y = series(rng, n, 1), series(rng, n, 1)
    if coupling:  # y depends on x's previous row
        y = y + coupling * np.roll(x, 1, axis=0)
    test = skmmd.HSICTest(
        block_size=block_size, n_resamples=n_resamples, random_state=seed
    )
    return _quiet(lambda: test.fit(x, y))


def goodness_of_fit(rng, series, n, block_size, seed, n_resamples=199, scale=1.0):
    x = series(rng, n, 1)
    test = skmmd.KernelSteinTest(
        stats.norm(scale=scale),
        block_size=block_size,
        n_resamples=n_resamples,
        random_state=seed,
    )
    return _quiet(lambda: test.fit(x[:, :1]))


TESTS = {
    "MMDTest": two_sample(),
    "AggregatedMMDTest": two_sample(aggregated=True),
    "HSICTest": independence,
    "KernelSteinTest": goodness_of_fit,
}


def shard(args):
    """The repetitions this process runs: all, or every ``K``-th from ``I``
    with ``--shard I K`` (each repetition seeded by its own number)."""
    index, count = args.shard
    return range(index, args.reps, count)


def report(args, key, hits, reps, seconds):
    """One cell: its rate, or with ``--shard`` its raw counts, which
    ``--aggregate`` adds up over the shards' outputs."""
    if args.shard != (0, 1):
        print(f"RAW|{key}|{hits}|{reps}|{seconds:.3f}", flush=True)
    else:
        per_test = seconds / max(reps, 1)
        print(f"{key}: {rate(hits, reps)} ({per_test:.2f} s per test)", flush=True)


def aggregate(paths):
    """The cells of several shards' outputs, their counts added up."""
    cells = {}
    for path in paths:
        for line in open(path):
            if line.startswith("RAW|"):
                _, key, hits, reps, seconds = line.strip().split("|")
                total = cells.setdefault(key, [0, 0, 0.0])
                total[0] += int(hits)
                total[1] += int(reps)
                total[2] += float(seconds)
    for key, (hits, reps, seconds) in cells.items():
        per_test = seconds / max(reps, 1)
        print(f"{key}: {rate(hits, reps)} ({per_test:.2f} s per test)")


def rate(hits, reps):
    """A rejection rate and its 95 % Wilson interval."""
    p = hits / reps
    z = 1.96
    centre = (p + z * z / (2 * reps)) / (1 + z * z / reps)
    half = z * np.sqrt(p * (1 - p) / reps + z * z / (4 * reps**2)) / (1 + z * z / reps)
    return f"{p:.3f} [{centre - half:.3f}, {centre + half:.3f}] over {reps}"


def level(args):
    cells = [
        ("ar(0.5)", 1000),
        ("ar(0.9)", 1000),
        ("ar(0.9)", 5000),
        ("ar(0.99)", 5000),
        ("var(1)", 1000),
        ("garch", 1000),
        ("ma(5)", 1000),
        ("iid", 1000),
    ]
    for name in args.tests:
        for series, n in cells:
            if args.series and series not in args.series:
                continue
            if name == "KernelSteinTest" and series in ("var(1)", "garch"):
                continue  # marginals that are not the model N(0, 1)
            for block_size in args.block_sizes:
                hits, start, reps = 0, time.perf_counter(), 0
                for r in shard(args):
                    rng = np.random.default_rng([args.seed, n, len(series), r])
                    test = TESTS[name]
                    p = test(rng, SERIES[series], n, block_size, r, args.n_resamples)
                    hits, reps = hits + (p <= ALPHA), reps + 1
                key = f"level {name} {series} n={n} block_size={block_size}"
                report(args, key, hits, reps, time.perf_counter() - start)


def warning_rate(args):
    """How often the default tests (``block_size=None``) warn that the rows
    look ordered: on AR(1) rows at phi = 0.5, and on exchangeable rows."""
    tests = {
        # One resample: the check runs in fit, before any.
        "MMDTest": lambda X, Y: skmmd.MMDTest(n_resamples=1).fit(X, Y),
        "HSICTest": lambda X, Y: skmmd.HSICTest(n_resamples=1).fit(X, Y),
        "KernelSteinTest": lambda X, Y: skmmd.KernelSteinTest(
            stats.norm(), n_resamples=1
        ).fit(X[:, :1]),
    }
    for series, n in (("ar(0.5)", 1000), ("iid", 1000), ("iid", 5000)):
        for name, run in tests.items():
            if name not in args.tests:
                continue
            hits, reps, start = 0, 0, time.perf_counter()
            for r in shard(args):
                rng = np.random.default_rng([args.seed, n, len(series), len(name), r])
                d = 1 if name != "MMDTest" else 2
                X, Y = SERIES[series](rng, n, d), SERIES[series](rng, n, d)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    run(X, Y)
                hits += any(
                    issubclass(w.category, skmmd.SerialDependenceWarning)
                    for w in caught
                )
                reps += 1
            key = f"warning {name} {series} n={n}"
            report(args, key, hits, reps, time.perf_counter() - start)


def explain_fwer(args, n=1000, n_columns=200, phi=0.7):
    """The family-wise error of ``explain`` (step-down maxT) on two samples
    of a table of AR(1) columns that all have one law: the share of draws
    in which some column is flagged at alpha."""
    for block_size in args.block_sizes:
        hits, reps, start = 0, 0, time.perf_counter()
        for r in shard(args):
            rng = np.random.default_rng([args.seed, n_columns, r])
            X, Y = ar1(rng, n, phi, n_columns), ar1(rng, n, phi, n_columns)
            test = skmmd.MMDTest(
                block_size=block_size,
                explain_columns=True,
                n_resamples=args.n_resamples,
                random_state=r,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                columns = test.fit(X, Y).column_report_
            hits += bool((columns.adjusted_p_value <= ALPHA).any())
            reps += 1
        key = (
            f"explain fwer {n_columns} AR({phi}) columns n={n} block_size={block_size}"
        )
        report(args, key, hits, reps, time.perf_counter() - start)


# ------------------------------------------------------------------ MCMC
def mcmc(args):
    """Random-walk Metropolis chains from the target (4 chains of 2000
    draws after 500 of burn-in, from draws of the target) tested against
    it, and unadjusted Langevin chains of the same length."""
    n_chains, n_draws, burn = 4, 2000, 500
    # The banana's score grows as x1^3: Langevin steps that bias it visibly
    # also make it diverge, so its biased chain is the Gaussian's only.
    targets = {
        "banana": (banana(), 1.0, None),
        "gaussian(d=10)": (gaussian(), 0.5, 0.4),
    }
    for name, ((log_density, score, sample), step, langevin) in targets.items():
        for sampler in ("metropolis", "langevin") if langevin else ("metropolis",):
            reps = args.reps if sampler == "metropolis" else max(args.reps // 2, 1)
            mine = [r for r in shard(args) if r < reps]
            rng = np.random.default_rng([args.seed, len(name), len(sampler), *mine])
            x0 = sample(rng, len(mine) * n_chains)
            if sampler == "metropolis":
                draws = rwm(rng, log_density, x0, burn + n_draws, step)[burn:]
            else:
                draws = ula(rng, score, x0, burn + n_draws, langevin)[burn:]
            columns = range(min(20, draws.shape[1]))
            tau = np.median([integrated_time(draws[:, c, 0]) for c in columns])
            hits, start = 0, time.perf_counter()
            for i, r in enumerate(mine):
                chains = draws[:, i * n_chains : (i + 1) * n_chains]
                test = skmmd.KernelSteinTest(
                    score, n_resamples=args.n_resamples, random_state=r
                )
                hits += _quiet(lambda: test.fit(chains)) <= ALPHA
            # The shard's estimate of the integrated time, printed apart
            # (the key must be the same in every shard).
            print(f"integrated time of {name} {sampler}: about {tau:.0f}", flush=True)
            key = f"mcmc {name} {sampler} ({n_chains} chains x {n_draws} draws)"
            report(args, key, hits, len(mine), time.perf_counter() - start)


# ------------------------------------------------------------- power, hyppo
def _two_windows(kind, phi=0.5, n=1000, effect=0.3):
    """Two consecutive windows of one AR(1) stream of d = 2, the second
    changed: its mean shifted, its scale changed (a variance change), or
    nothing (``"exchangeable"`` draws i.i.d. rows with a mean shift)."""

    def draw(rng):
        if kind == "exchangeable":
            X, Y = rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
            return X, Y + [effect, 0.0]
        Z = ar1(rng, 2 * n, phi, 2)
        X, Y = Z[:n], Z[n:]
        if kind == "mean shift":
            return X, Y + [effect, 0.0]
        return X, Y * (1.0 + effect)

    return draw


def _coupled(phi=0.5, n=300, coupling=0.4):
    """Two AR(1) series, y driven by x's previous row."""

    def draw(rng):
        x = ar1(rng, n, phi)
        y = coupling * np.roll(x, 1, axis=0) + np.sqrt(1 - coupling**2) * ar1(
            rng, n, phi
        )
        return x, y

    return draw


def power(args):
    """Power of the two-sample and independence tests with ``block_size``
    (and without, where the rows are exchangeable: the power blocks cost)."""
    cells = [
        ("MMDTest", "exchangeable", _two_windows("exchangeable", effect=0.12)),
        ("MMDTest", "mean shift", _two_windows("mean shift", effect=0.3)),
        ("MMDTest", "variance change", _two_windows("variance", effect=0.3)),
        ("HSICTest", "lagged coupling", _coupled()),
    ]
    for name, kind, draw in cells:
        sizes = args.block_sizes if kind == "exchangeable" else ["auto"]
        for block_size in sizes:
            hits, reps, start = 0, 0, time.perf_counter()
            for r in shard(args):
                rng = np.random.default_rng([args.seed, len(kind), r])
                A, B = draw(rng)
                cls = skmmd.MMDTest if name == "MMDTest" else skmmd.HSICTest
                test = cls(
                    block_size=block_size,
                    n_resamples=args.n_resamples,
                    random_state=r,
                )
                hits += _quiet(lambda: test.fit(A, B)) <= ALPHA
                reps += 1
            key = f"power {name} {kind} block_size={block_size}"
            report(args, key, hits, reps, time.perf_counter() - start)


def versus_hyppo(args):
    """``HSICTest(block_size="auto")`` and hyppo's ``DcorrX`` (its default
    ``max_lag=0``, 1000 block permutations) and ``MGCX`` on the same draws:
    level on two independent AR(0.5) series and power on lagged coupling,
    n = 300; and the time of one test of each at n = 2000.

    ``"Pearson (oracle)"`` is the reference no test of these draws can beat
    at level alpha by much: the coupling is linear, and it is Pearson's
    correlation against its exact null, the 95 % quantile of ``|r|`` over
    20 000 independent pairs of the same AR(0.5) law (a test that knows
    the law of the series and the form of the alternative)."""
    from hyppo.time_series import MGCX, DcorrX

    def ours(x, y, seed, bandwidth="auto"):
        # bandwidth=2: about twice the median distance of N(0, 1) draws.
        make = skmmd.RandomFourierSampler
        maps = [make(bandwidth=bandwidth, random_state=seed + k) for k in (0, 1)]
        maps = ["auto", "auto"] if bandwidth == "auto" else maps
        test = skmmd.HSICTest(
            *maps, block_size="auto", n_resamples=args.n_resamples, random_state=seed
        )
        return _quiet(lambda: test.fit(x, y))

    def hyppo(cls):
        return lambda x, y, seed: cls(max_lag=0).test(
            x, y, reps=1000, random_state=seed
        )[1]

    def pearson(x, y):
        return abs(np.corrcoef(x.ravel(), y.ravel())[0, 1])

    def oracle():
        null, rng = _coupled(coupling=0.0), np.random.default_rng([args.seed, 95])
        critical = np.quantile([pearson(*null(rng)) for _ in range(20000)], 0.95)
        # A p-value below alpha exactly when |r| exceeds the critical value.
        return lambda x, y, seed: 0.0 if pearson(x, y) > critical else 1.0

    methods = {
        "HSICTest(auto)": ours,
        "HSICTest(auto, bandwidth=2)": lambda x, y, seed: ours(x, y, seed, 2.0),
        "DcorrX": hyppo(DcorrX),
        "MGCX": hyppo(MGCX),
        "Pearson (oracle)": None,
    }
    methods = {k: v for k, v in methods.items() if k in args.methods}
    if "Pearson (oracle)" in methods:
        methods["Pearson (oracle)"] = oracle()
    for kind, draw in (
        ("independent", _coupled(coupling=0.0)),
        ("lagged coupling", _coupled()),
    ):
        hits = dict.fromkeys(methods, 0)
        seconds = dict.fromkeys(methods, 0.0)
        reps = 0
        for r in shard(args):
            x, y = draw(np.random.default_rng([args.seed, len(kind), r]))
            for name, run in methods.items():
                start = time.perf_counter()
                hits[name] += run(x, y, r) <= ALPHA
                seconds[name] += time.perf_counter() - start
            reps += 1
        for name in methods:
            key = f"hyppo {kind} AR(0.5) n=300 {name}"
            report(args, key, hits[name], reps, seconds[name])
    x, y = _coupled(n=2000)(np.random.default_rng(args.seed))
    for name, run in methods.items():
        start = time.perf_counter()
        run(x, y, 0)
        print(f"time at n=2000 {name}: {time.perf_counter() - start:.2f} s", flush=True)


def coverage(args, n=1000, rho=0.5):
    """How often the 95 % interval of ``HSICTest`` (y = rho x + noise) and
    of ``MMDTest`` (Y's mean shifted by 0.5) covers the kernel's HSIC or
    MMD^2, x, Y and the noise AR(phi) series: the truth is the mean unbiased
    estimate over 200 exchangeable draws (phi = 0) of the same laws."""

    def effect(name, x, y, block_size, r):
        maps = [
            skmmd.RandomFourierSampler(bandwidth=1.0, random_state=r + k)
            for k in (0, 1)
        ]
        cls, maps = (
            (skmmd.MMDTest, maps[:1]) if name == "MMD" else (skmmd.HSICTest, maps)
        )
        test = cls(*maps, block_size=block_size, n_resamples=19, random_state=r)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = test.fit(x, y).result_
        return getattr(
            res, name.lower() if name == "HSIC" else "mmd2"
        ), res.standard_error

    def pair(name, rng, phi):
        x, noise = ar1(rng, n, phi), ar1(rng, n, phi)
        return (
            (x, noise + 0.5)
            if name == "MMD"
            else (x, rho * x + np.sqrt(1 - rho**2) * noise)
        )

    for name in ("HSIC", "MMD"):
        draws = [
            pair(name, np.random.default_rng([args.seed, 1, r]), 0.0)
            for r in range(200)
        ]
        truth = np.mean([effect(name, *xy, None, r)[0] for r, xy in enumerate(draws)])
        for phi in (0.5, 0.9):
            for block_size in args.block_sizes:
                hits, start = 0, time.perf_counter()
                for r in shard(args):
                    xy = pair(name, np.random.default_rng([args.seed, 2, r]), phi)
                    estimate, se = effect(name, *xy, block_size, r)
                    hits += abs(estimate - truth) <= 1.96 * se
                key = f"coverage {name} AR({phi}) n={n} block_size={block_size}"
                report(args, key, hits, len(shard(args)), time.perf_counter() - start)


def timing(args):
    """Seconds of one test against the rows, with and without blocks."""
    for n in (1000, 10_000, 100_000):
        rng = np.random.default_rng(args.seed)
        X, Y = ar1(rng, n, 0.5, 2), ar1(rng, n, 0.5, 2)
        for name, make in (
            ("MMDTest", lambda b: skmmd.MMDTest(block_size=b, random_state=0)),
            ("HSICTest", lambda b: skmmd.HSICTest(block_size=b, random_state=0)),
        ):
            for block_size in (None, "auto"):
                test = make(block_size)
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    test.fit(X, Y if name == "MMDTest" else Y[:, :1]).p_value_
                seconds = time.perf_counter() - start
                print(
                    f"time {name} n={n} block_size={block_size}: {seconds:.2f} s",
                    flush=True,
                )


def run_experiments(experiments, description, argv, extra, n_resamples=199):
    """The command line of a benchmark of sharded Monte Carlo cells: a flag
    per experiment, ``--reps``, ``--n-resamples``, ``--shard I K`` (raw
    counts) and ``--aggregate`` (their sums), ``--seed``, and the options
    ``extra(parser)`` adds; runs the experiments flagged."""
    parser = argparse.ArgumentParser(description=description)
    for name in experiments:
        parser.add_argument(f"--{name}", action="store_true")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument(
        "--n-resamples",
        type=lambda s: s if s == "auto" else int(s),
        default=n_resamples,
        help=f'resamples of every test ({n_resamples}; "auto": stop once the '
        "decision is known)",
    )
    parser.add_argument(
        "--shard",
        nargs=2,
        type=int,
        default=(0, 1),
        metavar=("I", "K"),
        help="run repetitions I, I + K, ... and print raw counts",
    )
    parser.add_argument("--aggregate", nargs="*", help="add up shards' outputs")
    parser.add_argument("--seed", type=int, default=0)
    extra(parser)
    args = parser.parse_args(argv)
    args.shard = tuple(args.shard)
    if args.aggregate:
        return aggregate(args.aggregate)
    for name, run in experiments.items():
        if getattr(args, name):
            run(args)


def _options(parser):
    parser.add_argument(
        "--methods",
        nargs="*",
        default=["HSICTest(auto)", "DcorrX", "MGCX", "Pearson (oracle)"],
    )
    parser.add_argument("--tests", nargs="*", default=list(TESTS))
    parser.add_argument("--series", nargs="*", default=None)
    parser.add_argument(
        "--block-sizes",
        nargs="*",
        default=["auto"],
        type=lambda s: None if s == "None" else s if s == "auto" else int(s),
    )


def main(argv=None):
    experiments = {
        "level": level,
        "warning": warning_rate,
        "mcmc": mcmc,
        "explain": explain_fwer,
        "power": power,
        "hyppo": versus_hyppo,
        "coverage": coverage,
        "time": timing,
    }
    description = __doc__.splitlines()[0]
    return run_experiments(experiments, description, argv, _options)


if __name__ == "__main__":
    main()

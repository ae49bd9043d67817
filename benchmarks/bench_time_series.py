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
- ``--time``: seconds per test against the number of rows.

Each line printed is one cell: the experiment, the test, the setting, the
rejection rate over ``--reps`` repetitions with its 95 % interval.

    python benchmarks/bench_time_series.py --level --reps 1000
    python benchmarks/bench_time_series.py --warning --reps 1000
    python benchmarks/bench_time_series.py --power --reps 500
    python benchmarks/bench_time_series.py --explain --reps 500
    python benchmarks/bench_time_series.py --hyppo --reps 200
    python benchmarks/bench_time_series.py --time
"""

import argparse
import time
import warnings

import numpy as np
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
    def run(rng, series, n, block_size, seed, shift=0.0):
        X, Y = series(rng, n, 2), series(rng, n, 2) + shift
        cls = skmmd.AggregatedMMDTest if aggregated else skmmd.MMDTest
        test = cls(block_size=block_size, n_resamples=199, random_state=seed)
        return _quiet(lambda: test.fit(X, Y))

    return run


def independence(rng, series, n, block_size, seed, coupling=0.0):
    x, y = series(rng, n, 1), series(rng, n, 1)
    if coupling:  # y depends on x's previous row
        y = y + coupling * np.roll(x, 1, axis=0)
    test = skmmd.HSICTest(block_size=block_size, n_resamples=199, random_state=seed)
    return _quiet(lambda: test.fit(x, y))


def goodness_of_fit(rng, series, n, block_size, seed, scale=1.0):
    x = series(rng, n, 1)
    x = (x - 0.0) / np.std(x, axis=0) if series is SERIES["var(1)"] else x
    test = skmmd.KernelSteinTest(
        stats.norm(scale=scale),
        block_size=block_size,
        n_resamples=199,
        random_state=seed,
    )
    return _quiet(lambda: test.fit(x[:, :1]))


TESTS = {
    "MMDTest": two_sample(),
    "AggregatedMMDTest": two_sample(aggregated=True),
    "HSICTest": independence,
    "KernelSteinTest": goodness_of_fit,
}


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
            for block_size in args.block_sizes:
                rng = np.random.default_rng([args.seed, n, len(series)])
                hits, start = 0, time.perf_counter()
                for r in range(args.reps):
                    p = TESTS[name](rng, SERIES[series], n, block_size, r)
                    hits += p <= ALPHA
                seconds = (time.perf_counter() - start) / args.reps
                print(
                    f"level {name} {series} n={n} block_size={block_size}: "
                    f"{rate(hits, args.reps)} ({seconds:.2f} s per test)",
                    flush=True,
                )


def warning_rate(args):
    for series, n in (("ar(0.5)", 1000), ("iid", 1000), ("iid", 5000)):
        for name, run in (
            ("MMDTest", lambda X, Y: skmmd.MMDTest(n_resamples=19).fit(X, Y)),
            ("HSICTest", lambda X, Y: skmmd.HSICTest(n_resamples=19).fit(X, Y)),
            (
                "KernelSteinTest",
                lambda X, Y: skmmd.KernelSteinTest(stats.norm(), n_resamples=19).fit(
                    X[:, :1]
                ),
            ),
        ):
            rng = np.random.default_rng([args.seed, n, len(series), len(name)])
            hits = 0
            for _ in range(args.reps):
                d = 1 if name != "MMDTest" else 2
                X, Y = SERIES[series](rng, n, d), SERIES[series](rng, n, d)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    run(X, Y)
                hits += any(
                    issubclass(w.category, skmmd.SerialDependenceWarning)
                    for w in caught
                )
            print(f"warning {name} {series} n={n}: {rate(hits, args.reps)}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", action="store_true")
    parser.add_argument("--warning", action="store_true")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tests", nargs="*", default=list(TESTS))
    parser.add_argument("--series", nargs="*", default=None)
    parser.add_argument(
        "--block-sizes",
        nargs="*",
        default=["auto"],
        type=lambda s: None if s == "None" else s if s == "auto" else int(s),
    )
    args = parser.parse_args(argv)
    if args.level:
        level(args)
    if args.warning:
        warning_rate(args)


if __name__ == "__main__":
    main()

"""Level, resamples used and agreement with 999 fixed resamples of the
sequential option ``n_resamples="auto"`` (issue 42).

Every repetition fits the test twice on the same data and seed, with
``n_resamples="auto"`` and with 999 resamples: both see the same resamples in
the same order, so the comparison is paired. Tests: ``MMDTest`` (default map,
two samples of ``n`` points from N(0, I_5), the alternative shifts one
coordinate of Y) and ``HSICTest`` (default maps, ``n`` pairs, ``y = rho x_1 +
noise`` under the alternative); on request the aggregated tests, the
conditional test, and the goodness-of-fit tests (``n`` rows of N(0, I_5)
whose first coordinate's standard deviation is ``1 + s``, against the model
N(0, I_5)). The alternatives' strengths give a power near 0.5 at n = 300.

Reported per test: the rejection rate of each (the null's with a binomial
standard error), the mean and quantiles of the resamples the sequential test
drew, the share of equal decisions, and the time of both fits (the whole
fit, not only the calibration).

    python benchmarks/bench_sequential.py                    # the issue's runs
    python benchmarks/bench_sequential.py --null 200 --alt 80  # minutes
    python benchmarks/bench_sequential.py --tests AggregatedMMDTest ConditionalHSICTest
    python benchmarks/bench_sequential.py --clear --n 1000 --null 20 --alt 20 \
        --tests MMDTest AggregatedMMDTest HSICTest AggregatedHSICTest \
        ConditionalHSICTest KernelSteinTest AggregatedKernelSteinTest
        # auto's time on clear nulls and alternatives, every family

Measured (commit 78f996b's rule, the same at alpha = 0.05 as today's; this
2-core machine shared with two other jobs, so the times are indicative only,
as ratios within one run; one run, n = 300, 1000 null and 400 alternative
repetitions per test, the standard error of a rate of 0.05 is 0.0069 and
0.0109):

=========  ============  ==========  ===============  =============  ===========
test       data          reject      resamples drawn  decisions      fit time
                         auto / 999  mean (median,    equal to 999   999 / auto
                                     90 %)
=========  ============  ==========  ===============  =============  ===========
MMDTest    null          0.046 /     79.2 (16, 192)   1000 of 1000   2.4x
                         0.046
MMDTest    shift 0.21    0.438 /     309 (192, 999)   400 of 400     1.7x
                         0.438
HSICTest   null          0.063 /     90.6 (16, 256)   1000 of 1000   2.3x
                         0.063
HSICTest   rho 0.19      0.520 /     316 (192, 999)   400 of 400     1.6x
                         0.520
=========  ============  ==========  ===============  =============  ===========

The fit time includes the maps and the unit sums, which do not shrink: at
n = 300 the calibration is about half of a fit.

Again for ``MMDTest`` after the automatic unit was bounded to 512 units (600
points: units of 2) and the fit's resampling deferred to the first read of a
result (``--tests MMDTest``, one run, machine shared with two other jobs):
null 0.048 / 0.048 of 1000 (79.8 resamples on average, median 16, 90 % 192,
every decision equal), shift 0.21: 0.445 / 0.445 of 400 (319.9 resamples,
every decision equal).

On request (``--tests AggregatedMMDTest ConditionalHSICTest --null 300 --alt
100``, one run, same machine; the standard error of a rate of 0.05 is
0.0126): AggregatedMMDTest, which stops only to accept, rejected 0.037 of
300 null data sets (999: 0.040; one decision of 300 differed, a stop to
accept where the fixed test rejected) with 93.5 resamples on average, and
0.450 / 0.450 of 100 alternatives (all equal, 544 resamples); the
ConditionalHSICTest (no Z) 0.053 / 0.053 on null data with 67.3 resamples
and 0.310 / 0.310 on alternatives (198 resamples), every decision equal.
"""

import argparse
from functools import partial
from time import perf_counter

import numpy as np
from scipy import stats

from skmmd import (
    AggregatedHSICTest,
    AggregatedKernelSteinTest,
    AggregatedMMDTest,
    ConditionalHSICTest,
    HSICTest,
    KernelSteinTest,
    MMDTest,
)

ALPHA = 0.05
D = 5


def _mmd_data(seed, n, shift):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(n, D)), rng.normal(size=(n, D))
    Y[:, 0] += shift
    return X, Y


def _hsic_data(seed, n, rho):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, D))
    y = rho * x[:, :1] + rng.normal(size=(n, 1))
    return x, y


def _conditional_data(seed, n, rho):
    """x and y driven by z non-linearly; ``rho`` of x in y besides."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 1))
    x = np.sin(2 * z) + 0.5 * rng.normal(size=(n, 1))
    y = z**2 / 2 + rho * x + 0.5 * rng.normal(size=(n, 1))
    return x, y, z


def _gof_data(seed, n, scale):
    """Rows of N(0, I_5) whose first coordinate's standard deviation is
    ``1 + scale``, tested against N(0, I_5)."""
    X = np.random.default_rng(seed).normal(size=(n, D))
    X[:, 0] *= 1.0 + scale
    return (X,)


# Each test: its class, data, the alternative's strength near power 0.5 at
# n = 300, and a clear one (power 1; --clear).
TESTS = {
    "MMDTest": (MMDTest, _mmd_data, 0.21, 1.0),
    "HSICTest": (HSICTest, _hsic_data, 0.19, 0.8),
    # Not run by default: the figures are for the two above.
    "AggregatedMMDTest": (AggregatedMMDTest, _mmd_data, 0.21, 1.0),
    "AggregatedHSICTest": (AggregatedHSICTest, _hsic_data, 0.19, 0.8),
    "ConditionalHSICTest": (ConditionalHSICTest, _conditional_data, 0.19, 0.8),
    "KernelSteinTest": (partial(KernelSteinTest, stats.norm()), _gof_data, 0.25, 0.5),
    "AggregatedKernelSteinTest": (
        partial(AggregatedKernelSteinTest, stats.norm()),
        _gof_data,
        0.25,
        0.5,
    ),
}


def _pair(cls, data, seed):
    """The sequential and the fixed test on the same data and seed (the
    first of the two in turn: the first fit on new data is the slower)."""
    out = {}
    for n_resamples in ("auto", 999)[:: 1 if seed % 2 == 0 else -1]:
        start = perf_counter()
        test = cls(n_resamples=n_resamples, alpha=ALPHA, random_state=seed)
        if len(data) == 3:
            test.fit(data[0], data[1], Z=data[2])
        else:
            test.fit(*data)
        out[n_resamples] = (
            test.reject_,
            test.n_resamples_used_,
            perf_counter() - start,
        )
    return [out["auto"], out[999]]


def run(name, reps, n, strength, offset):
    cls, data = TESTS[name][:2]
    rows = [_pair(cls, data(offset + rep, n, strength), rep) for rep in range(reps)]
    (r_auto, used, t_auto), (r_fixed, _, t_fixed) = (
        np.array(part, dtype=float).T for part in zip(*rows)
    )
    return {
        "reps": reps,
        "reject_auto": r_auto.mean(),
        "reject_fixed": r_fixed.mean(),
        "se": np.sqrt(ALPHA * (1 - ALPHA) / reps),
        "mean_used": used.mean(),
        "quantiles_used": np.quantile(used, [0.5, 0.9]).astype(int).tolist(),
        "agree": np.mean(r_auto == r_fixed),
        "time_auto": t_auto.sum(),
        "time_fixed": t_fixed.sum(),
    }


def _line(name, setting, r):
    return (
        f"{name:8s} {setting:12s} reps={r['reps']:4d}  reject auto "
        f"{r['reject_auto']:.3f} / 999 {r['reject_fixed']:.3f} "
        f"(se at alpha {r['se']:.4f})  resamples "
        f"mean {r['mean_used']:.1f} median/90% {r['quantiles_used']}  decisions "
        f"equal {r['agree']:.4f}  time auto {r['time_auto']:.1f} s / 999 "
        f"{r['time_fixed']:.1f} s ({r['time_fixed'] / r['time_auto']:.1f}x)"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--null", type=int, default=1000, help="null repetitions")
    parser.add_argument("--alt", type=int, default=400, help="alternative repetitions")
    parser.add_argument("--n", type=int, default=300, help="points per sample")
    parser.add_argument(
        "--tests", nargs="+", default=["MMDTest", "HSICTest"], choices=TESTS
    )
    parser.add_argument(
        "--clear",
        action="store_true",
        help="the alternatives of power 1 (is auto faster where the decision is "
        "clear?)",
    )
    args = parser.parse_args(argv)
    for name in args.tests:
        strength = TESTS[name][3 if args.clear else 2]
        null = run(name, args.null, args.n, 0.0, 0)
        print(_line(name, "null", null), flush=True)
        alt = run(name, args.alt, args.n, strength, 10**6)
        print(_line(name, f"alt {strength}", alt), flush=True)


if __name__ == "__main__":
    main()

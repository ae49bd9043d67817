"""HSICTest: level, power against hyppo's exact Hsic, and speed.

(a) type-I error at alpha = 0.05 on independent pairs (Gaussian, t with 3
    dof; d_x = d_y = 1 and 5; n = 500);
(b) power at n = 500 on dependence that correlation misses (y = x^2 + noise,
    a sine, a ring; noise set so that no test is at power 1), HSICTest
    (D = 1024) beside our exact test (Gaussian kernel, median bandwidth of
    each variable), hyppo's Hsic (Gaussian kernel, permutation; its
    bandwidth is the median distance of x, used for y too) and Dcorr, same
    draws and B (199 by default: hyppo's exact tests take ~3 s each at
    B = 999); --no-hyppo leaves hyppo out;
(c) time at n = 5000, HSICTest against hyppo's Hsic, same run, draws and
    number of permutations (hyppo's exact test takes over 10 min at B = 999);
(d) n = 10^7 pairs in memory: time and peak RSS (a fresh process).

hyppo is a benchmark-only dependency (``pip install hyppo``); without it the
comparisons are skipped.

    python benchmarks/bench_independence.py [--parts abcd] [--reps 1000]
"""

import argparse
import json
import resource
import subprocess
import sys
import warnings
from time import perf_counter

import numpy as np

from skmmd import HSICTest


def _hyppo():
    try:
        from hyppo.independence import Dcorr, Hsic
    except ImportError:
        return None, None
    return Hsic, Dcorr


def null_pair(rng, n, d, law):
    if law == "t3":
        return rng.standard_t(3, size=(n, d)), rng.standard_t(3, size=(n, d))
    return rng.normal(size=(n, d)), rng.normal(size=(n, d))


def dependent_pair(rng, n, kind):
    if kind == "ring":
        angle = rng.uniform(0, 2 * np.pi, n)
        radius = 1 + 0.4 * rng.normal(size=n)
        return (radius * np.cos(angle))[:, None], (radius * np.sin(angle))[:, None]
    x = rng.uniform(-1, 1, size=(n, 1))
    if kind == "quadratic":
        return x, x**2 + 2.0 * rng.normal(size=(n, 1))
    return x, np.sin(4 * np.pi * x) + 1.0 * rng.normal(size=(n, 1))  # sine


def level(reps, n_resamples):
    print(f"\n(a) type-I error, n=500, alpha=0.05, {reps} repetitions, B={n_resamples}")
    print(f"{'law':<8} {'d':>3} {'rejection rate':>15} {'95% interval':>20}")
    for law in ("gauss", "t3"):
        for d in (1, 5):
            rejected = 0
            for rep in range(reps):
                rng = np.random.default_rng([rep, d, law == "t3"])
                x, y = null_pair(rng, 500, d, law)
                test = HSICTest(n_resamples=n_resamples, random_state=rep)
                rejected += test.fit(x, y).reject_
            rate = rejected / reps
            half = 1.96 * np.sqrt(rate * (1 - rate) / reps)
            print(
                f"{law:<8} {d:>3} {rate:>15.3f} "
                f"{f'[{rate - half:.3f}, {rate + half:.3f}]':>20}"
            )


def power(reps, n_resamples, use_hyppo=True):
    Hsic, Dcorr = _hyppo() if use_hyppo else (None, None)
    print(f"\n(b) power, n=500, alpha=0.05, {reps} repetitions, B={n_resamples}")
    print(
        f"{'dependence':<11} {'HSICTest D=1024':>16} {'HSICTest exact':>15} "
        f"{'hyppo Hsic':>11} {'hyppo Dcorr':>12} {'D=1024 - Hsic (95%)':>22}"
    )
    for kind in ("quadratic", "sine", "ring"):
        ours, exact, hsic, dcorr = (np.zeros(reps, bool) for _ in range(4))
        for rep in range(reps):
            rng = np.random.default_rng([rep, 7])
            x, y = dependent_pair(rng, 500, kind)
            test = HSICTest(n_resamples=n_resamples, random_state=rep)
            ours[rep] = test.fit(x, y).reject_
            test = HSICTest(None, None, n_resamples=n_resamples, random_state=rep)
            exact[rep] = test.fit(x, y).reject_
            if Hsic is not None:
                np.random.seed(rep)
                hsic[rep] = Hsic().test(x, y, reps=n_resamples, auto=False)[1] <= 0.05
                dcorr[rep] = Dcorr().test(x, y, reps=n_resamples, auto=False)[1] <= 0.05
        if Hsic is None:
            print(
                f"{kind:<11} {ours.mean():>16.3f} {exact.mean():>15.3f} "
                f"{'n/a':>11} {'n/a':>12}"
            )
            continue
        # paired difference on the same draws, with its normal-approximation
        # 95% interval
        diff = ours.astype(float) - hsic
        half = 1.96 * diff.std(ddof=1) / np.sqrt(reps)
        low, mid, high = diff.mean() - half, diff.mean(), diff.mean() + half
        print(
            f"{kind:<11} {ours.mean():>16.3f} {exact.mean():>15.3f} "
            f"{hsic.mean():>11.3f} {dcorr.mean():>12.3f} "
            f"{f'{mid:+.3f} [{low:+.3f}, {high:+.3f}]':>22}"
        )


def speed(n, n_resamples, with_hyppo=True):
    Hsic, Dcorr = _hyppo() if with_hyppo else (None, None)
    rng = np.random.default_rng(0)
    x, y = dependent_pair(rng, n, "quadratic")
    HSICTest(n_resamples=n_resamples, random_state=0).fit(x[:500], y[:500])  # warm
    start = perf_counter()
    test = HSICTest(n_resamples=n_resamples, random_state=0).fit(x, y)
    ours = perf_counter() - start
    print(f"\n(c) time at n={n}, B={n_resamples} (same draws)")
    print(
        f"HSICTest (D=1024, {n // test.resample_unit_} units of "
        f"{test.resample_unit_}): {ours:.2f} s, p={test.p_value_:.3f}"
    )
    if Hsic is None:
        print("hyppo: not installed, or left out (--no-hyppo)")
        return
    for name, Test in (("Hsic", Hsic), ("Dcorr", Dcorr)):
        Test().test(x[:100], y[:100], reps=1000, auto=False)  # compile
        start = perf_counter()
        _, pvalue = Test().test(x, y, reps=n_resamples, auto=False)
        theirs = perf_counter() - start
        print(
            f"hyppo {name} (exact, permutation): {theirs:.2f} s, p={pvalue:.3f}, "
            f"HSICTest {theirs / ours:.0f}x faster"
        )


def _one_large(n):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 1))
    y = np.sin(3 * x) + rng.normal(size=(n, 1))
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = perf_counter()
    test = HSICTest(random_state=0).fit(x, y)
    seconds = perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "seconds": seconds,
                "rss_data_mb": rss_data,
                "rss_peak_mb": rss,
                "unit": test.resample_unit_,
                "p": test.p_value_,
            }
        )
    )


def large(n):
    out = subprocess.run(
        [sys.executable, __file__, "--one-large", str(n)],
        capture_output=True,
        text=True,
        check=True,
    )
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"\n(d) n={n} pairs in memory (d_x = d_y = 1, D = 1024, B = 999): "
        f"{r['seconds']:.1f} s, peak RSS {r['rss_peak_mb']:.0f} MB (data alone "
        f"{r['rss_data_mb']:.0f} MB), units of {r['unit']}, p={r['p']:.3f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parts", default="abcd")
    parser.add_argument("--reps", type=int, default=1000, help="level repetitions")
    parser.add_argument("--power-reps", type=int, default=200)
    parser.add_argument("--n-resamples", type=int, default=999, help="B of (a)")
    parser.add_argument(
        "--power-resamples", type=int, default=199, help="B of (b), for all tests"
    )
    parser.add_argument(
        "--speed-resamples", type=int, default=99, help="B of (c), for both tests"
    )
    parser.add_argument("--n-large", type=float, default=1e7)
    parser.add_argument("--no-hyppo", action="store_true", help="leave hyppo out")
    parser.add_argument("--one-large", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    # hyppo warns below 1000 permutations; the p-values here are compared at
    # equal B.
    warnings.filterwarnings("ignore", message="The number of replications is low")
    if args.one_large:
        _one_large(args.one_large)
        sys.exit()
    if "a" in args.parts:
        level(args.reps, args.n_resamples)
    if "b" in args.parts:
        power(args.power_reps, args.power_resamples, not args.no_hyppo)
    if "c" in args.parts:
        speed(5000, args.speed_resamples, not args.no_hyppo)
    if "d" in args.parts:
        large(int(args.n_large))

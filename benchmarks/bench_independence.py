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
(d) n = 10^7 pairs in memory: time and peak RSS (a fresh process);
(e) AggregatedHSICTest's type-I error (as (a), its own B: ``--agg-resamples``);
(f) power of AggregatedHSICTest (5 x 5 Gaussian bandwidths) beside HSICTest
    (median bandwidths) and hyppo's Hsic and Dcorr, same draws: the sine of
    the issue at several frequencies (x ~ U(-2, 2), y = sin(w x) + 0.5 N(0, 1),
    n = 400; w = 8 also at n = 1000), the ring and y = x^2 of (b), and the
    perturbed uniform densities of HSICAgg (Schrab et al. 2022);
(g) time against n: AggregatedHSICTest and HSICTest in the same run, and
    hyppo's Hsic (one bandwidth, quadratic) at n = 5000;
(h) the effect size: HSICTest's HSIC on y = x^2 + N(0, 1) at n = 10^3 (20
    draws), 2 10^4 (100 draws: mean and coverage of the 95 % interval) and
    10^6.

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

from skmmd import AggregatedHSICTest, HSICTest


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


def sine_pair(rng, n, w):
    x = rng.uniform(-2, 2, size=(n, 1))
    return x, np.sin(w * x) + 0.5 * rng.normal(size=(n, 1))


def _bump(t):
    """HSICAgg's (and MMDAgg's) G: a smooth bump of integral 0 on (-1, 0)."""
    out = np.zeros_like(t)
    a = (t > -1) & (t < -0.5)
    b = (t >= -0.5) & (t < 0)
    out[a] = np.exp(-1 / (1 - (4 * t[a] + 3) ** 2))
    out[b] = -np.exp(-1 / (1 - (4 * t[b] + 1) ** 2))
    return out


def perturbed_uniform_pair(rng, n, perturbations, amplitude=7.3):
    """(x, y) on [0, 1]^2 from the uniform density perturbed by P x P bumps
    of random signs, ``f(u) = 1 + c P^-1 sum_v theta_v G(P u_1 - v_1)
    G(P u_2 - v_2)`` (Schrab et al. 2022, after MMDAgg's Section 5, smoothness
    s = 1, c = 7.3 for d = 2): both marginals stay uniform (each bump
    integrates to 0 along each axis), so only the joint shows dependence.
    Rejection sampling from the uniform (f <= 2)."""
    P = perturbations
    theta = rng.choice([-1.0, 1.0], size=(P, P))
    rows = np.empty((0, 2))
    while len(rows) < n:
        u = rng.uniform(size=(4 * n, 2))
        v = np.arange(1, P + 1)
        g1 = _bump(P * u[:, :1] - v)  # (m, P)
        g2 = _bump(P * u[:, 1:] - v)
        f = 1 + amplitude / P * np.einsum("mi,ij,mj->m", g1, theta, g2)
        keep = rng.uniform(size=len(u)) * 2 < f
        rows = np.vstack([rows, u[keep]])
    return rows[:n, :1], rows[:n, 1:]


def _rate(hits):
    hits = np.asarray(hits, float)
    half = 1.96 * np.sqrt(max(hits.mean() * (1 - hits.mean()), 1e-12) / len(hits))
    return f"{hits.mean():.3f} ±{half:.3f}"


def aggregated_level(reps, n_resamples, settings=None):
    print(
        f"\n(e) AggregatedHSICTest type-I error, n=500, alpha=0.05, {reps} "
        f"repetitions, B={n_resamples}"
    )
    for law in ("gauss", "t3"):
        for d in (1, 5):
            if settings and f"{law}:{d}" not in settings:
                continue
            hits = []
            for rep in range(reps):
                rng = np.random.default_rng([rep, d, law == "t3", 41])
                x, y = null_pair(rng, 500, d, law)
                test = AggregatedHSICTest(n_resamples=n_resamples, random_state=rep)
                hits.append(test.fit(x, y).reject_)
            print(f"{law:<8} d={d}: rejection rate {_rate(hits)}", flush=True)


def _problems(names):
    problems = {
        "sine w=2": (lambda r: sine_pair(r, 400, 2)),
        "sine w=4": (lambda r: sine_pair(r, 400, 4)),
        "sine w=8": (lambda r: sine_pair(r, 400, 8)),
        "sine w=8 n=1000": (lambda r: sine_pair(r, 1000, 8)),
        "sine w=16 n=1000": (lambda r: sine_pair(r, 1000, 16)),
        "ring": (lambda r: dependent_pair(r, 500, "ring")),
        "x^2": (lambda r: dependent_pair(r, 500, "quadratic")),
        "perturbed P=2 n=500": (lambda r: perturbed_uniform_pair(r, 500, 2)),
        "perturbed P=3 n=1000": (lambda r: perturbed_uniform_pair(r, 1000, 3)),
    }
    return {k: v for k, v in problems.items() if not names or k in names}


def aggregated_power(reps, n_resamples, use_hyppo=True, names=None, hyppo_reps=None):
    Hsic, Dcorr = _hyppo() if use_hyppo else (None, None)
    print(
        f"\n(f) power, alpha=0.05, {reps} repetitions, B={n_resamples} for ours, "
        "hyppo's defaults (chi-square null) for hyppo (95 % intervals)"
    )
    print(
        f"{'dependence':<22} {'Aggregated':>14} {'HSICTest':>14} "
        f"{'agg - single':>14} {'hyppo Hsic':>14} {'hyppo Dcorr':>14}"
    )
    for kind, draw in _problems(names).items():
        agg, single, hsic, dcorr = ([] for _ in range(4))
        for rep in range(reps):
            x, y = draw(np.random.default_rng([rep, 41]))
            options = {"n_resamples": n_resamples, "random_state": rep}
            agg.append(AggregatedHSICTest(**options).fit(x, y).reject_)
            single.append(HSICTest(**options).fit(x, y).reject_)
            if Hsic is not None and rep < (hyppo_reps or reps):
                # hyppo as its users run it: its default (auto) null, a
                # chi-square approximation above 20 pairs.
                np.random.seed(rep)
                hsic.append(Hsic().test(x, y)[1] <= 0.05)
                dcorr.append(Dcorr().test(x, y)[1] <= 0.05)
        diff = np.array(agg, float) - np.array(single, float)
        half = 1.96 * diff.std(ddof=1) / np.sqrt(reps)
        print(
            f"{kind:<22} {_rate(agg):>14} {_rate(single):>14} "
            f"{f'{diff.mean():+.3f}±{half:.3f}':>14} "
            f"{_rate(hsic) if hsic else 'n/a':>14} "
            f"{_rate(dcorr) if dcorr else 'n/a':>14}"
            f"{f' (hyppo: {len(hsic)} reps)' if 0 < len(hsic) < reps else ''}",
            flush=True,
        )


def aggregated_speed(sizes, n_resamples, with_hyppo=True):
    Hsic, _ = _hyppo() if with_hyppo else (None, None)
    print(
        f"\n(g) time against n, B={n_resamples}, y = x^2 + N(0, 4) "
        "(each test timed once, one after the other, in one run)"
    )
    rng = np.random.default_rng(0)
    x, y = dependent_pair(rng, max(sizes), "quadratic")
    AggregatedHSICTest(n_resamples=9, random_state=0).fit(x[:500], y[:500])  # warm
    HSICTest(n_resamples=9, random_state=0).fit(x[:500], y[:500])
    for n in sizes:
        times = {}
        for name, Test in (("aggregated", AggregatedHSICTest), ("single", HSICTest)):
            start = perf_counter()
            test = Test(n_resamples=n_resamples, random_state=0).fit(x[:n], y[:n])
            times[name] = perf_counter() - start
        ratio = times["aggregated"] / times["single"]
        line = (
            f"n={n:>7}: AggregatedHSICTest {times['aggregated']:.2f} s, HSICTest "
            f"{times['single']:.2f} s (ratio {ratio:.1f}, units of "
            f"{test.resample_unit_})"
        )
        if Hsic is not None and n == 5000:
            Hsic().test(x[:100], y[:100], reps=10, auto=False)  # compile
            start = perf_counter()
            Hsic().test(x[:n], y[:n], reps=n_resamples, auto=False)
            theirs = perf_counter() - start
            line += (
                f"; hyppo Hsic {theirs:.1f} s: AggregatedHSICTest "
                f"{theirs / times['aggregated']:.0f}x faster"
            )
        print(line, flush=True)


def effect_size(n_resamples, large=(20000, 1000000), reps=100):
    print(f"\n(h) HSIC of y = x^2 + N(0, 1), HSICTest (B={n_resamples})")

    def fit(n, seed):
        rng = np.random.default_rng([seed, 8])
        x = rng.normal(size=(n, 1))
        test = HSICTest(n_resamples=n_resamples, random_state=seed)
        return test.fit(x, x**2 + rng.normal(size=(n, 1)))

    small = [fit(1000, s) for s in range(20)]
    reference = np.mean([t.result_.hsic for t in small])
    print(
        f"n=1000 (unit {small[0].resample_unit_}), mean of 20: hsic {reference:.5f}, "
        f"statistic {np.mean([t.statistic_ for t in small]):.5f}"
    )
    for n in large:
        runs = [fit(n, s) for s in range(reps if n <= 20000 else 1)]
        covered = [
            (lambda ci: ci[0] <= reference <= ci[1])(t.result_.confidence_interval())
            for t in runs
        ]
        hsic = np.mean([t.result_.hsic for t in runs])
        print(
            f"n={n} (unit {runs[0].resample_unit_}), {len(runs)} draws: hsic "
            f"{hsic:.5f} ({hsic / reference - 1:+.1%}), statistic "
            f"{np.mean([t.statistic_ for t in runs]):.5f}, 95% interval covers the "
            f"n=1000 mean in {np.mean(covered):.0%}",
            flush=True,
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
        "--speed-resamples", type=int, default=99, help="B of (c) and (g)"
    )
    parser.add_argument("--n-large", type=float, default=1e7)
    parser.add_argument("--no-hyppo", action="store_true", help="leave hyppo out")
    parser.add_argument(
        "--hyppo-reps", type=int, help="hyppo on the first this many draws of (f)"
    )
    parser.add_argument(
        "--agg-resamples", type=int, default=199, help="B of (e), (f) and (h)"
    )
    parser.add_argument(
        "--problems", default="", help="comma-separated problems of (f); all if empty"
    )
    parser.add_argument(
        "--laws", default="", help="settings of (e), e.g. gauss:5,t3:1; all if empty"
    )
    parser.add_argument("--sizes", default="1000,5000,20000,100000", help="n of (g)")
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
    if "e" in args.parts:
        aggregated_level(
            args.reps, args.agg_resamples, [k for k in args.laws.split(",") if k]
        )
    if "f" in args.parts:
        names = [k for k in args.problems.split(",") if k]
        hyppo = not args.no_hyppo
        aggregated_power(
            args.power_reps, args.agg_resamples, hyppo, names, args.hyppo_reps
        )
    if "g" in args.parts:
        sizes = [int(float(k)) for k in args.sizes.split(",")]
        aggregated_speed(sizes, args.speed_resamples, not args.no_hyppo)
    if "h" in args.parts:
        effect_size(args.agg_resamples)

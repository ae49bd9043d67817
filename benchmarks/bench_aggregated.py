"""Power, level and time of the aggregated MMD test against single-kernel tests.

Problems (skmmd.datasets): the mixture of Gaussians (sigma = 1 is the null) and
the perturbed uniform (scale = 0 is the null). Tests compared on the same data:

- AggregatedMMDTest, method "mmdagg" and "fuse" (20 kernels: Gaussian and
  Laplacian random features, 10 bandwidths each);
- MMDTest with one median-heuristic bandwidth (random features);
- a split test: GridSearchCV over a bandwidth grid with MMDTest.score (the
  power criterion) on one half, MMDTest at the chosen bandwidth on the other.

Published references (MMDAgg, Schrab et al. 2023; MMD-FUSE, Biggs et al. 2023):
mixture sigma = 2, n = 500: MMDAgg 0.945, FUSE 0.905, median 0.05; sigma = 1.3,
n = 500/1000/2000/3000: MMDAgg 0.19/0.385/0.785/0.99; perturbed uniform d = 1,
scale 0.5, n = 500: MMDAgg 0.985, median 0.675.

    python benchmarks/bench_aggregated.py --quick           # minutes
    python benchmarks/bench_aggregated.py --reps 200        # the issue's runs
    python benchmarks/bench_aggregated.py --level 2000      # type-I error only
    python benchmarks/bench_aggregated.py --time            # N = 10^5 timing
"""

import argparse
from time import perf_counter

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from skmmd import AggregatedMMDTest, MMDTest, RandomFourierSampler
from skmmd.datasets import make_mixture_of_gaussians, make_perturbed_uniform
from skmmd.kernels import bandwidth_grid

ALPHA = 0.05


def _split_test(X, Y, seed, n_resamples):
    """Select the bandwidth on one half by the power criterion, test on the other."""
    rng = np.random.default_rng(seed)
    halves = []
    for S in (X, Y):
        idx = rng.permutation(len(S))
        halves.append((S[idx[: len(S) // 2]], S[idx[len(S) // 2 :]]))
    (X_sel, X_test), (Y_sel, Y_test) = halves
    pooled = np.vstack([X_sel, Y_sel])
    labels = np.r_[np.zeros(len(X_sel)), np.ones(len(Y_sel))]
    search = GridSearchCV(
        MMDTest(
            RandomFourierSampler(n_components=512, random_state=seed), n_resamples=1
        ),
        {"transformer__bandwidth": list(bandwidth_grid(pooled, 10, random_state=seed))},
        cv=StratifiedKFold(3, shuffle=True, random_state=seed),
    ).fit(pooled, labels)
    bandwidth = search.best_params_["transformer__bandwidth"]
    test = MMDTest(
        RandomFourierSampler(bandwidth=bandwidth, n_components=512, random_state=seed),
        n_resamples=n_resamples,
        random_state=seed,
    )
    return test.fit(X_test, Y_test).p_value_


def _one_repetition(make, seed, n_resamples, with_split):
    X, Y = make(seed)
    out = {}
    for method in ("mmdagg", "fuse"):
        start = perf_counter()
        test = AggregatedMMDTest(
            method=method, n_resamples=n_resamples, random_state=seed
        )
        out[f"agg-{method}"] = (test.fit(X, Y).p_value_, perf_counter() - start)
    start = perf_counter()
    median = MMDTest(
        RandomFourierSampler(n_components=512, random_state=seed),
        n_resamples=n_resamples,
        random_state=seed,
    )
    out["median"] = (median.fit(X, Y).p_value_, perf_counter() - start)
    if with_split:
        start = perf_counter()
        out["split+GridSearchCV"] = (
            _split_test(X, Y, seed, n_resamples),
            perf_counter() - start,
        )
    return out


def power(label, make, reps, n_resamples, with_split, n_jobs, only=""):
    if only and not all(word in label for word in only.split(",")):
        return
    results = Parallel(n_jobs=n_jobs)(
        delayed(_one_repetition)(make, seed, n_resamples, with_split)
        for seed in range(reps)
    )
    row = [f"{label:<34}"]
    for name in results[0]:
        p = np.array([r[name][0] for r in results])
        t = np.mean([r[name][1] for r in results])
        rate = np.mean(p <= ALPHA)
        se = np.sqrt(rate * (1 - rate) / reps)
        row.append(f"{name}: {rate:.3f}+-{se:.3f} ({t:.2f}s)")
    print("  ".join(row), flush=True)


def level(reps, n_resamples, n_jobs, only=""):
    print(f"\nType-I error over {reps} null repetitions (alpha = {ALPHA})")

    def one(seed, method, problem):
        if problem == "mixture":
            X, Y = make_mixture_of_gaussians(250, 200, sigma=1.0, random_state=seed)
        else:
            X, Y = make_perturbed_uniform(250, 200, scale=0.0, random_state=seed)
        test = AggregatedMMDTest(
            method=method, n_resamples=n_resamples, random_state=seed
        )
        return test.fit(X, Y).p_value_

    for problem in ("mixture", "perturbed uniform"):
        if only and only not in problem:
            continue
        for method in ("mmdagg", "fuse"):
            p = np.array(
                Parallel(n_jobs=n_jobs)(
                    delayed(one)(seed, method, problem) for seed in range(reps)
                )
            )
            rate = np.mean(p <= ALPHA)
            print(
                f"{problem:<18} {method:<7} m=250 n=200: {rate:.4f} "
                f"(+-{np.sqrt(ALPHA * (1 - ALPHA) / reps):.4f} binomial sd)",
                flush=True,
            )


def timing(N, n_resamples):
    print(
        f"\nTime at N = {N} pooled points (d = 2), 10 + 10 bandwidths, "
        f"B = {n_resamples}"
    )
    X, Y = make_mixture_of_gaussians(N // 2, N // 2, sigma=1.3, random_state=0)
    for method in ("mmdagg", "fuse"):
        start = perf_counter()
        test = AggregatedMMDTest(method=method, n_resamples=n_resamples, random_state=0)
        test.fit(X, Y)
        print(
            f"{method:<7} {perf_counter() - start:7.1f} s  p = {test.p_value_:.4f}  "
            f"(resample unit {test.resample_unit_})",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="20 repetitions, B = 199")
    parser.add_argument("--level", type=int, default=0, help="null repetitions only")
    parser.add_argument("--time", action="store_true", help="N = 10^5 timing only")
    parser.add_argument("--n-resamples", type=int, default=999)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument(
        "--only",
        default="",
        help="power rows whose label holds these comma-separated words",
    )
    parser.add_argument("--no-split", action="store_true", help="skip the split test")
    args = parser.parse_args()
    reps, B = (20, 199) if args.quick else (args.reps, args.n_resamples)
    if args.level:
        level(args.level, B, args.n_jobs, args.only)
        return
    if args.time:
        timing(100_000, args.n_resamples)
        return
    print(f"Power at alpha = {ALPHA}, {reps} repetitions, B = {B} (mean time per test)")
    for sigma in (1.0, 1.3, 1.5, 2.0):
        power(
            f"mixture sigma={sigma} n=500",
            lambda s, sigma=sigma: make_mixture_of_gaussians(
                500, 500, sigma=sigma, random_state=s
            ),
            reps,
            B,
            not args.no_split,
            args.n_jobs,
            args.only,
        )
    for n in (1000, 2000, 3000):
        power(
            f"mixture sigma=1.3 n={n}",
            lambda s, n=n: make_mixture_of_gaussians(n, n, sigma=1.3, random_state=s),
            reps,
            B,
            False,
            args.n_jobs,
            args.only,
        )
    for d, scales in ((1, (0.0, 0.25, 0.5, 0.75)), (2, (0.5, 1.0))):
        for scale in scales:
            power(
                f"perturbed uniform d={d} scale={scale} n=500",
                lambda s, d=d, scale=scale: make_perturbed_uniform(
                    500, 500, n_features=d, scale=scale, random_state=s
                ),
                reps,
                B,
                not args.no_split,
                args.n_jobs,
                args.only,
            )


if __name__ == "__main__":
    main()

"""RandomFourierSampler against scikit-learn's RBFSampler: speed and Gram error.

Transform time at (N, d, n_components) = (100000, 100, 1024) in float64 and
float32 (the minimum of several repeats, the two samplers interleaved), and the
Gram-matrix error against the exact Gaussian kernel at equal n_components.

    python benchmarks/bench_fourier.py [--quick]
"""

import argparse
from time import perf_counter

import numpy as np
from sklearn.kernel_approximation import RBFSampler

from skmmd import NormalizedRandomFourierSampler, RandomFourierSampler
from skmmd.kernels import gaussian_kernel


def _min_time(func, repeats):
    best = np.inf
    for _ in range(repeats):
        start = perf_counter()
        func()
        best = min(best, perf_counter() - start)
    return best


def speed_table(n, d, n_components, repeats, bandwidth):
    print(
        f"\nTransform time, N={n}, d={d}, n_components={n_components} "
        f"(min of {repeats})"
    )
    print(
        f"{'dtype':<8} {'RBFSampler (s)':>15} {'skmmd cos_sin (s)':>18} "
        f"{'skmmd cos_phase (s)':>20} {'speed-up cos_sin':>17}"
    )
    rng = np.random.default_rng(0)
    X64 = rng.normal(size=(n, d))
    for dtype in (np.float64, np.float32):
        X = X64.astype(dtype)
        samplers = {
            "sklearn": RBFSampler(
                gamma=0.5 / bandwidth**2, n_components=n_components, random_state=0
            ),
            "cos_sin": RandomFourierSampler(
                bandwidth=bandwidth, n_components=n_components, random_state=0
            ),
            "cos_phase": RandomFourierSampler(
                bandwidth=bandwidth,
                feature="cos_phase",
                n_components=n_components,
                random_state=0,
            ),
        }
        for sampler in samplers.values():
            sampler.fit(X[:10])
            sampler.transform(X[:1000])  # compile and warm up
        times = dict.fromkeys(samplers, np.inf)
        for _ in range(repeats):  # interleaved, so load changes hit all alike
            for name, sampler in samplers.items():
                times[name] = min(
                    times[name], _min_time(lambda: sampler.transform(X), 1)
                )
        print(
            f"{np.dtype(dtype).name:<8} {times['sklearn']:>15.3f} "
            f"{times['cos_sin']:>18.3f} {times['cos_phase']:>20.3f} "
            f"{times['sklearn'] / times['cos_sin']:>16.2f}x"
        )


def error_table(n, d, n_components, bandwidth, seeds):
    print(
        f"\nGram error vs the exact Gaussian kernel, n={n}, d={d}, "
        f"n_components={n_components}, mean over {seeds} seeds"
    )
    print(f"{'map':<34} {'mean |error|':>13} {'max |error|':>12} {'RMSE':>10}")
    X = np.random.default_rng(1).normal(size=(n, d))
    K = gaussian_kernel(X, bandwidth=bandwidth)
    makers = {
        "sklearn RBFSampler": lambda s: RBFSampler(
            gamma=0.5 / bandwidth**2, n_components=n_components, random_state=s
        ),
        "skmmd cos_phase": lambda s: RandomFourierSampler(
            bandwidth=bandwidth,
            feature="cos_phase",
            n_components=n_components,
            random_state=s,
        ),
        "skmmd cos_sin": lambda s: RandomFourierSampler(
            bandwidth=bandwidth, n_components=n_components, random_state=s
        ),
        "skmmd cos_sin orthogonal": lambda s: RandomFourierSampler(
            bandwidth=bandwidth,
            n_components=n_components,
            orthogonal=True,
            random_state=s,
        ),
        "skmmd cos_sin qmc=sobol": lambda s: RandomFourierSampler(
            bandwidth=bandwidth, n_components=n_components, qmc="sobol", random_state=s
        ),
        "skmmd NormalizedRandomFourier": lambda s: NormalizedRandomFourierSampler(
            bandwidth=bandwidth, n_components=n_components, random_state=s
        ),
    }
    for name, make in makers.items():
        stats = []
        for seed in range(seeds):
            Z = make(seed).fit_transform(X)
            E = Z @ Z.T - K
            stats.append((np.abs(E).mean(), np.abs(E).max(), np.sqrt((E**2).mean())))
        mae, mx, rmse = np.mean(stats, axis=0)
        print(f"{name:<34} {mae:>13.5f} {mx:>12.5f} {rmse:>10.5f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N=20000, fewer repeats")
    args = parser.parse_args()
    n = 20_000 if args.quick else 100_000
    d, n_components = 100, 1024
    bandwidth = np.sqrt(d)  # median distance of N(0, I_d) data is about sqrt(2d)
    speed_table(n, d, n_components, 2 if args.quick else 5, bandwidth)
    error_table(500, d, n_components, bandwidth, 3 if args.quick else 10)


if __name__ == "__main__":
    main()

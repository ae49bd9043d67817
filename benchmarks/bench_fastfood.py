"""FastfoodSampler against dense random Fourier features, and FWHT throughput.

1. Walsh-Hadamard transform of 10000 x 4096 float64 rows in place: G butterfly
   add/sub per second (``n d log2(d) / time``) with all threads and with one,
   against a naive radix-2 numba loop (the same prange over rows) run alike.
2. ``transform`` time at N=10000, n_components=4096, d in {64, 256, 1024,
   4096, 16384}, float64 and float32: FastfoodSampler against skmmd's dense
   RandomFourierSampler and scikit-learn's RBFSampler (``fit`` excluded; the
   three interleaved, the minimum of several repeats), the speed-up ratios and
   the crossover d from which Fastfood is faster at that d and every larger one.
3. When scikit-learn-extra is importable: its ``Fastfood`` (``"accuracy"``
   mode, the same cos/sin output) against FastfoodSampler at equal output
   dimension, time and Gram error on the exact kernel. scikit-learn-extra 0.3
   needs numpy < 2, so run this part in its own environment:
   ``pip install "numpy<2" scikit-learn-extra numba`` then ``pip install --no-deps .``.

Timings on a shared machine move with the load; the ratios, measured in the
same run, are what to compare.

    python benchmarks/bench_fastfood.py [--quick] [--n N] [--repeats R]
"""

import argparse
from time import perf_counter

import numba
import numpy as np
from numba import njit, prange
from sklearn.kernel_approximation import RBFSampler

from skmmd import FastfoodSampler, RandomFourierSampler
from skmmd.kernel_approximation._hadamard import fwht

DIMENSIONS = [64, 256, 1024, 4096, 16384]


@njit(parallel=True, cache=True)
def naive_fwht(X):
    """Radix-2 butterflies with plain (signed) indices, rows in parallel."""
    n, d = X.shape
    for r in prange(n):
        h = 1
        while h < d:
            for i in range(0, d, 2 * h):
                for j in range(i, i + h):
                    a = X[r, j]
                    b = X[r, j + h]
                    X[r, j] = a + b
                    X[r, j + h] = a - b
            h *= 2


def fwht_table(repeats):
    n, d = 10_000, 4096
    X0 = np.random.default_rng(0).standard_normal((n, d))
    X = X0.copy()
    funcs = {"skmmd fwht": fwht, "naive radix-2": naive_fwht}
    n_threads = numba.get_num_threads()
    print(f"\nFWHT in place, {n} x {d} float64 (min of {repeats}), G add/sub per s")
    print(f"{'threads':<8} {'skmmd fwht':>11} {'naive radix-2':>14} {'ratio':>7}")
    for threads in sorted({n_threads, 1}, reverse=True):
        numba.set_num_threads(threads)
        best = dict.fromkeys(funcs, np.inf)
        for func in funcs.values():
            func(X)  # compile
        for _ in range(repeats):
            for name, func in funcs.items():
                X[:] = X0
                start = perf_counter()
                func(X)
                best[name] = min(best[name], perf_counter() - start)
        rate = {k: n * d * np.log2(d) / t / 1e9 for k, t in best.items()}
        print(
            f"{threads:<8} {rate['skmmd fwht']:>11.2f} {rate['naive radix-2']:>14.2f} "
            f"{rate['skmmd fwht'] / rate['naive radix-2']:>6.2f}x"
        )
    numba.set_num_threads(n_threads)


def _samplers(bandwidth, n_components):
    return {
        "fastfood": FastfoodSampler(
            bandwidth=bandwidth, n_components=n_components, random_state=0
        ),
        "rff": RandomFourierSampler(
            bandwidth=bandwidth, n_components=n_components, random_state=0
        ),
        "rbf": RBFSampler(
            gamma=0.5 / bandwidth**2, n_components=n_components, random_state=0
        ),
    }


def _best_transform_times(samplers, X, repeats):
    """Minimum ``transform`` time of each fitted sampler, the samplers interleaved."""
    best = dict.fromkeys(samplers, np.inf)
    for _ in range(repeats):
        for name, sampler in samplers.items():
            start = perf_counter()
            sampler.transform(X)
            best[name] = min(best[name], perf_counter() - start)
    return best


def speed_table(n, n_components, dimensions, repeats):
    print(
        f"\ntransform time, N={n}, n_components={n_components} (min of {repeats}, "
        "interleaved)"
    )
    print(
        f"{'dtype':<8} {'d':>6} {'Fastfood (s)':>13} {'RFF dense (s)':>14} "
        f"{'RBFSampler (s)':>15} {'RFF/Fastfood':>13} {'RBF/Fastfood':>13}"
    )
    rng = np.random.default_rng(0)
    for dtype in (np.float64, np.float32):
        ratios = {}
        for d in dimensions:
            X = rng.standard_normal((n, d)).astype(dtype)
            samplers = _samplers(np.sqrt(d), n_components)
            for sampler in samplers.values():
                sampler.fit(X[:10])
                sampler.transform(X[:100])  # compile and warm up
            best = _best_transform_times(samplers, X, repeats)
            ratios[d] = best["rff"] / best["fastfood"]
            print(
                f"{np.dtype(dtype).name:<8} {d:>6} {best['fastfood']:>13.3f} "
                f"{best['rff']:>14.3f} {best['rbf']:>15.3f} {ratios[d]:>12.2f}x "
                f"{best['rbf'] / best['fastfood']:>12.2f}x"
            )
            del X, samplers
        faster_from = [
            d for d in dimensions if all(ratios[e] > 1 for e in ratios if e >= d)
        ]
        crossover = faster_from[0] if faster_from else None
        print(
            f"{np.dtype(dtype).name}: Fastfood faster than dense RFF for every d >= "
            f"{crossover} (of {dimensions})"
        )


def extra_table(n, n_components, dimensions, repeats):
    """FastfoodSampler against scikit-learn-extra's Fastfood, if installed."""
    try:
        from sklearn_extra.kernel_approximation import Fastfood
    except ImportError:
        print("\nscikit-learn-extra not importable: its Fastfood is not compared")
        return
    from skmmd.kernels import gaussian_kernel

    print(
        f"\nagainst scikit-learn-extra Fastfood, N={n}, float64 (min of {repeats}), "
        f"{n_components} outputs or more (equal for both); Gram MAE on 300 points"
    )
    print(
        f"{'d':>6} {'skmmd (s)':>10} {'sklearn-extra (s)':>18} {'ratio':>7} "
        f"{'MAE skmmd':>10} {'MAE extra':>10} {'outputs':>8}"
    )
    rng = np.random.default_rng(0)
    for d in dimensions:
        X = rng.standard_normal((n, d))
        bandwidth = np.sqrt(d)
        extra = Fastfood(
            sigma=bandwidth, n_components=n_components // 2, random_state=0
        ).fit(X[:10])
        # sklearn-extra rounds its frequencies up to a multiple of the padded d:
        # match its output dimension, whatever it is.
        width = extra.transform(X[:1]).shape[1]
        samplers = {
            "skmmd": FastfoodSampler(
                bandwidth=bandwidth, n_components=width, random_state=0
            ).fit(X[:10]),
            "extra": extra,
        }
        K = gaussian_kernel(X[:300], bandwidth=bandwidth)
        mae = {}
        for name, sampler in samplers.items():
            Z = sampler.transform(X[:300])  # also compiles
            mae[name] = np.abs(Z @ Z.T - K).mean()
        best = _best_transform_times(samplers, X, repeats)
        print(
            f"{d:>6} {best['skmmd']:>10.3f} {best['extra']:>18.3f} "
            f"{best['extra'] / best['skmmd']:>6.2f}x {mae['skmmd']:>10.4f} "
            f"{mae['extra']:>10.4f} {width:>8}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N=2000, d up to 4096")
    parser.add_argument("--n", type=int, default=None, help="samples (default 10000)")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()
    repeats = args.repeats or 2
    n = args.n or (2000 if args.quick else 10_000)
    dimensions = DIMENSIONS[:-1] if args.quick else DIMENSIONS
    print(f"numba threads: {numba.get_num_threads()}")
    fwht_table(repeats + 2)
    speed_table(n, 4096, dimensions, repeats)
    extra_table(n, 4096, dimensions, repeats)


if __name__ == "__main__":
    main()

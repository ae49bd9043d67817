"""NystroemSampler against scikit-learn's Nystroem, ratios measured in the same run.

(a) Speed and Gram error at N = 100000, d = 100, n_components = 1024 (Gaussian
    kernel, the same bandwidth/gamma and the same uniform landmarks for both),
    float64 and float32: seconds of fit + transform (minimum over
    ``--repeats`` interleaved runs), the ratio sklearn / skmmd (> 1: skmmd
    faster), and the max and relative Frobenius Gram error on 2000 random rows
    against the exact kernel in float64.
(b) Relative Frobenius Gram error against n_components for each landmark
    strategy ("uniform", "kmeans", "leverage") on clustered data (30 tight
    clusters with sizes proportional to 1 / i^2, n = 2000, d = 3, bandwidth 1),
    mean and standard deviation over seeds, and the ratio to "uniform".

(c) float32 max Gram error at 2000 x 5, s = 300, gamma = 0.01 (bandwidth
    7.07), uniform and normal data, sklearn vs skmmd, median and max over seeds.

On a shared machine absolute times are noisy: read the ratios, and re-run on
an idle one.

    python benchmarks/bench_nystroem.py            # a few minutes
    python benchmarks/bench_nystroem.py --quick    # N = 20000, 256 components
"""

import argparse
from time import perf_counter

import numpy as np
from sklearn.kernel_approximation import Nystroem

from skmmd import NystroemSampler
from skmmd.kernels import gaussian_kernel, median_bandwidth


def gram_errors(Z, K):
    Z = Z.astype(np.float64)
    E = Z @ Z.T - K
    return np.abs(E).max(), np.linalg.norm(E) / np.linalg.norm(K)


def speed_and_error(n, d, s, repeats, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    bandwidth = median_bandwidth(X, random_state=0)
    gamma = 1.0 / (2.0 * bandwidth**2)
    rows = np.sort(rng.choice(n, size=min(n, 2000), replace=False))
    K = gaussian_kernel(X[rows], bandwidth=bandwidth)
    print(f"(a) N={n}, d={d}, n_components={s}, bandwidth={bandwidth:.3f}")
    print(
        f"{'dtype':8s} {'sklearn s':>10s} {'skmmd s':>9s} {'ratio':>6s} "
        f"{'sk max err':>11s} {'skmmd max':>10s} {'sk rel F':>9s} {'skmmd relF':>10s} "
        f"{'out dim':>7s}"
    )
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        best = {"sklearn": np.inf, "skmmd": np.inf}
        out = {}
        for _ in range(repeats):
            for name in ("sklearn", "skmmd"):
                if name == "sklearn":
                    est = Nystroem(gamma=gamma, n_components=s, random_state=seed)
                else:
                    est = NystroemSampler(
                        bandwidth=bandwidth, n_components=s, random_state=seed
                    )
                start = perf_counter()
                Z = est.fit(Xd).transform(Xd)
                best[name] = min(best[name], perf_counter() - start)
                out[name] = Z[rows]
                del Z
        sk_max, sk_fro = gram_errors(out["sklearn"], K)
        our_max, our_fro = gram_errors(out["skmmd"], K)
        print(
            f"{np.dtype(dtype).name:8s} {best['sklearn']:10.2f} {best['skmmd']:9.2f} "
            f"{best['sklearn'] / best['skmmd']:6.2f} {sk_max:11.2e} {our_max:10.2e} "
            f"{sk_fro:9.2e} {our_fro:10.2e} {out['skmmd'].shape[1]:7d}"
        )


def clustered(rng, n=2000, d=3, n_clusters=30):
    weights = 1.0 / np.arange(1, n_clusters + 1) ** 2
    sizes = rng.multinomial(n, weights / weights.sum())
    centers = rng.uniform(-10, 10, size=(n_clusters, d))
    return np.concatenate(
        [c + 0.3 * rng.normal(size=(m, d)) for c, m in zip(centers, sizes)]
    )


def landmark_strategies(sizes, n_seeds, n=2000):
    strategies = ("uniform", "kmeans", "leverage")
    print(
        f"\n(b) relative Frobenius Gram error, clustered data, n={n}, {n_seeds} seeds"
    )
    print(
        f"{'s':>5s} "
        + " ".join(f"{name:>17s}" for name in strategies)
        + " ratio kmeans/unif  leverage/unif  fit s (u/k/l)"
    )
    for s in sizes:
        errors = {name: [] for name in strategies}
        fit_time = dict.fromkeys(strategies, 0.0)
        for seed in range(n_seeds):
            X = clustered(np.random.default_rng(seed), n=n)
            K = gaussian_kernel(X, bandwidth=1.0)
            for name in strategies:
                start = perf_counter()
                sampler = NystroemSampler(
                    bandwidth=1.0, n_components=s, landmarks=name, random_state=seed
                ).fit(X)
                fit_time[name] += (perf_counter() - start) / n_seeds
                Z = sampler.transform(X)
                errors[name].append(gram_errors(Z, K)[1])
        mean = {k: np.mean(v) for k, v in errors.items()}
        cells = " ".join(
            f"{mean[k]:8.4f}+-{np.std(errors[k]):7.4f}" for k in strategies
        )
        print(
            f"{s:5d} {cells} {mean['kmeans'] / mean['uniform']:17.2f} "
            f"{mean['leverage'] / mean['uniform']:14.2f}  "
            + "/".join(f"{fit_time[k]:.2f}" for k in strategies)
        )


def float32_accuracy(n_seeds):
    """Max Gram error in float32 at the spec's setting: 2000 x 5, s = 300,
    gamma = 0.01, same landmarks (same seed) for both samplers."""
    bandwidth = np.sqrt(1.0 / (2 * 0.01))
    print(f"\n(c) float32 max Gram error, 2000 x 5, s=300, gamma=0.01, {n_seeds} seeds")
    print(
        f"{'data':8s} {'sklearn median':>15s} {'max':>9s} "
        f"{'skmmd median':>13s} {'max':>9s}"
    )
    for data in ("uniform", "normal"):
        errors = {"sklearn": [], "skmmd": []}
        for seed in range(n_seeds):
            rng = np.random.default_rng(seed)
            shape = (2000, 5)
            X = rng.uniform(size=shape) if data == "uniform" else rng.normal(size=shape)
            K = gaussian_kernel(X, bandwidth=bandwidth)
            X32 = X.astype(np.float32)
            sk = Nystroem(gamma=0.01, n_components=300, random_state=seed)
            ours = NystroemSampler(
                bandwidth=bandwidth, n_components=300, random_state=seed
            )
            errors["sklearn"].append(gram_errors(sk.fit_transform(X32), K)[0])
            errors["skmmd"].append(gram_errors(ours.fit_transform(X32), K)[0])
        print(
            f"{data:8s} {np.median(errors['sklearn']):15.2e} "
            f"{np.max(errors['sklearn']):9.2e} {np.median(errors['skmmd']):13.2e} "
            f"{np.max(errors['skmmd']):9.2e}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-samples", type=int, default=None)
    args = parser.parse_args()
    if args.quick:
        speed_and_error(args.n_samples or 20000, 100, 256, args.repeats)
        landmark_strategies([25, 50, 100], n_seeds=3, n=1000)
        float32_accuracy(n_seeds=2)
    else:
        speed_and_error(args.n_samples or 100000, 100, 1024, args.repeats)
        landmark_strategies([25, 50, 100, 200], n_seeds=10)
        float32_accuracy(n_seeds=10)


if __name__ == "__main__":
    main()

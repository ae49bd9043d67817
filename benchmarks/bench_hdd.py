"""HDDSampler benchmarks (Sutherland, Oliva, Poczos and Schneider, AAAI 2016).

(a) Gram matrix: R^2 of the JS (and Hellinger) kernel from HDD random
    features and from the exact embedding (RBF on ``A``, no random features)
    against the kernel of the true densities, 30 sets of about 1000 points
    from mixtures of 5 truncated Gaussians (paper: 0.9735 exact embedding,
    0.9662 random features). ``--sweep`` varies one setting at a time.
(b) Number-of-components regression with ridge: test RMSE and time of HDD-JS,
    HDD-Hellinger, HDD-TV, the mean embedding (MMD) and the L2-density
    embedding, each followed by random Fourier features, at growing training
    sizes (paper, Figure 4).
(c) Time of HDD features + linear Gram against the exact pairwise JS Gram
    matrix of the same KDEs, as the number of sets grows.

Timings on a shared machine are noisy: every time is the minimum of
``--repeats`` runs and is reported as a ratio to the named baseline measured
in the same run. Re-run on an idle machine for publishable numbers.

    python benchmarks/bench_hdd.py            # a few minutes
    python benchmarks/bench_hdd.py --quick    # under a minute
    python benchmarks/bench_hdd.py --sweep    # (a) sensitivity, ~15 minutes
"""

import argparse
import time

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import RidgeCV
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline

from skmmd import HDDSampler, MeanEmbedding, RandomFourierSampler
from skmmd.datasets import make_mixture_bags, make_mixture_components_regression
from skmmd.kernels import hdd_divergence_matrix, hdd_kernel

_GRID = 200  # midpoints per axis for the true-density divergences


def _timed(func, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - t0)
    return out, best


# ---------------------------------------------------------------- (a) ----


def gram_r2(divergence, seed, n_points=1000, n_bags=30, **params):
    """R^2 of rho^2, exact-embedding kernel and random-feature kernel."""
    bags, densities = make_mixture_bags(n_bags, n_points=n_points, random_state=seed)
    R = hdd_divergence_matrix(
        densities, divergence=divergence, n_features=2, n_grid=_GRID
    )
    params = {"n_components": 4096, **params}
    hdd = HDDSampler(divergence=divergence, random_state=seed, **params)
    Z = hdd.fit_transform(bags)
    A = clone(hdd).set_params(n_components=None).fit_transform(bags)
    D2 = ((A[:, None, :] - A[None, :, :]) ** 2).sum(axis=-1)
    s2 = 2.0 * hdd.bandwidth_**2
    K = np.exp(-R / s2)
    iu = np.triu_indices(n_bags, 1)
    return (
        r2_score(R[iu], D2[iu]),
        r2_score(K[iu], np.exp(-D2 / s2)[iu]),
        r2_score(K[iu], (Z @ Z.T)[iu]),
        float(np.median(D2[iu] / R[iu])),
    )


def bench_gram(seeds, divergences=("js", "hellinger"), label="defaults", **params):
    for div in divergences:
        rows = np.array([gram_r2(div, s, **params) for s in seeds])
        med = np.median(rows, axis=0)
        print(
            f"  {div:9s} {label:28s} R2(rho2) {med[0]:.4f}  R2(K, exact A) "
            f"{med[1]:.4f}  R2(K, RKS) {med[2]:.4f}  [min {rows[:, 2].min():.4f}]"
            f"  rho2 ratio {med[3]:.3f}",
            flush=True,
        )


def sweep(seeds):
    print(
        f"(a') sensitivity of the JS Gram R^2 (median over {len(seeds)} seeds), "
        "one setting at a time"
    )
    for n in (500, 2000):
        bench_gram(seeds, ("js",), f"n_points={n}", n_points=n)
    for m in (5, 50):
        bench_gram(seeds, ("js",), f"n_lambdas={m}", n_lambdas=m)
    for t in (10, 30):
        bench_gram(seeds, ("js",), f"cutoff={t}", cutoff=t, n_mc=max(128, 2 * t) ** 2)
    for f in (0.5, 1.0):
        bench_gram(seeds, ("js",), f"kde_undersmoothing={f}", kde_undersmoothing=f)
    bench_gram(seeds, ("js",), "n_components=1024", n_components=1024)


# ---------------------------------------------------------------- (b) ----


class L2DensityEmbedding(HDDSampler):
    """Cosine-basis coefficients of the KDE itself (Oliva et al. 2014): the
    embedding whose Euclidean distance is the L2 distance of densities."""

    def __init__(self, *, n_mc="auto", random_state=None):
        super().__init__(
            divergence="hellinger",
            n_mc=n_mc,
            n_components=None,
            random_state=random_state,
        )

    def fit_transform(self, X, y=None):
        # HDDSampler.fit_transform would return the Hellinger embedding
        return self.fit(X).transform(X)

    def transform(self, X):
        bags, _ = self._check_bags(X, reset=False)
        P = np.stack([self._kde(self._scale(b)) for b in bags])
        return self._project(P[:, :, None])


def regression_methods(seed, n_components):
    fast = {"n_mc": 64**2, "random_state": seed}  # n = 200: h ~ 0.03, grid 1/64

    def rff():
        return RandomFourierSampler(n_components=n_components, random_state=seed)

    return {
        "HDD-JS": make_pipeline(
            HDDSampler(divergence="js", n_lambdas=10, n_components=n_components, **fast)
        ),
        "HDD-Hellinger": make_pipeline(
            HDDSampler(divergence="hellinger", n_components=n_components, **fast)
        ),
        "HDD-TV": make_pipeline(
            HDDSampler(divergence="tv", n_lambdas=20, n_components=n_components, **fast)
        ),
        "MMD (MeanEmbedding)": make_pipeline(
            MeanEmbedding(RandomFourierSampler(n_components=1024, random_state=seed)),
            rff(),
        ),
        "L2 density": make_pipeline(L2DensityEmbedding(**fast), rff()),
    }


def bench_regression(
    train_sizes, n_test, n_points, seed, n_components, repeats, only=None
):
    n_max = max(train_sizes)
    bags, y = make_mixture_components_regression(
        n_max + n_test, n_points=n_points, random_state=seed
    )
    Xte, yte = bags[n_max:], y[n_max:]
    const = np.sqrt(np.mean((yte - y[:n_max].mean()) ** 2))
    print(
        f"(b) components regression: n_points={n_points}, test sets={n_test}, "
        f"D={n_components}; constant predictor RMSE {const:.3f}"
    )
    print(
        f"  {'method':22s}"
        + "".join(f"   n={n:<6d} RMSE  time(s)" for n in train_sizes)
    )
    alphas = np.logspace(-6, 2, 17)
    for name, features in regression_methods(seed, n_components).items():
        if only and not any(o.lower() in name.lower() for o in only):
            continue
        line = f"  {name:22s}"
        for n in train_sizes:

            def run(features=features, n=n):
                model = make_pipeline(clone(features), RidgeCV(alphas=alphas))
                model.fit(bags[:n], y[:n])
                return model.predict(Xte)

            pred, t = _timed(run, repeats)
            rmse = np.sqrt(np.mean((pred - yte) ** 2))
            line += f"   {rmse:13.3f} {t:8.1f}"
        print(line, flush=True)


# ---------------------------------------------------------------- (c) ----


def bench_time(sizes, n_points, seed, repeats):
    print(
        "(c) HDD-JS features + linear Gram vs exact pairwise JS Gram of the same "
        f"KDEs ({n_points} points per set; both include the KDEs)"
    )
    for n in sizes:
        bags, _ = make_mixture_bags(n, n_points=n_points, random_state=seed)
        hdd = HDDSampler(n_components=1024, random_state=seed)

        def features(hdd=hdd, bags=bags):
            Z = hdd.fit_transform(bags)
            return Z @ Z.T

        def exact(hdd=hdd, bags=bags):
            P = np.stack([hdd._kde(hdd._scale(b)) for b in bags])
            return hdd_kernel(P, divergence="js", bandwidth=hdd.bandwidth_)

        _, t_feat = _timed(features, repeats)
        _, t_exact = _timed(exact, repeats)
        print(
            f"  n_sets={n:5d}  HDD {t_feat:7.2f}s  exact {t_exact:7.2f}s  "
            f"exact / HDD = {t_exact / t_feat:6.2f}",
            flush=True,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (< 1 min)")
    parser.add_argument("--sweep", action="store_true", help="(a) sensitivity sweep")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only", nargs="*", help="(b) only: methods whose name contains one of these"
    )
    parser.add_argument("--skip", nargs="*", default=(), help="parts to skip: a b c")
    args = parser.parse_args(argv)
    if args.sweep:
        sweep(range(3))
        return
    q = args.quick
    seeds = range(2) if q else range(5)
    if "a" not in args.skip:
        print(f"(a) Gram R^2, 30 sets of ~1000 points, median over {len(seeds)} seeds")
        bench_gram(seeds)
    if "b" not in args.skip:
        bench_regression(
            (500, 1000) if q else (2000, 4000, 8000),
            n_test=500 if q else 1000,
            n_points=200,
            seed=args.seed,
            n_components=256 if q else 512,
            repeats=args.repeats,
            only=args.only,
        )
    if "c" not in args.skip:
        bench_time((25, 50) if q else (25, 50, 100, 200), 500, args.seed, args.repeats)


if __name__ == "__main__":
    main()

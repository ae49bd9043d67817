from functools import partial

import numpy as np
import pytest
from scipy import sparse, stats
from scipy.linalg import hadamard
from sklearn.exceptions import NotFittedError

from skmmd import FastfoodSampler
from skmmd._utils import _budgets
from skmmd.kernels import gaussian_kernel
from tests.helpers.gram_bounds import check_gram_accuracy

# Same number of components as the Fourier sampler's accuracy tests.
N_COMPONENTS = 1024


def dense_fastfood_matrix(sampler):
    """V (L x d) from the fitted diagonals with explicit matrices, in the
    spec's order: V = S H G Pi H B / (bandwidth sqrt(d)), blocks stacked."""
    d = sampler.n_features_padded_
    H = hadamard(d).astype(np.float64)
    blocks = []
    for B, perm, G, S in zip(
        sampler.random_signs_,
        sampler.random_permutation_,
        sampler.random_gaussian_,
        sampler.random_scaling_,
    ):
        Pi = np.eye(d)[perm]  # (Pi v)_j = v[perm[j]]
        blocks.append(np.diag(S) @ H @ np.diag(G) @ Pi @ H @ np.diag(B))
    L = sampler._n_frequencies
    return np.vstack(blocks)[:L]


@pytest.mark.parametrize("n_features", [1, 2, 3, 16, 20])
@pytest.mark.parametrize(
    "feature, n_components", [("cos_sin", 80), ("cos_sin", 81), ("cos_phase", 80)]
)
def test_matches_explicit_matrices(
    n_features, feature, n_components, global_random_seed
):
    rng = np.random.default_rng(global_random_seed)
    X = rng.normal(size=(7, n_features))
    sampler = FastfoodSampler(
        bandwidth=1.3,
        n_components=n_components,
        feature=feature,
        random_state=global_random_seed,
    ).fit(X)
    V = dense_fastfood_matrix(sampler)
    X_pad = np.hstack([X, np.zeros((7, sampler.n_features_padded_ - n_features))])
    P = X_pad @ V.T
    np.testing.assert_allclose(sampler._project(X), P, rtol=1e-10, atol=1e-12)
    # Same columns and weights as RandomFourierSampler: cos/sin pairs, then
    # random-phase columns, each scaled by sqrt(2 / D).
    n_pairs = n_components // 2 if feature == "cos_sin" else 0
    phases = [] if sampler.random_offset_ is None else sampler.random_offset_
    expected = np.sqrt(2 / n_components) * np.hstack(
        [
            np.cos(P[:, :n_pairs]),
            np.sin(P[:, :n_pairs]),
            np.cos(P[:, n_pairs:] + phases),
        ]
    )
    np.testing.assert_allclose(sampler.transform(X), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n_features", [1, 2, 5, 33, 300])
@pytest.mark.parametrize("feature", ["cos_sin", "cos_phase"])
def test_gram_accuracy(n_features, feature, global_random_seed):
    # gram_bounds.py derives its bounds from the variance of i.i.d.
    # frequencies. Fastfood rows are each exactly N(0, sigma^-2 I) (class
    # Notes) but correlated within a d x d block: row correlations come from
    # the uneven |H B delta|^2, with E[rho^2] ~ 1/d, and add about
    # e^{-a} a^2 / (2 L) to the variance of a cos_sin entry (a = |delta|^2 /
    # sigma^2), i.e. a factor 1 + e^{-a} a^2 / (1 - e^{-a})^2 <= 2 (-> 2 as
    # a -> 0; smaller for cos_phase, whose own variance is larger). Monte Carlo
    # (1500 seeds, d = 512, one block) measured 2.02, 1.97, 1.77, 1.33 at a =
    # 0.5, 1, 2, 4 against 1.98, 1.92, 1.72, 1.30 predicted. So the bounds are
    # those of i.i.d. features at half the components (twice the variance).
    # With equal components the per-entry bound fails for 1 of 100 seeds
    # (seed 49, n_features=300). d = 1 (one row per block) is exactly i.i.d.
    rng = np.random.default_rng(global_random_seed)
    X = rng.normal(size=(40, n_features))
    # Pairwise distances ~ sqrt(2 n_features): kernel values spread over (0, 1).
    bandwidth = np.sqrt(n_features)
    sampler = FastfoodSampler(
        bandwidth=bandwidth,
        n_components=N_COMPONENTS,
        feature=feature,
        random_state=global_random_seed,
    )
    Z = sampler.fit_transform(X)
    kernel = partial(gaussian_kernel, bandwidth=bandwidth)
    check_gram_accuracy(Z, kernel(X), X, kernel, N_COMPONENTS // 2, feature)


def test_row_norms_are_chi(global_random_seed):
    # ||row of V|| = r_i / bandwidth with r_i ~ chi_d independent: the S
    # diagonal must undo the sqrt(d) ||G|| norm of the rows of H G Pi H B.
    bandwidth = 0.7
    sampler = FastfoodSampler(
        bandwidth=bandwidth, n_components=4096, random_state=global_random_seed
    ).fit(np.zeros((2, 16)))
    d = sampler.n_features_padded_
    V = sampler._project(np.eye(16)).T  # (L, 16)
    sq_norms = (np.linalg.norm(V, axis=1) * bandwidth) ** 2
    assert stats.kstest(sq_norms, stats.chi2(d).cdf).pvalue > 1e-4


def test_dense_and_sparse_agree(global_random_seed, monkeypatch):
    X = sparse.random(
        60, 50, density=0.2, format="csr", random_state=global_random_seed
    )
    sampler = FastfoodSampler(n_components=128, random_state=0).fit(X)
    Z_dense = sampler.transform(X.toarray())
    # Small row chunks: the sparse input is densified several chunks at a time.
    monkeypatch.setattr(_budgets, "MAP_CHUNK_ENTRIES", 50 * 7)
    np.testing.assert_allclose(sampler.transform(X), Z_dense, rtol=0, atol=1e-14)
    dense_fit = FastfoodSampler(n_components=128, random_state=0).fit(X.toarray())
    assert sampler.bandwidth_ == pytest.approx(dense_fit.bandwidth_, rel=1e-12)


@pytest.mark.parametrize("feature", ["cos_sin", "cos_phase"])
def test_float32_preserved_and_close_to_float64(feature, global_random_seed):
    X = np.random.default_rng(global_random_seed).normal(size=(50, 20))
    sampler = FastfoodSampler(n_components=256, feature=feature, random_state=0).fit(X)
    Z64 = sampler.transform(X)
    Z32 = sampler.transform(X.astype(np.float32))
    assert Z32.dtype == np.float32
    assert sampler.fit(X.astype(np.float32)).transform(X.astype(np.float32)).dtype == (
        np.float32
    )
    # Phases |Vx| ~ ||x|| / bandwidth ~ 1 carry float32 round-off ~ 1e-6 from
    # the input cast and two log2(d)-deep transforms; features are scaled by
    # sqrt(2 / D) ~ 0.09.
    np.testing.assert_allclose(Z32, Z64, rtol=0, atol=1e-6)


def test_one_feature():
    X = np.linspace(-2, 2, 30)[:, None]
    sampler = FastfoodSampler(bandwidth=1.0, n_components=4000, random_state=0)
    Z = sampler.fit_transform(X)
    assert sampler.n_features_padded_ == 1
    assert sampler.random_signs_.shape == (2000, 1)
    assert Z.shape == (30, 4000)
    assert np.abs(Z @ Z.T - gaussian_kernel(X, bandwidth=1.0)).max() < 0.1


def test_median_bandwidth_and_scale_equivariance(global_random_seed):
    X = np.random.default_rng(global_random_seed).normal(size=(80, 10))
    a = FastfoodSampler(n_components=64, random_state=global_random_seed).fit(X)
    b = FastfoodSampler(n_components=64, random_state=global_random_seed).fit(3 * X)
    assert a.bandwidth_ > 0
    np.testing.assert_allclose(b.bandwidth_, 3 * a.bandwidth_)
    # Draws come before the median subsample: same map up to the bandwidth.
    np.testing.assert_allclose(b.transform(3 * X), a.transform(X), atol=1e-12)
    fixed = FastfoodSampler(bandwidth=2.5, n_components=64).fit(X)
    assert fixed.bandwidth_ == 2.5


def test_blocks_and_shapes():
    X = np.zeros((3, 5))
    sampler = FastfoodSampler(bandwidth=1.0, n_components=36, random_state=0).fit(X)
    # d0 = 5 -> d = 8; L = 18 frequencies -> ceil(18 / 8) = 3 blocks.
    assert sampler.n_features_padded_ == 8
    for name in ("random_signs_", "random_gaussian_", "random_scaling_"):
        assert getattr(sampler, name).shape == (3, 8)
    assert set(np.unique(sampler.random_signs_)) == {-1.0, 1.0}
    for perm in sampler.random_permutation_:
        np.testing.assert_array_equal(np.sort(perm), np.arange(8))
    assert sampler.transform(X).shape == (3, 36)
    names = sampler.get_feature_names_out()
    assert names[0] == "fastfoodsampler0" and names[-1] == "fastfoodsampler35"


def test_transform_deterministic_and_seeded():
    X = np.random.default_rng(0).normal(size=(10, 6))
    a = FastfoodSampler(n_components=32, random_state=1).fit(X)
    np.testing.assert_array_equal(a.transform(X), a.transform(X))
    b = FastfoodSampler(n_components=32, random_state=1).fit(X)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    c = FastfoodSampler(n_components=32, random_state=2).fit(X)
    assert not np.allclose(a.transform(X), c.transform(X))


def test_errors():
    X = np.zeros((4, 3))
    with pytest.raises(ValueError, match="'bandwidth' parameter of FastfoodSampler"):
        FastfoodSampler(bandwidth=-1.0).fit(X)
    with pytest.raises(ValueError, match="'feature' parameter of FastfoodSampler"):
        FastfoodSampler(feature="cos").fit(X)
    with pytest.raises(ValueError, match="'n_components' parameter of FastfoodSampler"):
        FastfoodSampler(n_components=0).fit(X)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        FastfoodSampler().transform(X)
    fitted = FastfoodSampler(bandwidth=1.0, n_components=8).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but FastfoodSampler"):
        fitted.transform(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        fitted.transform(np.full((2, 3), np.nan))

"""NystroemSampler (skmmd/kernel_approximation/_nystroem.py, with its kernel
conventions and landmarks): Gram accuracy, dtypes, sparse input, the choice
of landmarks, callable kernels on graphs, precomputed kernels, errors."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import laplacian_kernel as sk_laplacian
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from skmmd import NystroemSampler
from skmmd._utils._compat import InvalidParameterError
from skmmd.kernels import gaussian_kernel, laplacian_kernel
from tests.helpers.graphs import random_graphs, shortest_path_kernel

# The estimator checks run in tests/test_common.py (ESTIMATORS).


def clustered(rng, n=800, d=3, n_clusters=30):
    """Tight Gaussian clusters with sizes proportional to 1 / i^2."""
    weights = 1.0 / np.arange(1, n_clusters + 1) ** 2
    sizes = rng.multinomial(n, weights / weights.sum())
    centers = rng.uniform(-10, 10, size=(n_clusters, d))
    return np.concatenate(
        [c + 0.3 * rng.normal(size=(m, d)) for c, m in zip(centers, sizes)]
    )


def gram_error(Z, K):
    Z = Z.astype(np.float64)
    return np.abs(Z @ Z.T - K).max()


# -- exactness -------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel, exact",
    [
        ("gaussian", lambda X: gaussian_kernel(X, bandwidth=1.5)),
        ("laplacian", lambda X: laplacian_kernel(X, bandwidth=1.5)),
        ("poly", lambda X: polynomial_kernel(X, degree=2, gamma=0.5, coef0=1.0)),
    ],
)
def test_all_points_as_landmarks_reproduce_gram(rng, kernel, exact):
    # With s = n the map's Gram matrix is K K^+ K = K minus the dropped
    # eigencomponents, each below s * eps64 * lambda_max ~ 1e-11 here: 1e-6
    # has a wide margin. Duplicated rows make K singular (and the quadratic
    # kernel has rank 10 < n). A cutoff far above round-off fails (rtol=1e-6
    # gives 1e-5); in float64, flooring at 1e-12 would pass (3.7e-10), the
    # float32 test below is the one that catches flooring.
    X = rng.normal(size=(60, 3))
    X = np.concatenate([X, X[:20], X[:5]])  # duplicates
    if kernel == "poly":
        sampler = NystroemSampler(
            kernel="poly",
            n_components=len(X),
            kernel_params={"degree": 2, "gamma": 0.5, "coef0": 1.0},
            random_state=0,
        )
    else:
        sampler = NystroemSampler(
            kernel=kernel, bandwidth=1.5, n_components=len(X), random_state=0
        )
    Z = sampler.fit_transform(X)
    assert gram_error(Z, exact(X)) < 1e-6
    assert Z.shape[1] <= 60  # the 25 duplicates add no dimension
    if kernel == "poly":
        assert Z.shape[1] == 10  # rank of the degree-2 kernel in 3-d
    assert len(sampler.get_feature_names_out()) == Z.shape[1]


def test_landmark_gram_is_exact_and_residual_psd(rng):
    # Nystroem interpolates on the landmarks (z(S) z(S)^T = K_SS) and the
    # residual K - Z Z^T is a Schur complement, hence positive semi-definite.
    X = rng.normal(size=(300, 4))
    sampler = NystroemSampler(bandwidth=2.0, n_components=40, random_state=0)
    Z = sampler.fit_transform(X)
    K = gaussian_kernel(X, bandwidth=2.0)
    idx = sampler.component_indices_
    np.testing.assert_allclose(Z[idx] @ Z[idx].T, K[np.ix_(idx, idx)], atol=1e-9)
    assert np.linalg.eigvalsh(K - Z @ Z.T).min() > -1e-9
    assert sampler.landmarks_ is sampler.components_
    np.testing.assert_array_equal(sampler.components_, X[idx])


# -- float32 -----------------------------------------------------------------


@pytest.mark.slow
def test_float32_accuracy(global_random_seed):
    # The setting of the spec: 2000 x 5 (uniform on [0, 1]^5), s = 300,
    # gamma = 0.01. In float32 the transform's GEMM has round-off about
    # eps32 / sqrt(w_i) on component i; the default cutoff (eps32 / s
    # relative) keeps that below eps32 * lambda_max ~ 4e-5 in total, and the
    # truncation error is ~1e-5 on these data (measured over seeds, max
    # 1.3e-5). Keeping every positive eigenvalue (rtol=0, like flooring)
    # gives errors around 1e-2, so the bound can fail.
    rng = np.random.default_rng(global_random_seed)
    X = rng.uniform(size=(2000, 5))
    bandwidth = np.sqrt(1.0 / (2 * 0.01))
    K = gaussian_kernel(X, bandwidth=bandwidth)
    X32 = X.astype(np.float32)
    sampler = NystroemSampler(
        bandwidth=bandwidth, n_components=300, random_state=global_random_seed
    )
    Z = sampler.fit_transform(X32)
    assert Z.dtype == np.float32
    assert gram_error(Z, K) <= 1e-4
    Z0 = sampler.set_params(rtol=0.0).fit_transform(X32)
    assert gram_error(Z0, K) > 1e-3


def test_float32_float64_same_map(rng):
    X = rng.normal(size=(200, 3))
    kw = {"bandwidth": 2.0, "n_components": 50, "random_state": 0}
    s64 = NystroemSampler(**kw).fit(X)
    s32 = NystroemSampler(**kw).fit(X.astype(np.float32))
    Z64, Z32 = s64.transform(X), s32.transform(X.astype(np.float32))
    assert Z32.dtype == np.float32 and s32.components_.dtype == np.float32
    # One seed, same landmarks. On the landmarks Nystroem interpolates: the
    # float32 map loses at most the dropped eigenvalues (each below
    # (eps32 / s) lambda_max, all together below eps32 lambda_max) plus a
    # round-off of about eps32 lambda_max, with lambda_max <= s = 50: 1e-4
    # leaves a margin of 8. Away from the landmarks the extra truncation
    # is data dependent (up to 4e-3 over seeds), so it is not compared.
    np.testing.assert_array_equal(s32.component_indices_, s64.component_indices_)
    idx = s64.component_indices_
    K_SS = gaussian_kernel(X[idx], bandwidth=2.0)
    assert np.abs(Z64[idx] @ Z64[idx].T - K_SS).max() < 1e-9
    G32 = (Z32[idx] @ Z32[idx].T).astype(np.float64)
    assert np.abs(G32 - K_SS).max() < 1e-4


def test_sparse_matches_dense(rng):
    X = rng.normal(size=(100, 6))
    X[rng.uniform(size=X.shape) < 0.6] = 0.0
    for kernel in ("gaussian", "laplacian"):
        kw = {"kernel": kernel, "bandwidth": 3.0, "n_components": 30, "random_state": 0}
        Zd = NystroemSampler(**kw).fit_transform(X)
        Zs = NystroemSampler(**kw).fit_transform(sp.csr_matrix(X))
        # Kernel values differ by round-off (~1e-16) between the dense and
        # sparse distance code; component i amplifies that by 1/sqrt(w_i) with
        # w_i >= s eps64 lambda_max ~ 2e-13, i.e. to ~3e-10 at most.
        np.testing.assert_allclose(Zs, Zd, atol=1e-8)
        np.testing.assert_allclose(Zs @ Zs.T, Zd @ Zd.T, atol=1e-12)


# -- kernels -----------------------------------------------------------------


def test_kernel_conventions_agree(rng):
    # skmmd's bandwidth vs scikit-learn's gamma, and a callable kernel: the
    # same kernel and landmarks give the same map.
    X = rng.normal(size=(80, 3))
    kw = {"n_components": 30, "random_state": 0}
    Z = NystroemSampler(bandwidth=2.0, **kw).fit_transform(X)
    Z_rbf = NystroemSampler(kernel="rbf", kernel_params={"gamma": 1 / 8}, **kw)
    Z_call = NystroemSampler(
        kernel=lambda A, B, bw: gaussian_kernel(A, B, bandwidth=bw),
        kernel_params={"bw": 2.0},
        **kw,
    )
    np.testing.assert_allclose(Z_rbf.fit_transform(X), Z, atol=1e-10)
    np.testing.assert_allclose(Z_call.fit_transform(X), Z, atol=1e-10)
    assert Z_rbf.bandwidth_ is None
    ZL = NystroemSampler(kernel="laplacian", bandwidth=2.0, n_components=80)
    ZL = ZL.fit_transform(X)
    np.testing.assert_allclose(ZL @ ZL.T, sk_laplacian(X, gamma=0.5), atol=1e-8)
    assert np.allclose(rbf_kernel(X, gamma=1 / 8), gaussian_kernel(X, bandwidth=2.0))


def test_median_bandwidth_and_capped_components(rng):
    X = rng.normal(size=(30, 2))
    sampler = NystroemSampler(random_state=0).fit(X)  # n_components 256 > 30
    assert sampler.bandwidth_ > 0
    assert len(sampler.components_) == 30
    assert sampler.transform(X).shape == (30, sampler.normalization_.shape[1])


def test_user_landmarks(rng):
    X = rng.normal(size=(50, 3))
    S = rng.normal(size=(10, 3))
    sampler = NystroemSampler(bandwidth=1.0, landmarks=S).fit(X)
    assert sampler.component_indices_ is None
    np.testing.assert_array_equal(sampler.components_, S)
    Z = sampler.transform(S)
    np.testing.assert_allclose(Z @ Z.T, gaussian_kernel(S, bandwidth=1.0), atol=1e-8)


# -- landmark strategies -----------------------------------------------------


@pytest.mark.slow
def test_leverage_and_kmeans_beat_uniform(global_random_seed):
    # Monte Carlo over 5 data sets: on tight clusters of very unequal sizes
    # uniform sampling wastes landmarks on the big clusters. Measured (3
    # seeds, n=1000, s=100): relative Frobenius error uniform 0.032, leverage
    # 0.015, kmeans 0.003; benchmarks/bench_nystroem.py has the full table.
    # At s = 50 the leverage gain is smaller (ratio 0.8) and failed 1 seed in
    # 100; at s = 100 it is about 0.5.
    errors = {"uniform": [], "kmeans": [], "leverage": []}
    for rep in range(5):
        seed = 1000 * global_random_seed + rep
        X = clustered(np.random.default_rng(seed))
        K = gaussian_kernel(X, bandwidth=1.0)
        for strategy, err in errors.items():
            sampler = NystroemSampler(
                bandwidth=1.0, n_components=100, landmarks=strategy, random_state=seed
            )
            Z = sampler.fit_transform(X)
            err.append(np.linalg.norm(K - Z @ Z.T) / np.linalg.norm(K))
    mean = {key: np.mean(value) for key, value in errors.items()}
    assert mean["leverage"] < mean["uniform"]
    assert mean["kmeans"] < mean["uniform"]


def test_leverage_picks_isolated_points(global_random_seed):
    # Five isolated points and a tight cluster of 400 (numerically rank one):
    # with s = 12 the recursive sampler's ridge is lambda ~ (405 - 401) / 2 = 2
    # (effective dimension k = 2), so each isolated point has leverage ~1/3
    # and the whole cluster ~1. Drawing 12 without replacement by these
    # weights takes ~4 of the 5 isolated points (measured mean 3.9, sd 1.2);
    # uniform sampling takes 5 * 12 / 405 = 0.15 on average. Threshold 2 on
    # the mean of 8 draws is 4.5 standard errors below 3.9.
    found = []
    for rep in range(8):
        seed = 1000 * global_random_seed + rep
        rng = np.random.default_rng(seed)
        cluster = 0.01 * rng.normal(size=(400, 2))
        isolated = 100.0 * np.arange(1, 6)[:, None] * np.ones((1, 2))
        X = np.concatenate([cluster, isolated])
        sampler = NystroemSampler(
            bandwidth=1.0, n_components=12, landmarks="leverage", random_state=seed
        ).fit(X)
        idx = sampler.component_indices_
        assert len(np.unique(idx)) == 12
        found.append(len(set(range(400, 405)) & set(idx.tolist())))
    assert np.mean(found) >= 2


class CountingKernel:
    def __init__(self, kernel):
        self.kernel = kernel
        self.shapes = []

    def __call__(self, A, B):
        self.shapes.append((len(A), len(B)))
        return self.kernel(A, B)


def test_graphs_with_callable_kernel(rng):
    graphs = random_graphs(rng, 40)  # different sizes: a ragged sequence
    K = shortest_path_kernel(graphs, graphs)
    # All graphs as landmarks: exact Gram matrix (the kernel has rank <= 6).
    sampler = NystroemSampler(kernel=shortest_path_kernel, n_components=40)
    Z = sampler.fit(graphs).transform(graphs)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-8 * np.abs(K).max())
    assert Z.shape[1] <= 6
    assert not hasattr(sampler, "n_features_in_")
    assert len(sampler.get_feature_names_out()) == Z.shape[1]
    # With s < n only k(S, S) and k(X, S) are formed.
    counting = CountingKernel(shortest_path_kernel)
    sampler = NystroemSampler(kernel=counting, n_components=8, random_state=0)
    Z = sampler.fit_transform(graphs)
    assert counting.shapes == [(8, 8), (40, 8)]
    assert Z.shape == (40, sampler.normalization_.shape[1])
    # Equal-size graphs (a list that would stack into a 3-d array) and new
    # graphs at transform time.
    same = [np.ones((4, 4), int) - np.eye(4, dtype=int) for _ in range(3)]
    assert sampler.transform(same).shape[0] == 3
    for strategy in ("leverage", graphs[:5]):
        sampler = NystroemSampler(
            kernel=shortest_path_kernel,
            n_components=8,
            landmarks=strategy,
            random_state=0,
        ).fit(graphs)
        assert sampler.transform(graphs).shape[0] == 40


# -- errors ----------------------------------------------------------------------


def test_errors(rng):
    X = rng.normal(size=(20, 3))
    graphs = random_graphs(rng, 10)
    cases = [
        (NystroemSampler(kernel_params={"gamma": 1.0}), X, "kernel_params is not used"),
        (NystroemSampler(kernel="rbf", bandwidth=1.0), X, "bandwidth applies to"),
        (
            NystroemSampler(kernel="rbf", kernel_params={"degree": 2}),
            X,
            "does not take",
        ),
        (
            NystroemSampler(kernel=lambda A, B: np.ones((2, 2))),
            X,
            r"of shape \(20, 20\); got an array of shape \(2, 2\)",
        ),
        (
            NystroemSampler(kernel=shortest_path_kernel, landmarks="kmeans"),
            graphs,
            "needs vector data",
        ),
        (NystroemSampler(landmarks=np.ones((4, 2))), X, "as many features as X"),
        (
            NystroemSampler(kernel=shortest_path_kernel, landmarks=[]),
            graphs,
            "at least one",
        ),
        (NystroemSampler(kernel="linear"), np.zeros((5, 2)), "no positive eigen"),
        (NystroemSampler(kernel=shortest_path_kernel), [], "at least one item"),
    ]
    for sampler, data, match in cases:
        with pytest.raises(ValueError, match=match):
            sampler.fit(data)
    with pytest.raises(InvalidParameterError, match="landmarks"):
        NystroemSampler(landmarks="random").fit(X)
    with pytest.raises(InvalidParameterError, match="n_components"):
        NystroemSampler(n_components=0).fit(X)
    with pytest.raises(InvalidParameterError, match="rtol"):
        NystroemSampler(rtol=2.0).fit(X)
    fitted = NystroemSampler(n_components=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="3 features"):
        fitted.transform(X[:, :2])


# -- precomputed kernels and scikit-learn's pairwise callables ---------------------


@pytest.mark.parametrize("landmarks", ["uniform", "leverage"])
def test_precomputed_matches_vector_kernel(rng, landmarks):
    # The same landmarks from the kernel matrix as from the data: the same
    # Nystroem Gram matrix, on the training set and on new points.
    X, X_new = rng.normal(size=(150, 3)), rng.normal(size=(20, 3))
    kw = {"n_components": 25, "landmarks": landmarks, "random_state": 0}
    pre = NystroemSampler(kernel="precomputed", **kw).fit(gaussian_kernel(X))
    vec = NystroemSampler(bandwidth=1.0, **kw).fit(X)
    idx = pre.component_indices_
    assert np.all(np.diff(idx) > 0)
    np.testing.assert_array_equal(idx, np.sort(vec.component_indices_))
    assert pre.components_.shape == (25, 150)
    assert pre.bandwidth_ is None
    Z_vec = vec.transform(X_new)
    K_new = gaussian_kernel(X_new, X)
    for K in (K_new, K_new[:, idx]):  # K(X, X_fit) or K(X, S)
        Z = pre.transform(K)
        np.testing.assert_allclose(Z @ Z.T, Z_vec @ Z_vec.T, atol=1e-10)


def test_precomputed_all_landmarks_and_float32(rng):
    X = rng.normal(size=(30, 4))
    K = polynomial_kernel(X, degree=2, coef0=0.1)
    sampler = NystroemSampler(kernel="precomputed", n_components=30)
    Z = sampler.fit_transform(K)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-9 * np.abs(K).max())
    Z32 = sampler.fit_transform(K.astype(np.float32))
    assert Z32.dtype == np.float32
    np.testing.assert_allclose(Z32 @ Z32.T, K, atol=1e-4 * np.abs(K).max())
    assert sampler.__sklearn_tags__().input_tags.pairwise
    assert not NystroemSampler().__sklearn_tags__().input_tags.pairwise


def test_precomputed_errors(rng):
    K = gaussian_kernel(rng.normal(size=(12, 2)))
    cases = [
        (NystroemSampler(kernel="precomputed"), K[:, :5], "square kernel matrix"),
        (
            NystroemSampler(kernel="precomputed", landmarks="kmeans"),
            K,
            "'uniform' or 'leverage'",
        ),
        (
            NystroemSampler(kernel="precomputed", landmarks=K[:3]),
            K,
            "'uniform' or 'leverage'",
        ),
        (
            NystroemSampler(kernel="precomputed", kernel_params={"gamma": 1.0}),
            K,
            "kernel_params is not used by kernel='precomputed'",
        ),
        (
            NystroemSampler(kernel="precomputed", bandwidth=1.0),
            K,
            "bandwidth applies to",
        ),
    ]
    for sampler, data, match in cases:
        with pytest.raises(ValueError, match=match):
            sampler.fit(data)
    fitted = NystroemSampler(kernel="precomputed", n_components=5).fit(K)
    with pytest.raises(ValueError, match=r"\(n_samples, 5\).*\(n_samples, 12\)"):
        fitted.transform(K[:, :7])


def test_pairwise_convention(rng):
    X = rng.uniform(size=(40, 3))
    calls = []

    def histogram(x, y, scale):
        calls.append(1)
        assert x.ndim == 1 and y.ndim == 1  # one row each
        return scale * np.minimum(x, y).sum()

    kw = {"n_components": 10, "random_state": 0, "kernel_params": {"scale": 2.0}}
    pair = NystroemSampler(kernel=histogram, kernel_convention="pairwise", **kw)
    Z = pair.fit_transform(X)
    # Landmark matrix: the upper triangle with the diagonal (55 calls), then
    # k(X, S) (400 calls).
    assert len(calls) == 10 * 11 // 2 + 40 * 10

    def histogram_block(A, B, scale):
        return scale * np.minimum(A[:, None, :], B[None, :, :]).sum(axis=2)

    block = NystroemSampler(kernel=histogram_block, **kw)
    np.testing.assert_allclose(Z, block.fit_transform(X), atol=1e-12)
    # Sequences of objects: one call per pair too.
    words = ["kernel", "random", "feature", "sampler", "test"]

    def shared(a, b):
        return len(set(a) & set(b)) / np.sqrt(len(set(a)) * len(set(b)))

    Zw = NystroemSampler(
        kernel=shared, kernel_convention="pairwise", n_components=5
    ).fit_transform(words)
    K = np.array([[shared(a, b) for b in words] for a in words])
    np.testing.assert_allclose(Zw @ Zw.T, K, atol=1e-10)


def test_callable_convention_errors(rng):
    X = rng.normal(size=(10, 4))

    def linear(x, y):  # scikit-learn's convention: two rows, a float
        return x @ y

    # Called on blocks, it fails inside; the error says which convention to use.
    with pytest.raises(ValueError, match="matmul") as info:
        NystroemSampler(kernel=linear, n_components=3, random_state=0).fit(X)
    if hasattr(info.value, "__notes__"):
        assert "kernel_convention='pairwise'" in info.value.__notes__[0]
    # A scalar from a matrix call names the expected shape and the convention.
    with pytest.raises(ValueError, match=r"of shape \(3, 3\); got an array of "):
        NystroemSampler(kernel=lambda A, B: 1.0, n_components=3).fit(X)
    with pytest.raises(ValueError, match="kernel_convention='pairwise'"):
        NystroemSampler(kernel=lambda A, B: 1.0, n_components=3).fit(X)
    # A matrix from a pairwise call: expected a float, of shape ().
    with pytest.raises(ValueError, match=r"must return a float, of shape \(\)"):
        NystroemSampler(
            kernel=lambda x, y: np.ones((2, 2)), kernel_convention="pairwise"
        ).fit(X)
    with pytest.raises(InvalidParameterError, match="kernel_convention"):
        NystroemSampler(kernel=linear, kernel_convention="rows").fit(X)
    with pytest.raises(InvalidParameterError, match="kernel_convention"):
        NystroemSampler(kernel=linear, kernel_convention="block").fit(X)

"""The exact kernels and the median bandwidth (skmmd/kernels/_pairwise.py):
against scikit-learn and brute force, blocks, dtypes and errors; the
generalized min-max kernel."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import pdist
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics.pairwise import laplacian_kernel as sk_laplacian
from sklearn.metrics.pairwise import rbf_kernel

from skmmd.kernels import (
    gaussian_kernel,
    gmm_kernel,
    kernel_chunks,
    laplacian_kernel,
    matern_kernel,
    median_bandwidth,
)
from tests.helpers.references import sign_split


def brute_gmm(u, v):
    a, b = sign_split(u), sign_split(v)
    return np.minimum(a, b).sum() / np.maximum(a, b).sum()


# ---------------------------------------------------------------------------
# gmm_kernel


def test_gmm_kernel_matches_brute_force(rng):
    X = rng.normal(size=(7, 5))
    X[2, :3] = 0
    Y = np.abs(rng.normal(size=(4, 5)))
    K = gmm_kernel(X, Y)
    expected = np.array([[brute_gmm(x, y) for y in Y] for x in X])
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(
        gmm_kernel(sp.csr_matrix(X), sp.csr_matrix(Y)), K, atol=1e-14
    )
    np.testing.assert_allclose(gmm_kernel(X.astype(np.float32), Y), K, atol=1e-6)
    np.testing.assert_allclose(gmm_kernel(X, Y, chunk_size=2), K, atol=0)


def test_gmm_kernel_properties(rng):
    X = rng.normal(size=(6, 4))
    K = gmm_kernel(X)
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-14)
    np.testing.assert_allclose(K, K.T, atol=1e-15)
    np.testing.assert_allclose(gmm_kernel(3.7 * X, 3.7 * X), K, atol=1e-14)
    np.testing.assert_allclose(np.diag(gmm_kernel(X, -X)), 0.0, atol=1e-15)
    assert K.min() >= 0 and K.max() <= 1
    # The spec's example: u = [-5, 3] splits to [0, 5, 3, 0].
    np.testing.assert_array_equal(sign_split(np.array([-5.0, 3.0])), [0, 5, 3, 0])
    assert np.abs(sign_split(X[0])).sum() == pytest.approx(np.abs(X[0]).sum())


def test_gmm_kernel_zero_rows():
    K = gmm_kernel([[0.0, 0.0], [1.0, -2.0]])
    np.testing.assert_array_equal(K, [[1.0, 0.0], [0.0, 1.0]])


def test_gmm_kernel_feature_mismatch():
    with pytest.raises(ValueError, match="same number of features"):
        gmm_kernel(np.ones((2, 3)), np.ones((2, 4)))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(23, 4)), rng.normal(size=(17, 4))


def test_gaussian_matches_sklearn_rbf(data):
    X, Y = data
    expected = rbf_kernel(X, Y, gamma=1 / (2 * 1.7**2))
    np.testing.assert_allclose(
        gaussian_kernel(X, Y, bandwidth=1.7), expected, rtol=1e-12
    )


def test_laplacian_matches_sklearn(data):
    X, Y = data
    expected = sk_laplacian(X, Y, gamma=1 / 2.5)
    np.testing.assert_allclose(
        laplacian_kernel(X, Y, bandwidth=2.5), expected, rtol=1e-12
    )


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_matches_sklearn(data, nu):
    X, Y = data
    expected = Matern(length_scale=1.3, nu=nu)(X, Y)
    np.testing.assert_allclose(
        matern_kernel(X, Y, bandwidth=1.3, nu=nu), expected, rtol=1e-10
    )


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian", "matern"])
def test_blocks_dense_sparse_agree(data, kernel):
    X, Y = data
    X[X < 0] = 0.0
    full = np.vstack([b for _, b in kernel_chunks(X, Y, kernel=kernel, bandwidth=2.0)])
    for chunk_size in (1, 5, 100):
        blocks = kernel_chunks(
            X, Y, kernel=kernel, bandwidth=2.0, chunk_size=chunk_size
        )
        np.testing.assert_allclose(np.vstack([b for _, b in blocks]), full, rtol=1e-12)
    sparse = kernel_chunks(sp.csr_matrix(X), Y, kernel=kernel, bandwidth=2.0)
    np.testing.assert_allclose(np.vstack([b for _, b in sparse]), full, rtol=1e-10)


def test_float32_preserved(data):
    X, _ = data
    assert gaussian_kernel(X.astype(np.float32)).dtype == np.float32
    assert gaussian_kernel(X.astype(np.float32), X).dtype == np.float64


def test_kernel_errors(data):
    X, Y = data
    with pytest.raises(ValueError, match="bandwidth must be a positive"):
        gaussian_kernel(X, bandwidth=-1.0)
    with pytest.raises(ValueError, match="same number of features"):
        gaussian_kernel(X, Y[:, :3])
    with pytest.raises(ValueError, match="kernel must be one of"):
        next(kernel_chunks(X, kernel="rbf"))
    with pytest.raises(ValueError, match="nu must be one of"):
        matern_kernel(X, nu=1.0)
    with pytest.raises(ValueError, match="NaN"):
        gaussian_kernel(np.full((2, 2), np.nan))


def test_median_bandwidth_exact_and_metric(data):
    X, _ = data
    assert median_bandwidth(X) == pytest.approx(np.median(pdist(X)))
    assert median_bandwidth(X, metric="manhattan") == pytest.approx(
        np.median(pdist(X, "cityblock"))
    )
    assert median_bandwidth(sp.csr_matrix(X)) == pytest.approx(np.median(pdist(X)))


def test_median_bandwidth_subsample_is_seeded():
    X = np.random.default_rng(0).normal(size=(3000, 2))
    a = median_bandwidth(X, max_samples=500, random_state=1)
    assert a == median_bandwidth(X, max_samples=500, random_state=1)
    # A 500-point subsample estimates the full median within a few percent.
    assert a == pytest.approx(np.median(pdist(X[:2000])), rel=0.05)


def test_median_bandwidth_of_random_pairs():
    X = np.random.default_rng(0).normal(size=(20000, 2))
    full = np.median(pdist(X[:4000]))
    values = [median_bandwidth(X, random_state=s, n_pairs=2**18) for s in range(5)]
    subsample = [median_bandwidth(X, random_state=s) for s in range(5)]
    # Many pairs of all rows: a smaller error than every pair of 1000 rows.
    assert np.std(values) < 0.5 * np.std(subsample)
    assert np.mean(values) == pytest.approx(full, rel=0.01)
    assert values[0] == median_bandwidth(X, random_state=0, n_pairs=2**18)
    sparse = median_bandwidth(sp.csr_matrix(X), random_state=0, n_pairs=2**18)
    assert sparse == pytest.approx(values[0])
    l1 = median_bandwidth(X, random_state=0, n_pairs=2**18, metric="manhattan")
    assert l1 == pytest.approx(np.median(pdist(X[:4000], "cityblock")), rel=0.01)
    # Up to max_samples rows, every pair, as without n_pairs.
    assert median_bandwidth(X[:50], n_pairs=10) == pytest.approx(
        np.median(pdist(X[:50]))
    )
    with pytest.raises(ValueError, match="n_pairs"):
        median_bandwidth(X, n_pairs=0)


@pytest.mark.parametrize("metric", ["euclidean", "manhattan"])
def test_random_pairs_are_the_same_whatever_the_block(monkeypatch, metric):
    # Each block of pairs holds a budget's entries: a few pairs per block
    # give every distance, and the median, bit for bit; so do rows stored
    # by column.
    from skmmd._utils import _budgets

    X = np.random.default_rng(2).normal(size=(3000, 40))
    whole = median_bandwidth(X, random_state=0, n_pairs=5000, metric=metric)
    monkeypatch.setattr(_budgets, "PART_ENTRIES", 7 * 40)
    assert median_bandwidth(X, random_state=0, n_pairs=5000, metric=metric) == whole
    # and whatever the rows' layout (a table's values are Fortran-ordered)
    F = np.asfortranarray(X)
    assert median_bandwidth(F, random_state=0, n_pairs=5000, metric=metric) == whole
    monkeypatch.setattr(_budgets, "MAP_CHUNK_ENTRIES", 1000)  # gathered as it is
    assert median_bandwidth(F, random_state=0, n_pairs=5000, metric=metric) == whole


def test_median_bandwidth_ties_and_constant():
    # 8 of 10 points identical: 28 of 45 distances are 0, so the median of the
    # positive ones is used: eight 1s, eight 3s and one 2.
    X = np.zeros((10, 1))
    X[-2:] = [[1.0], [3.0]]
    assert median_bandwidth(X) == 2.0
    assert median_bandwidth(np.ones((5, 3))) == 1.0


def test_median_bandwidth_errors():
    with pytest.raises(ValueError, match="at least 2 samples"):
        median_bandwidth(np.ones((1, 2)))
    with pytest.raises(ValueError, match="max_samples"):
        median_bandwidth(np.ones((4, 2)), max_samples=1)
    with pytest.raises(ValueError, match="metric"):
        median_bandwidth(np.ones((4, 2)), metric="cosine")

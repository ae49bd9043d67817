from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import pdist

from skmmd import NormalizedRandomFourierSampler, RandomFourierSampler
from skmmd.kernels import gaussian_kernel, laplacian_kernel, matern_kernel
from tests.helpers.gram_bounds import check_gram_accuracy

KERNELS = {
    "gaussian": gaussian_kernel,
    "laplacian": laplacian_kernel,
    "matern": partial(matern_kernel, nu=1.5),
}
FREQUENCY_DRAWS = [{}, {"orthogonal": True}, {"qmc": "sobol"}, {"qmc": "halton"}]


@pytest.mark.parametrize("feature", ["cos_sin", "cos_phase"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_gram_accuracy(kernel, feature, global_random_seed):
    # Bounds on mean bias, max and mean absolute error from the exact variance
    # of the estimator at D = 1024 (tests/helpers/gram_bounds.py); each fails with
    # probability <= 1e-4 per seed for a correct map.
    rng = np.random.default_rng(global_random_seed)
    X = rng.normal(size=(30, 5))
    D = 1024
    sampler = RandomFourierSampler(
        kernel=kernel,
        bandwidth=2.0,
        n_components=D,
        feature=feature,
        random_state=global_random_seed,
    )
    Z = sampler.fit_transform(X)
    exact = partial(KERNELS[kernel], bandwidth=2.0)
    check_gram_accuracy(Z, exact(X), X, exact, D, feature)


@pytest.mark.parametrize(
    "draw", FREQUENCY_DRAWS[1:], ids=["orthogonal", "sobol", "halton"]
)
def test_gram_accuracy_structured_draws(draw, global_random_seed):
    # Orthogonal and QMC frequencies have at most the i.i.d. variance (Yu et al.
    # 2016; Yang et al. 2014), so the i.i.d. bounds must hold for them too.
    rng = np.random.default_rng(global_random_seed)
    X = rng.normal(size=(30, 5))
    D = 1024
    Z = RandomFourierSampler(
        bandwidth=2.0, n_components=D, random_state=global_random_seed, **draw
    ).fit_transform(X)
    exact = partial(gaussian_kernel, bandwidth=2.0)
    check_gram_accuracy(Z, exact(X), X, exact, D)


def _gram_mse(sampler, X, K):
    Z = sampler.fit_transform(X)
    return np.mean((Z @ Z.T - K) ** 2)


def test_orthogonal_features_lower_mse():
    # Monte Carlo over seeds: orthogonal frequencies must lower the Gram MSE at
    # equal n_components (Yu et al. 2016, Fig. 2: largest gain at
    # bandwidth ~ sqrt(d)). Paired over seeds; the gain must exceed 4 standard
    # errors of the mean paired difference.
    d, D, n_seeds = 16, 128, 60
    X = np.random.default_rng(0).normal(size=(40, d))
    bandwidth = np.sqrt(d)
    K = gaussian_kernel(X, bandwidth=bandwidth)
    diff = np.array(
        [
            _gram_mse(
                RandomFourierSampler(
                    bandwidth=bandwidth, n_components=D, orthogonal=True, random_state=s
                ),
                X,
                K,
            )
            - _gram_mse(
                RandomFourierSampler(
                    bandwidth=bandwidth, n_components=D, random_state=s
                ),
                X,
                K,
            )
            for s in range(n_seeds)
        ]
    )
    assert diff.mean() + 4 * diff.std(ddof=1) / np.sqrt(n_seeds) < 0


def _theorem3_variances(gamma, rho):
    """Li (2017) Theorem 3: per-component variances, plain and normalized."""
    e = np.exp(-2 * gamma * (1 - rho))
    V = 0.5 + 0.5 * (1 - e) ** 2
    return V, V - 0.25 * e * (3 - e**2)


@pytest.mark.parametrize("rho", [0.9, 0.99])
def test_nrff_variance_matches_theorem3(rho):
    # Unit vectors with cosine rho; kernel exp(-gamma (1 - rho)) is the Gaussian
    # kernel with bandwidth 1 / sqrt(gamma). Same seeds for both maps (NRFF
    # normalizes the very same random-phase features), R repetitions.
    gamma, d, D, R = 1.0, 8, 256, 1500
    u = np.zeros(d)
    u[0] = 1.0
    v = np.zeros(d)
    v[0], v[1] = rho, np.sqrt(1 - rho**2)
    X = np.vstack([u, v])
    k = np.exp(-gamma * (1 - rho))
    bandwidth = 1 / np.sqrt(gamma)
    plain, normalized = np.empty(R), np.empty(R)
    for r in range(R):
        params = {"bandwidth": bandwidth, "n_components": D, "random_state": r}
        Z = RandomFourierSampler(feature="cos_phase", **params).fit_transform(X)
        Zn = NormalizedRandomFourierSampler(**params).fit_transform(X)
        plain[r] = Z[0] @ Z[1] - k
        normalized[r] = Zn[0] @ Zn[1] - k
    V, V_n = _theorem3_variances(gamma, rho)
    mse, mse_n = np.mean(plain**2), np.mean(normalized**2)
    assert mse_n < mse
    # Each MSE is a mean of R squared near-normal errors: relative sd
    # sqrt(2 / R) (0.037); 4 sd on the ratio of two such estimates, plus the
    # O(1/D) gap between the asymptotic theorem and finite D.
    tolerance = 4 * np.sqrt(2 * 2 / R) + 4.0 / D
    assert abs((mse_n / mse) / (V_n / V) - 1) < tolerance
    assert abs(mse * D / V - 1) < 4 * np.sqrt(2 / R) + 4.0 / D


def test_odd_n_components_is_unbiased():
    # D = 3: one cos/sin pair (weight 2/3) and one random-phase column (weight
    # 1/3). The mean of R independent estimates must converge to the kernel:
    # each estimate has variance <= 3 (|terms| <= 2), so 5 sd is 5 sqrt(3 / R).
    X = np.random.default_rng(0).normal(size=(6, 2))
    K = gaussian_kernel(X, bandwidth=1.5)
    R = 3000
    mean = np.zeros_like(K)
    for r in range(R):
        Z = RandomFourierSampler(
            bandwidth=1.5, n_components=3, random_state=r
        ).fit_transform(X)
        assert Z.shape == (6, 3)
        mean += Z @ Z.T / R
    assert np.abs(mean - K).max() < 5 * np.sqrt(3 / R)


def test_cos_sin_rows_have_unit_norm():
    X = np.random.default_rng(0).normal(size=(20, 4))
    Z = RandomFourierSampler(n_components=64, random_state=0).fit_transform(X)
    np.testing.assert_allclose((Z**2).sum(axis=1), 1.0)


@pytest.mark.parametrize("draw", FREQUENCY_DRAWS)
@pytest.mark.parametrize("feature", ["cos_sin", "cos_phase"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_dense_sparse_float32_same_map(kernel, feature, draw):
    if draw.get("orthogonal") and kernel == "laplacian":
        return  # rejected, tested below
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    X[X < 0.3] = 0.0
    sampler = RandomFourierSampler(
        kernel=kernel, feature=feature, n_components=65, random_state=0, **draw
    ).fit(X)
    Z = sampler.transform(X)
    np.testing.assert_allclose(
        sampler.transform(sp.csr_matrix(X)), Z, rtol=1e-12, atol=1e-12
    )
    fitted32 = RandomFourierSampler(
        kernel=kernel, feature=feature, n_components=65, random_state=0, **draw
    ).fit(X.astype(np.float32))
    # float32 round-off of the argument Wx is about d eps32 |X| |W| (heavy-tailed
    # Cauchy frequencies make it large for the Laplacian kernel), times the
    # column scale sqrt(2 / D); columns follow the frequencies (cos, sin, extra).
    arg = np.abs(X) @ np.abs(sampler.random_weights_)
    if feature == "cos_sin":
        arg = np.hstack([arg[:, :32], arg[:, :32], arg[:, 32:]])
    tolerance = 8 * X.shape[1] * np.finfo(np.float32).eps * (arg + 1) * np.sqrt(2 / 65)
    for X32 in (X.astype(np.float32), sp.csr_matrix(X.astype(np.float32))):
        Z32 = fitted32.transform(X32)
        assert Z32.dtype == np.float32
        assert np.all(np.abs(Z32 - Z) <= tolerance)


def test_median_bandwidth_resolution():
    X = np.random.default_rng(0).normal(size=(50, 3))
    assert RandomFourierSampler().fit(X).bandwidth_ == pytest.approx(
        np.median(pdist(X))
    )
    laplace = RandomFourierSampler(kernel="laplacian").fit(X)
    assert laplace.bandwidth_ == pytest.approx(np.median(pdist(X, "cityblock")))


def test_frequencies_do_not_depend_on_bandwidth_choice():
    X = np.random.default_rng(0).normal(size=(50, 3))
    median = RandomFourierSampler(random_state=3).fit(X)
    fixed = RandomFourierSampler(bandwidth=median.bandwidth_, random_state=3).fit(X)
    np.testing.assert_array_equal(median.random_weights_, fixed.random_weights_)
    np.testing.assert_array_equal(median.transform(X), fixed.transform(X))


def test_random_state_controls_the_map():
    X = np.random.default_rng(0).normal(size=(10, 3))
    a = RandomFourierSampler(n_components=32, random_state=1).fit_transform(X)
    b = RandomFourierSampler(n_components=32, random_state=1).fit_transform(X)
    c = RandomFourierSampler(n_components=32, random_state=2).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_transform_is_row_blocked_consistently():
    # Larger than one transform block: the blocks must stitch into the same map.
    X = np.random.default_rng(0).normal(size=(5000, 3))
    sampler = RandomFourierSampler(n_components=2048, random_state=0).fit(X)
    Z = sampler.transform(X)
    np.testing.assert_allclose(Z[4321], sampler.transform(X[4321:4322])[0])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"bandwidth": 0.0}, "bandwidth"),
        ({"bandwidth": -1.0}, "bandwidth"),
        ({"n_components": 0}, "n_components"),
        ({"kernel": "rbf"}, "kernel"),
        ({"feature": "sin"}, "feature"),
        ({"nu": 3.0}, "nu"),
        ({"qmc": "lattice"}, "qmc"),
        ({"orthogonal": True, "kernel": "laplacian"}, "orthogonal=True needs"),
        ({"orthogonal": True, "qmc": "sobol"}, "orthogonal=True and qmc"),
    ],
)
def test_bad_parameters(params, match):
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(ValueError, match=match):
        RandomFourierSampler(**params).fit(X)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input(bad):
    X = np.random.default_rng(0).normal(size=(10, 3))
    X[2, 1] = bad
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        RandomFourierSampler().fit(X)
    sampler = RandomFourierSampler(bandwidth=1.0).fit(np.ones((3, 3)))
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        sampler.transform(X)


def test_wrong_n_features_at_transform():
    sampler = RandomFourierSampler().fit(np.random.default_rng(0).normal(size=(10, 3)))
    with pytest.raises(ValueError, match="X has 4 features.*expecting 3 features"):
        sampler.transform(np.ones((2, 4)))


def test_median_needs_two_samples():
    with pytest.raises(ValueError, match="at least 2 samples; got n_samples = 1"):
        RandomFourierSampler().fit(np.ones((1, 3)))
    # An explicit bandwidth needs no pairs.
    assert RandomFourierSampler(bandwidth=1.0, n_components=8).fit_transform(
        np.ones((1, 3))
    ).shape == (1, 8)


def test_nrff_has_unit_rows_and_no_feature_parameter():
    X = np.random.default_rng(0).normal(size=(30, 4))
    Z = NormalizedRandomFourierSampler(n_components=16, random_state=0).fit_transform(X)
    np.testing.assert_allclose((Z**2).sum(axis=1), 1.0, rtol=1e-12)
    assert "feature" not in NormalizedRandomFourierSampler().get_params()
    with pytest.raises(TypeError):
        NormalizedRandomFourierSampler(feature="cos_sin")


def test_feature_names():
    X = np.random.default_rng(0).normal(size=(5, 3))
    names = RandomFourierSampler(n_components=4).fit(X).get_feature_names_out()
    assert list(names) == [f"randomfouriersampler{i}" for i in range(4)]


@pytest.mark.parametrize(
    "feature, n_components", [("cos_sin", 64), ("cos_sin", 65), ("cos_phase", 33)]
)
@pytest.mark.parametrize("sparse", [False, True])
def test_transform_columns_are_those_of_transform(feature, n_components, sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    rff = RandomFourierSampler(
        feature=feature, n_components=n_components, random_state=0
    ).fit(X)
    columns = rng.permutation(n_components)[:17]
    columns = np.r_[columns, n_components - 1, 0]  # the last (phase) column too
    rows = sp.csr_matrix(X) if sparse else X
    Z = rff.transform_columns(rows, columns)
    np.testing.assert_allclose(Z, rff.transform(X)[:, columns], rtol=1e-12, atol=1e-14)
    assert Z.dtype == np.float64
    Z32 = rff.transform_columns(X.astype(np.float32), columns)
    assert Z32.dtype == np.float32


def test_normalized_features_have_no_columns_alone():
    # Each normalized column depends on the whole row's norm.
    assert NormalizedRandomFourierSampler.transform_columns is None

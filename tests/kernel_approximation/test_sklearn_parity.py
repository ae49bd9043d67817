"""scikit-learn's own tests of ``RBFSampler`` and ``Nystroem``, run against
skmmd's samplers through a thin mapping of parameters.

The tests follow ``sklearn/tests/test_kernel_approximation.py`` (scikit-learn
1.9): same data, same kernels, same thresholds. ``rbf_sampler`` and
``nystroem`` below are the mapping a user replacing scikit-learn's classes
applies (see doc/user_guide/from_sklearn.rst): ``gamma`` becomes
``bandwidth = 1 / sqrt(2 gamma)``; ``Nystroem(kernel, gamma, degree, coef0,
kernel_params)`` becomes ``NystroemSampler(kernel, kernel_params={...})``, with
``kernel_convention="pairwise"`` for a callable.

Intended differences, each checked here where scikit-learn checks the
behaviour:

1. RBF accuracy holds for every seed. ``RandomFourierSampler`` defaults to
   ``feature="cos_sin"``, whose Gram entries have lower variance than
   ``RBFSampler``'s random-phase map (``feature="cos_phase"``); with
   scikit-learn's thresholds (mean bias 0.01, max error 0.1, mean absolute
   error 0.05) the test passes for all seeds 0-99 (``SKMMD_SEED_SWEEP=1``),
   where the random-phase map passes for about a third.
2. Fitted random draws stay float64 (``random_weights_``, ``random_offset_``)
   and are cast at transform time, so one seed gives the same map in both
   dtypes; scikit-learn stores them in the input dtype. The transform output
   keeps the input dtype in both.
3. No ``gamma="scale"``: ``bandwidth="median"`` (the median pairwise
   distance) is the data-driven default instead.
4. ``RBFSampler`` draws ``n_components`` random phases; with ``cos_sin``
   ``random_offset_`` is None for even ``n_components`` (no phases needed).
5. Nystroem output width: eigenvalues of ``K(S, S)`` below a dtype-aware
   cutoff are dropped instead of floored at 1e-12, so the output has at most
   ``n_components`` columns (fewer for duplicated landmarks or a kernel that
   is not positive definite, such as ``additive_chi2``); scikit-learn's has
   exactly ``n_components``.
6. ``n_components > n_samples`` is capped at ``n_samples`` without the
   warning scikit-learn emits.
7. Kernel parameters: scikit-learn rejects ``gamma``/``degree``/``coef0``
   with a callable or precomputed kernel; ``NystroemSampler`` has no such
   arguments (only ``kernel_params``), passes ``kernel_params`` to a callable
   as given, and rejects them with ``"precomputed"``.
8. ``kernel="laplacian"`` is skmmd's Laplacian kernel with ``bandwidth =
   1 / gamma`` (same kernel), not scikit-learn's pairwise kernel; without
   ``gamma`` its bandwidth is the median heuristic, not ``n_features``.
9. A callable kernel is called on two sequences for their matrix by default
   (``kernel_convention="matrix"``); scikit-learn's per-pair convention is
   ``kernel_convention="pairwise"``.
10. ``kernel="precomputed"`` works with ``n_components < n`` too
    (scikit-learn needs ``n_components == n``), choosing landmarks among the
    rows; ``transform`` takes ``K(X, S)`` or ``K(X, X_fit)``.
11. A kernel parameter the kernel does not take is an error
    (``kernel_params={"gamma": 1}`` with ``kernel="linear"``); scikit-learn
    ignores ``gamma``/``degree``/``coef0`` a kernel does not use, and so does
    the mapping.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_almost_equal
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import (
    KERNEL_PARAMS,
    chi2_kernel,
    kernel_metrics,
    polynomial_kernel,
    rbf_kernel,
)

from skmmd import NystroemSampler, RandomFourierSampler

# -- the mapping ------------------------------------------------------------------


def rbf_sampler(*, gamma=1.0, n_components=100, random_state=None):
    """``RBFSampler(gamma, n_components, random_state)`` in skmmd terms."""
    return RandomFourierSampler(
        bandwidth=1.0 / np.sqrt(2.0 * gamma),
        n_components=n_components,
        random_state=random_state,
    )


def nystroem(
    *,
    kernel="rbf",
    gamma=None,
    coef0=None,
    degree=None,
    kernel_params=None,
    n_components=100,
    random_state=None,
):
    """``Nystroem(...)`` in skmmd terms (difference 7 and 8 of the docstring)."""
    params = dict(kernel_params or {})
    named = {"gamma": gamma, "coef0": coef0, "degree": degree}
    if isinstance(kernel, str) and kernel in KERNEL_PARAMS:
        # scikit-learn passes only the parameters the kernel takes (difference 11).
        params.update(
            {
                k: v
                for k, v in named.items()
                if v is not None and k in KERNEL_PARAMS[kernel]
            }
        )
    kw = {}
    if kernel == "laplacian":
        kw["bandwidth"] = 1.0 / gamma if gamma is not None else "median"
    if callable(kernel):
        kw["kernel_convention"] = "pairwise"
    return NystroemSampler(
        kernel=kernel,
        kernel_params=params or None,
        n_components=n_components,
        random_state=random_state,
        **kw,
    )


# scikit-learn's data: 300 x 50 rows that sum to 1.
_rng = np.random.RandomState(0)
X = _rng.random_sample(size=(300, 50))
Y = _rng.random_sample(size=(300, 50))
X /= X.sum(axis=1)[:, np.newaxis]
Y /= Y.sum(axis=1)[:, np.newaxis]
X.flags.writeable = False
Y.flags.writeable = False


def _linear_kernel(x, y):
    return x @ y


# -- RBFSampler ----------------------------------------------------------------


def test_rbf_sampler(global_random_seed):
    # scikit-learn fixes random_state=42; we require every seed (difference 1).
    gamma = 10.0
    kernel = rbf_kernel(X, Y, gamma=gamma)
    transform = rbf_sampler(
        gamma=gamma, n_components=1000, random_state=global_random_seed
    )
    X_trans = transform.fit_transform(X)
    Y_trans = transform.transform(Y)
    error = kernel - X_trans @ Y_trans.T
    assert np.abs(np.mean(error)) <= 0.01  # close to unbiased
    np.abs(error, out=error)
    assert np.max(error) <= 0.1  # nothing too far off
    assert np.mean(error) <= 0.05  # mean is fairly close


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rbf_sampler_fitted_attributes_dtype(dtype):
    # Difference 2: draws stay float64; the output follows the input dtype.
    X_small = np.array([[1, 2], [3, 4], [5, 6]], dtype=dtype)
    rbf = rbf_sampler(n_components=101).fit(X_small)
    assert rbf.random_weights_.dtype == np.float64
    assert rbf.random_offset_.dtype == np.float64  # odd D: one phase (diff. 4)
    assert rbf.transform(X_small).dtype == dtype


def test_rbf_sampler_dtype_equivalence():
    X64 = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float64)
    rbf32 = rbf_sampler(n_components=101, random_state=42).fit(X64.astype(np.float32))
    rbf64 = rbf_sampler(n_components=101, random_state=42).fit(X64)
    # Stronger than scikit-learn's allclose: the same draws exactly.
    np.testing.assert_array_equal(rbf32.random_offset_, rbf64.random_offset_)
    np.testing.assert_array_equal(rbf32.random_weights_, rbf64.random_weights_)


def test_rbf_sampler_data_driven_bandwidth():
    # Difference 3: scikit-learn's gamma="scale" is 1 / (d Var(X)) = 4 here;
    # the median heuristic gives the median pairwise distance, 1.
    rbf = RandomFourierSampler(bandwidth="median").fit([[0.0], [1.0]])
    assert rbf.bandwidth_ == pytest.approx(1.0)


def test_input_validation():
    # Lists and CSR matrices are accepted, and mapped as the array is.
    X_list = [[1, 2], [3, 4], [5, 6]]
    X = np.asarray(X_list, dtype=np.float64)
    expected = rbf_sampler(random_state=0).fit(X).transform(X)
    assert expected.shape == (3, 100)
    for given in (X_list, sp.csr_matrix(X_list)):
        Z = rbf_sampler(random_state=0).fit(given).transform(given)
        np.testing.assert_allclose(Z, expected)


# -- Nystroem ---------------------------------------------------------------------


def test_nystroem_approximation():
    rnd = np.random.RandomState(0)
    X = rnd.uniform(size=(10, 4))

    # With n_components = n_samples this is exact.
    X_transformed = nystroem(n_components=X.shape[0]).fit_transform(X)
    assert_array_almost_equal(X_transformed @ X_transformed.T, rbf_kernel(X))

    trans = nystroem(n_components=2, random_state=rnd)
    assert trans.fit(X).transform(X).shape == (X.shape[0], 2)

    trans = nystroem(n_components=2, kernel=_linear_kernel, random_state=rnd)
    assert trans.fit(X).transform(X).shape == (X.shape[0], 2)

    for kern in kernel_metrics():
        trans = nystroem(n_components=2, kernel=kern, random_state=rnd)
        X_transformed = trans.fit(X).transform(X)
        # Difference 5: one column per positive eigenvalue of K(S, S).
        assert X_transformed.shape == (X.shape[0], trans.eigenvalues_.size)
        assert (trans.eigenvalues_ > 0).all()
        expected = 1 if kern == "additive_chi2" else 2  # not positive definite
        assert X_transformed.shape[1] == expected


def test_nystroem_default_parameters():
    rnd = np.random.RandomState(42)
    X = rnd.uniform(size=(10, 4))
    # rbf: gamma=None means 1 / n_features.
    X_transformed = nystroem(n_components=10).fit_transform(X)
    assert_array_almost_equal(
        rbf_kernel(X, gamma=None), X_transformed @ X_transformed.T
    )
    # chi2: gamma=None means 1.
    X_transformed = nystroem(kernel="chi2", n_components=10).fit_transform(X)
    assert_array_almost_equal(chi2_kernel(X, gamma=1), X_transformed @ X_transformed.T)


def test_nystroem_singular_kernel():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.rand(10, 20)] * 2)  # duplicated samples
    gamma = 100
    N = nystroem(gamma=gamma, n_components=X.shape[0]).fit(X)
    X_transformed = N.transform(X)
    assert_array_almost_equal(
        rbf_kernel(X, gamma=gamma), X_transformed @ X_transformed.T
    )
    assert np.all(np.isfinite(X_transformed))


def test_nystroem_poly_kernel_params():
    rnd = np.random.RandomState(37)
    X = rnd.uniform(size=(10, 4))
    K = polynomial_kernel(X, degree=3.1, coef0=0.1)
    trans = nystroem(
        kernel="polynomial", n_components=X.shape[0], degree=3.1, coef0=0.1
    )
    X_transformed = trans.fit_transform(X)
    assert_array_almost_equal(X_transformed @ X_transformed.T, K)


def test_nystroem_callable():
    rnd = np.random.RandomState(42)
    n_samples = 10
    X = list(rnd.uniform(size=(n_samples, 4)))  # a list: input validation

    def logging_histogram_kernel(x, y, log):
        """Histogram kernel that writes to a log."""
        log.append(1)
        return np.minimum(x, y).sum()

    kernel_log = []
    nystroem(
        kernel=logging_histogram_kernel,
        n_components=n_samples - 1,
        kernel_params={"log": kernel_log},
    ).fit(X)
    # The upper triangle and diagonal of the 9 x 9 landmark matrix.
    assert len(kernel_log) == n_samples * (n_samples - 1) / 2

    # Difference 7: kernel_params reach the callable as given.
    trans = nystroem(kernel=_linear_kernel, kernel_params={"gamma": 1}, n_components=3)
    with pytest.raises(TypeError, match="gamma"):
        trans.fit(X)


def test_nystroem_precomputed_kernel():
    rnd = np.random.RandomState(12)
    X = rnd.uniform(size=(10, 4))
    K = polynomial_kernel(X, degree=2, coef0=0.1)
    X_transformed = nystroem(
        kernel="precomputed", n_components=X.shape[0]
    ).fit_transform(K)
    assert_array_almost_equal(X_transformed @ X_transformed.T, K)
    # Difference 7: kernel parameters are rejected with a precomputed kernel.
    for params in ({"gamma": 1}, {"coef0": 1}, {"degree": 2}):
        trans = nystroem(kernel="precomputed", kernel_params=params)
        with pytest.raises(ValueError, match="kernel_params is not used"):
            trans.fit(K)
    # Difference 10: fewer landmarks than rows.
    trans = nystroem(kernel="precomputed", n_components=4, random_state=0).fit(K)
    X_transformed = trans.transform(K)
    assert X_transformed.shape[0] == 10
    idx = trans.component_indices_
    assert_allclose(X_transformed, trans.transform(K[:, idx]))
    assert_array_almost_equal(  # exact on the landmarks
        X_transformed[idx] @ X_transformed[idx].T, K[np.ix_(idx, idx)]
    )


def test_nystroem_component_indices():
    X, _ = make_classification(n_samples=100, n_features=20, random_state=0)
    trans = nystroem(n_components=10, random_state=0).fit(X)
    assert trans.component_indices_.shape == (10,)
    np.testing.assert_array_equal(trans.components_, X[trans.component_indices_])


@pytest.mark.parametrize("make", [rbf_sampler, nystroem])
def test_get_feature_names_out(make):
    est = make().fit(X)
    X_trans = est.transform(X)
    prefix = type(est).__name__.lower()
    expected = [f"{prefix}{i}" for i in range(X_trans.shape[1])]
    np.testing.assert_array_equal(est.get_feature_names_out(), expected)


def test_unused_kernel_parameter_is_an_error():
    # Difference 11.
    with pytest.raises(ValueError, match="does not take"):
        NystroemSampler(kernel="linear", kernel_params={"gamma": 1.0}).fit(X)

"""Array-API inputs under ``sklearn.set_config(array_api_dispatch=True)``.

array-api-strict (a NumPy-backed reference namespace) runs in every suite, so
the dispatch is checked without a GPU; PyTorch and CuPy run when importable (on
their GPU when there is one).

Arrays in host memory (array-api-strict, PyTorch on the CPU) are computed on by
the NumPy/numba engine: on the same seed their features, statistics and
p-values must equal the NumPy path's bit for bit, and fitted arrays and outputs
live in the input's namespace.

Device arrays (CuPy, PyTorch on a GPU) take the namespace code, which
array-api-strict also runs here with the host engine switched off
("array_api_strict-namespace"), so CI checks the code GPUs run. That code
evaluates cos/sin and sums in the namespace, so results agree within 10 x the
dtype's eps of their scale (features: the largest feature; statistics: the
kernel's scale 1, see test_two_sample_tests_match_numpy), p-values identical.
With array-api-strict the arithmetic is NumPy's, so the Gaussian Nystroem map,
whose ``K(S, S)`` eigendecomposition amplifies any round-off difference by
``1 / sqrt(eigenvalue)``, must be computed by the same code in both paths to
pass; that is what the test checks.

The environment variable ``SCIPY_ARRAY_API=1`` that scikit-learn's dispatch
needs is set in ``tests/conftest.py``, before scipy is imported.

PyTorch and CuPy have their own matrix products and reductions, so their
round-off differs from NumPy's: Fourier features still agree within 10 eps,
but the Nystroem map amplifies a round-off difference ``delta`` in the kernel
values by up to ``1 / sqrt(w_min / w_max)``, and eigenvalues are kept down to
``w_min ~ (eps / s) w_max`` (``NystroemSampler``'s cutoff): with those
namespaces on a device Nystroem features are compared through their Gram
matrix, and Nystroem statistics, at ``sqrt(eps)``.
"""

import importlib

import numpy as np
import pytest
import sklearn
from sklearn.base import clone

from skmmd import (
    AggregatedMMDTest,
    FastfoodSampler,
    MMDTest,
    NormalizedRandomFourierSampler,
    NystroemSampler,
    RandomFourierSampler,
)
from skmmd._utils import _array_api


def _strict():
    xp = pytest.importorskip("array_api_strict")
    return xp, xp.Device("CPU_DEVICE")


def _torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    return torch, "cuda" if torch.cuda.is_available() else "cpu"


def _cupy():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - any CUDA failure means no device
        pytest.skip("CuPy is installed but finds no CUDA device")
    return importlib.import_module("cupy"), None


NAMESPACES = {
    "array_api_strict": _strict,
    "array_api_strict-namespace": _strict,
    "torch": _torch,
    "cupy": _cupy,
}


class Backend(tuple):
    """``(xp, device)``, and whether the NumPy engine computes on its arrays
    (host arrays with the engine on): then results are the NumPy path's bits."""

    numpy_engine: bool


@pytest.fixture(params=list(NAMESPACES))
def xp_device(request, monkeypatch):
    backend = Backend(NAMESPACES[request.param]())
    backend.numpy_engine = request.param == "array_api_strict" or (
        request.param == "torch" and backend[1] == "cpu"
    )
    if request.param.endswith("-namespace"):
        monkeypatch.setattr(_array_api, "HOST_ENGINE", False)
    return backend


def _namespace_of(a):
    name = type(a).__module__.split(".")[0]
    return {"array_api_strict": "array_api_strict"}.get(name, name)


def _to_numpy(a):
    if hasattr(a, "get"):  # cupy
        return a.get()
    if hasattr(a, "cpu"):  # torch
        return a.cpu().numpy()
    return np.from_dlpack(a)


def _same_arithmetic(xp_device):
    """array-api-strict computes with NumPy: the same round-off."""
    return xp_device[0].__name__ == "array_api_strict"


def _numpy_engine(xp_device):
    return xp_device.numpy_engine


def _on(xp_device, A):
    xp, device = xp_device
    if device is None:  # CuPy's own asarray takes no device: its current one
        return xp.asarray(A)
    return xp.asarray(A, device=device)


def assert_features_equal(Z_xp, Z_np, dtype):
    Z = _to_numpy(Z_xp)
    assert Z.dtype == Z_np.dtype == dtype
    assert Z.shape == Z_np.shape
    scale = np.abs(Z_np).max()
    np.testing.assert_allclose(Z, Z_np, rtol=0, atol=10 * np.finfo(dtype).eps * scale)


SAMPLERS = [
    RandomFourierSampler(n_components=64, random_state=0),
    RandomFourierSampler(n_components=33, feature="cos_phase", random_state=0),
    RandomFourierSampler(n_components=33, kernel="laplacian", random_state=0),
    NormalizedRandomFourierSampler(n_components=64, random_state=0),
    NystroemSampler(n_components=60, random_state=0),
    NystroemSampler(n_components=60, kernel="rbf", random_state=0),
    NystroemSampler(
        n_components=60, kernel="poly", kernel_params={"degree": 3}, random_state=0
    ),
    NystroemSampler(n_components=60, landmarks="kmeans", random_state=0),
    NystroemSampler(n_components=60, landmarks="leverage", random_state=0),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sampler", SAMPLERS, ids=repr)
def test_sampler_matches_numpy(xp_device, sampler, dtype):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(700, 4)).astype(dtype)
    X_new = rng.normal(size=(50, 4)).astype(dtype)
    reference = clone(sampler).fit(X)
    with sklearn.config_context(array_api_dispatch=True):
        fitted = clone(sampler).fit(_on(xp_device, X))
        Z_xp = fitted.transform(_on(xp_device, X_new))
    assert _namespace_of(Z_xp) == _namespace_of(_on(xp_device, X))
    Z_np = reference.transform(X_new)
    if _numpy_engine(xp_device):
        np.testing.assert_array_equal(_to_numpy(Z_xp), Z_np, strict=True)
    elif isinstance(sampler, NystroemSampler) and not _same_arithmetic(xp_device):
        Z = _to_numpy(Z_xp).astype(np.float64)
        G, G_np = Z @ Z.T, Z_np.astype(np.float64) @ Z_np.T
        np.testing.assert_allclose(G, G_np, rtol=0, atol=np.sqrt(np.finfo(dtype).eps))
    else:
        assert_features_equal(Z_xp, Z_np, dtype)
    # Fitted arrays live in the input's namespace; scalars stay floats.
    for name in fitted.ARRAY_API_ATTRIBUTES:
        value = getattr(fitted, name)
        if value is not None:
            assert _namespace_of(value) == _namespace_of(Z_xp), name
    assert fitted.bandwidth_ == reference.bandwidth_
    if isinstance(sampler, NystroemSampler):
        assert _namespace_of(fitted.components_) == _namespace_of(Z_xp)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kernel", ["laplacian", "cosine"])
def test_nystroem_laplacian_and_cosine(xp_device, kernel, dtype):
    # One namespace-generic implementation of each kernel serves both paths,
    # so with NumPy's arithmetic the features agree within 10 eps, like the
    # Gaussian's; other namespaces round differently, and the
    # 1 / sqrt(eigenvalue) amplification cancels in the Gram matrix.
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(300, 3)).astype(dtype)
    sampler = NystroemSampler(kernel=kernel, n_components=40, random_state=0)
    Z_np = clone(sampler).fit_transform(X)
    with sklearn.config_context(array_api_dispatch=True):
        Z_xp = clone(sampler).fit_transform(_on(xp_device, X))
    if _numpy_engine(xp_device):
        np.testing.assert_array_equal(_to_numpy(Z_xp), Z_np, strict=True)
    elif _same_arithmetic(xp_device):
        assert_features_equal(Z_xp, Z_np, dtype)
    else:
        Z = _to_numpy(Z_xp).astype(np.float64)
        G, G_np = Z @ Z.T, Z_np.astype(np.float64) @ Z_np.T
        np.testing.assert_allclose(G, G_np, rtol=0, atol=np.sqrt(np.finfo(dtype).eps))


TESTS = [
    MMDTest(
        RandomFourierSampler(n_components=64, random_state=0),
        n_resamples=199,
        random_state=0,
    ),
    MMDTest(
        NystroemSampler(n_components=50, random_state=0),
        n_resamples=199,
        resample_unit=4,
        random_state=0,
    ),
    MMDTest(
        RandomFourierSampler(n_components=64, random_state=0),
        calibration="bootstrap",
        n_resamples=199,
        random_state=0,
    ),
    AggregatedMMDTest(n_components=32, n_bandwidths=3, n_resamples=199, random_state=0),
]


def _two_samples(dtype, shift=0.2):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 3)).astype(dtype)
    Y = (rng.normal(size=(450, 3)) + shift).astype(dtype)
    return X, Y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("test", TESTS, ids=lambda t: type(t).__name__)
def test_two_sample_tests_match_numpy(xp_device, test, dtype):
    X, Y = _two_samples(dtype)
    reference = clone(test).fit(X, Y)
    with sklearn.config_context(array_api_dispatch=True):
        fitted = clone(test).fit(_on(xp_device, X), _on(xp_device, Y))
    eps = 10 * float(np.finfo(dtype).eps)
    nystroem = isinstance(getattr(test, "transformer", None), NystroemSampler)
    if nystroem and not _same_arithmetic(xp_device):
        eps = float(np.sqrt(np.finfo(dtype).eps))
    assert fitted.p_value_ == reference.p_value_
    if _numpy_engine(xp_device):
        for name in ("statistic_", "statistics_", "p_values_", "null_distribution_"):
            if hasattr(reference, name):
                np.testing.assert_array_equal(
                    getattr(fitted, name), getattr(reference, name), strict=True
                )
    if isinstance(test, AggregatedMMDTest):
        np.testing.assert_allclose(
            fitted.statistics_, reference.statistics_, rtol=eps, atol=eps
        )
        np.testing.assert_array_equal(fitted.p_values_, reference.p_values_)
        maps = fitted.transformers_
    else:
        assert fitted.statistic_ == pytest.approx(
            reference.statistic_, rel=eps, abs=eps
        )
        maps = [fitted.transformer_]
    # A statistic is a difference of mean kernel values of order 1 (these
    # kernels are at most 1), so one ulp of those is the scale of its
    # round-off near 0: statistics agree within 10 eps relative, or 10 eps of
    # the kernel scale when they are small (under H0).
    np.testing.assert_allclose(
        fitted.null_distribution_, reference.null_distribution_, rtol=0, atol=eps
    )
    for sampler in maps:
        name = sampler.ARRAY_API_ATTRIBUTES[0]
        assert _namespace_of(getattr(sampler, name)) == _namespace_of(_on(xp_device, X))


def test_pooled_labels_witness_and_score(xp_device):
    X, Y = _two_samples(np.float64)
    pooled = np.vstack([X, Y])
    labels = np.repeat([0, 1], [X.shape[0], Y.shape[0]])
    test = MMDTest(
        RandomFourierSampler(n_components=32, random_state=0),
        n_resamples=99,
        random_state=0,
    )
    reference = clone(test).fit(X, Y)
    # The NumPy engine gives the NumPy path's bits; the namespace code rounds.
    tol = 0.0 if _numpy_engine(xp_device) else 1e-14
    with sklearn.config_context(array_api_dispatch=True):
        P = _on(xp_device, pooled)
        for y in (labels, _on(xp_device, labels)):  # NumPy or device labels
            fitted = clone(test).fit(P, y)
            assert fitted.statistic_ == pytest.approx(
                reference.statistic_, rel=tol, abs=tol
            )
            assert fitted.p_value_ == reference.p_value_
        witness = fitted.witness(_on(xp_device, X[:20]))
        score = fitted.score(P, labels)
    assert _namespace_of(witness) == _namespace_of(P)
    np.testing.assert_allclose(
        _to_numpy(witness), reference.witness(X[:20]), rtol=0, atol=tol
    )
    assert score == pytest.approx(reference.score(pooled, labels), rel=100 * tol)


def test_exact_test_and_partial_fit(xp_device):
    X, Y = _two_samples(np.float64)
    exact = MMDTest(None, bandwidth=1.0, n_resamples=99, random_state=0)
    sampler = RandomFourierSampler(bandwidth=1.0, n_components=32, random_state=0)
    expected = MMDTest(sampler, n_resamples=99, random_state=0).fit(X, Y)
    with sklearn.config_context(array_api_dispatch=True):
        # The quadratic exact test runs with NumPy, on a host copy.
        fitted = clone(exact).fit(_on(xp_device, X), _on(xp_device, Y))
        assert fitted.statistic_ == clone(exact).fit(X, Y).statistic_
        # A map fitted on the device is used as given: the stream's results
        # equal those of fit (fixed bandwidth and seed: the same map).
        on_device = clone(sampler).fit(_on(xp_device, X))
        test = MMDTest(on_device, n_resamples=99, random_state=0)
        for lo, hi in ((0, 100), (100, 500)):
            test.partial_fit(_on(xp_device, X[lo:hi]), _on(xp_device, Y[lo:hi]))
        assert test.n_train_ == 0
        assert test.statistic_ == pytest.approx(expected.statistic_, rel=1e-12)
        assert test.p_value_ == expected.p_value_
    # The test's map is a copy in the namespace; the user's map is untouched.
    namespace = _namespace_of(_on(xp_device, X))
    for sampler in (test.transformer_, on_device):
        assert _namespace_of(sampler.random_weights_) == namespace
    assert test.transformer_ is not on_device


def test_without_dispatch_numpy_path_is_unchanged():
    # NumPy input under dispatch takes the NumPy path: same bits, NumPy
    # attributes, NumPy output.
    X = np.random.default_rng(0).normal(size=(200, 3))
    for sampler in (
        RandomFourierSampler(n_components=16, random_state=0),
        NystroemSampler(n_components=20, random_state=0),
    ):
        Z = clone(sampler).fit_transform(X)
        with sklearn.config_context(array_api_dispatch=True):
            fitted = clone(sampler).fit(X)
            Z_dispatch = fitted.transform(X)
        assert isinstance(Z_dispatch, np.ndarray)
        np.testing.assert_array_equal(Z_dispatch, Z)
        assert isinstance(getattr(fitted, fitted.ARRAY_API_ATTRIBUTES[0]), np.ndarray)


def test_errors():
    xp, _ = _strict()
    X = np.random.default_rng(0).normal(size=(50, 3))
    with sklearn.config_context(array_api_dispatch=True):
        X_xp = xp.asarray(X)
        with pytest.raises(TypeError, match="FastfoodSampler computes with NumPy"):
            FastfoodSampler(n_components=16).fit(X_xp)
        with pytest.raises(TypeError, match="vector kernels only"):
            NystroemSampler(kernel=lambda A, B: A @ B.T).fit(X_xp)
        with pytest.raises(TypeError, match="vector kernels only"):
            NystroemSampler(kernel="precomputed").fit(xp.asarray(X @ X.T))
        fitted = RandomFourierSampler(n_components=8).fit(X_xp)
        with pytest.raises(ValueError, match="must use the same namespace"):
            fitted.transform(X)


def test_autograd_tensor_error():
    # A CPU tensor that requires grad cannot be viewed by NumPy: the error
    # names the parameter and says why.
    torch, _ = _torch()
    X = torch.randn(50, 3, requires_grad=True)
    test = MMDTest(RandomFourierSampler(n_components=8), n_resamples=9)
    with sklearn.config_context(array_api_dispatch=True):
        with pytest.raises(TypeError, match="X is in host memory.*detach"):
            RandomFourierSampler(n_components=8).fit(X)
        with pytest.raises(TypeError, match="X is in host memory.*detach"):
            test.fit(X, torch.randn(40, 3))


def test_predict_explain_and_witness_points(xp_device):
    # Every method of a fitted test takes the namespace's arrays: predict
    # returns labels in it; explain and witness_points (pandas reports)
    # compute with NumPy, on host copies of device arrays.
    X, Y = _two_samples(np.float64, shift=1.0)
    test = MMDTest(
        RandomFourierSampler(n_components=32, random_state=0),
        n_resamples=99,
        random_state=0,
    )
    reference = clone(test).fit(X, Y)
    with sklearn.config_context(array_api_dispatch=True):
        fitted = clone(test).fit(_on(xp_device, X), _on(xp_device, Y))
        labels = fitted.predict(_on(xp_device, X[:30]))
        report = fitted.explain(_on(xp_device, X), _on(xp_device, Y))
        points = fitted.witness_points(_on(xp_device, X), _on(xp_device, Y))
    assert _namespace_of(labels) == _namespace_of(_on(xp_device, X))
    np.testing.assert_array_equal(_to_numpy(labels), reference.predict(X[:30]))
    expected = reference.explain(X, Y), reference.witness_points(X, Y)
    if _numpy_engine(xp_device):
        assert report.equals(expected[0])
        assert points.equals(expected[1])
    else:
        assert report["column"].tolist() == expected[0]["column"].tolist()
        np.testing.assert_allclose(report["statistic"], expected[0]["statistic"])
        assert points["row"].tolist() == expected[1]["row"].tolist()
        np.testing.assert_allclose(points["witness"], expected[1]["witness"])


def test_accelerator_chunks_and_their_results(monkeypatch):
    # On an accelerator a chunk holds DEVICE_CHUNK_ENTRIES features (each
    # chunk costs a validation and kernel launches); on a CPU device the
    # host's CHUNK_ENTRIES. Cut into many chunks, the result is the same.
    from skmmd._inference._engines import DeviceRows
    from skmmd._utils import _budgets

    xp = pytest.importorskip("array_api_strict")
    accelerator = DeviceRows(xp, xp.Device("device1"))
    host = DeviceRows(xp, xp.Device("CPU_DEVICE"))
    assert accelerator.chunk_rows([], [1024]) == _budgets.DEVICE_CHUNK_ENTRIES // 1024
    assert host.chunk_rows([], [1024]) == _budgets.CHUNK_ENTRIES // 1024
    X, Y = _two_samples(np.float64)
    test = MMDTest(
        RandomFourierSampler(n_components=32, random_state=0), random_state=0
    )
    reference = clone(test).fit(X, Y)
    monkeypatch.setattr(_budgets, "DEVICE_CHUNK_ENTRIES", 32 * 37)  # 37 rows
    on = (xp, xp.Device("device1"))
    with sklearn.config_context(array_api_dispatch=True):
        fitted = clone(test).fit(_on(on, X), _on(on, Y))
    assert fitted.p_value_ == reference.p_value_
    assert fitted.statistic_ == pytest.approx(reference.statistic_, rel=1e-12)

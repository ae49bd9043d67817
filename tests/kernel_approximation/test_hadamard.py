import functools

import numpy as np
import pytest
from scipy.linalg import hadamard

from skmmd.kernel_approximation._hadamard import _CHUNK, fwht


def fwht_reference(X):
    """Pure-numpy Walsh-Hadamard transform of the rows (Sylvester order).

    Stage with stride h: view each row as (d / 2h, 2, h) and replace the pair
    (a, b) by (a + b, a - b).
    """
    Y = np.array(X, dtype=X.dtype, copy=True)
    n, d = Y.shape
    h = 1
    while h < d:
        V = Y.reshape(n, d // (2 * h), 2, h)
        a = V[:, :, 0, :].copy()
        V[:, :, 0, :] += V[:, :, 1, :]
        V[:, :, 1, :] = a - V[:, :, 1, :]
        h *= 2
    return Y


@functools.lru_cache(maxsize=4)
def _int8_hadamard(d):
    # int8: 256 MiB at d = 2^14 instead of 2 GiB; built once for all seeds.
    return hadamard(d, dtype=np.int8)


def hadamard_columns(X, d, columns):
    """``(X @ scipy.linalg.hadamard(d))[:, columns]`` in float64."""
    H = _int8_hadamard(d)[:, columns].astype(np.float64)
    return X.astype(np.float64) @ H


def rounding_tolerance(X):
    """Bound on the round-off of a log2(d)-deep tree of sums: each stage adds a
    relative error of at most eps to partial sums bounded by ||x||_1, so
    |error| <= log2(d) eps ||x||_1 per row (plus eps64 terms of the float64
    reference, covered by the factor 2)."""
    d = X.shape[1]
    eps = np.finfo(X.dtype).eps
    l1 = np.abs(X.astype(np.float64)).sum(axis=1, keepdims=True)
    return 2 * max(np.log2(d), 1) * eps * l1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("log2_d", range(15))
def test_fwht_matches_scipy_hadamard(log2_d, dtype, global_random_seed):
    d = 2**log2_d
    rng = np.random.default_rng(global_random_seed)
    X = rng.normal(size=(3, d)).astype(dtype)
    # Every column up to 2^12; above, 512 random ones (a wrong stage shows in
    # all columns, and test_fwht_matches_reference checks every column there).
    columns = np.arange(d) if d <= 4096 else np.sort(rng.choice(d, 512, replace=False))
    expected = hadamard_columns(X, d, columns)
    Y = X.copy()
    out = fwht(Y)
    assert out is Y  # in place
    assert Y.dtype == dtype
    Y = Y[:, columns]
    assert np.all(np.abs(Y - expected) <= rounding_tolerance(X))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 2, 4, 8, 16, 64, 512, _CHUNK, 4 * _CHUNK])
def test_fwht_matches_reference(d, dtype, global_random_seed):
    # Many rows: exercises the parallel loop; d around the L1 chunk size
    # exercises both the chunked small strides and the whole-row large ones.
    rng = np.random.default_rng(global_random_seed)
    X = rng.normal(size=(97, d)).astype(dtype)
    expected = fwht_reference(X.astype(np.float64))
    assert np.all(np.abs(fwht(X.copy()) - expected) <= rounding_tolerance(X))


@pytest.mark.parametrize("d", [1, 2, 8, 64])
def test_reference_matches_scipy_hadamard(d):
    X = np.random.default_rng(0).normal(size=(4, d))
    np.testing.assert_allclose(fwht_reference(X), X @ hadamard(d), atol=1e-12)


def test_fwht_involution():
    # H H = d I: transforming twice scales by d.
    X = np.random.default_rng(0).normal(size=(5, 1024))
    np.testing.assert_allclose(fwht(fwht(X.copy())), 1024 * X, rtol=1e-12)


def test_fwht_errors():
    with pytest.raises(ValueError, match="power-of-two number of columns; got 6"):
        fwht(np.zeros((2, 6)))
    with pytest.raises(ValueError, match="power-of-two number of columns; got 0"):
        fwht(np.zeros((2, 0)))
    with pytest.raises(ValueError, match="2-D numpy array"):
        fwht(np.zeros(8))
    with pytest.raises(ValueError, match="2-D numpy array; got list"):
        fwht([[1.0, 2.0]])
    with pytest.raises(TypeError, match="float32 or float64; got dtype int64"):
        fwht(np.zeros((2, 8), dtype=np.int64))
    with pytest.raises(ValueError, match="C-contiguous"):
        fwht(np.zeros((8, 8))[:, ::2])
    with pytest.raises(ValueError, match="C-contiguous"):
        fwht(np.zeros((8, 8), order="F"))
    read_only = np.zeros((2, 8))
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        fwht(read_only)

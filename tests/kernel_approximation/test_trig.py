"""The compiled cos/sin kernels against numpy's ufuncs (the reference)."""

import numpy as np
import pytest

from skmmd.kernel_approximation import _trig

ARGUMENTS = {
    "moderate": np.random.default_rng(0).normal(size=(300, 64)) * 30,
    # Mixes the fast reduction and the libm fall-back beyond 2**29.
    "huge": np.random.default_rng(1).uniform(-2e9, 2e9, size=(50, 64)),
    # A few huge entries in every seventh row: rows without one skip the
    # fall-back, rows with one must take it.
    "few_huge": np.where(
        (np.arange(70)[:, None] % 7 == 0) & (np.arange(64) == 5),
        3e9,
        np.random.default_rng(4).normal(size=(70, 64)),
    ),
    "special": np.array(
        [[0.0, -0.0, np.pi / 2, -np.pi, np.pi / 4, 2.0**29, 2.0**29 + 1, 1e300, 5e-320]]
    ),
}


def _arguments(name, dtype):
    P = ARGUMENTS[name]
    representable = np.abs(P).max(axis=0) < np.finfo(dtype).max
    return P[:, representable].astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ARGUMENTS)
def test_cos_sin_matches_numpy(name, dtype):
    P = _arguments(name, dtype)
    L = P.shape[1]
    out = np.empty((P.shape[0], 2 * L), dtype=dtype)
    _trig.cos_sin(P, 0.5, out)
    # A few ulps of the result (values in [-1, 1]).
    atol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(out[:, :L], 0.5 * np.cos(P), rtol=0, atol=atol)
    np.testing.assert_allclose(out[:, L:], 0.5 * np.sin(P), rtol=0, atol=atol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ARGUMENTS)
def test_cos_phase_matches_numpy(name, dtype):
    P = _arguments(name, dtype)
    offset = np.random.default_rng(2).uniform(0, 2 * np.pi, P.shape[1]).astype(dtype)
    out = np.empty_like(P)
    _trig.cos_phase(P, offset, 2.0, out)
    expected = 2.0 * np.cos(P + offset)
    np.testing.assert_allclose(out, expected, rtol=0, atol=8 * np.finfo(dtype).eps)


def test_parallel_and_serial_kernels_agree():
    P = np.random.default_rng(3).normal(size=(600, 256)) * 10  # above the threshold
    assert P.size >= _trig._PARALLEL_MIN_SIZE
    serial, parallel = _trig._COS_SIN
    a = np.empty((600, 512))
    b = np.empty((600, 512))
    serial(P, 1.0, a, _trig.SINCOS_CONSTANTS)
    parallel(P, 1.0, b, _trig.SINCOS_CONSTANTS)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_pairs, L", [(64, 64), (0, 64), (31, 33)])
def test_project_trig_equals_product_then_kernels(dtype, n_pairs, L):
    # Small integers times multiples of 2^-8: X @ W is exact in both dtypes,
    # however BLAS blocks it, so the one-pass path must match the two-pass
    # one bit for bit (several blocks, the last one short).
    rng = np.random.default_rng(5)
    n = 5001
    X = rng.integers(-3, 4, size=(n, 5)).astype(dtype)
    W = (rng.integers(-512, 513, size=(5, L)) / 2**8).astype(dtype)
    offset = rng.uniform(0, 2 * np.pi, L - n_pairs).astype(dtype)
    assert n > 2 * _trig._PROJECT_TILE_ENTRIES // L
    out = np.full((n, L + n_pairs), np.nan, dtype=dtype)
    _trig.project_trig(X, W, n_pairs, offset if L > n_pairs else None, 0.5, out)
    P = X @ W
    expected = np.empty_like(out)
    if n_pairs:
        _trig.cos_sin(
            np.ascontiguousarray(P[:, :n_pairs]), 0.5, expected[:, : 2 * n_pairs]
        )
    if L > n_pairs:
        phase = np.empty((n, L - n_pairs), dtype=dtype)
        _trig.cos_phase(np.ascontiguousarray(P[:, n_pairs:]), offset, 0.5, phase)
        expected[:, 2 * n_pairs :] = phase
    np.testing.assert_array_equal(out, expected)

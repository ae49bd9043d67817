"""The fused per-group feature sums against transform-then-sum (the reference)."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from skmmd import (
    FastfoodSampler,
    MMDTest,
    NormalizedRandomFourierSampler,
    RandomFourierSampler,
)
from skmmd.kernel_approximation import _grouped

EPS32 = np.finfo(np.float32).eps


def _reference(transformer, X, groups, n_groups):
    """transform, then sum in float64 (the path without the fused kernel)."""
    Z = transformer.transform(X).astype(np.float64)
    S = np.zeros((n_groups, Z.shape[1]))
    np.add.at(S, groups, Z)
    q = np.bincount(groups, weights=np.einsum("ij,ij->i", Z, Z), minlength=n_groups)
    return S, q


def _samplers(D):
    return {
        "rff_cos_sin": RandomFourierSampler(bandwidth=2.0, n_components=D),
        "rff_cos_phase": RandomFourierSampler(
            bandwidth=2.0, n_components=D, feature="cos_phase"
        ),
        "rff_laplacian": RandomFourierSampler(
            kernel="laplacian", bandwidth=3.0, n_components=D
        ),
        "fastfood_cos_sin": FastfoodSampler(bandwidth=2.0, n_components=D),
        "fastfood_cos_phase": FastfoodSampler(
            bandwidth=2.0, n_components=D, feature="cos_phase"
        ),
    }


def _layouts(rng, n):
    """Unit layouts: random groups (some empty), one group, groups larger than
    a tile, one row per group, and groups of one tile beside one of many."""
    return {
        "random": (rng.integers(0, 40, n), 45),
        "mixed": (np.where(rng.random(n) < 0.5, 0, rng.integers(1, 30, n)), 30),
        "one_group": (np.zeros(n, dtype=np.int64), 1),
        "large_groups": (rng.permutation(n) % 3, 3),
        "singletons": (rng.permutation(n), n),
    }


def _float32_bound(name, transformer, X, groups, n_groups):
    """Per-entry bound on |fused - reference| for float32 input.

    RFF projections may round differently in the two paths (float64 in the
    kernel, or BLAS blocks of other shapes): error at most
    ``gamma_d sum_k |x_k| |w_kj|`` each, ``gamma_d = d eps / (1 - d eps)``,
    which moves cos/sin by as much; float32 cos/sin add at most 4 eps (a few
    ulps of values in [-1, 1]) and the rounding of the feature one more.
    Fastfood projects the same float32 values row by row in both paths.
    Phase columns add the float32 rounding of ``p + offset``, at most
    ``eps (|p| + 2 pi)``. Summed over each group's rows, times the scale
    ``sqrt(2 / D)``.
    """
    D = transformer.n_components
    n_pairs = D // 2 if transformer.feature == "cos_sin" else 0
    per_row = np.full((X.shape[0], D), 6 * EPS32)
    if name.startswith("rff"):
        d = X.shape[1]
        gamma = d * EPS32 / (1 - d * EPS32)
        W = np.abs(transformer.random_weights_.astype(np.float32)).astype(np.float64)
        size = abs(X).astype(np.float64) @ W  # >= |p|
        proj = gamma * size
    else:
        size = np.abs(transformer._project(X.astype(np.float64)))
        proj = 0 * size
    per_row += np.hstack([proj[:, :n_pairs], proj])
    per_row[:, 2 * n_pairs :] += EPS32 * (size[:, n_pairs:] + 2 * np.pi)
    per_row *= np.sqrt(2.0 / D)
    S_bound = np.zeros((n_groups, D))
    np.add.at(S_bound, groups, per_row)
    # |a^2 - b^2| <= 2 |a| |a - b| + |a - b|^2, |a| <= sqrt(2 / D).
    q_bound = np.bincount(
        groups,
        weights=(2 * np.sqrt(2.0 / D) * per_row + per_row**2).sum(axis=1),
        minlength=n_groups,
    )
    return S_bound, q_bound


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("d", [5, 40])
@pytest.mark.parametrize("D", [64, 33])
@pytest.mark.parametrize("name", list(_samplers(8)))
def test_fused_sums_equal_transform_then_sum(
    rng, monkeypatch, name, D, d, sparse, dtype
):
    # Small calls so that a group's rows span several of them.
    monkeypatch.setattr(_grouped, "_TILE_ENTRIES", 2**9)
    n = 700
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d)
    if sparse:
        X[rng.random(X.shape) < 0.7] = 0.0
        X = sp.csr_matrix(X)
    X = X.astype(dtype)
    transformer = _samplers(D)[name].set_params(random_state=rng.integers(1000))
    transformer.fit(X)
    for layout, (groups, n_groups) in _layouts(rng, n).items():
        S, q = transformer.grouped_sums(X, groups, n_groups)
        S_ref, q_ref = _reference(transformer, X, groups, n_groups)
        assert S.dtype == q.dtype == np.float64
        assert S.shape == (n_groups, D) and q.shape == (n_groups,)
        counts = np.bincount(groups, minlength=n_groups)
        if dtype == np.float64:
            # Relative 1e-12 of each group's scale (its row count: features
            # and squared norms are at most 1 per row), not of sums that
            # happen to cancel.
            S_bound = 1e-12 * np.maximum(counts, 1)[:, None]
            q_bound = 1e-12 * np.maximum(counts, 1)
        else:
            S_bound, q_bound = _float32_bound(name, transformer, X, groups, n_groups)
        assert np.all(np.abs(S - S_ref) <= S_bound), layout
        assert np.all(np.abs(q - q_ref) <= q_bound), layout
        assert np.all(S[counts == 0] == 0) and np.all(q[counts == 0] == 0)


def test_fused_sums_with_huge_arguments(rng):
    # Projections beyond 2**29 go through libm, as transform does; rows of
    # ordinary size in between skip that fix-up.
    X = rng.normal(size=(300, 3))
    X[::2] *= 1e9
    rff = RandomFourierSampler(bandwidth=1.0, n_components=65, random_state=0)
    rff.fit(X)
    size = np.abs(X) @ np.abs(rff.random_weights_)
    assert size.max() > 2.0**29
    groups = rng.integers(0, 7, 300)
    S, q = rff.grouped_sums(X, groups, 7)
    S_ref, q_ref = _reference(rff, X, groups, 7)
    # The two projections may round differently (row loop vs BLAS), by at
    # most 3 eps sum_k |x_k w_kj| (d = 3), which cos/sin pass on; plus a few
    # ulps of cos/sin. Summed per group, times the scale.
    eps = np.finfo(np.float64).eps
    per_row = np.sqrt(2.0 / 65) * (3 * eps * size + 4 * eps)
    per_row = np.hstack([per_row[:, :32], per_row])
    bound = np.zeros((7, 65))
    np.add.at(bound, groups, per_row)
    assert np.all(np.abs(S - S_ref) <= bound)
    # |a^2 - b^2| <= 2 |a| |a - b| + |a - b|^2, |a| <= sqrt(2 / D).
    q_bound = np.bincount(
        groups, (2 * np.sqrt(2.0 / 65) * per_row + per_row**2).sum(axis=1), 7
    )
    assert np.all(np.abs(q - q_ref) <= q_bound + 1e-12 * 300)


@pytest.mark.parametrize("n_pairs", [24, 0])
def test_fused_sums_beyond_fast_reduction_are_libm(rng, n_pairs):
    # Exact projections (one feature, few mantissa bits), far beyond where the
    # fast reduction holds, in every other row: the sums must be libm's.
    L = 24
    X = np.where(np.arange(64) % 2 == 0, 2.0**45, 1.0).reshape(-1, 1)
    W = rng.integers(1, 1000, size=(1, L)) / 8.0
    offset = rng.uniform(0, 2 * np.pi, L - n_pairs)
    groups = rng.integers(0, 5, 64)
    S, q = _grouped.trig_group_sums(
        X,
        groups,
        5,
        n_components=L + n_pairs,
        n_pairs=n_pairs,
        weights=W,
        offset=offset,
    )
    P = X @ W
    Z = np.hstack([np.cos(P[:, :n_pairs]), np.sin(P[:, :n_pairs])])
    Z = np.sqrt(2.0 / (L + n_pairs)) * np.hstack([Z, np.cos(P[:, n_pairs:] + offset)])
    S_ref = np.zeros_like(S)
    np.add.at(S_ref, groups, Z)
    # A few ulps of cos/sin per row, summed over at most 64 rows.
    assert np.abs(S - S_ref).max() <= 64 * 4 * np.finfo(np.float64).eps
    q_ref = np.bincount(groups, (Z * Z).sum(axis=1), 5)
    np.testing.assert_allclose(q, q_ref, rtol=1e-13)


@pytest.fixture
def set_numba_threads():
    """``numba.set_num_threads`` for one test: the number of threads it found
    is restored after it."""
    before = numba.get_num_threads()
    yield numba.set_num_threads
    numba.set_num_threads(before)


@pytest.mark.parametrize("name", ["rff_cos_sin", "fastfood_cos_phase"])
def test_fused_sums_do_not_depend_on_threads(rng, name, set_numba_threads):
    # Tiles are summed in row order and merged in order: bit-identical for
    # any number of threads.
    X = rng.normal(size=(5000, 6))
    transformer = _samplers(128)[name].set_params(random_state=0).fit(X)
    groups = rng.integers(0, 50, 5000)
    results = []
    for threads in range(1, numba.config.NUMBA_NUM_THREADS + 1):
        set_numba_threads(threads)
        results.append(transformer.grouped_sums(X, groups, 50))
    for S, q in results[1:]:
        assert np.array_equal(S, results[0][0]) and np.array_equal(q, results[0][1])


def test_normalized_sampler_has_no_fused_path():
    # Normalization needs whole feature rows: the pipeline sums transform.
    assert NormalizedRandomFourierSampler().grouped_sums is None


def test_fused_sums_validate_their_input(rng):
    rff = RandomFourierSampler(n_components=16, random_state=0).fit(
        rng.normal(size=(20, 3))
    )
    with pytest.raises(ValueError, match="3 features"):
        rff.grouped_sums(rng.normal(size=(5, 4)), np.zeros(5, dtype=int), 1)


@pytest.mark.parametrize("calibration", ["permutation", "bootstrap"])
@pytest.mark.parametrize(
    "sampler", [RandomFourierSampler, FastfoodSampler], ids=["rff", "fastfood"]
)
def test_mmd_test_same_with_and_without_fused_path(
    rng, monkeypatch, sampler, calibration
):
    X = rng.normal(size=(3000, 4))
    Y = rng.normal(size=(2500, 4)) + 0.05

    def run():
        return MMDTest(
            sampler(n_components=128, random_state=0),
            calibration=calibration,
            n_resamples=199,
            random_state=1,
        ).fit(X, Y)

    fused = run()
    monkeypatch.setattr(sampler, "grouped_sums", None)
    plain = run()
    assert fused.statistic_ == pytest.approx(plain.statistic_, rel=1e-12)
    assert fused.p_value_ == plain.p_value_
    np.testing.assert_allclose(
        fused.null_distribution_, plain.null_distribution_, rtol=1e-9, atol=1e-15
    )

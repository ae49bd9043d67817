"""The two-sample resampled statistics (skmmd/two_sample/_resampled.py): the
null against brute force on the same draws (permutation and bootstrap, from
feature sums and from kernel sums), units, batches and jobs, Gram rows in
blocks, the per-column sums, and the level of the exact bootstrap test in high
dimension."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel
from sklearn.preprocessing import FunctionTransformer
from threadpoolctl import threadpool_limits

from skmmd import MMDTest
from skmmd._inference._calibration import p_value, resample_batches
from skmmd._inference._streaming import Stream
from skmmd._utils import _budgets
from skmmd._utils._draws import permutation_counts
from skmmd.statistics import mmd2_features
from skmmd.two_sample._resampled import _Sequential, resampled_statistics
from skmmd.two_sample._sums import KernelSums, draw_counts
from tests.helpers.units import unit_members

METHODS = ["permutation", "bootstrap"]

STATISTICS = ["unbiased", "biased"]


def _feature_sums(P, m, n, unit=1, seed=0):
    """Unit sums of the identity map through the streaming pipeline."""
    identity = FunctionTransformer().fit(P)
    stream = Stream([identity], [P.shape[1]], unit, seed)
    return stream.add((P[:m], P[m:]), unit).sums()[0]


def _linear_rows(P):
    yield slice(0, P.shape[0]), linear_kernel(P, P)


def _sources(P, m, n, unit=1):
    return {
        "features": _feature_sums(P, m, n, unit),
        "kernel": KernelSums(P, _linear_rows),
    }


def _bootstrap_mmd2(P, idx_x, idx_y, unbiased=True):
    """Statistic of a bootstrap resample, by brute force over pairs of draws.

    Pairs of two draws of the same pooled point are excluded (spec section 2);
    the biased statistic adds each draw's self-pair with weight 1/m as the
    V-statistic of m distinct points does.
    """
    K = P @ P.T

    def within(i):
        distinct = K[np.ix_(i, i)][i[:, None] != i[None, :]].mean()
        if unbiased:
            return distinct
        m = i.size
        return (1 - 1 / m) * distinct + np.diag(K)[i].mean() / m

    cross = K[np.ix_(idx_x, idx_y)][idx_x[:, None] != idx_y[None, :]].mean()
    return within(idx_x) + within(idx_y) - 2 * cross


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("source", ["features", "kernel"])
def test_null_matches_brute_force_on_same_draws(rng, statistic, method, source):
    m, n, B = 9, 13, 25
    P = rng.normal(size=(m + n, 3))
    sums = _sources(P, m, n)[source]
    observed, null, _ = resampled_statistics(
        sums, m, n, statistic=statistic, method=method, n_resamples=B, seed=3
    )
    assert observed == pytest.approx(
        mmd2_features(P[:m], P[m:], statistic=statistic), abs=1e-12
    )
    A, C = draw_counts(np.random.default_rng(3), method, B, (m, n))
    for b in range(B):
        if method == "permutation":
            chosen = A[b] == 1
            expected = mmd2_features(P[chosen], P[~chosen], statistic=statistic)
        else:
            idx_x = np.repeat(np.arange(m + n), A[b].astype(int))
            idx_y = np.repeat(np.arange(m + n), C[b].astype(int))
            expected = _bootstrap_mmd2(P, idx_x, idx_y, statistic == "unbiased")
        assert null[b] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_resample_units_match_explicit_resamples(rng, method):
    # Units of 3 rows: X has 3 units + 1 fixed row, Y 4 units + 2 fixed rows.
    m, n, u, B = 10, 14, 3, 20
    P = rng.normal(size=(m + n, 2))
    sums = _feature_sums(P, m, n, unit=u)
    assert sums.n_units == (3, 4)
    _, null, _ = resampled_statistics(sums, m, n, method=method, n_resamples=B, seed=5)
    A, C = draw_counts(np.random.default_rng(5), method, B, (3, 4))
    units, (fixed_x, fixed_y) = unit_members(m, n, u)
    # Units hold 3 points of one sample; X keeps 1 fixed point, Y 2.
    assert all(len(u) == 3 for u in units) and len(fixed_x) == 1 and len(fixed_y) == 2
    assert all(u.max() < m for u in units[:3]) and all(u.min() >= m for u in units[3:])
    assert fixed_x.max() < m <= fixed_y.min()
    for b in range(B):
        counts_y = 1 - A[b] if method == "permutation" else C[b]
        idx_x = np.concatenate(
            [np.repeat(units[g], int(A[b, g])) for g in range(7)] + [fixed_x]
        )
        idx_y = np.concatenate(
            [np.repeat(units[g], int(counts_y[g])) for g in range(7)] + [fixed_y]
        )
        assert idx_x.size == m and idx_y.size == n
        if method == "permutation":
            expected = mmd2_features(P[idx_x], P[idx_y])
        else:
            expected = _bootstrap_mmd2(P, idx_x, idx_y)
        assert null[b] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("source", ["features", "kernel"])
@pytest.mark.parametrize("chunk", [None, 8])
def test_results_do_not_depend_on_batch_or_n_jobs(
    rng, monkeypatch, method, source, chunk
):
    # chunk=8: products on chunks of 8 resamples, the last one (5) padded, in
    # the sequential path's spare buffer rows or in a fresh copy.
    if chunk is not None:
        monkeypatch.setattr(_budgets, "RESAMPLE_ROWS", chunk)
    m, n = 12, 17
    P = rng.normal(size=(m + n, 2))
    sums = _sources(P, m, n)[source]
    runs = [
        resampled_statistics(
            sums,
            m,
            n,
            method=method,
            n_resamples=101,
            seed=11,
            batch=batch,
            n_jobs=jobs,
        )[1]
        for batch, jobs in [
            (None, None),
            (1, 1),
            (7, 2),
            (12, 1),
            (16, 1),
            (50, 2),
            (101, 1),
        ]
    ]
    for null in runs[1:]:
        np.testing.assert_array_equal(null, runs[0])


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("source", ["features", "kernel"])
def test_constant_data_gives_p_value_one(statistic, method, source):
    # Every resample equals the observed statistic (0) up to rounding.
    P = np.full((20, 3), 0.7)
    sums = _sources(P, 8, 12)[source]
    observed, null, tol = resampled_statistics(
        sums, 8, 12, statistic=statistic, method=method, n_resamples=50, seed=0
    )
    assert p_value(observed, null, tol) == 1.0


def _rejection_rate(method, n_reps, seed, n=50, d=200, n_resamples=99, alpha=0.05):
    rng = np.random.default_rng(seed)
    rejections = 0
    for rep in range(n_reps):
        X, Y = rng.normal(size=(n, d)), rng.normal(size=(n, d))
        test = MMDTest(
            None, calibration=method, n_resamples=n_resamples, random_state=rep
        )
        rejections += test.fit(X, Y).p_value_ <= alpha
    return rejections / n_reps


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_type_one_error_high_dimension(method):
    # Null data in d = 200 with n = 50, Gaussian kernel, median bandwidth: the
    # regime where a bootstrap that keeps pairs of repeated draws is
    # conservative (about 0.014; spec section 2). With 800 seeded replications
    # the rejection rate of a level-0.05 test has sd 0.0077: 3.5 sd gives
    # [0.023, 0.077], which excludes 0.014 (the permutation test's level is
    # exact, 5/100 with B = 99).
    with threadpool_limits(1):  # small products: threads only add overhead
        rate = _rejection_rate(method, n_reps=800, seed=0)
    assert 0.023 <= rate <= 0.077


@pytest.mark.parametrize("method", METHODS)
def test_gram_in_row_blocks_equals_stored(rng, monkeypatch, method):
    # Large N: the Gram matrix is recomputed in row blocks for every batch
    # instead of being stored; the products must not change.
    m, n = 15, 22
    P = rng.normal(size=(m + n, 3))

    def rows_in_blocks(P):
        for start in range(0, P.shape[0], 8):
            rows = slice(start, min(start + 8, P.shape[0]))
            yield rows, linear_kernel(P[rows], P)

    stored = KernelSums(P, rows_in_blocks)
    monkeypatch.setattr(_budgets, "GRAM_ENTRIES", 100)
    blocked = KernelSums(P, rows_in_blocks)
    assert stored.K is not None and blocked.K is None
    runs = [
        resampled_statistics(s, m, n, method=method, n_resamples=30, seed=2)
        for s in (stored, blocked)
    ]
    assert runs[0][0] == pytest.approx(runs[1][0], abs=1e-12)
    np.testing.assert_allclose(runs[0][1], runs[1][1], atol=1e-12)


def test_column_sums_equal_each_columns_own_sums(rng):
    """ColumnSums' products and effect sizes, all columns at once, against
    each column's own FeatureSums (a view of its block)."""
    from skmmd._inference._calibration import FeatureSums
    from skmmd.two_sample._resampled import ColumnSums, _statistics
    from skmmd.two_sample._results import effect_size

    k, w, g = 6, 5, (30, 40)
    U = rng.normal(size=(70, k * w))
    fixed = {"s_x": rng.normal(size=k * w), "s_y": rng.normal(size=k * w)}
    fixed.update(q_x=3.0 * k, q_y=2.0 * k, r_x=3, r_y=2)
    whole = FeatureSums([U[:25], U[25:]], np.full(70, 4.0 * k), g, 4, fixed)
    columns = ColumnSums(whole, k)
    A = np.zeros((9, 70))
    for row in A:
        row[rng.choice(70, 30, replace=False)] = 1.0
    m, n = 4 * 30 + 3, 4 * 40 + 2
    stat, _ = _statistics(columns, A, None, m, n, True, True)
    mmd2, se = effect_size(columns, m, n)
    for j in range(k):
        cols = slice(j * w, (j + 1) * w)
        own = dict(
            fixed, s_x=fixed["s_x"][cols], s_y=fixed["s_y"][cols], q_x=3.0, q_y=2.0
        )
        one = FeatureSums([U[:25, cols], U[25:, cols]], np.full(70, 4.0), g, 4, own)
        np.testing.assert_allclose(
            stat[:, j], _statistics(one, A, None, m, n, True, True)[0]
        )
        np.testing.assert_allclose((mmd2[j], se[j]), effect_size(one, m, n))


@pytest.mark.parametrize("rows", [1024, 128])
def test_a_sequential_test_draws_ahead_the_rows_of_one_stream(rows):
    # A sequential test's counts are drawn ahead of its batches (the buffer
    # refilled, its undrawn rows kept, when a batch runs past it): the rows
    # must be those of one draw of all 999, in order.
    n_units, got = (40, 30), []
    looks = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 640, 768, 896)
    sequential = _Sequential(
        np.random.default_rng(3),
        "permutation",
        n_units,
        rows,
        128,
        lambda start, A, C: got.append((start, A.copy())),
        pad=False,
    )
    for s in resample_batches(999, rows, looks):
        sequential(s)
    assert [start for start, _ in got] == [0, *looks]
    expected = permutation_counts(np.random.default_rng(3), 999, n_units)
    np.testing.assert_array_equal(np.vstack([A for _, A in got]), expected)

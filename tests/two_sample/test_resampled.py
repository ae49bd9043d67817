import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel
from sklearn.preprocessing import FunctionTransformer
from threadpoolctl import threadpool_limits

from skmmd import MMDTest
from skmmd._testing._calibration import p_value
from skmmd._testing._streaming import Stream, virtual_positions
from skmmd._utils import _budgets
from skmmd.mmd import mmd2_features
from skmmd.two_sample._resampled import resampled_statistics
from skmmd.two_sample._sums import KernelSums, draw_counts

METHODS = ["permutation", "bootstrap"]
STATISTICS = ["unbiased", "biased"]


def _feature_sums(P, m, n, unit=1, seed=0):
    """Unit sums of the identity map through the streaming pipeline."""
    identity = FunctionTransformer().fit(P)
    stream = Stream([identity], [P.shape[1]], unit, seed)
    return stream.add((P[:m], P[m:]), unit).sums()[0]


def _unit_members(m, n, unit, seed=0):
    """Pooled rows of each resampled unit (in the pipeline's order: complete
    units of X by unit id, then Y's) and the fixed rows of X and of Y."""
    units, fixed = [], []
    for sample, (size, shift) in enumerate(((m, 0), (n, m))):
        ids = virtual_positions(seed, sample, 0, size, size) // unit
        complete = [g for g in np.unique(ids) if np.sum(ids == g) == unit]
        units += [np.flatnonzero(ids == g) + shift for g in complete]
        fixed.append(np.flatnonzero(~np.isin(ids, complete)) + shift)
    return units, fixed


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
    units, (fixed_x, fixed_y) = _unit_members(m, n, u)
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


def test_units_are_random_groups_not_row_order():
    # Consecutive rows would group similar points of a sorted sample (or of a
    # time-ordered file), and the units of X and Y would then not be
    # exchangeable under H0.
    units, _ = _unit_members(20, 20, 4, seed=3)
    assert not all(np.array_equal(np.diff(g), [1, 1, 1]) for g in units)
    again, _ = _unit_members(20, 20, 4, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(units, again))  # seeded
    # A unit is a function of the seed and the row's position only.
    head = virtual_positions(3, 0, 0, 9000, 9000)
    np.testing.assert_array_equal(
        virtual_positions(3, 0, 5000, 9000, 9000), head[5000:]
    )
    assert sorted(head) == list(range(9000))  # a bijection of the positions
    # Rows of complete superblocks do not depend on the total.
    np.testing.assert_array_equal(virtual_positions(3, 0, 0, 4096, 5000), head[:4096])


def test_remainder_is_less_than_a_unit():
    # The last, partial superblock is shuffled at its own size, so all its
    # units are complete but one.
    for m in (10, 4095, 4097, 9001):
        units, (fixed_x, _) = _unit_members(m, 7, 3)
        assert len(fixed_x) == m % 3
        assert sum(len(g) for g in units if g.max() < m) == m - m % 3


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


def test_permutations_are_uniform_subsets():
    # Every unit is in X* with probability g_x / G; with 4000 draws the count is
    # Binomial(4000, 0.3): sd 29, so +-5 sd = +-145 around 1200.
    A, C = draw_counts(np.random.default_rng(0), "permutation", 4000, (3, 7))
    assert C is None
    np.testing.assert_array_equal(A.sum(axis=1), 3)
    assert np.all(np.abs(A.sum(axis=0) - 1200) < 145)


def test_bootstrap_counts():
    # m + n draws of 10 units per resample: each unit count ~ Binomial(10, 0.1)
    # per sample size, mean over 4000 resamples of A is m/G = 0.3 (sd 0.008).
    A, C = draw_counts(np.random.default_rng(0), "bootstrap", 4000, (3, 7))
    np.testing.assert_array_equal(A.sum(axis=1), 3)
    np.testing.assert_array_equal(C.sum(axis=1), 7)
    assert np.all(np.abs(A.mean(axis=0) - 0.3) < 0.05)
    assert np.all(np.abs(C.mean(axis=0) - 0.7) < 0.08)


def test_p_value_definition_and_ties():
    null = np.array([0.1, 0.2, 0.3, 0.3, 0.5])
    assert p_value(0.3, null, 0.0) == pytest.approx(4 / 6)
    assert p_value(0.6, null, 0.0) == pytest.approx(1 / 6)  # never 0
    # A value equal up to the tolerance counts as a tie.
    assert p_value(0.3 + 1e-15, null, 1e-14) == pytest.approx(4 / 6)
    assert p_value(0.3 + 1e-15, null, 0.0) == pytest.approx(2 / 6)


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


def test_permutation_subsets_are_uniform_over_all_subsets():
    # Every 2-subset of 5 units (and, drawn through the complement, every
    # 3-subset) is equally likely: 20000 draws over 10 subsets, chi-square
    # with 9 degrees of freedom, P(> 33.7) = 1e-4.
    from itertools import combinations

    from scipy.stats import chi2

    for n_units in ((2, 3), (3, 2)):
        A, _ = draw_counts(np.random.default_rng(0), "permutation", 20000, n_units)
        subsets = {s: i for i, s in enumerate(combinations(range(5), n_units[0]))}
        counts = np.bincount(
            [subsets[tuple(np.flatnonzero(row))] for row in A], minlength=10
        )
        expected = 20000 / 10
        assert ((counts - expected) ** 2 / expected).sum() < chi2.isf(1e-4, 9)


def test_permutation_draws_equal_on_one_thread_and_many(monkeypatch):
    # Small batches run the serial copy of the draws, large ones the parallel
    # copy: both must draw the same subsets from the same uniforms.
    from skmmd._utils import _draws

    def draws(threshold):
        monkeypatch.setattr(_draws, "_PARALLEL_MIN_SWAPS", threshold)
        return _draws.permutation_counts(np.random.default_rng(3), 40, (37, 60))

    serial, parallel = draws(2**62), draws(0)
    np.testing.assert_array_equal(serial, parallel)
    assert (serial.sum(axis=1) == 37).all()

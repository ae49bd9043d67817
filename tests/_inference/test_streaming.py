"""The streaming pipeline (skmmd/_inference/_streaming.py): partial_fit,
chunking, the resampling units (random groups of rows, not the row order),
bad chunks."""

import pickle

import numpy as np
import pytest
from scipy.stats import binom

from skmmd import AggregatedMMDTest, FastfoodSampler, MMDTest, RandomFourierSampler
from skmmd._inference._streaming import UnitSums, virtual_positions
from skmmd._utils import _budgets
from tests.helpers.units import unit_members


def test_units_are_random_groups_not_row_order():
    # Consecutive rows would group similar points of a sorted sample (or of a
    # time-ordered file), and the units of X and Y would then not be
    # exchangeable under H0.
    units, _ = unit_members(20, 20, 4, seed=3)
    assert not all(np.array_equal(np.diff(g), [1, 1, 1]) for g in units)
    again, _ = unit_members(20, 20, 4, seed=3)
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
        units, (fixed_x, _) = unit_members(m, 7, 3)
        assert len(fixed_x) == m % 3
        assert sum(len(g) for g in units if g.max() < m) == m - m % 3


REL = 1e-10


def _rff(seed=0, D=64):
    return RandomFourierSampler(bandwidth=1.5, n_components=D, random_state=seed)


def _fastfood(seed=0, D=64):
    return FastfoodSampler(bandwidth=1.5, n_components=D, random_state=seed)


def _tests(X):
    """Tests whose maps do not depend on the data: fit refits them to the same
    maps, partial_fit uses them as given (prefit)."""
    return {
        "rff": lambda prefit: MMDTest(
            _rff().fit(X) if prefit else _rff(), random_state=0, n_resamples=99
        ),
        "fastfood": lambda prefit: MMDTest(
            _fastfood().fit(X) if prefit else _fastfood(),
            calibration="bootstrap",
            random_state=0,
            n_resamples=99,
        ),
        "aggregated": lambda prefit: AggregatedMMDTest(
            [t.fit(X) if prefit else t for t in (_rff(1), _fastfood(2))],
            random_state=0,
            n_resamples=99,
        ),
    }


def _random_chunks(rng, X, Y, n_chunks):
    cx = np.sort(rng.choice(np.arange(1, len(X)), n_chunks - 1, replace=False))
    cy = np.sort(rng.choice(np.arange(1, len(Y)), n_chunks - 1, replace=False))
    return list(zip(np.split(X, cx), np.split(Y, cy)))


def _same(a, b):
    assert a.statistic_ == pytest.approx(b.statistic_, rel=REL, abs=1e-300)
    assert a.p_value_ == b.p_value_
    assert (a.n_samples_x_, a.n_samples_y_) == (b.n_samples_x_, b.n_samples_y_)


@pytest.mark.parametrize("name", ["rff", "fastfood", "aggregated"])
@pytest.mark.parametrize("unit", ["auto", 3])
def test_partial_fit_over_random_chunks_equals_fit(rng, monkeypatch, name, unit):
    # A small budget makes "auto" double its unit while the chunks come.
    monkeypatch.setattr(_budgets, "GEMM_BUDGET", 99 * 128 * 300)
    X, Y = rng.normal(size=(9000, 3)), rng.normal(size=(5000, 3)) + 0.05
    make = _tests(X)[name]
    ref = make(False).set_params(resample_unit=unit).fit(X, Y)
    assert ref.resample_unit_ > 1
    test = make(True).set_params(resample_unit=unit)
    for x, y in _random_chunks(rng, X, Y, 7):
        test.partial_fit(x, y)
    assert test.n_train_ == 0 and test.resample_unit_ == ref.resample_unit_
    _same(test, ref)
    # Results are computed from all rows so far, whenever they are read.
    test.partial_fit(X[:10], Y[:3])
    again = make(False).set_params(resample_unit=unit)
    again.fit(np.vstack([X, X[:10]]), np.vstack([Y, Y[:3]]))
    _same(test, again)


def test_one_row_at_a_time(rng):
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(25, 2))
    ref = MMDTest(_rff(), random_state=1, n_resamples=49).fit(X, Y)
    test = MMDTest(_rff().fit(X), random_state=1, n_resamples=49)
    for i in range(30):
        test.partial_fit(X[i : i + 1], Y[i : i + 1])
    _same(test, ref)


def test_labels_convention_and_classes(rng):
    P = rng.normal(size=(60, 2))
    labels = np.tile(["a", "b"], 30)
    ref = MMDTest(_rff(), random_state=0, n_resamples=49).fit(P, labels)
    test = MMDTest(_rff().fit(P), random_state=0, n_resamples=49)
    test.partial_fit(P[:20], labels[:20], classes=["a", "b"])
    test.partial_fit(P[20:], labels[20:])
    _same(test, ref)
    with pytest.raises(ValueError, match="classes of the first call"):
        test.partial_fit(P[:4], np.array(["a", "c", "a", "c"]))


def test_unfitted_map_is_fit_on_the_first_chunk_and_held_out(rng):
    X, Y = rng.normal(size=(400, 2)), rng.normal(size=(300, 2))
    test = MMDTest(RandomFourierSampler(n_components=32, random_state=0))
    test.set_params(random_state=0, n_resamples=49)
    test.partial_fit(X[:100], Y[:50])
    assert test.n_train_ == 150
    # The map was fit (median bandwidth) on the held-out rows only.
    expected = RandomFourierSampler(n_components=32, random_state=0)
    expected.fit(np.vstack([X[:100], Y[:50]]))
    assert test.transformer_.bandwidth_ == expected.bandwidth_
    with pytest.raises(ValueError, match="at least 2 points in the statistic"):
        test.statistic_
    test.partial_fit(X[100:], Y[50:])
    ref = MMDTest(expected, random_state=0, n_resamples=49)
    ref.partial_fit(X[100:], Y[50:])
    assert ref.n_train_ == 0
    _same(test, ref)


def test_streamed_test_is_valid_seeded():
    # Type-I error of the streamed test with the held-out fitting scheme:
    # 300 null streams of 3 chunks, level 0.1, the rejection count within the
    # central 99.9 % binomial range.
    rng = np.random.default_rng(7)
    reps, alpha = 300, 0.1
    rejections = 0
    for r in range(reps):
        test = MMDTest(
            RandomFourierSampler(n_components=16, random_state=r),
            n_resamples=39,
            resample_unit=2,
            alpha=alpha,
            random_state=r,
        )
        for _ in range(3):
            test.partial_fit(
                rng.standard_t(3, size=(40, 2)), rng.standard_t(3, size=(30, 2))
            )
        rejections += test.reject_
    lo, hi = binom.ppf([0.0005, 0.9995], reps, alpha)
    assert lo <= rejections <= hi


def test_bad_chunks_leave_the_test_unchanged(rng):
    X, Y = rng.normal(size=(300, 3)), rng.normal(size=(200, 3))
    test = MMDTest(_rff().fit(X), random_state=0, n_resamples=49)
    test.partial_fit(X, Y)
    before = (test.statistic_, test.p_value_, test.n_samples_x_)
    late = np.vstack([X, X])
    late[450, 1] = np.nan
    with pytest.raises(
        ValueError, match="chunk after rows 0-299 of X .*X contains NaN"
    ):
        test.partial_fit(late, Y)
    with pytest.raises(ValueError, match="2 features, but MMDTest is expecting 3"):
        test.partial_fit(X[:, :2], Y[:, :2])
    with pytest.raises(ValueError, match="same number of features"):
        test.partial_fit(X, Y[:, :2])
    assert (test.statistic_, test.p_value_, test.n_samples_x_) == before
    # After fit, partial_fit goes on with the same features only.
    fitted = MMDTest(_rff(), random_state=0, n_resamples=49).fit(X, Y)
    with pytest.raises(ValueError, match="expecting 3 features"):
        fitted.partial_fit(np.zeros((5, 4)), np.zeros((5, 4)))


def test_exact_test_has_no_partial_fit():
    assert not hasattr(MMDTest(None), "partial_fit")
    assert hasattr(MMDTest(_rff()), "partial_fit")


def test_resample_unit_larger_than_a_sample(rng):
    test = MMDTest(_rff().fit(np.zeros((1, 2))), resample_unit=50, n_resamples=9)
    test.partial_fit(rng.normal(size=(40, 2)), rng.normal(size=(100, 2)))
    with pytest.raises(ValueError, match="no complete unit"):
        test.p_value_


def test_pickled_stream_goes_on(rng):
    X, Y = rng.normal(size=(6000, 2)), rng.normal(size=(5000, 2))
    test = MMDTest(_rff().fit(X), random_state=0, n_resamples=49, resample_unit=4)
    test.partial_fit(X[:3000], Y[:2000])
    resumed = pickle.loads(pickle.dumps(test))
    for t in (test, resumed):
        t.partial_fit(X[3000:], Y[2000:])
    _same(resumed, test)


def test_state_is_bounded_by_units_not_rows(rng):
    # Memory: the unit sums of "auto" stay within the budget however many
    # rows come (here 2**16 rows per sample, a budget of 1024 units).
    test = MMDTest(_rff(D=8).fit(np.zeros((1, 2))), n_resamples=9, random_state=0)
    budget = _budgets.GEMM_BUDGET // (9 * 8)
    for _ in range(8):
        test.partial_fit(rng.normal(size=(8192, 2)), rng.normal(size=(8192, 2)))
    state = test._stream.state
    units = sum(c.size for c in state.counts)
    assert units <= min(budget, 2 * 65536 // test.resample_unit_) + 4
    assert test.resample_unit_ == 1 or units > 100


@pytest.mark.parametrize("tail_offset", [200, 150, 0])
def test_unit_sums_are_views_where_one_state_holds_them(rng, tail_offset):
    # The calibration loop reads the units a single state holds from that
    # state's arrays (views), and adds up the others: the same U either way.
    D, unit = 4, 2
    total = max(200, tail_offset + 60)
    expected = rng.normal(size=(2, total, D))
    shared = np.zeros(total, dtype=bool)
    shared[tail_offset : min(200, tail_offset + 60)] = True
    state, tail = UnitSums([D], unit, 0), UnitSums([D], unit, 0)
    for s in range(2):
        state._grow(s, 0, 200)
        tail._grow(s, tail_offset, tail_offset + 60)
        for t in (state, tail):
            at = slice(t.offset[s], t.offset[s] + t.counts[s].size)
            # A unit both states hold has half its rows (and sums) in each.
            t.counts[s][:] = np.where(shared[at], unit // 2, unit)
            t.sums[0][s][:] = expected[s, at] * np.where(shared[at], 0.5, 1.0)[:, None]
            t.n_rows[s] = int(t.counts[s].sum())
    sums = state.finalize(tail)[0]
    assert sums.n_units == (total, total)
    np.testing.assert_array_equal(sums.U, expected.reshape(2 * total, D))
    views = [b for b in sums.blocks if np.shares_memory(b, tail.sums[0][0])]
    assert len(views) == (tail_offset >= 200)

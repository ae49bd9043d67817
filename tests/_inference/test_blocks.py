"""Blocks of consecutive rows (``block_size``): the autocovariances and the
rule behind ``"auto"``, the correction of a block null, the shifts of the
independence tests, the units of the pipeline in time order, and the order
check."""

import warnings

import numpy as np
import pytest

from skmmd._inference import _blocks, _streaming
from skmmd._inference._calibration import FeatureSums
from tests.helpers.data import ar1


def test_autocovariances_are_the_pooled_lagged_products(rng):
    series = [rng.normal(size=(40, 3)), rng.normal(size=(30, 3))]
    gamma = _blocks.autocovariances(series, edges=[0, 2])
    assert gamma.shape == (16, 2)  # lags 0..15 (half the shortest), two groups
    for k in (0, 1, 7):
        want = np.zeros(2)
        for s in series:
            c = s - s.mean(axis=0)
            products = (c[: len(c) - k] * c[k:]).sum(axis=0)
            want += [products[:2].sum(), products[2:].sum()]
        np.testing.assert_allclose(gamma[k], want / 70, atol=1e-12)


def test_long_run_variance_of_an_ar1_series(rng):
    # (1 + phi) / (1 - phi) = 3 at phi = 0.5; within a few standard errors.
    phi = 0.5
    dependence = _blocks.Dependence([ar1(rng, 20_000, phi)])
    assert dependence.lrv[0] == pytest.approx(3.0, rel=0.1)
    # Blocks of L units miss bias / L of it: 2 phi / (1 - phi)^2 = 4.
    assert dependence.bias[0] == pytest.approx(4.0, rel=0.2)
    assert dependence.block_variance(1)[0] == pytest.approx(1.0, rel=0.05)


def test_long_run_factor_per_column(rng):
    # An AR(0.5) column and an exchangeable one: (1 + phi) / (1 - phi) = 3,
    # and 1 (no correlated lag).
    values = np.hstack([ar1(rng, 20_000, 0.5), rng.normal(size=(20_000, 1))])
    factor = _blocks.long_run_factor(values)
    assert factor[0] == pytest.approx(3.0, rel=0.1)
    assert factor[1] == 1.0


def test_no_correlated_lag_means_no_block_and_no_correction(rng):
    dependence = _blocks.Dependence([rng.normal(size=(2000, 4))])
    assert dependence.m[0] == 0
    assert dependence.units_for(0.1)[0] == 1
    assert dependence.scale(1)[0] == 1.0
    choice = _blocks.BlockChoice([dependence], "auto", unit=4)
    assert (choice.units, choice.rows, choice.capped) == (1, 4, False)


def test_auto_blocks_grow_with_the_dependence(rng):
    rows = {}
    for phi in (0.5, 0.9):
        dependence = _blocks.map_dependence([ar1(rng, 4000, phi, 2)])
        rows[phi] = _blocks.BlockChoice([dependence], "auto", unit=1).rows
    # The rule keeps the blocks' relative bias near BLOCK_BIAS = 0.05: about
    # 2 phi / ((1 - phi)(1 + phi)) / 0.05 rows (27 at 0.5, 190 at 0.9).
    assert 12 <= rows[0.5] <= 60 and 100 <= rows[0.9] <= 400


def test_a_given_block_size_rounds_up_to_whole_units(rng):
    dependence = _blocks.Dependence([ar1(rng, 400, 0.5)])
    choice = _blocks.BlockChoice([dependence], 50, unit=4)
    assert (choice.units, choice.rows) == (13, 52)


def test_auto_is_capped_by_the_fewest_blocks_and_warns(rng):
    series = [ar1(rng, 200, 0.99, 2)]
    with pytest.warns(UserWarning, match="longer stretches than blocks of 40 rows"):
        choice = _blocks.choose("auto", [series], unit=1)
    assert choice.capped and choice.units == 200 // 5


def test_the_correction_restores_the_long_run_variance(rng):
    # Blocks of 20 rows of an AR(0.9) series: each block's variance misses a
    # share of the long-run variance that the correction puts back.
    dependence = _blocks.Dependence([ar1(rng, 200_000, 0.9)])
    scale = dependence.scale(20)[0]
    truth = 19.0 / (19.0 - 2 * 0.9 * (1 - 0.9**20) / (0.1**2 * 20))
    assert scale == pytest.approx(truth, rel=0.05) and scale > 1.3


def test_shift_pairings_are_circular_shifts_of_at_least_the_shift(rng):
    pairings = _blocks.shift_pairings(rng, 500, 30, 7)
    offsets = pairings[:, 0]
    assert offsets.min() >= 7 and offsets.max() <= 23
    np.testing.assert_array_equal(pairings, (np.arange(30) + offsets[:, None]) % 30)
    with pytest.raises(ValueError, match="no shift of y against x"):
        _blocks.shift_pairings(rng, 5, 10, 6)


def _ordered_sums(Z, unit, sample_sizes, chunks=(None,)):
    """The pipeline's ordered unit sums of the features ``Z`` split into two
    samples, added chunk by chunk."""

    class Identity:
        def transform(self, X):
            return X

    m = sample_sizes[0]
    stream = _streaming.Stream([Identity()], [Z.shape[1]], unit, 0, ordered=True)
    for chunk in chunks:
        pieces = [(Z[:m], Z[m:])] if chunk is None else chunk(Z[:m], Z[m:])
        for X, Y in pieces:
            stream.add((X, Y), unit)
    return stream.sums()[0]


def test_ordered_units_are_blocks_of_consecutive_rows(rng):
    Z = rng.normal(size=(103, 3))
    sums = _ordered_sums(Z, 4, (50, 53))
    assert sums.n_units == (12, 13)
    np.testing.assert_allclose(sums.U[0], Z[0:4].sum(axis=0))
    np.testing.assert_allclose(sums.U[11], Z[44:48].sum(axis=0))
    np.testing.assert_allclose(sums.U[12], Z[50:54].sum(axis=0))
    np.testing.assert_allclose(sums.remainder(0), Z[48:50].sum(axis=0))
    np.testing.assert_allclose(sums.remainder(1), Z[102:].sum(axis=0))


def test_coarsened_sums_equal_the_pipeline_at_the_coarser_unit(rng):
    Z = rng.normal(size=(230, 2))
    fine = _ordered_sums(Z, 4, (120, 110)).coarsened(3)
    coarse = _ordered_sums(Z, 12, (120, 110))
    assert fine.n_units == coarse.n_units == (10, 9)
    np.testing.assert_allclose(fine.U, coarse.U)
    np.testing.assert_allclose(fine.q, coarse.q)
    for key in ("s_x", "s_y", "q_x", "q_y", "r_x", "r_y"):
        np.testing.assert_allclose(fine.fixed[key], coarse.fixed[key])
    assert isinstance(fine, FeatureSums) and fine.sizes[0] == 12


def test_a_block_may_span_chunks_never_samples(rng):
    Z = rng.normal(size=(100, 2))

    def in_pieces(X, Y):
        return [(X[:7], None), (X[7:30], Y[:13]), (X[30:], Y[13:])]

    whole = _ordered_sums(Z, 8, (50, 50))
    chunked = _ordered_sums(Z, 8, (50, 50), chunks=(in_pieces,))
    np.testing.assert_array_equal(whole.U, chunked.U)
    assert whole.n_units == (6, 6)  # 48 rows of each sample, 2 left in each


def test_the_order_check_warns_on_ar_rows_only(rng):
    with pytest.warns(_blocks.SerialDependenceWarning, match="block_size='auto'"):
        factor = _blocks.check_order([ar1(rng, 1000, 0.5, 2)], 0)
    assert factor > 1.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _blocks.check_order([rng.normal(size=(1000, 2))], 0) < 1.25
        # Too few rows to say: no check.
        assert _blocks.check_order([ar1(rng, 30, 0.9)], 0) is None


def test_the_paired_check_multiplies_the_two_variables_correlations(rng):
    x, y = ar1(rng, 2000, 0.8), ar1(rng, 2000, 0.8)
    # Sum over lags of (0.8^k)^2: 1 + 2 * 0.64 / 0.36 = 4.6.
    assert _blocks.inflation([x, y], 0, paired=True) == pytest.approx(4.6, rel=0.3)
    assert _blocks.inflation([x, rng.normal(size=(2000, 1))], 0, paired=True) < 1.3


def test_the_order_check_reads_whole_draws_of_a_fourier_map(rng):
    from skmmd import RandomFourierSampler
    from skmmd._inference._base import order_features
    from skmmd._utils import _budgets

    X = ar1(rng, 2000, 0.5, 3)
    rff = RandomFourierSampler(n_components=1024, random_state=0).fit(X)
    columns = _blocks.check_columns(rff.column_draws(), 7)
    # Both columns (cos and sin) of ORDER_CHECK_DRAWS frequencies, seeded.
    assert columns.size == 2 * _budgets.ORDER_CHECK_DRAWS
    assert set(columns[columns >= 512] - 512) == set(columns[columns < 512])
    np.testing.assert_array_equal(columns, _blocks.check_columns(rff.column_draws(), 7))
    Z = order_features(rff, X, lambda a: a, 7)
    np.testing.assert_allclose(Z, rff.transform(X)[:, columns], rtol=1e-12, atol=1e-14)
    with pytest.warns(_blocks.SerialDependenceWarning):
        _blocks.check_order([Z], 7)
    iid = order_features(rff, rng.normal(size=(2000, 3)), lambda a: a, 7)
    assert _blocks.inflation([iid], 7) < _budgets.ORDER_INFLATION

"""Adjusted p-values of many columns (skmmd/_inference/_corrections.py): step-down
maxT against brute force and at its floor, its family-wise error, the pooled
p-values, Benjamini-Hochberg and Benjamini-Yekutieli, a bad correction."""

import numpy as np
import pytest
from scipy.stats import false_discovery_control

from skmmd._inference import _corrections

# Adjusted p-values.


def test_maxt_reaches_the_floor_whatever_the_number_of_columns(rng):
    """A column far outside every resample gets 1/(B+1) at 10 or 2000
    columns (single-step min-p on permutation p-values gets about m/(B+1))."""
    for m in (10, 2000):
        T = rng.chisquare(3, size=(200, m))
        T[0, :2] += 40.0
        adjusted, _ = _corrections.adjusted_p_values(T, "fwer", None)
        assert adjusted[0] == adjusted[1] == 1 / 200
        assert adjusted[2:].min() > 0.05


@pytest.mark.slow
def test_maxt_controls_the_family_wise_error_on_exchangeable_rows():
    """Rows exchangeable (the complete null) with skewed, unlike columns:
    the rate of any rejection is at most alpha (1500 draws: 0.05 + 2 SE)."""
    rng = np.random.default_rng(0)
    dof = np.r_[np.full(20, 1.0), np.full(20, 30.0)]
    rejected = [
        _corrections.adjusted_p_values(
            rng.chisquare(dof, size=(100, 40)), "fwer", None
        )[0].min()
        <= 0.05
        for _ in range(1500)
    ]
    assert np.mean(rejected) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 1500)


def test_pooled_p_values_are_uniform_where_the_fitted_tail_is_too_thin():
    """Unlike nulls (chi-square of 1 to 30 degrees of freedom, 2000 columns,
    B = 199): the fitted tail puts too many null columns below 0.001, the
    pooled p-values (each observed value against all columns' resampled ones
    on the fitted scale) the right share, within 3 binomial standard errors."""
    rng = np.random.default_rng(1)
    dof = rng.choice([1.0, 3.0, 30.0], size=2000)
    T = rng.chisquare(dof, size=(200, 2000))
    log_p = _corrections.fitted_log_p_values(T)
    pooled = _corrections.pooled_p_values(T, log_p)
    for level in (0.001, 0.01, 0.05, 0.2):
        share = np.mean(pooled <= level)
        assert abs(share - level) <= 3 * np.sqrt(level * (1 - level) / 2000) + 1e-3
    assert pooled.min() >= 1 / (199 * 2000 + 1)


def test_fdr_is_scipys_benjamini_hochberg_of_the_pooled_p_values(rng):
    T = rng.chisquare(3, size=(300, 50))
    T[0, :5] += 25.0
    for correction, method in (("fdr", "bh"), ("fdr_by", "by")):
        adjusted, pooled = _corrections.adjusted_p_values(T, correction, None)
        np.testing.assert_allclose(
            adjusted, false_discovery_control(pooled, method=method)
        )
        assert (adjusted[:5] < 0.05).all() and (adjusted[5:] > 0.05).all()
    p = np.linspace(0.01, 1, 50)
    np.testing.assert_array_equal(_corrections.adjusted_p_values(T, "none", p)[0], p)


def test_adjusted_p_values_refuse_a_bad_correction():
    with pytest.raises(ValueError, match="correction"):
        _corrections.adjusted_p_values(np.ones((3, 2)), "holm", None)


def test_maxt_adjusted_p_values_by_brute_force():
    """Westfall & Young's step-down maxT from its definition: column r (by
    decreasing observed t) gets the largest, over the columns ranked at or
    above it, share of rows whose maximum over the columns ranked at or
    below those reaches their observed t."""
    rng = np.random.default_rng(0)
    T = rng.normal(size=(50, 5))
    T[0] += [2.0, 0.0, 0.5, 0.0, 1.0]
    log_p = _corrections.fitted_log_p_values(T)
    t = -log_p
    order = np.argsort(-t[0])
    expected = np.empty(5)
    for r, k in enumerate(order):
        shares = [
            (t[:, order[s:]].max(axis=1) >= t[0, order[s]]).mean() for s in range(r + 1)
        ]
        expected[k] = max(shares)
    np.testing.assert_allclose(_corrections.maxt_adjusted_p_values(log_p), expected)

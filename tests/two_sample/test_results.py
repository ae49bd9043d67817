"""MMDTestResult (skmmd/two_sample/_results.py): the jackknife standard
error against leave-one-unit-out, the interval (of the exact test too, and
its coverage of a closed-form truth), the relevance test."""

import numpy as np
import pandas as pd
import pytest

import skmmd
from skmmd import MMDTest, MMDTestResult
from skmmd._inference import _streaming
from skmmd.statistics import mmd2_features
from skmmd.two_sample import _results


def test_jackknife_equals_leave_one_unit_out():
    rng = np.random.default_rng(0)
    m, n, unit = 23, 31, 3
    X, Y = rng.normal(size=(m, 2)), rng.normal(size=(n, 2)) + 0.3
    rff = skmmd.RandomFourierSampler(n_components=16, random_state=0).fit(X)
    stream = _streaming.Stream([rff], [16], unit, seed=5).add((X, Y), unit)
    sums = stream.sums()[0]
    mmd2, se = _results.effect_size(sums, m, n)
    assert mmd2 == pytest.approx(mmd2_features(rff.transform(X), rff.transform(Y)))
    # Brute force: recompute the statistic without each unit's rows.
    for s, Z in ((0, rff.transform(X)), (1, rff.transform(Y))):
        units = _streaming.virtual_positions(5, s, 0, len(Z), len(Z)) // unit
        full = units < (len(Z) // unit)
        thetas = []
        for g in np.unique(units[full]):
            keep = units != g
            ZX, ZY = (
                (Z[keep], rff.transform(Y)) if s == 0 else (rff.transform(X), Z[keep])
            )
            thetas.append(mmd2_features(ZX, ZY))
        thetas = np.array(thetas)
        G = thetas.size
        if s == 0:
            variance = (G - 1) / G * np.sum((thetas - thetas.mean()) ** 2)
        else:
            variance += (G - 1) / G * np.sum((thetas - thetas.mean()) ** 2)
    assert se == pytest.approx(np.sqrt(variance), rel=1e-8)


def test_exact_test_has_an_interval_too():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 1.0
    result = MMDTest(None, random_state=0).fit(X, Y).result_
    low, high = result.confidence_interval()
    assert 0 < low < result.mmd2 < high
    assert result.mmd2 == pytest.approx(result.statistic)


def test_interval_covers_a_closed_form_truth():
    # Categorical shares under the one-hot map: MMD^2 = sum_v (p_v - q_v)^2.
    # A small seeded version of the benchmark's coverage experiment (there:
    # >= 94 % over 500 repetitions at N = 2000); here 60 repetitions at N = 800
    # must cover at least 50 (P(fail) < 1e-3 at a true coverage of 0.95).
    rng = np.random.default_rng(0)
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.42, 0.3, 0.28])
    truth = ((p - q) ** 2).sum()
    covered, rejected = 0, 0
    for _ in range(60):
        X = pd.DataFrame({"c": rng.choice(list("abc"), 800, p=p)})
        Y = pd.DataFrame({"c": rng.choice(list("abc"), 800, p=q)})
        result = skmmd.mmd_test(X, Y, n_resamples=1, random_state=0)
        low, high = result.confidence_interval()
        covered += low <= truth <= high
        rejected += result.relevance_test(truth).pvalue <= 0.05
    assert covered >= 50
    assert rejected <= 9  # level 0.05 at MMD^2 = delta: P(>= 10 of 60) < 1e-3


def test_relevance_test_direction_and_errors():
    result = MMDTestResult(
        statistic=0.02,
        pvalue=0.001,
        null_distribution=np.zeros(3),
        alpha=0.05,
        mmd2=0.02,
        standard_error=0.005,
        n_samples_x=10,
        n_samples_y=10,
    )
    assert result.relevance_test(0.001).pvalue < 0.01
    assert result.relevance_test(0.05).pvalue > 0.99
    # pvalue <= alpha exactly when delta is below the 1 - 2 alpha lower limit.
    low = result.confidence_interval(0.9).low
    assert result.relevance_test(low * 0.999).pvalue < 0.05
    assert result.relevance_test(low * 1.001).pvalue > 0.05
    with pytest.raises(ValueError, match="delta must be a positive number"):
        result.relevance_test(0)
    with pytest.raises(ValueError, match="confidence_level must be in"):
        result.confidence_interval(1.0)

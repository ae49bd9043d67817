"""Goodness of fit called as scipy.stats users call it (issue 66, item 3): a
1-D sample in the estimators as in the function, ``aggregate=True`` in the
function as in ``hsic_test``, a scipy family (not a frozen law) fit as
scipy fits it, and ``n_train_`` counting the rows the model was fit on."""

import numpy as np
import pytest
from scipy import stats
from sklearn.mixture import GaussianMixture

import skmmd
from skmmd import AggregatedKernelSteinTest, KernelSteinTest


@pytest.fixture
def x():
    return np.random.default_rng(0).normal(size=300)


@pytest.mark.parametrize("test", [KernelSteinTest, AggregatedKernelSteinTest])
def test_the_estimators_take_a_1d_sample_as_the_function_does(test, x):
    """On main, fit(x) with 1-D x was a ValueError asking for a 2-D array."""
    fitted = test(stats.norm(), n_resamples=99, random_state=0).fit(x)
    column = test(stats.norm(), n_resamples=99, random_state=0).fit(x[:, None])
    assert fitted.p_value_ == column.p_value_ and fitted.n_features_in_ == 1


def test_the_function_aggregates_as_hsic_test_does(x):
    """On main, aggregate=True was a TypeError."""
    result = skmmd.goodness_of_fit_test(
        x, stats.norm(), aggregate=True, n_resamples=99, random_state=0
    )
    expected = AggregatedKernelSteinTest(stats.norm(), n_resamples=99, random_state=0)
    assert result.pvalue == expected.fit(x).p_value_


def test_a_scipy_family_is_fit_to_the_rows_as_scipy_fits_it(x):
    """On main: "The score of score function 'norm_gen' failed on X: float()
    argument must be ... not 'rv_continuous_frozen'". The family is now the
    composite null, fit by its own maximum likelihood (tests/goodness_of_fit/
    test_composite.py checks its calibration)."""
    test = KernelSteinTest(stats.norm, n_resamples=19, random_state=0).fit(x)
    assert test.model_.args == stats.norm.fit(x)


def test_a_family_it_cannot_fit_is_named_as_a_family(x):
    with pytest.raises(TypeError, match=r"multivariate_t is a family.*frozen law"):
        skmmd.goodness_of_fit_test(np.c_[x, x], stats.multivariate_t)


def test_n_train_counts_the_rows_the_model_was_fit_on():
    """On main the count was named n_held_out_, the rows that are not."""
    X = np.random.default_rng(1).normal(size=(400, 2))
    test = KernelSteinTest(GaussianMixture(2, random_state=0), train_size=0.25)
    test.set_params(n_resamples=99, random_state=0).fit(X)
    assert test.n_train_ == 100 and test.n_samples_ == 300
    assert not hasattr(test, "n_held_out_")

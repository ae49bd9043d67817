"""Inputs that are sets of samples (skmmd/kernel_approximation/_bags.py), for
HDDSampler and MeanEmbedding: errors that name the set, and the scikit-learn
contract with list input."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils._testing import assert_allclose

from skmmd import HDDSampler, MeanEmbedding, RandomFourierSampler

EMPTY = np.zeros((0, 2))


@pytest.mark.parametrize("Est", [HDDSampler, MeanEmbedding])
@pytest.mark.parametrize(
    "X, err, match",
    [
        ([np.ones((3, 2)), EMPTY], ValueError, "Set 1 of X is empty"),
        ([], ValueError, "at least one set"),
        (np.ones((3, 2)), ValueError, "got a 2-D array"),
        ("abc", TypeError, "sequence of 2-D arrays"),
        (5, TypeError, "sequence of 2-D arrays"),
        ([np.ones(3)], ValueError, r"Set 0 of X must be a 2-D array"),
        ([np.ones((3, 2)), np.ones((3, 3))], ValueError, "Set 1 of X has 3 features"),
        ([np.array([[np.nan, 1.0]])], ValueError, "NaN"),
    ],
)
def test_bad_input_errors(Est, X, err, match):
    with pytest.raises(err, match=match):
        Est().fit(X)


@pytest.mark.parametrize("Est", [HDDSampler, MeanEmbedding])
def test_transform_errors(Est, bags_2d):
    est = Est().fit(bags_2d)
    with pytest.raises(ValueError, match="Set 0 of X is empty"):
        est.transform([EMPTY])
    with pytest.raises(ValueError, match="fitted n_features_in_ has 2"):
        est.transform([np.ones((3, 3))])
    with pytest.raises(TypeError, match="sparse"):
        from scipy import sparse

        est.transform([sparse.csr_matrix(np.ones((3, 2)))])


# ---------------------------------------------------------------------------
# scikit-learn compatibility with list input (check_estimator cannot feed
# sets: its checks generate 2-D numeric arrays, which are not sequences of
# sets. The checks that apply are re-done here: clone, get/set_params,
# pickling, fit idempotence, n_features_in_, feature names out, not-fitted
# error, Pipeline, GridSearchCV, cross_val_score.)
# ---------------------------------------------------------------------------

ESTIMATORS = [
    HDDSampler(n_components=32, random_state=0),
    HDDSampler(divergence="hellinger", n_components=None, random_state=0),
    MeanEmbedding(RandomFourierSampler(n_components=32, random_state=0)),
]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sklearn_contract_with_list_input(est, bags_2d):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        clone(est).transform(bags_2d)
    c = clone(est)
    assert str(c.get_params()) == str(est.get_params())
    Z = c.fit(bags_2d).transform(bags_2d)
    assert c.n_features_in_ == 2
    assert_allclose(c.fit_transform(bags_2d), Z)  # idempotent fit
    assert_allclose(c.fit(bags_2d).transform(bags_2d), Z)
    restored = pickle.loads(pickle.dumps(c))
    assert_allclose(restored.transform(bags_2d), Z)
    names = c.get_feature_names_out()
    assert len(names) == Z.shape[1]
    assert names[0].startswith(type(est).__name__.lower())
    # fit does not mutate the parameters
    assert str(clone(est).get_params()) == str(c.get_params())

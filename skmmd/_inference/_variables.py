"""The inputs of the tests of two paired variables (the independence and the
conditional families): each variable validated (:func:`check_variable`),
the tables that hold numbers only (:func:`numeric_table`), and the
scikit-learn tags of such a test (:class:`TwoVariableTags`)."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.validation import validate_data

from .._tables._kinds import numeric_dtype
from .._tables._labels import is_dataframe
from ..kernel_approximation._base import BaseSampler
from . import _inputs


class TwoVariableTags:
    """The scikit-learn tags of a test of two variables: y is required (a
    test of X alone means nothing) and missing values are refused."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = False
        return tags


def numeric_table(table):
    """Whether a map of numbers reads every column of a DataFrame as floats
    (numbers and booleans: ``numeric_dtype(dtype, as_floats=True)``)."""
    return all(numeric_dtype(dtype, as_floats=True) for dtype in table.dtypes)


def check_variable(estimator, V, name, transformer, reset, min_rows):
    """One variable of a test of ``estimator``, validated: a DataFrame kept
    as it is (its map reads it), else a 2-D float array (a 1-D one becomes a
    column); ``X`` sets (``reset``) or checks the estimator's input
    attributes."""
    _inputs.check_kind(estimator, V, reset, name)
    if is_dataframe(V):
        if not numeric_table(V) and (
            transformer is None or isinstance(transformer, BaseSampler)
        ):
            kind = (
                "None (the exact Gaussian kernel)"
                if transformer is None
                else type(transformer).__name__
            )
            raise TypeError(
                f"{name} has non-numeric columns and {name.lower()}_"
                f"transformer={kind} maps numbers only: give {name.lower()}_"
                "transformer='auto' (a TabularSampler) or encode them."
            )
        if name == "X":
            validate_data(estimator, V, reset=reset, skip_check_array=True)
        return V
    if sp.issparse(V):
        raise TypeError(f"{name} must be dense; got a sparse matrix.")
    params = {"dtype": [np.float64, np.float32], "ensure_min_samples": min_rows}
    if np.ndim(V) == 1:  # one variable of one column (like scipy.stats)
        V = np.reshape(check_array(V, ensure_2d=False, input_name=name), (-1, 1))
    if name == "X":
        return validate_data(estimator, V, reset=reset, **params)
    return check_array(V, input_name=name, **params)

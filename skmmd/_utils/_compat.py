"""The one place that imports scikit-learn's private helpers.

A scikit-learn upgrade that moves them touches this file only.
"""

from sklearn.base import _fit_context
from sklearn.utils._array_api import (
    _convert_to_numpy,
    _is_numpy_namespace,
    _max_precision_float_dtype,
    check_same_namespace,
    get_namespace_and_device,
)
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import _is_fitted, validate_data

__all__ = [
    "_convert_to_numpy",
    "_is_fitted",
    "_is_numpy_namespace",
    "_max_precision_float_dtype",
    "check_same_namespace",
    "get_namespace_and_device",
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "RealNotInt",
    "StrOptions",
    "_fit_context",
    "validate_data",
    "validate_params",
]

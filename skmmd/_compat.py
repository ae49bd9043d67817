"""The one place that imports scikit-learn's private helpers.

A scikit-learn upgrade that moves them touches this file only.
"""

from sklearn.base import _fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import validate_data

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "StrOptions",
    "_fit_context",
    "validate_data",
    "validate_params",
]

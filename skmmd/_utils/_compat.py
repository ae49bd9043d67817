"""The one place that uses scikit-learn's and scipy's private helpers, under
public names for the rest of skmmd.

A scikit-learn or scipy upgrade that moves them touches this file only.
"""

from scipy.stats._multivariate import multi_rv_generic as MultivariateFamily
from scipy.stats._multivariate import (
    multivariate_normal_frozen as FrozenMultivariateNormal,
)
from scipy.stats._multivariate import multivariate_t_frozen as FrozenMultivariateT
from sklearn.base import _fit_context as fit_context
from sklearn.mixture._gaussian_mixture import (
    _compute_precision_cholesky as compute_precision_cholesky,
)
from sklearn.mixture._gaussian_mixture import (
    _estimate_gaussian_parameters as estimate_gaussian_parameters,
)
from sklearn.mixture._gaussian_mixture import (
    _estimate_log_gaussian_prob as estimate_log_gaussian_prob,
)
from sklearn.preprocessing._data import _handle_zeros_in_scale as handle_zeros_in_scale
from sklearn.utils._array_api import _convert_to_numpy as convert_to_numpy
from sklearn.utils._array_api import _is_numpy_namespace as is_numpy_namespace
from sklearn.utils._array_api import (
    _max_precision_float_dtype as max_precision_float_dtype,
)
from sklearn.utils._array_api import check_same_namespace, get_namespace_and_device
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)
from sklearn.utils.validation import _check_feature_names_in as check_feature_names_in
from sklearn.utils.validation import _is_fitted as is_fitted
from sklearn.utils.validation import validate_data

__all__ = [
    "FrozenMultivariateNormal",
    "FrozenMultivariateT",
    "MultivariateFamily",
    "convert_to_numpy",
    "is_fitted",
    "is_numpy_namespace",
    "max_precision_float_dtype",
    "check_feature_names_in",
    "check_same_namespace",
    "compute_precision_cholesky",
    "estimate_gaussian_parameters",
    "estimate_log_gaussian_prob",
    "get_namespace_and_device",
    "handle_zeros_in_scale",
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "RealNotInt",
    "StrOptions",
    "fit_context",
    "frozen_parameters",
    "standard_cdf_pdf",
    "n_features_out",
    "validate_data",
    "validate_parameter_constraints",
    "validate_params",
]


def frozen_parameters(frozen):
    """``(shapes, loc, scale)`` of a frozen scipy.stats law, as scipy itself
    parses its arguments (positional or keyword, defaults filled in)."""
    return frozen.dist._parse_args(*frozen.args, **frozen.kwds)


def standard_cdf_pdf(frozen):
    """``(cdf, pdf)`` of a frozen continuous scipy.stats law at location 0
    and scale 1 on the whole line, as functions of an array inside its
    support: scipy's own ``_cdf`` and ``_pdf`` with its shapes, the values
    its public ``cdf`` and ``pdf`` return there, without their per-call
    argument checks (which cost a composite test's resample more than the
    values do)."""
    shapes, loc, scale = frozen_parameters(frozen)
    if loc != 0 or scale != 1:
        raise ValueError(f"a standard law has loc 0 and scale 1; got {loc}, {scale}.")
    dist = frozen.dist
    return (lambda x: dist._cdf(x, *shapes)), (lambda x: dist._pdf(x, *shapes))


def n_features_out(transformer):
    """The output width a fitted transformer states (scikit-learn's
    ``_n_features_out``, which its feature names count), or None."""
    return getattr(transformer, "_n_features_out", None)

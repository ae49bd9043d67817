"""Input validation for estimators whose samples are sets of points ("bags").

A bag input is a sequence (list, tuple or object ndarray) of 2-D arrays, one
per set, or a 3-D array when every set has the same size. scikit-learn's
``_safe_indexing`` indexes lists and arrays by position, so such inputs split
by index in ``cross_val_score``, ``GridSearchCV`` and ``train_test_split``.
"""

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_array

from ._base import FLOAT_DTYPES


def check_bags(X, n_features=None):
    """Validate a sequence of sets; return a list of float arrays and the dtype.

    Parameters
    ----------
    X : sequence of array-like of shape (n_i, n_features), or 3-D array
        The sets.
    n_features : int, default=None
        Required number of columns (the fitted ``n_features_in_``).

    Returns
    -------
    bags : list of ndarray of shape (n_i, n_features)
        Each set as a float array (float32 kept when every set is float32).
    dtype : numpy dtype
        float32 if every set is float32, else float64.
    """
    if isinstance(X, str) or not hasattr(X, "__len__") or hasattr(X, "tocsr"):
        raise TypeError(
            "X must be a sequence of 2-D arrays (one array of points per set); got "
            f"{type(X).__name__}."
        )
    if isinstance(X, np.ndarray) and X.dtype != object and X.ndim != 3:
        raise ValueError(
            "X must be a sequence of 2-D arrays (one array of points per set) or a "
            f"3-D array (n_sets, n_points, n_features); got a {X.ndim}-D array. "
            "Wrap a single set as [X]."
        )
    if len(X) == 0:
        raise ValueError("X must contain at least one set; got an empty sequence.")
    bags = []
    for i, bag in enumerate(X):
        if hasattr(bag, "tocsr"):
            raise TypeError(f"Set {i} of X is sparse; sets must be dense 2-D arrays.")
        arr = np.asarray(bag)
        if arr.ndim != 2:
            raise ValueError(
                f"Set {i} of X must be a 2-D array (n_points, n_features); got "
                f"shape {arr.shape}."
            )
        if arr.shape[0] == 0:
            raise ValueError(
                f"Set {i} of X is empty; every set needs at least one point."
            )
        d = n_features if n_features is not None else bags[0].shape[1] if bags else None
        if d is not None and arr.shape[1] != d:
            what = "the fitted n_features_in_" if n_features is not None else "set 0"
            raise ValueError(
                f"Set {i} of X has {arr.shape[1]} features, but {what} has {d}."
            )
        bags.append(
            check_array(arr, dtype=FLOAT_DTYPES, ensure_min_features=1, input_name="X")
        )
    dtype = (
        np.dtype(np.float32)
        if all(b.dtype == np.float32 for b in bags)
        else np.dtype(np.float64)
    )
    return bags, dtype


class BagTransformerMixin(ClassNamePrefixFeaturesOutMixin, TransformerMixin):
    """Shared plumbing of the set-input transformers (not public)."""

    def _check_bags(self, X, reset):
        bags, dtype = check_bags(X, n_features=None if reset else self.n_features_in_)
        if reset:
            self.n_features_in_ = bags[0].shape[1]
        return bags, dtype

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Input is a sequence of 2-D arrays, not one 2-D array.
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

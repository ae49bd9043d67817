"""The inputs of the two-sample tests: two samples, or a pooled sample with
labels, checked and handed to the feature maps as given.

The exact test (no transformer) needs numbers and gets float arrays. With
transformers the inputs pass through: pandas DataFrames with any column types
(their columns must match by name and order), sequences of objects for
transformers of sets or strings, and arrays in their own dtype. NaN or
infinity in an array is refused here for every family, naming the rows and the
fix (:func:`check_finite`), before any feature is computed.
"""

import traceback
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_classifier
from sklearn.utils import check_array, check_consistent_length
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import column_or_1d

from .._tables._kinds import column_kind, not_numbers
from .._tables._labels import (
    check_columns,
    column_labels,
    dtypes_by_label,
    is_dataframe,
)
from .._utils import _array_api
from .._utils._compat import validate_data
from ..kernel_approximation import RandomFourierSampler, TabularSampler

FLOAT_DTYPES = [np.float64, np.float32]


def _is_sequence_of_objects(X):
    """A list or tuple that is not a 2-D table of numbers (strings, bags of
    points of different sizes, ...)."""
    if not isinstance(X, (list, tuple)):
        return False
    try:
        array = np.asarray(X)
    except ValueError:  # ragged
        return True
    return array.ndim != 2 or array.dtype.kind not in "biufc"


def auto_transformer(table, random_state=None, **params):
    """The feature map ``transformer="auto"`` stands for, the same in every
    test, in ``mmd_test`` and in the command line: a :class:`TabularSampler`
    for a table (a DataFrame; a Parquet file or a CSV file with a header), else
    a :class:`RandomFourierSampler` (numeric arrays, dense or sparse).
    ``params``: ``bandwidth``, ``n_components`` and, for arrays, ``kernel``
    and ``nu`` (None: the map's default)."""
    params = {k: v for k, v in params.items() if v is not None}
    if table:
        kernel = params.pop("kernel", "gaussian")
        params.pop("nu", None)
        if kernel != "gaussian":
            raise ValueError(
                f"kernel={kernel!r}: the default feature map of tables "
                "(TabularSampler) is Gaussian on the numeric columns; pass "
                "transformer=None for the exact test with this kernel."
            )
        return TabularSampler(random_state=random_state, **params)
    if callable(params.get("kernel")):
        raise ValueError(
            "A callable kernel is evaluated exactly: pass transformer=None "
            "(the quadratic-time test), or a feature map as transformer."
        )
    return RandomFourierSampler(random_state=random_state, **params)


def _first(X):
    """The first value of an array or a (nested) sequence, or None."""
    while isinstance(X, (list, tuple, np.ndarray)) and len(X):
        X = X[0]
    return X


def check_numbers(X, name="X"):
    """Raise a ValueError naming ``X`` when it holds strings, which the
    default map of arrays (random Fourier features) cannot take (objects that
    are numbers are left to scikit-learn's conversion)."""
    if X is None or is_dataframe(X) or sp.issparse(X):
        return
    dtype = getattr(X, "dtype", None)
    if dtype is None:
        try:
            dtype = np.asarray(X).dtype
        except ValueError:  # ragged: sets of points, ...
            dtype = np.dtype(object)
    strings = isinstance(dtype, np.dtype) and dtype.kind in "SU"
    if strings or (dtype.kind == "O" and isinstance(_first(X), str)):
        raise ValueError(
            f"{name} holds strings, not numbers, and the default feature map of "
            "arrays (random Fourier features) needs numbers: pass DataFrames, "
            "whose columns of any type TabularSampler encodes (e.g. "
            "pd.DataFrame({'x': X})), or a transformer that takes such values."
        )


def _mode(X, pass_through):
    if not pass_through:
        return "numbers"
    if is_dataframe(X):
        return "frame"
    if _is_sequence_of_objects(X):
        return "objects"
    return "array"


def _array_params(X, mode, allow_nan):
    """check_array options: floats for the exact test, else X's own dtype
    when it is not numeric (strings, objects)."""
    params = {"accept_sparse": "csr", "dtype": FLOAT_DTYPES}
    if mode == "numbers":
        return params
    dtype = getattr(X, "dtype", None)
    if dtype is None and not sp.issparse(X):
        dtype = np.asarray(X).dtype
    if dtype is not None and dtype.kind not in "biufc":
        params["dtype"] = None
    if allow_nan:
        params["ensure_all_finite"] = "allow-nan"
    return params


def _classes(labels, n_rows):
    """Validated 1-D labels of two classes and the sorted classes."""
    labels = check_array(labels, ensure_2d=False, dtype=None, input_name="y")
    check_consistent_length(np.empty(n_rows), labels)
    # check_classification_targets without its warning about many classes
    # (more than two are an error here anyway).
    y_type = type_of_target(labels, input_name="y")
    if y_type not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {y_type}. A 1-D y is read as the labels of "
            "the rows of X (fit(pooled, labels)), and they must be discrete, "
            "one class per sample; a second sample Y must be 2-D with the "
            "columns of X (a sample of one feature: Y.reshape(-1, 1))."
        )
    classes = np.unique(labels)
    if classes.size != 2:
        # sklearn's wording for a binary-only classifier given more.
        binary_only = "Only binary classification is supported: "
        raise ValueError(
            f"{binary_only if classes.size > 2 else ''}the labels y must "
            "have exactly two classes (one per sample); got "
            f"{classes.size} class{'' if classes.size == 1 else 'es'}: "
            f"{classes[:10].tolist()}."
        )
    return labels, classes


def check_same_columns(X, Y):
    """Raise a ValueError naming the columns that differ between two tables:
    missing on one side, in another order, or numeric on one side only."""
    cx, cy = column_labels(X), column_labels(Y)
    if cx != cy:
        only_x = [c for c in cx if c not in cy]
        only_y = [c for c in cy if c not in cx]
        if only_x or only_y:
            raise ValueError(
                "X and Y must have the same columns; columns only in X: "
                f"{only_x}, only in Y: {only_y}."
            )
        moved = [x for x, y in zip(cx, cy) if x != y]
        raise ValueError(
            "X and Y must have their columns in the same order; these columns "
            f"are at different positions: {moved} (reorder Y with Y[X.columns])."
        )
    # Columns of one dtype are of one kind: only the others are looked at.
    mixed = [
        f"{c!r} ({dx} in X, {dy} in Y)"
        for c, dx, dy in zip(cx, X.dtypes.tolist(), Y.dtypes.tolist())
        if dx != dy and column_kind(dx) != column_kind(dy)
    ]
    if mixed:
        raise ValueError(
            "Columns of one kind (numbers, datetimes, categories) in one sample "
            "and of another in the other: "
            f"{', '.join(mixed)}; convert them to one type in both."
        )


@contextmanager
def _as_numbers(name, V=None, numbers_only=None):
    """Name the input in numpy's errors converting it (strings, mixed
    objects, timestamps), and say what takes such values; of a DataFrame
    ``V``, the columns, and what takes numbers only (``numbers_only``)."""
    try:
        yield
    except (ValueError, TypeError) as error:
        raised_in = traceback.extract_tb(error.__traceback__)[-1].filename
        if raised_in.endswith("validation.py"):  # scikit-learn's own checks
            raise
        bad, example = not_numbers(V, times=False) if is_dataframe(V) else ([], 0)
        if bad and numbers_only:
            raise type(error)(
                f"{name}'s columns {bad[:10]} are not numbers (such as "
                f"{example!r}): {numbers_only}"
            ) from error
        raise type(error)(
            f"{name} could not be read as an array of numbers ({error}); for "
            "strings, categories or mixed columns pass DataFrames, which the "
            "default transformer (TabularSampler) encodes."
        ) from error


def _check_sizes(m, n, min_rows):
    if min(m, n) < min_rows:
        raise ValueError(
            f"Each sample needs at least {min_rows} points; got {m} in X and {n} in Y."
        )


def _float_values(V):
    """The float values of an in-memory array, a sparse matrix's stored
    values, or a sequence of numbers; None for anything else (DataFrames,
    objects, integers, lazy or device arrays, which other checks read)."""
    if sp.issparse(V):
        # The formats whose stored values are one array, in their COO order
        # (others are converted by scikit-learn, which checks them).
        V = V.data if V.format in ("csr", "csc", "coo") else None
    elif isinstance(V, (list, tuple)):
        if isinstance(_first(V), str):
            return None
        try:
            V = np.asarray(V)
        except (ValueError, TypeError):  # ragged: bags of points, ...
            return None
    if not isinstance(V, np.ndarray) or V.dtype.kind != "f":
        return None
    return V


def _bad_rows(V, mask):
    """``(rows, first)``: how many rows of ``V`` hold a value in ``mask`` (of
    its float values) and the (row, column) of the first."""
    if sp.issparse(V):
        coo = V.tocoo()
        rows, cols = coo.row[mask], coo.col[mask]
        first = np.lexsort((cols, rows))[0]
        return np.unique(rows).size, (int(rows[first]), int(cols[first]))
    if mask.ndim == 1:  # one variable
        return int(mask.sum()), (int(np.argmax(mask)), 0)
    at = np.argwhere(mask)[0]
    return int(mask.any(axis=1).sum()), (int(at[0]), int(at[1]))


def _finite_fix(name, missing, transformer, of_two_samples):
    """What to do about NaN (``missing``) or infinity in the array ``name``."""
    if not missing:
        return (
            "drop those rows or replace the values (e.g. by NaN, a missing "
            "value, where the test takes them)."
        )
    if transformer is None:
        return (
            "drop those rows or impute them (sklearn.impute.SimpleImputer); the "
            "test needs a number in every column of every row."
        )
    frames = (
        "pass both samples as pandas DataFrames (pd.DataFrame(X), pd.DataFrame(Y))"
        if of_two_samples
        else f"pass {name} as a pandas DataFrame (pd.DataFrame({name}))"
    )
    explicit = (
        f"; or pass {transformer}=TabularSampler() with the arrays"
        if of_two_samples
        else ""
    )
    return (
        f"{frames}: with {transformer}='auto' (the default) "
        f"{'they are' if of_two_samples else 'it is'} mapped by "
        "TabularSampler, which imputes missing values and adds a missing "
        f"indicator{explicit}; or drop or impute those rows."
    )


def check_finite(
    V, name="X", *, allow_nan=False, transformer=None, of_two_samples=False
):
    """Raise a ValueError naming ``name``, its rows and the fix when the array
    ``V`` holds NaN (unless ``allow_nan``) or infinity.

    The one check of array values of every family, run before any feature
    is computed, in place of scikit-learn's generic text.

    Parameters
    ----------
    V : object
        A variable or sample as given; only float arrays, sparse matrices and
        sequences of numbers are read (one sum over the values when they are
        finite).
    name : str, default="X"
        The parameter's name in the messages.
    allow_nan : bool, default=False
        Whether NaN (a missing value) is accepted; infinity never is.
    transformer : str or None, default=None
        The test's parameter whose ``'auto'`` maps DataFrames with
        ``TabularSampler`` (e.g. ``"transformer"``, ``"x_transformer"``),
        named in the fix; None where no map of tables applies (goodness of
        fit: the fix is to drop or impute the rows).
    of_two_samples : bool, default=False
        Whether ``V`` is a sample of a two-sample test: the fix makes both
        samples DataFrames, or gives a ``TabularSampler`` as ``transformer``
        (which takes arrays with missing values there).
    """
    values = _float_values(V)
    if values is None:
        return
    with np.errstate(all="ignore"):  # an overflowing sum: read each value
        if np.isfinite(values.sum()):
            return
    for missing, mask in ((True, np.isnan(values)), (False, np.isinf(values))):
        if (missing and allow_nan) or not mask.any():
            continue
        k, (row, column) = _bad_rows(V if sp.issparse(V) else values, mask)
        what = "NaN (missing values)" if missing else "infinity"
        n = V.shape[0] if sp.issparse(V) else values.shape[0]
        raise ValueError(
            f"Input {name} contains {what} in {k} of {n} rows (the first at row "
            f"{row}, column {column}): "
            + _finite_fix(name, missing, transformer, of_two_samples)
        )


def _check_values(estimator, V, name, allow_nan, of_two_samples):
    """:func:`check_finite` of the variable ``name`` of ``estimator``, the fix
    naming its map parameter (``transformer``, or ``x_transformer`` for
    ``X`` of a test of two variables)."""
    params = estimator.get_params(deep=False)
    transformer = next(
        (p for p in ("transformer", f"{name.lower()}_transformer") if p in params),
        None,
    )
    check_finite(
        V,
        name,
        allow_nan=allow_nan,
        transformer=transformer,
        of_two_samples=of_two_samples,
    )


def check_kind(estimator, X, reset, name="X", *, allow_nan=False, of_two_samples=False):
    """Record whether the variable ``name`` is a DataFrame (``reset``), or
    check that later rows (a ``partial_fit`` chunk) are of the first's kind:
    a stream's columns are matched by name or by position, not both. A
    DataFrame's labels are checked (:func:`check_columns`), an array's values
    (:func:`check_finite`, naming the estimator's map parameter in the fix)."""
    frame = is_dataframe(X)
    kinds = estimator.__dict__.setdefault("_input_frames", {})
    if reset:
        kinds[name] = frame
    elif kinds.get(name, frame) != frame:
        first = "arrays, not DataFrames" if frame else "DataFrames"
        raise ValueError(
            f"{name} is a {type(X).__name__}, but {type(estimator).__name__} was "
            f"fitted on {first}; pass later rows of the same kind as the first."
        )
    if frame:
        check_columns(X, name)
    else:
        _check_values(estimator, X, name, allow_nan, of_two_samples)


def _frames(estimator, X, Y, reset, min_rows):
    if X.shape[1] == 0:
        raise ValueError("X has no columns: the samples need at least one.")
    if is_dataframe(Y):
        check_columns(Y, "Y")
        check_same_columns(X, Y)
        classes = None
        check_finite_columns(X, "X")
        check_finite_columns(Y, "Y")
    elif len(np.shape(Y)) == 2 and not (np.shape(Y)[1] == 1 and X.shape[1] > 1):
        raise ValueError(
            f"X is a DataFrame and Y a {type(Y).__name__} of shape "
            f"{np.shape(Y)}: pass both samples as DataFrames with the same "
            "columns (e.g. pd.DataFrame(Y, columns=X.columns)), or both as "
            "arrays."
        )
    else:
        labels, classes = _classes(np.asarray(Y), X.shape[0])
        X, Y = (X.iloc[np.flatnonzero(labels == c)] for c in classes)
    # Records (reset) or checks n_features_in_ and feature_names_in_.
    validate_data(estimator, X, reset=reset, skip_check_array=True)
    _check_sizes(X.shape[0], Y.shape[0], min_rows)
    return X, Y, classes


def check_finite_columns(X, name):
    """Name the sample and the columns holding an infinite number (missing
    values are NaN; an infinity is an error of the data)."""
    numbers = [c for c, dtype in dtypes_by_label(X).items() if dtype.kind in "fc"]
    # One check per block of columns (pandas applies the ufunc blockwise),
    # not one per column: a wide table's columns cost as much as its values.
    infinite = np.isinf(X[numbers]).any()
    bad = list(infinite.index[infinite.to_numpy(dtype=bool)])
    if bad:
        raise ValueError(
            f"Input {name} contains infinity in columns {bad[:10]}; drop or "
            "replace such values (missing values may be NaN)."
        )


def _objects(X, Y, min_rows):
    if isinstance(Y, (list, tuple)):
        X, Y, classes = list(X), list(Y), None
    else:
        labels, classes = _classes(np.asarray(Y), len(X))
        X, Y = ([x for x, lab in zip(X, labels) if lab == c] for c in classes)
    _check_sizes(len(X), len(Y), min_rows)
    return X, Y, classes


def _numeric_1d(V):
    """``V`` as a column when it is a 1-D array or sequence of numbers (one
    variable, as ``scipy.stats`` takes a sample), else None."""
    if V is None or is_dataframe(V) or sp.issparse(V) or _array_api.namespace(V)[0]:
        return None
    if len(getattr(V, "shape", (None, None))) != 1 and not (
        isinstance(V, (list, tuple)) and V and np.ndim(_first(V)) == 0
    ):
        return None
    try:
        array = np.asarray(V)
    except (ValueError, TypeError):  # ragged: bags of points
        return None
    if array.ndim != 1 or array.dtype.kind not in "biuf":
        return None
    return array.reshape(-1, 1)


def one_variable(X, Y):
    """The convention for 1-D samples, as in ``scipy.stats``: a 1-D ``X`` of
    numbers is a sample of one variable (a column), and so is a 1-D ``Y``
    with it (not labels: a pooled sample with labels needs a 2-D ``X``)."""
    column = _numeric_1d(X)
    if column is None:
        return X, Y
    other = _numeric_1d(Y)
    return column, (Y if other is None else other)


def two_samples(
    estimator,
    X,
    Y,
    *,
    reset,
    min_rows=2,
    pass_through=False,
    allow_nan=False,
    namespace=None,
    numbers_only=None,
):
    """Validated ``(X, Y, classes)`` from two samples or pooled + labels.

    ``Y`` is labels when it is 1-D or, for a classifier (MMDTest), a column
    vector ``(N, 1)`` for the rows of ``X`` when ``X`` has more than one
    feature (with sklearn's ``DataConversionWarning``); otherwise it is the
    second sample. ``pass_through``: the samples go to transformers, not to
    the exact kernel, so DataFrames and object sequences are kept as they are
    (``allow_nan``: the transformers accept missing values). ``namespace``:
    ``(xp, device)`` of array-API input, as the engine seam recognised it
    (None for host input). ``numbers_only``: what takes numbers only, for
    the error naming a DataFrame's other columns.
    """
    if Y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target "
            "y is None: give two samples (X, Y) with Y 2-D, or (pooled, labels) "
            "with 1-D labels of two classes."
        )
    X, Y = one_variable(X, Y)
    if namespace is not None:
        return _array_api_samples(estimator, X, Y, reset, min_rows, *namespace)
    mode = _mode(X, pass_through)
    check_kind(estimator, X, reset, allow_nan=allow_nan, of_two_samples=True)
    if mode == "frame":
        return _frames(estimator, X, Y, reset, min_rows)
    if mode == "objects":
        return _objects(X, Y, min_rows)
    # A partial_fit chunk (min_rows=0) may hold no rows of a sample; the
    # sizes are checked below, naming the sample.
    params = {**_array_params(X, mode, allow_nan), "ensure_min_samples": 0}
    with _as_numbers("X", X, numbers_only):
        X = validate_data(estimator, X, reset=reset, **params)
    if min_rows and X.shape[0] == 0:
        raise ValueError(f"X has no rows; each sample needs at least {min_rows}.")
    if not sp.issparse(Y) and not hasattr(Y, "shape"):
        # Lists and other array-likes; np.asarray uses __array__, never
        # __array_function__ (which np.ndim or np.shape would call).
        Y = np.asarray(Y)
    labels = None
    if not sp.issparse(Y):
        if len(Y.shape) == 1:
            labels = np.asarray(Y)
        elif (
            is_classifier(estimator)
            and len(Y.shape) == 2
            and Y.shape[1] == 1
            and Y.shape[0] == X.shape[0]
            and X.shape[1] > 1
        ):
            # A column vector of labels, not a one-feature second sample.
            labels = column_or_1d(Y, warn=True)
    if labels is not None:
        labels, classes = _classes(labels, X.shape[0])
        X, Y = X[labels == classes[0]], X[labels == classes[1]]
    else:
        Y = _second_sample(estimator, X, Y, params, numbers_only)
        classes = None
    _check_sizes(X.shape[0], Y.shape[0], min_rows)
    return X, Y, classes


def _second_sample(estimator, X, Y, params, numbers_only=None):
    """Y validated as a second sample of X's width."""
    allow_nan = params.get("ensure_all_finite") == "allow-nan"
    _check_values(estimator, Y, "Y", allow_nan, of_two_samples=True)
    with _as_numbers("Y", Y, numbers_only):
        Y = check_array(Y, input_name="Y", **params)
    if isinstance(X.dtype, np.dtype) and isinstance(Y.dtype, np.dtype):
        try:
            np.result_type(X.dtype, Y.dtype)
        except TypeError:  # numpy's DTypePromotionError
            raise TypeError(
                f"X holds {X.dtype} values and Y {Y.dtype} values: the two samples "
                "need values of one type."
            ) from None
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features; got X with "
            f"{X.shape[1]} and Y with {Y.shape[1]}."
        )
    return Y


def _array_api_samples(estimator, X, Y, reset, min_rows, xp, device):
    """:func:`two_samples` for arrays of another namespace (array_api_dispatch):
    they stay on their device; labels may be NumPy or of X's namespace."""
    params = {
        "dtype": _array_api.float_dtypes(xp),
        "ensure_min_samples": min(min_rows, 1),
    }
    X = validate_data(estimator, X, reset=reset, **params)
    Y_xp, _ = _array_api.namespace(Y)
    labels = _array_api.to_numpy(Y, xp) if Y_xp is not None else Y
    if len(getattr(labels, "shape", np.shape(labels))) == 1:
        labels, classes = _classes(np.asarray(labels), X.shape[0])
        X, Y = (
            _array_api.take_rows(X, np.flatnonzero(labels == c), xp, device)
            for c in classes
        )
    else:
        Y = _second_sample(estimator, X, Y, params)
        classes = None
    _check_sizes(X.shape[0], Y.shape[0], min_rows)
    return X, Y, classes


def points(estimator, X, *, pass_through=False, allow_nan=False):
    """Points to evaluate a fitted test's witness at, checked like its samples."""
    xp, _ = _array_api.namespace(X)
    if xp is not None:
        dtypes = _array_api.float_dtypes(xp)
        return validate_data(estimator, X, reset=False, dtype=dtypes)
    mode = _mode(X, pass_through)
    if mode == "frame":
        check_columns(X, "X")
        validate_data(estimator, X, reset=False, skip_check_array=True)
        return X
    if mode == "objects":
        return list(X)
    _check_values(estimator, X, "X", allow_nan, of_two_samples=True)
    return validate_data(estimator, X, reset=False, **_array_params(X, mode, allow_nan))


def stack(X, Y, namespace=None):
    """The pooled sample: X's rows first, then Y's (``namespace``: ``(xp,
    device)`` of array-API samples)."""
    if namespace is not None:
        return _array_api.concat([X, Y], namespace[0])
    if is_dataframe(X):
        import pandas as pd  # only reached with DataFrames

        return pd.concat([X, Y], ignore_index=True)
    if isinstance(X, list):
        return X + Y
    return sp.vstack([X, Y], format="csr") if sp.issparse(X) else np.vstack([X, Y])

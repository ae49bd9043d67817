"""A feature map for raw tables: numeric, categorical, boolean columns and
missing values, composed from scikit-learn's column tools."""

from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._tables._kinds import not_numbers, numeric_column, numeric_dtype
from .._tables._labels import (
    check_columns,
    column_labels,
    dtypes_by_label,
    is_dataframe,
)
from .._tables._one_hot import OneHotLevels
from .._tables._parts import (
    MedianQuartiles,
    MissingFlags,
    clip_far,
    fit_parts,
    names_checked,
    part_sums_and_head,
    prepared_parts,
)
from .._tables._values import canonical, canonical_array
from .._utils import _budgets, _streams
from .._utils._compat import Interval, StrOptions, fit_context, validate_data
from .._utils._streams import draw_seed
from ._base import FusedSums
from ._ufunc_fourier import UfuncFourier


class TabularSampler(FusedSums, TransformerMixin, BaseEstimator):
    """Feature map of a raw mixed-type table (numbers, categories, missing values).

    Fourier features for the numeric columns, one-hot for the categorical ones,
    indicators for missing values. Works on a raw pandas DataFrame (or a 2-D
    array) with no configuration: numeric columns are imputed with their
    median, scaled robustly (median and interquartile range) and mapped jointly
    by a Gaussian
    :class:`RandomFourierSampler`; categorical, string and boolean columns are
    one-hot encoded (their missing values are a category of their own); every
    numeric column also has a missingness indicator, so a change in how often
    values are missing is itself a difference between distributions.
    Categories unseen at fit time map to zeros (they match nothing), also in
    a column whose rare categories share an "infrequent" column. Datetime and
    timedelta columns are numeric (seconds; NaT is missing); pandas' nullable
    dtypes keep their kind, with ``pd.NA`` a missing value. Column labels
    must be unique, flat and all strings or none (see :ref:`input_contract`).

    Parameters
    ----------
    n_components : int, default=256
        Random Fourier features of the numeric block.
    categorical : "auto" or list of str or int, default="auto"
        The categorical columns (names for a DataFrame, positions for an
        array); the others are numeric. ``"auto"``: columns whose dtype is not
        numeric, or boolean (pandas ``category``, ``object``, ``string``,
        ``bool``); for an array, columns that do not convert to numbers.
    bandwidth : "median" or float, default="median"
        Bandwidth of the Gaussian kernel on the robustly scaled numeric
        columns; ``"median"`` is the median distance between rows of the
        scaled data passed to ``fit``: over every pair of up to 1000 rows,
        else over 4096 random pairs of distinct rows (as precise, in time
        linear in the rows).
    max_categories : int or None, default=100
        Largest number of one-hot columns per categorical column: rarer
        categories are pooled into one "infrequent" column (OneHotEncoder's
        ``max_categories``). ``None`` keeps every category (exact delta kernel
        even for identifiers with millions of values, at that width).
    random_state : int, RandomState instance or None, default=None
        Pseudo-random number generator to control the Fourier frequencies and
        the pairs of the median heuristic. Pass an int for reproducible
        output across multiple function calls.

    Attributes
    ----------
    numeric_columns_ : list
        Names (DataFrame) or positions (array) of the numeric columns.
    categorical_columns_ : list
        Names or positions of the categorical columns.
    column_transformer_ : sklearn.compose.ColumnTransformer
        The fitted map, its blocks weighted as in Notes: ``"numeric"`` (a
        pipeline: median imputation and robust scaling in one step, the
        values of ``SimpleImputer(strategy="median")`` then
        ``RobustScaler()``; scaled values clipped to +-1e12; Gaussian random
        Fourier features, those of :class:`RandomFourierSampler`),
        ``"missing"`` (``MissingIndicator(features="all")``'s indicators, one
        per numeric column, summed by counting) and ``"categorical"``
        (``OneHotEncoder(handle_unknown="ignore", max_categories=...)``'s
        one-hot, its levels found by hashing).
    bandwidth_ : float or None
        The Gaussian bandwidth of the numeric block's Fourier features (on
        the robust-scaled columns); None without numeric columns.
    n_features_in_ : int
        Number of columns seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of columns seen during ``fit``, when X has string column names.

    See Also
    --------
    RandomFourierSampler : The numeric block's map.
    sklearn.compose.ColumnTransformer : What this map is built from.

    Notes
    -----
    With ``p`` columns, of which ``p_num`` numeric (set ``J``) and categorical
    set ``C``, the kernel is the weighted sum

    .. math::

        k(x, y) = \\frac{1}{p} \\Big[ p_{num} \\, k_G(s(x_J), s(y_J))
        + \\sum_{c \\in C} 1[x_c = y_c]
        + \\sum_{j \\in J} 1[x_j, y_j \\text{ both missing}] \\Big],

    with ``k_G`` the Gaussian kernel (approximated by random Fourier features),
    ``s`` the imputation and robust scaling, and the categorical and
    missingness parts exact. Each column weighs ``1/p``, so ``MMD^2`` is an
    average over columns: a categorical column alone contributes
    ``sum_v (P(v) - Q(v))^2 / p`` (squared L2 distance of its category
    shares), a numeric column's missing rate moving from ``r`` to ``r'``
    contributes ``(r - r')^2 / p``. The sum detects any change of the joint
    law of the numeric columns and of each categorical column's marginal, but
    not a change confined to the dependence between a categorical and another
    column.

    Examples
    --------
    >>> import pandas as pd
    >>> from skmmd import TabularSampler
    >>> df = pd.DataFrame({"age": [31.0, None, 45.0, 52.0],
    ...                    "city": ["Oslo", "Lima", None, "Oslo"],
    ...                    "member": [True, False, True, True]})
    >>> Z = TabularSampler(n_components=8, random_state=0).fit_transform(df)
    >>> Z.shape  # 8 Fourier + 1 indicator + 3 cities + 2 booleans
    (4, 14)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "categorical": [StrOptions({"auto"}), list],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "max_categories": [None, Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_components=256,
        categorical="auto",
        bandwidth="median",
        max_categories=100,
        random_state=None,
    ):
        self.n_components = n_components
        self.categorical = categorical
        self.bandwidth = bandwidth
        self.max_categories = max_categories
        self.random_state = random_state

    def _validate(self, X, reset):
        if is_dataframe(X):
            check_columns(X)
            validate_data(self, X, reset=reset, skip_check_array=True)
            if X.shape[1] == 0:
                raise ValueError("X has no columns: the table needs at least one.")
            if reset:
                self._fitted_on_frame = True
            return canonical(X)
        if not reset and getattr(self, "_fitted_on_frame", False):
            raise ValueError(
                f"TabularSampler was fitted on a DataFrame; transform needs a "
                f"DataFrame with the same columns, got {type(X).__name__}."
            )
        X = validate_data(
            self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan"
        )
        X = canonical_array(X)
        if reset:
            self._fitted_on_frame = False
        return X

    def _split_columns(self, X):
        """(numeric, categorical) column keys of X."""
        frame = is_dataframe(X)
        keys = column_labels(X) if frame else list(range(X.shape[1]))
        if self.categorical == "auto":
            if frame:
                kinds = zip(keys, X.dtypes)  # by dtype, no column taken
                categorical = [c for c, dtype in kinds if not numeric_dtype(dtype)]
            else:
                categorical = [c for c in keys if not numeric_column(X[:, c])]
        else:
            unknown = [c for c in self.categorical if c not in keys]
            if unknown:
                raise ValueError(
                    f"categorical names columns {unknown} that X does not have; its "
                    f"columns are {keys[:20]}."
                )
            categorical = list(self.categorical)
        numeric = [c for c in keys if c not in categorical]
        if self.categorical != "auto":
            _check_numbers(X, numeric)
        return numeric, categorical

    @property
    def bandwidth_(self):
        """The numeric block's bandwidth (None without numeric columns)."""
        numeric = self.column_transformer_.named_transformers_.get("numeric")
        return None if numeric is None else numeric[-1].bandwidth_

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the column maps (imputer, scaler, Fourier map, encoder) on X.

        The numeric columns' medians, quartiles and bandwidth come from at
        most 4096 of the rows (a subsample seeded by ``random_state`` above
        that), which set them as well as all rows at a fraction of a wide
        table's cost; the categories come from every row, so that no level
        of X is unseen.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The table; any column types, missing values as NaN or None.
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted sampler.
        """
        X = self._validate(X, reset=True)
        # Imported here, not with skmmd: scikit-learn's compose and pipeline
        # modules are needed by tables only, so other cold starts skip them.
        from sklearn.compose import ColumnTransformer
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import FunctionTransformer

        numeric, categorical = self._split_columns(X)
        seed = draw_seed(check_random_state(self.random_state))
        blocks, weights = [], {}
        if numeric:
            rff = UfuncFourier(
                bandwidth=self.bandwidth,
                n_components=self.n_components,
                random_state=seed,
            )
            # The imputer's medians (keep_empty_features: an all-NaN column
            # becomes a constant, not a dropped one, so the map's width does
            # not depend on the data) and the robust scaler's statistics in
            # one step; its new array clipped in place.
            clip = FunctionTransformer(clip_far, feature_names_out="one-to-one")
            numbers = make_pipeline(MedianQuartiles(), clip, rff)
            blocks += [
                ("numeric", numbers, numeric),
                ("missing", MissingFlags(), numeric),
            ]
            weights.update(numeric=len(numeric), missing=1.0)
        # A few thousand rows set the medians, quartiles and bandwidth as well
        # as all of them, at a fraction of a wide table's cost.
        fit_rows = _streams.subsample(
            X.shape[0], _budgets.TABLE_STATISTIC_ROWS, seed, _streams.TABLE_ROWS
        )
        if categorical:
            # Every row's categories, whatever rows the other blocks fit on.
            every = X[categorical] if is_dataframe(X) else X[:, categorical]
            encoder = OneHotLevels(
                max_categories=self.max_categories,
                levels=OneHotLevels.levels_of(every) if fit_rows is not None else None,
            )
            blocks.append(("categorical", encoder, categorical))
            weights["categorical"] = 1.0
        n_columns = len(numeric) + len(categorical)
        # Columns by position: ColumnTransformer reads integer labels as
        # positions, which would route labels [1, 0] to the wrong blocks.
        # (Integer arrays: scikit-learn reads a list's kind element by element.)
        keys = column_labels(X) if is_dataframe(X) else list(range(X.shape[1]))
        position = {key: i for i, key in enumerate(keys)}
        blocks = [
            (name, t, np.array([position[c] for c in cols], dtype=np.intp))
            for name, t, cols in blocks
        ]
        # Feature scale sqrt(w / p) gives kernel weight w / p (see Notes).
        if fit_rows is not None:
            X = X.iloc[fit_rows] if is_dataframe(X) else X[fit_rows]
        self.column_transformer_ = fit_parts(
            ColumnTransformer(
                blocks,
                transformer_weights={
                    k: np.sqrt(w / n_columns) for k, w in weights.items()
                },
            ),
            X,
        )
        self.numeric_columns_, self.categorical_columns_ = numeric, categorical
        return self

    def transform(self, X):
        """Map a table to its features.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The table, with the columns seen in ``fit``.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_features_out)
            Features (float64).
        """
        X = self._checked(X)
        at, weights, width = self._layout()
        Z = np.empty((X.shape[0], width))
        with self._fitted_kinds(), names_checked():
            for name, block, V in prepared_parts(self.column_transformer_, X):
                Z[:, at[name]] = weights[name] * block.transform(V)
        return Z

    def projected_features(self, X, projection):
        """Map a table to its features times a projection, block by block.

        ``transform(X) @ projection(width)``, each block's features
        multiplied as it is mapped (never stored side by side);
        ``transform(X)`` when ``projection(width)`` has ``width`` columns or
        more. The tests' order check reads a wide map's features this way.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The table, with the columns seen in ``fit``.
        projection : callable
            ``projection(width)``: an array of shape (width, k).

        Returns
        -------
        P : ndarray of shape (n_samples, k)
            The projected features (float64).

        Examples
        --------
        >>> import numpy as np
        >>> from skmmd import TabularSampler
        >>> X = np.random.default_rng(0).normal(size=(50, 3))
        >>> sampler = TabularSampler(n_components=32, random_state=0).fit(X)
        >>> R = lambda width: np.ones((width, 2))
        >>> P = sampler.projected_features(X, R)
        >>> bool(np.allclose(P, sampler.transform(X) @ np.ones((35, 2))))
        True
        """
        X = self._checked(X)
        at, weights, width = self._layout()
        R = projection(width)
        if R.shape[1] >= width:
            return self.transform(X)
        out = np.zeros((X.shape[0], R.shape[1]))
        with self._fitted_kinds(), names_checked():
            for name, block, V in prepared_parts(self.column_transformer_, X):
                out += block.transform(V) @ (weights[name] * R[at[name]])
        return out

    def _checked(self, X):
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        if is_dataframe(X):
            _check_kinds(self, X)
        return X

    @contextmanager
    def _fitted_kinds(self):
        try:
            yield
        except (TypeError, ValueError) as error:
            # e.g. numbers in an array column fitted on strings
            raise type(error)(
                f"X: its values do not match the columns TabularSampler was "
                f"fitted on (numeric {self.numeric_columns_[:10]}, categorical "
                f"{self.categorical_columns_[:10]}): {error}"
            ) from error

    def _sums_per_group(self, X, groups, n_groups, out=None):
        """:meth:`grouped_sums`: the Fourier block's features never stored."""
        return _sums_and_head(self, self._checked(X), groups, n_groups, 0, None, out)[0]

    def grouped_sums_and_projected(
        self, X, groups, n_groups, n_rows, projection, out=None
    ):
        """Sum the features per group and project the first rows' features.

        :meth:`grouped_sums`, and :meth:`projected_features` of the first
        ``n_rows`` rows from the features each block computes for the sums
        (the tests' order check; any map may define this method).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The table, with the columns seen in ``fit``.
        groups : ndarray of shape (n_samples,) of int
            The group of each row, in ``0 .. n_groups - 1``.
        n_groups : int
            Number of groups.
        n_rows : int
            The first rows whose features are projected (at most
            ``n_samples``; 0: none, and ``projection`` is not called).
        projection : callable
            ``projection(width)``: an array of shape (width, k).
        out : tuple of two ndarrays, default=None
            ``(S, q)`` to add the sums into, as in :meth:`grouped_sums`.

        Returns
        -------
        S, q : ndarray
            :meth:`grouped_sums`'s (``out``'s arrays when given).
        P : ndarray of shape (n_rows, k)
            ``projected_features(X[:n_rows], projection)``.

        Examples
        --------
        >>> import numpy as np
        >>> from skmmd import TabularSampler
        >>> X = np.random.default_rng(0).normal(size=(40, 2))
        >>> sampler = TabularSampler(n_components=16, random_state=0).fit(X)
        >>> first = lambda width: np.eye(width)[:, :3]  # the first 3 features
        >>> groups = np.arange(40) % 4
        >>> S, q, P = sampler.grouped_sums_and_projected(X, groups, 4, 10, first)
        >>> bool(np.allclose(P, sampler.transform(X[:10])[:, :3]))
        True
        """
        X = self._checked(X)
        (S, q), P = _sums_and_head(self, X, groups, n_groups, n_rows, projection, out)
        return S, q, P

    @property
    def _n_features_out(self):
        """The output width (what the stream reads instead of mapping a row)."""
        return self._layout()[2]

    def _layout(self):
        """``(at, weights, width)``: where each block's features sit in the
        output, their weights, and the number of features."""
        at = self.column_transformer_.output_indices_
        weights = self.column_transformer_.transformer_weights
        width = max(place.stop for place in at.values())
        return at, {name: weights.get(name, 1.0) for name in at}, width

    def get_feature_names_out(self, input_features=None):
        """Get the names of the output features, from the column transformer.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Unused beyond scikit-learn's consistency check with the names seen
            in ``fit``.

        Returns
        -------
        feature_names_out : ndarray of str objects
            E.g. ``"numeric__randomfouriersampler0"``,
            ``"missing__missingindicator_age"``, ``"categorical__city_Oslo"``.
        """
        check_is_fitted(self)
        return self.column_transformer_.get_feature_names_out(input_features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


def _sums_and_head(sampler, X, groups, n_groups, n_rows, projection, out):
    """:meth:`TabularSampler.grouped_sums_and_projected` of checked ``X``:
    ``((S, q), P)``, ``(S, q)`` being ``out`` when given."""
    at, weights, width = sampler._layout()
    if out is None:
        out = (np.zeros((n_groups, width)), np.zeros(n_groups))
    S, q = out
    R = None if not n_rows else projection(width)
    whole = R is not None and R.shape[1] >= width  # the features themselves
    P = np.zeros((n_rows, width if whole else 0 if R is None else R.shape[1]))
    norms = {}
    with sampler._fitted_kinds(), names_checked():
        for name, block, V in prepared_parts(sampler.column_transformer_, X):
            into = P[:, at[name]] if whole else P
            part, q_part = part_sums_and_head(
                block,
                V,
                (groups, n_groups),
                into,
                None if whole or R is None else weights[name] * R[at[name]],
            )
            if whole:
                into *= weights[name]
            # Each block's sums added where its features sit (no stacked copy).
            S[:, at[name]] += weights[name] * part
            norms[name] = weights[name] ** 2 * q_part
    # The squared norms added in the blocks' own order, whatever the order
    # they were mapped in (the same rounding).
    for name in at:
        if name in norms:
            q += norms[name]
    return out, P


def _check_numbers(X, numeric):
    """A ValueError naming the columns left out of ``categorical`` that do
    not read as numbers (text), before any block is fitted."""
    bad, example = not_numbers(X, numeric)
    if bad:
        raise ValueError(
            f"categorical leaves out columns {bad[:10]} that hold text (such as "
            f"{example!r}), which the numeric block cannot read as numbers: list "
            "them in categorical, or use categorical='auto'."
        )


def _check_kinds(sampler, X):
    """A TypeError naming the first column of ``X`` whose values are not
    of the kind ``sampler`` (a fitted :class:`TabularSampler`) saw in
    ``fit`` (numbers, or strings for a categorical column fitted on
    strings); columns with no values pass."""
    import pandas as pd  # only reached with a DataFrame

    infer = pd.api.types.infer_dtype
    strings = {}
    if "categorical" in sampler.column_transformer_.named_transformers_:
        encoder = sampler.column_transformer_.named_transformers_["categorical"]
        for c, values in zip(sampler.categorical_columns_, encoder.categories_):
            strings[c] = any(isinstance(v, str) for v in values)
    dtypes = dtypes_by_label(X)  # no lookup in a Series per column
    for c in [*sampler.numeric_columns_, *sampler.categorical_columns_]:
        if c not in strings and dtypes[c].kind in "iuf":
            continue  # numbers by their dtype: nothing to read
        if strings.get(c) and isinstance(dtypes[c], pd.StringDtype):
            continue  # text by its dtype (strings or missing values)
        column = X[c]
        if column.isna().all():
            continue
        if c in strings:
            categories = isinstance(column.dtype, pd.CategoricalDtype)
            kind = infer(column.cat.categories if categories else column, True)
            if (kind == "string") == strings[c]:
                continue
            fitted = "strings" if strings[c] else "numbers or booleans"
        elif numeric_column(column):
            continue
        else:
            fitted = "numbers"
        example = column.dropna().iloc[0]
        example = example.item() if isinstance(example, np.generic) else example
        raise TypeError(
            f"X: column {c!r} held {fitted} when TabularSampler was fitted; "
            f"got {column.dtype} values such as {example!r}."
        )

"""The conditional tests of a causal search on one data set: the fitted maps
of its columns and the shared work of each conditioning set
(:class:`ConditionalSearch`), what causal-learn's adapter
:class:`~skmmd.causal.SkmmdCIT` wraps.

Within one search the features of each column are computed once and serve
every test of that column (as x or as y), and the Z map of each conditioning
set is fitted once; the tests given one set share its folds, its features of
Z and the ridge's statistics and eigendecompositions (for the most recent
sets within a memory budget), so each computes only what its pair adds. Each
test's randomness (units, signs; folds per set) comes from ``random_state``
and the variables tested, so a search is reproducible and its p-values do not
depend on the order of the tests.

A table (a DataFrame) may hold text, categorical and boolean columns, mapped
as :class:`~skmmd.ConditionalHSICTest` maps them, and missing values, handled
test-wise: each test runs on the rows complete for its variables (as
causal-learn's ``mv_fisherz`` does), each map fit on the rows where its
variables are present.
"""

import contextlib
from collections import OrderedDict

import numpy as np
from sklearn import config_context
from sklearn.utils import check_random_state

from .._tables._kinds import numeric_dtype
from .._tables._labels import is_dataframe
from .._utils import _budgets, _streams
from .._utils._compat import validate_parameter_constraints
from .._utils._threads import one_blas_thread
from ._estimator import ConditionalHSICTest
from ._maps import fit_rows, relevant_columns, screens, weight_map, xy_map, z_map
from ._pipeline import RowFeatures, calibrated
from ._ridge import FoldDesign

# Bytes of the features of z and the ridge's per-fold statistics and
# eigendecompositions kept for the most recent conditioning sets: a search
# tests each set with several pairs, mostly soon after each other.
_SHARED_BYTES = 2**29

# The options of a search, checked by the estimator's own constraints
# (``level`` by those of its ``alpha``).
_OPTIONS = (
    "random_state",
    "n_resamples",
    "n_folds",
    "n_z_features",
    "z_screen",
    "block_size",
)
CONSTRAINTS = {
    **{name: ConditionalHSICTest._parameter_constraints[name] for name in _OPTIONS},
    "level": ConditionalHSICTest._parameter_constraints["alpha"],
}


def _is_number(column):
    """Whether a column of a table is read as numbers (booleans as 0 and 1,
    as the estimator reads a table of numbers: ``numeric_dtype(dtype,
    as_floats=True)``); the rest is mapped as text."""
    return numeric_dtype(column.dtype, as_floats=True)


class ConditionalSearch:
    """The conditional tests of one data set, sharing their work.

    Parameters
    ----------
    data : ndarray of shape (n_samples, n_variables) or DataFrame
        One column per variable: numbers (NaN: missing), or a table whose
        text, categorical and boolean columns are mapped as the estimator
        maps them (None, NaN and pd.NA: missing).
    random_state : int, RandomState instance or None
        Seed of every test, combined with the variables tested (None or a
        RandomState: an int drawn from it once).
    n_resamples, n_folds, n_z_features, z_screen, block_size
        As in :class:`~skmmd.ConditionalHSICTest` (``block_size``: the rows
        are in time order; ``"auto"`` chooses each test's blocks from its
        own residual products).
    level : float
        The ``alpha`` of each test (where ``n_resamples="auto"`` stops).
    names : list of str or None, default=None
        The variables' names in messages (None: a table's column labels, an
        array's ``X1, X2, ...`` as causal-learn names its nodes).
    caller : str, default="SkmmdCIT"
        The adapter whose options are checked, as messages name it.

    Attributes
    ----------
    params : dict
        The options, ``random_state`` as an int: what identifies the search's
        p-values (causal-learn's cache key).
    data : ndarray of shape (n_samples, n_variables)
        The numbers of the data (text columns: codes, for causal-learn).
    """

    def __init__(self, data, *, level, names=None, caller="SkmmdCIT", **options):
        validate_parameter_constraints(
            CONSTRAINTS, {**options, "level": level}, caller_name=caller
        )
        self.table, self.data, self._missing = _read(data)
        if names is None:
            names = (
                [str(c) for c in data.columns]
                if self.table is not None
                else [f"X{j + 1}" for j in range(self.data.shape[1])]
            )
        self.names = list(names)
        self.ids = list(range(self.data.shape[1]))
        infinite = np.isinf(self.data).any(axis=0)
        if infinite.any():
            raise ValueError(
                "data has infinite values in "
                f"{[self.names[j] for j in np.flatnonzero(infinite)]}: the test "
                "takes finite values (NaN: missing)."
            )
        seed = options["random_state"]
        if not isinstance(seed, (int, np.integer)):
            seed = _streams.draw_seed(check_random_state(seed))
        options.setdefault("block_size", None)
        self.params = {**options, "random_state": int(seed)}
        self.params["z_screen"] = bool(self.params["z_screen"])
        if self.params["block_size"] is None:
            del self.params["block_size"]  # the cache keys of exchangeable rows
        self.level = float(level)
        if options["n_resamples"] == "auto":  # stopped p-values depend on it
            self.params["level"] = self.level
        self._features = {}  # column -> its x/y features (n x 6)
        self._z_maps = {}  # conditioning set -> its fitted Z and weight maps
        self._shared = OrderedDict()  # recent sets -> their features, design
        self._screen_rows = None  # the rows the screens run on
        self._checked = False  # the order check runs on the first test only

    def _seed(self, stream, *key):
        """A seed of ``stream`` from ``random_state`` and the variables."""
        return _streams.search_seed(self.params["random_state"], stream, *key)

    def _ids(self, *columns):
        """The identities of ``columns`` in the seeds (their positions, or
        those given to :meth:`extend`)."""
        return [self.ids[j] for j in columns]

    def extend(self, columns, ids):
        """Add variables to the search: complete numeric columns of the
        search's rows, each with an identity (a non-negative int) that the
        seeds of its tests use in place of its position, so that its tests
        do not depend on when it was added.

        Parameters
        ----------
        columns : ndarray of shape (n_samples, n_new)
            The new variables' values.
        ids : list of int
            Their identities.

        Returns
        -------
        positions : list of int
            Their columns in the search.
        """
        start = self.data.shape[1]
        columns = np.asarray(columns, dtype=np.float64).reshape(len(self.data), -1)
        self.data = np.hstack([self.data, columns])
        self._missing = np.hstack([self._missing, np.isnan(columns)])
        self.names += [f"X{start + j + 1}" for j in range(columns.shape[1])]
        self.ids += [int(i) for i in ids]
        return list(range(start, self.data.shape[1]))

    def _text(self, columns):
        """Whether any of ``columns`` is mapped as text."""
        return self.table is not None and not all(
            _is_number(self.table.iloc[:, j]) for j in columns
        )

    def _values(self, columns, rows=slice(None)):
        """The variables ``columns`` on ``rows``: numbers, or a table where
        one of them is text."""
        if self._text(columns):
            return self.table.iloc[rows, list(columns)]
        if isinstance(rows, slice):
            return self.data[rows, list(columns)]
        return self.data[np.ix_(rows, list(columns))]

    def _complete(self, columns):
        """The rows where every one of ``columns`` is present."""
        return ~self._missing[:, list(columns)].any(axis=1)

    def _present(self, columns):
        """The positions of the rows where every one of ``columns`` is
        present."""
        return np.flatnonzero(self._complete(columns))

    def _column(self, j):
        if j not in self._features:
            rows = self._present([j])
            V = self._values([j], rows)
            distinct = V.iloc[:, 0].nunique() if is_dataframe(V) else np.unique(V).size
            if distinct < 2:
                raise ValueError(
                    f"variable {self.names[j]!r} (column {j} of data) is constant: "
                    "it is independent of everything; drop it before the search."
                )
            fitted = xy_map(V, self._seed(_streams.SEARCH_COLUMN, *self._ids(j)))
            F = fitted.transform(V)
            features = np.zeros((len(self.data), F.shape[1]))
            features[rows] = F  # the rows with j missing stay unused
            self._features[j] = features
        return self._features[j]

    def _screened(self, i, k, S, rows):
        """The columns of ``S`` the test of ``i`` and ``k`` on ``rows``
        conditions on (:func:`relevant_columns`, on the rows the z maps are
        fit on; all of ``S`` where one of them is text, as in the
        estimator)."""
        if not screens(self.params["z_screen"], len(S), self._text(S)):
            return S
        if rows is None:
            if self._screen_rows is None:  # one draw of rows per search
                self._screen_rows = fit_rows(
                    len(self.data), self._seed(_streams.SEARCH_SCREEN_ROWS)
                )
            rows = self._screen_rows
        else:
            rows = rows[fit_rows(len(rows), self._seed(_streams.SEARCH_SCREEN_ROWS))]
        margins = (
            None if self._text([j]) else self.data[rows, j][:, None] for j in (i, k)
        )
        kept = relevant_columns(
            self.data[np.ix_(rows, S)],
            *margins,
            (self._column(i)[rows], self._column(k)[rows]),
            self._seed(
                _streams.SEARCH_SCREEN, *self._ids(i, k), len(S), *self._ids(*S)
            ),
        )
        return [S[j] for j in kept]

    def _z_map(self, S, with_features=False):
        """The maps of z and of the weights of the set ``S``, fit on the rows
        complete for ``S``. ``with_features``: also their features of every
        row, computed while they are fit (None once fitted, or where they
        were fit on fewer than all rows)."""
        key, features = tuple(S), None
        if key not in self._z_maps:
            for j in S:
                self._column(j)  # the constant check
            rows = self._present(S)
            Z = self._values(S, rows)
            (zmap, zf), (wmap, wf) = (
                z_map(
                    Z,
                    self.params["n_z_features"],
                    len(self.data),
                    self._seed(_streams.SEARCH_Z_MAP, *self._ids(*S)),
                    features=True,
                ),
                weight_map(
                    Z,
                    self._seed(_streams.SEARCH_WEIGHTS, *self._ids(*S)),
                    features=True,
                ),
            )
            self._z_maps[key] = (zmap, wmap)
            if len(rows) == len(self.data) and zf is not None and wf is not None:
                features = (zf, wf)
        maps = self._z_maps[key]
        return (maps, features) if with_features else maps

    def _z_work(self, S):
        """The features of z and weights (or None where they exceed a
        quarter of ``_SHARED_BYTES``) and the ridge's :class:`FoldDesign` of
        the conditioning set ``S``, shared by its tests (least recently used
        sets dropped beyond ``_SHARED_BYTES``); the features are those the
        maps' fit computed where it saw every row."""
        key = tuple(S)
        if key in self._shared:
            self._shared.move_to_end(key)
            return self._shared[key][0]
        maps, features = self._z_map(S, with_features=True)
        if features is None:
            Z = self._values(S)
            width = sum(m.transform(Z[:1]).shape[1] for m in maps)
        else:
            width = sum(F.shape[1] for F in features)
        n, K = len(self.data), self.params["n_folds"]
        if 4 * 8 * n * width > _SHARED_BYTES:
            features = None
        elif features is None:
            features = tuple(m.transform(Z) for m in maps)
        # Features, the design's K C'C and up to 2K bases (V and D).
        size = 8 * (n * width * (features is not None) + 5 * K * width**2)
        self._shared[key] = ((features, FoldDesign(K)), size)
        while sum(entry[1] for entry in self._shared.values()) > _SHARED_BYTES:
            if len(self._shared) == 1:
                break
            self._shared.popitem(last=False)
        return self._shared[key][0]

    def p_value(self, i, k, S):
        """The p-value of columns ``i`` and ``k`` independent given the
        columns ``S`` (a list, possibly empty), on the rows complete for
        all of them."""
        return self.test(i, k, S).p_value

    def test(self, i, k, S, level=None):
        """The :class:`~._pipeline.ConditionalRun` of :meth:`p_value`'s test
        (its statistic, null and p-value); ``level``: where
        ``n_resamples="auto"`` stops (None: the search's). Below
        ``_budgets.SEARCH_ONE_THREAD_ROWS`` rows on one BLAS thread: a
        search's tests are many and small. The maps skip scikit-learn's
        finiteness checks of their inputs: the search's values were checked
        once (infinite values refused, missing ones left out of each test)."""
        small = len(self.data) < _budgets.SEARCH_ONE_THREAD_ROWS
        threads = one_blas_thread() if small else contextlib.nullcontext()
        with threads, config_context(assume_finite=True):
            return self._test(i, k, S, self.level if level is None else level)

    def _test(self, i, k, S, level):
        A, B = self._column(i), self._column(k)
        complete = self._complete([i, k, *S])
        rows = None if complete.all() else np.flatnonzero(complete)
        if rows is not None:
            if len(rows) < 2 * self.params["n_folds"]:
                names = [self.names[j] for j in (i, k, *S)]
                raise ValueError(
                    f"only {len(rows)} rows have all of {names} present: a test "
                    f"needs at least 2 per fold (n_folds={self.params['n_folds']})."
                )
            A, B = A[rows], B[rows]
        S = self._screened(i, k, list(S), rows)
        z = weights = design = None
        if S and rows is None:
            computed, design = self._z_work(S)
            if computed is None:
                Z = self._values(S)
                z, weights = ((m, Z) for m in self._z_map(S))
            else:
                z, weights = computed
        elif S:  # rows of their own: nothing to share with the set's tests
            Z = self._values(S, rows)
            z, weights = ((m, Z) for m in self._z_map(S))
        block_size = self.params.get("block_size")
        check, self._checked = not self._checked, True
        return calibrated(
            RowFeatures(A, B, z, weights),
            len(A),
            self._seed(
                _streams.SEARCH_TEST, 1, *self._ids(i, k), len(S), *self._ids(*S)
            ),
            n_resamples=self.params["n_resamples"],
            alpha=level,
            n_folds=self.params["n_folds"],
            design=design,
            fold_seed=self._seed(
                _streams.SEARCH_FOLDS, len(S), *self._ids(*S)
            ),  # one design per set
            block_size=block_size,
            check_order=check,
        )


def _read(data):
    """``(table, numbers, missing)`` of the search's data: the DataFrame or
    None; the numbers (text columns as codes, missing values NaN), the array
    causal-learn sees; the mask of missing values."""
    if is_dataframe(data):
        import pandas as pd  # only reached with a DataFrame

        table = data.reset_index(drop=True)
        missing = table.isna().to_numpy()
        numbers = np.column_stack(
            [
                table.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan)
                if _is_number(table.iloc[:, j])
                else pd.factorize(table.iloc[:, j])[0].astype(np.float64)
                for j in range(table.shape[1])
            ]
        ).reshape(len(table), table.shape[1])
        numbers[missing] = np.nan
        return table, numbers, missing
    numbers = np.asarray(data)
    if numbers.ndim != 2 or not np.issubdtype(numbers.dtype, np.number):
        raise ValueError(
            f"data must be a 2-D numeric array (rows x variables) or a DataFrame; "
            f"got shape {numbers.shape} and dtype {numbers.dtype}."
        )
    numbers = numbers.astype(np.float64)
    return None, numbers, np.isnan(numbers)

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
"""

from collections import OrderedDict

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import validate_parameter_constraints

from .._utils import _streams
from ._conditional import ConditionalHSICTest
from ._conditional_maps import (
    _XY_FEATURES,
    _Z_WEIGHTS,
    _default_map,
    _default_weight_map,
    _default_z_map,
    fit_rows,
    n_z_features,
    relevant_columns,
)
from ._conditional_pipeline import RowFeatures, calibrated
from ._ridge import FoldDesign

# Bytes of the features of z and the ridge's per-fold statistics and
# eigendecompositions kept for the most recent conditioning sets: a search
# tests each set with several pairs, mostly soon after each other.
_SHARED_BYTES = 2**29

# The options of a search, checked by the estimator's own constraints
# (``level`` by those of its ``alpha``).
_OPTIONS = ("random_state", "n_resamples", "n_folds", "n_z_features", "z_screen")
CONSTRAINTS = {
    **{name: ConditionalHSICTest._parameter_constraints[name] for name in _OPTIONS},
    "level": ConditionalHSICTest._parameter_constraints["alpha"],
}


class ConditionalSearch:
    """The conditional tests of one data set, sharing their work.

    Parameters
    ----------
    data : ndarray of shape (n_samples, n_variables)
        Finite numbers, one column per variable.
    random_state : int, RandomState instance or None
        Seed of every test, combined with the variables tested (None or a
        RandomState: an int drawn from it once).
    n_resamples, n_folds, n_z_features, z_screen
        As in :class:`~skmmd.ConditionalHSICTest`.
    level : float
        The ``alpha`` of each test (where ``n_resamples="auto"`` stops).

    Attributes
    ----------
    params : dict
        The options, ``random_state`` as an int: what identifies the search's
        p-values (causal-learn's cache key).
    """

    def __init__(self, data, *, level, **options):
        validate_parameter_constraints(
            CONSTRAINTS, {**options, "level": level}, caller_name="SkmmdCIT"
        )
        data = np.asarray(data)
        if data.ndim != 2 or not np.issubdtype(data.dtype, np.number):
            raise ValueError(
                f"data must be a 2-D numeric array (rows x variables); got shape "
                f"{data.shape} and dtype {data.dtype}."
            )
        bad = ~np.isfinite(data).all(axis=0)
        if bad.any():
            raise ValueError(
                "data has NaN or infinity in column(s) "
                f"{np.flatnonzero(bad).tolist()}: the test takes finite values."
            )
        self.data = data.astype(np.float64)
        seed = options["random_state"]
        if not isinstance(seed, (int, np.integer)):
            seed = check_random_state(seed).randint(np.iinfo(np.int32).max)
        self.params = {**options, "random_state": int(seed)}
        self.params["z_screen"] = bool(self.params["z_screen"])
        self.level = float(level)
        if options["n_resamples"] == "auto":  # stopped p-values depend on it
            self.params["level"] = self.level
        self._constant = set(np.flatnonzero(np.all(data == data[:1], axis=0)).tolist())
        self._features = {}  # column -> its x/y features (n x 6)
        self._z_maps = {}  # conditioning set -> its fitted Z and weight maps
        self._shared = OrderedDict()  # recent sets -> their features, design
        self._screen_rows = None  # the rows the screens run on

    def _seed(self, stream, *key):
        """A seed of ``stream`` from ``random_state`` and the variables."""
        return _streams.search_seed(self.params["random_state"], stream, *key)

    def _column(self, j):
        if j in self._constant:
            raise ValueError(
                f"column {j} of data is constant: it is independent of "
                "everything; drop it before the search."
            )
        if j not in self._features:
            V = self.data[:, [j]]
            self._features[j] = _default_map(
                V, _XY_FEATURES, self._seed(_streams.SEARCH_COLUMN, j)
            ).transform(V)
        return self._features[j]

    def _screened(self, i, k, S):
        """The columns of ``S`` the test of ``i`` and ``k`` conditions on
        (:func:`relevant_columns`, on the rows the z maps are fit on)."""
        if len(S) < 2 or not self.params["z_screen"]:
            return S
        if self._screen_rows is None:  # one draw of rows per search
            self._screen_rows = fit_rows(
                len(self.data), self._seed(_streams.SEARCH_SCREEN_ROWS)
            )
        rows = self._screen_rows
        kept = relevant_columns(
            self.data[np.ix_(rows, S)],
            self.data[rows, i][:, None],
            self.data[rows, k][:, None],
            (self._column(i)[rows], self._column(k)[rows]),
            self._seed(_streams.SEARCH_SCREEN, i, k, len(S), *S),
        )
        return [S[j] for j in kept]

    def _z_map(self, S):
        key = tuple(S)
        if key not in self._z_maps:
            for j in S:
                self._column(j)  # the constant check
            width = self.params["n_z_features"]
            if width == "auto":
                width = n_z_features(len(self.data))
            Z = self.data[:, S]
            self._z_maps[key] = (
                _default_z_map(Z, width, self._seed(_streams.SEARCH_Z_MAP, *S)),
                _default_weight_map(
                    Z, _Z_WEIGHTS, self._seed(_streams.SEARCH_WEIGHTS, *S)
                ),
            )
        return self._z_maps[key]

    def _z_work(self, S, maps):
        """The features of z and weights (or None where they exceed a
        quarter of ``_SHARED_BYTES``) and the ridge's :class:`FoldDesign` of
        the conditioning set ``S``, shared by its tests (least recently used
        sets dropped beyond ``_SHARED_BYTES``)."""
        key = tuple(S)
        if key in self._shared:
            self._shared.move_to_end(key)
            return self._shared[key][0]
        Z = self.data[:, S]
        width = sum(m.transform(Z[:1]).shape[1] for m in maps)
        n, K = len(self.data), self.params["n_folds"]
        features = None
        if 4 * 8 * n * width <= _SHARED_BYTES:
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
        columns ``S`` (a list, possibly empty)."""
        A, B = self._column(i), self._column(k)
        S = self._screened(i, k, list(S))
        z = weights = design = None
        if S:
            maps = self._z_map(S)
            computed, design = self._z_work(S, maps)
            if computed is None:
                Z = self.data[:, S]
                z, weights = ((m, Z) for m in maps)
            else:
                z, weights = computed
        return calibrated(
            RowFeatures(A, B, z, weights),
            len(self.data),
            self._seed(_streams.SEARCH_TEST, 1, i, k, len(S), *S),
            n_resamples=self.params["n_resamples"],
            alpha=self.level,
            n_folds=self.params["n_folds"],
            design=design,
            fold_seed=self._seed(
                _streams.SEARCH_FOLDS, len(S), *S
            ),  # one design per set
        ).p_value

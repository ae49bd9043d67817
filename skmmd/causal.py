"""causal-learn's PC and FCI with skmmd's conditional independence test.

``import skmmd.causal`` registers :class:`SkmmdCIT` with causal-learn under the
name ``"skmmd"``, so that ``pc(data, 0.05, "skmmd")`` and ``fci(data,
"skmmd")`` run :class:`~skmmd.ConditionalHSICTest`'s test on every ``(X, Y,
S)`` the search asks about. Needs the ``causal`` extra (``python -m pip install
'skmmd[causal]'``).

Within one search the features of each column are computed once and serve
every test of that column (as x or as y), and the Z map of each conditioning
set is fitted once; the tests given one set share its folds, its features of
Z and the ridge's statistics and eigendecompositions (for the most recent
sets within a memory budget), so each computes only what its pair adds. Each
test's randomness (units, signs; folds per set) comes from ``random_state``
and the variables tested, so a search is reproducible and its p-values do not
depend on the order of the tests.
"""

import hashlib
import json
import numbers
from collections import OrderedDict

import numpy as np

from .independence._conditional import calibrated
from .independence._conditional_maps import (
    _XY_FEATURES,
    _Z_WEIGHTS,
    _default_map,
    _default_weight_map,
    _default_z_map,
    fit_rows,
    relevant_columns,
)
from .mmd._conditional import FoldDesign, n_z_features

# Bytes of the features of z and the ridge's per-fold statistics and
# eigendecompositions kept for the most recent conditioning sets: a search
# tests each set with several pairs, mostly soon after each other (PC on 20
# variables: about 50 sets in 300 tests; the 16 most recent hold them all).
_SHARED_BYTES = 2**29

try:
    from causallearn.utils.cit import CIT_Base, register_ci_test
except ImportError as error:  # the optional extra
    raise ImportError(
        "skmmd.causal plugs skmmd's conditional independence test into "
        "causal-learn, which is not installed: python -m pip install "
        "'skmmd[causal]'."
    ) from error

__all__ = ["SkmmdCIT"]


class SkmmdCIT(CIT_Base):
    """skmmd's conditional independence test as a causal-learn ``CIT``.

    Parameters
    ----------
    data : ndarray of shape (n_samples, n_features)
        The data set of the search, one column per variable.
    random_state : int, default=0
        Seed of every test, combined with the variables tested.
    n_resamples : int or "auto", default=999
        Bootstrap draws of each test; ``"auto"`` stops each test's draws as
        soon as its decision at ``alpha`` is known (at most 999; most
        independent pairs stop after a few dozen), see
        :class:`~skmmd.ConditionalHSICTest`.
    level : float, default=0.05
        With ``n_resamples="auto"``: the level the stopping targets, which
        must be the search's ``alpha`` (the p-values are valid, but settled
        only at that level). Not named ``alpha``, which ``pc`` and ``fci``
        take for themselves.
    n_folds : int, default=5
        Cross-fitting folds.
    n_z_features : "auto" or int, default="auto"
        Features of each conditioning set (see
        :class:`~skmmd.ConditionalHSICTest`).
    z_screen : bool, default=True
        Leave out of each test's conditioning set the columns independent of
        the pair tested and the rest of the set (see
        :class:`~skmmd.ConditionalHSICTest`).
    cache_path : str or None, default=None
        causal-learn's JSON cache of p-values.
    **kwargs : dict
        Passed to ``CIT_Base``.

    See Also
    --------
    skmmd.ConditionalHSICTest : The test, on one ``(x, y, z)``.

    Examples
    --------
    >>> import numpy as np
    >>> import skmmd.causal
    >>> from causallearn.utils.cit import CIT
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=1000)
    >>> data = np.column_stack(
    ...     [np.sin(2 * z) + 0.3 * rng.normal(size=1000), z,
    ...      z**2 + 0.3 * rng.normal(size=1000)]
    ... )
    >>> test = CIT(data, "skmmd")
    >>> bool(test(0, 2, [1]) > 0.05), test(0, 2) < 0.01
    (True, True)
    """

    def __init__(
        self,
        data,
        random_state=0,
        n_resamples=999,
        level=0.05,
        n_folds=5,
        n_z_features="auto",
        z_screen=True,
        cache_path=None,
        **kwargs,
    ):
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
        if n_resamples != "auto" and (
            not isinstance(n_resamples, numbers.Integral) or n_resamples < 1
        ):
            raise ValueError(
                'n_resamples must be a positive integer or "auto"; got '
                f"{n_resamples!r}."
            )
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1); got {level!r}.")
        super().__init__(data.astype(np.float64), cache_path=cache_path, **kwargs)
        self.params = {
            "random_state": int(random_state),
            "n_resamples": n_resamples if n_resamples == "auto" else int(n_resamples),
            "n_folds": int(n_folds),
            "n_z_features": n_z_features,
            "z_screen": bool(z_screen),
        }
        self.level = float(level)
        if n_resamples == "auto":  # the stopped p-values depend on the level
            self.params["level"] = self.level
        self.check_cache_method_consistent(
            "skmmd",
            hashlib.md5(json.dumps(self.params, sort_keys=True).encode()).hexdigest(),
        )
        constant = np.flatnonzero(np.all(self.data == self.data[:1], axis=0))
        self._constant = set(constant.tolist())
        self._features = {}  # column -> its x/y features (n x 10)
        self._z_maps = {}  # conditioning set -> its fitted Z and weight maps
        self._shared = OrderedDict()  # recent sets -> their features, design
        self._screen_rows = None  # the rows the screens run on

    def _seed(self, *key):
        """A seed from ``random_state`` and the variables (order-free)."""
        return int(
            np.random.SeedSequence([self.params["random_state"], *key]).generate_state(
                1
            )[0]
            >> 1
        )

    def _column(self, j):
        if j in self._constant:
            raise ValueError(
                f"column {j} of data is constant: it is independent of "
                "everything; drop it before the search."
            )
        if j not in self._features:
            V = self.data[:, [j]]
            self._features[j] = _default_map(
                V, _XY_FEATURES, self._seed(0, j)
            ).transform(V)
        return self._features[j]

    def _screened(self, i, k, S):
        """The columns of ``S`` the test of ``i`` and ``k`` conditions on
        (:func:`relevant_columns`, on the rows the z maps are fit on)."""
        if len(S) < 2 or not self.params["z_screen"]:
            return S
        if self._screen_rows is None:  # one draw of rows per search
            self._screen_rows = fit_rows(self.sample_size, self._seed(5))
        rows = self._screen_rows
        kept = relevant_columns(
            self.data[np.ix_(rows, S)],
            self.data[rows, i][:, None],
            self.data[rows, k][:, None],
            (self._column(i)[rows], self._column(k)[rows]),
            self._seed(6, i, k, len(S), *S),
        )
        return [S[j] for j in kept]

    def _z_map(self, S):
        key = tuple(S)
        if key not in self._z_maps:
            for j in S:
                self._column(j)  # the constant check
            width = self.params["n_z_features"]
            if width == "auto":
                width = n_z_features(self.sample_size)
            Z = self.data[:, S]
            self._z_maps[key] = (
                _default_z_map(Z, width, self._seed(1, *S)),
                _default_weight_map(Z, _Z_WEIGHTS, self._seed(3, *S)),
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
        n, K = self.sample_size, self.params["n_folds"]
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

    def __call__(self, X, Y, condition_set=None):
        """The p-value of ``X`` independent of ``Y`` given ``condition_set``.

        Parameters
        ----------
        X, Y : int
            Columns of ``data``.
        condition_set : list of int or None, default=None
            Columns to condition on.

        Returns
        -------
        p : float
            The test's p-value.
        """
        Xs, Ys, S, key = self.get_formatted_XYZ_and_cachekey(X, Y, condition_set)
        if key in self.pvalue_cache:
            return self.pvalue_cache[key]
        A, B = self._column(Xs[0]), self._column(Ys[0])
        S = self._screened(Xs[0], Ys[0], list(S))
        maps = self._z_map(S) if S else None
        kept, design = self._z_work(S, maps) if S else (None, None)

        def features(lo, hi):
            if maps is None:
                return A[lo:hi], B[lo:hi], np.empty((hi - lo, 0)), np.ones((hi - lo, 1))
            if kept is not None:
                return A[lo:hi], B[lo:hi], *(F[lo:hi] for F in kept)
            Z = self.data[lo:hi, S]
            return A[lo:hi], B[lo:hi], *(m.transform(Z) for m in maps)

        seed = self._seed(2, len(Xs), *Xs, *Ys, len(S), *S)
        p = calibrated(
            features,
            self.sample_size,
            seed,
            n_resamples=self.params["n_resamples"],
            alpha=self.level,
            n_folds=self.params["n_folds"],
            design=design,
            fold_seed=self._seed(4, len(S), *S),  # one design per set
        )[2]
        self.pvalue_cache[key] = p
        return p


register_ci_test("skmmd", SkmmdCIT)

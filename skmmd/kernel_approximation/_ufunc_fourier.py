"""The Fourier features of a table map's numeric part: those of
:class:`~skmmd.RandomFourierSampler`, evaluated by NumPy's ufuncs."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._utils import _budgets
from .._utils._groups import summed
from ..kernels import median_bandwidth
from ._fourier import RandomFourierSampler


class UfuncFourier(RandomFourierSampler):
    """:class:`~skmmd.RandomFourierSampler`'s features (the same frequencies,
    phases, scale and feature names) with the cosines and sines evaluated by
    NumPy's ufuncs instead of numba's kernels: the numeric block of a table's
    map, whose few hundred features cost little either way, so that testing
    a DataFrame never waits for numba's compiler in a fresh environment."""

    def _resolve_bandwidth(self, X, rng):
        """``"median"``: the median distance over ``_budgets.MEDIAN_PAIRS``
        random pairs of distinct rows (every pair when there are at most 1000
        rows), as each column's kernel in a report takes its own: linear in
        the rows and columns (every pair of a subsample would be quadratic
        in its rows)."""
        if isinstance(self.bandwidth, str):
            return median_bandwidth(X, random_state=rng, n_pairs=_budgets.MEDIAN_PAIRS)
        return float(self.bandwidth)

    def transform(self, X):
        X = self._validate_transform_data(X)
        out = np.empty((X.shape[0], self.n_components), dtype=X.dtype)
        for rows, P in self._projections(X):
            self._features(P, out[rows])
        return out

    def _projections(self, X):
        """``(rows, X[rows] W)`` of validated ``X``, a block of rows at a time
        (each block's features within ``PART_ENTRIES``: a table test sums a
        chunk's features beside its other maps' sums, and a larger block
        would be its largest array)."""
        W = self.random_weights_.astype(X.dtype, copy=False)
        step = max(1, _budgets.PART_ENTRIES // self.n_components)
        for lo in range(0, X.shape[0], step):
            rows = slice(lo, lo + step)
            yield rows, X[rows] @ W

    def _features(self, P, out):
        """``sqrt(2 / D) [cos P, sin P, cos(P' + offset)]`` into ``out``
        (``trig_features``'s columns)."""
        scale = out.dtype.type(np.sqrt(2.0 / self.n_components))
        n_pairs = self.n_components // 2 if self.feature == "cos_sin" else 0
        np.cos(P[:, :n_pairs], out=out[:, :n_pairs])
        np.sin(P[:, :n_pairs], out=out[:, n_pairs : 2 * n_pairs])
        if self.random_offset_ is not None:
            offset = self.random_offset_.astype(P.dtype, copy=False)
            np.cos(P[:, n_pairs:] + offset, out=out[:, 2 * n_pairs :])
        out *= scale

    def _sums_per_group(self, X, groups, n_groups, out=None):
        """``transform(X)`` summed per group, and the squared norms, a block
        of rows at a time (added into ``out = (S, q)`` when given)."""
        return self.sums_and_head(X, groups, n_groups, 0, None, out)[:2]

    def sums_and_head(self, X, groups, n_groups, n_rows, R, out=None):
        """:meth:`grouped_sums` ``(S, q)``, and the features of the first
        ``n_rows`` rows times ``R`` (``(n_components, k)``), taken from the
        blocks of features the sums compute: ``(S, q, head)``."""
        if out is None:
            out = (np.zeros((n_groups, self.n_components)), np.zeros(n_groups))
        S, q = out
        X = self._validate_transform_data(X)
        head = np.zeros((n_rows, 0 if R is None else R.shape[1]))
        for rows, P in self._projections(X):
            Z = np.empty(P.shape[:1] + (self.n_components,), dtype=X.dtype)
            self._features(P, Z)
            first = slice(rows.start, min(n_rows, rows.start + Z.shape[0]))
            if first.start < first.stop:
                head[first] = Z[: first.stop - first.start] @ R
            part, q_part = summed(
                Z.astype(np.float64, copy=False), groups[rows], n_groups
            )
            S += part
            q += q_part
        return S, q, head

    def get_feature_names_out(self, input_features=None):
        """``"randomfouriersampler{i}"`` (RandomFourierSampler's names)."""
        check_is_fitted(self)
        return np.asarray(
            [f"randomfouriersampler{i}" for i in range(self.n_components)],
            dtype=object,
        )

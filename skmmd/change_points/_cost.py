"""The kernel cost of a segment of rows from cumulative sums of their
features: ``cost(a, b) = sum_{a <= t < b} ||z_t||^2 - ||sum_{a <= t < b}
z_t||^2 / (b - a)``, each segment's in ``O(D)`` and a whole column of them
by one product, never a Gram matrix of the rows."""

import numpy as np
from scipy.stats import qmc

from .._utils import _budgets
from ..kernel_approximation import RandomFourierSampler


def default_width(n_rows):
    """The number of features of the default map of ``n_rows`` rows: the
    largest power of two from 64 to 1024 whose cumulative sums fit within
    ``_budgets.CUMSUM_ENTRIES`` entries (64 beyond)."""
    width = 1024
    while width > 64 and (n_rows + 1) * width > _budgets.CUMSUM_ENTRIES:
        width //= 2
    return width


def default_map(bandwidth, n_rows, n_columns, random_state):
    """The default feature map of ``n_rows`` rows of ``n_columns`` columns:
    a :class:`~skmmd.RandomFourierSampler` (Gaussian kernel) of
    :func:`default_width` features whose frequencies are a scrambled Sobol
    sequence, so that the costs, and the changes of least cost, differ less
    from the exact kernel's than with i.i.d. frequencies (i.i.d. beyond the
    sequence's dimensions)."""
    sobol = n_columns <= qmc.Sobol.MAXDIM
    return RandomFourierSampler(
        bandwidth=bandwidth,
        n_components=default_width(n_rows),
        qmc="sobol" if sobol else None,
        random_state=random_state,
    )


def chunk_rows(width):
    """Rows mapped at once: their features within ``_budgets.CHUNK_ENTRIES``
    entries."""
    return max(1, _budgets.CHUNK_ENTRIES // max(width, 1))


def mapped(transform, rows, start):
    """The features of ``rows`` (the rows ``start ..`` of the series) under
    ``transform``, float64, or a ValueError naming the rows when some are
    not finite."""
    Z = np.asarray(transform(rows), dtype=np.float64)
    if not np.all(np.isfinite(Z)):
        raise ValueError(
            "The transformer gives non-finite features of rows "
            f"{start} to {start + rows.shape[0] - 1}; check the rows and the "
            "transformer."
        )
    return Z


def accumulate(C, Q, Z, start):
    """Write the cumulative sums of the features ``Z`` of the rows ``start
    ..`` into ``C`` and ``Q`` after those of the rows before them, ``C[start]``
    and ``Q[start]``."""
    stop = start + Z.shape[0]
    np.cumsum(Z, axis=0, out=C[start + 1 : stop + 1])
    C[start + 1 : stop + 1] += C[start]
    Q[start + 1 : stop + 1] = Q[start] + np.cumsum(np.einsum("td,td->t", Z, Z))


class SegmentCost:
    """Kernel costs of segments of rows in time order, from the cumulative
    sums of their features.

    Parameters
    ----------
    C : ndarray of shape (n + 1, D)
        ``C[t]``: the sum of the features of rows ``0 .. t - 1``, centered
        at the features' mean over all rows (costs do not depend on the
        centre, and centered sums keep their rounding small).
    Q : ndarray of shape (n + 1,)
        ``Q[t]``: the sum of the squared norms of those centered features.

    Notes
    -----
    With ``z_t`` a row's features, the cost of ``[a, b)`` is the sum of
    squared distances of its features to their mean, ``Q[b] - Q[a] - ||C[b]
    - C[a]||^2 / (b - a)``: the kernel cost of Harchaoui & Cappe (2007) and
    ruptures' ``CostRbf`` with the kernel replaced by ``z(x)'z(y)``. The
    squared norms are the features' own (exactly 1 for
    :class:`~skmmd.RandomFourierSampler`'s ``cos_sin`` features, as ``k(x, x)
    = 1`` for ruptures' Gaussian kernel), so the cost is that of the
    approximate kernel, for any map.
    """

    def __init__(self, C, Q):
        self.C, self.Q = C, Q
        self.n = C.shape[0] - 1
        self.norms = np.einsum("td,td->t", C, C)

    @classmethod
    def of(cls, transform, X, width):
        """The costs of the rows ``X`` under the map ``transform`` (a
        callable of rows returning ``width`` features), mapped a chunk of
        ``_budgets.CHUNK_ENTRIES`` features at a time into cumulative sums of
        ``(n + 1) x width`` float64 entries."""
        n = X.shape[0]
        C, Q = np.zeros((n + 1, width)), np.zeros(n + 1)
        step = chunk_rows(width)
        for start in range(0, n, step):
            accumulate(C, Q, mapped(transform, X[start : start + step], start), start)
        return cls.centered(C, Q, step)

    @classmethod
    def centered(cls, C, Q, step):
        """The costs of the cumulative sums ``C`` and ``Q`` (of features
        about zero), centered in place at their mean feature, a chunk of
        ``step`` rows at a time."""
        # C'_t = C_t - t m, Q'_t = Q_t - 2 m'C_t + t ||m||^2.
        n = C.shape[0] - 1
        mean = C[n] / max(n, 1)
        for start in range(0, n + 1, step):
            t = np.arange(start, min(n + 1, start + step), dtype=np.float64)
            block = C[start : start + t.size]
            Q[start : start + t.size] += t * float(mean @ mean) - 2.0 * (block @ mean)
            block -= t[:, None] * mean
        return cls(C, Q)

    def cost(self, a, b):
        """The cost of ``[a, b)``; ``a`` (or ``b``) may be an array."""
        a, b = np.asarray(a), np.asarray(b)
        diff = self.C[b] - self.C[a]
        length = np.maximum(b - a, 1)
        square = np.einsum("...d,...d->...", diff, diff)
        return self.Q[b] - self.Q[a] - square / length

    def column(self, starts, end, products):
        """The costs of ``[a, end)`` for the rows ``starts`` from the
        products ``C[starts] @ C[end]`` (one column of a product of
        chunks)."""
        length = np.maximum(end - starts, 1)
        square = self.norms[end] + self.norms[starts] - 2.0 * products
        return self.Q[end] - self.Q[starts] - square / length

    def gains(self, a, b, min_size):
        """The splits ``k`` of ``[a, b)`` leaving ``min_size`` rows each side
        and the cost each removes, ``cost(a, b) - cost(a, k) - cost(k, b)``
        (the squared MMD of the two parts times ``(k - a)(b - k) / (b -
        a)``), a chunk of splits at a time."""
        splits = np.arange(a + min_size, b - min_size + 1)
        out = np.empty(splits.size)
        step = max(1, _budgets.CHUNK_ENTRIES // self.C.shape[1])
        whole = self.cost(a, b)
        for lo in range(0, splits.size, step):
            k = splits[lo : lo + step]
            out[lo : lo + step] = whole - self.cost(a, k) - self.cost(k, b)
        return splits, out

    def mmd2(self, a, k, b):
        """The squared MMD (biased, of the features) between ``[a, k)`` and
        ``[k, b)``."""
        diff = (self.C[k] - self.C[a]) / (k - a) - (self.C[b] - self.C[k]) / (b - k)
        return float(diff @ diff)

    def unit_sums(self, edges):
        """The features summed between consecutive ``edges`` (rows in
        order), one row per piece."""
        edges = np.asarray(edges)
        return self.C[edges[1:]] - self.C[edges[:-1]]


class CumulativeSums:
    """The cumulative sums of the features of rows in time order, added a
    chunk of rows at a time (``partial_fit``), whose costs equal those of
    :meth:`SegmentCost.of` on all the rows at once, bit for bit.

    Rows are mapped in the chunks ``SegmentCost.of`` maps (``step`` rows from
    the first), whatever chunks they come in: the rows of the last,
    incomplete chunk (fewer than ``step``, within
    ``_budgets.CHUNK_ENTRIES`` features) are kept until it is complete, and
    every other row is held only as the sums, ``8 (n + 1) D`` bytes and room
    to grow by half.

    Parameters
    ----------
    transform : callable
        The feature map of rows.
    width : int
        The number of features it returns.
    """

    def __init__(self, transform, width):
        self.transform, self.width = transform, width
        self.step = chunk_rows(width)
        self.C, self.Q = np.zeros((1, width)), np.zeros(1)
        self.summed = 0  # rows in C and Q, a multiple of step
        self.pending = None  # the rows of the incomplete chunk

    @property
    def n(self):
        """Rows added so far."""
        return self.summed + (0 if self.pending is None else self.pending.shape[0])

    def add(self, X):
        """Add the rows ``X`` after those so far. Every row is mapped before
        anything changes, so that rows the map rejects (or maps to
        non-finite features) leave the sums as they were."""
        start, step = self.summed, self.step
        rows = X if self.pending is None else np.concatenate([self.pending, X])
        full = rows.shape[0] // step * step
        C, Q = np.empty((full + 1, self.width)), np.empty(full + 1)
        C[0], Q[0] = self.C[start], self.Q[start]
        for lo in range(0, full, step):
            Z = mapped(self.transform, rows[lo : lo + step], start + lo)
            accumulate(C, Q, Z, lo)
        new = min(rows.shape[0] - full, X.shape[0])  # X's rows left pending
        if new:  # checked now, mapped into the sums when their chunk is full
            lo = rows.shape[0] - new
            mapped(self.transform, rows[lo:], start + lo)
        self._reserve(start + full + 1)
        self.C[start + 1 : start + full + 1] = C[1:]
        self.Q[start + 1 : start + full + 1] = Q[1:]
        self.summed += full
        self.pending = rows[full:].copy() if rows.shape[0] > full else None
        return self

    def _reserve(self, size):
        """Room for ``size`` rows of sums, growing by half."""
        if size <= self.C.shape[0]:
            return
        size = max(size, self.C.shape[0] * 3 // 2)
        C, Q = np.zeros((size, self.width)), np.zeros(size)
        C[: self.summed + 1], Q[: self.summed + 1] = (
            self.C[: self.summed + 1],
            self.Q[: self.summed + 1],
        )
        self.C, self.Q = C, Q

    def cost(self):
        """The :class:`SegmentCost` of all rows so far: a centered copy of the
        sums, with the incomplete chunk's rows mapped into it."""
        n, start = self.n, self.summed
        C, Q = np.empty((n + 1, self.width)), np.empty(n + 1)
        C[: start + 1], Q[: start + 1] = self.C[: start + 1], self.Q[: start + 1]
        if self.pending is not None:
            accumulate(C, Q, mapped(self.transform, self.pending, start), start)
        return SegmentCost.centered(C, Q, self.step)

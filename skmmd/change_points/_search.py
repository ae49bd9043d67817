"""The searches for change points on a :class:`~._cost.SegmentCost`: exact
dynamic programming for a given number of changes, PELT for a penalty per
change, and binary segmentation for either. Each returns the sorted change
points: the first row of each segment after the first."""

import heapq

import numpy as np

from .._utils import _budgets


def _too_many(n, n_changes, min_size):
    if (n_changes + 1) * min_size > n:
        raise ValueError(
            f"n_changes={n_changes} with min_size={min_size} needs at least "
            f"{(n_changes + 1) * min_size} rows; got {n}."
        )


def dynamic_programming(cost, n_changes, min_size):
    """The ``n_changes`` change points of least total cost, each segment of
    at least ``min_size`` rows (Bellman's recursion, as ruptures' ``Dynp``
    and ``KernelCPD``), in ``O(n^2 D)`` time and ``O(n K)`` memory: the
    costs of the segments ending at a chunk of rows come from one product
    of cumulative sums, then each row's best split for every number of
    changes at once."""
    n = cost.n
    _too_many(n, n_changes, min_size)
    if n_changes == 0:
        return np.array([], dtype=np.int64)
    K = n_changes
    best = np.full((K + 1, n + 1), np.inf)
    back = np.zeros((K + 1, n + 1), dtype=np.int64)
    step = max(1, _budgets.MAP_CHUNK_ENTRIES // (n + 1))
    for lo in range(min_size, n + 1, step):
        ends = np.arange(lo, min(n + 1, lo + step))
        products = cost.C[: ends[-1]] @ cost.C[ends].T
        for j, b in enumerate(ends):
            starts = np.arange(b - min_size + 1)
            column = cost.column(starts, b, products[: starts.size, j])
            best[0, b] = column[0]
            # best[k, b] = min over a of best[k - 1, a] + cost(a, b).
            total = best[:K, : starts.size] + column
            back[1:, b] = np.argmin(total, axis=1)
            best[1:, b] = total[np.arange(K), back[1:, b]]
    points, end = [], n
    for k in range(K, 0, -1):
        end = int(back[k, end])
        points.append(end)
    return np.array(sorted(points), dtype=np.int64)


def pelt(cost, penalty, min_size):
    """The change points of least total cost plus ``penalty`` per change,
    each segment of at least ``min_size`` rows (Killick, Fearnhead & Eckley
    2012): the optimal partitioning's recursion over the candidates PELT's
    rule keeps."""
    n = cost.n
    best = np.full(n + 1, np.inf)
    best[0] = -penalty
    back = np.zeros(n + 1, dtype=np.int64)
    candidates = np.zeros(0, dtype=np.int64)
    for b in range(min_size, n + 1):
        new = b - min_size
        if new == 0 or new >= min_size:
            candidates = np.append(candidates, new)
        values = best[candidates] + cost.cost(candidates, b) + penalty
        i = int(np.argmin(values))
        best[b], back[b] = values[i], candidates[i]
        candidates = candidates[values - penalty <= best[b]]
    points, end = [], n
    while end > 0:
        end = int(back[end])
        if end > 0:
            points.append(end)
    return np.array(sorted(points), dtype=np.int64)


def best_split(cost, a, b, min_size):
    """``(gain, k)``: the split of ``[a, b)`` that removes the most cost,
    or ``(-inf, None)`` when the segment is too short to split."""
    if b - a < 2 * min_size:
        return -np.inf, None
    splits, gains = cost.gains(a, b, min_size)
    i = int(np.argmax(gains))
    return float(gains[i]), int(splits[i])


def binary_segmentation(cost, min_size, n_changes=None, penalty=None):
    """Greedy binary segmentation: split the segment whose best split removes
    the most cost, until ``n_changes`` changes, or while a split removes
    more than ``penalty``; each step costs ``O(m D)`` for the two new
    segments of ``m`` rows."""
    n = cost.n
    if n_changes is not None:
        _too_many(n, n_changes, min_size)
    heap, points = [], []

    def push(a, b):
        gain, k = best_split(cost, a, b, min_size)
        if k is not None:
            heapq.heappush(heap, (-gain, a, b, k))

    push(0, n)
    while heap:
        if n_changes is not None and len(points) >= n_changes:
            break
        gain, a, b, k = heapq.heappop(heap)
        if penalty is not None and -gain <= penalty:
            break
        points.append(k)
        push(a, k)
        push(k, b)
    return np.array(sorted(points), dtype=np.int64)

"""Fourier features summed per group without storing them (the fused kernel).

The linear-time test needs only the features summed over resampling units
(:meth:`skmmd._inference._streaming.HostRows.grouped_sums`). Materialising the
``n x D`` features and summing them costs two passes over ``8 n D`` bytes of
memory; here each row's projection, cos/sin and accumulation happen in buffers
that stay in the L1/L2 cache. Rows are sorted by group and cut into tiles of at
most ``_TILE`` rows of one group; tiles run in parallel, each summed in row
order. A group's only tile adds into its output row; the tiles of a group that
has several write partial sums that are added in order afterwards, so the
result does not depend on the number of threads."""

import math

import numpy as np
import scipy.sparse as sp

from .._utils._jit import njit, prange, serial_and_parallel
from ._trig import (
    _CONTRACT,
    REDUCTION_LIMIT,
    SINCOS_CONSTANTS,
    _count_above,
    sincos,
)

# Rows of one group summed by one task.
_TILE = 64
# Bounds the partial sums of a kernel call (and a BLAS-projected block) to
# about this many entries.
_TILE_ENTRIES = 2**21
# Below this many projection entries a call runs serially: a parallel launch
# costs more than it saves.
_PARALLEL_MIN_SIZE = 2**16
# Dense inputs with more features than this are projected by BLAS (a chunk of
# rows at a time) rather than row by row inside the kernel.
_ROW_GEMM_MAX_FEATURES = 32


@njit(cache=True, fastmath=_CONTRACT)
def _project_dense_row(X, r, W, p):
    """``p = X[r] @ W``, four rows of ``W`` per pass over ``p``: a pass per
    row of ``W`` would be bound by loading and storing ``p``."""
    d, L = W.shape
    p[:] = 0.0
    k = 0
    while k + 4 <= d:
        x0, x1 = np.float64(X[r, k]), np.float64(X[r, k + 1])
        x2, x3 = np.float64(X[r, k + 2]), np.float64(X[r, k + 3])
        for j in range(L):
            p[j] += (x0 * W[k, j] + x1 * W[k + 1, j]) + (
                x2 * W[k + 2, j] + x3 * W[k + 3, j]
            )
        k += 4
    for k in range(k, d):
        x = np.float64(X[r, k])
        for j in range(L):
            p[j] += x * W[k, j]


# The tile loop's parts, inlined into it by numba (the same operations in the
# same order as one body: LLVM sees one loop nest).
_INLINED = {"cache": True, "fastmath": _CONTRACT, "inline": "always"}


@njit(**_INLINED)
def _project_row(mode, X, data, indices, indptr, P, W, r, p):
    """``p``: the projection of row ``r`` (``mode`` as in :func:`_tile_loop`)."""
    if mode == 2:
        for j in range(p.size):
            p[j] = P[r, j]
    elif mode == 0:
        _project_dense_row(X, r, W, p)
    else:
        p[:] = 0.0
        for nz in range(indptr[r], indptr[r + 1]):
            x = np.float64(data[nz])
            k = indices[nz]
            for j in range(p.size):
                p[j] += x * W[k, j]


@njit(**_INLINED)
def _exact_beyond_reduction(p, offset, n_pairs, acc_c, acc_s, acc_p, q_t, constants):
    """Correct the sums of the rare arguments beyond the fast reduction with
    libm's values; returns ``q_t`` corrected."""
    n_phase = acc_p.size
    for j in range(n_pairs):
        if abs(p[j]) > REDUCTION_LIMIT:
            s, c = sincos(p[j], constants)
            acc_c[j] += math.cos(p[j]) - c
            acc_s[j] += math.sin(p[j]) - s
    for j in range(n_phase):
        v = p[n_pairs + j]
        if abs(v) > REDUCTION_LIMIT - 8.0:
            s, c = sincos(v + offset[j], constants)
            exact = math.cos(v + offset[j])
            acc_p[j] += exact - c
            q_t += exact * exact - c * c
    return q_t


@njit(**_INLINED)
def _store_tile(target, row, add, scale, acc_c, acc_s, acc_p):
    """Row ``row`` of ``target``: the tile's sums times ``scale``, added
    (``add``) or written."""
    n_pairs = acc_c.size
    if add:
        for j in range(n_pairs):
            target[row, j] += scale * acc_c[j]
        for j in range(n_pairs):
            target[row, n_pairs + j] += scale * acc_s[j]
        for j in range(acc_p.size):
            target[row, 2 * n_pairs + j] += scale * acc_p[j]
    else:
        for j in range(n_pairs):
            target[row, j] = scale * acc_c[j]
        for j in range(n_pairs):
            target[row, n_pairs + j] = scale * acc_s[j]
        for j in range(acc_p.size):
            target[row, 2 * n_pairs + j] = scale * acc_p[j]


def _tile_loop(
    mode,
    X,
    data,
    indices,
    indptr,
    P,
    W,
    order,
    tile_start,
    tile_stop,
    tile_group,
    slot,
    n_pairs,
    offset,
    scale,
    out,
    q_out,
    part,
    q_part,
    constants,
):
    """Sum the features of the rows ``order[tile_start[t]:tile_stop[t]]`` (cos
    in ``[:n_pairs]``, sin in ``[n_pairs:2 n_pairs]``, the phase columns
    after) times ``scale``, and their squared norms: added into row
    ``tile_group[t]`` of ``out`` and ``q_out`` when ``slot[t] < 0`` (the
    group's only tile), else written into row ``slot[t]`` of ``part`` and
    ``q_part``.

    ``mode`` says where a row's projection comes from: 0 a dense row of ``X``
    times ``W``, 1 a CSR row (``data, indices, indptr``) times ``W``, 2 the row
    of ``P`` (already projected). ``constants`` is ``SINCOS_CONSTANTS``.
    """
    L = W.shape[1] if mode != 2 else P.shape[1]
    n_phase = L - n_pairs
    for t in prange(tile_start.size):
        p = np.empty(L)
        cos_row = np.empty(L)
        sin_row = np.empty(n_pairs)
        acc_c = np.zeros(n_pairs)
        acc_s = np.zeros(n_pairs)
        acc_p = np.zeros(n_phase)
        q_t = 0.0
        for at in range(tile_start[t], tile_stop[t]):
            _project_row(mode, X, data, indices, indptr, P, W, order[at], p)
            # The row's cos/sin go through row buffers, then are summed: LLVM
            # vectorizes the sincos loop only in this shape (the sums are the
            # same as accumulating in that loop).
            for j in range(n_pairs):
                s, c = sincos(p[j], constants)
                cos_row[j] = c
                sin_row[j] = s
            for j in range(n_pairs):
                acc_c[j] += cos_row[j]
            for j in range(n_pairs):
                acc_s[j] += sin_row[j]
            for j in range(n_phase):
                s, c = sincos(p[n_pairs + j] + offset[j], constants)
                cos_row[j] = c
            for j in range(n_phase):
                acc_p[j] += cos_row[j]
            for j in range(n_phase):
                q_t += cos_row[j] * cos_row[j]
            # Rare: arguments beyond the fast reduction go through libm, in
            # loops gated by a count (see _count_above: ungated, LLVM made
            # them a libm call per entry whenever its runtime alias checks let
            # it take the vector path).
            if _count_above(p, REDUCTION_LIMIT - 8.0) == 0:
                continue
            q_t = _exact_beyond_reduction(
                p, offset, n_pairs, acc_c, acc_s, acc_p, q_t, constants
            )
        # cos^2 + sin^2 = 1: each row's pairs contribute n_pairs exactly.
        q_t = scale * scale * (q_t + n_pairs * (tile_stop[t] - tile_start[t]))
        row = slot[t]
        if row < 0:
            _store_tile(out, tile_group[t], True, scale, acc_c, acc_s, acc_p)
            q_out[tile_group[t]] += q_t
        else:
            _store_tile(part, row, False, scale, acc_c, acc_s, acc_p)
            q_part[row] = q_t


_KERNELS = serial_and_parallel(_tile_loop, fastmath=_CONTRACT)

_EMPTY_2D = np.zeros((0, 0))
_EMPTY_INT = np.zeros(0, dtype=np.int64)


def _stable_order(groups):
    """``np.argsort(groups, kind="stable")`` for non-negative integers, as an
    LSD radix sort on 16-bit digits: numpy's stable sort is a radix sort for
    16-bit integers and a timsort for int64."""
    order = None
    top = int(groups.max(initial=0))
    for shift in range(0, max(top.bit_length(), 1), 16):
        keys = groups if order is None else groups[order]
        digits = ((keys >> shift) & 0xFFFF).astype(np.uint16)
        step = np.argsort(digits, kind="stable")
        order = step if order is None else order[step]
    return order


def _tiles(groups):
    """Rows sorted by group (stable) and tiles of at most ``_TILE`` rows of one
    group: ``(order, tile_start, tile_stop, tile_group, slot)``, where
    ``slot[t]`` is -1 for a group's only tile and otherwise the tile's row in
    the partial sums (a group's tiles in consecutive rows). O(len(groups)),
    whatever the number of groups."""
    n = groups.size
    order = _stable_order(groups)
    sorted_groups = groups[order]
    run_start = np.flatnonzero(np.diff(sorted_groups, prepend=-1))
    run_stop = np.append(run_start[1:], n)[: run_start.size]
    n_tiles = -(-(run_stop - run_start) // _TILE)
    run = np.repeat(np.arange(run_start.size), n_tiles)
    within = np.arange(run.size) - (np.cumsum(n_tiles) - n_tiles)[run]
    tile_start = run_start[run] + _TILE * within
    tile_stop = np.minimum(tile_start + _TILE, run_stop[run])
    tile_group = sorted_groups[run_start][run]
    shared = n_tiles[run] > 1
    slot = np.where(shared, np.cumsum(shared) - 1, -1)
    return order, tile_start, tile_stop, tile_group, slot


def _add_parts(S, q, part, q_part, part_group):
    """Add the partial sums into their groups, tiles of one group in order."""
    firsts = np.flatnonzero(np.diff(part_group, prepend=-1))
    groups = part_group[firsts]
    S[groups] += np.add.reduceat(part, firsts, axis=0)
    q[groups] += np.add.reduceat(q_part, firsts)


def _mode(X, weights, project):
    """``(mode, project)``: where the kernel's projections come from (0: a
    dense row times the weights, few features; 1: a CSR row times them; 2:
    rows projected before the call, by ``project`` or by BLAS)."""
    if weights is not None and sp.issparse(X):
        return 1, project
    if weights is not None and X.shape[1] <= _ROW_GEMM_MAX_FEATURES:
        return 0, project
    if project is None:
        W_dtype = weights.astype(X.dtype)
        project = lambda block: block @ W_dtype  # noqa: E731
    return 2, project


def _call_rows(mode, n_components, L):
    """Rows per kernel call: the projection block of mode 2 stays within
    _TILE_ENTRIES entries, and the partial sums of every mode (at most two
    tiles per _TILE rows) too. Large calls matter: each launch has a fixed
    cost, and its tiles have only its rows to be balanced over."""
    if mode == 2:
        return max(1, _TILE_ENTRIES // max(n_components, L))
    return max(1, _TILE * _TILE_ENTRIES // (2 * n_components))


def _block_inputs(mode, block, project, dtype):
    """``(X_dense, data, indices, indptr, P)`` of one call's rows: the ones
    its mode reads, the others empty arrays of the same types (one
    compilation per dtype)."""
    X_dense = P = np.empty((0, 0), dtype=dtype)
    data, indices, indptr = np.empty(0, dtype=dtype), _EMPTY_INT, _EMPTY_INT
    if mode == 0:
        X_dense = np.ascontiguousarray(block)
    elif mode == 1:
        block = block.tocsr()
        data, indices, indptr = (
            block.data,
            block.indices.astype(np.int64),
            block.indptr.astype(np.int64),
        )
    else:
        P = np.ascontiguousarray(project(block), dtype=dtype)
    return X_dense, data, indices, indptr, P


def trig_group_sums(
    X,
    groups,
    n_groups,
    *,
    n_components,
    n_pairs,
    weights=None,
    project=None,
    offset,
    out=None,
):
    """Sums per group of the Fourier features ``sqrt(2 / D) [cos P, sin P,
    cos(P' + offset)]`` of the rows of X, and of their squared norms.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n, d), float32 or float64
        Validated rows.
    groups : ndarray of shape (n,), int
        Group of each row, in ``0 .. n_groups - 1``.
    n_groups : int
        Number of groups.
    n_components : int
        ``D``: ``2 n_pairs`` cos/sin columns then the phase columns.
    n_pairs : int
        Frequencies giving a cos/sin pair; the others give ``cos(p + offset)``.
    weights : ndarray of shape (d, L), float64, default=None
        Frequencies (already rounded to X's dtype): the projection is ``X W``.
    project : callable, default=None
        ``project(X_rows) -> P`` (rows, L) instead of ``weights``.
    offset : ndarray of shape (L - n_pairs,) or None
        Phases of the phase columns.
    out : tuple of ndarray, default=None
        ``(S, q)`` (float64, C-contiguous rows) to add the sums into, instead
        of new arrays.

    Returns
    -------
    S : ndarray of shape (n_groups, n_components), float64
    q : ndarray of shape (n_groups,), float64
    """
    n = X.shape[0]
    L = n_components - n_pairs
    offset = np.zeros(0) if offset is None else np.asarray(offset, dtype=np.float64)
    groups = np.asarray(groups, dtype=np.int64)
    if out is None:
        S, q = np.zeros((n_groups, n_components)), np.zeros(n_groups)
    else:
        S, q = out
    scale = np.sqrt(2.0 / n_components)
    mode, project = _mode(X, weights, project)
    step = _call_rows(mode, n_components, L)
    W = weights if mode != 2 else _EMPTY_2D
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        order, tile_start, tile_stop, tile_group, slot = _tiles(groups[lo:hi])
        X_dense, data, indices, indptr, P = _block_inputs(
            mode, X[lo:hi], project, X.dtype
        )
        shared = slot >= 0
        part = np.empty((np.count_nonzero(shared), n_components))
        q_part = np.empty(part.shape[0])
        kernel = _KERNELS[(hi - lo) * L >= _PARALLEL_MIN_SIZE]
        kernel(
            mode,
            X_dense,
            data,
            indices,
            indptr,
            P,
            W,
            order,
            tile_start,
            tile_stop,
            tile_group,
            slot,
            n_pairs,
            offset,
            scale,
            S,
            q,
            part,
            q_part,
            SINCOS_CONSTANTS,
        )
        if part.shape[0]:
            _add_parts(S, q, part, q_part, tile_group[shared])
    return S, q


def sampler_group_sums(sampler, X, groups, n_groups, out, **projection):
    """:func:`trig_group_sums` of a fitted Fourier-type sampler (``feature``,
    ``n_components``, ``random_offset_``) on validated ``X``; ``projection``
    is ``weights=`` or ``project=``."""
    offset = sampler.random_offset_
    if offset is not None:  # rounded as transform rounds it
        offset = offset.astype(X.dtype).astype(np.float64)
    return trig_group_sums(
        X,
        groups,
        n_groups,
        n_components=sampler.n_components,
        n_pairs=sampler.n_components // 2 if sampler.feature == "cos_sin" else 0,
        offset=offset,
        out=out,
        **projection,
    )

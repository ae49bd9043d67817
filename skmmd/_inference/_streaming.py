"""The linear-time test's one pipeline: row chunks -> features -> per-unit sums.

Every engine (in memory, ``partial_fit``, files, Dask) drives the same three
steps: a chunk of rows of one sample is mapped by the feature maps, its
features are summed into resampling units, and the :class:`UnitSums` of all
chunks are added up. Only the unit sums (units x features) reach the
calibration loop of :mod:`skmmd._inference._calibration`, which never sees the rows.

The unit of a row is a deterministic function of the seed and the row's
position in its sample (counter-based): positions are shuffled within
superblocks of ``_SUPERBLOCK`` rows by a permutation seeded with ``(seed,
sample, superblock)``, and unit ``j`` of size ``u`` collects the rows whose
shuffled position ``v`` has ``v // u == j``. So the result does not depend on
chunk sizes, on the order in which chunks are reduced, or on the engine; and
units are random groups, never chunks or partitions (which are often
time-ordered). A unit that does not receive all its ``u`` rows (at the end of a
sample) joins the sample's fixed remainder, which stays in its sample in every
resample; which units are complete depends on the sample sizes and the seed
only, never on the data, so the units are exchangeable under H0 and the
permutation test is exact.
"""

import numbers

import numpy as np
import scipy.sparse as sp

from .._utils import _budgets, _groups, _streams
from .._utils._compat import n_features_out
from . import _calibration

# Rows whose positions are shuffled together (a power of two, so that units of
# any power-of-two size up to it nest inside one superblock).
_SUPERBLOCK = 4096
# Rows per chunk when every map has a fused per-unit sum (no feature block):
# large enough that the per-chunk work (validation, unit draws) is negligible.
_FUSED_ROWS = 2**16


def virtual_positions(seed, sample, start, stop, total, ordered=False):
    """Shuffled positions of the rows ``start .. stop - 1`` of one sample.

    A bijection of the positions ``0 .. total - 1`` that permutes each
    superblock of ``_SUPERBLOCK`` rows by its own seeded permutation; the last,
    partial superblock of ``r`` rows by a permutation of size ``r``, so that
    its units are complete but the last (at most ``unit - 1`` rows remain).
    ``ordered`` (rows in time order, ``block_size``): the positions
    themselves, so that a unit is a block of consecutive rows.
    """
    if ordered:
        return np.arange(start, max(stop, start), dtype=np.int64)
    out = np.empty(max(stop - start, 0), dtype=np.int64)
    if stop <= start:
        return out
    for block in range(start // _SUPERBLOCK, (stop - 1) // _SUPERBLOCK + 1):
        base = block * _SUPERBLOCK
        lo, hi = max(start, base), min(stop, base + _SUPERBLOCK)
        size = min(_SUPERBLOCK, total - base)
        perm = _streams.generator(seed, _streams.UNIT_SHUFFLE, sample, block)
        perm = perm.permutation(size)
        out[lo - start : hi - start] = base + perm[lo - base : hi - base]
    return out


def into(out, S, q):
    """``(S, q)``, or ``out`` with them added."""
    if out is None:
        return S, q
    out[0][...] += S
    out[1][...] += q
    return out


class HostRows:
    """The row operations of the pipeline on rows in host memory: NumPy arrays,
    SciPy sparse matrices, pandas DataFrames and sequences of objects.

    A stream is given the row operations of its input's kind by the engine that
    recognised the input (:mod:`skmmd._inference._engines`); the pipeline calls
    them and never asks what kind its rows are.
    """

    namespace = None  # the ``(xp, device)`` of array-API rows

    def n_rows(self, X):
        return X.shape[0] if hasattr(X, "shape") else len(X)

    def take(self, X, rows):
        """Rows of an array, sparse matrix or DataFrame (by position)."""
        return X.iloc[rows] if hasattr(X, "iloc") else X[rows]

    def concat(self, parts):
        if isinstance(parts[0], list):  # sequences of objects (strings, sets)
            return [item for part in parts for item in part]
        if hasattr(parts[0], "iloc"):
            import pandas as pd

            return pd.concat(parts)
        if sp.issparse(parts[0]):
            return sp.vstack(parts, format="csr")
        return np.vstack(parts)

    def copy(self, X):
        """A copy of ``X`` (not a view keeping the caller's array alive)."""
        return X.copy()

    def to_host(self, X):
        """``X`` as NumPy can compute with it."""
        return X

    def fuses(self, transformers):
        """Whether every map sums its features per group without storing
        them (a fused NumPy kernel)."""
        return all(getattr(t, "grouped_sums", None) is not None for t in transformers)

    def chunk_rows(self, transformers, widths):
        """Rows per chunk: the features of a chunk stay within about
        ``_budgets.CHUNK_ENTRIES`` (one map's at a time: each is summed and dropped
        before the next); maps with a fused per-unit sum store none."""
        if self.fuses(transformers):
            return _FUSED_ROWS
        return max(1, _budgets.CHUNK_ENTRIES // max(max(widths, default=1), 1))

    def grouped_sums(self, transformer, X, groups, n_groups, out=None):
        """Features of ``X`` summed per group: ``(S, q)``, float64.

        ``S[g]`` is the sum of the feature rows of group ``g`` and ``q[g]`` the
        sum of their squared norms; with ``out = (S, q)`` they are added into
        those arrays. A transformer may provide a fused ``grouped_sums(X,
        groups, n_groups, out=None)`` that never stores the feature matrix;
        otherwise its ``transform`` is summed through a sparse 0/1 matrix.
        """
        fused = getattr(transformer, "grouped_sums", None)
        if fused is not None:
            return fused(X, groups, n_groups, out=out)
        Z = transformer.transform(X)
        if sp.issparse(Z):
            Z = Z.tocsr().astype(np.float64)
            M = _groups.indicator(groups, n_groups)
            S = (M @ Z).toarray()
            q = M @ np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
        else:
            S, q = _groups.summed(np.asarray(Z, dtype=np.float64), groups, n_groups)
        return into(out, S, q)


HOST = HostRows()


class UnitSums:
    """Per-unit feature sums of the two samples: the pipeline's mergeable state.

    For each feature map ``k`` and sample ``s`` (0 for X, 1 for Y) it holds the
    sums of the feature rows of units ``offset[s], offset[s] + 1, ...``
    (``sums[k][s]``, float64, units x features), the sums of their squared
    norms (``sq[k][s]``) and the number of rows each unit has received
    (``counts[s]``, shared by the maps). Two states of the same ``unit`` and
    ``seed`` add up (:meth:`add`) whatever rows they cover, which is all a
    distributed reduction (or a Spark / Ray adapter) needs.

    Parameters
    ----------
    n_features : list of int
        Output dimension of each feature map.
    unit : int
        Rows per resampling unit.
    seed : int
        Seed of the unit assignment.
    ordered : bool, default=False
        Units of consecutive rows (rows in time order) instead of random
        groups (:func:`virtual_positions`).
    """

    def __init__(self, n_features, unit, seed, ordered=False):
        self.n_features = list(n_features)
        self.unit = int(unit)
        self.seed = int(seed)
        self.ordered = bool(ordered)
        self.n_rows = [0, 0]
        self.offset = [0, 0]
        self.counts = [np.zeros(0, dtype=np.int64) for _ in range(2)]
        self.sums = [[np.zeros((0, D)) for _ in range(2)] for D in self.n_features]
        self.sq = [[np.zeros(0) for _ in range(2)] for _ in self.n_features]

    def add_chunk(self, transformers, X, sample, start, total, rows=HOST, watch=None):
        """Add the rows ``start ..`` of sample ``sample`` (of ``total`` rows, or
        more when the stream goes on) in place. ``transformers`` are the
        fitted maps, in the order of this state's ``n_features``; ``rows``
        the row operations of ``X``'s kind. ``watch`` (e.g.
        :class:`~._base.OrderHeads`) sums the chunk of a sample's first rows
        through its map ``watch.map_index``, reading what it needs of them.

        Raises a ValueError naming the rows when a feature map rejects the
        chunk or returns non-finite features; the state is then left partly
        updated, so callers add to a state they can drop.
        """
        size = rows.n_rows(X)
        if size == 0:
            return self
        units = virtual_positions(
            self.seed, sample, start, start + size, total, self.ordered
        )
        units //= self.unit
        lo, hi = int(units.min()), int(units.max()) + 1
        self._grow(sample, lo, hi)
        at = slice(lo - self.offset[sample], hi - self.offset[sample])
        units -= lo
        where = f"rows {start}-{start + size - 1} of {'XY'[sample]}"
        for k, transformer in enumerate(transformers):
            S, q = self.sums[k][sample][at], self.sq[k][sample][at]
            try:
                if watch is not None and k == watch.map_index and start == 0:
                    watch.grouped_sums(transformer, X, sample, units, hi - lo, (S, q))
                else:
                    rows.grouped_sums(transformer, X, units, hi - lo, out=(S, q))
            except (ValueError, TypeError) as error:
                raise type(error)(f"{where}: {error}") from error
            # The sums held were finite before: a non-finite one is this chunk's.
            if not (np.all(np.isfinite(S)) and np.all(np.isfinite(q))):
                raise ValueError(
                    f"{where}: the feature map returned non-finite values "
                    "(NaN or infinity in the input?)."
                )
        self.counts[sample][at] += np.bincount(units, minlength=hi - lo)
        self.n_rows[sample] += size
        return self

    def _grow(self, sample, lo, hi):
        """Extend the stored unit range of ``sample`` to cover ``[lo, hi)``."""
        off, size = self.offset[sample], self.counts[sample].size
        if size and lo >= off and hi <= off + size:
            return
        new_lo = min(lo, off) if size else lo
        new_hi = max(hi, off + size) if size else hi
        # Grow geometrically so that appending chunk by chunk stays linear.
        if size and new_lo == off:
            new_hi = max(new_hi, off + 2 * size)
        shift = off - new_lo
        counts = np.zeros(new_hi - new_lo, dtype=np.int64)
        counts[shift : shift + size] = self.counts[sample]
        self.counts[sample] = counts
        for k, D in enumerate(self.n_features):
            sums = np.zeros((new_hi - new_lo, D))
            sums[shift : shift + size] = self.sums[k][sample]
            sq = np.zeros(new_hi - new_lo)
            sq[shift : shift + size] = self.sq[k][sample]
            self.sums[k][sample], self.sq[k][sample] = sums, sq
        self.offset[sample] = new_lo

    def add(self, other):
        """Add the sums of ``other`` (same unit, seed and maps) in place."""
        if (other.unit, other.seed, other.n_features, other.ordered) != (
            self.unit,
            self.seed,
            self.n_features,
            self.ordered,
        ):
            raise ValueError("Unit sums of different units or maps cannot be added.")
        for s in range(2):
            size = other.counts[s].size
            if not size:
                continue
            lo = other.offset[s]
            self._grow(s, lo, lo + size)
            at = slice(lo - self.offset[s], lo - self.offset[s] + size)
            self.counts[s][at] += other.counts[s]
            for k in range(len(self.n_features)):
                self.sums[k][s][at] += other.sums[k][s]
                self.sq[k][s][at] += other.sq[k][s]
            self.n_rows[s] += other.n_rows[s]
        return self

    def coarsen(self, unit):
        """Merge units into units of ``unit`` rows, a multiple of the current."""
        factor, rest = divmod(unit, self.unit)
        if rest or factor < 1:
            raise ValueError(f"unit {unit} is not a multiple of {self.unit}.")
        if factor == 1:
            return self
        for s in range(2):
            size = self.counts[s].size
            if not size:
                continue
            lo = self.offset[s] // factor
            hi = -(-(self.offset[s] + size) // factor)
            ids = np.arange(self.offset[s], self.offset[s] + size) // factor - lo

            def merge(a, ids=ids, n=hi - lo):
                out = np.zeros((n,) + a.shape[1:], dtype=a.dtype)
                np.add.at(out, ids, a)
                return out

            self.counts[s] = merge(self.counts[s])
            for k in range(len(self.n_features)):
                self.sums[k][s] = merge(self.sums[k][s])
                self.sq[k][s] = merge(self.sq[k][s])
            self.offset[s] = lo
        self.unit = unit
        return self

    def _alone(self, states, s, ids):
        """How many of the sorted units ``ids`` of sample ``s``, from the
        first, are consecutive and held by this state alone among ``states``
        (their sums are then rows of this state's arrays)."""
        off, size = self.offset[s], self.counts[s].size
        if not (ids.size and off <= ids[0] < off + size):
            return 0
        stop = off + size
        for other in states:
            lo, n = other.offset[s], other.counts[s].size
            if other is not self and n and lo + n > ids[0]:
                stop = min(stop, max(lo, ids[0]))
        n = int(np.searchsorted(ids, stop))
        return n if n and ids[n - 1] - ids[0] == n - 1 else 0

    def _add_rows(self, k, s, ids, sums, sq):
        """Add this state's rows of units ``ids`` (map ``k``, sample ``s``) into
        ``sums`` and ``sq``; units it does not hold add nothing."""
        off, size = self.offset[s], self.counts[s].size
        inside = (ids >= off) & (ids < off + size)
        if inside.all():
            sums += self.sums[k][s][ids - off]
            sq += self.sq[k][s][ids - off]
        elif inside.any():
            sums[inside] += self.sums[k][s][ids[inside] - off]
            sq[inside] += self.sq[k][s][ids[inside] - off]

    def finalize(self, tail=None):
        """The calibration loop's input: one ``FeatureSums`` per map.

        Complete units (exactly ``unit`` rows) are resampled, X's first; the
        rows of incomplete units form each sample's fixed remainder. ``tail``,
        a state of the same unit, is added on the way (this state is left as
        it is).
        """
        states = [self] if tail is None else [self, tail]
        n_rows = [sum(t.n_rows[s] for t in states) for s in range(2)]
        complete, rest = [], []
        for s in range(2):
            held = [t for t in states if t.counts[s].size]
            lo = min((t.offset[s] for t in held), default=0)
            hi = max((t.offset[s] + t.counts[s].size for t in held), default=0)
            counts = np.zeros(hi - lo, dtype=np.int64)
            for t in held:
                at = t.offset[s] - lo
                counts[at : at + t.counts[s].size] += t.counts[s]
            ids = lo + np.arange(hi - lo)
            full = counts == self.unit
            if self.unit == 1:  # single points in row order, as the exact test
                complete.append(
                    virtual_positions(
                        self.seed, s, 0, n_rows[s], n_rows[s], self.ordered
                    )
                )
            else:
                complete.append(ids[full])
            rest.append(ids[~full & (counts > 0)])
        n_units = tuple(c.size for c in complete)
        out = []
        for k, D in enumerate(self.n_features):
            blocks, q, fixed = [], [], {}
            for s in range(2):
                ids = complete[s]
                for t in states if self.unit > 1 else ():
                    n = t._alone(states, s, ids)
                    if n:  # a view, no copy (the tail's: 15 MB at 2 x 2e4 rows)
                        view = slice(ids[0] - t.offset[s], ids[0] - t.offset[s] + n)
                        blocks.append(t.sums[k][s][view])
                        q.append(t.sq[k][s][view])
                        ids = ids[n:]
                for wanted, into in ((ids, True), (rest[s], False)):
                    sums, sq = np.zeros((wanted.size, D)), np.zeros(wanted.size)
                    for t in states:
                        t._add_rows(k, s, wanted, sums, sq)
                    if into:
                        blocks.append(sums)
                        q.append(sq)
                    else:
                        fixed["s_" + "xy"[s]] = sums.sum(axis=0)
                        fixed["q_" + "xy"[s]] = float(sq.sum())
                fixed["r_" + "xy"[s]] = int(n_rows[s] - n_units[s] * self.unit)
            blocks = [b for b in blocks if b.shape[0]]
            if not blocks:
                blocks = [np.zeros((0, D))]
            out.append(
                _calibration.FeatureSums(
                    blocks, np.concatenate(q), n_units, self.unit, fixed
                )
            )
        return out


def transformer_width(transformer, X, rows=HOST):
    """Output dimension of a fitted transformer: its ``_n_features_out`` (the
    width scikit-learn's feature names count) when it has one, else that of
    its map of the first row of ``X`` (a probe that, for skmmd's samplers,
    would load a compiled kernel the stream itself never calls)."""
    width = n_features_out(transformer)
    if isinstance(width, numbers.Integral):
        return int(width)
    return int(transformer.transform(rows.take(X, slice(0, 1))).shape[1])


def auto_unit(n_x, n_y, n_features_out, n_resamples, n_products=1):
    """Resampling unit of ``resample_unit="auto"`` for samples of these sizes.

    The smallest power of two keeping the units within
    ``_budgets.POWER_UNITS`` (more estimate the null better than the
    power needs), the resampling cost ``B x units x D`` within
    ``_budgets.GEMM_BUDGET`` multiply-adds and the unit sums within
    ``_budgets.UNIT_ENTRIES`` entries, but no larger than a hundredth of
    the smaller sample (so each keeps about 100 units or more)
    (:func:`~skmmd._utils._budgets.smallest_unit`).
    """
    cost = max(n_resamples * n_features_out * n_products, 1)
    max_units = max(
        2,
        min(
            _budgets.GEMM_BUDGET // cost,
            _budgets.UNIT_ENTRIES // max(n_features_out, 1),
            _budgets.POWER_UNITS,
        ),
    )
    unit = _budgets.smallest_unit(lambda u: -(-n_x // u) - (-n_y // u) <= max_units)
    cap = _budgets.smallest_unit(lambda c: 2 * c > min(n_x, n_y) // 100)
    return max(1, min(unit, cap))


def ordered_unit(n_x, n_y, n_features_out):
    """The unit of a stream in time order (``block_size``): the smallest power
    of two keeping each sample within ``_budgets.ORDER_UNITS`` units and the
    unit sums within ``_budgets.UNIT_ENTRIES`` entries. Its units are
    summed, not resampled: blocks of them are
    (:class:`~._blocks.BlockChoice`), so they can be many, and many are what
    the dependence between neighbouring rows is read from."""

    def fits(unit):
        units = -(-n_x // unit) - (-n_y // unit)
        return (
            max(n_x, n_y) // unit <= _budgets.ORDER_UNITS
            and units * max(n_features_out, 1) <= _budgets.UNIT_ENTRIES
        )

    return _budgets.smallest_unit(fits)


def add_array(
    state, transformers, widths, X, sample, start, total, rows=HOST, watch=None
):
    """Add the rows of an in-memory array to ``state`` in place, chunk by
    chunk (see :meth:`UnitSums.add_chunk`)."""
    size = rows.n_rows(X)
    step = rows.chunk_rows(transformers, widths)
    for lo in range(0, size, step):
        chunk = rows.take(X, slice(lo, min(lo + step, size)))
        state.add_chunk(transformers, chunk, sample, start + lo, total, rows, watch)
    return state


class Stream:
    """A test's stream: its fitted maps and the unit sums of all rows so far.

    Rows of complete superblocks are summed into ``state`` as they come; the
    rows of each sample's last, incomplete superblock (fewer than
    ``_SUPERBLOCK``) are kept, copied, in ``buffers`` with their sums in
    ``tail``, since their units depend on how many rows the superblock ends
    with. :meth:`sums` combines both for the calibration loop, so the results
    after any sequence of :meth:`add` equal those of one call on all rows.
    """

    def __init__(self, transformers, widths, unit, seed, rows=HOST, ordered=False):
        self.transformers, self.widths, self.seed = transformers, widths, seed
        self.rows, self.ordered = rows, ordered
        self.state = self.new_state(unit)
        self.buffers = [[], []]
        self.tail = self.new_state(unit)

    def new_state(self, unit):
        """An empty :class:`UnitSums` of this stream's maps at ``unit``."""
        return UnitSums(self.widths, unit, self.seed, self.ordered)

    @property
    def n_rows(self):
        return [self.state.n_rows[s] + self.tail.n_rows[s] for s in range(2)]

    def add(self, samples, unit, watch=None):
        """Add rows of each sample (``samples = (X, Y)``, None for no rows) at unit
        size ``unit`` (a multiple of the current one). Every chunk is mapped before
        anything changes, so a chunk that fails leaves the stream as it was (an
        empty stream, the first call, is summed into a new state that replaces it at
        the end, with no staged copy of the sums). ``watch``: see
        :meth:`UnitSums.add_chunk` (the first call's rows only)."""
        pending = []
        for s, X in enumerate(samples):
            fresh = X is not None and self.rows.n_rows(X)
            parts = self.buffers[s] + ([X] if fresh else [])
            # A single part is used as it is: no copy of the caller's array.
            if len(parts) > 1:
                parts = [self.rows.concat(parts)]
            rows = parts[0] if parts else None
            size = self.rows.n_rows(rows) if rows is not None else 0
            pending.append((rows, self.state.n_rows[s], size))
        if any(self.state.n_rows):
            return self._add_staged(pending, unit)
        return self._add_in_place(pending, unit, watch)

    def _tail(self, pending, unit, watch=None):
        """Buffers and unit sums of each sample's last, incomplete superblock."""
        tail, buffers = self.new_state(unit), []
        for s, (rows, start, size) in enumerate(pending):
            flush = size // _SUPERBLOCK * _SUPERBLOCK
            kept = None
            if size > flush:  # a copy, not a view keeping the caller's array alive
                kept = self.rows.copy(self.rows.take(rows, slice(flush, size)))
                add_array(
                    tail,
                    self.transformers,
                    self.widths,
                    kept,
                    s,
                    start + flush,
                    start + size,
                    self.rows,
                    watch,
                )
            buffers.append([kept] if kept is not None else [])
        return buffers, tail

    def _add_in_place(self, pending, unit, watch=None):
        state = self.new_state(unit)
        for s, (rows, start, size) in enumerate(pending):
            flush = size // _SUPERBLOCK * _SUPERBLOCK
            if flush:
                state._grow(s, 0, -(-flush // unit))  # all at once
                add_array(
                    state,
                    self.transformers,
                    self.widths,
                    self.rows.take(rows, slice(0, flush)),
                    s,
                    0,
                    flush,
                    self.rows,
                    watch,
                )
        self.buffers, self.tail = self._tail(pending, unit, watch)
        self.state = state
        return self

    def _add_staged(self, pending, unit):
        # The rows are summed into a state of their own, added to the stream's
        # only once every chunk has been mapped.
        staged = self.new_state(unit)
        for s, (rows, start, size) in enumerate(pending):
            flush = size // _SUPERBLOCK * _SUPERBLOCK
            if flush:
                staged._grow(s, start // unit, -(-(start + flush) // unit))
                add_array(
                    staged,
                    self.transformers,
                    self.widths,
                    self.rows.take(rows, slice(0, flush)),
                    s,
                    start,
                    start + flush,
                    self.rows,
                )
        buffers, tail = self._tail(pending, unit)
        self.state.coarsen(unit)
        for s in range(2):  # allocate the units these rows reach at once
            end = self.state.n_rows[s] + staged.n_rows[s]
            if end > self.state.n_rows[s]:
                self.state._grow(s, self.state.offset[s], -(-end // unit))
        self.state.add(staged)
        self.buffers, self.tail = buffers, tail
        return self

    def sums(self):
        """The ``FeatureSums`` of every map, all rows so far."""
        return self.state.finalize(self.tail if any(self.tail.n_rows) else None)

"""The one calibration loop of every test: resamples of units drawn in batches
from one seeded generator, their statistics as batched matrix products, and
the p-value.

A family hands the loop a ``draw`` (the resamples of a batch: count vectors
over the units for the two-sample tests, pairings for independence) and a
``work`` function (the statistics of a batch, from the unit sums it holds);
:func:`_run_batches` runs them one batch after the other, in a fixed order, so
the null distribution does not depend on the batch size or on the number of
threads. The unit sums the pipeline builds (:class:`FeatureSums`) and the
p-value (:func:`p_value`, :func:`threshold`) are the same for every family;
each family's statistics of a batch of resamples live in the family.
"""

import contextlib
import functools

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy.stats import betabinom, binom, hypergeom
from sklearn.utils import gen_batches

from .._utils._threads import one_blas_thread

# n_resamples="auto": at most the fixed test's default number of resamples,
# with the decision checked after these many (denser early, where most null
# tests stop; see benchmarks/bench_sequential.py).
AUTO_RESAMPLES = 999
_LOOKS = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 640, 768, 896)
# The looks of a test that stops only to accept (the aggregated tests): on an
# alternative it draws all resamples, and each look cuts a batch of the
# statistics' products in two, so it looks where nulls stop and then
# sparsely.
_ACCEPT_LOOKS = (16, 32, 64, 128)
# Bound on P(stopped test accepts | the fixed test on the same draws rejects).
_RISK = 0.01
# The share of alpha an aggregated test spends on its one look to reject
# early (AggregatedRule): its full runs reject at the rest.
_EARLY_SHARE = 0.05
# A sequential test's groups of at most this many resamples run on one BLAS
# thread (benchmarks/bench_sequential.py --clear, the benchmarks page).
_ONE_THREAD_RESAMPLES = 64


class FeatureSums:
    """Unit sums of pooled features, for linear-time resampling.

    Built by the streaming pipeline
    (:meth:`skmmd._inference._streaming.UnitSums.finalize`):
    the ``G = g_x + g_y`` resampling units (X's first), each of ``unit`` points
    of one sample, have feature sums ``U`` (G, D), stored as row blocks
    (``blocks``, often views of the pipeline's state, so the unit sums are not
    copied), and sums of ``||z_i||^2`` ``q`` (G,); ``fixed`` holds the sums of
    each sample's remainder (rows of no complete unit), which are never
    resampled. Units, not points, are permuted; the pipeline groups the points
    at random (seeded), never by row order, so that the units of X and Y are
    exchangeable under the null.
    """

    def __init__(self, U, q, n_units, unit, fixed):
        self.blocks = U if isinstance(U, list) else [U]
        self.q = q
        self.n_units = tuple(n_units)
        self.sizes = np.full(q.size, float(unit))
        self.fixed = fixed
        self.total = (
            sum(block.sum(axis=0) for block in self.blocks)
            + fixed["s_x"]
            + fixed["s_y"]
        )

    @property
    def U(self):
        """The unit sums as one (G, D) array (a copy when stored in blocks)."""
        return self.blocks[0] if len(self.blocks) == 1 else np.vstack(self.blocks)

    def times(self, A):
        """``A @ U``, one product per block (no copy of the blocks)."""
        out, start = 0.0, 0
        for block in self.blocks:
            out = out + A[:, start : start + block.shape[0]] @ block
            start += block.shape[0]
        return out

    def remainder(self, sample=0):
        """The feature sums of sample ``sample``'s rows in no complete unit."""
        return self.fixed["s_" + "xy"[sample]]

    def series(self):
        """The unit sums of each sample, ``[U_x, U_y]``: in time order when
        the units are blocks of consecutive rows (``block_size``); views of
        the stored blocks where a sample's units lie in one."""
        out, start = [], 0
        for g in self.n_units:
            out.append(self._rows(start, start + g))
            start += g
        return out

    def _rows(self, lo, hi):
        """Unit sums ``lo .. hi - 1``, a view when they lie in one block."""
        parts, start = [], 0
        for block in self.blocks:
            stop = start + block.shape[0]
            a, b = max(lo, start), min(hi, stop)
            if a < b:
                parts.append(block[a - start : b - start])
            start = stop
        if len(parts) == 1:
            return parts[0]
        return np.vstack(parts) if parts else np.zeros((0, self.blocks[0].shape[1]))

    def coarsened(self, factor):
        """The sums of units of ``factor`` consecutive units of each sample
        (blocks of rows when the units are in time order); a sample's last
        units that fill no such unit join its remainder."""
        if factor == 1:
            return self
        unit = int(self.sizes[0]) if self.sizes.size else 1
        fixed, start = dict(self.fixed), 0
        blocks, q, n_units = [], [], []
        for s, (U, g) in enumerate(zip(self.series(), self.n_units)):
            k = g // factor
            kept = slice(start, start + k * factor)
            blocks.append(U[: k * factor].reshape(k, factor, U.shape[1]).sum(axis=1))
            q.append(self.q[kept].reshape(k, factor).sum(axis=1))
            side = "xy"[s]
            fixed["s_" + side] = fixed["s_" + side] + U[k * factor :].sum(axis=0)
            rest = slice(start + k * factor, start + g)
            fixed["q_" + side] = fixed["q_" + side] + float(self.q[rest].sum())
            fixed["r_" + side] = fixed["r_" + side] + (g - k * factor) * unit
            n_units.append(k)
            start += g
        return FeatureSums(blocks, np.concatenate(q), n_units, unit * factor, fixed)


def resample_batches(n_resamples, batch, looks=()):
    """Slices of at most ``batch`` resamples, cut at every look of a
    sequential test, so that the decision is checked at the same resamples
    whatever the batch size."""
    edges = [0, *(look for look in looks if look < n_resamples), n_resamples]
    for lo, hi in zip(edges[:-1], edges[1:]):
        for s in gen_batches(hi - lo, batch):
            yield slice(lo + s.start, lo + s.stop)


def run_batches(batches, draw, work, n_jobs, verbose, sequential=None, stop=None):
    """The one loop over batches of resamples, for every test.

    ``draw(s)`` draws the resamples of batch ``s`` (a slice) from the test's
    one generator, always in batch order, so the null distribution does not
    depend on threads; ``work(start, *drawn)`` returns their statistics.
    ``sequential(s)``, when given, does both for one thread (a test may reuse
    buffers there). Batches run in threads when ``n_jobs`` asks for them.
    ``stop``, a pair ``(looks, settled)``, makes the loop sequential (the
    option ``n_resamples="auto"``): after the batch that ends at a look,
    ``settled(results)`` says whether the decision is known, and the loop
    returns the batches run so far. Batches must be cut at the looks
    (:func:`resample_batches`).
    """
    looks, settled = stop or ((), None)
    results, group = [], []

    def run(group):
        # A sequential test's first groups, between its early looks, are of a
        # few dozen resamples: too small to share across BLAS threads, whose
        # starts and waits cost more than the product (more still on a
        # loaded machine).
        small = stop and sum(s.stop - s.start for s in group) <= _ONE_THREAD_RESAMPLES
        with one_blas_thread() if small else contextlib.nullcontext():
            return _run(group, draw, work, n_jobs, verbose, sequential)

    for s in batches:
        group.append(s)
        if s.stop in looks:
            results += run(group)
            group = []
            if settled(results):
                return results
    return results + run(group)


def _run(batches, draw, work, n_jobs, verbose, sequential):
    if effective_n_jobs(n_jobs) == 1 and not verbose:
        one = sequential or (lambda s: work(s.start, *draw(s)))
        return [one(s) for s in batches]
    parallel = Parallel(
        n_jobs=n_jobs, backend="threading", verbose=verbose, pre_dispatch="n_jobs"
    )
    return parallel(delayed(work)(s.start, *draw(s)) for s in batches)


def _urn_step(mass, start, stop):
    """Null mass over the count of resamples ``>= T`` after ``stop`` of them,
    from its mass after ``start``: under the null, ``T`` is exchangeable with
    the resampled statistics, which makes the count a Polya urn (each next
    resample exceeds ``T`` with probability ``(k + 1) / (L + 2)``)."""
    d = stop - start
    k = np.arange(start + 1)[:, None]
    step = betabinom.pmf(np.arange(d + 1)[None, :], d, k + 1, start - k + 1)
    out = np.zeros(stop + 1)
    for j in range(d + 1):
        out[j : j + start + 1] += step[:, j] * mass
    return out


class SequentialRule:
    """When a test of at most ``n_max`` resamples may stop, and its p-value.

    The count ``k`` of resamples with ``T_b >= T`` is checked at each look
    ``L``: the test stops and accepts when ``k >= futile[j]``, and stops and
    rejects when ``k <= early[j]``; otherwise it draws on, to ``n_max`` where
    it is the fixed test. The bounds spend a risk of ``risk`` (over the looks,
    by a union bound): given that the fixed test on the same draws rejects,
    the chance of stopping to accept is at most ``risk`` whatever the data
    (conditionally on the final count the order of the draws is uniform:
    a hypergeometric tail at ``k = K``, the largest count that rejects); with
    data whose exceedance rate is ``alpha``, the chance of rejecting early is
    at most ``risk``.

    The p-value is exact for the sequential outcome: under the null the
    counts follow a Polya urn (:func:`_urn_step`), and outcomes are ordered
    as early rejections (earlier first), then full runs by their count, then
    early acceptances (later first, Besag & Clifford's order). Full runs
    report ``max(exact, (k + 1) / (n_max + 1))`` and early acceptances at
    least ``(K + 2) / (n_max + 1)``: never below the exact value, so
    ``P(p <= u) <= u`` for every ``u`` (valid), and ``p <= alpha`` exactly
    when the test rejects. Early rejections are dropped from the last looks
    until a full run of count ``K`` keeps an exact p-value ``<= alpha``, so a
    full run decides as the fixed test does.

    ``reject_early=False`` keeps only the stops to accept: every rejection is
    then one of the fixed test on the same draws, so the level is the fixed
    test's whatever the statistic. The aggregated tests use it: their
    statistic of a resample depends on all resamples drawn, so the counts at
    the looks are not the prefixes of one sequence and the urn is only their
    marginal law.

    References
    ----------
    Besag, J. and Clifford, P. (1991). Sequential Monte Carlo p-values.
    Biometrika 78(2), 301-304.
    """

    def __init__(
        self, alpha, n_max=AUTO_RESAMPLES, looks=_LOOKS, risk=_RISK, reject_early=True
    ):
        self.alpha, self.n_max = alpha, n_max
        self.looks = tuple(look for look in looks if look < n_max)
        # The largest count the fixed test rejects, as p <= alpha compares it.
        K = int(np.floor(alpha * (n_max + 1))) + 1
        while K >= 0 and (K + 1) / (n_max + 1) > alpha:
            K -= 1
        self.K = K
        per_look = risk / max(len(self.looks), 1)
        counts = np.arange(max(K, 0) + 2)
        self.futile = [
            int(counts[np.argmax(hypergeom.sf(counts - 1, n_max, K, L) <= per_look)])
            if K >= 0
            else 0
            for L in self.looks
        ]
        self.early = [
            int(np.searchsorted(binom.cdf(np.arange(L + 1), L, alpha), per_look)) - 1
            if reject_early
            else -1
            for L in self.looks
        ]
        while True:
            early, futile, full = self._null_mass()
            self.rejected_early = sum(mass.sum() for mass in early)
            # The level, with the full runs that the fixed test rejects.
            if self.rejected_early + full[: K + 1].sum() <= alpha:
                break
            # Early rejections whose full run would not have rejected cost
            # level: drop the last look's.
            last = max(j for j, r in enumerate(self.early) if r >= 0)
            self.early[last] = -1
        self._p_values(early, futile, full)
        self._freeze()

    def _freeze(self):
        """Make the rule read-only: one rule per level is shared by every
        test (:func:`sequential_rule` caches it)."""
        self.early, self.futile = tuple(self.early), tuple(self.futile)
        self.p_early, self.p_futile = tuple(self.p_early), tuple(self.p_futile)
        for table in (*self.p_early, *self.p_futile, self.p_full):
            table.flags.writeable = False

    def _null_mass(self):
        mass, start, early, futile = np.ones(1), 0, [], []
        for L, c, r in zip(self.looks, self.futile, self.early):
            mass = _urn_step(mass, start, L)
            early.append(mass[: r + 1].copy())
            futile.append(mass[c:].copy())
            mass[: r + 1] = mass[c:] = 0.0
            start = L
        return early, futile, _urn_step(mass, start, self.n_max)

    def _p_values(self, early, futile, full):
        n, K = self.n_max, self.K
        self.p_early, before = [], 0.0
        for mass in early:
            self.p_early.append(before + np.cumsum(mass))
            before += mass.sum()
        self.p_full = np.maximum(
            before + np.cumsum(full), np.arange(1, n + 2) / (n + 1)
        )
        after, self.p_futile = before + full.sum(), [None] * len(futile)
        for j in reversed(range(len(futile))):
            p = np.maximum(after + np.cumsum(futile[j]), (K + 2) / (n + 1))
            self.p_futile[j] = np.minimum(p, 1.0)
            after += futile[j].sum()

    def _look(self, n_drawn, p):
        # The count behind a p-value of the n_drawn resamples, (k + 1) / (L + 1).
        return self.looks.index(n_drawn), int(round(p * (n_drawn + 1))) - 1

    def settled(self, n_drawn, p):
        """Whether a test whose first ``n_drawn`` resamples (a look) give the
        fixed-size p-value ``p`` stops there."""
        j, k = self._look(n_drawn, p)
        return k >= self.futile[j] or k <= self.early[j]

    def p_value(self, n_drawn, p):
        """The sequential p-value of a test stopped after ``n_drawn``
        resamples, whose fixed-size p-value over them is ``p``."""
        if n_drawn == self.n_max:
            return float(self.p_full[int(round(p * (n_drawn + 1))) - 1])
        j, k = self._look(n_drawn, p)
        if k <= self.early[j]:
            return float(self.p_early[j][k])
        return float(self.p_futile[j][k - self.futile[j]])


class AggregatedRule:
    """``n_resamples="auto"`` for a test whose statistic of a resample depends
    on every resample drawn (the aggregated tests' min-p and FUSE).

    Their counts at the looks are not prefixes of one sequence, so the exact
    sequential p-value of :class:`SequentialRule` does not hold for early
    rejections. This rule rejects early at one look ``L``, the first at
    which the fixed-size p-value over the ``L`` resamples can reach ``spend =
    1 / (L + 1) <= alpha * _EARLY_SHARE``, when it does: the observed
    statistic beats all ``L`` resamples. That p-value is valid, so the early
    rejection costs at most ``spend`` of the level (a union bound); the
    stops to accept are those of ``SequentialRule(reject_early=False)``, and
    the reported p-value of every other outcome is that rule's plus
    ``spend``: full runs reject where the fixed test's p-value is at most
    ``alpha - spend``. ``P(p <= u) <= u`` for every ``u``.
    """

    def __init__(self, alpha, n_max=AUTO_RESAMPLES):
        self.alpha, self.n_max = alpha, n_max
        self.accept = SequentialRule(
            alpha, n_max=n_max, looks=_ACCEPT_LOOKS, reject_early=False
        )
        L = int(np.ceil(1.0 / (alpha * _EARLY_SHARE))) - 1
        self.reject_look = L if L < n_max else None
        self.spend = 0.0 if self.reject_look is None else 1.0 / (L + 1)
        early = () if self.reject_look is None else (L,)
        self.looks = tuple(sorted(set(self.accept.looks + early)))

    def _beats_all(self, n_drawn, p):
        return n_drawn == self.reject_look and round(p * (n_drawn + 1)) == 1

    def settled(self, n_drawn, p):
        """Whether the test stops after ``n_drawn`` resamples (a look)."""
        if self._beats_all(n_drawn, p):
            return True
        return n_drawn in self.accept.looks and self.accept.settled(n_drawn, p)

    def p_value(self, n_drawn, p):
        """The p-value of a test stopped after ``n_drawn`` resamples, whose
        fixed-size p-value over them is ``p``."""
        if self._beats_all(n_drawn, p):
            return self.spend
        return min(1.0, self.accept.p_value(n_drawn, p) + self.spend)


@functools.lru_cache(maxsize=64)
def aggregated_rule(alpha):
    """The rule of ``n_resamples="auto"`` for an aggregated test (cached)."""
    return AggregatedRule(float(alpha))


@functools.lru_cache(maxsize=64)
def sequential_rule(alpha, reject_early=True):
    """The rule of ``n_resamples="auto"`` at level ``alpha`` (cached)."""
    looks = _LOOKS if reject_early else _ACCEPT_LOOKS
    return SequentialRule(float(alpha), looks=looks, reject_early=reject_early)


def n_max(n_resamples):
    """The most resamples a test draws: ``n_resamples``, or the cap of "auto"."""
    return AUTO_RESAMPLES if n_resamples == "auto" else n_resamples


def final_p_value(rule, n_drawn, p):
    """The reported p-value: ``p`` of the ``n_drawn`` resamples, or with a
    sequential ``rule`` its sequential p-value."""
    return p if rule is None else rule.p_value(n_drawn, p)


def stop_when_settled(rule, p_of, null_of):
    """``stop`` of :func:`run_batches` for ``rule`` (None: no stopping):
    ``p_of(null)``, the fixed-size p-value of the resampled statistics
    ``null_of(results)`` drawn so far."""
    if rule is None:
        return None

    def settled(results):
        null = null_of(results)
        return rule.settled(null.shape[0], p_of(null))

    return rule.looks, settled


def threshold(null, alpha):
    """The null's upper ``alpha`` quantile among ``B + 1`` values: the
    statistic rejects at level ``alpha`` when it exceeds it."""
    k = int(np.floor(alpha * (null.size + 1) + 1e-9))
    return float(np.sort(null)[::-1][k - 1]) if k >= 1 else np.inf


def p_value(observed, null, tolerance):
    """``(1 + #{T_b >= T - tolerance}) / (B + 1)``: never 0, never NaN."""
    return (1.0 + np.count_nonzero(null >= observed - tolerance)) / (null.size + 1.0)

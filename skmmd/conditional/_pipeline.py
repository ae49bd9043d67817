"""One conditional independence test on the features of rows: the ridge's
per-fold statistics in one pass (:mod:`._ridge`), the products
``vec(r_i g_i' s_i')`` of the cross-fitted residuals summed into resampling
units by the one pipeline (:mod:`skmmd._inference._streaming`: its rows are the
row positions, its map computes the products of a chunk of positions), the
bootstrap's scale from wild re-fits (:mod:`._wild_bootstrap`), then the
multiplier bootstrap in the one calibration loop
(:mod:`skmmd._inference._multiplier`). Memory
is bounded by a chunk and the unit sums.
"""

from typing import NamedTuple

import numpy as np

from .._inference import _blocks, _calibration, _streaming
from .._inference._base import warn_if_ordered
from .._inference._multiplier import (
    bootstrap_units,
    multiplier_unit,
    resampled_multiplier,
)
from .._tables._labels import is_dataframe
from .._utils import _budgets
from .._utils._threads import one_blas_thread
from ..statistics._conditional import residual_products
from ..statistics._mean_norm import MultiplierParts
from ._ridge import RidgeFolds, fold_labels
from ._wild_bootstrap import null_scale

# The ridge fits with the cross-validated penalty divided by this: the
# statistic's bias under H0 is the product of the x- and y-fits' smoothing
# biases (their variances are independent under double cross-fitting), so the
# fits smooth less than the best prediction would, as for the generalised
# covariance measure (Shah and Peters, 2020); benchmarks/bench_conditional.py
# measures the level this gives.
_UNDERSMOOTH = 10.0

# Entries of the features kept in memory for the passes of one test (64 MB):
# the maps (the z map's dozen samplers) then run once, not four times.
_CACHE_ENTRIES = 2**23
# Wild re-fits estimating the bootstrap's scale (null_scale), used while there
# are fewer than _SCALE_ROWS rows per z-feature: the excess spread the re-fits
# correct is of the order of Dz / n_train, negligible beyond.
_SCALE_DRAWS = 8
_SCALE_ROWS = 100


class RowFeatures:
    """The features ``(A, B, C, G)`` of x, y, z and the weights over any range
    of row positions: what both :class:`~skmmd.ConditionalHSICTest` and a
    causal search (:class:`~skmmd.conditional._search.\
ConditionalSearch`) hand to :func:`calibrated`.

    Each of ``x, y, z, weights`` is a computed array (sliced), a pair
    ``(fitted map, data)`` (the rows transformed when asked for), or None:
    for z no columns (the regression on a constant), for the weights the
    constant weight 1.
    """

    def __init__(self, x, y, z=None, weights=None):
        self.sources = (x, y, z, weights)

    def __call__(self, lo, hi):
        out = []
        for i, source in enumerate(self.sources):
            if source is None:
                out.append(np.ones((hi - lo, 1)) if i == 3 else np.empty((hi - lo, 0)))
            elif isinstance(source, tuple):
                transformer, V = source
                rows = V.iloc[lo:hi] if is_dataframe(V) else V[lo:hi]
                out.append(np.asarray(transformer.transform(rows), dtype=np.float64))
            else:
                out.append(source[lo:hi])
        return out


def _in_memory(features, n_rows):
    """``features`` computed once, sliced by every pass over the rows, where
    they fit in ``_CACHE_ENTRIES`` (else as given); and their widths."""
    widths = tuple(F.shape[1] for F in features(0, 1))
    if n_rows * sum(widths) > _CACHE_ENTRIES:
        return features, widths
    whole = features(0, n_rows)
    return (lambda lo, hi: [F[lo:hi] for F in whole]), widths


def _chunks(n_rows, width):
    step = max(1, _budgets.CHUNK_ENTRIES // max(width, 1))
    for lo in range(0, n_rows, step):
        yield lo, min(lo + step, n_rows)


class _ResidualProducts:
    """The pipeline's map: row positions (a contiguous range) -> the products
    ``vec(r_i g_i' s_i')`` of their cross-fitted residuals and weights."""

    def __init__(self, features, ridge, labels, widths):
        self.features, self.ridge = features, ridge
        self.labels, self.widths = labels, widths

    def transform(self, positions):
        lo, hi = int(positions[0]), int(positions[-1]) + 1
        parts = []
        Dx, Dy, _, Dg = self.widths
        for a, b in _chunks(hi - lo, sum(self.widths) + Dx * Dy * Dg):
            A, B, C, G = self.features(lo + a, lo + b)
            folds = self.labels(np.arange(lo + a, lo + b))
            R = self.ridge.residuals(C, np.hstack([A, B]), folds)
            x, y = R[:, : A.shape[1]], R[:, A.shape[1] :]
            parts.append(residual_products(x, y, G))
        return np.vstack(parts)


class ConditionalRun(NamedTuple):
    """What :func:`calibrated` returns for one test."""

    parts: MultiplierParts  # the statistic's unit sums
    statistic: float  # the observed statistic
    null: np.ndarray  # the bootstrap statistics
    p_value: float
    penalty: np.ndarray  # the ridge's penalty of each target
    unit: int  # rows per resampling unit
    block: "int | None"  # rows per block (rows in time order), else None
    block_scale: "float | None"  # the block null's correction, else None


def conditional_parts(
    features,
    n_rows,
    seed,
    *,
    n_folds=5,
    penalties=None,
    n_resamples=999,
    resample_unit="auto",
    design=None,
    fold_seed=None,
    block_size=None,
    check_order=False,
):
    """The :class:`~skmmd.statistics._mean_norm.MultiplierParts` of one test, the
    ridge's penalties, the resampling unit and the blocks.

    ``features(lo, hi)`` returns the features ``(A, B, C, G)`` of x, y and z
    and the weights of the rows ``lo .. hi - 1``. Two passes over the rows:
    the ridge's per-fold statistics, then the residual products summed into
    units by the pipeline. Memory is bounded by a chunk and the unit sums.
    ``design``: a :class:`~skmmd.conditional._ridge.FoldDesign` shared by the
    tests with the same features of z and folds (``fold_seed``, default
    ``seed``), whose statistics and eigendecompositions they then compute once.

    ``block_size`` (None, ``"auto"`` or int): rows in time order. The units
    are then consecutive rows and the bootstrap draws one multiplier per
    block of them (:mod:`skmmd._inference._blocks`), its statistics widened
    by the block null's correction (and not scaled by the wild re-fits).
    The folds stay random, as for exchangeable rows: every fit then spans
    the whole series, where contiguous folds (or blocks of rows, with a gap
    of rows that no neighbouring fit trains on) extrapolate to stretches a
    near unit-root series visits once, and leave most of the signal in
    serially dependent residuals, whose long blocks take the test's power
    (``doc/benchmarks.rst``, causal discovery on time series). Under the
    null a neighbour's noise in a fit does not bias the statistic (the
    noises of x and of y are independent given z); the blocks carry the
    dependence it leaves in the products.
    ``check_order``: with ``block_size=None``,
    warn when the residual products of the first rows look serially
    dependent (:func:`~skmmd._inference._base.warn_if_ordered`).

    Returns
    -------
    parts, penalty, unit, block, block_scale
        The bootstrap's parts, the penalty of each target, rows per unit,
        rows per block and the block null's correction (both None for
        exchangeable rows).
    """
    fold_seed = seed if fold_seed is None else fold_seed
    features, widths = _in_memory(features, n_rows)  # widths: Dx, Dy, Dz, Dg

    def labels(positions):
        return fold_labels(fold_seed, positions, n_folds)

    # Double cross-fitting (the x- and y-features of a row fit on disjoint
    # folds) where the folds allow: a row's noise then enters one of the two
    # fits used at another row, not both.
    split = widths[0] if n_folds >= 4 else None
    ridge = RidgeFolds(n_folds, penalties, split, _UNDERSMOOTH, design)
    for lo, hi in _chunks(n_rows, sum(widths)):
        A, B, C, _ = features(lo, hi)
        ridge.add(C, np.hstack([A, B]), labels(np.arange(lo, hi)))
    # Eigendecompositions of Dz x Dz matrices on one BLAS thread: several
    # threads beside numba's idle workers oversubscribe the cores.
    with one_blas_thread():
        ridge.fit()
    width = widths[0] * widths[1] * widths[3]
    if resample_unit == "auto":
        unit = multiplier_unit(n_rows, _calibration.n_max(n_resamples), width)
    else:
        unit = resample_unit
    products = _ResidualProducts(features, ridge, labels, widths)
    if check_order and block_size is None:
        head = min(n_rows, _budgets.ORDER_CHECK_ROWS)
        warn_if_ordered([products.transform(np.arange(head))], seed)
    ordered = block_size is not None
    stream = _streaming.Stream([products], [width], unit, seed, ordered=ordered)
    stream.add((np.arange(n_rows), None), unit)
    (sums,) = stream.sums()
    block = block_scale = None
    if ordered:
        # One multiplier per block of consecutive rows, the null corrected
        # for the dependence between neighbouring blocks.
        choice = _blocks.choose(block_size, [sums.series()], unit)
        (sums,), (block_scale,) = choice.coarsen([sums])
        block = choice.rows
    U, sizes = bootstrap_units(sums, n_rows, unit)
    kappa = 1.0
    # Without z the fits are means: no excess spread to speak of. With
    # blocks the bootstrap's units hold the cross terms of neighbouring rows
    # themselves, and the row-level re-fits' correction of the rest would
    # narrow the null below the level (benchmarks/bench_conditional_time_series.py).
    if not ordered and 0 < widths[2] and n_rows <= _SCALE_ROWS * widths[2]:

        def chunks():
            extra = (3 * (widths[0] + widths[1]) + widths[0] * widths[3]) * _SCALE_DRAWS
            extra += 2 * width
            for lo, hi in _chunks(n_rows, sum(widths) + extra):
                A, B, C, G = features(lo, hi)
                positions = np.arange(lo, hi)
                yield positions, C, np.hstack([A, B]), G, labels(positions)

        kappa = null_scale(chunks, ridge, widths[0], n_draws=_SCALE_DRAWS, seed=seed)
    scale = kappa if block_scale is None else kappa * block_scale
    # Blocks: the bootstrap centered, so that the small mean the regressions'
    # bias leaves in the products does not widen it once per block row.
    parts = MultiplierParts(U, sizes, null_scale=scale, centered=ordered)
    return parts, ridge.penalty_, unit, block, block_scale


def calibrated(
    features,
    n_rows,
    seed,
    *,
    n_resamples=999,
    alpha=0.05,
    batch=None,
    n_jobs=None,
    verbose=0,
    **options,
):
    """One conditional test on the features ``features(lo, hi)`` of ``n_rows``
    rows (a :class:`RowFeatures`), the bootstrap in the one calibration loop
    (``n_resamples="auto"``: stopped when the decision at ``alpha`` is
    known). ``options``: those of :func:`conditional_parts`.

    Returns
    -------
    run : ConditionalRun
    """
    parts, penalty, unit, block, block_scale = conditional_parts(
        features, n_rows, seed, n_resamples=n_resamples, **options
    )
    rule = _calibration.sequential_rule(alpha) if n_resamples == "auto" else None
    observed, null, tolerance = resampled_multiplier(
        parts,
        n_resamples=n_resamples,
        batch=batch,
        seed=seed,
        n_jobs=n_jobs,
        verbose=verbose,
        stopping=rule,
    )
    p = float(_calibration.p_value(observed, null, tolerance))
    p = _calibration.final_p_value(rule, null.shape[0], p)
    return ConditionalRun(parts, observed, null, p, penalty, unit, block, block_scale)

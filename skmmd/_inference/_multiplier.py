"""The multiplier bootstrap of unit sums in the one calibration loop: for
statistics that are the squared norm of a mean of row features vanishing in
mean under H0 (:class:`~skmmd.statistics._mean_norm.MultiplierParts`: the
conditional HSIC, the kernel Stein discrepancy). The unit rule, the unit sums
of the pipeline as the bootstrap's units, and the loop over a statistic's
``parts`` (any object with ``G``, ``observed()`` and ``statistics(draws)``,
also the independence family's pairings)."""

import numpy as np

from .._utils import _budgets
from ._calibration import p_value as fixed_p_value
from ._calibration import resample_batches, run_batches, stop_when_settled


def multiplier_unit(n_rows, n_resamples, width, max_units=None):
    """The smallest power of two keeping the bootstrap's ``B x G x width``
    multiply-adds within ``_budgets.GEMM_BUDGET``, the unit sums within
    ``_budgets.UNIT_ENTRIES`` entries (and at most ``max_units`` units) and
    at least ``_budgets.MIN_UNITS`` units where the rows allow (the
    multiplier bootstrap is a Gaussian approximation, trusted from hundreds
    of units)."""

    def fits(unit):
        if n_rows // (2 * unit) < _budgets.MIN_UNITS:
            return True  # no coarser unit keeps enough units
        units = n_rows // unit
        cost = n_resamples * units * width
        if max_units is not None and units > max_units:
            return False
        return cost <= _budgets.GEMM_BUDGET and units * width <= _budgets.UNIT_ENTRIES

    return _budgets.smallest_unit(fits)


def bootstrap_units(sums, n_rows, unit):
    """``(U, sizes)``: the unit sums of one stream's map (a
    :class:`~._calibration.FeatureSums`) with the rows of no complete unit as
    a unit of their own (in a bootstrap every unit keeps its rows)."""
    U, sizes = sums.U, sums.sizes
    rest = n_rows - int(sizes.sum())
    if rest:
        U = np.vstack([U, sums.remainder()[None, :]])
        sizes = np.append(sizes, rest)
    if U.shape[0] < _budgets.MIN_UNITS:
        raise ValueError(
            f"resample_unit={unit} leaves {U.shape[0]} units of {n_rows} rows; the "
            f"multiplier bootstrap needs at least {_budgets.MIN_UNITS}."
        )
    return U, sizes


def resampled(parts, draw, n_resamples, batch, n_jobs, verbose, stopping, p_of):
    """Observed statistic, null and tolerance of ``parts`` on the resamples
    ``draw`` makes, through the one loop (stopped by ``stopping``, reading
    ``p_of(observed, null, tolerance)``, when given)."""
    if batch is None:
        batch = getattr(parts, "batch", None) or max(
            1, _budgets.BATCH_ENTRIES // parts.G
        )
    if stopping is not None:
        n_resamples = stopping.n_max
    observed, scale = parts.observed()
    tolerance = 100 * np.finfo(np.float64).eps * scale
    if p_of is None:
        p_of = fixed_p_value

    def work(start, weights):
        return parts.statistics(weights)[0]

    stop = stop_when_settled(
        stopping, lambda null: p_of(observed, null, tolerance), np.concatenate
    )
    batches = resample_batches(n_resamples, batch, stop[0] if stop else ())
    results = run_batches(batches, draw, work, n_jobs, verbose, stop=stop)
    return observed, np.concatenate(results), tolerance


def resampled_multiplier(
    parts,
    *,
    n_resamples=999,
    batch=None,
    seed=0,
    n_jobs=None,
    verbose=0,
    stopping=None,
    p_of=None,
):
    """Observed statistic and its multiplier-bootstrap null: each unit sum
    times an independent random sign.

    ``parts``: the :class:`~skmmd.statistics._mean_norm.MultiplierParts` of the
    units (or a :class:`~skmmd.statistics._mean_norm.StackedParts` of several
    kernels, all on the same signs). Returns ``(observed, null, tolerance)``:
    the statistic, the bootstrap statistics (B,) and the rounding tolerance
    of ties (arrays with a column per kernel for stacked parts). ``stopping``
    and ``p_of`` as in :func:`resampled` (``n_resamples="auto"``).
    """
    rng = np.random.default_rng(seed)
    G = parts.G

    def draw(s):
        # Uniforms row after row (one draw each, unbuffered): the same signs
        # for any batching.
        return (np.where(rng.random((s.stop - s.start, G)) < 0.5, -1.0, 1.0),)

    return resampled(parts, draw, n_resamples, batch, n_jobs, verbose, stopping, p_of)

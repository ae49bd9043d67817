"""The independence family's resamples for the one calibration loop
(:mod:`skmmd._testing._calibration`): HSIC of every pairing of the x and y
units, and the conditional test's multiplier bootstrap of its unit sums."""

import numpy as np

from .._testing import _calibration
from .._testing._calibration import resample_batches, run_batches, stop_when_settled
from .._utils import _budgets


def _resampled(parts, draw, n_resamples, batch, n_jobs, verbose, stopping, p_of):
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
        p_of = _calibration.p_value

    def work(start, weights):
        return parts.statistics(weights)[0]

    stop = stop_when_settled(
        stopping, lambda null: p_of(observed, null, tolerance), np.concatenate
    )
    batches = resample_batches(n_resamples, batch, stop[0] if stop else ())
    results = run_batches(batches, draw, work, n_jobs, verbose, stop=stop)
    return observed, np.concatenate(results), tolerance


def resampled_hsic(
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
    """Observed HSIC and its permutation null: the y observations (units)
    paired with the x ones by uniformly random permutations.

    ``parts``: the :class:`~skmmd.mmd._hsic.HSICParts` of the observations,
    of one pair of kernels or of several (each x column group against y in
    ``explain``, an aggregated test's grid), all on the same pairings.
    Returns ``(observed, null, tolerance)`` as the two-sample tests'
    ``resampled_statistics``: floats and a null of shape (B,) for one pair of
    kernels, else arrays with a column of ``null`` per pair. ``stopping`` and
    ``p_of`` as there (``n_resamples="auto"``).
    """
    rng = np.random.default_rng(seed)
    G = parts.G

    def draw(s):
        # Row after row from the one generator: any batching, same pairings.
        identity = np.broadcast_to(np.arange(G), (s.stop - s.start, G))
        return (rng.permuted(identity, axis=1),)

    return _resampled(parts, draw, n_resamples, batch, n_jobs, verbose, stopping, p_of)


def resampled_conditional(
    parts,
    *,
    n_resamples=999,
    batch=None,
    seed=0,
    n_jobs=None,
    verbose=0,
    stopping=None,
):
    """Observed conditional HSIC and its multiplier-bootstrap null: each unit
    sum of residual products times an independent random sign.

    ``parts``: the :class:`~skmmd.mmd._conditional.ConditionalParts` of the
    units. Returns ``(observed, null, tolerance)`` as :func:`resampled_hsic`.
    """
    rng = np.random.default_rng(seed)
    G = parts.G

    def draw(s):
        # Uniforms row after row (one draw each, unbuffered): the same signs
        # for any batching.
        return (np.where(rng.random((s.stop - s.start, G)) < 0.5, -1.0, 1.0),)

    return _resampled(parts, draw, n_resamples, batch, n_jobs, verbose, stopping, None)

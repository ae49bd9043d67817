"""The independence family's resamples for the one calibration loop
(:mod:`skmmd._testing._calibration`): HSIC of every pairing of the x and y
units, and the conditional test's multiplier bootstrap of its unit sums."""

import numpy as np
from sklearn.utils import gen_batches

from .._testing import _calibration
from .._testing._calibration import run_batches


def resampled_hsic(
    parts, *, n_resamples=999, batch=None, seed=0, n_jobs=None, verbose=0
):
    """Observed HSIC and its permutation null: the y observations (units)
    paired with the x ones by uniformly random permutations.

    ``parts``: the :class:`~skmmd.mmd._hsic.HSICParts` of the observations,
    of one pair of kernels or of several (each x column group against y in
    ``explain``, an aggregated test's grid), all on the same pairings.
    Returns ``(observed, null, tolerance)`` as the two-sample tests'
    ``resampled_statistics``: floats and a null of shape (B,) for one pair of
    kernels, else arrays with a column of ``null`` per pair.
    """
    rng = np.random.default_rng(seed)
    G = parts.G
    if batch is None:
        batch = max(1, _calibration._BATCH_ENTRIES // G)

    def draw(s):
        # Row after row from the one generator: any batching, same pairings.
        identity = np.broadcast_to(np.arange(G), (s.stop - s.start, G))
        return (rng.permuted(identity, axis=1),)

    def work(start, pairings):
        return parts.statistics(pairings)[0]

    results = run_batches(gen_batches(n_resamples, batch), draw, work, n_jobs, verbose)
    observed, scale = parts.observed()
    tolerance = 100 * np.finfo(np.float64).eps * scale
    return observed, np.concatenate(results), tolerance


def resampled_conditional(
    parts, *, n_resamples=999, batch=None, seed=0, n_jobs=None, verbose=0
):
    """Observed conditional HSIC and its multiplier-bootstrap null: each unit
    sum of residual products times an independent random sign.

    ``parts``: the :class:`~skmmd.mmd._conditional.ConditionalParts` of the
    units. Returns ``(observed, null, tolerance)`` as :func:`resampled_hsic`.
    """
    rng = np.random.default_rng(seed)
    G = parts.G
    if batch is None:
        batch = max(1, _calibration._BATCH_ENTRIES // G)

    def draw(s):
        # Uniforms row after row (one draw each, unbuffered): the same signs
        # for any batching.
        return (np.where(rng.random((s.stop - s.start, G)) < 0.5, -1.0, 1.0),)

    def work(start, weights):
        return parts.statistics(weights)[0]

    results = run_batches(gen_batches(n_resamples, batch), draw, work, n_jobs, verbose)
    observed, scale = parts.observed()
    tolerance = 100 * np.finfo(np.float64).eps * scale
    return observed, np.concatenate(results), tolerance

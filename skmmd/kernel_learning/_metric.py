"""The learned metric of a Gaussian kernel's random Fourier features and its
ascent, whatever the criterion: frequencies ``W(theta)`` of the metric
``diag(1 / l^2) + M^T M`` at a fixed trace, the chain rule from a criterion's
gradient in ``W`` to ``theta = (log l, vec M)``, L-BFGS from one start, and
the choice among several starts. The two-sample criterion
(:mod:`._fourier`) and the Stein criterion (:mod:`._stein`) each say only
what they are in ``W``."""

import numpy as np
from scipy import optimize

# Each ARD length scale stays within this factor of its start (so do the
# relative weights of the features, the overall scale being fixed).
ARD_RANGE = 16.0

# Size of the learned linear map at the start, relative to the ARD scales:
# small, so that the start is the isotropic kernel, but not zero, where the
# criterion is stationary in the map (it depends on M^T M).
INIT_MAP = 0.1


class MetricCriterion:
    """A criterion of the features of frequencies ``W(theta) = sqrt(kappa)
    (diag(1 / l) W_1 + M^T W_2)``, ``kappa`` scaling the metric's trace to
    ``size``: a subclass gives ``value_of(W)`` and
    ``value_and_gradient_of(W)``; this class gives both in ``theta``."""

    def __init__(self, draws_ard, draws_map):
        self.draws_ard, self.draws_map = draws_ard, draws_map
        self.size = None  # trace of the metric, set by the start

    def _split(self, theta):
        d = self.draws_ard.shape[0]
        return np.exp(-theta[:d]), theta[d:].reshape(-1, d)

    def trace(self, theta):
        """Trace of the metric ``diag(1 / l^2) + M^T M``."""
        inverse_scales, M = self._split(theta)
        return float(inverse_scales @ inverse_scales + np.sum(M * M))

    def _raw_frequencies(self, theta):
        inverse_scales, M = self._split(theta)
        return inverse_scales[:, None] * self.draws_ard + M.T @ self.draws_map

    def frequencies(self, theta):
        """``W`` for the metric of ``theta`` scaled to the trace ``self.size``:
        the optimizer moves the kernel's shape, not its overall scale."""
        return np.sqrt(self.size / self.trace(theta)) * self._raw_frequencies(theta)

    def value(self, theta):
        return self.value_of(self.frequencies(theta))

    def value_and_gradient(self, theta):
        value, grad_W = self.value_and_gradient_of(self.frequencies(theta))
        # W = sqrt(kappa) W_raw with kappa = size / trace: the chain rule
        # through both factors.
        inverse_scales, M = self._split(theta)
        trace = self.trace(theta)
        kappa = self.size / trace
        grad_raw = np.sqrt(kappa) * grad_W
        grad_kappa = np.sum(grad_W * self._raw_frequencies(theta)) / (
            2 * np.sqrt(kappa)
        )
        dkappa_dtrace = -self.size / trace**2
        grad_ard = -inverse_scales * np.einsum("jf,jf->j", grad_raw, self.draws_ard)
        grad_ard += grad_kappa * dkappa_dtrace * (-2.0 * inverse_scales**2)
        grad_map = self.draws_map @ grad_raw.T + grad_kappa * dkappa_dtrace * 2.0 * M
        return value, np.concatenate([grad_ard, grad_map.ravel()])


def maximize(objective, theta, max_iter, tol):
    """L-BFGS ascent of the criterion from ``theta``: ``(theta, value,
    start_value, iterations)``, the start if no better."""
    start_value = objective.value(theta)
    if max_iter == 0:
        return theta, start_value, start_value, 0
    d = objective.draws_ard.shape[0]
    bounds = [(t - np.log(ARD_RANGE), t + np.log(ARD_RANGE)) for t in theta[:d]]
    bounds += [(None, None)] * (theta.size - d)
    scale = max(1.0, abs(start_value))
    solution = optimize.minimize(
        lambda t: tuple(-v / scale for v in objective.value_and_gradient(t)),
        theta,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": max_iter, "gtol": tol, "ftol": tol},
    )
    value = -solution.fun * scale
    if value < start_value:
        return theta, start_value, start_value, int(solution.nit)
    return solution.x, value, start_value, int(solution.nit)


def best_start(objective, check, map_draws, bandwidth, scales, max_iter, tol):
    """Learn from every start ``c`` in ``scales`` (length scales ``c
    bandwidth``, a small random map) and keep the kernel whose criterion with
    ``check``'s other frequencies is largest: ``(score, c, start, theta,
    value, start_value, iterations)``."""
    d = objective.draws_ard.shape[0]
    best = None
    for c in scales:
        start = np.concatenate(
            [
                np.full(d, np.log(c * bandwidth)),
                (INIT_MAP / (c * bandwidth)) * map_draws,
            ]
        )
        objective.size = check.size = objective.trace(start)
        theta, value, start_value, n_iter = maximize(objective, start, max_iter, tol)
        score = check.value(theta)
        if best is None or score > best[0]:
            best = (score, c, start, theta, value, start_value, n_iter)
    return best

"""Families whose support starts at a free location: the edge conditioned on.

A ``scipy.stats`` family whose support starts at ``loc + a * scale``
(exponential, Pareto, Weibull, gamma, generalized Pareto, lognormal), its
location free, has its maximum-likelihood edge at the smallest row, where
the rows mapped onto the line (:mod:`._support`) are undefined. The test
conditions on the edge instead: the smallest value ``m`` estimates it, the
row that holds it is set aside and the others are tested shifted by it,
``y = x - m > 0``, against the member whose support starts at 0, its other
parameters fit to ``y`` with that end held (``loc = -a * scale``). The
statistic is a function of ``x - m`` alone, so its null law does not
depend on the location; the parametric bootstrap repeats the same
construction on every resample (rows drawn from the fit, the smallest set
aside, the rest shifted and refit), so it reproduces the rows' statistic's
law at the fitted shapes and scale. For the exponential, which forgets its
past, the shifted rows are a sample of the member at edge 0 whatever ``m``:
the test is then exact.
"""

import numpy as np
from scipy import optimize

from .._utils._compat import frozen_parameters
from ._composite import Family, ScipyFamily

# Half-width, in log scale, of the profile search of an edge held by the
# location and the scale together (Pareto): e^10 times the rows' median.
_LOG_SCALE_SPAN = 10.0


def edge_conditioned(family):
    """``family`` as an :class:`EdgeFamily` where it is an unfrozen scipy
    family whose support starts at its free location; as it is otherwise."""
    if (
        isinstance(family, ScipyFamily)
        and "loc" not in family.known
        and np.isfinite(family.dist.a)
    ):
        return EdgeFamily(family)
    return family


def above_the_smallest(X):
    """``(m, Y)``: the smallest value of the rows ``X`` and the other rows
    shifted by it (the row that holds it set aside)."""
    i = int(np.argmin(X.min(axis=1)))
    m = X[i].min()
    return m, np.delete(X, i, axis=0) - m


class EdgeFamily(Family):
    """A :class:`~._composite.ScipyFamily` whose lower end is its free
    location, tested above its smallest row (see the module): ``fit`` is the
    member with its edge at the smallest value, ``tested`` the rows above
    it shifted, against the member at edge 0."""

    dropped = 1

    def __init__(self, base):
        self.base, self.name, self.a = base, base.name, float(base.dist.a)
        # The location follows the edge: values given for it do not count.
        self.fitted = {k: v for k, v in base.fitted.items() if k != "loc"}
        self.guessed = {k: v for k, v in base.guessed.items() if k != "loc"}

    def _at_zero(self, Y, fixed, guesses):
        """The member fit to ``Y`` with its support's lower end held at 0
        and the parameters ``fixed``."""
        if self.a == 0:
            return self.base._fit(Y, {**fixed, "loc": 0.0}, guesses)
        if "scale" in fixed:
            held = {**fixed, "loc": -self.a * fixed["scale"]}
            return self.base._fit(Y, held, guesses)
        # The end is loc + a * scale: the likelihood profiled over the scale.
        y = np.ravel(Y)
        guesses = {k: v for k, v in guesses.items() if k != "scale"}

        def law_at(log_scale):
            s = float(np.exp(log_scale))
            return self.base._fit(y, {**fixed, "loc": -self.a * s, "scale": s}, guesses)

        def minus_log_likelihood(log_scale):
            value = -np.sum(law_at(log_scale).logpdf(y))
            return value if np.isfinite(value) else np.finfo(np.float64).max

        centre = np.log(np.median(y))
        best = optimize.minimize_scalar(
            minus_log_likelihood,
            bounds=(centre - _LOG_SCALE_SPAN, centre + _LOG_SCALE_SPAN),
            method="bounded",
        )
        return law_at(best.x)

    def _moved(self, law, shift):
        shapes, loc, scale = frozen_parameters(law)
        return self.base.member((*shapes, loc + shift, scale))

    def fit(self, X, seed):
        """The member with its edge at the smallest value of ``X``, its
        other parameters fit to the rows above it."""
        m, Y = above_the_smallest(X)
        guesses = {**self.fitted, **self.guessed}
        return self._moved(self._at_zero(Y, self.base.known, guesses), m)

    def null_law(self, X, fitted):
        """``fitted``, or with ``fit_params`` the fit that holds them."""
        if not self.fitted:
            return fitted
        m, Y = above_the_smallest(X)
        held = {**self.base.known, **self.fitted}
        return self._moved(self._at_zero(Y, held, self.guessed), m)

    def tested(self, X, law):
        """The rows above the smallest value, shifted by it, against
        ``law`` moved to edge 0."""
        m, Y = above_the_smallest(X)
        return self._moved(law, -m), Y

    def sample(self, law, shape, rng):
        return self.base.sample(law, shape, rng)

    def check_ends(self, law):
        """The lower end is held at 0; any other end a free parameter moves
        is refused (:meth:`~._composite.ScipyFamily.check_ends`)."""
        free = [name for name in self.base.free() if name != "loc"]
        self.base.check_ends(law, free, lambda p: {**p, "loc": -self.a * p["scale"]})

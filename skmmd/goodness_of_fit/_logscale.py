"""Families on the half-line whose logarithm is a location-scale family:
the rows tested as standardized logarithms.

With its location held (``known_params={"loc": a}``), the logarithm
``y = log(x - a)`` of a Weibull row is a (minimum) Gumbel row of location
``log(scale)`` and scale ``1 / c``, and that of a lognormal row a normal row
of location ``log(scale)`` and scale ``s``. The maximum likelihood fit of
the family is that of the location-scale family of the logarithms (the
likelihoods differ by the Jacobian, which no parameter moves), which is
equivariant: the logarithms standardized by the fit, ``z = (y -
log(scale)) / spread``, have a law that depends on no parameter, and they
are tested against the standard member of the logarithms' family, as a
location-scale family on the line is (:class:`~._composite.ScipyFamily`,
with the kernel on the probability-integral transform for one column). The
statistic's null law is then that of every resample, whatever the
parameters: the parametric bootstrap is exact.

Tested on the log line against the fitted law instead (a half-line law's
own construction, :mod:`._support`), the statistic scales with the fitted
spread, which every resample's refit draws anew around the rows' fit while
the kernel's bandwidth stays that of the rows; the bootstrap's null is then
wider than the rows' statistic's law, and the test conservative.
"""

import numpy as np
from scipy import stats

from .._utils._compat import frozen_parameters
from ._composite import Family, ScipyFamily
from ._maps import PitScore

# scipy family -> (the standard law of its logarithm at location 0, the
# logarithm's scale as a function of the family's shape).
LOG_LOCATION_SCALE = {
    "weibull_min": (stats.gumbel_l, lambda c: 1.0 / c),
    "lognorm": (stats.norm, lambda s: s),
}


def log_standardized(family):
    """``family`` as a :class:`LogScaleFamily` where it is an unfrozen
    scipy family of :data:`LOG_LOCATION_SCALE` whose location is known; as
    it is otherwise."""
    if (
        isinstance(family, ScipyFamily)
        and family.dist.name in LOG_LOCATION_SCALE
        and "loc" in family.known
    ):
        return LogScaleFamily(family)
    return family


class LogScaleFamily(Family):
    """A :class:`~._composite.ScipyFamily` with its location held whose
    logarithm is a location-scale family (see the module): fit, refit and
    drawn as the family, its rows tested as their standardized logarithms
    against the standard member of the logarithms' family."""

    def __init__(self, base):
        self.base, self.name = base, base.name
        law, self.spread = LOG_LOCATION_SCALE[base.dist.name]
        self.standard = law()
        self.pit = None  # decided at the first rows tested

    def fit(self, X, seed):
        return self.base.fit(X, seed)

    def refit(self, X, seed, start):
        """A resample's fit: the logarithms' location-scale family fit to
        the logarithms of the rows (the same maximum likelihood, by that
        family's own solver, a root of one equation where the family's
        optimizes two parameters), its parameters read back; the family's
        own fit where ``guessed_params`` start it or nothing is left to
        fit."""
        base = self.base
        shape, known = base.shapes[0], base.known
        if base.guessed or (shape in known and "scale" in known):
            return base.fit(X, seed)
        held = {}
        if shape in known:
            held["fscale"] = self.spread(known[shape])
        if "scale" in known:
            held["floc"] = np.log(known["scale"])
        loc = known["loc"]
        y = np.log(np.ravel(X) - loc)
        centre, spread = self.standard.dist.fit(y, **held)
        return base.member((self.spread(spread), loc, np.exp(centre)))

    def null_law(self, X, fitted):
        return self.base.null_law(X, fitted)

    def sample(self, law, shape, rng):
        return self.base.sample(law, shape, rng)

    def check_ends(self, law):
        self.base.check_ends(law)

    def tested(self, X, law):
        """The logarithms of the rows above the location, standardized by
        the fit ``law``, against the standard member of their family; a
        ValueError for rows on or below the location."""
        (shape,), loc, scale = frozen_parameters(law)
        if self.pit is None:
            self.pit = np.shape(X)[1] == 1
        outside = np.flatnonzero(~(X > loc).all(axis=1))
        if outside.size:
            raise ValueError(
                f"X has {outside.size} rows on or below the location {loc:g} of "
                f"{self.name} (the first at row {outside[0]}): the family gives "
                "them no density; drop them, or fit the location (known_params "
                "without 'loc')."
            )
        z = (np.log(X - loc) - np.log(scale)) / self.spread(shape)
        return self.standard, z

    def read_by(self, score, law):
        """The standard member's score, read with the probability-integral
        transform (:class:`~._maps.PitScore`) for one column."""
        return PitScore(score, law) if self.pit else score

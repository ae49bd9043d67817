"""Composite nulls: "does some member of this family fit the rows?".

A model given as a family, an unfrozen ``scipy.stats`` law (some parameters
fixed by ``known_params``, as :func:`scipy.stats.goodness_of_fit` takes
them) or an unfitted scikit-learn density estimator with ``fit`` and
``sample``, is fit to the tested rows, and the statistic against that fit
is calibrated by a parametric bootstrap that refits (Key, Fernandez,
Gretton & Briol 2021; scipy's ``goodness_of_fit``): each resample draws as
many rows from the fitted member, refits the family to them and computes the
statistic against its own refit, with the test's features. The fit's own
closeness to its rows is thus in the null, so the test is neither
conservative (the fit's statistic against the multiplier bootstrap, which
knows nothing of the fit) nor liberal (a fit on other rows, whose error is a
misfit the test sees).

The resamples are seeds drawn by the one calibration loop
(:func:`skmmd._inference._multiplier.resampled`); a resample's statistic costs
a draw, a refit and the ``O(n D d)`` Stein features of its rows, a batch's
rows mapped together.
"""

import copy
import inspect
import warnings

import numpy as np
from sklearn.base import clone

from .._inference._multiplier import resampled
from .._utils import _budgets
from .._utils._compat import frozen_parameters, is_fitted
from ._maps import PitScore, stein_inputs
from ._mixtures import em_refit


class Family:
    """What a family does by default: its rows' fit is the law the
    statistic is computed against, on the drawn rows as they are (none
    dropped), and a resample's refit is a fit like the rows'."""

    dropped = 0

    def tested(self, X, law):
        """The law and the rows of the statistic of rows ``X`` fit by
        ``law``: here both as they are."""
        return law, X

    def refit(self, X, seed, start):
        """A resample's fit (``start``: the law it was drawn from)."""
        return self.fit(X, seed)

    def check_ends(self, law):
        """Refuse, before the bootstrap, a support whose end a refit can
        move onto a row: none here."""

    def read_by(self, score, law):
        """The score the test's maps read for the tested law ``law`` (its
        :class:`~._models.ModelScore` ``score``): here ``score`` itself."""
        return score


class ScipyFamily(Family):
    """An unfrozen continuous ``scipy.stats`` family: fit by its maximum
    likelihood ``fit`` with ``known_params`` held fixed (scipy's ``f``
    keywords), drawn by ``rvs``. A univariate family is the law of every
    column, independently (as a frozen law is): it is fit to all values.

    As in :func:`scipy.stats.goodness_of_fit`: ``fit_params`` are values
    already fit to the rows, which the law the resamples are drawn from
    takes as given (:meth:`null_law`), while every statistic, the rows' and
    each resample's, refits them (starting from them); ``guessed_params``
    are starting values of every fit.

    A law on the whole line with a free location or scale is tested on the
    rows standardized by the fit, ``z = (x - loc) / scale``, against the
    standard member (:meth:`tested`): as its fit is equivariant, the
    statistic's null law does not depend on the location and scale, and
    the parametric bootstrap is exact for a family without free shapes."""

    def __init__(self, dist, known_params, fit_params=None, guessed_params=None):
        self.dist = dist
        self.shapes = [s.strip() for s in (dist.shapes or "").split(",") if s.strip()]
        self.names = [*self.shapes, "loc", "scale"]
        given = {
            "known_params": dict(known_params or {}),
            "fit_params": dict(fit_params or {}),
            "guessed_params": dict(guessed_params or {}),
        }
        for option, values in given.items():
            unknown = sorted(set(values) - set(self.names))
            if unknown:
                raise ValueError(
                    f"{option} has {unknown}, not parameters of scipy.stats."
                    f"{dist.name}, whose parameters are {self.names}."
                )
        both = sorted(
            set(given["known_params"])
            & (set(fit_params or {}) | set(guessed_params or {}))
        )
        if both:
            raise ValueError(
                f"{both} are known_params (held fixed); they cannot also be "
                "fit_params or guessed_params."
            )
        self.known = given["known_params"]
        self.fitted, self.guessed = given["fit_params"], given["guessed_params"]
        self.name = f"scipy.stats.{dist.name}"
        self._first = self._standard = None
        self.standardizes = self.pit = None  # decided at the first fit

    def tested(self, X, law):
        """The rows standardized by the fit, against the standard member
        (a law on the whole line with a free location or scale); else the
        rows and the law as they are."""
        if self.standardizes is None:
            low, high = law.support()
            free = {"loc", "scale"} - set(self.known)
            self.standardizes = bool(free) and np.isinf(low) and np.isinf(high)
            self.pit = self.standardizes and np.shape(X)[1] == 1
        if not self.standardizes:
            return law, X
        shapes, loc, scale = frozen_parameters(law)
        if shapes:
            return self.member((*shapes, 0.0, 1.0)), (X - loc) / scale
        if self._standard is None:  # the one standard member of no shapes
            self._standard = self.member((0.0, 1.0))
        return self._standard, (X - loc) / scale

    def read_by(self, score, law):
        """The score of the standard member, read by the maps with the
        rows' probability-integral transform (:class:`~._maps.PitScore`)
        where the rows are standardized and of one column; else ``score``."""
        return PitScore(score, law) if self.pit else score

    def member(self, params):
        """The family's member of ``params`` (shapes, loc, scale), a copy
        of the first fit where there is one (see :meth:`_frozen`)."""
        if self._first is None:
            self._first = self.dist(*params)
            return self._first
        return self._frozen(tuple(params))

    def check_ends(self, law, free=None, pinned=None):
        """A ValueError, before the bootstrap, when a ``free`` parameter
        (default every parameter fit) moves an end ``loc + a * scale`` of
        the support of the fit ``law``: its maximum likelihood puts that end
        on the extreme row, where the rows mapped onto the line are
        undefined. The lower end of a free location is conditioned on
        instead (:mod:`._edges`: there ``pinned`` holds the location to the
        edge). An end a shape moves (the generalized Pareto's upper end when
        its shape is negative) is left to the resamples: the likelihood
        keeps the rows inside, and a resample left without a statistic
        counts against the rows' (:func:`refit_statistics`)."""
        free = self.free() if free is None else free
        moved = moving_ends(law, free, self.names, pinned)
        if moved:
            end, names = moved
            raise ValueError(
                f"{self.name}'s fit to X has a support end at {end:g} that its "
                f"free parameters {names} move: a refit puts the extreme row "
                "on it. Fix them with known_params (e.g. known_params="
                f"{{{names[0]!r}: ...}}), or test a frozen law."
            )

    def free(self):
        """The names of the parameters every fit estimates."""
        return [name for name in self.names if name not in self.known]

    def _fit(self, X, fixed, guesses):
        """The member fit to ``X`` with the parameters ``fixed`` held and
        the ``guesses`` as starting values (shapes by position, as scipy's
        ``fit`` takes them)."""
        if len(fixed) == len(self.names):  # nothing left to fit
            return self.dist(**fixed)
        if self.dist.name == "norm" and not fixed and not guesses:
            return self.member(normal_fit(X))
        guesses = dict(guesses)
        starts = [guesses.pop(name) for name in self.shapes if name in guesses]
        held = {f"f{name}": value for name, value in fixed.items()}
        params = tuple(self.dist.fit(np.ravel(X), *starts, **guesses, **held))
        return self.member(params)

    def fit(self, X, seed):
        """The member of the family fit to the rows ``X``: the law every
        statistic is computed against."""
        return self._fit(X, self.known, {**self.fitted, **self.guessed})

    def null_law(self, X, fitted):
        """The law the resamples are drawn from: ``fitted`` (:meth:`fit` of
        the rows), or with ``fit_params`` the fit that holds them."""
        if not self.fitted:
            return fitted
        return self._fit(X, {**self.known, **self.fitted}, self.guessed)

    def _frozen(self, params):
        """``dist(*params)`` as a copy of the first fit's frozen law with
        these parameters: freezing builds a new distribution object (its
        docstrings formatted), which would cost a resample as much as its
        draw, refit and features together. Every method of a frozen law
        reads its parameters from ``args``; ``a`` and ``b`` are the standard
        law's support."""
        law = copy.copy(self._first)
        law.args, law.kwds = params, {}
        loc, scale = params[-2], params[-1]
        if self.shapes:
            low, high = law.support()
        else:  # law.support() without its argument checks: the same arithmetic
            low, high = self.dist.a * scale + loc, self.dist.b * scale + loc
        law.a, law.b = (low - loc) / scale, (high - loc) / scale
        return law

    def sample(self, law, shape, rng):
        """``law.rvs(size=shape, random_state=rng)``; for the normal the
        same values without scipy's per-call argument checks."""
        if self.dist.name == "norm":
            _, loc, scale = frozen_parameters(law)
            return rng.standard_normal(shape) * scale + loc
        return law.rvs(size=shape, random_state=rng)


def normal_fit(X):
    """``scipy.stats.norm.fit`` of the values of ``X`` (its closed form:
    the mean and the root mean square deviation from it, the same
    arithmetic), without its per-call checks; a ValueError for non-finite
    values, as scipy's."""
    data = np.ravel(X)
    if not np.isfinite(data).all():
        raise ValueError("The data contains non-finite values.")
    loc = data.mean()
    return loc, np.sqrt(((data - loc) ** 2).mean())


def moving_ends(law, free, names, pinned=None):
    """``(end, names)``: an end of the support of the frozen ``law`` that
    the standard law has whatever its shapes (``dist.a``, ``dist.b``
    finite: an end ``loc + a * scale``), and the ``free`` parameters (of
    the family's ``names``) that move it, each moved by a small relative
    step (``pinned(params)``: parameters that follow the others, as an
    edge's location its scale); or None."""
    shapes, loc, scale = frozen_parameters(law)
    params = dict(zip(names, (*shapes, loc, scale)))
    ends = law.support()
    for k, end in enumerate(ends):
        if not np.isfinite((law.dist.a, law.dist.b)[k]):
            continue
        movers = []
        for name in free:
            moved = {**params, name: params[name] * (1 + 1e-3) + 1e-3}
            moved = pinned(moved) if pinned else moved
            values = [moved[n] for n in names]
            if not np.isclose(law.dist.support(*values)[k], end, rtol=1e-12):
                movers.append(name)
        if movers:
            return end, movers
    return None


class _FitIsNull(Family):
    """Families whose fit to the rows is the law the resamples are drawn
    from."""

    def null_law(self, X, fitted):
        return fitted


class MultivariateNormalFamily(_FitIsNull):
    """``scipy.stats.multivariate_normal`` unfrozen: mean and covariance by
    its maximum likelihood ``fit``."""

    name = "scipy.stats.multivariate_normal"

    def __init__(self, dist):
        self.dist = dist

    def fit(self, X, seed):
        mean, cov = self.dist.fit(np.asarray(X))
        return self.dist(mean, cov)

    def sample(self, law, shape, rng):
        return np.reshape(law.rvs(size=shape[0], random_state=rng), shape)


class EstimatorFamily(_FitIsNull):
    """An unfitted scikit-learn density estimator with ``fit`` and
    ``sample`` (``GaussianMixture``, ``BayesianGaussianMixture``, Gaussian
    ``KernelDensity``): a clone fit to the rows, seeded by the test where its
    own ``random_state`` is None, so that the same seed gives the same fits;
    draws seeded explicitly (``GaussianMixture.sample`` draws from the
    estimator's own ``random_state``, the same rows at every call)."""

    def __init__(self, estimator):
        self.estimator = estimator
        self.name = type(estimator).__name__
        # KernelDensity.sample takes a seed; the mixtures' read their own.
        self.seeded = "random_state" in inspect.signature(estimator.sample).parameters

    def fit(self, X, seed):
        estimator = clone(self.estimator)
        if estimator.get_params().get("random_state", 0) is None:
            estimator.set_params(random_state=int(seed) % (2**31 - 1))
        return estimator.fit(np.asarray(X, dtype=np.float64))

    def refit(self, X, seed, start):
        """A resample's fit: a ``GaussianMixture`` refit by EM from the law
        the resample was drawn from (``start``, :func:`._mixtures.em_refit`:
        its resamples are drawn from that law, so EM starts in the
        neighbourhood of the answer, where a fit from scratch would start
        from k-means, as many times as ``n_init``); other estimators as the
        rows'."""
        from sklearn.mixture import GaussianMixture

        if type(start) is not GaussianMixture:
            return self.fit(X, seed)
        return em_refit(start, X)

    def sample(self, model, shape, rng):
        seed = int(rng.integers(2**31 - 1))
        if self.seeded:
            return model.sample(shape[0], random_state=seed)
        model = copy.copy(model)  # leave the reported model's seed as it is
        model.random_state = seed
        return model.sample(shape[0])[0]


def family_of(model, known_params=None, fit_params=None, guessed_params=None):
    """The family of a model that is one (fit by the test), or None for a
    fixed model; ``known_params``, ``fit_params`` and ``guessed_params``
    apply to an unfrozen scipy family only."""
    from scipy.stats import multivariate_normal, rv_continuous

    if isinstance(model, rv_continuous):
        return ScipyFamily(model, known_params, fit_params, guessed_params)
    family = None
    if model is multivariate_normal:
        family = MultivariateNormalFamily(model)
    elif (
        hasattr(model, "fit")
        and hasattr(model, "sample")
        and hasattr(model, "get_params")
        and not is_fitted(model)
    ):
        family = EstimatorFamily(model)
    given = [
        name
        for name, value in (
            ("known_params", known_params),
            ("fit_params", fit_params),
            ("guessed_params", guessed_params),
        )
        if value
    ]
    if given:
        raise ValueError(
            f"{given[0]} names parameters of an unfrozen scipy.stats family "
            f"(e.g. scipy.stats.expon with known_params={{'loc': 0}}); model is "
            f"{type(model).__name__}."
        )
    return family


class RefitParts:
    """The composite null's resamples for the one calibration loop: the
    statistic of the tested ``rows`` against ``fitted`` (the family's fit
    to them) and, for each resample (a seed), the statistic (a float, or one
    per kernel) of rows drawn from ``model`` (the null law) against
    ``family`` refit to them: ``statistics_of(laws, samples)`` of a batch's
    refits and rows, the one function for the rows and every resample.
    ``parts`` (a :class:`~skmmd.statistics._mean_norm.MultiplierParts`, or
    the :class:`~skmmd.statistics._mean_norm.StackedParts` of a grid of
    kernels) give the rounding scale of the rows' statistic."""

    # At most this many resamples per batch: their rows are drawn and mapped
    # together (one call of the map per chunk).
    MAX_BATCH = 32

    def __init__(self, parts, family, model, rows, fitted, statistics_of):
        self.parts, self.family, self.model = parts, family, model  # null law
        self.rows, self.fitted = rows, fitted
        self.shape, self.statistics_of = rows.shape, statistics_of
        # A resample draws as many rows as X had (the family's construction
        # may test fewer: an edge conditioned on drops its row).
        self.drawn = (rows.shape[0] + family.dropped, rows.shape[1])
        self.G = parts.G
        # A batch's rows within a chunk's entries (one resample's at least).
        width = self.shape[0] * self.shape[1]
        self.batch = min(self.MAX_BATCH, max(1, _budgets.CHUNK_ENTRIES // width))

    def observed(self):
        statistic = self.statistics_of([self.fitted], [self.rows])[0]
        return statistic, self.parts.observed()[1]

    def statistics(self, seeds):
        laws, samples = [], []
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # Optimizers warn on hard draws, mixtures stop at max_iter: a
            # resample's refit is still the family's fit, as the rows' was.
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", UserWarning)
            for seed in seeds:
                rng = np.random.default_rng(seed)
                rows = self.family.sample(self.model, self.drawn, rng)
                rows = np.reshape(np.asarray(rows, dtype=np.float64), self.drawn)
                law = self.family.refit(rows, seed, self.model)
                law, rows = self.family.tested(rows, law)
                laws.append(law)
                samples.append(rows)
        return (self.statistics_of(laws, samples),)


def refit_statistics(maps, score_of, laws, samples):
    """The statistic of each of ``samples`` (arrays of rows) against its
    law in ``laws`` (its score ``score_of(law)``), with each of a test's
    feature ``maps`` (its :class:`~._maps.SteinMap`): a composite null's
    rows and resamples, shape (b,) for one map, (b, K) for a grid. The
    samples are stacked and mapped in chunks, each sample's Stein features
    summed by the pipeline's own per-unit sums, a sample a unit: one map
    call per chunk, not per sample.

    On the line (a law with a bounded side, its rows mapped by a log or a
    logit: :mod:`._support`) the statistic keeps the cross terms of distinct
    rows only, ``(||sum_i xi_i||^2 - sum_i ||xi_i||^2) / n``: there the
    score grows exponentially towards the mapped edge, so the squares' sum
    follows the few rows nearest it, noise in the statistic and its null
    alike, which the fit does not remove. Elsewhere the squares' sum is
    close to a function of the fit (for a normal, ``tr Sigma^-1``) and is
    kept, ``||sum_i xi_i||^2 / n``, the fixed law's statistic: without it,
    the refit multivariate normal's test is conservative
    (:ref:`bench-gof-scipy`).

    A resample whose refit leaves one of its rows on or outside the refit's
    support (a shape that gives the support a new end) has no statistic: it
    counts as +inf, at least as extreme as the rows', so the p-value can
    only grow (the ends a free parameter moves are refused before the
    bootstrap starts: ``Family.check_ends``)."""
    rows, inputs, on_line, kept = [], [], False, []
    # A law's score once (a standardized family's one member), the law kept
    # beside it so that its id is not reused while the dict lives.
    scores = {}
    for b, (law, sample) in enumerate(zip(laws, samples)):
        if id(law) not in scores:
            scores[id(law)] = (law, score_of(law))
        score = scores[id(law)][1]
        if score.line is not None:
            if score.line.outside(sample).size:
                continue
            sample, on_line = score.line.forward(sample), True
        rows.append(sample)
        inputs.append(stein_inputs(score, sample))
        kept.append(b)
    n = samples[0].shape[0]
    if not kept:
        return _unmapped(maps, len(samples), kept, [])
    rows = np.vstack(rows)
    S, U, A = (None if parts[0] is None else np.vstack(parts) for parts in zip(*inputs))
    groups = np.repeat(np.arange(len(kept)), n)
    out = []
    for stein in maps:
        sums = np.zeros((len(kept), stein._n_features_out))
        squares = np.zeros(len(kept))
        step = stein.step()
        for lo in range(0, rows.shape[0], step):  # memory bounded by a chunk
            chunk = slice(lo, lo + step)
            stein.add_sums(
                rows[chunk],
                S[chunk],
                None if U is None else U[chunk],
                None if A is None else A[chunk],
                groups[chunk],
                sums,
                squares,
                fused=rows.shape[1] == 1,
            )
        squared = np.einsum("ij,ij->i", sums, sums)
        out.append((squared - squares if on_line else squared) / n)
    return _unmapped(maps, len(samples), kept, out)


def _unmapped(maps, b, kept, out):
    """Each map's statistics of the ``kept`` samples of ``b``, +inf for
    the others: shape (b,) for one map, (b, K) for a grid."""
    full = np.full((b, len(maps)), np.inf)
    for k, values in enumerate(out):
        full[kept, k] = values
    return full[:, 0] if len(maps) == 1 else full


def resampled_refits(parts, *, seed, **loop):
    """Observed statistic, parametric-bootstrap null and tolerance of the
    :class:`RefitParts` ``parts``, through the one loop (``loop``: its
    options, as :func:`~skmmd._inference._multiplier.resampled_multiplier`'s);
    the resamples' seeds are drawn row after row from ``seed``, so any
    batching gives the same null."""
    rng = np.random.default_rng(seed)

    def draw(s):
        return (rng.integers(np.iinfo(np.int64).max, size=s.stop - s.start),)

    return resampled(
        parts,
        draw,
        loop["n_resamples"],
        loop.get("batch") or parts.batch,
        loop.get("n_jobs"),
        loop.get("verbose", 0),
        loop.get("stopping"),
        loop.get("p_of"),
    )

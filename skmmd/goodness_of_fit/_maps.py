"""The goodness-of-fit tests' feature maps: rows -> their Stein features
(:class:`SteinMap`), and for a composite location-scale family on the line,
the kernel of its default, a sum of a Gaussian kernel on the standardized
rows and one on their probability-integral transform (:class:`PitScore`).

With ``u = F(z)`` the standard member's distribution function and ``p`` its
density, a kernel ``k(F(x), F(y))`` has the Stein features ``xi(z) = s(z)
phi(u) + p(z) phi'(u)`` (the chain rule: ``du/dz = p(z)``), which have mean 0
under the member as ``p`` vanishes at both ends of the line. Such a kernel
reads the rows as an EDF statistic does, each quantile alike, so it sees a
misfit in the peak and the tails (a Laplace law against the normal) that a
kernel on ``z``, which weighs the rows' moments, sees later; summed with the
kernel on ``z``, which sees skewness early, the test keeps both.
"""

import numpy as np
from sklearn.frozen import FrozenEstimator

from .._utils import _budgets
from .._utils._compat import standard_cdf_pdf
from ..kernel_approximation import RandomFourierSampler
from ..kernel_approximation._base import trig_features
from ..statistics._stein import add_stein_unit_sums, stein_features
from ._fused import fused_unit_sums

# The bandwidth of the Gaussian kernel on the probability-integral transform
# (u in (0, 1), uniform under the null: a fixed scale, not the rows').
PIT_WIDTH = 0.5

# The smallest density a row's features are weighted by (SteinMap.transform
# divides the score by it: finite for any |z| < 1e8, and a standardized |z|
# is below sqrt(n)).
_TINY = 1e-300


class PitScore:
    """The score of a standard law on the line, location 0 and scale 1 (a
    :class:`~._models.ModelScore`), whose rows also have a
    probability-integral transform: ``transform(X)``, the law's ``cdf``,
    and ``density(X)``, its ``pdf`` (one column)."""

    line = None

    def __init__(self, score, law):
        self.score, self.law = score, law
        self.dim, self.name = score.dim, score.name
        self._cdf, self._pdf = standard_cdf_pdf(law)

    def __call__(self, X):
        return self.score(X)

    def transform(self, X):
        return self._cdf(X)

    def density(self, X):
        return np.maximum(self._pdf(X), _TINY)


def _features(sampler, X):
    """``sampler.transform(X)`` of in-memory float64 rows ``X`` without its
    per-call input checks (the map's rows, checked once): the same values."""
    W = sampler.random_weights_
    return trig_features(
        X,
        lambda block: block @ W,
        sampler.feature,
        sampler.n_components,
        offset=sampler.random_offset_,
        weights=W,
    )


def stein_inputs(score, X):
    """``(S, U, A)``: the score of the rows ``X``, and for a
    :class:`PitScore` their transform and density (else None, None)."""
    S = score(X)
    if not isinstance(score, PitScore):
        return S, None, None
    return S, score.transform(X), score.density(X)


def pit_sampler(sampler, score, fit_rows, random_state):
    """The features of the kernel on the probability-integral transform
    (:data:`PIT_WIDTH`, as many frequencies as ``sampler``) of the
    :class:`PitScore` ``score``, fit on the transformed ``fit_rows``."""
    pit = RandomFourierSampler(
        bandwidth=PIT_WIDTH,
        n_components=sampler.n_components,
        random_state=random_state,
    )
    return pit.fit(score.transform(np.asarray(fit_rows, dtype=np.float64)))


class SteinMap:
    """The pipeline's map: rows -> their Stein features (:func:`~skmmd.statistics.\
_stein.stein_features`) under a fitted :class:`RandomFourierSampler` of
    cosines and sines and a model's score; with ``pit`` (the sampler of
    :func:`pit_sampler`), followed by those of the kernel on the rows'
    probability-integral transform (the score a :class:`PitScore`)."""

    def __init__(self, sampler, score, pit=None, basis=None):
        if isinstance(sampler, FrozenEstimator):  # a sampler fitted elsewhere
            sampler = sampler.estimator
        if not (
            isinstance(sampler, RandomFourierSampler)
            and sampler.feature == "cos_sin"
            and sampler.n_components % 2 == 0
        ):
            raise TypeError(
                "transformer must be a RandomFourierSampler with feature='cos_sin' "
                "and an even n_components (the Stein features need the gradient "
                f"of every feature); got {sampler!r}."
            )
        self.sampler, self.score, self.pit = sampler, score, pit
        self.basis = basis
        self.frequencies = sampler.random_weights_
        self._width = 2 * self.frequencies.size
        self._n_features_out = self._width * (1 if pit is None else 2)

    def transform(self, X):
        X = np.asarray(X, dtype=np.float64)
        S, U, A = stein_inputs(self.score, X)
        if self.basis is not None:
            X, S = X @ self.basis, S @ self.basis
        xi = stein_features(X, S, self.frequencies)
        if self.pit is None:
            return xi
        W = self.pit.random_weights_
        return np.hstack([xi, A * stein_features(U, S / A, W)])

    def add_sums(self, X, S, U, A, groups, sums, squares, fused=False):
        """Add the Stein features of the rows ``X`` (their score ``S``, and
        with ``pit`` their transform ``U`` and density ``A``), summed per
        group, into ``sums`` (G, width), their squared norms into
        ``squares`` (G,). ``fused``: one-column rows in one pass
        (:func:`~._fused.fused_unit_sums`, the same values)."""

        def add(sampler, rows, out, weights=None):
            if fused:
                fused_unit_sums(sampler, rows, S, groups, out, squares, weights)
            else:
                Z = _features(sampler, rows)
                W = sampler.random_weights_
                add_stein_unit_sums(Z, S, W, groups, out, squares, weights=weights)

        if self.basis is not None:  # the view's rows and score
            X, S = X @ self.basis, S @ self.basis
        if self.pit is None:
            add(self.sampler, X, sums)
            return
        # Each kernel's sums apart (a column block of sums is no view of
        # the fused sums' shape), the kernel on u's gradient terms weighted
        # by the density, the chain rule's du/dz.
        G, w = sums.shape[0], self._width
        parts = np.zeros((2, G, w))
        add(self.sampler, X, parts[0])
        add(self.pit, U, parts[1], A[:, 0])
        sums[:, :w] += parts[0]
        sums[:, w:] += parts[1]

    def grouped_sums(self, X, groups, n_groups, out=None):
        """The Stein features of ``X`` summed per group, and their squared
        norms, without storing them (the pipeline's fused per-unit sums,
        :meth:`skmmd._inference._streaming.HostRows.grouped_sums`): rows in
        blocks whose features take at most ``_budgets.CHUNK_ENTRIES``
        entries, so memory is bounded whatever the chunk."""
        X = np.asarray(X, dtype=np.float64)
        if out is None:
            out = (np.zeros((n_groups, self._n_features_out)), np.zeros(n_groups))
        for lo in range(0, X.shape[0], self.step()):
            x = X[lo : lo + self.step()]
            self.add_sums(
                x, *stein_inputs(self.score, x), groups[lo : lo + x.shape[0]], *out
            )
        return out

    def step(self):
        """Rows per block of :meth:`grouped_sums`."""
        return max(
            1,
            _budgets.CHUNK_ENTRIES * self._width // self._n_features_out // self._width,
        )

"""Models as their scores: what a goodness-of-fit test needs of a density is
``s(x) = grad_x log p(x)``, which needs no normalizing constant.

:func:`model_score` turns what a user has into a checked score function:

- a callable ``score(X) -> (n, d)``, used as given;
- :func:`log_density_score` of a callable log-density (central differences:
  ``2 d`` calls per batch of rows, slower than an analytic score);
- a frozen ``scipy.stats`` distribution: a univariate one is the law of each
  coordinate (independent), with analytic scores for the normal, Student t,
  Cauchy, logistic and Laplace laws and differences of ``logpdf`` otherwise;
  ``multivariate_normal`` and ``multivariate_t`` analytically;
- fitted scikit-learn ``GaussianMixture`` / ``BayesianGaussianMixture`` (the
  components' scores weighted by their responsibilities) and
  ``KernelDensity`` with the Gaussian kernel (a softmax over the training
  rows: ``O(n n_train)``); another estimator with ``score_samples`` by
  differences of it.

A model fitted on DataFrame columns is called on DataFrames of those columns,
and :func:`check_feature_names` refuses rows whose columns differ (by name,
or by order: a model reads its columns by position, as scikit-learn's
estimators refuse reordered columns).
"""

import numpy as np
from scipy.special import logsumexp

from .._utils import _budgets
from .._utils._compat import (
    FrozenMultivariateNormal,
    FrozenMultivariateT,
    MultivariateFamily,
    frozen_parameters,
)
from ..statistics._stein import checked_score
from ._support import (
    LineLogDensity,
    LineLogPdf,
    ScoreOnLine,
    checked_support,
    support_line,
)

# Relative step of the central differences (about eps^(1/3): the truncation
# error h^2 and the rounding error eps / h balance there).
_STEP = 6e-6


class _LogDensityScore:
    """The score of a log-density by central differences (picklable)."""

    def __init__(self, log_density, step):
        self.log_density, self.step = log_density, step

    def __call__(self, X):
        X = np.asarray(X, dtype=np.float64)
        out = np.empty(X.shape)
        for j in range(X.shape[1]):
            h = self.step * np.maximum(1.0, np.abs(X[:, j]))
            up, down = X.copy(), X.copy()
            up[:, j] += h
            down[:, j] -= h
            diff = np.asarray(self.log_density(up), dtype=np.float64).reshape(-1)
            # Outside the support log p is -inf: NaN, which the check names.
            with np.errstate(invalid="ignore"):
                diff = diff - np.asarray(self.log_density(down), np.float64).reshape(-1)
            out[:, j] = diff / (up[:, j] - down[:, j])
        return out


def log_density_score(log_density, step=_STEP):
    """The score of a log-density by central differences.

    Parameters
    ----------
    log_density : callable
        ``log_density(X) -> (n,)``: ``log p`` of each row up to a constant.
    step : float, default=6e-6
        Relative step: coordinate ``x_j`` moves by ``step * max(1, |x_j|)``.

    Returns
    -------
    score : callable
        ``score(X) -> (n, d)``, from ``2 d`` calls of ``log_density``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import log_density_score
    >>> score = log_density_score(lambda X: -0.5 * np.sum(X**2, axis=1))
    >>> np.round(score(np.array([[1.0, -2.0]])), 6)  # the normal's -x
    array([[-1.,  2.]])
    """
    if not callable(log_density):
        raise TypeError(
            f"log_density must be a callable log p(X) -> (n,); got {log_density!r}."
        )
    step = float(step)
    if not np.isfinite(step) or step <= 0:
        raise ValueError(f"step must be a positive number; got {step!r}.")
    return _LogDensityScore(log_density, step)


class _Named:
    """A fitted model's method called on rows as a DataFrame of the model's
    columns (a model fitted on a DataFrame warns on arrays), picklable."""

    def __init__(self, method, names):
        self.method, self.names = method, list(names)

    def __call__(self, X):
        import pandas as pd  # the model was fitted on a DataFrame

        return self.method(pd.DataFrame(X, columns=self.names, copy=False))


def _method(model, name):
    """``model``'s method ``name``, called on DataFrames of the model's
    columns if it was fitted on a DataFrame (see :class:`_Named`)."""
    names = getattr(model, "feature_names_in_", None)
    method = getattr(model, name)
    return method if names is None else _Named(method, names)


def _listed(labels):
    return f"{labels[:10]}{' ...' if len(labels) > 10 else ''}"


def check_feature_names(model, names):
    """Raise a ValueError when ``model`` was fitted on DataFrame columns and
    the rows tested have others, or the same in another order.

    Parameters
    ----------
    model : object
        The model; only its ``feature_names_in_`` is read, if it has them.
    names : array-like of str or None
        The columns of the rows tested (their ``feature_names_in_``); None
        for arrays, whose columns are the model's by position.
    """
    fitted = getattr(model, "feature_names_in_", None)
    if fitted is None or names is None or list(fitted) == list(names):
        return
    fitted, names, kind = list(fitted), list(names), type(model).__name__
    if sorted(fitted) == sorted(names):
        raise ValueError(
            f"X has the columns model {kind} was fitted on in another order: "
            f"{_listed(names)} in X, {_listed(fitted)} in the model (which reads "
            "columns by position); reorder them: X[model.feature_names_in_]."
        )
    only = {
        "the model": [c for c in fitted if c not in names],
        "X": [c for c in names if c not in fitted],
    }
    differ = ", ".join(f"only in {k}: {_listed(v)}" for k, v in only.items() if v)
    raise ValueError(
        f"model {kind} was fitted on columns {_listed(fitted)} and X has columns "
        f"{_listed(names)} ({differ}): test the columns the model was fitted on "
        "(X[model.feature_names_in_]), or refit the model on X's columns."
    )


class _ColumnLogPdf:
    """``logpdf`` of the first column of rows (a univariate law)."""

    def __init__(self, frozen):
        self.frozen = frozen

    def __call__(self, X):
        return self.frozen.logpdf(X[:, 0])


class _UnivariateScore:
    """The score of a frozen univariate distribution applied to every
    coordinate, analytic for the common laws, else by differences of
    ``logpdf``."""

    def __init__(self, frozen):
        self.frozen = frozen
        shapes, self.loc, self.scale = frozen_parameters(frozen)
        self.name = frozen.dist.name
        self.df = shapes[0] if self.name == "t" else 1.0
        self.differences = _ColumnDifferences(_ColumnLogPdf(frozen))

    def __call__(self, X):
        z, scale = X - self.loc, self.scale
        if self.name == "norm":
            return -z / scale**2
        if self.name in ("t", "cauchy"):
            return -(self.df + 1.0) * z / (self.df * scale**2 + z**2)
        if self.name == "logistic":
            return -np.tanh(z / (2.0 * scale)) / scale
        if self.name == "laplace":
            return -np.sign(z) / scale
        return self.differences(X)


class _ColumnDifferences:
    """Each coordinate's score by central differences of a univariate
    log-density of the first column (picklable)."""

    def __init__(self, log_density):
        self.differences = _LogDensityScore(log_density, _STEP)

    def __call__(self, X):
        return np.column_stack(
            [self.differences(X[:, j : j + 1])[:, 0] for j in range(X.shape[1])]
        )


class _MultivariateNormalScore:
    def __init__(self, mean, cov):
        self.mean, self.precision = mean, np.linalg.inv(np.atleast_2d(cov))

    def __call__(self, X):
        return -(X - self.mean) @ self.precision


class _MultivariateTScore:
    def __init__(self, loc, shape, df):
        self.loc, self.df = loc, df
        self.precision = np.linalg.inv(np.atleast_2d(shape))

    def __call__(self, X):
        centred = X - self.loc
        scaled = centred @ self.precision
        delta = np.einsum("ij,ij->i", scaled, centred)
        d = self.precision.shape[0]
        return -((self.df + d) / (self.df + delta))[:, None] * scaled


class _MixtureScore:
    """``sum_k r_k(x) (-P_k (x - mu_k))`` of a fitted Gaussian mixture, with
    the responsibilities ``r_k`` and precisions ``P_k`` of its covariance
    type."""

    def __init__(self, gm):
        self.gm = gm
        self.responsibilities = _method(gm, "predict_proba")

    def _component(self, X, k):
        gm = self.gm
        centred = X - gm.means_[k]
        if gm.covariance_type == "full":
            return centred @ gm.precisions_[k]
        if gm.covariance_type == "tied":
            return centred @ gm.precisions_
        return centred * gm.precisions_[k]  # diag, or spherical: one precision

    def __call__(self, X):
        resp = self.responsibilities(X)
        out = np.zeros(X.shape)
        for k in range(resp.shape[1]):
            out -= resp[:, k : k + 1] * self._component(X, k)
        return out


def mixture_of(score):
    """The fitted Gaussian mixture whose score ``score`` (a
    :class:`ModelScore`) is, or None for any other model."""
    function = getattr(score, "function", None)
    return function.gm if isinstance(function, _MixtureScore) else None


class _KernelDensityScore:
    """The score of a fitted Gaussian ``KernelDensity``: ``sum_j w_j(x) (x_j -
    x) / h^2`` with ``w(x)`` the softmax of ``-||x - x_j||^2 / (2 h^2)``
    (plus the log sample weights), in row blocks of bounded memory."""

    def __init__(self, kde):
        self.data = np.asarray(kde.tree_.data, dtype=np.float64)
        weights = getattr(kde.tree_, "sample_weight", None)
        self.log_w = 0.0 if weights is None else np.log(np.asarray(weights))
        self.h2 = float(getattr(kde, "bandwidth_", kde.bandwidth)) ** 2
        self.norms = (self.data * self.data).sum(axis=1)

    def __call__(self, X):
        out = np.empty(X.shape)
        step = max(1, _budgets.MAP_CHUNK_ENTRIES // max(self.data.shape[0], 1))
        for lo in range(0, X.shape[0], step):
            x = X[lo : lo + step]
            sq = (x * x).sum(axis=1)[:, None] + self.norms - 2.0 * x @ self.data.T
            logits = -sq / (2.0 * self.h2) + self.log_w
            w = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
            out[lo : lo + step] = (w @ self.data - x) / self.h2
        return out


def _fitted(estimator, attribute):
    if not hasattr(estimator, attribute):
        raise ValueError(
            f"model {type(estimator).__name__} is not fitted: fit it first, on rows "
            "other than the ones tested, or pass train_size (e.g. train_size=0.5): "
            "the test then fits a copy on that part of the rows and tests only "
            "the rest."
        )


def _sklearn_score(model):
    """The score of a fitted scikit-learn density model, or None."""
    from sklearn.mixture import BayesianGaussianMixture, GaussianMixture
    from sklearn.neighbors import KernelDensity

    if isinstance(model, (GaussianMixture, BayesianGaussianMixture)):
        _fitted(model, "precisions_")
        return _MixtureScore(model), model.means_.shape[1]
    if isinstance(model, KernelDensity):
        _fitted(model, "tree_")
        if model.kernel != "gaussian":
            raise ValueError(
                f"model KernelDensity(kernel={model.kernel!r}) has no smooth score; "
                "the Stein test needs grad log p: use kernel='gaussian'."
            )
        return _KernelDensityScore(model), int(model.n_features_in_)
    if hasattr(model, "score_samples") and (
        hasattr(model, "n_features_in_") or hasattr(model, "fit")
    ):
        _fitted(model, "n_features_in_")  # an unfitted estimator: the fix
        return log_density_score(_method(model, "score_samples")), int(
            model.n_features_in_
        )
    return None


class ModelScore:
    """A model's score ``grad log p``, checked on every call.

    Parameters
    ----------
    function : callable
        ``function(X) -> (n, d)``.
    dim : int or None
        The model's dimension where it is known.
    name : str
        How errors name the model.
    line : ToLine or None
        For a law with a bounded side: the map of the rows onto the line,
        where ``function`` is the pushforward's score (:mod:`._support`).
    """

    def __init__(self, function, dim, name, line=None):
        self.function, self.dim, self.name = function, dim, name
        self.line = line

    def __call__(self, X):
        """The score of the rows ``X`` (n, d), float64; a ``ValueError``
        naming the model and the rows where it is not a finite ``(n, d)``
        array."""
        return checked_score(self.function, X, self.name)


def model_score(model, support=None):
    """The checked :class:`ModelScore` of ``model`` (see the module's list);
    a ``TypeError`` naming what is accepted for anything else. ``support``:
    the ``(low, high)`` of a score function's density, tested on the line
    (:mod:`._support`); other models have their own."""
    line = checked_support(support)
    if line is not None:
        return _score_function_on_line(model, line)
    return _model_score(model)


def _score_function_on_line(model, line):
    """A score function (or :func:`log_density_score`) on ``line``'s
    support, as the pushforward's score on the line."""
    if isinstance(model, _LogDensityScore):  # differences on the line
        score = _LogDensityScore(LineLogDensity(model.log_density, line), model.step)
    elif callable(model) and not hasattr(model, "dist") and not hasattr(model, "fit"):
        score = ScoreOnLine(model, line)
    else:
        raise ValueError(
            "support applies to a score function or log_density_score(...): a "
            "scipy.stats law's support is read from the law, and the other "
            f"models live on the whole line; got {type(model).__name__}."
        )
    name = getattr(model, "__name__", type(model).__name__)
    where = f"on ({line.low:g}, {line.high:g})"
    return ModelScore(score, None, f"score function {name!r} {where}", line=line)


def _model_score(model):
    from scipy.stats import rv_continuous, rv_discrete

    if isinstance(getattr(model, "dist", None), rv_discrete):
        raise TypeError(
            f"model {model.dist.name}(...) is discrete: the Stein test needs a "
            "density with a score grad log p (a continuous distribution)."
        )
    if isinstance(getattr(model, "dist", None), rv_continuous):
        line = support_line(model)
        if line is not None:  # a bounded side: tested on the line
            score = _ColumnDifferences(LineLogPdf(model, line))
            name = f"{model.dist.name}(...) on ({line.low:g}, {line.high:g})"
            return ModelScore(score, None, name, line=line)
        return ModelScore(_UnivariateScore(model), None, f"{model.dist.name}(...)")
    if isinstance(model, FrozenMultivariateNormal):
        score = _MultivariateNormalScore(model.mean, model.cov)
        return ModelScore(score, model.dim, "multivariate_normal(...)")
    if isinstance(model, FrozenMultivariateT):
        score = _MultivariateTScore(model.loc, model.shape, model.df)
        return ModelScore(score, model.dim, "multivariate_t(...)")
    if isinstance(model, rv_discrete):
        raise TypeError(
            f"model scipy.stats.{model.name} is discrete: the Stein test needs a "
            "density with a score grad log p (a continuous distribution)."
        )
    if isinstance(model, (rv_continuous, MultivariateFamily)):
        name = getattr(model, "name", type(model).__name__.removesuffix("_gen"))
        raise TypeError(
            f"model=scipy.stats.{name} is a family of laws that the test does "
            "not fit (it fits the univariate continuous families and "
            f"multivariate_normal): pass a frozen law, e.g. scipy.stats.{name}"
            "(...) with its parameters fitted on other rows."
        )
    fitted = _sklearn_score(model)
    if fitted is not None:
        return ModelScore(fitted[0], fitted[1], type(model).__name__)
    if callable(model):
        name = getattr(model, "__name__", type(model).__name__)
        return ModelScore(model, None, f"score function {name!r}")
    raise TypeError(
        "model must be a score function score(X) -> (n, d) (grad log p; for a "
        "log-density use skmmd.log_density_score(log_p)), a frozen continuous "
        "scipy.stats distribution, or a fitted GaussianMixture, "
        "BayesianGaussianMixture or KernelDensity; got "
        f"{type(model).__name__}."
    )

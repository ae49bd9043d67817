"""What the estimators of every family share: the parameters of the one
calibration loop, the fitted attributes it sets, the rows their maps are fit
on, results computed from a stream when first read, and a first
``partial_fit`` that leaves nothing behind when it fails."""

import functools
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split

from .._utils import _budgets, _streams
from .._utils._compat import Interval, StrOptions
from ._blocks import (
    BLOCK_SIZE_CONSTRAINT,
    check_columns,
    check_features,
    check_order,
    check_projection,
)
from ._calibration import (
    aggregated_rule,
    final_p_value,
    n_max,
    sequential_rule,
    threshold,
)


def fit_indices(n_rows, seed):
    """Rows the feature maps are fit on: all (None), or above
    ``_budgets.FIT_SUBSAMPLE_ROWS`` a seeded uniform subsample of that many
    (sorted)."""
    rows = _budgets.FIT_SUBSAMPLE_ROWS
    return _streams.subsample(n_rows, rows, seed, _streams.FIT_ROWS)


def training_split(n_rows, train_size, seed, described, stratify=None):
    """The seeded ``train_size`` split of ``n_rows`` rows (the rows a model or
    a learned map is fit on, and the rows tested), both sorted; a split that
    cannot be made is a ValueError naming ``train_size`` and ``described``
    (the rows, as the message says them)."""
    try:
        train, rest = train_test_split(
            np.arange(n_rows),
            train_size=train_size,
            stratify=stratify,
            random_state=np.random.RandomState([seed, _streams.TRAIN_SPLIT]),
        )
    except ValueError as error:
        raise ValueError(
            f"train_size={train_size!r} cannot split {described} into a training "
            f"and a test part: {error}"
        ) from error
    return np.sort(train), np.sort(rest)


# The parameters of the resampling every test runs (its estimators add their
# own): the statistic, the calibration loop's and the resampling unit's.
SHARED_CONSTRAINTS = {
    "statistic": [StrOptions({"unbiased", "biased"})],
    "n_resamples": [
        StrOptions({"auto"}),
        Interval(Integral, 1, None, closed="left"),
    ],
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "resample_unit": [
        StrOptions({"auto"}),
        Interval(Integral, 1, None, closed="left"),
    ],
    "batch": [None, Interval(Integral, 1, None, closed="left")],
    "block_size": BLOCK_SIZE_CONSTRAINT,
    "random_state": ["random_state"],
    "n_jobs": [None, Integral],
    "verbose": ["verbose"],
}


def head(engine, rows):
    """The first rows of a sample (or a pair), in memory, that the order
    check reads (:func:`warn_if_ordered`)."""
    k = min(engine.n_rows(rows), _budgets.ORDER_CHECK_ROWS)
    if engine.lazy:
        return engine.rows_of(rows, np.arange(k))
    return engine.rows.take(rows, slice(0, k))


def order_features(transformer, rows, to_host, seed):
    """The features of ``rows`` that the order check reads (on the host; a
    wide map's projected at once, as the check projects them, so that one
    sample's features are held at a time; a map of several blocks, such as
    a table's, projects each block's as it maps it, through its
    ``projected_features(rows, projection)``; a wide map of independent
    draws with ``transform_columns`` computes only a seeded sample of its
    draws' columns, :func:`sampled_columns`), or None where the map rejects
    them: the pipeline then names the rows at fault, and the check stays
    silent."""
    projected = getattr(transformer, "projected_features", None)
    try:
        with np.errstate(all="ignore"):
            if projected is not None:
                return projected(rows, lambda width: check_projection(width, seed))
            columns = sampled_columns(transformer, rows, seed)
            if columns is not None:
                Z = transformer.transform_columns(rows, columns)
                return np.asarray(Z, dtype=np.float64)
            return check_features(to_host(transformer.transform(rows)), seed)
    except (ValueError, TypeError):
        return None


def sampled_columns(transformer, rows, seed):
    """The columns of a wide map the order check computes alone
    (:func:`~._blocks.check_columns`), for a map of independent draws with
    ``transform_columns`` (a Fourier map's) and rows in NumPy; else None:
    every feature is computed and projected."""
    columns_of = getattr(transformer, "transform_columns", None)
    draws_of = getattr(transformer, "column_draws", None)
    if columns_of is None or draws_of is None:
        return None
    if not (isinstance(rows, np.ndarray) or sp.issparse(rows)):
        return None
    draws = draws_of()
    if draws is None or draws.size <= _budgets.ORDER_CHECK_WIDTH:
        return None
    return check_columns(draws, seed)


class OrderHeads:
    """The order check's features of each sample's first rows, read as the
    stream maps them (:meth:`~._streaming.Stream.add`'s ``watch``) from a
    map that has ``grouped_sums_and_projected`` (a table's,
    :class:`~skmmd.TabularSampler`): the sums of the chunk, and the first
    rows' features from those the map computes for them, not a second
    mapping of those rows (:func:`order_features`).

    ``map_index``: the position of the checked map in the stream's maps,
    whose first chunk of each sample must hold the rows the check reads
    (those of :func:`head`). :meth:`warn` then checks them
    (:func:`warn_if_ordered`).
    """

    def __init__(self, map_index, seed):
        self.map_index, self.seed = map_index, seed
        self.features = [None, None]

    def grouped_sums(self, transformer, X, sample, groups, n_groups, out):
        """The rows' features summed per group into ``out``, and the
        features of the sample's first rows kept."""
        k = min(X.shape[0], _budgets.ORDER_CHECK_ROWS)
        projection = functools.partial(check_projection, seed=self.seed)
        *sums, self.features[sample] = transformer.grouped_sums_and_projected(
            X, groups, n_groups, k, projection, out=out
        )
        return sums

    def warn(self):
        """Warn when the rows look ordered (:func:`warn_if_ordered`)."""
        warn_if_ordered(self.features, self.seed)


def warn_if_ordered(features, seed, paired=False):
    """For a test of exchangeable rows: warn when the ``features`` of the
    first rows of each sample (or of each variable, ``paired``;
    :func:`order_features`), in their order, show the dependence between
    neighbouring rows that makes the test's null too narrow
    (:func:`~._blocks.check_order`)."""
    if all(Z is not None for Z in features):
        check_order(features, seed, paired)


def stopping_rule(test, aggregated=False, reject_early=True):
    """The sequential rule of ``n_resamples="auto"`` at the test's ``alpha``
    (an aggregated test's, :class:`~._calibration.AggregatedRule`, whose
    statistic of a resample depends on every resample drawn; without
    ``reject_early``, the rule that stops only to accept), or None for a
    fixed number of resamples."""
    if test.n_resamples != "auto":
        return None
    if aggregated:
        return aggregated_rule(test.alpha)
    return sequential_rule(test.alpha, reject_early=reject_early)


def loop_options(test, seed, rule, p_of=None):
    """The calibration loop's options of ``test``: all its resamples (or
    ``rule``'s, where ``n_resamples="auto"`` may stop the loop), drawn from
    ``seed`` in its batches and threads, ``p_of`` for the rule (None: the
    first statistic's p-value)."""
    options = {
        "n_resamples": n_max(test.n_resamples),
        "batch": test.batch,
        "seed": seed,
        "n_jobs": test.n_jobs,
        "verbose": getattr(test, "verbose", 0),
        "stopping": rule,
    }
    if p_of is not None:
        options["p_of"] = p_of
    return options


# The fitted attributes set_calibrated sets: every test's results start with
# them (a family's ``_RESULTS`` adds its own).
CALIBRATED = (
    "statistic_",
    "p_value_",
    "null_distribution_",
    "n_resamples_used_",
    "reject_",
    "threshold_",
)


def set_calibrated(test, observed, null, p_value, rule=None):
    """Set the fitted attributes every test has after calibration.

    ``statistic_`` (``observed``), ``null_distribution_`` (``null``, the
    resamples drawn), ``n_resamples_used_``, ``p_value_`` (``p_value`` of the
    resamples drawn, made sequential by ``rule`` where ``n_resamples="auto"``
    stopped the loop), ``reject_`` at the test's ``alpha`` and ``threshold_``,
    the null's upper ``alpha`` quantile.
    """
    test.statistic_ = observed
    test.null_distribution_ = null
    test.n_resamples_used_ = null.shape[0]
    test.p_value_ = final_p_value(rule, null.shape[0], p_value)
    test.reject_ = bool(test.p_value_ <= test.alpha)
    test.threshold_ = threshold(null, test.alpha)


def unfitted_on_error(partial_fit):
    """Decorate ``partial_fit``: when its first call fails, the estimator is
    left as it was before (unfitted), like any later rejected chunk leaves
    the stream as it was."""

    @functools.wraps(partial_fit)
    def wrapper(self, *args, **kwargs):
        if getattr(self, "_stream", None) is not None:
            return partial_fit(self, *args, **kwargs)
        before = dict(self.__dict__)
        try:
            return partial_fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    return wrapper


class StreamedResults:
    """Results computed from a test's stream when first read: after
    ``partial_fit`` the calibration (``O(B G D)``) runs once, however many
    chunks came (each costs ``O(chunk D)``). Subclasses list the attributes in
    ``_RESULTS`` and compute them in ``_calibrate``."""

    _RESULTS = ()

    def __getattr__(self, name):
        if name in type(self)._RESULTS and self.__dict__.get("_stale"):
            self._calibrate()
            if name in self.__dict__:
                return self.__dict__[name]
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )

    def _mark_stale(self):
        for name in self._RESULTS:
            self.__dict__.pop(name, None)
        self.__dict__.pop("_pending_sums", None)  # of the rows before
        self._stale = True

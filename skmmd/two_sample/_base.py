"""Kernel two-sample tests as scikit-learn estimators."""

import functools
from copy import copy, deepcopy
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import (
    ClassifierTags,
    check_random_state,
    get_tags,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._inference import _blocks, _engines, _inputs, _streaming
from .._inference._base import (
    CALIBRATED,
    SHARED_CONSTRAINTS,
    OrderHeads,
    StreamedResults,
    fit_indices,
    head,
    order_features,
    training_split,
    unfitted_on_error,
    warn_if_ordered,
)
from .._inference._calibration import FeatureSums, n_max
from .._inference._explain import needs_pandas, unit_width
from .._utils import _array_api, _budgets
from .._utils._compat import (
    Interval,
    RealNotInt,
    fit_context,
    is_fitted,
)
from .._utils._streams import draw_seed
from . import _explain
from ._sums import mean_difference

_FLOAT_DTYPES = [np.float64, np.float32]


def _with_numpy(fit=False, always=False, results=True):
    """Run a test's method with NumPy on array-API inputs in host memory (the
    NumPy engine, see :mod:`skmmd._utils._array_api`), or with ``always`` on host
    copies of device arrays too.

    ``fit``: the test itself is fit on NumPy views; the maps it then exposes
    (``transformer_``, ``transformers_``) are copies with their arrays in the
    inputs' namespace (its stream keeps the NumPy ones). Otherwise the method
    of a fitted test runs on a copy whose maps hold NumPy arrays, and an array
    result goes back to the inputs' namespace; the results of a fit are
    computed first, on the test itself (not on each copy), unless ``results``
    is False (a method that reads none of them).
    """

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X, *args, **kwargs):
            y = args[0] if args else kwargs.get("y")
            xp, device = _array_api.namespace(X, y)
            if xp is None or not (always or _array_api.on_host(X, y)):
                return method(self, X, *args, **kwargs)
            X = _array_api.as_numpy(X, "X")
            args = [_array_api.as_numpy(a, "y") for a in args]
            kwargs = {k: _array_api.as_numpy(v, k) for k, v in kwargs.items()}
            if fit:
                out = method(self, X, *args, **kwargs)
                _array_api.convert_maps(self, _array_api.to_namespace(xp, device))
                return out
            check_is_fitted(self)
            if results and self.__dict__.get("_stale"):  # once, on the test itself
                self._calibrate()
            test = _array_api.convert_maps(copy(self), _array_api.fitted_as_numpy)
            out = method(test, X, *args, **kwargs)
            if isinstance(out, np.ndarray):
                return _array_api.from_numpy(out, xp, device)
            return out

        return wrapper

    return decorate


def _prefit(transformers):
    """Copies of the transformers if all are fitted already, else None (maps
    fitted on host array-API arrays: their NumPy views, see
    ``_with_numpy``)."""
    if not all(is_fitted(t) for t in transformers):
        return None
    return [_array_api.host_fitted(deepcopy(t)) for t in transformers]


def _checked_sums(stream):
    """``(m, n, sums)`` of a two-sample test's ``stream``, or a ValueError if
    a sample has too few points or no complete unit."""
    m, n = stream.n_rows
    if min(m, n) < 2:
        raise ValueError(
            "Each sample needs at least 2 points in the statistic; got "
            f"{m} in X and {n} in Y so far."
        )
    sums = stream.sums()
    if min(sums[0].n_units) < 1:
        raise ValueError(
            f"resample_unit={stream.state.unit} leaves a sample with no complete "
            f"unit to resample ({m} points in X, {n} in Y)."
        )
    return m, n, sums


class _BaseMMDTest(StreamedResults, BaseEstimator):
    """What the two-sample tests share: the two input conventions, the
    resampling unit, the calibration parameters and the tags (not public)."""

    _shared_constraints: dict = SHARED_CONSTRAINTS

    # The tests whose maps may be trained on a held-out part of the samples.
    _train_constraints: dict = {
        "train_size": [
            None,
            Interval(RealNotInt, 0, 1, closed="neither"),
            Interval(Integral, 1, None, closed="left"),
        ],
    }

    def _two_samples(self, X, Y, reset, min_rows=2, rows=None, maps=False):
        """Validated ``(X, Y, classes)`` of in-memory samples with the row
        operations ``rows`` (by default, of ``X``'s kind; ``maps``: for feature
        maps, DataFrames kept, even of the exact test): see
        :func:`._inputs.two_samples`."""
        rows = _engines.rows_for(X) if rows is None else rows
        options = {**self._input_options(X), "numbers_only": self._numbers_only}
        if maps:
            options["pass_through"] = True
        return _inputs.two_samples(
            self,
            X,
            Y,
            reset=reset,
            min_rows=min_rows,
            namespace=rows.namespace,
            **options,
        )

    @property
    def n_samples_seen_(self):
        """Rows of X and of Y summed by the feature map so far, shape (2,)."""
        stream = self.__dict__.get("_stream")
        if stream is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute 'n_samples_seen_'"
            )
        return np.array(stream.n_rows, dtype=np.int64)

    _numbers_only = None  # what takes numbers only: _inputs.two_samples

    def _input_options(self, X=None):
        """Inputs pass through to transformers (not to the exact kernel); NaN
        is let through when every transformer (for input like ``X``) accepts
        it."""
        transformers = self._input_transformers(X)
        return {
            "pass_through": transformers is not None,
            "allow_nan": transformers is not None
            and all(get_tags(t).input_tags.allow_nan for t in transformers),
        }

    @_with_numpy(always=True)
    def explain(self, X, y=None, *, columns=None):
        """Which columns moved: a test per column, adjusted for testing them all.

        With the default maps (``"auto"``, an aggregated test's grid) or a
        :class:`TabularSampler`, every numeric column alone gets Gaussian
        kernels at multiples of its own median distance, all such columns
        mapped in one pass (on a grid of 256 cells of each column's values),
        and every categorical column alone its own delta kernel on its
        levels, all such columns one-hot encoded in one pass; a group of
        several columns gets a copy of the test's map. A test given
        another map (or an aggregated test a list of maps) gives every
        column and group a copy of its map. In both cases a map that is not
        a sampler of this package (and an aggregated test's maps) is
        replaced by a :class:`TabularSampler`. All columns' statistics are
        computed on the same
        permutations, at the resampling unit a test of one column would use,
        so a column's evidence does not depend on the width of the table.
        The p-values are adjusted by ``correction``: ``"fwer"`` (step-down
        maxT on each column's fitted null tail; flagging every column with
        ``adjusted_p_value <= alpha`` wrongly flags some unchanged column
        with probability at most ``alpha``), ``"fdr"`` / ``"fdr_by"``
        (Benjamini-Hochberg / -Yekutieli on the pooled p-values: the expected
        share of unchanged columns among those flagged is at most ``alpha``)
        or ``"none"`` (see :ref:`explain`). Cost ``O(N m)`` for ``m``
        columns, memory bounded by parts of the columns.
        With ``n_resamples="auto"`` and ``"fwer"`` the resamples stop early
        only when no column can be flagged (the smallest adjusted p-value is
        settled above ``alpha``); otherwise all 999 are drawn and the report
        is the fixed one (the number drawn is ``report.n_resamples_used``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (m, n_features) or (N, n_features)
            The first sample, or the pooled sample when ``y`` is labels, with
            the columns seen in ``fit``.
        y : DataFrame or array-like of shape (n, n_features) or (N,)
            The second sample, or labels of the two samples.
        columns : None, list or dict, default=None
            ``None``: every column alone. A list of columns and lists of
            columns (groups tested together), or a dict ``{label: columns}``.

        Returns
        -------
        report : ColumnReport
            A pandas DataFrame that records what its numbers mean
            (:class:`skmmd.inspection.ColumnReport`: ``correction``,
            ``alpha``, ``verb``, ...). One row per column (group), most
            evidence first: ``column``, ``statistic`` (its MMD^2),
            ``p_value`` (its own permutation p-value), ``pooled_p_value``
            (its fine-grained p-value against all columns' resamples),
            ``adjusted_p_value`` (by ``report.correction``), ``moved``
            (``adjusted_p_value <= report.alpha``), ``z``
            (the statistic standardized over the permutations), and
            ``mmd2_low``, ``mmd2_high`` (95 % confidence interval of its
            MMD^2). With ``explain_columns`` the fitted report also agrees
            with the test's decision (see ``decision``).
        """
        check_is_fitted(self)
        needs_pandas("explain")
        X, Y, _ = self._two_samples(X, y, reset=False, maps=True)  # by name
        rng = check_random_state(self.random_state)
        seed = draw_seed(rng)
        engine = _engines.engine_for(X)
        return _explain.column_report(self, engine, X, Y, columns, rng, seed)

    def _resolve_unit(self, m, n, n_features_out, resampled=False):
        """Rows per unit of the stream: ``resample_unit``, or its rule; with
        ``block_size`` the units of a stream in time order
        (:func:`~skmmd._inference._streaming.ordered_unit`), blocks of which are
        resampled, at least those of the rule (``resampled``)."""
        if self.block_size is not None and not resampled:
            if self.resample_unit == "auto":
                return _streaming.ordered_unit(m, n, n_features_out)
        if self.resample_unit != "auto":
            if self.resample_unit > min(m, n):
                raise ValueError(
                    f"resample_unit={self.resample_unit} exceeds the smaller sample "
                    f"size {min(m, n)}."
                )
            return self.resample_unit
        return _streaming.auto_unit(
            m, n, n_features_out, n_max(self.n_resamples), self._n_products
        )

    _n_products = 1  # matrix products per resample (two for the bootstrap)

    # Attributes computed from the unit sums; after partial_fit they are
    # computed when first read (the calibration costs O(B G D), the update
    # O(chunk D)), so a stream of many chunks calibrates once.
    _RESULTS = (
        *CALIBRATED,
        "witness_weights_",
        "statistics_",
        "p_values_",
        "null_distributions_",
        "result_",
        "table_p_value_",
        "table_threshold_",
        "column_report_",
        "resample_unit_",
        "block_size_",
        "block_scale_",
        "n_samples_x_",
        "n_samples_y_",
    )

    def _fit_rows(self, engine, X, Y, seed):
        """Rows the transformers are fit on: the pooled sample, or above
        ``_budgets.FIT_SUBSAMPLE_ROWS`` points a seeded uniform subsample of
        it (the same rows whatever the engine). A uniform subsample drawn
        without the labels keeps the units exchangeable, so the test stays
        exact."""
        m, n = engine.n_rows(X), engine.n_rows(Y)
        return engine.pooled(X, Y, fit_indices(m + n, seed))

    def _training_part(self, engine, X, Y, seed):
        """``(rows, labels, X, Y)``: the rows the maps are fit on, their labels
        and the samples left to test. Without ``train_size``: the pooled
        sample's fit rows (see :meth:`_fit_rows`), no labels, all of X and Y.
        With it: a stratified random part of the rows and their labels (the
        maps may learn from them), and the rest of each sample, so that the
        maps do not depend on the rows tested."""
        if self.train_size is None:
            return self._fit_rows(engine, X, Y, seed), None, X, Y
        if engine.lazy:
            raise TypeError(
                f"train_size={self.train_size!r} takes in-memory samples; with "
                "dask input, fit the map on an in-memory labelled sample and "
                "pass it fitted, wrapped in sklearn.frozen.FrozenEstimator."
            )
        m, n = engine.n_rows(X), engine.n_rows(Y)
        labels = np.repeat([0, 1], [m, n])
        train, _ = training_split(
            m + n,
            self.train_size,
            seed,
            f"samples of {m} and {n} rows",
            stratify=labels,
        )
        rest_x = np.setdiff1d(np.arange(m), train[train < m])
        rest_y = np.setdiff1d(np.arange(n), train[train >= m] - m)
        self.n_train_ = train.size
        return (
            engine.pooled(X, Y, train),
            labels[train],
            engine.rows.take(X, rest_x),
            engine.rows.take(Y, rest_y),
        )

    def _fit_map(self, transformer, rows, labels=None):
        """A fitted clone of ``transformer``: on ``rows`` with their sample
        ``labels`` when training (``train_size``), else without labels."""
        name = type(transformer).__name__
        if (
            labels is None
            and get_tags(transformer).target_tags.required
            and not is_fitted(transformer)  # e.g. a FrozenEstimator: kept as is
        ):
            raise ValueError(
                f"{name} learns its kernel from which sample each row comes "
                "from: pass train_size (e.g. train_size=0.5) to fit it on a part "
                "of the samples held out from the test, or pass it fitted on "
                "other data, wrapped in sklearn.frozen.FrozenEstimator."
            )
        try:
            return clone(transformer).fit(rows, labels)
        except ValueError as error:
            if labels is None:
                raise
            counts = np.bincount(labels, minlength=2)
            raise ValueError(
                f"{name} could not be fit on the training part (train_size="
                f"{self.train_size!r}: {counts[0]} rows of X and {counts[1]} of "
                f"Y): {error}"
            ) from error

    def _start_stream(self, engine, transformers, X, seed):
        widths = [engine.width(t, X) for t in transformers]
        unit = 1 if self.resample_unit == "auto" else self.resample_unit
        self._stream = _streaming.Stream(
            transformers,
            widths,
            unit,
            seed,
            engine.rows,
            ordered=self.block_size is not None,
        )
        return widths

    def _checked_map(self):
        """Position in the stream of the map the order check reads."""
        return 0

    def _check_order(self, engine, X, Y, transformer, seed):
        """Warn when the rows look ordered and ``block_size`` is None (the
        features of each sample's first rows)."""
        if self.block_size is None:
            features = [
                order_features(transformer, head(engine, S), engine.rows.to_host, seed)
                for S in (X, Y)
            ]
            warn_if_ordered(features, seed)

    def _order_watch(self, engine, transformers, widths, seed):
        """The :class:`OrderHeads` that reads the order check's rows as the
        stream maps them, where the checked map gives them with its sums and
        a first chunk holds them (in memory); else None: the rows are
        checked before the stream (:meth:`_check_order`)."""
        checked = transformers[self._checked_map()]
        if (
            self.block_size is None
            and not engine.lazy
            and hasattr(checked, "grouped_sums_and_projected")
            and engine.rows.chunk_rows(transformers, widths)
            >= _budgets.ORDER_CHECK_ROWS
        ):
            return OrderHeads(self._checked_map(), seed)
        return None

    def _fit_stream(self, engine, X, Y, transformers, seed):
        """Unit sums of the whole samples by the input's engine, then the
        results."""
        m, n = engine.n_rows(X), engine.n_rows(Y)
        widths = self._start_stream(engine, transformers, X, seed)
        watch = self._order_watch(engine, transformers, widths, seed)
        if watch is None:
            self._check_order(engine, X, Y, transformers[self._checked_map()], seed)
        unit = self._resolve_unit(m, n, unit_width(transformers, widths))
        engine.add(self._stream, X, Y, unit, watch)
        if watch is not None:
            watch.warn()
        if self.train_size is None:
            self.n_train_ = 0
        # The resampling runs when a result is first read (StreamedResults):
        # fits whose results are never read, GridSearchCV's candidates scored
        # by ``score``, skip it. Bad samples still fail here.
        m, n, sums = _checked_sums(self._stream)
        self._mark_stale()
        self._sum_results(sums, m, n)
        self._pending_sums = sums  # the deferred calibration's input, kept
        return self

    @available_if(lambda self: self._streams())
    @fit_context(prefer_skip_nested_validation=False)
    @_with_numpy(fit=True)
    @unfitted_on_error
    def partial_fit(self, X, y=None, classes=None):
        """Add a chunk of each sample to the test (out-of-core or streamed data).

        The first call starts the stream. With a transformer that is not
        fitted yet, it is fit on the first call's rows (both samples pooled,
        labels unseen), and those rows are held out of the statistic
        (``n_train_``): a map that depends on the rows it tests would make
        them special and the units not exchangeable. A fitted transformer is
        used as given and every row counts. Later calls add their rows; the
        results (``statistic_``, ``p_value_``, ...) are computed from all rows
        so far when first read. For the same seed, a transformer that does not
        depend on the data (e.g. a fixed bandwidth) and the same rows in the
        same order, the results equal those of :meth:`fit`, whatever the chunk
        sizes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (m_chunk, n_features)
            Rows of the first sample (or pooled rows when ``y`` is labels);
            a chunk may have no rows of one sample.
        y : {array-like, sparse matrix} of shape (n_chunk, n_features) or \
                array-like of shape (N_chunk,)
            Rows of the second sample, or labels of the rows of ``X``.
        classes : array-like of shape (2,), default=None
            The two labels, for the label convention (scikit-learn's
            ``partial_fit`` signature); checked against those of the chunk.

        Returns
        -------
        self : object
            The test, updated.
        """
        first = getattr(self, "_stream", None) is None
        expected = None if classes is None else np.sort(np.asarray(classes))
        try:
            rows = _engines.rows_for(X) if first else self._stream.rows
            X, Y, classes = self._two_samples(X, y, first, min_rows=0, rows=rows)
        except ValueError as error:
            if first:
                raise
            seen = [f"rows 0-{n - 1}" if n else "no rows" for n in self._stream.n_rows]
            raise ValueError(
                f"partial_fit chunk after {seen[0]} of X and {seen[1]} of Y "
                f"(nothing was added): {error}"
            ) from error
        if expected is not None and classes is not None:
            if not np.all(np.isin(classes, expected)) or expected.size != 2:
                raise ValueError(
                    f"classes={expected.tolist()} must be the two labels of y; "
                    f"got labels {classes.tolist()}."
                )
        if first:
            self.classes_ = np.array([0, 1]) if classes is None else classes
            rng = check_random_state(self.random_state)
            seed = draw_seed(rng)
            prefit = self._prefit_transformers()
            held_out = prefit is None
            # The first chunk's kind fixes the stream's row operations.
            engine = _engines.InMemory(rows)
            # With train_size the first chunk is the training part: the maps
            # may learn from its labels.
            labels = None
            if self.train_size is not None:
                labels = np.repeat([0, 1], [X.shape[0], Y.shape[0]])
            transformers = self._fit_transformers(
                engine.pooled(X, Y), rng, prefit, labels
            )
            self._start_stream(engine, transformers, X, seed)
            self.n_train_ = X.shape[0] + Y.shape[0] if held_out else 0
            self._mark_stale()
            if held_out:
                return self
        elif classes is not None and not np.array_equal(classes, self.classes_):
            raise ValueError(
                f"The labels of partial_fit must be the classes of the first call, "
                f"{self.classes_.tolist()}; got {classes.tolist()}."
            )
        stream = self._stream
        m, n = stream.n_rows[0] + X.shape[0], stream.n_rows[1] + Y.shape[0]
        unit = stream.state.unit
        if self.resample_unit == "auto":
            width = unit_width(stream.transformers, stream.widths)
            unit = max(unit, self._resolve_unit(m, n, width))
        if not any(stream.n_rows):  # the first rows: is their order a concern?
            engine = _engines.InMemory(stream.rows)
            checked = stream.transformers[self._checked_map()]
            self._check_order(engine, X, Y, checked, stream.seed)
        stream.add((X, Y), unit)
        self._mark_stale()
        return self

    def _calibrate(self):
        """Results from the unit sums (subclasses set their attributes)."""
        self._stale = False
        sums = self.__dict__.pop("_pending_sums", None)
        m, n = self._stream.n_rows
        if sums is None:  # after partial_fit
            m, n, sums = _checked_sums(self._stream)
        self._sum_results(sums, m, n)
        self._set_results(sums, m, n, self._stream.seed)

    def _blocked_sums(self, sums, n_maps):
        """``(sums, scales)``: the unit sums the calibration resamples and
        the factors of each one's null. Without ``block_size`` they are
        ``sums`` and 1; with it, blocks of consecutive units, their length
        chosen from the first ``n_maps`` maps' sums (``block_size_`` rows)
        and each map's correction for the dependence between neighbouring
        blocks (``block_scale_``, :mod:`skmmd._inference._blocks`)."""
        self.block_size_ = self.block_scale_ = None
        if self.block_size is None:
            return sums, [1.0] * len(sums)
        stream, unit = self._stream, self.resample_unit_
        width = unit_width(stream.transformers[:n_maps], stream.widths[:n_maps])
        # The blocks are at least the units the resampling budget allows.
        budget = self._resolve_unit(*stream.n_rows, width, resampled=True)
        series = [s.series() for s in sums[:n_maps]]
        choice = _blocks.choose(self.block_size, series, unit, -(-budget // unit))
        self.block_size_ = choice.rows
        return choice.coarsen(sums)

    def _sum_results(self, sums, m, n):
        """The results of the unit sums alone, set by fit itself: predict and
        the witness read them and never resample."""
        self.n_samples_x_, self.n_samples_y_ = m, n
        self.resample_unit_ = self._stream.state.unit
        if isinstance(sums[0], FeatureSums):
            self.witness_weights_ = mean_difference(sums[0], m, n)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # Missing values pass through to transformers that accept them.
        tags.input_tags.allow_nan = self._input_options()["allow_nan"]
        # The labels of fit(pooled, labels) are binary class labels.
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

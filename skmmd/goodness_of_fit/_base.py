"""What the goodness-of-fit tests share: the rows' Stein features as the
pipeline's maps (:class:`~._maps.SteinMap`), the checked rows, the features fit on (a
subsample of) them, the stream of ``fit``, ``partial_fit`` and dask, and the
multiplier bootstrap of its unit sums in the one calibration loop. Each test
says which Fourier maps it streams (``_samplers``) and what it makes of
their unit sums (``_results_of``)."""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if

from .._inference import _blocks, _engines
from .._inference._base import (
    CALIBRATED,
    SHARED_CONSTRAINTS,
    StreamedResults,
    fit_indices,
    head,
    order_features,
    training_split,
    unfitted_on_error,
    warn_if_ordered,
)
from .._inference._calibration import n_max
from .._inference._inputs import check_finite
from .._inference._multiplier import (
    bootstrap_units,
    multiplier_unit,
    resampled_multiplier,
)
from .._inference._streaming import Stream
from .._tables._kinds import check_numbers_only
from .._tables._labels import is_dataframe
from .._utils import _budgets, _streams
from .._utils._compat import (
    Interval,
    Options,
    RealNotInt,
    StrOptions,
    fit_context,
    is_fitted,
    validate_data,
)
from ..kernels import median_bandwidth
from ..statistics._mean_norm import MultiplierParts
from ._chains import chain_rows, is_chains
from ._composite import RefitParts, family_of, refit_statistics, resampled_refits
from ._edges import edge_conditioned
from ._logscale import log_standardized
from ._maps import PitScore, SteinMap, pit_sampler
from ._models import check_feature_names, model_score
from ._results import KernelSteinTestResult

# bandwidth="auto" for a composite null: this many times the median distance.
# A fit sets the means of the features of the lowest orders (location,
# scale) to zero, so a misfit left is of higher order (tails, skewness),
# which a wider kernel weighs more than the median's.
COMPOSITE_WIDTH = 2.0


# The parameters every goodness-of-fit test has: the calibration loop's, the
# part of the rows a model is fit on (train_size), a score's support and the
# axis of a 3-D array of MCMC chains that indexes the chains.
LOOP_CONSTRAINTS = {
    "support": [None, tuple, list],
    "chain_axis": [StrOptions({"auto"}), Options(Integral, {0, 1})],
    **{
        name: SHARED_CONSTRAINTS[name]
        for name in (
            "n_resamples",
            "alpha",
            "resample_unit",
            "batch",
            "block_size",
            "random_state",
            "n_jobs",
            "verbose",
        )
    },
    "train_size": [
        None,
        Interval(RealNotInt, 0, 1, closed="neither"),
        Interval(Integral, 1, None, closed="left"),
    ],
}


def _described(model):
    if hasattr(model, "fit"):
        return f"a fitted {type(model).__name__}"
    return f"a {type(model).__name__}, not an estimator"


def _check_dim(score, n_columns):
    """A ValueError where the model's dimension is not the rows'."""
    dim = score.dim
    if dim is not None and n_columns != dim:
        raise ValueError(
            f"X has {n_columns} columns and the model {score.name} is of "
            f"dimension {dim}."
        )


class BaseSteinTest(StreamedResults, BaseEstimator):
    """The goodness-of-fit tests' shared ``fit``, ``partial_fit`` and stream
    (not public)."""

    _RESULTS = (
        *CALIBRATED,
        "result_",
        "resample_unit_",
        "block_size_",
        "block_scale_",
        "n_samples_",
    )

    def _rows(self, X, reset, min_rows):
        """Validated rows: a 2-D array of finite numbers (a 1-D one is one
        column; NaN or infinity: a ValueError naming the rows and the fix),
        or a dask array or DataFrame
        (its shape and columns only; its values are checked as the workers
        map them)."""
        engine = _engines.engine_for(X)
        if engine.lazy:
            rows = engine.sample(self, X)
        else:
            if is_dataframe(X):
                check_numbers_only(X)
            elif not sp.issparse(X) and np.ndim(X) == 1:
                # A sample of one variable, as scipy.stats' tests take it.
                X = np.asarray(X, dtype=np.float64)[:, None]
            rows = validate_data(
                self, X, reset=reset, dtype=np.float64, ensure_all_finite=False
            )
            check_finite(rows, "X")
        n = engine.n_rows(rows)
        if n < min_rows:
            raise ValueError(
                f"{type(self).__name__} needs at least {min_rows} rows; got "
                f"n_samples = {n}."
            )
        return rows

    def _learns(self):
        """Whether the test's features are learned from training rows (a
        sampler that needs a target, such as LearnedFourierSampler, not
        fitted)."""
        return False

    def _model_of(self, rows, seed=0):
        """The score of ``model``, checked against the rows' dimension; with
        training ``rows`` (``train_size``), a family (an unfrozen scipy law,
        an unfitted estimator) is fit on them first (a fitted one is used as
        given). Without them, a family is the composite null
        (:mod:`._composite`): ``_family``, fit to the tested rows by
        :meth:`_fit_family`. A model fitted on DataFrame columns must be
        tested on those columns."""
        family = family_of(
            self.model,
            getattr(self, "known_params", None),
            getattr(self, "fit_params", None),
            getattr(self, "guessed_params", None),
        )
        family = log_standardized(edge_conditioned(family))
        self._family = None
        if family is not None and self.support is not None:
            raise ValueError(
                f"support applies to a score function; model {family.name} is a "
                "family, whose support is its own."
            )
        if rows is None and family is not None:
            self._family = family
            return
        if rows is not None and family is not None:
            self.model_ = family.fit(np.asarray(rows, dtype=np.float64), seed)
            self._score = model_score(self.model_)
        elif (
            rows is not None
            and hasattr(self.model, "fit")
            and not is_fitted(self.model)
        ):
            self.model_ = clone(self.model).fit(np.asarray(rows, dtype=np.float64))
            self._score = model_score(self.model_)
        else:
            if rows is not None and not self._learns():
                raise TypeError(
                    f"train_size={self.train_size!r} fits the model, if it is an "
                    "unfitted estimator (e.g. GaussianMixture(3)), or a learned "
                    "transformer (a LearnedFourierSampler) on a part of the rows; "
                    f"here neither learns: model is {_described(self.model)} and "
                    f"transformer is {getattr(self, 'transformer', 'auto')!r}. "
                    "Drop train_size to test every row."
                )
            self._score = model_score(self.model, self.support)
            # (a model fit above saw arrays: its columns are X's by position)
            check_feature_names(self.model, getattr(self, "feature_names_in_", None))
        _check_dim(self._score, self.n_features_in_)

    def _on_line(self, X):
        """Rows of a law with a bounded side mapped onto the line, where the
        model's score is its pushforward's (:mod:`._support`); other rows
        (and None) as they are."""
        line = self._score.line
        return X if line is None or X is None else line.forward(X)

    def _training_part(self, engine, X, seed):
        """``(train, tested)``: the rows an estimator ``model`` and learned
        features are fit on, and the rows tested. Without ``train_size``: no
        training rows, all of ``X`` tested. With it, a seeded random part and
        the rest (a model or features fit on the rows they test are biased
        towards them)."""
        if self.train_size is None:
            self._model_of(None)
            self.n_train_ = 0
            if self._family is not None:
                X = self._fit_family(engine, X, seed)
            return None, X
        if engine.lazy:
            raise TypeError(
                f"train_size={self.train_size!r} takes in-memory rows; with dask "
                "input, fit the model on an in-memory sample and pass it fitted."
            )
        n = engine.n_rows(X)
        train, test = training_split(n, self.train_size, seed, f"{n} rows")
        if test.size < _budgets.MIN_UNITS:
            raise ValueError(
                f"train_size={self.train_size!r} leaves {test.size} of {n} rows to "
                f"test; {type(self).__name__} needs at least {_budgets.MIN_UNITS}."
            )
        train = X[train]
        self._model_of(train, seed)
        self.n_train_ = train.shape[0]
        return train, X[test]

    def _fit_family(self, engine, X, seed):
        """The composite null's fit: ``model_``, the member of ``_family``
        fit to all the tested rows, and its score."""
        where = None
        if engine.lazy:
            where = "dask input; use in-memory rows"
        elif self._exact():
            where = "the exact test (transformer=None); use the features ('auto')"
        elif self._block_size_in_effect() is not None:
            where = f"block_size={self._block_size_in_effect()!r} (rows in time order)"
        if where is not None:
            raise TypeError(
                f"model {self._family.name} is a family, tested by a parametric "
                f"bootstrap that refits it to rows drawn from its fit to X (a "
                f"composite null); it is not available with {where}, or pass "
                "one fitted law (a frozen scipy law, a fitted estimator)."
            )
        family, X = self._family, np.asarray(X, dtype=np.float64)
        self.model_ = family.fit(X, seed)
        self._null_law = family.null_law(X, self.model_)
        # The law and rows of the statistic (standardized by the fit, or the
        # rows above an edge conditioned on: the family's construction).
        self._fitted_law, X = family.tested(X, self.model_)
        self._score = family.read_by(model_score(self._fitted_law), self._fitted_law)
        family.check_ends(self._fitted_law)  # before the bootstrap starts
        line = self._score.line
        if line is not None and line.outside(X).size:
            raise ValueError(
                f"{family.name}'s fit to X puts rows on the edge of its support "
                f"({line.low:g}, {line.high:g}) (rows tied at the fitted edge, or "
                "an end fitted to the extreme row): fix the edge, e.g. "
                "known_params={'loc': 0}, or drop the tied rows."
            )
        self._family_rows = X
        _check_dim(self._score, self.n_features_in_)
        return X

    def _resampled(self, parts, options):
        """Observed statistic, null and tolerance of ``parts`` in the one
        calibration loop (``options``): the multiplier bootstrap of a fixed
        model, or for a family the parametric bootstrap that refits it
        (:mod:`._composite`)."""
        if self._family is None:
            return resampled_multiplier(parts, **options)
        # The tested rows serve this one calibration (a family takes no
        # partial_fit), then go: a fitted test holds no copy of its data.
        rows, self._family_rows = self._family_rows, None
        refits = RefitParts(
            parts,
            self._family,
            self._null_law,
            rows,
            self._fitted_law,
            lambda laws, samples: refit_statistics(
                self._stream.transformers,
                lambda law: self._family.read_by(model_score(law), law),
                laws,
                samples,
            ),
        )
        return resampled_refits(refits, **options)

    def _bandwidth(self, fit_rows, seed):
        """The ``bandwidth`` parameter as a number: ``"median"``, the median
        distance of random pairs of ``fit_rows``; ``"auto"``, that median,
        times ``COMPOSITE_WIDTH`` for a family fit to the rows."""
        if self.bandwidth not in ("auto", "median"):
            return float(self.bandwidth)
        rows = np.asarray(fit_rows, dtype=np.float64)
        median = median_bandwidth(
            rows, random_state=seed, n_pairs=_budgets.STEIN_MEDIAN_PAIRS
        )
        if self.bandwidth == "auto" and self._family is not None:
            return COMPOSITE_WIDTH * median
        return median

    def _exact(self):
        return False

    def _adds_pit(self):
        """Whether the default kernel (``transformer`` and ``bandwidth``
        "auto") of a location-scale family on the line adds a kernel on the
        rows' probability-integral transform (:mod:`._maps`)."""
        default = ("auto", "auto")
        kernel = (getattr(self, "transformer", None), getattr(self, "bandwidth", None))
        return kernel == default and isinstance(self._score, PitScore)

    def _pit(self, sampler, fit_rows, rng):
        """The features of the kernel on the probability-integral transform
        where :meth:`_adds_pit`, else None."""
        if not self._adds_pit():
            return None
        seed = _streams.draw_seed(rng)
        return pit_sampler(sampler, self._score, fit_rows, seed)

    def _start(self, engine, fit_rows, train, seed, rng):
        """Fit the test's samplers on ``fit_rows`` (learned ones on the
        training rows ``train``) and open the stream."""
        samplers = self._samplers(
            np.asarray(fit_rows, dtype=np.float64), train, seed, rng
        )
        maps = [
            SteinMap(s, self._score, self._pit(s, fit_rows, rng), basis)
            for s, basis in zip(samplers, self._bases(len(samplers)))
        ]
        self._seed = seed
        widths = [m._n_features_out for m in maps]
        ordered = self._block_size_in_effect() is not None
        self._stream = Stream(maps, widths, 1, seed, engine.rows, ordered=ordered)

    def _bases(self, n_maps):
        """Each map's view (:class:`~._maps.SteinMap`'s ``basis``): none."""
        return [None] * n_maps

    def _unit(self, n_rows):
        if self.resample_unit != "auto":
            return self.resample_unit
        width = sum(self._stream.widths)
        unit = multiplier_unit(
            n_rows, n_max(self.n_resamples), width, _budgets.STEIN_UNITS
        )
        return max(self._stream.state.unit, unit)

    def _block_size_in_effect(self):
        """The block size in effect: ``block_size``, or ``"auto"`` for MCMC
        chains, whose draws are in time order."""
        if self.block_size is None and getattr(self, "n_chains_", None):
            return "auto"
        return self.block_size

    def _check_order(self, engine, X, seed):
        """Warn when the rows look ordered and ``block_size`` is None: the
        Stein features of the first rows (of the one map, or of the middle
        of a grid)."""
        if self._block_size_in_effect() is None:
            maps = self._stream.transformers
            stein = maps[len(maps) // 2]  # the middle of a grid
            rows = engine.rows.to_host(head(engine, X))
            warn_if_ordered([order_features(stein, rows, np.asarray, seed)], seed)

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Compute the statistic, its bootstrap null and the p-value.

        Parameters
        ----------
        X : DataFrame, array-like of shape (n, d), MCMC chains
            The rows tested, numeric (a dask array: reduced on the workers).
            MCMC chains, unthinned: a 3-D array, ``(chains, draws, d)``
            (PyMC, NumPyro, Stan) or ``(draws, chains, d)`` (emcee's
            ``get_chain()``), its chains' axis given by ``chain_axis``; or
            ArviZ ``InferenceData`` (its posterior, read by its ``chain`` and
            ``draw`` dims). Their draws are tested as rows in time order,
            chain after chain (``block_size=None`` then means ``"auto"``;
            ``n_chains_``).
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted test.
        """
        engine = _engines.engine_for(X)
        self.n_chains_ = None
        if not engine.lazy and is_chains(X):
            X, self.n_chains_ = chain_rows(X, self.chain_axis)
        if self._exact() and engine.lazy:
            raise TypeError(
                "The exact test (transformer=None) is quadratic and takes "
                "in-memory arrays; use the features ('auto') for dask arrays."
            )
        X = self._rows(X, True, _budgets.MIN_UNITS)
        block_size = self._block_size_in_effect()
        if self._exact() and block_size is not None:
            raise ValueError(
                f"block_size={block_size!r} draws a multiplier per block of "
                "the unit sums of the Stein features; the exact test "
                "(transformer=None) has none: use the features ('auto')."
            )
        rng = check_random_state(self.random_state)
        seed = _streams.draw_seed(rng)
        train, X = self._training_part(engine, X, seed)
        X, train = self._on_line(X), self._on_line(train)
        n = engine.n_rows(X)
        if self._exact():
            return self._fit_exact(X, seed)
        self._start(engine, engine.rows_of(X, fit_indices(n, seed)), train, seed, rng)
        self._check_order(engine, X, seed)
        engine.add(self._stream, X, None, self._unit(n))
        self._calibrate()
        return self

    def _streams(self):
        # partial_fit streams features; the exact test takes all rows at once.
        return not self._exact()

    @available_if(_streams)
    @fit_context(prefer_skip_nested_validation=False)
    @unfitted_on_error
    def partial_fit(self, X, y=None):
        """Add a chunk of rows to the test (out-of-core or streamed data).

        The first chunk fits the features (with ``bandwidth="median"``, at
        that chunk's median distance) and every chunk's rows are tested; with
        ``train_size``, the first chunk is the training part of the model
        and of learned features, tested no more (``n_train_`` rows).
        Results are computed from all rows so far when first read; with
        features that do not depend on the data (a float bandwidth, or a
        fitted sampler) they equal those of :meth:`fit` on all rows, whatever
        the chunks.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_chunk, d)
            Rows.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The test, updated.
        """
        first = getattr(self, "_stream", None) is None
        if is_chains(X):
            raise ValueError(
                "partial_fit takes rows: give each chain's draws in time order, "
                "as a 2-D chunk of shape (draws, d), one chain after the other "
                "(with block_size), or pass all the chains to fit."
            )
        if first:
            self.n_chains_ = None
        if _engines.engine_for(X).lazy:
            raise TypeError(
                "partial_fit takes in-memory chunks; give dask input to fit, "
                "which reduces it on the workers."
            )
        try:
            X = self._rows(X, first, 1)
        except ValueError as error:
            if first:
                raise
            raise ValueError(
                f"partial_fit chunk after {self._stream.n_rows[0]} rows (nothing "
                f"was added): {error}"
            ) from error
        engine = _engines.InMemory(_engines.HOST)
        if first:
            rng = check_random_state(self.random_state)
            seed = _streams.draw_seed(rng)
            # With train_size the first chunk is the training part.
            training = self.train_size is not None
            self._model_of(X if training else None, seed)
            if self._family is not None:
                raise TypeError(
                    f"model {self._family.name} is a family, fit to all the rows "
                    "and refit on every resample (a composite null): give all "
                    "the rows to fit, or pass one fitted law to partial_fit."
                )
            self.n_train_ = X.shape[0] if training else 0
            X = self._on_line(X)
            self._start(engine, X, X if training else None, seed, rng)
            if training:
                self._mark_stale()
                return self
        stream = self._stream
        if not first:  # (the first chunk was mapped before the stream opened)
            X = self._on_line(X)
        if not stream.n_rows[0]:  # the first rows: is their order a concern?
            self._check_order(engine, X, stream.seed)
        stream.add((X, None), self._unit(stream.n_rows[0] + X.shape[0]))
        self._mark_stale()
        return self

    def _calibrate(self):
        stream = self._stream
        n, unit = stream.n_rows[0], stream.state.unit
        sums, scales = stream.sums(), None
        self.block_size_ = self.block_scale_ = None
        block_size = self._block_size_in_effect()
        if block_size is not None:
            # One multiplier per block of consecutive rows, the null of each
            # map corrected for the dependence between neighbouring blocks.
            choice = _blocks.choose(block_size, [s.series() for s in sums], unit)
            sums, scales = choice.coarsen(sums)
            self.block_size_ = choice.rows
        parts = []
        for k, s in enumerate(sums):
            U, sizes = bootstrap_units(s, n, unit)
            scale = 1.0 if scales is None else scales[k]
            parts.append(MultiplierParts(U, sizes, null_scale=scale))
        if scales is not None:
            self.block_scale_ = scales[0] if len(scales) == 1 else np.array(scales)
        self._results_of(parts, unit)
        self.resample_unit_ = unit
        self.n_samples_ = n
        self._stale = False

    def _set_result(self, parts):
        """``result_`` from the calibrated attributes and the effect of
        ``parts`` (one kernel's, or every kernel's of a grid)."""
        ksd2, se = parts.effect()
        self.result_ = KernelSteinTestResult(
            statistic=self.statistic_,
            pvalue=self.p_value_,
            null_distribution=self.null_distribution_,
            alpha=self.alpha,
            ksd2=ksd2,
            standard_error=se,
            n_samples=int(parts.n),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

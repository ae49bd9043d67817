"""What the results of every kernel test share: the shape of ``scipy.stats``
results (attributes, tuple unpacking), the effect size with its confidence
interval and relevance test, the JSON and HTML forms. Each family's result
(:class:`~skmmd.MMDTestResult`, :class:`~skmmd.HSICTestResult`) names its own
effect size and sizes."""

from collections import namedtuple

import numpy as np
from scipy.special import ndtri
from scipy.stats import norm

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
RelevanceTestResult = namedtuple("RelevanceTestResult", ["statistic", "pvalue"])


def interval(effect, standard_error, confidence_level=0.95):
    """The confidence interval of :meth:`KernelTestResult.confidence_interval`
    for a nonnegative ``effect`` (a squared norm) and its standard error."""
    z = ndtri((1 + confidence_level) / 2)
    effect = np.asarray(effect, dtype=np.float64)
    se = np.asarray(standard_error, dtype=np.float64)
    low = np.maximum(effect - z * se, 0.0)
    normal_high = effect + z * se
    floor = np.maximum(effect, se)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = z * se / np.sqrt(floor)
        t = (a + np.sqrt(np.maximum(a * a + 4 * effect, 0.0))) / 2
    high = np.maximum(np.where(normal_high <= floor, normal_high, t * t), 0.0)
    if np.ndim(low) == 0:
        low, high = float(low), float(high)
    return ConfidenceInterval(low, high)


class KernelTestResult:
    """Base of the results of kernel tests (not public).

    Its class attributes are the public protocol through which the HTML
    report, the CLI and :meth:`to_dict` read any family's result: a
    subclass names its effect size (``EFFECT``: the attribute holding the
    estimate, e.g. ``"mmd2"``; ``EFFECT_LABEL``: how a person reads it) and
    its sizes (``SIZES``: ``{attribute: description}``); the keys of
    :meth:`to_dict` (the CLI's ``--json``) are those names. It also says how
    the report and the CLI speak of its test: the page's ``TITLE``, the
    ``FINDING`` a rejection makes, ``H0`` itself, and what no flagged column
    of ``explain`` means (``NO_COLUMN``; what a flagged one did is its
    column report's ``verb``).
    """

    EFFECT = "effect"
    EFFECT_LABEL = "effect"
    SIZES: dict = {}
    TITLE = "skmmd kernel test report"
    FINDING = "the test finds an effect"
    H0 = "no effect"
    NO_COLUMN = "no column is flagged on its own at that level."

    def __init__(
        self,
        *,
        statistic,
        pvalue,
        null_distribution,
        alpha,
        standard_error,
        column_report=None,
    ):
        self.statistic = statistic
        self.pvalue = pvalue
        self.null_distribution = null_distribution
        self.alpha = alpha
        self.reject = bool(pvalue <= alpha)
        self.standard_error = standard_error
        if column_report is not None:  # a pandas report: pandas is there
            from ._column_report import ColumnReport

            column_report = ColumnReport.of(column_report)
        self.column_report = column_report
        # The table's statistic alone; differs from pvalue when a column
        # report joins the decision (``record_decision`` of ``_explain``).
        self.table_pvalue = pvalue

    @property
    def n_resamples_used(self):
        """Resamples the p-value is computed from: ``n_resamples``, or where
        a test with ``n_resamples="auto"`` stopped."""
        return int(np.shape(self.null_distribution)[0])

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return (self.statistic, self.pvalue)[index]

    def __repr__(self):
        return (
            f"{type(self).__name__}(statistic={self.statistic!r}, "
            f"pvalue={self.pvalue!r}, {self.EFFECT}={getattr(self, self.EFFECT)!r}, "
            f"standard_error={self.standard_error!r})"
        )

    def _effect_value(self):
        return np.asarray(getattr(self, self.EFFECT))

    def _interval(self, confidence_level):
        if not 0 < confidence_level < 1:
            raise ValueError(
                f"confidence_level must be in (0, 1); got {confidence_level!r}."
            )
        return interval(
            getattr(self, self.EFFECT), self.standard_error, confidence_level
        )

    def relevance_test(self, delta):
        """Test ``H0: effect <= delta`` against ``effect > delta``.

        The effect is the family's own (MMD^2 of two samples, HSIC of two
        variables): "effects smaller than ``delta`` are fine", and a small
        p-value says the effect exceeds ``delta``.

        Parameters
        ----------
        delta : float
            Tolerated effect, ``> 0``, in the units of the kernel (see Notes).

        Returns
        -------
        result : RelevanceTestResult
            ``statistic = (effect - delta) / standard_error`` and the one-sided
            normal ``pvalue``: ``pvalue <= alpha`` exactly when ``delta`` is
            below the lower limit of the ``1 - 2 alpha`` confidence interval.

        Notes
        -----
        For two samples, MMD^2 is the squared distance of the two kernel
        mean embeddings. With a kernel of ``k(x, x) = 1`` (Gaussian, or
        :class:`TabularSampler` without missing values) it lies in ``[0,
        2]``; for a one-hot
        (delta) kernel on one categorical column it is the squared L2
        distance of the category shares, ``sum_v (P(v) - Q(v))^2`` (a share
        moving 10 points from one category to another gives 0.02); for the
        Gaussian kernel of bandwidth ``s`` and a mean shift ``mu`` of a
        ``N(0, sigma^2)`` variable it is ``2 sqrt(s^2 / (s^2 + 2 sigma^2)) (1 -
        exp(-mu^2 / (2 (s^2 + 2 sigma^2))))``. Calibrate ``delta`` on a shift
        you consider harmless. ``delta = 0`` is the equality test: use the
        permutation ``pvalue``, which is exact there.
        """
        if not np.isfinite(delta) or delta <= 0:
            raise ValueError(
                "delta must be a positive number (the tolerated effect); got "
                f"{delta!r}. For delta = 0 use the permutation pvalue."
            )
        se = np.asarray(self.standard_error, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (self._effect_value() - delta) / se
        # A zero standard error (identical units) decides by the sign alone.
        z = np.where(se > 0, z, np.where(self._effect_value() > delta, np.inf, -np.inf))
        pvalue = norm.sf(z)
        if np.ndim(z) == 0:
            z, pvalue = float(z), float(pvalue)
        return RelevanceTestResult(z, pvalue)

    def to_dict(self, confidence_level=0.95, delta=None, *, null_distribution=False):
        """Everything as JSON-ready Python numbers and lists.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Level of the interval included.
        delta : float or None, default=None
            Include the relevance test of ``effect <= delta``.
        null_distribution : bool, default=False
            Include the resampled statistics (``n_resamples`` numbers).

        Returns
        -------
        result : dict
            ``statistic``, ``p_value``, ``reject``, ``alpha``, the effect size
            under its own name (``mmd2`` for two samples, ``hsic`` for
            independence) with its ``standard_error`` and
            ``confidence_interval``, the sizes (``n_samples_x`` and
            ``n_samples_y``; ``n_pairs``), and on request the
            ``null_distribution`` and (with ``delta``) the ``relevance``
            test; an infinite standard error or bound (samples too small for
            the jackknife) is None; ``n_resamples_used``, the resamples
            behind the p-value (fewer than ``n_resamples`` where a test with
            ``n_resamples="auto"`` stopped); ``table_p_value``, the table's
            statistic alone (``p_value`` unless columns joined the
            decision). The keys are those of the CLI's ``--json``.
        """

        def plain(value):  # JSON has no infinity: null (tiny samples' bounds)
            a = np.asarray(value, dtype=np.float64)
            return np.where(np.isfinite(a), a, None).tolist()

        ci = self.confidence_interval(confidence_level)
        out = {
            "statistic": plain(self.statistic),
            "p_value": plain(self.pvalue),
            "table_p_value": plain(self.table_pvalue),
            "reject": self.reject,
            "alpha": self.alpha,
            self.EFFECT: plain(getattr(self, self.EFFECT)),
            "standard_error": plain(self.standard_error),
            "confidence_level": confidence_level,
            "confidence_interval": [plain(ci.low), plain(ci.high)],
            **{name: getattr(self, name) for name in self.SIZES},
            "n_resamples_used": self.n_resamples_used,
        }
        if null_distribution:
            out["null_distribution"] = plain(self.null_distribution)
        if delta is not None:
            relevance = self.relevance_test(delta)
            out["relevance"] = {
                "delta": delta,
                "statistic": plain(relevance.statistic),
                "p_value": plain(relevance.pvalue),
            }
        return out

    def to_html(
        self,
        X=None,
        Y=None,
        *,
        summaries=None,
        settings=None,
        confidence_level=0.95,
        title=None,
    ):
        """The result as one self-contained HTML page (a drift report).

        The page holds the verdict in one sentence, the statistic, p-value and
        confidence interval, the null distribution, the per-column report
        (when the test had ``explain_columns``) with each moved column's
        distribution in the two samples, and the run's ``settings``. Figures
        are inline SVG: the page needs no script, no network and no plotting
        library.

        Parameters
        ----------
        X, Y : DataFrame or array-like of shape (n_rows, n_columns), default=None
            The two samples the test saw (reference, current), summarized for
            the per-column figures; leave them out with ``summaries``.
        summaries : skmmd.inspection.ColumnSummaries, default=None
            Summaries gathered batch by batch in the test's own pass (e.g.
            next to ``partial_fit``), instead of ``X`` and ``Y``.
        settings : dict, default=None
            What reproduces the run (options, seed, files), shown as a table.
        confidence_level : float, default=0.95
            Level of the interval shown.
        title : str, default=None
            The page's title.

        Returns
        -------
        html : str
            The page. Without a column report every summarized column is drawn;
            with one, the columns whose adjusted p-value is at most alpha.
        """
        from .._tables._summaries import ColumnSummaries
        from ._report import html_report

        if X is not None or Y is not None:
            if summaries is not None or X is None or Y is None:
                raise ValueError("Pass both X and Y, or summaries, not both.")
            summaries = ColumnSummaries().update(X, Y)
        return html_report(self, summaries, settings, confidence_level, title)

    def save_report(self, path, X=None, Y=None, **kwargs):
        """Write :meth:`to_html` to a file.

        Parameters
        ----------
        path : str or path-like
            The file to write (UTF-8); its folder must exist.
        X, Y : DataFrame or array-like, default=None
            The two samples, as in :meth:`to_html`.
        **kwargs : dict
            ``summaries``, ``settings``, ``confidence_level`` and ``title`` of
            :meth:`to_html`.

        Returns
        -------
        path : pathlib.Path
            The file written.
        """
        from ._report import check_path

        path = check_path(path)
        path.write_text(self.to_html(X, Y, **kwargs), encoding="utf-8")
        return path

"""The column report of ``explain``: one row per column (or column group),
most evidence first, as a pandas DataFrame that carries what its numbers
mean.

:class:`ColumnReport` owns the correction behind its adjusted p-values, the
level ``alpha`` its flags were set at, the name of its boolean column
(``flag``: ``moved``, or ``depends`` for independence) and what a flagged
column did (``verb``), the first step of step-down maxT and the decision's
p-value. The HTML report, the display, the CLI's text and JSON read these,
never a default of their own; :func:`rank` is the one order of its rows.

Imported where a report is made or read (pandas is an optional dependency).
"""

import pandas as pd

from ._corrections import CORRECTION_TEXTS

# What a report records besides its rows (pandas keeps ``attrs`` through
# selections, sorts and ``assign``).
_MEANING = ("correction", "alpha", "flag", "verb", "maxt_p_value", "n_resamples_used")


def rank(frame):
    """``frame``'s rows by decreasing evidence: adjusted p-value, then the
    pooled p-value (a frame without one: the permutation p-value), then the
    standardized statistic ``z`` where they tie (stable)."""
    tiebreak = "pooled_p_value" if "pooled_p_value" in frame else "p_value"
    keys = [k for k in ("adjusted_p_value", tiebreak, "z") if k in frame]
    ascending = [k != "z" for k in keys]
    return frame.sort_values(keys, ascending=ascending, kind="stable")


class ColumnReport(pd.DataFrame):
    """The per-column report of ``explain``, saying what its numbers mean.

    A pandas DataFrame, one row per column, most evidence first.

    Its columns are ``column``, ``statistic``, ``p_value``,
    ``pooled_p_value``, ``adjusted_p_value``, the boolean ``flag`` column
    (``moved``, or ``depends`` for independence: ``adjusted_p_value <=
    alpha``), ``z`` and the effect's interval. Selections, sorts and
    ``assign`` keep the type and its meaning; :meth:`to_frame` gives a plain
    DataFrame.

    Parameters
    ----------
    data : DataFrame, dict, ndarray or None, default=None
        As :class:`pandas.DataFrame`'s (the tests make their reports; the
        meaning is set in ``attrs``).
    index : Index or array-like, default=None
        As :class:`pandas.DataFrame`'s.
    columns : Index or array-like, default=None
        As :class:`pandas.DataFrame`'s.
    dtype : dtype, default=None
        As :class:`pandas.DataFrame`'s.
    copy : bool or None, default=None
        As :class:`pandas.DataFrame`'s.

    Attributes
    ----------
    correction : {"fwer", "fdr", "fdr_by", "none"}
        What the adjusted p-values control.
    alpha : float
        The level the flags were set at.
    flag : str
        The boolean column: ``"moved"`` or ``"depends"``.
    verb : str
        What a flagged column did, in words ("moved", "depend on y").
    maxt_p_value : float
        The first step of step-down maxT: a test that no column changed.
    decision_p_value : float or None
        The p-value of the test's decision the flags agree with (None
        before the decision is made).
    n_resamples_used : int
        The resamples the p-values were computed from.

    See Also
    --------
    ColumnReportDisplay : Its bars.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import mmd_test
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(300, 3)), rng.normal(size=(300, 3))
    >>> Y[:, 1] += 1.0
    >>> report = mmd_test(X, Y, explain_columns=True, random_state=0).column_report
    >>> report.correction, report.alpha, report.flag
    ('fwer', 0.05, 'moved')
    >>> report.column[report.moved].tolist()
    ['1']
    >>> report.count_text()[:37]
    '1 of 3 columns moved at alpha = 0.05 '
    """

    @property
    def _constructor(self):
        return ColumnReport

    @classmethod
    def of(cls, frame):
        """``frame`` as a ColumnReport: a report of ``explain`` as it is; a
        plain DataFrame only with the meaning recorded in its ``attrs``
        (a ``ValueError`` naming what is missing otherwise)."""
        missing = [key for key in _MEANING if key not in frame.attrs]
        if missing:
            raise ValueError(
                f"A column report records {list(_MEANING)} in its attrs; this "
                f"DataFrame lacks {missing}: pass the test's column_report."
            )
        if isinstance(frame, cls):
            return frame
        report = cls(frame)
        report.attrs = dict(frame.attrs)
        return report

    @property
    def correction(self):
        return self.attrs["correction"]

    @property
    def alpha(self):
        return self.attrs["alpha"]

    @property
    def flag(self):
        return self.attrs["flag"]

    @property
    def verb(self):
        return self.attrs["verb"]

    @property
    def maxt_p_value(self):
        return self.attrs["maxt_p_value"]

    @property
    def decision_p_value(self):
        return self.attrs.get("decision_p_value")

    @property
    def n_resamples_used(self):
        return self.attrs["n_resamples_used"]

    def flagged(self, alpha=None):
        """Which rows are flagged, as a boolean array.

        The ``flag`` column at the report's own ``alpha`` (None), else
        ``adjusted_p_value <= alpha``.

        Parameters
        ----------
        alpha : float, default=None
            Another level to read the adjusted p-values at.

        Returns
        -------
        flagged : ndarray of shape (n_rows,) of bool
            One entry per row.
        """
        if alpha is None or alpha == self.alpha:
            return self[self.flag].to_numpy(dtype=bool)
        return (self["adjusted_p_value"] <= alpha).to_numpy()

    def count_text(self, alpha=None, verb=None):
        """How many columns were flagged, of how many, under which correction.

        For example ``"3 of 500 columns moved at alpha = 0.05 (family-wise
        error controlled by step-down maxT)"``.

        Parameters
        ----------
        alpha : float, default=None
            Another level than the report's own.
        verb : str, default=None
            Another phrase than the report's ``verb`` (e.g. naming the
            target).

        Returns
        -------
        text : str
            The sentence.
        """
        alpha = self.alpha if alpha is None else alpha
        verb = self.verb if verb is None else verb
        flagged = int(self.flagged(alpha).sum())
        return (
            f"{flagged} of {len(self)} columns {verb} at alpha = {alpha:g} "
            f"({CORRECTION_TEXTS[self.correction]})"
        )

    def to_frame(self):
        """The report as a plain DataFrame (a copy, with its ``attrs``).

        Returns
        -------
        frame : pandas.DataFrame
            The same rows and columns.
        """
        frame = pd.DataFrame(self).copy()
        frame.attrs = dict(self.attrs)
        return frame


def column_report(frame, *, correction, alpha, flag, verb, maxt_p_value, n_used):
    """The :class:`ColumnReport` of ``frame`` (one row per column), ranked
    (:func:`rank`), with what its numbers mean (``correction`` one of
    :data:`~._corrections.CORRECTIONS`, checked where the p-values were
    adjusted)."""
    report = ColumnReport(rank(frame).reset_index(drop=True))
    report.attrs.update(
        n_resamples_used=int(n_used),
        correction=correction,
        alpha=alpha,
        flag=flag,
        verb=verb,
        maxt_p_value=float(maxt_p_value),
    )
    return report

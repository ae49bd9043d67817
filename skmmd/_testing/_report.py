"""The HTML report of a test's result: one self-contained page (inline SVG
figures, inline style, no script, no network) that says what the test found,
which columns moved and how their distributions differ."""

import json
from html import escape
from pathlib import Path

import numpy as np

from .._utils._svg import bar_chart
from . import _calibration

REFERENCE, CURRENT = "#4c72b0", "#dd8452"  # the two samples' colours
_STYLE = """
body { font-family: sans-serif; max-width: 60rem; margin: 2rem auto;
       color: #222; line-height: 1.4; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.verdict { font-size: 1.1rem; padding: .6rem .8rem; border-left: 6px solid; }
.reject { border-color: #c44e52; background: #fbeaea; }
.accept { border-color: #55a868; background: #eaf6ed; }
table { border-collapse: collapse; font-size: .9rem; }
td, th { border-bottom: 1px solid #ddd; padding: .2rem .6rem; text-align: left; }
tr.moved td { font-weight: bold; }
figure { display: inline-block; margin: .5rem 1rem .5rem 0; vertical-align: top; }
figcaption { font-size: .8rem; color: #555; max-width: 380px; }
dl.keys { font-size: .85rem; display: grid; grid-template-columns: max-content auto;
          gap: .1rem .8rem; } dl.keys dt { font-family: monospace; }
dl.keys dd { margin: 0; } sup.note { color: #c44e52; }
"""


def check_path(path):
    """``path`` as a Path whose folder exists, else an error naming both."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path}: the report path is a folder; name a file.")
    if not path.parent.is_dir():
        raise FileNotFoundError(
            f"{path}: cannot write the report there, the folder {path.parent} "
            "does not exist."
        )
    return path


def _cell(key, value, text):
    return f'<td data-key="{key}" data-value="{escape(json.dumps(value))}">{text}</td>'


def _number(value):
    """A cell's text: floats to six digits, lists joined, labels as they are."""
    if value is None:  # to_dict's JSON for an infinite standard error or bound
        return "inf"
    if isinstance(value, list):
        return ", ".join(_number(v) for v in value)
    return f"{value:.6g}" if isinstance(value, float) else str(value)


# What each ``correction`` of ``explain`` controls, as the texts above a
# per-column report say it (the CLI's, the HTML report's, the display's).
CORRECTION_TEXTS = {
    "fwer": "family-wise error controlled by step-down maxT",
    "fdr": "false discovery rate controlled by Benjamini-Hochberg",
    "fdr_by": "false discovery rate controlled by Benjamini-Yekutieli",
    "none": "no correction: each column's own permutation p-value",
}
# Rows of a long column table shown besides the moved columns, and moved
# columns named in the verdict.
_MORE_ROWS = 20
_NAMED = 20


def correction_of(report):
    """The correction behind a per-column report's adjusted p-values (its
    ``attrs["correction"]``; a report without one is family-wise)."""
    return report.attrs.get("correction", "fwer")


def correction_text(correction):
    """What ``correction`` controls, in words (an unknown one as it is)."""
    return CORRECTION_TEXTS.get(correction, f"correction {correction!r}")


def column_count(report, alpha, verb="moved"):
    """``"3 of 500 columns moved at alpha = 0.05 (family-wise error
    controlled by step-down maxT)"``: how many columns of ``report`` have an
    adjusted p-value at most ``alpha``, out of how many, under which
    correction; ``verb`` says what such a column did (e.g. "depend on y")."""
    moved = int((report["adjusted_p_value"] <= alpha).sum())
    return (
        f"{moved} of {len(report)} columns {verb} at alpha = {alpha:g} "
        f"({correction_text(correction_of(report))})"
    )


def moved_columns(result):
    """The labels of the result's columns whose adjusted p-value is at most
    alpha, most evidence first (None without a column report)."""
    report = result.column_report
    if report is None:
        return None
    adjusted = report["adjusted_p_value"]
    return [str(c) for c, p in zip(report["column"], adjusted) if p <= result.alpha]


def verdict(result, moved):
    """The result in a sentence; with a column report, the columns that moved
    (the first ``_NAMED`` named) and how many of all, under which correction."""
    p, alpha = float(result.pvalue), result.alpha
    finding, h0 = result._FINDING, result._H0
    if result.reject:
        text = (
            f"{finding[0].upper()}{finding[1:]}: the test rejects H0 ({h0}) at "
            f"level alpha = {alpha:g}, with p-value {p:.3g}."
        )
        if moved is not None:
            named = ", ".join(moved[:_NAMED])
            if len(moved) > _NAMED:
                named += f" and {len(moved) - _NAMED} more (see the table)"
            no_column = result._NO_COLUMN
            text += (
                f" Columns that {result._COLUMN_VERB}: {named}."
                if moved
                else f" {no_column[0].upper()}{no_column[1:]}"
            )
    else:
        text = (
            f"No evidence that {finding}: the p-value {p:.3g} is above "
            f"alpha = {alpha:g}, so the test does not reject H0 ({h0})."
        )
    if moved is not None:
        count = column_count(result.column_report, alpha, result._COLUMN_VERB)
        text += f" In all, {count}."
    return text


def _numbers(result, confidence_level):
    d = result.to_dict(confidence_level)
    low, high = d["confidence_interval"]
    rows = [
        ("statistic", "statistic", d["statistic"]),
        ("p_value", "p-value", d["p_value"]),
        ("alpha", "alpha (level)", d["alpha"]),
        (result._EFFECT, f"{result._EFFECT_LABEL} (unbiased)", d[result._EFFECT]),
        (
            "standard_error",
            f"standard error of {result._EFFECT_LABEL}",
            d["standard_error"],
        ),
        ("ci_low", f"{confidence_level:.0%} interval, low", low),
        ("ci_high", f"{confidence_level:.0%} interval, high", high),
        *((key, name, d[key]) for key, name in result._SIZES.items()),
    ]
    body = "".join(
        f"<tr><th>{escape(name)}</th>{_cell(key, value, _number(value))}</tr>"
        for key, name, value in rows
    )
    return f'<table class="numbers">{body}</table>'


def _null_figure(result):
    null = np.asarray(result.null_distribution, dtype=float)
    null = null[np.isfinite(null)]
    statistic = float(result.statistic)
    if not null.size:
        return ""
    threshold = _calibration.threshold(null, result.alpha)
    span = [null.min(), null.max(), statistic]
    counts, edges = np.histogram(null, bins=30, range=(min(span), max(span)))
    labels = [f"{e:.3g}" for e in edges[:-1]]
    lines = [(statistic, "#c44e52", "statistic")]
    if np.isfinite(threshold):
        lines.append((threshold, "#333", f"threshold (alpha = {result.alpha:g})"))
    svg = bar_chart(
        [("resampled statistics", "#999", counts / null.size)],
        labels,
        edges=edges,
        lines=lines,
        title="Null distribution",
        width=560,
    )
    return (
        f'<figure class="null">{svg}<figcaption>The statistic on each of the '
        f"{null.size} resamples (the null distribution), the observed statistic "
        "and the rejection threshold.</figcaption></figure>"
    )


# What the adjusted p-value of each correction is, for the column table.
_ADJUSTED_NOTES = {
    "fwer": "its p-value adjusted for testing every column by step-down maxT "
    "on each column's fitted null, calibrated by the shared resamples "
    "(family-wise: the chance of flagging any unchanged column is at most alpha)",
    "fdr": "its pooled p-value adjusted for testing every column by "
    "Benjamini-Hochberg (false discovery rate: the expected share of "
    "unchanged columns among those flagged is at most alpha)",
    "fdr_by": "its pooled p-value adjusted for testing every column by "
    "Benjamini-Yekutieli (false discovery rate under any dependence between "
    "the columns)",
    "none": "not adjusted: its own permutation p-value (each column at level "
    "alpha on its own, no control over testing them all)",
}


def _header_notes(report, effect):
    """What each header of the column table means, ``{key: text}``."""
    correction = correction_of(report)
    adjusted = _ADJUSTED_NOTES.get(
        correction, f"its p-value adjusted for testing every column ({correction})"
    )
    notes = {
        "column": "the column (or group of columns) tested on its own",
        "statistic": "its statistic, on this column alone",
        "p_value": "its own permutation p-value, not adjusted",
        "pooled_p_value": "its statistic, on the scale of a fit of its own "
        "permutation null, against the resampled statistics of all columns on "
        "that scale; not adjusted, and finer than the permutation p-value, "
        "whose smallest value is 1/(resamples + 1)",
        "adjusted_p_value": f"{adjusted}; the column moved when this is at most alpha",
        "z": "its statistic standardized by its null distribution (mean and "
        "standard deviation of the resamples); ranks columns whose adjusted "
        "and pooled p-values tie",
        f"{effect}_low": f"low end of the 95% confidence interval of its {effect}",
        f"{effect}_high": "high end of that interval",
    }
    return {k: notes.get(k, "") for k in report.columns}


def _shown_rows(report, alpha):
    """The rows of the column table: every moved column and the first
    ``_MORE_ROWS`` others, in the report's order."""
    moved = np.asarray(report["adjusted_p_value"] <= alpha)
    others = np.cumsum(~moved)
    return report[moved | (others <= _MORE_ROWS)]


def _column_table(report, alpha, effect):
    notes = _header_notes(report, effect)
    keys = [k for k in report.columns if k != "column"]
    head = "".join(
        f'<th title="{escape(notes[k])}">{escape(k)}</th>' for k in ["column", *keys]
    )
    low = f"{effect}_low"
    rows, flagged = [], False
    shown = _shown_rows(report, alpha)
    for row in shown.to_dict(orient="records"):
        moved = row["adjusted_p_value"] <= alpha
        cells = []
        for k in ["column", *keys]:
            text = escape(_number(row[k]))
            if k == low and moved and row[k] == 0.0:
                text += '<sup class="note">*</sup>'
                flagged = True
            cells.append(f"<td>{text}</td>")
        rows.append(f'<tr class="{"moved" if moved else ""}">{"".join(cells)}</tr>')
    table = f'<table class="columns"><tr>{head}</tr>{"".join(rows)}</table>'
    if len(shown) < len(report):
        left = len(report) - len(shown)
        table += (
            f'<p class="left-out">{left} more columns, none moved, are left '
            f"out of the table (the {_MORE_ROWS} with the most evidence of "
            "those that did not move are shown).</p>"
        )
    legend = "".join(
        f"<dt>{escape(k)}</dt><dd>{escape(notes[k])}</dd>"
        for k in ["column", *keys]
        if notes[k]
    )
    agreement = (
        '<p class="agreement">The test and the interval answer two questions. '
        "The test asks whether the column's distributions differ at all: its "
        "p-value comes from resampling and holds at any sample size. The "
        f"interval says how large the difference ({escape(effect)}) is, from a "
        "normal approximation of its estimate, and is cut at 0, below which "
        f"{escape(effect)} cannot go. So a column can move while its interval "
        "starts at 0"
        + (" (marked *)" if flagged else "")
        + ": the difference is detected, but its size is too small, for these "
        "sample sizes, to be bounded away from 0; an interval of exactly [0, 0] "
        "means the estimate itself is at most 0.</p>"
    )
    return f'{table}<dl class="keys">{legend}</dl>{agreement}'


def _shares(counts, rows):
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts / np.maximum(rows, 1)[:, None]


def column_figure(name, summary):
    """A figure of one column: reference against current, as shares of rows."""
    counts, labels, rows = summary["counts"], list(summary["labels"]), summary["rows"]
    missing = summary["missing"]
    if summary["kind"] == "numeric":
        # The tails are slots only where they hold values.
        keep = np.ones(len(labels), dtype=bool)
        keep[[0, -1]] = counts[:, [0, -1]].sum(axis=0) > 0
        counts, labels = counts[:, keep], [t for t, k in zip(labels, keep) if k]
        kind = "histogram"
    else:
        if missing.any():
            counts = np.column_stack([counts, missing])
            labels.append("(missing)")
        kind = "categories"
    shares = _shares(counts, rows)
    svg = bar_chart(
        [("reference", REFERENCE, shares[0]), ("current", CURRENT, shares[1])],
        labels,
        title=name,
    )
    missing_share = _shares(missing[None, :], rows)[0]
    caption = (
        f"{kind}, shares of rows; missing values: {missing_share[0]:.1%} of the "
        f"reference, {missing_share[1]:.1%} of the current sample."
    )
    return (
        f'<figure class="column" data-column="{escape(name)}">{svg}'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def _columns_section(result, summaries):
    report = result.column_report
    parts = []
    if report is not None:
        parts.append(
            "<h2>Columns</h2><p>Each column tested with its own kernel on the "
            "same resamples, most evidence first; adjusted p-values: "
            f"{escape(correction_text(correction_of(report)))}. A column moved "
            "when its adjusted p-value is at most alpha "
            f'= {result.alpha:g}.</p><p class="count" id="column-count">'
            f"{escape(column_count(report, result.alpha, result._COLUMN_VERB))}.</p>"
        )
        parts.append(_column_table(report, result.alpha, result._EFFECT))
        shown = moved_columns(result)
        heading = "Distributions of the columns that moved"
    elif summaries is not None:
        shown = list(summaries.columns_)
        heading = "Distributions of the columns"
        parts.append(
            "<p>No per-column tests (run the test with explain_columns, or "
            "<code>--explain</code>, for them): every column is drawn.</p>"
        )
    else:
        return ""
    if summaries is None or not shown:
        return "".join(parts)
    known = set(summaries.columns_)
    figures = [
        column_figure(name, summaries.summary(name)) for name in shown if name in known
    ]
    missing = [name for name in shown if name not in known]
    parts.append(f"<h2>{heading}</h2>{''.join(figures)}")
    if missing:
        parts.append(
            f"<p>No distribution summary of: {escape(', '.join(missing))}.</p>"
        )
    return "".join(parts)


def _settings(settings):
    if not settings:
        return ""
    rows = "".join(
        f"<tr><th>{escape(str(k))}</th><td>{escape(str(v))}</td></tr>"
        for k, v in settings.items()
    )
    return (
        "<h2>Settings</h2><p>What reproduces this run.</p>"
        f'<table class="settings">{rows}</table>'
    )


def html_report(
    result, summaries=None, settings=None, confidence_level=0.95, title=None
):
    """The page of :meth:`KernelTestResult.to_html`."""
    moved = moved_columns(result)
    title = result._TITLE if title is None else title
    status = "reject" if result.reject else "accept"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="verdict {status}" id="verdict">'
        f"{escape(verdict(result, moved))}</p>"
        f"<h2>The test</h2>{_numbers(result, confidence_level)}"
        f"{_null_figure(result)}"
        f"{_columns_section(result, summaries)}"
        f"{_settings(settings)}"
        "</body></html>\n"
    )

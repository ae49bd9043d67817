"""The HTML report of a test's result: one self-contained page (inline SVG
figures, inline style, no script, no network) that says what the test found,
which columns moved and how their distributions differ."""

import json
from html import escape
from pathlib import Path

import numpy as np

from .._utils._svg import bar_chart
from . import _calibration
from ._corrections import CORRECTION_TEXTS

REFERENCE, CURRENT = "#4c72b0", "#dd8452"  # the two samples' colours
_STYLE = """
body { font-family: sans-serif; max-width: 60rem; margin: 2rem auto;
       color: #222; line-height: 1.4; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.verdict { font-size: 1.1rem; padding: .6rem .8rem; border-left: 6px solid; }
.reject { border-color: #c44e52; background: #fbeaea; }
.accept { border-color: #55a868; background: #eaf6ed; }
table { border-collapse: collapse; font-size: .9rem; }
td, th { border-bottom: 1px solid #ddd; padding: .2rem .6rem; text-align: left;
         overflow-wrap: anywhere; }
table.columns { table-layout: fixed; width: 100%; }
table.columns th:first-child { width: 22%; }
table.columns th { font-size: .8rem; vertical-align: bottom; }
tr.moved td { font-weight: bold; }
figure { display: inline-block; margin: .5rem 1rem .5rem 0; vertical-align: top; }
figcaption { font-size: .8rem; color: #555; max-width: 456px; }
.key { border-left: 3px solid; padding-left: .3rem; margin-right: .8rem; }
dl.keys { font-size: .85rem; display: grid; grid-template-columns: max-content auto;
          gap: .1rem .8rem; } dl.keys dt { font-family: monospace; }
dl.keys dd { margin: 0; } sup.note { color: #c44e52; }
@page { size: A4; margin: 12mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  table.columns { font-size: 8pt; } td, th { padding: .1rem .3rem; }
  tr, figure, dl.keys dt, dl.keys dd { break-inside: avoid; }
  h2 { break-after: avoid; } svg { max-width: 100%; height: auto; }
  .verdict, svg { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
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


# Rows of a long column table shown besides the moved columns, moved
# columns named in the verdict, and columns drawn (the first by evidence).
_MORE_ROWS = 20
_NAMED = 20
_DRAWN = 20
# The correction's name, in the header of the adjusted p-values.
_CORRECTION_NAMES = {
    "fwer": "step-down maxT",
    "fdr": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli",
    "none": "not adjusted",
}
# Columns of a report kept out of the page's table (in the files and JSON).
_FILE_ONLY = ("p_value", "pooled_p_value")


def correction_text(correction):
    """What ``correction`` controls, in words (an unknown one as it is)."""
    return CORRECTION_TEXTS.get(correction, f"correction {correction!r}")


def moved_columns(result):
    """The labels of the result's columns that moved (its report's
    ``flagged``), most evidence first (None without a column report)."""
    report = result.column_report
    if report is None:
        return None
    moved = report.flagged(result.alpha)
    return [str(c) for c, m in zip(report["column"], moved) if m]


def verdict(result, moved):
    """The result in a sentence; with a column report, the columns that moved
    (the first ``_NAMED`` named) and how many of all, under which correction."""
    p, alpha = float(result.pvalue), result.alpha
    finding, h0 = result.FINDING, result.H0
    if result.reject:
        text = (
            f"{finding[0].upper()}{finding[1:]}: the test rejects H0 ({h0}) at "
            f"level alpha = {alpha:g}, with p-value {p:.3g}."
        )
        if moved is not None:
            named = ", ".join(moved[:_NAMED])
            if len(moved) > _NAMED:
                named += f" and {len(moved) - _NAMED} more (see the table)"
            no_column = result.NO_COLUMN
            text += (
                f" Columns that {result.column_report.verb}: {named}."
                if moved
                else f" {no_column[0].upper()}{no_column[1:]}"
            )
    else:
        text = (
            f"No evidence that {finding}: the p-value {p:.3g} is above "
            f"alpha = {alpha:g}, so the test does not reject H0 ({h0})."
        )
    if moved is not None:
        count = result.column_report.count_text(alpha)
        text += f" In all, {count}."
    return text


def _numbers(result, confidence_level):
    d = result.to_dict(confidence_level)
    low, high = d["confidence_interval"]
    rows = [
        ("statistic", "statistic", d["statistic"]),
        ("p_value", "p-value", d["p_value"]),
        ("alpha", "alpha (level)", d["alpha"]),
        (result.EFFECT, f"{result.EFFECT_LABEL} (unbiased)", d[result.EFFECT]),
        (
            "standard_error",
            f"standard error of {result.EFFECT_LABEL}",
            d["standard_error"],
        ),
        ("ci_low", f"{confidence_level:.0%} interval, low", low),
        ("ci_high", f"{confidence_level:.0%} interval, high", high),
        *((key, name, d[key]) for key, name in result.SIZES.items()),
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
    keys = [(statistic, "#c44e52", "statistic")]
    if np.isfinite(threshold):
        keys.append((threshold, "#333", f"threshold at alpha = {result.alpha:g}"))
    # The lines are named in the caption, not in the plot, where their names
    # fell on the bars and on each other when the two lines are close.
    svg = bar_chart(
        [("resampled statistics", "#999", counts / null.size)],
        labels,
        edges=edges,
        lines=[(x, color, "") for x, color, _ in keys],
        title="Null distribution",
        width=560,
    )
    legend = "".join(
        f'<span class="key" style="border-color: {color}">{escape(name)} = '
        f"{x:.4g}</span>"
        for x, color, name in keys
    )
    return (
        f'<figure class="null">{svg}<figcaption>{legend}<br>The statistic on '
        f"each of the {null.size} resamples (the null distribution), the "
        "observed statistic and the rejection threshold.</figcaption></figure>"
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
    correction = report.correction
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
        "moved": "whether the column moved: its adjusted p-value is at most alpha",
        "depends": "whether the column depends on y: its adjusted p-value is "
        "at most alpha",
        "z": "its statistic standardized by its null distribution (mean and "
        "standard deviation of the resamples); ranks columns whose adjusted "
        "and pooled p-values tie",
        f"{effect}_low": f"low end of the 95% confidence interval of its {effect}",
        f"{effect}_high": "high end of that interval",
    }
    return {k: notes.get(k, "") for k in report.columns}


def _shown_rows(moved):
    """Which rows the column table shows: every moved column and the first
    ``_MORE_ROWS`` others, in the report's order."""
    return moved | (np.cumsum(~moved) <= _MORE_ROWS)


def _table_keys(report, flag):
    """The column table's columns: the label, whether it moved (``flag``),
    the adjusted p-value (the one that decides), then the rest but the
    unadjusted p-values (``_FILE_ONLY``: in the CSV, Parquet and JSON)."""
    first = [k for k in ("column", flag, "adjusted_p_value") if k in report]
    rest = [k for k in report.columns if k not in (*first, *_FILE_ONLY)]
    return first + rest


def _heading(key, report):
    """The header of ``key``: its name, the adjusted p-value's with its
    correction (e.g. "adjusted_p_value (step-down maxT)")."""
    if key != "adjusted_p_value":
        return key
    correction = report.correction
    return f"{key} ({_CORRECTION_NAMES.get(correction, correction)})"


def _column_table(report, alpha, effect):
    moved = report.flagged(alpha)
    flag = report.flag
    report = report.assign(**{flag: moved})  # at the report's alpha, or this one
    notes = _header_notes(report, effect)
    keys = _table_keys(report, flag)
    # Headers wrap after their underscores first (a narrow printed page).
    head = "".join(
        f'<th title="{escape(notes[k])}">'
        f"{escape(_heading(k, report)).replace('_', '_<wbr>')}</th>"
        for k in keys
    )
    low = f"{effect}_low"
    rows, flagged_low = [], False
    shown = _shown_rows(moved)
    records = report[shown][keys].to_dict(orient="records")
    for row, is_moved in zip(records, moved[shown]):
        cells = []
        for k in keys:
            text = escape(_number(row[k]))
            if k == low and is_moved and row[k] == 0.0:
                text += '<sup class="note">*</sup>'
                flagged_low = True
            cells.append(f"<td>{text}</td>")
        rows.append(f'<tr class="{"moved" if is_moved else ""}">{"".join(cells)}</tr>')
    table = f'<table class="columns"><tr>{head}</tr>{"".join(rows)}</table>'
    if not shown.all():
        left = int((~shown).sum())
        table += (
            f'<p class="left-out">{left} more columns, none moved, are left '
            f"out of the table (the {_MORE_ROWS} with the most evidence of "
            "those that did not move are shown).</p>"
        )
    legend = "".join(
        f"<dt>{escape(k)}</dt><dd>{escape(notes[k])}</dd>" for k in keys if notes[k]
    )
    kept = [k for k in _FILE_ONLY if k in report]
    if kept:
        legend += (
            f"<dt>{escape(', '.join(kept))}</dt><dd>the unadjusted p-values, "
            "not in this table: in the column report itself (its CSV or "
            "Parquet file, the JSON of --json)</dd>"
        )
    agreement = (
        '<p class="agreement">The test and the interval answer two questions. '
        "The test asks whether the column's distributions differ at all: its "
        "p-value comes from resampling and holds at any sample size. The "
        f"interval says how large the difference ({escape(effect)}) is, from a "
        "normal approximation of its estimate, and is cut at 0, below which "
        f"{escape(effect)} cannot go. So a column can move while its interval "
        "starts at 0"
        + (" (marked *)" if flagged_low else "")
        + ": the difference is detected, but its size is too small, for these "
        "sample sizes, to be bounded away from 0; an interval of exactly [0, 0] "
        "means the estimate itself is at most 0.</p>"
    )
    return f'{table}<dl class="keys">{legend}</dl>{agreement}'


def _shares(counts, rows):
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts / np.maximum(rows, 1)[:, None]


def _missing_chart(missing_share):
    """Bars of the share of rows missing in each sample, on their own scale
    (a change from 1 % to 5 % fills the chart)."""
    return bar_chart(
        [
            ("reference", REFERENCE, missing_share[:1]),
            ("current", CURRENT, missing_share[1:]),
        ],
        ["% of rows"],
        title="missing values",
        value_format="{:.1%}",
        width=168,
    )


def column_figure(name, summary):
    """A figure of one column: reference against current, the values'
    histogram (or categories) as shares of the values present, and beside
    it, where either sample has missing values, the share of rows missing
    in each."""
    counts, labels, rows = summary["counts"], list(summary["labels"]), summary["rows"]
    missing = summary["missing"]
    kind = "categories"
    if summary["kind"] == "numeric":
        # The tails are slots only where they hold values.
        keep = np.ones(len(labels), dtype=bool)
        keep[[0, -1]] = counts[:, [0, -1]].sum(axis=0) > 0
        counts, labels = counts[:, keep], [t for t, k in zip(labels, keep) if k]
        kind = "histogram"
    shares = _shares(counts, rows - missing)
    # Narrower beside the missing chart, so that two figures fit a row.
    svg = bar_chart(
        [("reference", REFERENCE, shares[0]), ("current", CURRENT, shares[1])],
        labels,
        title=name,
        width=290 if missing.any() else 380,
    )
    missing_share = _shares(missing[None, :], rows)[0]
    caption = f"{kind}, shares of the values present; "
    if missing.any():
        svg += _missing_chart(missing_share)
        caption += (
            f"missing values (right): {missing_share[0]:.1%} of the reference, "
            f"{missing_share[1]:.1%} of the current sample."
        )
    else:
        caption += "no missing values."
    return (
        f'<figure class="column" data-column="{escape(name)}">{svg}'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def _columns_section(result, summaries):
    """The column table (with a column report) and the figures of at most
    ``_DRAWN`` columns: those that moved, most evidence first, or without a
    report the first columns; the page says how many are not drawn."""
    report = result.column_report
    parts = []
    if report is not None:
        parts.append(
            "<h2>Columns</h2><p>Each column tested with its own kernel on the "
            "same resamples, most evidence first; adjusted p-values: "
            f"{escape(correction_text(report.correction))}. A column moved "
            "when its adjusted p-value is at most alpha "
            f'= {result.alpha:g}.</p><p class="count" id="column-count">'
            f"{escape(report.count_text(result.alpha))}.</p>"
        )
        parts.append(_column_table(report, result.alpha, result.EFFECT))
        shown = moved_columns(result)
        heading = "Distributions of the columns that moved"
        rest = (
            "more columns that moved are not drawn (the table lists them); "
            "the {} with the most evidence are"
        )
    elif summaries is not None:
        shown = list(summaries.columns_)
        heading = "Distributions of the columns"
        parts.append(
            "<p>No per-column tests (run the test with explain_columns, or "
            "<code>--explain</code>, for them: then the columns that moved are "
            f"drawn, most evidence first): the first {_DRAWN} columns are drawn.</p>"
        )
        rest = "more columns are not drawn; the first {} are"
    else:
        return ""
    if summaries is None or not shown:
        return "".join(parts)
    known = set(summaries.columns_)
    drawn = [name for name in shown if name in known][:_DRAWN]
    figures = [column_figure(name, summaries.summary(name)) for name in drawn]
    parts.append(f"<h2>{heading}</h2>{''.join(figures)}")
    left = sum(name in known for name in shown) - len(drawn)
    if left:
        parts.append(
            f'<p class="not-drawn" id="not-drawn">{left} {rest.format(len(drawn))}.</p>'
        )
    missing = [name for name in shown if name not in known]
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
    title = result.TITLE if title is None else title
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

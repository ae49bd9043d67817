"""The HTML report (skmmd/_inference/_report.py): parsed and checked (the
verdict, the result's numbers, one figure per moved column, nothing external,
no script), the correction it names and the rows it leaves out, each family's
hypothesis, its errors, and, where a Chromium is installed, the page rendered
in a headless browser."""

import importlib.util
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from skmmd import MMDTest, MMDTestResult, mmd_test
from skmmd.inspection import ColumnSummaries
from tests.helpers.pages import self_contained
from tests.helpers.reports import (
    MOVED,
    column_report,
    moved_columns,
    report_of,
    result_of,
)

pd = pytest.importorskip("pandas", reason="the report's tables use pandas")


def _table_rows(html):
    table = re.search(r'<table class="columns">(.*?)</table>', html).group(1)
    return re.findall(r"<tr[^>]*>(.*?)</tr>", table)[1:]  # after the header


def test_html_report_of_1000_columns_counts_and_leaves_rows_out():
    report = column_report().sort_values(
        ["adjusted_p_value", "pooled_p_value"], kind="stable"
    )
    report.attrs["correction"] = "fwer"
    html = result_of(report).to_html()
    rows = _table_rows(html)
    assert len(rows) == 3 + 20  # the moved columns and 20 more
    assert html.count('<tr class="moved">') == 3
    assert "977 more columns, none moved, are left out of the table" in html
    count = "3 of 1000 columns moved at alpha = 0.05 (family-wise error controlled "
    assert f"In all, {count}by step-down maxT)." in html  # the verdict
    assert f"Columns that moved: {', '.join(MOVED)}." in html
    assert "min-p" not in html
    # The unadjusted p-values are in the files only: said under the table.
    assert "<dt>p_value, pooled_p_value</dt><dd>the unadjusted p-values" in html
    assert re.search(r"<dt>adjusted_p_value</dt><dd>[^<]*step-down maxT", html)


@pytest.mark.parametrize(
    "correction, words",
    [
        ("fdr", "false discovery rate controlled by Benjamini-Hochberg"),
        ("fdr_by", "false discovery rate controlled by Benjamini-Yekutieli"),
        ("none", "no correction: each column&#x27;s own permutation p-value"),
    ],
)
def test_html_report_says_which_correction(correction, words):
    report = column_report(correction, n=30)
    html = result_of(report).to_html()
    assert f"3 of 30 columns moved at alpha = 0.05 ({words})." in html
    assert len(_table_rows(html)) == 3 + 20  # of 3 moved and 27 others
    assert "7 more columns, none moved, are left out of the table" in html
    notes = dict(re.findall(r"<dt>(\w+)</dt><dd>([^<]*)</dd>", html))
    expected = {"fdr": "Benjamini-Hochberg", "fdr_by": "Benjamini-Yekutieli",
                "none": "not adjusted"}[correction]  # fmt: skip
    assert expected in notes["adjusted_p_value"]
    assert "step-down maxT" not in notes["adjusted_p_value"]


def test_html_report_of_many_moved_columns_names_the_first_20():
    report = column_report(n=60)
    report["adjusted_p_value"] = np.linspace(0.0001, 0.04, 60)  # all moved
    report["moved"] = True
    html = result_of(report).to_html()
    verdict = re.search(r'id="verdict">(.*?)</p>', html).group(1)
    assert "and 40 more (see the table)." in verdict
    assert "60 of 60 columns moved" in verdict
    assert len(_table_rows(html)) == 60  # every moved column is in the table


def test_report_says_what_the_result_says(drifted):
    X, Y = drifted
    result = mmd_test(X, Y, explain_columns=True, n_resamples=199, random_state=0)
    page = self_contained(result.to_html(X, Y))
    assert result.reject
    moved = [
        c
        for c, p in zip(
            result.column_report["column"], result.column_report["adjusted_p_value"]
        )
        if p <= result.alpha
    ]
    assert moved[0] == "amount"
    verdict = page.text["verdict"]
    assert verdict.startswith("The samples differ: the test rejects H0")
    assert f"p-value {result.pvalue:.3g}" in verdict
    assert f"Columns that moved: {', '.join(moved)}." in verdict
    low, high = result.confidence_interval()
    assert page.values["statistic"] == result.statistic
    assert page.values["p_value"] == result.pvalue
    assert page.values["mmd2"] == result.mmd2
    assert page.values["standard_error"] == result.standard_error
    assert (page.values["ci_low"], page.values["ci_high"]) == (low, high)
    assert page.values["n_samples_x"] == page.values["n_samples_y"] == 400
    assert page.column_figures() == moved  # one per moved column, in order
    assert sum(f.get("class") == "null" for f in page.figures) == 1


def test_report_of_no_difference_draws_every_column_without_explain(drifted):
    X, _ = drifted
    result = mmd_test(X[:200], X[200:], n_resamples=99, random_state=0)
    html = result.to_html(
        X[:200], X[200:], settings={"seed": 0, "files": "<a> & b"}, title="No drift"
    )
    page = self_contained(html)
    assert not result.reject
    assert page.text["verdict"].startswith("No evidence that the samples differ")
    assert page.column_figures() == ["amount", "age", "city"]
    assert "<td>&lt;a&gt; &amp; b</td>" in html  # settings escaped
    assert "<title>No drift</title>" in html


def test_report_figures_show_the_columns_distributions(drifted):
    X, Y = drifted
    summaries = ColumnSummaries().update(X, Y)
    amount = summaries.summary("amount")
    assert amount["kind"] == "numeric"
    assert (
        amount["missing"][0] == 0 and amount["missing"][1] == Y["amount"].isna().sum()
    )
    assert (amount["counts"].sum(axis=1) + amount["missing"] == 400).all()
    # the current sample's mass sits to the right of the reference's
    centres = np.r_[
        amount["edges"][0],
        amount["edges"][:-1] + np.diff(amount["edges"]) / 2,
        amount["edges"][-1],
    ]
    means = amount["counts"] @ centres / amount["counts"].sum(axis=1)
    assert means[1] - means[0] == pytest.approx(1.0, abs=0.2)
    city = summaries.summary("city")
    assert city["kind"] == "categorical" and sorted(city["labels"]) == [
        "Lima",
        "Oslo",
        "Pune",
    ]
    for j, label in enumerate(city["labels"]):
        assert city["counts"][:, j].tolist() == [
            (X.city == label).sum(),
            (Y.city == label).sum(),
        ]
    result = MMDTest(n_resamples=19, random_state=0).fit(X, Y).result_
    html = result.to_html(summaries=summaries)
    svg = re.search(r'<figure class="column" data-column="amount">(.*?)</figure>', html)
    assert "missing values (right): 0.0% of the reference, " in svg.group(1)
    assert f"{Y['amount'].isna().mean():.1%} of the current sample" in svg.group(1)
    assert svg.group(1).count("<rect") > 2 * 10  # two series of bars


def test_save_report_errors(tmp_path, drifted):
    X, Y = drifted
    result = mmd_test(X, Y, n_resamples=19, random_state=0)
    missing = tmp_path / "nowhere" / "r.html"
    with pytest.raises(FileNotFoundError, match=re.escape(f"{missing}: cannot write")):
        result.save_report(missing)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        result.save_report(tmp_path)
    with pytest.raises(ValueError, match="Pass both X and Y, or summaries"):
        result.to_html(X)
    path = result.save_report(tmp_path / "r.html", X, Y)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# The browser check: Chromium from the system's packages, never downloaded.
_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "report_screenshot.py"

_CHROMIUM = next(
    (
        shutil.which(name)
        for name in ("chromium", "chromium-browser", "google-chrome", "chrome")
        if shutil.which(name)
    ),
    None,
)


@pytest.mark.skipif(
    _CHROMIUM is None,
    reason="no Chromium executable on PATH (apt-get install chromium); the "
    "report is checked in a real browser only where one is installed",
)
def test_report_renders_in_a_headless_browser(tmp_path):
    pytest.importorskip("palmerpenguins", reason="the page shows the penguins")
    # The documented script that makes the docs' screenshot, run as it is.
    spec = importlib.util.spec_from_file_location("report_screenshot", _SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    report = script.penguin_report(tmp_path / "penguins.html")
    shot = script.screenshot(report, tmp_path / "penguins.png", browser=_CHROMIUM)
    assert shot.console == [], shot.console
    assert shot.requests <= shot.baseline_requests, shot.requests  # the browser's own
    image = shot.image
    assert image.std() > 0.05 and shot.ink_share > 0.03
    # every figure in view (the page ends above the window's bottom) and drawn
    assert (image[-40:] > 0.99).all()
    assert shot.colour_pixels["reference"] > 500 and shot.colour_pixels["current"] > 500
    # the checks see what they look for: a script's console message and a
    # request to another host
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<html><body><img src="https://example.com/x.png"><script>'
        'console.error("boom")</script></body></html>'
    )
    shot = script.screenshot(bad, tmp_path / "bad.png", browser=_CHROMIUM)
    assert any("boom" in line for line in shot.console)
    assert "example.com" in shot.requests - shot.baseline_requests


def test_report_of_a_joint_difference_and_an_undefined_interval():
    """Rejected with no column moved on its own; an infinite standard error
    (tiny samples) is JSON's null in the page's data and "inf" in its text."""

    report = report_of(
        pd.DataFrame(
            {
                "column": ["a", "b"],
                "adjusted_p_value": [0.2, 0.6],
                "p_value": [0.1, 0.3],
            }
        )
    )
    result = MMDTestResult(
        statistic=0.5,
        pvalue=0.01,
        null_distribution=np.linspace(-0.1, 0.1, 99),
        alpha=0.05,
        mmd2=0.5,
        standard_error=float("inf"),
        n_samples_x=3,
        n_samples_y=3,
        column_report=report,
    )
    html = result.to_html()
    page = self_contained(html)
    assert "No column moved at that level on its own" in page.text["verdict"]
    assert page.values["standard_error"] is None and page.values["ci_high"] is None
    assert '"standard_error" data-value="null">inf</td>' in html
    assert page.column_figures() == []


def test_report_explains_its_column_table_and_the_interval_against_the_test():
    """Each header of the column table is explained on the page; a column
    that moved with an interval starting at 0 is marked, and the page says
    why the test and the interval can disagree."""

    report = report_of(pd.DataFrame(
        {"column": ["a", "b"], "statistic": [0.01, 0.0], "p_value": [0.001, 0.8],
         "adjusted_p_value": [0.002, 0.9], "z": [4.0, -0.5],
         "mmd2_low": [0.0, 0.0], "mmd2_high": [0.02, 0.0]}
    ))  # fmt: skip
    html = result_of(report).to_html()
    page = self_contained(html)
    headers = [a.get("title", "") for tag, a in page.elements if tag == "th"]
    explained = [t for t in headers if t]
    assert len(explained) == 7  # column, moved, adjusted, statistic, ..., mmd2_high
    for key in ("moved", "adjusted_p_value", "z", "mmd2_low", "mmd2_high"):
        assert f"<dt>{key}</dt><dd>" in html
    assert "<dt>p_value</dt><dd>the unadjusted p-values, not in this table" in html
    assert "standardized by its null distribution" in html
    assert '0<sup class="note">*</sup>' in html  # "a" moved, its interval at 0
    assert html.count('<sup class="note">') == 1  # "b" did not move
    assert "a column can move while its interval starts at 0 (marked *)" in html
    assert "exactly [0, 0]" in html


def test_each_family_report_speaks_of_its_own_hypothesis():
    from skmmd import ConditionalHSICTest, hsic_test

    rng = np.random.default_rng(5)
    x = rng.normal(size=(400, 1))
    dependent = hsic_test(x, x**2 + rng.normal(size=(400, 1)), random_state=0)
    html = dependent.to_html()
    page = self_contained(html)
    assert "<title>skmmd independence test report</title>" in html
    assert page.text["verdict"].startswith(
        "The two variables are dependent: the test rejects H0 (x and y are independent)"
    )
    z = rng.normal(size=(400, 1))
    result = (
        ConditionalHSICTest(n_resamples=99, random_state=0)
        .fit(z + rng.normal(size=(400, 1)), z + rng.normal(size=(400, 1)), Z=z)
        .result_
    )
    html = result.to_html()
    assert "<title>skmmd conditional independence test report</title>" in html
    assert (
        self_contained(html)
        .text["verdict"]
        .startswith("No evidence that the two variables are dependent given z")
    )
    assert "two-sample" not in html and "one distribution" not in html
    assert self_contained(html).values["conditional_hsic"] == result.conditional_hsic


# Pictures, print and the column table (issue 65, item 6) ----------------------


def _figure(html, css_class, column=None):
    """The inner HTML of the report's figure of ``css_class`` (a column's:
    its ``column``)."""
    attrs = f'class="{css_class}"' + (f' data-column="{column}"' if column else "")
    return re.search(rf"<figure {attrs}>(.*?)</figure>", html, re.DOTALL).group(1)


def _attr(attrs, name):
    return float(re.search(rf'(?<![\w-]){name}="([^"]+)"', attrs).group(1))


def _svg_texts(svg):
    """``(x0, y0, x1, y1, text)`` of each written text of an inline SVG, 6
    pixels a character of its 10-pixel font (as ``_svg`` measures them)."""
    from html import unescape

    boxes = []
    for attrs, text in re.findall(r"<text ([^>]*)>([^<]*)</text>", svg):
        text = unescape(text)
        if not text.strip():
            continue
        x, y, width = _attr(attrs, "x"), _attr(attrs, "y"), 6.0 * len(text)
        if 'text-anchor="middle"' in attrs:
            x -= width / 2
        elif 'text-anchor="end"' in attrs:
            x -= width
        boxes.append((x, y - 10.0, x + width, y, text))
    return boxes


def _svg_marks(svg):
    """``(x0, y0, x1, y1)`` of the bars drawn (height > 0) and of the
    vertical lines of an inline SVG."""
    marks = []
    for attrs in re.findall(r"<rect ([^>]*)>", svg):
        x, y = _attr(attrs, "x"), _attr(attrs, "y")
        width, height = _attr(attrs, "width"), _attr(attrs, "height")
        if height > 0 and 'fill="#999"' in attrs:
            marks.append((x, y, x + width, y + height))
    for attrs in re.findall(r"<line ([^>]*)>", svg):
        x1, x2 = _attr(attrs, "x1"), _attr(attrs, "x2")
        if x1 == x2:
            marks.append((x1 - 1, _attr(attrs, "y1"), x1 + 1, _attr(attrs, "y2")))
    return marks


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("statistic", [0.0091, 0.02])
def test_report_null_figure_names_its_lines_beside_it_not_over_the_bars(statistic):
    """The statistic's and the threshold's names were written over the bars,
    and over each other when the two lines are close; they are in the
    caption, with their values, and no text of the figure covers another,
    a bar or a line."""
    result = result_of(column_report(n=30))
    result.null_distribution = np.linspace(-0.01, 0.01, 999)
    result.statistic = statistic
    figure = _figure(result.to_html(), "null")
    svg = figure[: figure.index("</svg>")]
    texts, marks = _svg_texts(svg), _svg_marks(svg)
    assert len(marks) > 2
    for i, a in enumerate(texts):
        assert not any(_overlap(a, b) for b in texts[i + 1 :]), a
        assert not any(_overlap(a, m) for m in marks), a
    caption = re.search(r"<figcaption>(.*?)</figcaption>", figure).group(1)
    assert f"statistic = {statistic:.4g}</span>" in caption
    assert re.search(r"threshold at alpha = 0.05 = 0\.00\d+</span>", caption)


def test_report_draws_the_share_missing_beside_the_values():
    """A column whose missing rate went from 1 % to 5 %, its values alike:
    its histograms (shares of the values present) look alike, and a chart
    beside them draws each sample's share of rows missing."""
    rng = np.random.default_rng(0)
    values = rng.normal(size=(2, 2000))
    values[0, :20] = values[1, :100] = np.nan
    X, Y = (pd.DataFrame({"v": v, "w": rng.normal(size=2000)}) for v in values)
    result = MMDTest(n_resamples=19, random_state=0).fit(X, Y).result_
    html = result.to_html(X, Y)
    figure = _figure(html, "column", "v")
    missing = figure[figure.index('aria-label="missing values"') :]
    shares = dict(re.findall(r"<title>(\w+) % of rows: ([\d.]+)</title>", missing))
    assert {k: float(v) for k, v in shares.items()} == {"reference": 0.01,
                                                        "current": 0.05}  # fmt: skip
    heights = [_attr(a, "height") for a in re.findall(r"<rect ([^>]*)>", missing)]
    assert max(heights) == pytest.approx(5 * sorted(heights)[-2])  # 5 % vs 1 %
    histogram = figure[: figure.index('aria-label="missing values"')]
    for sample in ("reference", "current"):
        bars = re.findall(rf"<title>{sample} [^:]*: ([\d.e-]+)</title>", histogram)
        assert sum(map(float, bars)) == pytest.approx(1.0, abs=1e-3)  # of present
    assert "missing values (right): 1.0% of the reference, 5.0% of the current" in (
        figure
    )
    assert 'aria-label="missing values"' not in _figure(html, "column", "w")
    assert "no missing values." in _figure(html, "column", "w")


def test_report_prints_on_a4_with_its_whole_table():
    """Print rules: an A4 page, and a column table as wide as the page and
    no wider (fixed layout, cells that wrap), whatever its columns."""
    html = result_of(column_report(n=30)).to_html()
    style = re.search(r"<style>(.*?)</style>", html, re.DOTALL).group(1)
    assert re.search(r"@page\s*{\s*size:\s*A4", style)
    assert "@media print" in style
    table = re.search(r"table\.columns\s*{([^}]*)}", style).group(1)
    assert "table-layout: fixed" in table and "width: 100%" in table
    cells = re.search(r"td, th\s*{([^}]*)}", style).group(1)
    assert "overflow-wrap: anywhere" in cells


def test_report_draws_at_most_20_columns_and_says_how_many_not():
    """Without a column report every column was drawn (501 figures at 500
    columns): the first 20 are, and the page counts the rest; with one, the
    20 moved columns with the most evidence."""
    rng = np.random.default_rng(1)
    names = [f"c{i:04d}" for i in range(60)]
    X, Y = (pd.DataFrame(rng.normal(size=(50, 60)), columns=names) for _ in "XY")
    result = mmd_test(X, Y, n_resamples=9, random_state=0)
    page = self_contained(result.to_html(X, Y))
    assert page.column_figures() == names[:20]
    assert page.text["not-drawn"] == "40 more columns are not drawn; the first 20 are."
    report = column_report(n=60)
    report["adjusted_p_value"] = np.linspace(0.0001, 0.04, 60)  # all moved
    report["moved"] = True
    summaries = ColumnSummaries().update(X, Y)
    page = self_contained(result_of(report).to_html(summaries=summaries))
    assert page.column_figures() == list(report["column"][:20])
    assert page.text["not-drawn"].startswith(
        "40 more columns that moved are not drawn (the table lists them); "
        "the 20 with the most evidence are."
    )


def _headers(html):
    """The column table's headers, as read (``<wbr>``: where one may wrap)."""
    table = re.search(r'<table class="columns">(.*?)</table>', html).group(1)
    return re.findall(r"<th[^>]*>([^<]*)</th>", table.replace("<wbr>", ""))


@pytest.mark.parametrize(
    "correction, name", [("fwer", "step-down maxT"), ("fdr", "Benjamini-Hochberg")]
)
def test_report_table_has_moved_and_one_p_value_named_for_its_correction(
    correction, name
):
    html = result_of(column_report(correction, n=30)).to_html()
    assert _headers(html) == ["column", "moved", f"adjusted_p_value ({name})",
                              "statistic", "z", "mmd2_low", "mmd2_high"]  # fmt: skip
    moved = [row for row in _table_rows(html) if "<td>True</td>" in row]
    assert len(moved) == html.count('<tr class="moved">') == 3


def test_report_reads_the_report_moved_column():
    """A report with its own ``moved`` (at its ``attrs["alpha"]``): the
    count, the verdict, the table and the figures follow it."""
    report = column_report(n=30)
    first = moved_columns(30)[0]
    report["moved"] = report["column"] == first  # adjusted: three at 0.001
    report.attrs.update(alpha=0.05, flag="moved")
    html = result_of(report).to_html()
    verdict = self_contained(html).text["verdict"]
    assert f"Columns that moved: {first}." in verdict
    assert "In all, 1 of 30 columns moved" in verdict
    assert html.count('<tr class="moved">') == 1


def test_report_headline_is_the_decision_and_counts_the_table(drifted):
    """The verdict states the result's decision (``reject``, ``pvalue``: the
    table's test joined with the columns'), and counts the moved columns
    the table marks."""
    X, Y = drifted
    result = mmd_test(X, Y, explain_columns=True, n_resamples=199, random_state=0)
    html = result.to_html(X, Y)
    verdict = self_contained(html).text["verdict"]
    assert result.reject and f"with p-value {result.pvalue:.3g}." in verdict
    moved = int(result.column_report["moved"].sum())
    assert f"In all, {moved} of 3 columns moved" in verdict
    assert html.count('<tr class="moved">') == moved

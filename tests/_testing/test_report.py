"""The HTML report (skmmd/_testing/_report.py): parsed and checked (the
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
from tests.helpers.reports import MOVED, column_report, result_of

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
    assert "<dt>pooled_p_value</dt><dd>its statistic, on the scale of a fit" in html
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
    html = result_of(report).to_html()
    verdict = re.search(r'id="verdict">(.*?)</p>', html).group(1)
    assert "and 40 more (see the table)." in verdict
    assert "60 of 60 columns moved" in verdict
    assert len(_table_rows(html)) == 60  # every moved column is in the table


def test_report_says_what_the_result_says(drifted):
    X, Y = drifted
    result = mmd_test(X, Y, explain=True, n_resamples=199, random_state=0)
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
    assert "missing values: 0.0% of the reference, " in svg.group(1)
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

    report = pd.DataFrame(
        {"column": ["a", "b"], "adjusted_p_value": [0.2, 0.6], "p_value": [0.1, 0.3]}
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

    report = pd.DataFrame(
        {"column": ["a", "b"], "statistic": [0.01, 0.0], "p_value": [0.001, 0.8],
         "adjusted_p_value": [0.002, 0.9], "z": [4.0, -0.5],
         "mmd2_low": [0.0, 0.0], "mmd2_high": [0.02, 0.0]}
    )  # fmt: skip
    html = result_of(report).to_html()
    page = self_contained(html)
    headers = [a.get("title", "") for tag, a in page.elements if tag == "th"]
    explained = [t for t in headers if t]
    assert len(explained) >= 7  # column, statistic, ..., mmd2_high
    for key in ("p_value", "adjusted_p_value", "z", "mmd2_low", "mmd2_high"):
        assert f"<dt>{key}</dt><dd>" in html
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

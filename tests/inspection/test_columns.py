"""The per-column report of a wide table, drawn and written: the display
draws the top ``max_columns`` bars in the order of ``explain`` (adjusted
p-value, then pooled p-value, then z) and counts all the columns in its
title; the HTML report names the correction, counts the moved columns out of
all, and leaves out the rows of columns far from moving."""

import re

import numpy as np
import pytest

from skmmd import MMDTest, MMDTestResult

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from skmmd.inspection import ColumnReportDisplay  # noqa: E402

N_COLUMNS, MOVED = 1000, ["c0777", "c0003", "c0512"]


def _moved(n):
    """The three moved columns of ``_report(n=n)``, most evidence first."""
    return [f"c{n * k // 1000:04d}" for k in (777, 3, 512)]


def _report(correction="fwer", n=N_COLUMNS):
    """A report of ``n`` columns as ``explain`` writes it, three of them
    moved (those of ``_moved(n)``), given in a shuffled order."""
    rng = np.random.default_rng(0)
    names = [f"c{i:04d}" for i in range(n)]
    fitted = rng.uniform(0.01, 1.0, size=n)
    adjusted = np.minimum(1.0, fitted * 20 + 0.06)
    z = rng.normal(size=n)
    for rank, name in enumerate(_moved(n)):
        i = names.index(name)
        # One adjusted p-value for all three, told apart by the fitted
        # p-value; their z runs the other way, so a rank by z would differ.
        fitted[i], adjusted[i], z[i] = 1e-30 * 10**rank, 0.001, 10.0 + rank
    report = pd.DataFrame(
        {
            "column": names,
            "statistic": rng.uniform(size=n),
            "p_value": np.maximum(fitted, 0.001),
            "pooled_p_value": fitted,
            "adjusted_p_value": adjusted,
            "z": z,
            "mmd2_low": np.zeros(n),
            "mmd2_high": rng.uniform(size=n),
        }
    )
    report = report.sample(frac=1.0, random_state=1).reset_index(drop=True)
    report.attrs["correction"] = correction
    return report


def _result(report):
    return MMDTestResult(
        statistic=0.01,
        pvalue=0.001,
        null_distribution=np.linspace(-0.01, 0.005, 99),
        alpha=0.05,
        mmd2=0.01,
        standard_error=0.004,
        n_samples_x=400,
        n_samples_y=400,
        column_report=report,
    )


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(display):
    return [t.get_text() for t in display.ax_.get_yticklabels()]


def test_display_of_1000_columns_draws_the_top_20():
    report = _report()
    display = ColumnReportDisplay(report=report).plot()
    assert len(display.bars_) == 20 and len(display.z_labels_) == 20
    assert display.ax_.get_title() == "3 of 1000 columns moved (top 20 shown)"
    labels = _labels(display)
    # Ranked as explain ranks: adjusted, then pooled p-value (not z).
    assert labels[:3] == MOVED
    expected = report.sort_values(["adjusted_p_value", "pooled_p_value", "z"],
                                  ascending=[True, True, False])  # fmt: skip
    assert labels == list(expected["column"][:20])
    widths = [bar.get_width() for bar in display.bars_]
    assert np.allclose(widths, -np.log10(expected["adjusted_p_value"][:20]))
    assert "step-down maxT" in display.ax_.get_xlabel()
    # A figure for 20 bars, not for 1000.
    assert display.figure_.get_size_inches()[1] < 10


def test_display_names_the_correction_and_draws_all_on_request():
    report = _report("fdr", n=40)
    display = ColumnReportDisplay(report=report, max_columns=None).plot()
    assert len(display.bars_) == 40
    assert display.ax_.get_title() == "3 of 40 columns moved"  # nothing left out
    assert "Benjamini-Hochberg" in display.ax_.get_xlabel()
    display = ColumnReportDisplay(report=report, max_columns=5).plot()
    assert len(display.bars_) == 5
    assert display.ax_.get_title() == "3 of 40 columns moved (top 5 shown)"


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "20"])
def test_display_rejects_a_bad_max_columns(bad):
    with pytest.raises(ValueError, match="max_columns must be a positive integer"):
        ColumnReportDisplay(report=_report(n=30), max_columns=bad).plot()


def test_from_result_and_from_estimator_pass_max_columns():
    display = ColumnReportDisplay.from_result(_result(_report()), max_columns=7)
    assert len(display.bars_) == 7
    assert display.ax_.get_title() == "3 of 1000 columns moved (top 7 shown)"
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(200, 4)), rng.normal(size=(200, 4))
    Y[:, 2] += 1.0
    test = MMDTest(explain_columns=True, n_resamples=99, random_state=0).fit(X, Y)
    display = ColumnReportDisplay.from_estimator(test, max_columns=2)
    assert len(display.bars_) == 2
    assert display.ax_.get_title().endswith("of 4 columns moved (top 2 shown)")
    assert _labels(display)[0] == "2"


def _table_rows(html):
    table = re.search(r'<table class="columns">(.*?)</table>', html).group(1)
    return re.findall(r"<tr[^>]*>(.*?)</tr>", table)[1:]  # after the header


def test_html_report_of_1000_columns_counts_and_leaves_rows_out():
    report = _report().sort_values(
        ["adjusted_p_value", "pooled_p_value"], kind="stable"
    )
    report.attrs["correction"] = "fwer"
    html = _result(report).to_html()
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
    report = _report(correction, n=30)
    html = _result(report).to_html()
    assert f"3 of 30 columns moved at alpha = 0.05 ({words})." in html
    assert len(_table_rows(html)) == 3 + 20  # of 3 moved and 27 others
    assert "7 more columns, none moved, are left out of the table" in html
    notes = dict(re.findall(r"<dt>(\w+)</dt><dd>([^<]*)</dd>", html))
    expected = {"fdr": "Benjamini-Hochberg", "fdr_by": "Benjamini-Yekutieli",
                "none": "not adjusted"}[correction]  # fmt: skip
    assert expected in notes["adjusted_p_value"]
    assert "step-down maxT" not in notes["adjusted_p_value"]


def test_html_report_of_many_moved_columns_names_the_first_20():
    report = _report(n=60)
    report["adjusted_p_value"] = np.linspace(0.0001, 0.04, 60)  # all moved
    html = _result(report).to_html()
    verdict = re.search(r'id="verdict">(.*?)</p>', html).group(1)
    assert "and 40 more (see the table)." in verdict
    assert "60 of 60 columns moved" in verdict
    assert len(_table_rows(html)) == 60  # every moved column is in the table

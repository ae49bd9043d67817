"""The HTML report: parsed and checked (the verdict, the result's numbers, one
figure per moved column, nothing external, no script); the CLI's --report
from the test's own pass, and its errors; the column summaries behind it; and,
where a Chromium is installed, the page rendered in a headless browser."""

import importlib.util
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from skmmd import MMDTest, mmd_test
from skmmd.__main__ import EXIT_INPUT, EXIT_REJECT, main
from skmmd.inspection import ColumnSummaries

pd = pytest.importorskip("pandas", reason="the report's tables use pandas")


class Page(HTMLParser):
    """What a test reads of a page: every element with its attributes, the
    text of each element with an id, the numbers' cells, the figures."""

    def __init__(self, html):
        super().__init__()
        self.elements, self.text, self.values, self.figures = [], {}, {}, []
        self._open = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if "data-key" in attrs:
            self.values[attrs["data-key"]] = json.loads(attrs["data-value"])
        if tag == "figure":
            self.figures.append(attrs)
        self._open.append(attrs.get("id"))

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for element_id in self._open:
            if element_id:
                self.text[element_id] = self.text.get(element_id, "") + data

    def column_figures(self):
        return [f["data-column"] for f in self.figures if f.get("class") == "column"]


def _self_contained(html):
    """No script, no external reference, no element that loads anything."""
    page = Page(html)
    tags = {tag for tag, _ in page.elements}
    assert not tags & {"script", "img", "link", "iframe", "object", "embed"}
    assert not any("src" in attrs or "href" in attrs for _, attrs in page.elements)
    assert not re.search(r"https?:|url\(|@import", html, re.IGNORECASE)
    return page


@pytest.fixture(scope="module")
def drifted():
    """A table whose ``amount`` moved (and gained missing values)."""
    rng = np.random.default_rng(0)

    def table(n, shift, missing):
        amount = rng.normal(size=n) + shift
        amount[rng.random(n) < missing] = np.nan
        return pd.DataFrame(
            {
                "amount": amount,
                "age": rng.normal(40, 10, size=n),
                "city": rng.choice(["Oslo", "Lima", "Pune"], size=n),
            }
        )

    return table(400, 0.0, 0.0), table(400, 1.0, 0.2)


def test_report_says_what_the_result_says(drifted):
    X, Y = drifted
    result = mmd_test(X, Y, explain=True, n_resamples=199, random_state=0)
    page = _self_contained(result.to_html(X, Y))
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
    page = _self_contained(html)
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


def test_summaries_are_bounded_and_streamed():
    """Batches: bins fixed by the first, later values outside them in the
    tails; categories past the cap counted together; missing values counted."""
    summaries = ColumnSummaries(n_bins=10, max_categories=2)
    first = np.linspace(0, 1, 101).reshape(-1, 1)
    summaries.update(first, first)
    summaries.update(np.array([[5.0], [-3.0], [np.nan]]), np.empty((0, 1)))
    column = summaries.summary("0")
    assert column["edges"].size == 11
    assert column["edges"][0] == 0 and column["edges"][-1] == 1  # the range
    assert column["counts"][0, 0] == 1 and column["counts"][0, -1] == 1  # tails
    assert column["counts"].sum(axis=1).tolist() == [103, 101]
    assert column["missing"].tolist() == [1, 0] and summaries.n_rows_.tolist() == [
        104,
        101,
    ]
    cats = ColumnSummaries(max_categories=2)
    cats.update(
        pd.DataFrame({"c": ["a", "b", None]}), pd.DataFrame({"c": ["c", "d", "a"]})
    )
    summary = cats.summary("c")
    assert dict(zip(summary["labels"], summary["counts"].T.tolist())) == {
        "a": [1, 1],
        "b": [1, 0],
        "(other)": [0, 2],
    }
    assert summary["missing"].tolist() == [1, 0]
    with pytest.raises(KeyError, match="no summary of column 'z'"):
        cats.summary("z")
    with pytest.raises(ValueError, match=r"'n_bins' parameter .* range \[1, inf\)"):
        ColumnSummaries(n_bins=0)
    # a far value: the bins span the quantiles, the value is in the overflow
    many = np.linspace(0, 1, 2000).reshape(-1, 1)
    x = np.r_[many, [[1e6]]]
    far = ColumnSummaries().update(x, many).summary("0")
    high = np.quantile(np.r_[x, many], 0.999)
    assert far["edges"][-1] == high < 1.01
    assert far["counts"][:, -1].tolist() == [(x > high).sum(), (many > high).sum()]


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


@pytest.fixture
def table_files(tmp_path, drifted):
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow")
    X, Y = drifted
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    X.to_parquet(a, index=False)
    Y.to_parquet(b, index=False)
    return str(a), str(b)


def test_cli_report(table_files, tmp_path, capsys):
    a, b = table_files
    path = tmp_path / "report.html"
    argv = ["test", a, b, "--explain", "--n-resamples", "99", "--report", str(path)]
    assert main(argv) == EXIT_REJECT
    assert f"report   = {path}" in capsys.readouterr().out
    assert main([*argv[:-2], "--json"]) == EXIT_REJECT
    out = json.loads(capsys.readouterr().out)
    page = _self_contained(path.read_text(encoding="utf-8"))
    assert page.values["p_value"] == out["p_value"]
    assert page.values["statistic"] == out["statistic"]
    moved = [c["column"] for c in out["columns"] if c["adjusted_p_value"] <= 0.05]
    assert page.column_figures() == moved and "amount" in moved
    html = path.read_text(encoding="utf-8")
    assert "--explain --n-resamples 99 --report" in html  # the settings


def test_cli_report_errors(table_files, tmp_path, capsys, monkeypatch):
    a, b = table_files
    import skmmd.cli._two_sample as cli

    def no_test(args):
        raise AssertionError("the test ran")

    monkeypatch.setattr(cli, "_make_test", no_test)  # checked before the test
    path = tmp_path / "missing" / "report.html"
    assert main(["test", a, b, "--report", str(path)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert f"error: {path}: cannot write the report there, the folder" in err
    path = tmp_path / "report.html"
    status = main(["test", a, b, "--columns", "amount,height", "--report", str(path)])
    assert status == EXIT_INPUT and not path.exists()
    assert "--columns names columns ['height']" in capsys.readouterr().err


def test_cli_report_summaries_come_from_the_tests_batches(
    tmp_path, capsys, monkeypatch
):
    """Files read in batches: the summaries are updated with the batches the
    test reads (each file read once), every row counted, held-out ones too."""
    pa = pytest.importorskip("pyarrow", reason="Parquet needs pyarrow")
    import pyarrow.parquet as pq

    import skmmd.cli._two_sample as cli
    from skmmd._utils import _files

    rng = np.random.default_rng(1)
    paths = []
    for name, shift in (("x", 0.0), ("y", 0.5)):
        data = rng.normal(size=(6000, 2)) + [shift, 0.0]
        path = tmp_path / f"{name}.parquet"
        pq.write_table(
            pa.table({"u": data[:, 0], "v": data[:, 1]}), path, row_group_size=1000
        )
        paths.append(str(path))
    reads, updates = [], []
    iter_batches = _files.iter_batches
    monkeypatch.setattr(
        _files,
        "iter_batches",
        lambda *a, **k: reads.append(a[0]) or iter_batches(*a, **k),
    )

    class Spy(ColumnSummaries):
        def update(self, X, Y, names=None):
            updates.append((len(X), len(Y), names))
            return super().update(X, Y, names)

    monkeypatch.setattr(cli, "ColumnSummaries", Spy)
    report = tmp_path / "r.html"
    argv = [*paths, "--batch-rows", "2000", "--explain", "--n-resamples", "99"]
    assert main(["test", *argv, "--report", str(report)]) == EXIT_REJECT
    assert sorted(reads) == sorted(paths)  # each file read once
    assert updates == [(2000, 2000, ["u", "v"])] * 3
    page = _self_contained(report.read_text(encoding="utf-8"))
    assert page.column_figures() == ["u"]
    assert "n_held_out</th><td>2000" in report.read_text(encoding="utf-8")
    capsys.readouterr()


# The browser check: Chromium from the system's packages, never downloaded.
_SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "report_screenshot.py"
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
    from skmmd import MMDTestResult

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
    page = _self_contained(html)
    assert "No column moved at that level on its own" in page.text["verdict"]
    assert page.values["standard_error"] is None and page.values["ci_high"] is None
    assert '"standard_error" data-value="null">inf</td>' in html
    assert page.column_figures() == []


def test_histogram_counts_are_numpys():
    """The bins' counts are numpy's histogram over the same edges, the tails
    count what lies beyond them (infinities too), NaN is missing."""
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=5000), rng.normal(size=4000) * 2
    x[:3] = [np.inf, -np.inf, np.nan]
    summary = ColumnSummaries().update(x[:, None], y[:, None]).summary("0")
    edges = summary["edges"]
    finite = np.r_[x, y][np.isfinite(np.r_[x, y])]
    assert (edges[0], edges[-1]) == (finite.min(), finite.max())  # the range
    for i, values in enumerate((x, y)):
        values = values[~np.isnan(values)]
        inner = np.histogram(values[np.isfinite(values)], bins=edges)[0]
        assert np.array_equal(summary["counts"][i, 1:-1], inner)
        assert summary["counts"][i, 0] == np.sum(values < edges[0])
        assert summary["counts"][i, -1] == np.sum(values > edges[-1])
    assert summary["missing"].tolist() == [1, 0]


def test_report_explains_its_column_table_and_the_interval_against_the_test():
    """Each header of the column table is explained on the page; a column
    that moved with an interval starting at 0 is marked, and the page says
    why the test and the interval can disagree."""
    from skmmd import MMDTestResult

    report = pd.DataFrame(
        {"column": ["a", "b"], "statistic": [0.01, 0.0], "p_value": [0.001, 0.8],
         "adjusted_p_value": [0.002, 0.9], "z": [4.0, -0.5],
         "mmd2_low": [0.0, 0.0], "mmd2_high": [0.02, 0.0]}
    )  # fmt: skip
    result = MMDTestResult(
        statistic=0.01,
        pvalue=0.001,
        null_distribution=np.linspace(-0.01, 0.005, 99),
        alpha=0.05,
        mmd2=0.01,
        standard_error=0.006,
        n_samples_x=300,
        n_samples_y=300,
        column_report=report,
    )
    html = result.to_html()
    page = _self_contained(html)
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


def test_category_bars_come_in_one_order_whatever_the_rows_order():
    cities = np.array(["Pune", "Lima", "Oslo", "Kyiv"] * 50, dtype=object)
    X = pd.DataFrame({"city": cities})
    Y = pd.DataFrame({"city": np.r_[cities[:100], ["Zug"] * 100].astype(object)})
    orders = []
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(200)
        summary = ColumnSummaries().update(X.iloc[order], Y.iloc[order])
        orders.append(summary.summary("city")["labels"])
    assert orders[0] == orders[1] == orders[2]
    # Most frequent (pooled) first, ties by name.
    assert orders[0] == ["Zug", "Kyiv", "Lima", "Oslo", "Pune"]


def test_each_family_report_speaks_of_its_own_hypothesis():
    from skmmd import ConditionalHSICTest, hsic_test

    rng = np.random.default_rng(5)
    x = rng.normal(size=(400, 1))
    dependent = hsic_test(x, x**2 + rng.normal(size=(400, 1)), random_state=0)
    page = _self_contained(dependent.to_html())
    assert "<title>skmmd independence test report</title>" in dependent.to_html()
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
        _self_contained(html)
        .text["verdict"]
        .startswith("No evidence that the two variables are dependent given z")
    )
    assert "two-sample" not in html and "one distribution" not in html
    assert _self_contained(html).values["conditional_hsic"] == result.conditional_hsic

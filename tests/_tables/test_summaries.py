"""The column summaries behind the report (skmmd/_tables/_summaries.py):
bounded and streamed, numpy's histogram counts, one order of categories."""

import numpy as np
import pytest

from skmmd.inspection import ColumnSummaries

pd = pytest.importorskip("pandas", reason="the report's tables use pandas")


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

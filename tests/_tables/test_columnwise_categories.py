"""ColumnwiseCategories: each categorical column's delta kernel, all columns in
one vectorized pass, against TabularSampler's one-hot of that column alone."""

import numpy as np
import pytest

from skmmd import TabularSampler
from skmmd._tables._columnwise_categories import ColumnwiseCategories

pd = pytest.importorskip("pandas")


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    city = np.array(["Oslo", "Lima", "Pune", None], dtype=object)[rng.integers(0, 4, n)]
    return pd.DataFrame(
        {
            "city": city,
            "member": rng.random(n) < 0.3,
            "plan": pd.Categorical(rng.choice(["a", "b", "c"], n)),
        }
    )


def test_each_columns_kernel_is_tabular_samplers_of_that_column():
    X = _table()
    blocks = ColumnwiseCategories(list(X.columns)).fit(X)
    Z = blocks.transform(X)
    w = blocks.column_width_
    for j, column in enumerate(X.columns):
        one_hot = TabularSampler().fit_transform(X[[column]])
        part = Z[:, j * w : (j + 1) * w]
        np.testing.assert_array_equal(part @ part.T, one_hot @ one_hot.T)
    np.testing.assert_array_equal((Z * Z).sum(axis=1), len(X.columns))


def test_unseen_and_rare_levels_share_one_level():
    X = pd.DataFrame({"c": ["a"] * 5 + ["b"] * 4 + ["c", "d"]})
    blocks = ColumnwiseCategories(["c"], max_categories=3).fit(X)
    assert list(blocks.levels_[0]) == ["a", "b"]
    codes = blocks.codes(pd.DataFrame({"c": ["a", "c", "d", "zz", None]}))[:, 0]
    assert codes[2] == codes[3] == codes[1] == blocks.column_width_ - 1
    assert codes[4] == blocks.column_width_ - 2 and codes[0] == 0


def test_grouped_sums_are_the_features_summed_per_group():
    X = _table()
    blocks = ColumnwiseCategories(list(X.columns)).fit(X)
    groups = np.arange(len(X)) % 7
    S, q = blocks.grouped_sums(X, groups, 7)
    Z = blocks.transform(X)
    expected = np.stack([Z[groups == g].sum(axis=0) for g in range(7)])
    np.testing.assert_array_equal(S, expected)
    np.testing.assert_array_equal(q, 3 * np.bincount(groups))
    part = blocks.subset(1, 3)
    np.testing.assert_array_equal(part.transform(X), Z[:, blocks.column_width_ :])


@pytest.mark.parametrize("max_categories", [None, 3])
def test_levels_are_the_most_frequent_ties_in_sorted_order(max_categories):
    # Levels of every kind (text held by pyarrow and as objects, categories,
    # booleans, integers), with missing values and tied counts: each
    # column's kept levels are its present values by count, then sorted.
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame(
        {
            "text": pd.array(rng.choice(["d", "b", "a", "c", None], n), dtype="str"),
            "objects": np.array(["q", "p", None, "r"], dtype=object)[
                rng.integers(0, 4, n)
            ],
            "plan": pd.Categorical(rng.choice(["z", "y", "x"], n)),
            "flag": rng.random(n) < 0.5,
            "count": rng.integers(0, 5, n),
            "tied": np.repeat(["w", "u", "v", "t"], n // 4),
        }
    )
    blocks = ColumnwiseCategories(list(X.columns), max_categories=max_categories)
    blocks.fit(X)
    for column, levels in zip(X.columns, blocks.levels_):
        counts = X[column].astype(object).value_counts(dropna=True)
        expected = sorted(counts.index, key=lambda level: (-counts[level], level))
        if max_categories is not None and len(expected) > max_categories:
            expected = expected[: max_categories - 1]
        assert list(levels) == expected, column
    assert list(blocks.levels_[-1]) == (["t", "u"] if max_categories else list("tuvw"))

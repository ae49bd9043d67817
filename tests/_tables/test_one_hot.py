"""OneHotLevels against scikit-learn's OneHotEncoder(handle_unknown="ignore",
max_categories=k, sparse_output=False): the same categories, features and
names, on strings with None, booleans, pandas categories, numbers with NaN,
many levels and levels unseen at fit; pandas' pyarrow strings (pandas 3's
text columns) looked up as their Python strings are, alone and all columns
together."""

import numpy as np
import pytest
from sklearn.preprocessing import OneHotEncoder

from skmmd._tables._one_hot import OneHotLevels, lookup, lookup_columns

pd = pytest.importorskip("pandas")


def _table(n, seed):
    rng = np.random.default_rng(seed)
    words = np.array(["oslo", "lima", "pune", "kyiv", None], dtype=object)
    codes = rng.integers(0, 60, n)
    return pd.DataFrame(
        {
            "city": words[rng.integers(0, 5, n)],
            "member": rng.random(n) < 0.3,
            "plan": pd.Categorical(
                np.where(rng.random(n) < 0.1, None, rng.choice(["b", "a", "c"], n))
            ),
            "grade": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 4, n)),
            "id": np.array([f"u{c}" for c in codes], dtype=object),
        }
    )


@pytest.mark.parametrize("max_categories", [None, 3, 10, 60, 61])
def test_the_encoders_features_and_names(max_categories):
    fit, other = _table(500, 0), _table(300, 1)
    other.loc[::7, "city"] = "rome"  # unseen at fit
    ours = OneHotLevels(max_categories=max_categories).fit(fit)
    theirs = OneHotEncoder(
        handle_unknown="ignore", max_categories=max_categories, sparse_output=False
    ).fit(fit)
    for a, b in zip(ours.categories_, theirs.categories_):
        assert [str(v) for v in a] == [str(v) for v in b]
    np.testing.assert_array_equal(ours.transform(other), theirs.transform(other))
    np.testing.assert_array_equal(ours.transform(fit), theirs.transform(fit))
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())


def test_arrays_of_objects_as_the_encoder_takes_them():
    X = _table(200, 2)[["city", "id"]].to_numpy()
    ours = OneHotLevels(max_categories=20).fit(X)
    theirs = OneHotEncoder(
        handle_unknown="ignore", max_categories=20, sparse_output=False
    ).fit(X)
    np.testing.assert_array_equal(ours.transform(X), theirs.transform(X))
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())


def test_a_wide_fit_keeps_every_rows_categories():
    """TabularSampler sets its numeric statistics from a few thousand rows
    but its categories from every row: a level seen in one row outside that
    subsample is still a category of its own, not an unseen one."""
    from skmmd import TabularSampler

    rng = np.random.default_rng(0)
    n = 20000
    X = pd.DataFrame(
        {"x": rng.normal(size=n), "c": rng.choice(["a", "b"], n).astype(object)}
    )
    X.loc[[7, 19999], "c"] = "rare"
    sampler = TabularSampler(n_components=8, random_state=0).fit(X)
    encoder = sampler.column_transformer_.named_transformers_["categorical"]
    assert list(encoder.categories_[0]) == ["a", "b", "rare"]
    Z = sampler.transform(X.iloc[[7]])
    assert Z[0, -1] > 0  # "rare" has its column


def test_grouped_sums_are_the_one_hot_rows_summed_per_group():
    X = _table(400, 3)
    encoder = OneHotLevels(max_categories=10).fit(X)
    groups = np.arange(400) % 9
    S, q = encoder.grouped_sums(X, groups, 9)
    Z = encoder.transform(X)
    np.testing.assert_array_equal(S, [Z[groups == g].sum(axis=0) for g in range(9)])
    np.testing.assert_array_equal(q, [(Z[groups == g] ** 2).sum() for g in range(9)])


@pytest.mark.parametrize("na_value", [np.nan, "NA"])
def test_pyarrow_strings_are_looked_up_as_their_python_strings(na_value):
    pytest.importorskip("pyarrow")
    na = pd.NA if na_value == "NA" else np.nan
    words = ["oslo", "lima", None, "unseen", "pune", None, "lima"]
    arrow = pd.Series(words, dtype=pd.StringDtype("pyarrow", na_value=na))
    objects = np.array(words, dtype=object)
    for index in (
        pd.Index(np.array(["lima", "oslo", "pune", np.nan], dtype=object)),
        pd.Index(np.array(["pune", "oslo"], dtype=object)),  # no missing entry
        pd.Index(["oslo", "lima"], dtype=arrow.dtype),
        pd.Index(np.array([], dtype=object)),
    ):
        ours, theirs = lookup(index, arrow), lookup(index, objects)
        np.testing.assert_array_equal(ours[0], theirs[0])
        np.testing.assert_array_equal(ours[1], theirs[1])
    positions, missing = lookup(
        pd.Index(np.array(["lima", "oslo", np.nan], dtype=object)), arrow
    )
    assert list(positions) == [1, 0, 2, -1, -1, 2, 0]
    assert list(missing) == [False, False, True, False, False, True, False]


def test_columns_looked_up_together_are_looked_up_as_each_alone():
    # pyarrow text columns are hashed in one pass over all of them; every
    # column's positions must be those of its own lookup.
    pytest.importorskip("pyarrow")
    words = ["oslo", "lima", None, "unseen", "pune", None, "lima"]
    columns = [
        pd.Series(words, dtype=pd.StringDtype("pyarrow", na_value=np.nan)),
        pd.Series(words[::-1], dtype=pd.StringDtype("pyarrow", na_value=pd.NA)),
        pd.Series(words, dtype=pd.StringDtype("python")),
        pd.Series(words, dtype="category"),
        np.array([1.0, 2.0, np.nan, 3.0, 1.0, 2.0, 7.0]),
        pd.Series(["a", "b", "a", "a", "b", "c", "z"], dtype=pd.StringDtype("pyarrow")),
    ]
    indexes = [
        pd.Index(np.array(["lima", "oslo", "pune", np.nan], dtype=object)),
        pd.Index(np.array(["pune", "oslo"], dtype=object)),
        pd.Index(np.array(["oslo", np.nan], dtype=object)),
        pd.Index(np.array(["lima", "pune"], dtype=object)),
        pd.Index([1.0, 3.0, np.nan]),
        pd.Index(np.array([], dtype=object)),
    ]
    positions, missing = lookup_columns(indexes, columns)
    assert positions.shape == missing.shape == (7, 6)
    for j, (index, values) in enumerate(zip(indexes, columns)):
        alone = lookup(index, values)
        np.testing.assert_array_equal(positions[:, j], alone[0])
        np.testing.assert_array_equal(missing[:, j], alone[1])
    assert list(positions[:, 1]) == [-1, -1, 0, -1, -1, -1, 1]
    assert list(positions[:, 5]) == [-1] * 7


def test_levels_counted_together_are_each_columns_own():
    # pyarrow text columns are counted in one pass over all of them; every
    # column's levels (sorted by code point, NaN last) and counts must be
    # those each column alone gives, and OneHotEncoder's categories.
    pytest.importorskip("pyarrow")
    from skmmd._tables._one_hot import _categories

    words = ["oslo", "Lima", None, "ähus", "pune", None, "lima", "oslo"]
    frame = pd.DataFrame(
        {
            "a": pd.Series(words, dtype=pd.StringDtype("pyarrow", na_value=np.nan)),
            "b": pd.Series(words[::-1], dtype=pd.StringDtype("pyarrow")),
            "c": pd.Series([None] * 8, dtype=pd.StringDtype("pyarrow")),
            "d": pd.Series(["z", "y"] * 4, dtype=pd.StringDtype("pyarrow")),
            "e": np.array(words, dtype=object),
            "f": np.arange(8.0),
        }
    )
    together = OneHotLevels.levels_of(frame)
    for (categories, counts), (_, column) in zip(together, frame.items()):
        alone, tallies = _categories(column)
        assert categories.dtype == alone.dtype
        assert list(map(str, categories)) == list(map(str, alone))
        np.testing.assert_array_equal(counts, tallies)
    assert list(map(str, together[0][0])) == [
        "Lima",
        "lima",
        "oslo",
        "pune",
        "ähus",
        "nan",
    ]
    assert list(together[0][1]) == [1, 1, 2, 1, 1, 2]
    assert list(map(str, together[2][0])) == ["nan"] and list(together[2][1]) == [8]
    encoder = OneHotEncoder(handle_unknown="ignore").fit(frame[["a", "d"]])
    assert [list(map(str, c)) for c in encoder.categories_] == [
        list(map(str, together[0][0])),
        list(map(str, together[3][0])),
    ]

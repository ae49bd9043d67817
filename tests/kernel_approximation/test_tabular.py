"""TabularSampler (skmmd/kernel_approximation/_tabular.py): the documented
kernel, missing values and unseen categories, arrays and explicit categorical
columns, the fused grouped sums."""

import numpy as np
import pandas as pd
import pytest

from skmmd import TabularSampler
from skmmd._utils import _budgets

# TabularSampler ------------------------------------------------------------


def test_tabular_sampler_kernel_is_the_documented_sum():
    # Categorical part exact: (1/p) * #matching columns (+ the numeric block).
    df = pd.DataFrame(
        {"a": ["x", "y", "x", None], "b": pd.Categorical(["u", "u", "v", "v"])}
    )
    Z = TabularSampler(random_state=0).fit_transform(df)
    matches = (df.values[:, None, :] == df.values[None, :, :]).sum(axis=2)
    matches[3, 3] = 2  # None matches None: missing is a category of its own
    np.testing.assert_allclose(Z @ Z.T, matches / 2, atol=1e-12)


def test_tabular_sampler_missing_indicator_and_unseen_categories():
    df = pd.DataFrame({"num": [1.0, np.nan, 3.0, 4.0], "cat": ["a", "b", "a", "b"]})
    sampler = TabularSampler(n_components=64, random_state=0).fit(df)
    assert sampler.numeric_columns_ == ["num"]
    assert sampler.categorical_columns_ == ["cat"]
    Z = sampler.transform(df)
    # k(x, x) = (1 + [missing] + 1) / 2 with cos/sin features of unit norm.
    np.testing.assert_allclose((Z**2).sum(axis=1), [1, 1.5, 1, 1], atol=1e-12)
    new = sampler.transform(pd.DataFrame({"num": [1.0], "cat": ["never seen"]}))
    names = sampler.get_feature_names_out()
    assert np.all(new[0, np.char.startswith(names.astype(str), "categorical")] == 0)


def test_tabular_sampler_on_arrays_and_explicit_categorical():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    Z = TabularSampler(n_components=32, random_state=0).fit_transform(X)
    assert Z.shape == (50, 32 + 3)
    sampler = TabularSampler(categorical=[2], random_state=0).fit(X.round())
    assert sampler.categorical_columns_ == [2]
    with pytest.raises(ValueError, match=r"categorical names columns \[7\]"):
        TabularSampler(categorical=[7]).fit(X)


@pytest.mark.parametrize("categorical", [[], ["u"]])
def test_a_text_column_left_out_of_categorical_is_refused_by_name(
    categorical, monkeypatch
):
    """Named in fit, before any block is fitted (it failed deep in the
    numeric block with numpy's "could not convert string to float")."""
    from skmmd.kernel_approximation import _tabular

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30) > 0})
    X["t"] = rng.choice(["x", "y"], 30)
    X["u"] = pd.Categorical(rng.choice(["p", "q"], 30))
    X["o"] = X["a"].astype(object)  # numbers in an object column are numbers
    X.loc[0, "t"] = None
    monkeypatch.setattr(_tabular, "fit_parts", None)  # never reached
    named = r"\['t'\]" if categorical else r"\['t', 'u'\]"
    with pytest.raises(ValueError, match=rf"^categorical leaves out columns {named}"):
        TabularSampler(categorical=categorical).fit(X)
    with pytest.raises(ValueError, match=r"columns \[1\] that hold text"):
        TabularSampler(categorical=[]).fit(X[["a", "t"]].to_numpy())


def test_numbers_left_out_of_categorical_stay_numeric():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=30), "t": rng.choice(["x", "y"], 30)})
    X["o"], X["b"] = X["a"].astype(object), X["a"] > 0
    X["c"] = pd.Categorical(rng.integers(0, 3, 30))
    sampler = TabularSampler(categorical=["t"], random_state=0).fit(X)
    assert sampler.numeric_columns_ == ["a", "o", "b", "c"]


def test_transform_is_the_column_transformers_bit_for_bit():
    """``transform`` maps each fitted block itself (without the column
    transformer's checks and copies of each block's columns): the column
    transformer's features bit for bit, with no warning, on a DataFrame of
    numbers, text, categories and missing values and on an array."""
    import warnings

    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        {
            "age": rng.normal(40, 10, size=200),
            "city": rng.choice(["Oslo", "Lima", "Pune"], size=200),
            "count": rng.poisson(3.0, size=200),
            "kind": pd.Categorical(rng.choice(["a", "b"], size=200)),
        }
    )
    frame.loc[[4, 9], "age"] = np.nan
    frame.loc[[5], "city"] = None
    for table in (frame, rng.normal(size=(200, 3))):
        sampler = TabularSampler(n_components=33, random_state=0).fit(table)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            Z = sampler.transform(table[::2])
        expected = sampler.column_transformer_.transform(table[::2])
        np.testing.assert_array_equal(Z, expected)


def _people(rng):
    """300 rows of a number with two missing values, a text column and a
    skewed number."""
    frame = pd.DataFrame(
        {
            "age": rng.normal(40, 10, size=300),
            "city": rng.choice(["Oslo", "Lima", "Pune"], size=300),
            "income": rng.lognormal(size=300),
        }
    )
    frame.loc[[4, 9], "age"] = np.nan
    return frame


def test_tabular_grouped_sums_match_the_features(monkeypatch):
    """The fused per-unit sums (the pipeline's path) equal the sums of
    ``transform``'s rows, in batches of any size, added into ``out``."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    frame = _people(rng)
    groups = rng.integers(0, 23, size=300)
    M = sp.csr_matrix((np.ones(300), (groups, np.arange(300))), shape=(23, 300))
    for table in (frame, rng.normal(size=(300, 2))):
        sampler = TabularSampler(n_components=32, random_state=0).fit(table)
        Z = sampler.transform(table)
        for entries in (2**22, 7):  # one batch; a few rows per batch
            monkeypatch.setattr(_budgets, "MAP_CHUNK_ENTRIES", entries)
            S, q = sampler.grouped_sums(table, groups, 23)
            np.testing.assert_allclose(S, M @ Z, atol=1e-12)
            np.testing.assert_allclose(q, M @ np.sum(Z * Z, axis=1), atol=1e-12)
        out = (np.ones((23, Z.shape[1])), np.ones(23))
        assert sampler.grouped_sums(table, groups, 23, out=out) is out
        np.testing.assert_allclose(out[0], 1 + M @ Z, atol=1e-12)


def test_bandwidth_is_the_numeric_blocks_and_none_without_numbers():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"u": rng.normal(size=50), "s": rng.choice(["a", "b"], 50)})
    fitted = TabularSampler(bandwidth=1.5, random_state=0).fit(table)
    numeric = fitted.column_transformer_.named_transformers_["numeric"]
    assert fitted.bandwidth_ == numeric[-1].bandwidth_ == 1.5
    assert TabularSampler(random_state=0).fit(table[["s"]]).bandwidth_ is None


@pytest.mark.parametrize("n_rows", [300, 3000])
def test_median_bandwidth_is_every_pairs_to_a_few_percent(n_rows):
    # The median over random pairs of the fit rows (every pair of a small
    # table) against the median over every pair of the prepared rows.
    from scipy.spatial.distance import pdist

    rng = np.random.default_rng(1)
    table = pd.DataFrame(rng.standard_t(3, size=(n_rows, 40)) * rng.random(40) * 5)
    table.columns = [f"c{j}" for j in range(40)]
    fitted = TabularSampler(random_state=0).fit(table)
    numeric = fitted.column_transformer_.named_transformers_["numeric"]
    prepared = numeric[:-1].transform(table)
    every = float(np.median(pdist(prepared)))
    if n_rows <= 1000:  # every pair, exactly
        assert fitted.bandwidth_ == pytest.approx(every, rel=1e-12)
    else:
        assert fitted.bandwidth_ == pytest.approx(every, rel=0.03)
        assert fitted.bandwidth_ != every


def testprojected_features_are_the_features_projected():
    """The order check's projection of a table's features, block by block
    as they are mapped, equals the features projected whole (narrow
    features, no wider than the projection, are returned as they are)."""
    from skmmd._inference._base import order_features
    from skmmd._inference._blocks import check_features

    rng = np.random.default_rng(5)
    frame = _people(rng)
    for n_components, projected in ((256, True), (16, False)):
        sampler = TabularSampler(n_components=n_components, random_state=0)
        sampler.fit(frame)
        Z = sampler.transform(frame)
        assert (Z.shape[1] > 64) == projected
        ours = order_features(sampler, frame, np.asarray, seed=7)
        np.testing.assert_allclose(ours, check_features(Z, 7), rtol=1e-10, atol=1e-12)
        assert ours.shape == (300, 64 if projected else Z.shape[1])


@pytest.mark.parametrize("n_components", [256, 16])
@pytest.mark.parametrize("n_rows", [0, 40, 300])
def test_grouped_sums_and_projected_are_both_at_once(monkeypatch, n_components, n_rows):
    """The sums with the first rows' projected features (the order check's,
    as the pipeline sums a chunk): the sums bit for bit those of
    grouped_sums, the features those of projected_features, also when the
    Fourier block's rows come in several blocks (a few rows each), and
    with a level unseen in fit (a one-hot row of zeros)."""
    from skmmd._inference._blocks import check_projection

    rng = np.random.default_rng(6)
    frame = _people(rng)
    unseen = frame.assign(city=frame["city"].where(rng.random(300) < 0.9, "Rome"))
    groups = rng.integers(0, 23, size=300)
    projection = lambda width: check_projection(width, 3)  # noqa: E731
    for fitted, table in (
        (frame, frame),
        (frame, unseen),
        (frame[["age", "income"]].to_numpy(),) * 2,
    ):
        sampler = TabularSampler(n_components=n_components, random_state=0)
        sampler.fit(fitted)
        for entries in (2**22, 7 * n_components):
            monkeypatch.setattr(_budgets, "MAP_CHUNK_ENTRIES", entries)
            monkeypatch.setattr(_budgets, "PART_ENTRIES", entries)
            S, q, P = sampler.grouped_sums_and_projected(
                table, groups, 23, n_rows, projection
            )
            expected = sampler.grouped_sums(table, groups, 23)
            np.testing.assert_array_equal(S, expected[0])
            np.testing.assert_array_equal(q, expected[1])
            head = table.iloc[:n_rows] if hasattr(table, "iloc") else table[:n_rows]
            if n_rows:
                ours = sampler.projected_features(head, projection)
                np.testing.assert_allclose(P, ours, rtol=1e-10, atol=1e-12)
            else:
                assert P.shape[0] == 0

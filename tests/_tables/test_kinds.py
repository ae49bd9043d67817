"""Is this column numeric? One answer (skmmd/_tables/_kinds.py), the same in
the table map, the column report's maps, the HTML report's summaries, the
witness and the command line; the maps of numbers only (the independence
and conditional tests, Dask, a causal search) read floats as they are, and
differ from it on booleans and datetimes alone, as its rule says."""

import numpy as np
import pandas as pd
import pytest

from skmmd import MMDTest, TabularSampler
from skmmd._inference._explain import ColumnMaps
from skmmd._inference._variables import numeric_table
from skmmd._tables._kinds import column_kind, numeric_column, numeric_dtype
from skmmd.conditional._search import _is_number
from skmmd.inspection import ColumnSummaries


def _table(n=40):
    rng = np.random.default_rng(0)
    ints = rng.integers(0, 9, n)
    return pd.DataFrame(
        {
            "int": ints,
            "float": rng.normal(size=n),
            "Int64": pd.array(np.where(ints > 7, None, ints), dtype="Int64"),
            "Float64": pd.array(rng.normal(size=n), dtype="Float64"),
            "bool": ints > 4,
            "boolean": pd.array(ints > 4, dtype="boolean"),
            "datetime": pd.date_range("2024-01-01", periods=n, freq="h"),
            "datetime_tz": pd.date_range("2024-01-01", periods=n, tz="UTC"),
            "timedelta": pd.to_timedelta(ints, unit="s"),
            "object": np.array(["a", "b"] * (n // 2), dtype=object),
            "string": pd.array(["a", "b"] * (n // 2), dtype="string"),
            "category": pd.Categorical(["a", "b"] * (n // 2)),
        }
    )


NUMERIC = ["int", "float", "Int64", "Float64", "datetime", "datetime_tz", "timedelta"]
AS_FLOATS = ["int", "float", "Int64", "Float64", "bool", "boolean"]


def test_the_rule_booleans_are_categories_datetimes_are_numbers():
    table = _table()
    numeric = [c for c in table if numeric_dtype(table[c].dtype)]
    assert numeric == NUMERIC
    assert [c for c in table if numeric_column(table[c])] == NUMERIC
    kinds = {c: column_kind(table[c].dtype) for c in table}
    assert [c for c, kind in kinds.items() if kind != "categorical"] == NUMERIC
    # NumPy's dtypes take a shortcut: the same answer as pandas' dtypes give.
    for code in ["i8", "u4", "f4", "c16", "?", "M8[ns]", "m8[s]", "O", "U3", "S2"]:
        dtype = np.dtype(code)
        expected = (
            pd.api.types.is_numeric_dtype(dtype)
            or pd.api.types.is_datetime64_any_dtype(dtype)
            or pd.api.types.is_timedelta64_dtype(dtype)
        ) and not pd.api.types.is_bool_dtype(dtype)
        assert numeric_dtype(dtype) == expected, code


def test_the_kinds_agree_across_the_map_the_report_and_the_summaries():
    table = _table()
    sampler = TabularSampler(n_components=8, random_state=0).fit(table)
    assert sampler.numeric_columns_ == NUMERIC
    summaries = ColumnSummaries().update(table, table)
    kinds = {c: summaries.summary(c)["kind"] for c in table}
    assert [c for c, kind in kinds.items() if kind == "numeric"] == NUMERIC
    maps = ColumnMaps(sampler, table, {c: [c] for c in table}, random_state=0)
    assert maps.blocks[0].columns == NUMERIC  # each numeric column's kernel
    assert maps.blocks[1].columns == [c for c in table if c not in NUMERIC]


def test_an_array_s_object_columns_are_read_by_their_values():
    X = np.empty((6, 3), dtype=object)
    X[:, 0] = [1.0, 2.5, None, 4.0, 5.0, 6.0]
    X[:, 1] = ["a", "b", "a", "b", "a", "b"]
    X[:, 2] = [True, False, True, False, True, False]
    sampler = TabularSampler(n_components=8, random_state=0).fit(X)
    summaries = ColumnSummaries().update(X, X)
    assert sampler.numeric_columns_ == [0]
    assert [summaries.summary(str(j))["kind"] for j in range(3)] == [
        "numeric",
        "categorical",
        "categorical",
    ]
    maps = ColumnMaps(sampler, X, {j: [j] for j in range(3)}, random_state=0)
    assert maps.blocks[0].columns == [0]


@pytest.mark.parametrize("column", list(_table().columns))
def test_maps_of_numbers_differ_on_booleans_and_datetimes_only(column):
    table = _table()[[column]]
    as_floats = column in AS_FLOATS
    assert numeric_dtype(table[column].dtype, as_floats=True) == as_floats
    assert numeric_table(table) == as_floats  # the independence tests
    assert _is_number(table[column]) == as_floats  # a causal search
    differs = as_floats != (column in NUMERIC)
    assert differs == (
        column in ("bool", "boolean", "datetime", "datetime_tz", "timedelta")
    )


def test_a_report_of_datetimes_is_the_same_for_an_array_and_a_table():
    """An array of datetimes is read as its table is: numbers (seconds), NaT
    missing, in the test's map and in each column's."""
    rng = np.random.default_rng(0)
    days = np.datetime64("2024-01-01")
    X = (days + rng.integers(0, 100, (200, 2)).astype("m8[D]")).astype("M8[s]")
    Y = (days + rng.integers(0, 120, (200, 2)).astype("m8[D]")).astype("M8[s]")
    X[3, 1] = np.datetime64("NaT")

    def report(A, B):
        test = MMDTest(
            TabularSampler(random_state=0),
            explain_columns=True,
            random_state=0,
            n_resamples=99,
        )
        return test.fit(A, B).column_report_.drop(columns="column")

    pd.testing.assert_frame_equal(
        report(X, Y), report(pd.DataFrame(X), pd.DataFrame(Y))
    )

"""The ``independence`` command (skmmd/cli/_independence.py): the result of
hsic_test, ``--transformer exact``, ``--aggregate``, ``--explain`` with its correction,
``--given`` (the conditional test), and conflicting options refused before the
file is read."""

import json
import re

import numpy as np
import pytest

import skmmd
from skmmd.cli import EXIT_REJECT, main
from tests.helpers.cli import printed_rows
from tests.helpers.data import conditional_chain


def test_cli_given_runs_on_the_complete_rows(tmp_path, capsys):
    import pandas as pd

    rng = np.random.default_rng(12)
    x, y, z = conditional_chain(400, rng)
    table = pd.DataFrame({"x": x[:, 0], "y": y[:, 0], "z": z[:, 0]})
    table.loc[[3, 50, 77], "z"] = np.nan
    table.loc[[5], "x"] = np.nan
    path = tmp_path / "holes.csv"
    table.to_csv(path, index=False)
    args = ["independence", str(path), "--target", "y", "--given", "z"]
    assert main([*args, "--n-resamples", "99", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    complete = table.dropna()
    expected = skmmd.conditional_independence_test(
        complete[["x"]], complete["y"], complete[["z"]], n_resamples=99, random_state=0
    )
    assert out["p_value"] == expected.pvalue
    assert out["n_samples"] == 396 and out["rows_left_out"] == 4
    main([*args, "--n-resamples", "99"])
    assert "n=396 (4 rows with missing values left out)" in capsys.readouterr().out


def test_cli_given_runs_the_conditional_test(tmp_path, capsys):
    import json

    import pandas as pd

    from skmmd.__main__ import main

    rng = np.random.default_rng(11)
    x, y, z = conditional_chain(500, rng)
    path = tmp_path / "table.csv"
    pd.DataFrame({"x": x[:, 0], "y": y[:, 0], "z": z[:, 0]}).to_csv(path, index=False)
    args = ["independence", str(path), "--target", "y", "--n-resamples", "199"]
    assert main([*args, "--given", "z", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = skmmd.conditional_independence_test(
        x, y, z, n_resamples=199, random_state=0
    )
    assert out["p_value"] == expected.pvalue and out["given"] == ["z"]
    assert {"conditional_hsic", "n_samples", "statistic_type"} <= set(out)
    assert out["statistic_type"] == "conditional" and "hsic" not in out
    assert main(args) == 1  # not given z: dependent
    assert main([*args, "--given", "y"]) == 2
    assert "--given includes the target" in capsys.readouterr().err
    # Conflicting options are rejected before the file is read.
    missing = str(tmp_path / "missing.csv")
    for flag in ("--explain", "--transformer=exact", "--statistic=unbiased"):
        with pytest.raises(SystemExit) as exit:
            main(["independence", missing, "--target", "y", "--given", "z", flag])
        assert exit.value.code == 2
        err = capsys.readouterr().err
        assert "leave out --transformer exact, --explain and --statistic" in err
    with pytest.raises(SystemExit):
        main(["independence", missing, "--target", "y", "--aggregate", "--given", "z"])
    assert "leave out --given and --transformer exact" in capsys.readouterr().err
    # The exact kernel is spelled as in the test command; --exact is gone.
    for argv in (["--exact"], ["--transformer", "rff"]):
        with pytest.raises(SystemExit) as exit:
            main(["independence", missing, "--target", "y", *argv])
        assert exit.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --exact" in err and "invalid choice: 'rff'" in err


def test_independence_explain_names_the_correction(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(1)
    table = pd.DataFrame(
        rng.normal(size=(300, 30)), columns=[f"f{i}" for i in range(30)]
    )
    table["y"] = table.f0 + table.f3 + 0.3 * rng.normal(size=300)
    path = tmp_path / "table.parquet"
    table.to_parquet(path, index=False)
    argv = ["independence", str(path), "--target", "y", "--explain"]
    argv += ["--n-resamples", "99", "--correction", "fdr_by"]
    assert main(argv) == EXIT_REJECT
    out = capsys.readouterr().out
    rows, heading = printed_rows(out, "per-column dependence on 'y':")
    assert heading == (
        "per-column dependence on 'y': 2 of 30 columns depend on 'y' at alpha = "
        "0.05 (false discovery rate controlled by Benjamini-Yekutieli)"
    )
    assert {row[0] for row in rows[:2]} == {"f0", "f3"} and len(rows) == 20
    assert "... and 10 more columns (none depend on 'y'" in out
    assert main([*argv, "--json"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["correction"] == "fdr_by" and len(result["columns"]) == 30


@pytest.fixture
def dependence_table(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    n = 600
    table = pd.DataFrame(
        {
            "age": rng.uniform(20, 70, n),
            "noise": rng.normal(size=n),
            "city": rng.choice(["Kyiv", "Lviv", "Odesa"], n),
        }
    )
    table["spend"] = (
        np.abs(table.age - 45) / 10 + (table.city == "Lviv") + 0.5 * rng.normal(size=n)
    )
    path = tmp_path / "table.csv"
    table.to_csv(path, index=False)
    return path, table


def test_cli_independence_equals_hsic_test(dependence_table, capsys):
    """The command is hsic_test on the file's table: same statistic and
    p-value, the same per-column report (--explain)."""
    from skmmd import hsic_test

    path, table = dependence_table
    args = ["independence", str(path), "--target", "spend", "--n-resamples", "99"]
    assert main([*args, "--explain", "--json"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    expected = hsic_test(
        table, "spend", explain_columns=True, n_resamples=99, random_state=0
    )
    assert result["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    # The decision over the table and its columns (the union bound of the
    # table's p-value, 1/100, and the first step of maxT's).
    assert result["p_value"] == expected.pvalue == 0.02
    assert result["table_p_value"] == expected.table_pvalue == 0.01
    # The independence result's own names (HSICTestResult.to_dict).
    assert result["hsic"] == pytest.approx(expected.hsic, rel=1e-12)
    assert result["n_pairs"] == expected.n_pairs == len(table)
    assert "mmd2" not in result and "n_samples_x" not in result
    columns = [row["column"] for row in result["columns"]]
    assert columns == list(expected.column_report.column)
    assert set(columns[:2]) == {"age", "city"}
    assert main([*args, "--columns", "noise"]) == 0
    text = capsys.readouterr().out
    assert "against 1 column," in text and "do not reject H0" in text


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--target", "price"], r"--target names columns \['price'\]"),
        (["--target", "spend", "--columns", "age,zip"], r"names columns \['zip'\]"),
        (
            ["--target", "spend", "--transformer", "exact"],
            "X has non-numeric columns and x_trans",
        ),
    ],
)
def test_cli_independence_errors(dependence_table, capsys, extra, match):
    path, _ = dependence_table
    assert main(["independence", str(path), "--n-resamples", "9", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m skmmd independence: error:")
    assert re.search(match, err)


def test_cli_independence_exact_on_numeric_columns(dependence_table, capsys):
    path, _ = dependence_table
    args = ["independence", str(path), "--target", "spend", "--columns", "age"]
    argv = [*args, "--transformer", "exact", "--n-resamples", "49", "--json"]
    assert main(argv) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["kernel"] == "exact" and result["p_value"] == 0.02


@pytest.mark.slow
def test_cli_independence_aggregate(dependence_table, capsys):
    """--aggregate is hsic_test(..., aggregate=True) on the numeric columns."""
    from skmmd import hsic_test

    path, table = dependence_table
    args = ["independence", str(path), "--target", "spend", "--n-resamples", "49"]
    assert main([*args, "--columns", "age", "--aggregate", "--json"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    expected = hsic_test(
        table[["age"]], table[["spend"]], aggregate=True, n_resamples=49, random_state=0
    )
    assert result["kernel"] == "aggregated"
    assert result["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert result["p_value"] == expected.pvalue == 0.02
    assert main([*args, "--columns", "age", "--aggregate"]) == EXIT_REJECT
    text = capsys.readouterr().out
    assert "aggregated HSIC independence test" in text and "25 pairs" in text
    assert main([*args, "--aggregate"]) == 2
    assert "X has non-numeric columns and x_transformers" in capsys.readouterr().err
    # The column report of the aggregated test, as hsic_test's.
    numeric = ["--columns", "age,noise", "--aggregate", "--explain", "--json"]
    assert main([*args, *numeric]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    expected = hsic_test(
        table[["age", "noise"]],
        table[["spend"]],
        aggregate=True,
        explain_columns=True,
        n_resamples=49,
        random_state=0,
    )
    assert result["p_value"] == expected.pvalue
    assert result["table_p_value"] == expected.table_pvalue
    report = expected.column_report
    assert [c["column"] for c in result["columns"]] == list(report.column)


def test_cli_given_takes_blocks_of_rows_in_time_order(tmp_path, capsys):
    import pandas as pd

    from tests.helpers.data import ar1

    rng = np.random.default_rng(5)
    z = ar1(rng, 600, 0.8)
    x, y = np.sin(2 * z) + 0.5 * ar1(rng, 600, 0.8), np.cos(2 * z) + ar1(rng, 600, 0.8)
    path = tmp_path / "series.csv"
    pd.DataFrame({"x": x[:, 0], "y": y[:, 0], "z": z[:, 0]}).to_csv(path, index=False)
    args = ["independence", str(path), "--target", "y", "--given", "z"]
    assert main([*args, "--n-resamples", "99", "--block-size", "24", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = skmmd.conditional_independence_test(
        x, y, z, n_resamples=99, block_size=24, random_state=0
    )
    assert out["p_value"] == expected.pvalue
    main([*args, "--n-resamples", "99", "--block-size", "24"])
    assert "(blocks of 24 consecutive rows)" in capsys.readouterr().out

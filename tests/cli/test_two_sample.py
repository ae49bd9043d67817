import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import skmmd.cli._demo as _demo
from skmmd.__main__ import (
    EXIT_REJECT,
    load_sample,
    main,
    run_demo,
    run_two_sample_demo,
    run_warmup,
)
from skmmd._utils import _files


def test_demo_prints_both_models_with_good_accuracy():
    out = io.StringIO()
    run_demo(out=out)
    rows = [
        line.split()
        for line in out.getvalue().splitlines()
        if line.startswith("digits")
    ]
    assert len(rows) == 2
    accuracies = [float(row[-2]) for row in rows]
    assert min(accuracies) > 0.95


def test_module_entry_point_runs_demo(monkeypatch):
    # ``python -m skmmd`` reaches main() in a fresh process ...
    result = subprocess.run(
        [sys.executable, "-m", "skmmd", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Run the skmmd demo (no arguments)" in result.stdout
    # ... and main() with no arguments runs both demos, whose output the
    # doctest of doc/user_guide/_demo_output.rst checks (running the whole
    # demo again in a subprocess here cost 45 s of the suite).
    calls = []
    monkeypatch.setattr(_demo, "run_demo", lambda **kw: calls.append(("svm", kw)))
    monkeypatch.setattr(
        _demo, "run_two_sample_demo", lambda **kw: calls.append(("mmd", kw))
    )
    assert main([]) == 0
    assert calls == [
        ("svm", {"copies": 1, "random_state": 0}),
        ("mmd", {"random_state": 0}),
    ]


def test_bad_arguments():
    with pytest.raises(SystemExit):
        main(["--copies", "0"])


@pytest.fixture
def samples(tmp_path):
    rng = np.random.default_rng(0)
    a = tmp_path / "a.csv"
    np.savetxt(a, rng.normal(size=(60, 3)), delimiter=",", header="u,v,w", comments="")
    b = tmp_path / "b.npy"
    np.save(b, rng.normal(size=(70, 3)) + 1.0)
    same = tmp_path / "same.csv"
    np.savetxt(same, rng.normal(size=(50, 3)), delimiter=",")
    return a, b, same


def test_load_sample_csv_header_and_npy(samples):
    a, b, same = samples
    assert load_sample(a).shape == (60, 3)
    assert load_sample(b).shape == (70, 3)
    assert load_sample(same).shape == (50, 3)


@pytest.mark.parametrize(
    "text",
    [
        "1,2\n3,4\n",
        "u,v\n1,2\n\n3,4\n",  # a header, a blank line
        "\n\n1,2\n3,4",  # blank lines first, no final newline
        ",,\n1,2\n,\n3,4\n",  # rows of empty cells
        "1_0,2\n3, 4 \n",  # what float() reads and loadtxt does not
        "7\n8\n9\n",  # one column
        "u,v\n1,2\n",  # one row
    ],
)
def test_csv_fast_parser_reads_what_the_checked_one_reads(tmp_path, text):
    path = tmp_path / "x.csv"
    path.write_text(text)
    np.testing.assert_array_equal(
        _files._read_csv(path), _files._read_csv_checked(path)
    )


def test_cli_table_without_pandas_says_what_to_install(samples, monkeypatch, capsys):
    a, b, _ = samples
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas fails
    assert main(["test", str(a), str(b), "--n-resamples", "19"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'skmmd[tables]'" in err and "--transformer rff" in err


# The map each --transformer choice reports (headerless CSV: arrays).
MAPS = {
    "auto": "TabularSampler",  # a.csv has a header row: a table
    "rff": "RandomFourierSampler",
    "fastfood": "FastfoodSampler",
    "tabular": "TabularSampler",
    "exact": "exact",
}


@pytest.mark.parametrize("transformer", list(MAPS))
def test_cli_json(samples, capsys, transformer):
    a, b, _ = samples
    status = main(
        [
            "test",
            str(a),
            str(b),
            "--transformer",
            transformer,
            "--n-resamples",
            "99",
            "--seed",
            "3",
            "--json",
        ]
    )
    assert status == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["p_value"] == 0.01 and result["reject"] is True
    assert (result["n_samples_x"], result["n_samples_y"]) == (60, 70)
    assert result["transformer"] == MAPS[transformer] and result["seed"] == 3
    assert "null_distribution" not in result and "pvalue" not in str(result)


def test_cli_text_is_reproducible(samples, capsys):
    a, _, same = samples
    outputs = []
    for _ in range(2):
        assert (
            main(["test", str(a), str(same), "--bandwidth", "1.5", "--seed", "1"]) == 0
        )
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "bandwidth 1.5" in outputs[0]
    assert "decision = do not reject H0" in outputs[0]


def _write(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "content, match",
    [
        ("a,b,c\n1,2,3\n3,x,1\n", r"line 3: non-numeric value 'x'"),
        ("1,2,3\n3\n", r"rows have different numbers of columns \[1, 3\]"),
        ("", "holds no data"),
        ("a,b,c\n", "holds a header but no data"),
        ("1,2,3\nnan,3,4\n4,5,6\n", "Input X contains NaN"),
        ("1,2,3\n", "at least 2 points; got 1 in X"),
    ],
)
def test_cli_bad_files(tmp_path, samples, capsys, content, match):
    bad = _write(tmp_path / "bad.csv", content)
    good = str(samples[2])
    # Numeric transformer: a non-numeric value is an error (auto reads a table).
    assert main(["test", bad, good, "--transformer", "rff"]) == 2
    err = capsys.readouterr().err
    assert "python -m skmmd test: error:" in err
    assert re.search(match, err)


def test_cli_file_errors(tmp_path, samples, capsys):
    a, b, _ = samples
    assert main(["test", str(tmp_path / "missing.csv"), str(b)]) == 2
    assert "no such file" in capsys.readouterr().err
    two_cols = _write(tmp_path / "two.csv", "1,2\n3,4\n5,6\n")
    assert main(["test", str(a), two_cols]) == 2
    assert "has 3 columns but" in capsys.readouterr().err
    (tmp_path / "junk.npy").write_bytes(b"not numpy")
    assert main(["test", str(a), str(tmp_path / "junk.npy")]) == 2
    assert "not a readable .npy file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--n-resamples", "0"], "--n-resamples must be >= 1"),
        (["--alpha", "1.5"], r"--alpha must be in \(0, 1\)"),
        (["--bandwidth", "-1"], "expected 'median' or a positive number"),
        (["--transformer", "nope"], "invalid choice: 'nope'"),
    ],
)
def test_cli_bad_options(samples, capsys, extra, match):
    a, b, _ = samples
    with pytest.raises(SystemExit) as exc:
        main(["test", str(a), str(b), *extra])
    assert exc.value.code == 2
    assert re.search(match, capsys.readouterr().err)


def test_two_sample_demo_output():
    out = io.StringIO()
    run_two_sample_demo(copies=2, out=out)
    text = out.getvalue()
    assert "random halves (same law)" in text and "even vs odd digits" in text
    rows = [line.split() for line in text.splitlines() if "MMDTest" in line]
    # Even vs odd digits differ: both tests give the smallest p-value 1/1000,
    # on the digits and on their jittered copies.
    assert [row[-2] for row in rows if "odd" in row] == ["0.001"] * 4
    # Random halves come from one law: no rejection at any size.
    assert all(float(row[-2]) > 0.05 for row in rows if "halves" in row)
    assert {row[-6] for row in rows} == {"1797", "3594"}  # N: digits and 2 copies


def test_cli_mixed_tables_parquet_and_csv(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)

    def table(n, shift):
        return pd.DataFrame(
            {
                "amount": rng.normal(size=n) + shift,
                "city": rng.choice(["Oslo", "Lima", "Pune"], n),
                "member": rng.random(n) < 0.5,
            }
        )

    ref, new = tmp_path / "ref.parquet", tmp_path / "new.csv"
    table(300, 0.0).to_parquet(ref)
    table(300, 1.0).to_csv(new, index=False)
    args = ["test", str(ref), str(new), "--n-resamples", "99", "--seed", "0"]
    assert main([*args, "--explain", "--delta", "0.001", "--json"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["transformer"] == "TabularSampler" and result["p_value"] == 0.01
    assert result["columns"][0]["column"] == "amount"
    low, high = result["confidence_interval"]
    assert 0 < low < high and result["relevance"]["p_value"] < 0.05
    assert len(result["witness_points"]) == 6
    assert main([*args, "--columns", "city,member"]) == 0
    text = capsys.readouterr().out
    assert "do not reject H0" in text and "interval [" in text
    assert main([*args, "--columns", "height"]) == 2
    assert "--columns names columns ['height']" in capsys.readouterr().err


def test_cli_parquet_with_a_stored_pandas_index(tmp_path, capsys):
    # pandas stores a non-range index as a column (__index_level_0__); it is
    # not data, in memory or read in batches.
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    X = rng.normal(size=(200, 2))
    pd.DataFrame(X, columns=["u", "v"], index=np.arange(200) * 3).to_parquet(a)
    pd.DataFrame(X[::-1], columns=["u", "v"], index=np.arange(200) + 5).to_parquet(b)
    # (in batches, rff with a fixed bandwidth: the median holds out 1000 rows)
    batches = ["--batch-rows", "64", "--transformer", "rff", "--bandwidth", "1"]
    for extra in ([], batches):
        args = ["test", str(a), str(b), "--n-resamples", "19", "--json", *extra]
        assert main(args) == 0  # the same rows: the index alone differs
        assert json.loads(capsys.readouterr().out)["n_features"] == 2


@pytest.fixture
def parquet_samples(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="Parquet needs the optional pyarrow")
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(9000, 3)), rng.normal(size=(7000, 3)) + 0.1
    paths = []
    for name, data in (("x", X), ("y", Y)):
        path = tmp_path / f"{name}.parquet"
        table = pa.table({c: data[:, i] for i, c in enumerate("uvw")})
        pq.write_table(table, path, row_group_size=1000)
        paths.append(str(path))
    return paths, X, Y


def _json(capsys, *argv):
    status = main(["test", *argv, "--json", "--n-resamples", "99"])
    result = json.loads(capsys.readouterr().out)
    assert status == (EXIT_REJECT if result["reject"] else 0)
    return result


def test_cli_streams_parquet_in_batches(parquet_samples, capsys):
    (a, b), X, Y = parquet_samples
    from skmmd import MMDTest, RandomFourierSampler

    # A fixed bandwidth: every row counts, and any batch size gives the
    # in-memory test's result.
    ref = MMDTest(
        RandomFourierSampler(bandwidth=2.0, n_components=1024, random_state=0),
        n_resamples=99,
        random_state=0,
    ).fit(X, Y)
    for batch in ("0", "777", "5000"):
        out = _json(
            capsys,
            a,
            b,
            "--transformer",
            "rff",
            "--bandwidth",
            "2",
            "--batch-rows",
            batch,
        )
        assert out["statistic"] == pytest.approx(ref.statistic_, rel=1e-10)
        assert out["p_value"] == ref.p_value_ and out["n_held_out"] == 0
        assert (out["n_samples_x"], out["n_samples_y"]) == (9000, 7000)
    # The median bandwidth is fit on the first 1000 rows of each file, which
    # the statistic leaves out.
    out = _json(capsys, a, b, "--batch-rows", "3000")
    assert out["n_held_out"] == 2000
    assert (out["n_samples_x"], out["n_samples_y"]) == (8000, 6000)


def test_cli_streamed_bad_files(tmp_path, parquet_samples, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    (a, b), _, _ = parquet_samples
    text = tmp_path / "text.parquet"
    pq.write_table(pa.table({"u": ["x", "y"], "v": [1.0, 2.0], "w": [0.0, 1.0]}), text)
    # A numeric map streams and rejects strings (auto would read a table).
    assert main(["test", a, str(text), "--transformer", "rff"]) == 2
    assert "column 'u' holds string, not numbers" in capsys.readouterr().err
    narrow = tmp_path / "narrow.parquet"
    pq.write_table(pa.table({"u": np.arange(5000.0)}), narrow)
    assert main(["test", a, str(narrow), "--bandwidth", "1"]) == 2
    assert "only in the first ['v', 'w']" in capsys.readouterr().err


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
    expected = hsic_test(table, "spend", explain=True, n_resamples=99, random_state=0)
    assert result["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert result["p_value"] == expected.pvalue == 0.01
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
        (["--target", "spend", "--exact"], "X has non-numeric columns and x_trans"),
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
    assert main([*args, "--exact", "--n-resamples", "49", "--json"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["kernel"] == "exact" and result["p_value"] == 0.02


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
    with pytest.raises(SystemExit) as exit:  # before the table is read
        main([*args, "--aggregate", "--explain"])
    assert exit.value.code == 2
    assert "leave out --given, --exact and --explain" in capsys.readouterr().err


def test_cli_mmd_test_and_mmdtest_share_defaults(tmp_path, capsys):
    """The three front doors give the same statistic and p-value for the same
    data and seed: arrays (NPY, headerless CSV) get random Fourier features,
    tables (Parquet, CSV with a header) a TabularSampler."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from skmmd import MMDTest, mmd_test

    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(300, 3)), rng.normal(size=(250, 3)) + [0.3, 0, 0]
    np.save(tmp_path / "x.npy", X)
    np.savetxt(tmp_path / "y.csv", Y, delimiter=",")
    frames = [
        pd.DataFrame(
            {"a": V[:, 0], "b": V[:, 1], "city": rng.choice(["O", "L"], len(V))}
        )
        for V in (X, Y)
    ]
    frames[0].to_parquet(tmp_path / "x.parquet")
    frames[1].to_csv(tmp_path / "y_named.csv", index=False)
    cases = [
        ((X, Y), ("x.npy", "y.csv"), "RandomFourierSampler"),
        (frames, ("x.parquet", "y_named.csv"), "TabularSampler"),
    ]
    for (A, B), files, name in cases:
        argv = [str(tmp_path / f) for f in files]
        status = main(["test", *argv, "--seed", "7", "--n-resamples", "199", "--json"])
        cli = json.loads(capsys.readouterr().out)
        estimator = MMDTest(n_resamples=199, random_state=7).fit(A, B)
        function = mmd_test(A, B, n_resamples=199, random_state=7)
        assert cli["transformer"] == type(estimator.transformer_).__name__ == name
        assert cli["statistic"] == pytest.approx(estimator.statistic_, rel=1e-12)
        assert function.statistic == pytest.approx(estimator.statistic_, rel=1e-12)
        assert cli["p_value"] == estimator.p_value_ == function.pvalue < 0.05
        assert status == EXIT_REJECT


def test_cli_exit_status_says_whether_h0_was_rejected(samples, capsys):
    a, b, same = samples
    assert main(["test", str(a), str(same), "--n-resamples", "99"]) == 0
    assert "do not reject" in capsys.readouterr().out
    assert main(["test", str(a), str(b), "--n-resamples", "99"]) == EXIT_REJECT
    assert "decision = reject H0" in capsys.readouterr().out


def test_cli_json_null_distribution_on_request(samples, capsys):
    a, b, _ = samples
    argv = ["test", str(a), str(b), "--n-resamples", "49", "--json"]
    main([*argv, "--null-distribution"])
    assert len(json.loads(capsys.readouterr().out)["null_distribution"]) == 49


def test_cli_explain_streams_with_the_test(parquet_samples, capsys):
    """--explain on files read in batches: the report comes from the test's own
    pass (named columns, the first rows held out), equal to MMDTest's with
    explain_columns on the same chunks."""
    from skmmd import MMDTest, TabularSampler

    (a, b), X, Y = parquet_samples
    out = _json(capsys, a, b, "--batch-rows", "3000", "--explain")
    assert out["n_held_out"] == 2000 and "witness_points" not in out
    assert {row["column"] for row in out["columns"]} == {"u", "v", "w"}
    table_map = TabularSampler(random_state=0)  # the map of a table's batches
    test = MMDTest(table_map, explain_columns=True, n_resamples=99, random_state=0)
    for lo in range(0, 9000, 3000):
        test.partial_fit(
            X[lo : lo + 3000][: 1000 if lo == 0 else None],
            Y[lo : lo + 3000][: 1000 if lo == 0 else None],
        )
        if lo == 0:
            test.partial_fit(X[1000:3000], Y[1000:3000])
    assert out["p_value"] == test.p_value_
    statistics = dict(zip("uvw", test.column_report_.sort_values("column").statistic))
    for row in out["columns"]:
        assert row["statistic"] == pytest.approx(statistics[row["column"]], rel=1e-10)


def test_warmup_compiles_what_a_test_runs(capsys):
    assert main(["warmup"]) == 0
    assert capsys.readouterr().out.startswith("skmmd warmup: kernels compiled")
    out = io.StringIO()
    assert run_warmup(out=out) == 0 and "cached in" in out.getvalue()

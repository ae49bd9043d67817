"""The ``test`` command (skmmd/cli/_two_sample.py): sample files (CSV, .npy,
Parquet, read in batches), options, JSON and text output, exit statuses,
``--explain`` and ``--correction``, ``--report``, ``--n-resamples auto``."""

import json
import re
import sys

import numpy as np
import pytest

from skmmd import MMDTest, RandomFourierSampler, mmd_test
from skmmd.cli import EXIT_INPUT, EXIT_OK, EXIT_REJECT, _files, main
from skmmd.inspection import ColumnSummaries
from tests.helpers.cli import printed_rows
from tests.helpers.pages import self_contained


def test_cli_table_without_pandas_says_what_to_install(
    sample_files, monkeypatch, capsys
):
    a, b, _ = sample_files
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
def test_cli_json(sample_files, capsys, transformer):
    a, b, _ = sample_files
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


def test_cli_text_is_reproducible(sample_files, capsys):
    a, _, same = sample_files
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
def test_cli_bad_files(tmp_path, sample_files, capsys, content, match):
    bad = _write(tmp_path / "bad.csv", content)
    good = str(sample_files[2])
    # Numeric transformer: a non-numeric value is an error (auto reads a table).
    assert main(["test", bad, good, "--transformer", "rff"]) == 2
    err = capsys.readouterr().err
    assert "python -m skmmd test: error:" in err
    assert re.search(match, err)


def test_cli_file_errors(tmp_path, sample_files, capsys):
    a, b, _ = sample_files
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
def test_cli_bad_options(sample_files, capsys, extra, match):
    a, b, _ = sample_files
    with pytest.raises(SystemExit) as exc:
        main(["test", str(a), str(b), *extra])
    assert exc.value.code == 2
    assert re.search(match, capsys.readouterr().err)


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
    batches = ["--chunk-rows", "64", "--transformer", "rff", "--bandwidth", "1"]
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
            "--chunk-rows",
            batch,
        )
        assert out["statistic"] == pytest.approx(ref.statistic_, rel=1e-10)
        assert out["p_value"] == ref.p_value_ and out["n_train"] == 0
        assert (out["n_samples_x"], out["n_samples_y"]) == (9000, 7000)
    # The median bandwidth is fit on the first 1000 rows of each file, which
    # the statistic leaves out.
    out = _json(capsys, a, b, "--chunk-rows", "3000")
    assert out["n_train"] == 2000
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


def test_cli_mmd_test_and_mmdtest_share_defaults(tmp_path, capsys):
    """The three front doors give the same statistic and p-value for the same
    data and seed: arrays (NPY, headerless CSV) get random Fourier features,
    tables (Parquet, CSV with a header) a TabularSampler."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")

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


def test_cli_exit_status_says_whether_h0_was_rejected(sample_files, capsys):
    a, b, same = sample_files
    assert main(["test", str(a), str(same), "--n-resamples", "99"]) == 0
    assert "do not reject" in capsys.readouterr().out
    assert main(["test", str(a), str(b), "--n-resamples", "99"]) == EXIT_REJECT
    assert "decision = reject H0" in capsys.readouterr().out


def test_cli_json_null_distribution_on_request(sample_files, capsys):
    a, b, _ = sample_files
    argv = ["test", str(a), str(b), "--n-resamples", "49", "--json"]
    main([*argv, "--null-distribution"])
    assert len(json.loads(capsys.readouterr().out)["null_distribution"]) == 49


def test_cli_explain_streams_with_the_test(parquet_samples, capsys):
    """--explain on files read in batches: the report comes from the test's own
    pass (named columns, the first rows held out), equal to MMDTest's with
    explain_columns on the same chunks."""
    from skmmd import TabularSampler

    (a, b), X, Y = parquet_samples
    out = _json(capsys, a, b, "--chunk-rows", "3000", "--explain")
    assert out["n_train"] == 2000 and "witness_points" not in out
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


N_COLUMNS, SHIFTED = 500, ["x007", "x250", "x444"]


@pytest.fixture(scope="module")
def wide_files(tmp_path_factory):
    """Two Parquet samples of 400 rows and 500 columns; three columns of the
    second shifted by one standard deviation."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    names = [f"x{i:03d}" for i in range(N_COLUMNS)]
    X = pd.DataFrame(rng.normal(size=(400, N_COLUMNS)), columns=names)
    Y = pd.DataFrame(rng.normal(size=(400, N_COLUMNS)), columns=names)
    Y[SHIFTED] += 1.0
    folder = tmp_path_factory.mktemp("wide")
    a, b = folder / "a.parquet", folder / "b.parquet"
    X.to_parquet(a, index=False)
    Y.to_parquet(b, index=False)
    return ["test", str(a), str(b), "--explain", "--n-resamples", "199"]


def test_explain_counts_the_moved_columns_of_500(wide_files, capsys):
    # Exit status 1: H0 rejected (skmmd.cli's documented statuses).
    assert main(wide_files) == EXIT_REJECT == 1
    out = capsys.readouterr().out
    rows, heading = printed_rows(out, "per-column report:")
    assert heading == (
        "per-column report: 3 of 500 columns moved at alpha = 0.05 "
        "(family-wise error controlled by step-down maxT)"
    )
    assert len(rows) == 20  # the top rows, not 500
    assert {row[0] for row in rows[:3]} == set(SHIFTED)
    assert "... and 480 more columns (none moved; --json lists them all)" in out
    # The witness rows show the columns of the report's rows, not all 500.
    assert (
        "rows where the witness is most extreme (the report's 20 columns above; "
        "--json has all 500):" in out
    )


def test_correction_fdr_is_printed(wide_files, capsys):
    assert main([*wide_files, "--correction", "fdr"]) == EXIT_REJECT
    out = capsys.readouterr().out
    rows, heading = printed_rows(out, "per-column report:")
    # Every moved column is printed (adjusted_p_value: the fifth column).
    moved = {row[0] for row in rows if float(row[4]) <= 0.05}
    assert set(SHIFTED) <= moved
    assert heading == (
        f"per-column report: {len(moved)} of 500 columns moved at alpha = 0.05 "
        "(false discovery rate controlled by Benjamini-Hochberg)"
    )
    assert "step-down maxT" not in out


def test_json_carries_the_correction_and_every_column(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(2)
    names = [f"v{i}" for i in range(30)]
    X = pd.DataFrame(rng.normal(size=(300, 30)), columns=names)
    Y = pd.DataFrame(rng.normal(size=(300, 30)), columns=names)
    Y[["v4", "v9"]] += 1.0
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    X.to_parquet(a, index=False)
    Y.to_parquet(b, index=False)
    argv = ["test", str(a), str(b), "--explain", "--n-resamples", "99", "--json"]
    assert main(argv) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["correction"] == "fwer"  # the default
    assert len(result["columns"]) == 30  # every column, not the top rows
    assert {"pooled_p_value", "adjusted_p_value"} <= set(result["columns"][0])
    assert main([*argv, "--correction", "none"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["correction"] == "none"
    # Not adjusted: each column's own permutation p-value.
    assert all(c["adjusted_p_value"] == c["p_value"] for c in result["columns"])
    moved = {c["column"] for c in result["columns"] if c["adjusted_p_value"] <= 0.05}
    assert {"v4", "v9"} <= moved


def _null_xy(seed, n=200):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 2)), rng.normal(size=(n, 2))


def test_command_line_auto(tmp_path, capsys):
    import json

    from skmmd.cli import main

    X, Y = _null_xy(11)
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for path, V in zip(paths, (X, Y)):
        np.savetxt(path, V, delimiter=",")
    args = ["test", *map(str, paths), "--seed", "0", "--json"]
    assert main([*args, "--n-resamples", "auto"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_resamples"] == "auto" and 16 <= out["n_resamples_used"] < 999
    with pytest.raises(SystemExit):
        main([*args, "--n-resamples", "fast"])
    assert 'must be an integer or "auto"' in capsys.readouterr().err


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
    page = self_contained(path.read_text(encoding="utf-8"))
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
    pytest.importorskip("pandas", reason="the report's tables use pandas")
    pa = pytest.importorskip("pyarrow", reason="Parquet needs pyarrow")
    import pyarrow.parquet as pq

    import skmmd.cli._two_sample as cli

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
    iter_chunks = _files.iter_chunks
    monkeypatch.setattr(
        _files,
        "iter_chunks",
        lambda *a, **k: reads.append(a[0]) or iter_chunks(*a, **k),
    )

    class Spy(ColumnSummaries):
        def update(self, X, Y, names=None):
            updates.append((len(X), len(Y), names))
            return super().update(X, Y, names)

    monkeypatch.setattr(cli, "ColumnSummaries", Spy)
    report = tmp_path / "r.html"
    argv = [*paths, "--chunk-rows", "2000", "--explain", "--n-resamples", "99"]
    assert main(["test", *argv, "--report", str(report)]) == EXIT_REJECT
    assert sorted(reads) == sorted(paths)  # each file read once
    assert updates == [(2000, 2000, ["u", "v"])] * 3
    page = self_contained(report.read_text(encoding="utf-8"))
    assert page.column_figures() == ["u"]
    assert "n_train</th><td>2000" in report.read_text(encoding="utf-8")
    capsys.readouterr()


@pytest.mark.parametrize(
    "suffix, batches", [(".csv", False), (".parquet", False), (".csv", True)]
)
def test_report_out_writes_every_column_as_the_json_lists_them(
    tmp_path, capsys, suffix, batches
):
    """--report-out: the whole per-column report (every column, every
    p-value, moved), CSV or Parquet by the suffix; read in batches, with the
    columns' names."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(2)
    names = [f"v{i}" for i in range(30)]
    n = 1300 if batches else 300  # batches: 1000 rows held out to fit the maps
    X = pd.DataFrame(rng.normal(size=(n, 30)), columns=names)
    Y = pd.DataFrame(rng.normal(size=(n, 30)), columns=names)
    Y[["v4", "v9"]] += 1.0
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    X.to_parquet(a, index=False)
    Y.to_parquet(b, index=False)
    out = tmp_path / f"columns{suffix}"
    argv = ["test", str(a), str(b), "--explain", "--n-resamples", "99",
            "--report-out", str(out)]  # fmt: skip
    if batches:
        argv += ["--chunk-rows", "500", "--transformer", "rff"]
    assert main(argv) == EXIT_REJECT
    assert f"columns  = {out} (the per-column report)" in capsys.readouterr().out
    assert main([*argv, "--json"]) == EXIT_REJECT
    columns = json.loads(capsys.readouterr().out)["columns"]
    written = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
    assert len(written) == 30
    assert list(written["column"]) == [c["column"] for c in columns]
    assert {"v4", "v9"} <= set(written["column"][written["moved"]])
    for key in ("p_value", "pooled_p_value", "adjusted_p_value"):
        assert written[key].tolist() == pytest.approx([c[key] for c in columns])
    if suffix == ".parquet":  # the report's attrs kept
        assert written.attrs["correction"] == "fwer"
        assert written.attrs["alpha"] == 0.05


def test_cli_exit_status_is_the_decision_over_the_table_and_its_columns(
    tmp_path, capsys
):
    """A wide table where one column's scale moved: the table's statistic
    alone does not reject, the column report flags the column, and the exit
    status follows the report (on main it was 0, under "5 of 500 columns
    moved"); ``--decision table`` keeps the table's test."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    names = [f"c{j}" for j in range(60)]
    X = pd.DataFrame(rng.normal(size=(1500, 60)), columns=names)
    Y = pd.DataFrame(rng.normal(size=(1500, 60)), columns=names)
    Y["c0"] *= 1.3
    X.to_csv(tmp_path / "ref.csv", index=False)
    Y.to_csv(tmp_path / "cur.csv", index=False)
    args = ["test", str(tmp_path / "ref.csv"), str(tmp_path / "cur.csv"), "--explain"]
    assert main([*args, "--json"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["reject"] and result["table_p_value"] > 0.05
    assert [c["column"] for c in result["columns"] if c["moved"]] == ["c0"]
    assert main([*args, "--decision", "table"]) == 0
    assert "decision = do not reject H0" in capsys.readouterr().out


def test_run_test_leaves_the_parsed_arguments_as_they_were(
    sample_files, capsys, monkeypatch
):
    """The command reads what its files hold into a copy of its arguments."""
    from skmmd.cli import _two_sample

    seen = {}

    def spy(command, args, name):
        before = dict(vars(args))
        status = command(args)
        seen.update(before=before, after=dict(vars(args)))
        return status

    monkeypatch.setattr(_two_sample, "run", spy)
    a, _, same = sample_files
    assert _two_sample.command([str(a), str(same), "--seed", "1"]) == EXIT_OK
    assert seen["after"] == seen["before"]

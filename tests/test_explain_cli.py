"""--explain and --correction of the commands on a wide table: the printed
report counts the columns that moved out of all under the correction named,
shows only its top rows, --json carries the correction, and --correction
without --explain is a usage error before any file is read."""

import json

import numpy as np
import pytest

from skmmd.cli import EXIT_REJECT, main

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

N_COLUMNS, SHIFTED = 500, ["x007", "x250", "x444"]


@pytest.fixture(scope="module")
def wide_files(tmp_path_factory):
    """Two Parquet samples of 400 rows and 500 columns; three columns of the
    second shifted by one standard deviation."""
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


def _printed_rows(text, heading):
    """The rows of the table printed under the line starting with
    ``heading`` (after its header line), up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip() or line.startswith("..."):
            break
        rows.append(line.split())
    return rows, lines[start]


def test_explain_counts_the_moved_columns_of_500(wide_files, capsys):
    # Exit status 1: H0 rejected (skmmd.cli's documented statuses).
    assert main(wide_files) == EXIT_REJECT == 1
    out = capsys.readouterr().out
    rows, heading = _printed_rows(out, "per-column report:")
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
    rows, heading = _printed_rows(out, "per-column report:")
    # Every moved column is printed (adjusted_p_value: the fifth column).
    moved = {row[0] for row in rows if float(row[4]) <= 0.05}
    assert set(SHIFTED) <= moved
    assert heading == (
        f"per-column report: {len(moved)} of 500 columns moved at alpha = 0.05 "
        "(false discovery rate controlled by Benjamini-Hochberg)"
    )
    assert "step-down maxT" not in out


def test_json_carries_the_correction_and_every_column(tmp_path, capsys):
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


@pytest.mark.parametrize("command", ["test", "independence"])
def test_correction_without_explain_is_refused_before_reading(
    tmp_path, capsys, command
):
    missing = str(tmp_path / "no-such-file.parquet")
    argv = {
        "test": ["test", missing, missing],
        "independence": ["independence", missing, "--target", "y"],
    }[command]
    with pytest.raises(SystemExit) as exc:  # argparse's usage error
        main([*argv, "--correction", "fdr"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error: --correction adjusts the per-column p-values of --explain" in err
    assert "no-such-file" not in err.splitlines()[-1]  # not about the file


def test_independence_explain_names_the_correction(tmp_path, capsys):
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
    rows, heading = _printed_rows(out, "per-column dependence on 'y':")
    assert heading == (
        "per-column dependence on 'y': 2 of 30 columns depend on 'y' at alpha = "
        "0.05 (false discovery rate controlled by Benjamini-Yekutieli)"
    )
    assert {row[0] for row in rows[:2]} == {"f0", "f3"} and len(rows) == 20
    assert "... and 10 more columns (none depend on 'y'" in out
    assert main([*argv, "--json"]) == EXIT_REJECT
    result = json.loads(capsys.readouterr().out)
    assert result["correction"] == "fdr_by" and len(result["columns"]) == 30

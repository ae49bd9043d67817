"""The options the commands share (skmmd/cli/_options.py): --correction and
--report-out checked before any file is read, and the printed numbers."""

import sys

import numpy as np
import pytest

from skmmd.cli import main


@pytest.mark.parametrize("command", ["test", "independence"])
def test_decision_without_explain_is_refused_before_reading(tmp_path, capsys, command):
    missing = str(tmp_path / "no-such-file.parquet")
    argv = {
        "test": ["test", missing, missing],
        "independence": ["independence", missing, "--target", "y"],
    }[command]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--decision", "table"])
    assert exc.value.code == 2
    assert "--decision applies to the per-column report" in capsys.readouterr().err


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
    assert "error: --correction applies to the per-column report of --explain" in err
    assert "no-such-file" not in err.splitlines()[-1]  # not about the file


def test_printed_numbers_read_as_what_they_are():
    from types import SimpleNamespace

    from skmmd.cli._options import effect_line, p_value_line

    # A fixed test's p-value is a fraction, (1 + k) / (B + 1).
    fixed = SimpleNamespace(p_value_=17 / 200, n_resamples_used_=199)
    assert p_value_line(fixed, 199) == "p-value  = 17/200 = 0.085"
    stopped = SimpleNamespace(p_value_=0.5882352941176326, n_resamples_used_=16)
    assert p_value_line(stopped, "auto") == (
        "p-value  = 0.5882 (sequential: stopped after 16 of 999 resamples)"
    )
    # The interval of a squared norm starts at 0; an unbiased estimate below
    # 0 is printed as 0, so the interval contains what is printed.
    line = effect_line("HSIC", -7.218e-06, 0.0, 1.115e-05, 0.95)
    assert line == (
        "effect   = HSIC 0 (unbiased estimate -7.218e-06: below 0 by chance), "
        "95% interval [0, 1.115e-05]"
    )
    assert effect_line("MMD^2", 0.01, 0.005, 0.02, 0.9) == (
        "effect   = MMD^2 0.01, 90% interval [0.005, 0.02]"
    )


def _argv(command, path):
    return {
        "test": ["test", path, path],
        "independence": ["independence", path, "--target", "y"],
    }[command]


@pytest.mark.parametrize("command", ["test", "independence"])
@pytest.mark.parametrize(
    "options, message",
    [
        (["--report-out", "r.csv"], "--report-out writes the per-column report of "
         "--explain: add --explain"),
        (["--explain", "--report-out", "r.xlsx"], "the suffix chooses the format, "
         ".csv or .parquet; got .xlsx"),
        (["--explain", "--report-out", "r"], "got no suffix"),
    ],
)  # fmt: skip
def test_report_out_is_checked_before_reading(
    tmp_path, capsys, command, options, message
):
    missing = str(tmp_path / "no-such-file.parquet")
    with pytest.raises(SystemExit) as exc:  # argparse's usage error
        main([*_argv(command, missing), *options])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "no-such-file" not in err.splitlines()[-1]  # not about the file


@pytest.mark.parametrize("command", ["test", "independence"])
def test_report_out_parquet_without_pyarrow_names_the_extra(
    tmp_path, capsys, monkeypatch, command
):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # not installed
    missing = str(tmp_path / "no-such-file.csv")
    out = str(tmp_path / "columns.parquet")
    with pytest.raises(SystemExit) as exc:
        main([*_argv(command, missing), "--explain", "--report-out", out])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "writes Parquet, which needs pyarrow: pip install 'skmmd[tables]'" in err


def test_report_out_in_a_missing_folder_is_refused_before_reading(tmp_path, capsys):
    missing = str(tmp_path / "no-such-file.csv")
    out = tmp_path / "nowhere" / "columns.csv"
    with pytest.raises(SystemExit):
        main([*_argv("test", missing), "--explain", "--report-out", str(out)])
    assert "cannot write the report there" in capsys.readouterr().err


def test_independence_report_out_writes_the_screening(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    table = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "d"])
    table["y"] = table["b"] + 0.3 * rng.normal(size=200)
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "screening.csv"
    argv = ["independence", str(path), "--target", "y", "--explain",
            "--n-resamples", "99", "--report-out", str(out)]  # fmt: skip
    assert main(argv) == 1
    assert f"columns  = {out} (the per-column report)" in capsys.readouterr().out
    written = pd.read_csv(out)
    assert sorted(written["column"]) == ["a", "b", "c", "d"]
    assert written["column"].iloc[0] == "b" and bool(written["depends"].iloc[0])
    assert {"p_value", "pooled_p_value", "adjusted_p_value"} <= set(written)

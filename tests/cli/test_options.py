"""The options the commands share (skmmd/cli/_options.py)."""

import pytest

from skmmd.cli import main


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

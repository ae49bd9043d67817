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

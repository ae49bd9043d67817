"""The ``warmup`` command (skmmd/cli/_warmup.py)."""

import io

from skmmd.__main__ import main, run_warmup


def test_warmup_compiles_what_a_test_runs(capsys):
    assert main(["warmup"]) == 0
    assert capsys.readouterr().out.startswith("skmmd warmup: kernels compiled")
    out = io.StringIO()
    assert run_warmup(out=out) == 0 and "cached in" in out.getvalue()

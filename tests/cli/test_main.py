"""The entry point (``main`` of skmmd/cli/__init__.py, ``python -m skmmd``):
no arguments run both demos; bad arguments exit."""

import subprocess
import sys

import pytest

import skmmd.cli._demo as _demo
from skmmd.__main__ import main


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

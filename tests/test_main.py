import io
import subprocess
import sys

import pytest

from skmmd.__main__ import main, run_demo


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


def test_module_entry_point_runs_demo():
    result = subprocess.run(
        [sys.executable, "-m", "skmmd"], capture_output=True, text=True, check=True
    )
    assert "exact SVC(rbf)" in result.stdout


def test_bad_arguments():
    with pytest.raises(SystemExit):
        main(["--copies", "0"])

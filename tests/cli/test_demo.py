"""The demos (skmmd/cli/_demo.py): the SVM demo's accuracy and the
two-sample demo's decisions."""

import io

import pytest

from skmmd.__main__ import run_demo, run_two_sample_demo


def test_demo_prints_both_models_at_the_same_accuracy():
    """The first table is where random features win (many rows): the same
    accuracy as the exact SVM, within a point (times are the benchmarks')."""
    out = io.StringIO()
    run_demo(out=out, rows=4000)
    text = out.getvalue()
    assert text.startswith("numba kernels ready in")
    rows = [line.split() for line in text.splitlines() if line.startswith("moons")]
    assert len(rows) == 2
    accuracies = [float(row[-2]) for row in rows]
    assert min(accuracies) > 0.88
    assert abs(accuracies[0] - accuracies[1]) <= 0.01


@pytest.mark.slow
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

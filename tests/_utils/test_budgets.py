"""Budgets turned into slices: computations done a slice of columns at a
time give the results of the whole array, bit for bit."""

import numpy as np
import pytest

from skmmd._inference._corrections import fitted_log_p_values
from skmmd._tables._columnwise_fourier import _median_distances, _median_pairs
from skmmd._utils import _budgets


@pytest.mark.parametrize("n_columns", [0, 1, 2, 3, 7, 64, 65, 129, 130])
@pytest.mark.parametrize("n_rows", [1, 1000, 2**16, 2**20])
def test_column_slices_cover_the_columns_in_order_none_of_one_column(n_columns, n_rows):
    slices = _budgets.column_slices(n_columns, n_rows)
    covered = [j for part in slices for j in range(n_columns)[part]]
    assert covered == list(range(n_columns))
    widths = [part.stop - part.start for part in slices]
    assert all(w >= 2 for w in widths) or widths == [1]
    # Within the budget (two columns at least), the last one column over.
    step = max(2, _budgets.SLICE_ENTRIES // n_rows)
    assert all(w <= step for w in widths[:-1])
    assert all(w <= step + 1 for w in widths[-1:])


def test_a_single_column_is_reduced_differently_which_is_why_none_is_alone():
    # The reason column_slices never leaves a column alone: NumPy sums one
    # column pairwise, several row by row. If it ever stops doing so, the
    # rule may go, but this test must then be changed knowingly.
    rng = np.random.default_rng(0)
    values = np.abs(rng.standard_cauchy((4096, 3)))
    alone = np.sum(values[:, :1], axis=0)
    together = np.sum(values[:, :2], axis=0)[:1]
    assert alone[0] != together[0]


@pytest.mark.parametrize("n_columns", [1, 2, 33, 300])
def test_sliced_computations_equal_the_whole_array_s(monkeypatch, n_columns):
    rng = np.random.default_rng(n_columns)
    T = rng.gamma(2.0, size=(400, n_columns))
    T[:, ::5] = 3.0  # constant columns
    values = rng.standard_cauchy((500, n_columns))
    values[rng.random(values.shape) < 0.2] = np.nan
    values[:, ::4] = np.round(values[:, ::4])  # ties
    pairs = _median_pairs(500, np.random.default_rng(1))
    sliced = fitted_log_p_values(T), _median_distances(values, pairs)
    monkeypatch.setattr(_budgets, "SLICE_ENTRIES", 2**40)
    whole = fitted_log_p_values(T), _median_distances(values, pairs)
    monkeypatch.setattr(_budgets, "SLICE_ENTRIES", 2)
    narrow = fitted_log_p_values(T), _median_distances(values, pairs)
    for a, b, c in zip(sliced, whole, narrow):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(c, b)


def test_no_module_writes_a_budget_again():
    # Each size is written once, in _budgets (issue 82: _PART_ENTRIES once
    # shadowed PART_ENTRIES with another value; _GRID_ROWS and _FIT_ROWS were
    # each written twice). A module-level constant of another module named
    # like a budget (with or without a leading underscore) is a second copy.
    import ast
    from pathlib import Path

    import skmmd

    names = {name for name in vars(_budgets) if name.isupper()}
    root = Path(skmmd.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "_budgets.py":
            continue
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Name) and target.id.lstrip("_") in names:
                    found.append(f"{path.relative_to(root)}: {target.id}")
    assert len(names) > 20
    assert found == []

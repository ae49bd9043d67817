"""The package's layers (doc/development/architecture.rst) are kept: the
import-linter contracts of pyproject.toml pass, an upward import breaks them,
and no two modules import each other, even through a chain."""

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

ROOT = Path(__file__).resolve().parents[1]


def _lint(root):
    """``lint-imports`` on the package under ``root``: (exit code, report)."""
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command;lint_imports_command()",
            "--no-cache",
        ],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
    )
    return run.returncode, run.stdout + run.stderr


def test_import_contracts_are_kept():
    code, report = _lint(ROOT)
    assert code == 0, report
    assert "0 broken" in report and "BROKEN" not in report


def _lint_with_import(tmp_path, module, line):
    """lint-imports on a copy of the package with ``line`` added to ``module``."""
    shutil.copytree(ROOT / "skmmd", tmp_path / "skmmd")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    path = tmp_path / "skmmd" / module
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")
    return _lint(tmp_path)


def test_an_upward_import_breaks_the_layers(tmp_path):
    code, report = _lint_with_import(
        tmp_path, "kernel_approximation/_base.py", "from .._testing import _streaming"
    )
    assert code != 0
    assert "Packages form layers: each imports only those below it BROKEN" in report
    assert "skmmd.kernel_approximation._base -> skmmd._testing._streaming" in report


def test_a_family_importing_another_breaks_the_contracts(tmp_path):
    code, report = _lint_with_import(
        tmp_path, "two_sample/_mmd.py", "from ..independence import _hsic"
    )
    assert code != 0
    assert "The families of tests never import each other BROKEN" in report
    assert "skmmd.two_sample._mmd -> skmmd.independence._hsic" in report


def test_no_import_cycles():
    graph = grimp.build_graph("skmmd")
    modules = sorted(graph.modules)
    index = {m: i for i, m in enumerate(modules)}
    edges = [
        (index[m], index[imported])
        for m in modules
        for imported in graph.find_modules_directly_imported_by(m)
    ]
    rows, cols = np.array(edges).T
    adjacency = sp.csr_matrix(
        (np.ones(len(edges)), (rows, cols)), shape=(len(modules), len(modules))
    )
    _, labels = connected_components(adjacency, connection="strong")
    sizes = np.bincount(labels)
    cycles = [
        [m for m, label in zip(modules, labels) if label == big]
        for big in np.flatnonzero(sizes > 1)
    ]
    assert not cycles, cycles

"""The package's layers (doc/development/architecture.rst) are kept: the
import-linter contracts of pyproject.toml pass, an upward import breaks them,
no two modules import each other, even through a chain, no module takes a
private name from another package or reads a private attribute that only
another package (or library) defines, no module is over 600 lines, no
function over 80 lines of code and no class over 450 lines."""

import ast
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
        tmp_path, "kernel_approximation/_base.py", "from .._inference import _streaming"
    )
    assert code != 0
    assert "Packages form layers: each imports only those below it BROKEN" in report
    assert "skmmd.kernel_approximation._base -> skmmd._inference._streaming" in report


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


def _private_names_across_packages(root):
    """``path:line name`` of each private (underscored) name a module of
    ``root/skmmd`` takes from another package: imported by name, or read as
    an attribute of a module imported from another package. Modules
    themselves may be private (``from .._inference import _calibration``)."""
    found = []
    for path in sorted((root / "skmmd").rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = {}  # local name -> a module of another package
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            base = path.parents[node.level - 1]
            target = base.joinpath(
                *(node.module or "").split(".") if node.module else []
            )
            for alias in node.names:
                candidate = target / alias.name
                if candidate.with_suffix(".py").exists() or candidate.is_dir():
                    if candidate.parent != path.parent and not candidate.is_dir():
                        modules[alias.asname or alias.name] = candidate
                    continue
                package = target if target.is_dir() else target.parent
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and package != path.parent:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {alias.name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
            ):
                name = f"{node.value.id}.{node.attr}"
                found.append(f"{path.relative_to(root)}:{node.lineno} {name}")
    return found


def test_no_private_name_is_imported_across_packages():
    assert _private_names_across_packages(ROOT) == []


def test_a_private_name_from_another_package_is_found(tmp_path):
    shutil.copytree(ROOT / "skmmd", tmp_path / "skmmd")
    path = tmp_path / "skmmd" / "two_sample" / "_sums.py"
    path.write_text(
        path.read_text()
        + "\nfrom .._inference._corrections import _FIT_ENTRIES  # noqa\n"
        + "from .._inference import _calibration  # noqa\n"
        + "_calibration._LOOKS  # noqa\n"
    )
    found = _private_names_across_packages(tmp_path)
    assert len(found) == 2
    assert found[0].endswith("_FIT_ENTRIES") and found[1].endswith(
        "_calibration._LOOKS"
    )


def _package(root, path):
    """The package of ``path`` (``skmmd/<package>/...``, or a top-level
    module's own name)."""
    parts = path.relative_to(root / "skmmd").parts
    return parts[0] if len(parts) > 1 else path.stem


# The public methods of namedtuples, whose names start with an underscore.
_NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make"}


def _private_attributes_across_packages(root):
    """``path:line expression`` of each private (underscored, not dunder)
    attribute a module of ``root/skmmd`` reads on an object other than
    ``self``, ``cls`` or ``super()``, when its own package defines no
    attribute of that name (as a method, a class or module attribute, or an
    assignment ``obj._name = ...``): such a read reaches into an object of
    another package or of another library. The one exception is
    ``_utils/_compat.py``, the place where scikit-learn's and scipy's private
    helpers are given public names. An attribute both packages define passes;
    the engines, results and samplers talk through public names
    (doc/development/architecture.rst)."""
    trees = {
        path: ast.parse(path.read_text()) for path in (root / "skmmd").rglob("*.py")
    }
    defined = {}
    for path, tree in trees.items():
        names = defined.setdefault(_package(root, path), set())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    found = []
    for path, tree in sorted(trees.items()):
        if path.relative_to(root).as_posix() == "skmmd/_utils/_compat.py":
            continue
        names = defined[_package(root, path)]
        for node in ast.walk(tree):
            read = _attribute_read(node)
            if read is None:
                continue
            name, owner = read
            if not name.startswith("_") or name.startswith("__"):
                continue
            if name in _NAMEDTUPLE_API or name in names:
                continue
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "super":
                continue
            found.append((f"{path.relative_to(root)}", node.lineno, ast.unparse(node)))
    return [f"{where}:{line} {text}" for where, line, text in sorted(found)]


# The builtins that reach an attribute by its name.
_BY_NAME = ("getattr", "hasattr", "setattr", "delattr")


def _attribute_read(node):
    """``(name, owner)`` of an attribute read, ``owner.name`` or by a
    constant name, ``getattr(owner, "name")`` (``hasattr``, ``setattr``,
    ``delattr`` too); None for any other node."""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr, node.value
    if (
        isinstance(node, ast.Call)
        and getattr(node.func, "id", None) in _BY_NAME
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return node.args[1].value, node.args[0]
    return None


def test_no_private_attribute_is_read_across_packages():
    assert _private_attributes_across_packages(ROOT) == []


def test_a_private_attribute_of_another_package_is_found(tmp_path):
    """The check above can fail: a driver reaching into a family's test, a
    result's private words, a scipy private outside ``_compat``."""
    shutil.copytree(ROOT / "skmmd", tmp_path / "skmmd")
    path = tmp_path / "skmmd" / "_inference" / "_engines.py"
    path.write_text(
        path.read_text()
        + "\n\ndef _injected(test, result, frozen):  # noqa\n"
        + "    test._two_samples(None, None)\n"
        + "    frozen.dist._parse_args()\n"
        + "    hasattr(result, '_FINDING')\n"
        + "    return self._anything, test.__class__\n"
    )
    found = _private_attributes_across_packages(tmp_path)
    assert [f.split(" ", 1)[1] for f in found] == [
        "test._two_samples",
        "frozen.dist._parse_args",
        "hasattr(result, '_FINDING')",
    ]
    assert all(f.startswith("skmmd/_inference/_engines.py:") for f in found)


def test_no_module_is_over_600_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path in (ROOT / "skmmd").rglob("*.py")
        if (n := len(path.read_text().splitlines())) > 600
    }
    assert long == {}


def _long_bodies(root):
    """``path:line name lines`` of each function whose code is over 80 lines
    (its docstring aside: a public function's numpydoc is documentation,
    not work) and each class over 450 lines (all of it), in
    ``root/skmmd``."""
    found = []
    for path in sorted((root / "skmmd").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ):
                continue
            lines = node.end_lineno - node.lineno + 1
            if isinstance(node, ast.ClassDef):
                limit = 450
            else:
                limit = 80
                if ast.get_docstring(node, clean=False) is not None:
                    doc = node.body[0]
                    lines -= doc.end_lineno - doc.lineno + 1
            if lines > limit:
                where = f"{path.relative_to(root)}:{node.lineno}"
                found.append(f"{where} {node.name} {lines}")
    return found


def test_no_function_over_80_lines_and_no_class_over_450():
    assert _long_bodies(ROOT) == []


def test_a_long_function_and_a_long_class_are_found(tmp_path):
    """A function of 80 lines (its def line, 79 of body) passes, whatever its
    docstring; one of 81 does not; nor does a class of 451 lines."""
    shutil.copytree(ROOT / "skmmd", tmp_path / "skmmd")
    path = tmp_path / "skmmd" / "_utils" / "_budgets.py"
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    path.write_text(
        path.read_text()
        + '\n\ndef _eighty(x):\n    """A docstring is not counted."""\n'
        + body
        + "\n\ndef _eighty_one(x):\n"
        + body
        + "    return x\n"
        + "\n\nclass _Long:\n"
        + "".join(f"    x{i} = {i}\n" for i in range(450))
    )
    found = [f.split(" ", 1)[1] for f in _long_bodies(tmp_path)]
    assert found == ["_eighty_one 81", "_Long 451"]

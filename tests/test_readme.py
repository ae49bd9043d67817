"""The README's quick-start commands are the ones CI runs and the docs show."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands(start, stop):
    # The same rule as .ci/run: indented `python -m pip install` lines between
    # two headings of README.rst.
    text = (ROOT / "README.rst").read_text()
    section = text[text.index(f"\n{start}\n") : text.index(f"\n{stop}\n")]
    return re.findall(r"^   (python -m pip install .*)$", section, flags=re.M)


def _quick_start_commands():
    return _readme_commands("Quick start", "What is in it")


def test_readme_has_install_demo_and_test_commands():
    install_demo, tests = _quick_start_commands()
    assert install_demo == "python -m pip install . && python -m skmmd"
    assert tests.endswith("python -m pytest")


def test_readme_documentation_command_builds_the_docs_strictly():
    (docs,) = _readme_commands("Documentation", "Development")
    assert docs.startswith('python -m pip install ".[docs]" && python -m sphinx')
    assert " -W " in docs and docs.split()[-2:] == ["doc", "doc/_build/html"]


def test_ci_runs_the_readme_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "README.rst" in ci
    for heading in ("Quick start", "What is in it", "Documentation", "Development"):
        assert f'"{heading}"' in ci
    assert "python -m venv" in ci or "python3 -m venv" in ci


def test_docs_include_the_readme_commands():
    page = (ROOT / "doc" / "getting_started.rst").read_text()
    assert ".. include:: ../README.rst" in page

"""The README's quick-start commands are the ones CI runs and the docs show."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_commands():
    # The same rule as .ci/run: indented `python -m pip install` lines between
    # the "Quick start" and "What is in it" headings.
    text = (ROOT / "README.rst").read_text()
    section = text[text.index("Quick start") : text.index("What is in it")]
    return re.findall(r"^   (python -m pip install .*)$", section, flags=re.M)


def test_readme_has_install_demo_and_test_commands():
    install_demo, tests = _quick_start_commands()
    assert install_demo == "python -m pip install . && python -m skmmd"
    assert tests.endswith("python -m pytest")


def test_ci_runs_the_readme_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "README.rst" in ci and "Quick start" in ci and "What is in it" in ci
    assert "python -m venv" in ci or "python3 -m venv" in ci


def test_docs_include_the_readme_commands():
    page = (ROOT / "doc" / "getting_started.rst").read_text()
    assert ".. include:: ../README.rst" in page

"""Every script in benchmarks/ imports: a private name it reads that the
package renamed fails here, not when the benchmark is next run."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_imports(path, monkeypatch):
    # The scripts import each other's helpers by plain name.
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(f"_bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as error:
        if error.name and error.name.split(".")[0] in ("skmmd", "bench_explain"):
            raise
        pytest.skip(f"{path.name} needs {error.name}, not installed here")
    except SystemExit as stop:  # a script that names its missing dependency
        pytest.skip(str(stop))
    finally:
        sys.modules.pop(f"_bench_{path.stem}", None)


def test_the_check_can_fail(tmp_path, monkeypatch):
    bad = tmp_path / "bench_renamed.py"
    bad.write_text("from skmmd.statistics._conditional import ConditionalParts\n")
    with pytest.raises(ImportError):
        test_benchmark_imports(bad, monkeypatch)

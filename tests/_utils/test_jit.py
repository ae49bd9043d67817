"""Compiled loops: deferred to their first call (numba not imported by
skmmd), their callees and prange bound then; the serial and parallel copies
of a kernel have their own disk-cache entries."""

import os
import subprocess
import sys
import textwrap

import pytest


@pytest.mark.slow
def test_parallel_copy_never_loads_the_serial_compilation(tmp_path):
    # numba keys cache entries by name and signature, not by ``parallel``: a
    # process that compiled only the serial copy must not hand that code to
    # the parallel dispatcher of a later process.
    (tmp_path / "kernels.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from numba import prange
            from skmmd._utils._jit import serial_and_parallel

            def total(x):
                s = 0.0
                for i in prange(x.size):
                    s += x[i]
                return s

            SERIAL, PARALLEL = serial_and_parallel(total)
            """
        )
    )
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import kernels
        kernel = getattr(kernels, sys.argv[1])
        assert kernel(np.arange(10.0)) == 45.0
        print(len(kernel.stats.cache_hits), len(kernel.stats.cache_misses))
        """
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def run(name):
        out = subprocess.run(
            [sys.executable, "-c", script, name],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return tuple(int(v) for v in out.stdout.split())

    assert run("SERIAL") == (0, 1)  # compiled and saved
    assert run("PARALLEL") == (0, 1)  # compiled: no entry of its own yet
    assert run("PARALLEL") == (1, 0)  # its own entry, loaded
    assert run("SERIAL") == (1, 0)


def test_import_skmmd_does_not_import_numba():
    # numba is tens of megabytes and a fraction of a second: imported only
    # when a compiled loop first runs.
    script = (
        "import sys, skmmd, skmmd.drift, skmmd.kernel_learning, skmmd.cli\n"
        "print('numba' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_loops_compile_at_first_call_with_their_callees_and_prange_bound(tmp_path):
    # A loop calling another and reading prange compiles when first called:
    # the callee becomes numba's dispatcher in the module, prange numba's.
    (tmp_path / "deferred.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from skmmd._utils._jit import njit, prange, serial_and_parallel

            @njit(inline="always")
            def square(v):
                return v * v

            def total(x):
                s = 0.0
                for i in prange(x.size):
                    s += square(x[i])
                return s

            SERIAL, PARALLEL = serial_and_parallel(total)
            """
        )
    )
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import deferred
        from skmmd._utils._jit import Compiled
        assert "numba" not in sys.modules
        assert isinstance(deferred.square, Compiled)
        x = np.arange(10.0)
        assert deferred.PARALLEL(x) == deferred.SERIAL(x) == 285.0
        import numba
        assert deferred.prange is numba.prange
        assert not isinstance(deferred.square, Compiled)  # numba's dispatcher now
        assert deferred.PARALLEL.signatures and deferred.SERIAL.stats is not None
        print("ok")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache")),
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == "ok", out.stderr

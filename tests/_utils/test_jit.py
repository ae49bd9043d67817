"""The serial and parallel copies of a kernel have their own disk-cache entries."""

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

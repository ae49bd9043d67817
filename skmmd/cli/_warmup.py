"""``python -m skmmd warmup``: compile and cache (numba's on-disk cache) the
kernels that the tests, the detector and a learned kernel run, so that the
first test in a fresh environment does not pay for it."""

import argparse
import sys
from time import perf_counter

import numpy as np

from ._options import EXIT_OK


def first_test_kernels():
    """Compile (or load from numba's cache) the kernels of a first test on
    a table: an array's test and, with pandas, a DataFrame's test with its
    column report (the table's map and the columnwise maps), at sizes that
    reach the serial and the parallel copies."""
    from ..two_sample import mmd_test

    rng = np.random.default_rng(0)
    for rows in (200, 2000):
        X, Y = rng.normal(size=(2, rows, 4))
        mmd_test(X, Y, n_resamples=19, random_state=0)
        try:
            import pandas as pd
        except ImportError:  # tables are an extra (skmmd[tables])
            continue
        X, Y = (pd.DataFrame(A, columns=list("abcd")) for A in (X, Y))
        X["e"] = Y["e"] = rng.choice(["u", "v"], rows)
        mmd_test(X, Y, explain_columns=True, n_resamples=19, random_state=0)


def run_warmup(out=None):
    """Compile the numba kernels a test, the detector or a learned kernel
    runs, for float64 and float32 and for the serial and parallel copies
    (inputs above the size at which a kernel goes parallel): numba caches
    them on disk."""
    from ..drift import OnlineMMDDetector
    from ..kernel_learning import LearnedFourierSampler
    from ..two_sample import MMDTest, mmd_test

    out = sys.stdout if out is None else out
    start = perf_counter()
    first_test_kernels()
    rng = np.random.default_rng(0)
    for dtype in (np.float64, np.float32):
        X, Y = (rng.normal(size=(4000, 5)).astype(dtype) for _ in range(2))
        for rows in (100, 4000):  # the serial and the parallel copies
            mmd_test(X[:rows], Y[:rows], n_resamples=19, random_state=0)
        detector = OnlineMMDDetector(ert=50, window_size=5, n_resamples=50)
        detector.fit(X[:1000]).update(Y[:20])
        detector.update(Y[20])
    # The learned kernel's gradient (it learns in float64).
    learned = LearnedFourierSampler(max_iter=1, random_state=0)
    MMDTest(learned, train_size=0.5, n_resamples=19, random_state=0).fit(X, Y)
    print(
        f"skmmd warmup: kernels compiled and cached in {perf_counter() - start:.1f} s",
        file=out,
    )
    return EXIT_OK


def command(argv):
    """Parse the ``warmup`` command's (no) options and run it."""
    argparse.ArgumentParser(
        prog="python -m skmmd warmup",
        description="Compile and cache the kernels of the tests (run once "
        "after installing).",
    ).parse_args(argv)
    return run_warmup()

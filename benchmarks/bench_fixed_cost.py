"""The fixed cost of a small test: ``skmmd.mmd_test(X, Y, n_resamples="auto")``
on two samples of 2048 rows, d = 10 (X, Y ~ N(0, I), ``random_state=0``),
called ``--calls`` times in one process after a warm-up call; prints the
median seconds per call. The order check (its features of each sample's
first rows) and the permutation draws are part of every such call.

Compare two commits by running it alternately in two checkouts (the
whole-process time of each run is the cold figure), e.g.::

    PYTHONPATH=/path/to/old python benchmarks/bench_fixed_cost.py
    PYTHONPATH=/path/to/new python benchmarks/bench_fixed_cost.py
"""

import argparse
import time

import numpy as np

import skmmd


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rows", type=int, default=2048)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, 10))
    Y = rng.normal(size=(args.rows, 10))
    skmmd.mmd_test(X, Y, n_resamples="auto", random_state=0)  # warm-up
    times = []
    for _ in range(args.calls):
        start = time.perf_counter()
        skmmd.mmd_test(X, Y, n_resamples="auto", random_state=0)
        times.append(time.perf_counter() - start)
    print(f"median {np.median(times):.4f} s per call over {args.calls} calls")


if __name__ == "__main__":
    main()

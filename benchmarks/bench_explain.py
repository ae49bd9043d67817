"""Time of ``MMDTest.explain`` on a 20-column table, 10^5 rows per sample
(issue 42), and its decisions, so two versions of the package can be compared
run against run on the same data and seed.

Two samples from N(0, I_20); Y's columns 3 and 11 shifted by 0.05 and 0.03.
Prints one JSON line: the seconds of the test's fit and of ``explain``, the
columns flagged at ``alpha`` (adjusted p-value), and every adjusted p-value.

    python benchmarks/bench_explain.py                      # n_resamples=999
    python benchmarks/bench_explain.py --n-resamples auto
    python benchmarks/bench_explain.py --frame              # a pandas DataFrame

Measured with ``farm-bench --vs`` (this 2-core machine, other jobs stopped;
3 runs each, A and B in turn, the same data and seed), this version against
commit 1168896, before a column's map kept its fused per-unit sums and chunks
were sized by the widest map rather than the sum of all 20:

==========  ==================  ==================  =====  ===============
table       explain, after      explain, before     ratio  adjusted p
            (median of 3)       (median of 3)              values
==========  ==================  ==================  =====  ===============
array       3.31 s              20.69 s             6.3x   all equal
DataFrame   6.29 s              36.01 s             5.7x   all equal
==========  ==================  ==================  =====  ===============

Whole processes (start-up, data and fit included): 3.8x for the array, 3.8x
for the DataFrame (wall-clock, median of the paired ratios).

Again after the automatic unit was bounded to 512 units and the fit's own
resampling deferred to the first read of a result (same method, other jobs
stopped, against 1168896): explain 2.60 s against 15.20 s (5.8x) for the
array, 4.28 s against 26.48 s (6.2x) for the DataFrame; the same columns
flagged (3 and 11); the adjusted p-values moved with the units (the
baseline's 0.488 ... 0.982 of unflagged columns are 0.486 ... 0.996; 0.019
for both flagged ones).
Whole processes: 3.8x and 4.2x.
"""

import argparse
import json
from time import perf_counter

import numpy as np

from skmmd import MMDTest


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**5, help="rows per sample")
    parser.add_argument("--columns", type=int, default=20)
    parser.add_argument("--n-resamples", default="999")
    parser.add_argument("--frame", action="store_true", help="pandas DataFrames")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    X = rng.normal(size=(args.n, args.columns))
    Y = rng.normal(size=(args.n, args.columns))
    Y[:, 3] += 0.05
    Y[:, 11] += 0.03
    if args.frame:
        import pandas as pd

        names = [f"c{j}" for j in range(args.columns)]
        X, Y = pd.DataFrame(X, columns=names), pd.DataFrame(Y, columns=names)
    resamples = args.n_resamples
    resamples = resamples if resamples == "auto" else int(resamples)
    start = perf_counter()
    test = MMDTest(n_resamples=resamples, random_state=args.seed).fit(X, Y)
    fit = perf_counter() - start
    start = perf_counter()
    report = test.explain(X, Y)
    seconds = perf_counter() - start
    adjusted = dict(zip(map(str, report["column"]), report["adjusted_p_value"]))
    flagged = sorted(c for c, p in adjusted.items() if p <= test.alpha)
    print(
        json.dumps(
            {
                "fit_s": round(fit, 3),
                "explain_s": round(seconds, 3),
                "flagged": flagged,
                "adjusted": adjusted,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

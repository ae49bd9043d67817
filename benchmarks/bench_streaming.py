"""Out of core and on a cluster: time, peak memory and validity of the streamed test.

(a) Out of core: N pooled rows (default 10^8, d = 10, D = 1024, B = 999)
    streamed from a seeded generator through ``MMDTest.partial_fit`` in
    batches of 2^17 rows: seconds and peak resident memory (target <= 5 min,
    <= 2 GB at 10^8).
(b) The CLI on Parquet files of 10^6 and 10^7 rows per sample (written first,
    outside the timing): peak resident memory of the ``python -m skmmd test``
    process, which must not grow with the file.
(c) Dask on ``LocalCluster(n_workers=2, threads_per_worker=1)``: data made on
    the workers (``dask.array.random``), peak resident memory of the client
    process at 10^6 and 10^7 pooled rows, which must not grow with N.
(e) ``python -m skmmd test --explain`` against the same command without it,
    on Parquet files of 10^6 rows per sample (d = 10, the default table map,
    read in batches): seconds and peak resident memory (target: within 1.3x).
(d) Type-I error of the streamed test with its transformer-fitting scheme (the
    median bandwidth fit on the first chunk, held out of the statistic), over
    ``--reps`` null streams of random chunk sizes, with a 95 % binomial range.

Each measurement of memory runs in a fresh process (its own peak RSS).

    python benchmarks/bench_streaming.py                  # all, about 15 min
    python benchmarks/bench_streaming.py --only a --n 1e7 # one part, smaller
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import binom

_CHILD = r"""
import json, resource, sys, time
import numpy as np
part, n = sys.argv[1], int(float(sys.argv[2]))
start = time.perf_counter()
if part == "a":
    from skmmd import MMDTest, RandomFourierSampler
    d, batch = 10, 2**17
    sampler = RandomFourierSampler(bandwidth=3.0, n_components=1024, random_state=0)
    test = MMDTest(sampler.fit(np.zeros((1, d))), n_resamples=999, random_state=0)
    rng = np.random.default_rng(0)
    half = n // 2
    for lo in range(0, half, batch):
        rows = min(batch, half - lo)
        x = rng.standard_normal((rows, d))
        y = rng.standard_normal((rows, d))
        y[:, 0] += 0.01
        test.partial_fit(x, y)
    out = {"p_value": test.p_value_, "statistic": test.statistic_,
           "unit": test.resample_unit_}
elif part in ("b", "e", "e0"):
    from skmmd.__main__ import main
    import contextlib, io
    buf = io.StringIO()
    options = {"b": ["--transformer", "rff", "--bandwidth", "3"],
               "e": ["--explain"], "e0": []}[part]
    with contextlib.redirect_stdout(buf):
        main(["test", sys.argv[3], sys.argv[4], "--json", *options])
    out = json.loads(buf.getvalue())
else:
    import dask.array as da
    from distributed import Client, LocalCluster
    from skmmd import MMDTest, RandomFourierSampler
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0",
                      env={"NUMBA_NUM_THREADS": "1"}) as cluster, Client(cluster):
        state = da.random.RandomState(0)
        X = state.standard_normal((n // 2, 10), chunks=(250_000, 10))
        Y = state.standard_normal((n // 2, 10), chunks=(250_000, 10)) + 0.01
        test = MMDTest(RandomFourierSampler(bandwidth=3.0, random_state=0),
                       n_resamples=999, random_state=0).fit(X, Y)
        out = {"p_value": test.p_value_, "unit": test.resample_unit_}
out["seconds"] = time.perf_counter() - start
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def child(*args):
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *map(str, args)],
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def out_of_core(n):
    print(f"\n(a) out of core: N = {n:.0e} pooled, d=10, D=1024, B=999, batches 2^17")
    r = child("a", n)
    print(
        f"  {r['seconds']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB, unit "
        f"{r['unit']}, p = {r['p_value']:.3g} (target <= 300 s, <= 2048 MB)"
    )


def _parquet_pair(tmp, n, rng):
    """Two Parquet files of n rows x 10 numeric columns, Y's first shifted."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = []
    for name in "xy":
        path = Path(tmp) / f"{name}{n}.parquet"
        writer = None
        for lo in range(0, n, 10**6):
            block = rng.standard_normal((min(10**6, n - lo), 10))
            block[:, 0] += 0.05 * (name == "y")
            table = pa.table({f"c{i}": block[:, i] for i in range(10)})
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=2**17)
        writer.close()
        paths.append(path)
    return paths


def cli_parquet(sizes):
    print("\n(b) python -m skmmd test on Parquet files (d=10, rff, fixed bandwidth)")
    print(f"  {'rows per file':>13} {'seconds':>8} {'peak RSS MB':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        for n in sizes:
            paths = _parquet_pair(tmp, n, rng)
            r = child("b", n, *paths)
            print(f"  {n:>13.0e} {r['seconds']:>8.1f} {r['peak_rss_mb']:>11.0f}")
            for path in paths:
                os.remove(path)


def cli_explain(n):
    print(f"\n(e) python -m skmmd test, 2 Parquet files of {n:.0e} rows (d=10, auto)")
    print(f"  {'command':>16} {'seconds':>8} {'peak RSS MB':>11} {'p':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = _parquet_pair(tmp, n, np.random.default_rng(0))
        runs = {part: child(part, n, *paths) for part in ("e0", "e")}
    for part, label in (("e0", "test"), ("e", "test --explain")):
        r = runs[part]
        print(
            f"  {label:>16} {r['seconds']:>8.1f} {r['peak_rss_mb']:>11.0f} "
            f"{r['p_value']:>6.3f}"
        )
    top = runs["e"]["columns"][0]
    rss, seconds = (runs["e"][k] / runs["e0"][k] for k in ("peak_rss_mb", "seconds"))
    print(
        f"  RSS ratio {rss:.2f} (target <= 1.3), time ratio {seconds:.2f}; top "
        f"column {top['column']} (adjusted p {top['adjusted_p_value']:.3f})"
    )


def cluster(sizes):
    print("\n(c) LocalCluster(2 processes x 1 thread): client peak RSS")
    print(f"  {'N pooled':>10} {'seconds':>8} {'client peak RSS MB':>18}")
    for n in sizes:
        r = child("c", n)
        print(f"  {n:>10.0e} {r['seconds']:>8.1f} {r['peak_rss_mb']:>18.0f}")


def type_one(reps, alpha=0.05):
    from skmmd import MMDTest, RandomFourierSampler

    print(
        f"\n(d) type-I error of the streamed test, {reps} null streams (d=5, "
        "t(3) data, 5 chunks of random sizes, median bandwidth fit on the first "
        "chunk and held out, B=199, unit 4)"
    )
    rng = np.random.default_rng(0)
    rejections = 0
    start = time.perf_counter()
    for r in range(reps):
        test = MMDTest(
            RandomFourierSampler(n_components=128, random_state=r),
            n_resamples=199,
            resample_unit=4,
            alpha=alpha,
            random_state=r,
        )
        for _ in range(5):
            m, n = rng.integers(50, 400, size=2)
            test.partial_fit(rng.standard_t(3, (m, 5)), rng.standard_t(3, (n, 5)))
        rejections += test.reject_
    lo, hi = binom.ppf([0.025, 0.975], reps, alpha) / reps
    print(
        f"  rejection rate {rejections / reps:.3f} at alpha = {alpha} "
        f"(95 % range for a valid test [{lo:.3f}, {hi:.3f}]; target [0.03, 0.07]); "
        f"{time.perf_counter() - start:.0f} s"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="abcde", help="parts to run, e.g. 'ad'")
    parser.add_argument("--n", type=float, default=1e8, help="N of part (a)")
    parser.add_argument("--reps", type=int, default=1000, help="reps of part (d)")
    args = parser.parse_args()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"own peak RSS so far {own:.0f} MB")
    if "a" in args.only:
        out_of_core(int(args.n))
    if "b" in args.only:
        cli_parquet([10**6, 10**7])
    if "c" in args.only:
        cluster([10**6, 10**7])
    if "d" in args.only:
        type_one(args.reps)
    if "e" in args.only:
        cli_explain(10**6)


if __name__ == "__main__":
    main()

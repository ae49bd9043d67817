"""Throughput of GCWSSampler, and time per vector against datasketch.

Prints

* evaluations per second, one evaluation being one (row, nonzero, sample)
  triple of the ICWS loop, for both random-number paths: the table built in
  ``fit`` (``max_table_bytes`` large enough) and the counter-based hashes
  computed on the fly (``max_table_bytes=0``), with all threads and with one;
* milliseconds per dense nonnegative 784-dim vector at 256 samples (the
  ``datasketch.WeightedMinHashGenerator(dim=784, sample_size=256)`` setting)
  and the ratio to ``WeightedMinHashGenerator.minhash`` measured in the same
  run, rounds interleaved, minimum over rounds.

datasketch is not a dependency: it is timed in a subprocess run by
``--datasketch-python`` (default: this interpreter), interleaved with ours. If
it does not import there, the ratio is taken against 2.84 ms per vector,
measured once on the development machine, and the script says so.

The machine may be shared: timings are minima over ``--repeats`` rounds, and
the ratios are what to compare. ``--quick`` uses fewer rows.
"""

import argparse
import json
import subprocess
import sys
import textwrap
import time

import numba
import numpy as np
import scipy.sparse as sp

from skmmd import GCWSSampler

DIM, SAMPLES = 784, 256
DATASKETCH_FALLBACK_MS = 2.84

_DATASKETCH_TIMER = textwrap.dedent(
    """
    import json, sys, time
    import numpy as np
    from datasketch import WeightedMinHashGenerator
    dim, samples, n_vectors, repeats = map(int, sys.argv[1:5])
    X = np.abs(np.random.default_rng(0).normal(size=(n_vectors, dim)))
    gen = WeightedMinHashGenerator(dim, sample_size=samples, seed=1)
    gen.minhash(X[0])
    best = float("inf")
    for _ in range(repeats):
        for x in X:
            start = time.perf_counter()
            gen.minhash(x)
            best = min(best, time.perf_counter() - start)
    print(json.dumps(best * 1e3))
    """
)


def seconds_per_row(gcws, X, repeats, evaluations=2**20):
    """Minimum over short calls (about ``evaluations`` each, so that a busy
    machine rarely preempts one) of the time per row of ``hash_codes``."""
    nnz = X.nnz if sp.issparse(X) else np.count_nonzero(X)
    rows = max(1, int(evaluations * X.shape[0] / (nnz * gcws.n_components)))
    gcws.hash_codes(X[:rows])  # compile / warm up
    best = float("inf")
    for _ in range(repeats):
        for start in range(0, X.shape[0] - rows + 1, rows):
            block = X[start : start + rows]
            tic = time.perf_counter()
            gcws.hash_codes(block)
            best = min(best, (time.perf_counter() - tic) / rows)
    return best


def datasketch_ms(python, n_vectors):
    """ms per vector of datasketch's minhash (run by ``python``), or None."""
    argv = [str(DIM), str(SAMPLES), str(n_vectors), "3"]
    out = subprocess.run(
        [python, "-c", _DATASKETCH_TIMER, *argv], capture_output=True, text=True
    )
    return json.loads(out.stdout) if out.returncode == 0 else None


def throughput(X, paths, repeats):
    """{(path, threads): evaluations per second} on the rows of X."""
    nnz = X.nnz if sp.issparse(X) else np.count_nonzero(X)
    result = {}
    n_threads = numba.get_num_threads()
    for threads in sorted({n_threads, 1}, reverse=True):
        numba.set_num_threads(threads)
        for path, cap in paths.items():
            gcws = GCWSSampler(
                n_components=SAMPLES, max_table_bytes=cap, random_state=0
            )
            gcws.fit(X[:2])
            rate = nnz / X.shape[0] * SAMPLES / seconds_per_row(gcws, X, repeats)
            result[path, threads] = rate
    numba.set_num_threads(n_threads)
    return result


def _rate(rate):
    return f"{rate:.3e}/s ({1e9 / rate:.2f} ns each)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rows")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--datasketch-python", default=sys.executable)
    args = parser.parse_args(argv)
    n_rows = 500 if args.quick else 2000
    n_ds = 20 if args.quick else 50
    rng = np.random.default_rng(0)
    dense = np.abs(rng.normal(size=(n_rows, DIM)))
    paths = {"table": 2**30, "hash": 0}
    print(f"GCWS, k = {SAMPLES} samples, {numba.get_num_threads()} numba threads")

    print(f"\nEvaluations/s, dense {n_rows} x {DIM} nonnegative (nnz = {dense.size}):")
    dense_rates = throughput(dense, paths, args.repeats)
    for (path, threads), rate in dense_rates.items():
        print(f"  {path:>5} path, {threads} thread(s): {_rate(rate)}")

    d_sparse, nnz_row = 10**6, 100
    cols = rng.integers(0, d_sparse, size=(n_rows, nnz_row))
    sparse = sp.csr_matrix(
        (
            rng.exponential(size=n_rows * nnz_row),
            cols.ravel(),
            np.arange(n_rows + 1) * nnz_row,
        ),
        shape=(n_rows, d_sparse),
    )
    sparse.sum_duplicates()
    print(f"\nEvaluations/s, sparse {n_rows} x 10^6, {nnz_row} nonzeros/row:")
    for (path, threads), rate in throughput(
        sparse, {"default": 2**26}, args.repeats
    ).items():
        print(
            f"  {path} ({threads} thread(s)): {rate:.3e}/s ({1e9 / rate:.2f} ns each)"
        )

    print(f"\nTime per {DIM}-dim dense vector, {SAMPLES} samples (rounds interleaved):")
    table = GCWSSampler(n_components=SAMPLES, random_state=0).fit(dense[:2])
    hashed = GCWSSampler(n_components=SAMPLES, max_table_bytes=0, random_state=0)
    hashed.fit(dense[:2])
    ours = {"table, batch": [], "hash, batch": [], "table, 1 row/call": []}
    theirs = []
    for _ in range(args.repeats):
        ours["table, batch"].append(seconds_per_row(table, dense, 1))
        ours["hash, batch"].append(seconds_per_row(hashed, dense, 1))
        ours["table, 1 row/call"].append(seconds_per_row(table, dense[:n_ds], 1, 1))
        theirs.append(datasketch_ms(args.datasketch_python, n_ds))
    if theirs[0] is None:
        ds_ms = DATASKETCH_FALLBACK_MS
        print(
            f"  datasketch not available: using {ds_ms} ms/vector measured once earlier"
        )
    else:
        ds_ms = min(theirs)
        print(f"  datasketch WeightedMinHashGenerator.minhash: {ds_ms:.3f} ms/vector")
    for name, times in ours.items():
        ms = 1e3 * min(times)
        ratio = ds_ms / ms
        print(f"  GCWSSampler.hash_codes ({name}): {ms:.4f} ms, {ratio:.1f}x faster")


if __name__ == "__main__":
    main()

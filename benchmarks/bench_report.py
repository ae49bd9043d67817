"""What ``--report`` costs: ``python -m skmmd test A B`` with and without it.

Two Parquet files of ``--n`` rows each (default 10^7), written first in row
groups of 10^6 rows (outside the timing); the second sample has one numeric
column shifted (and the categories' shares changed). Each command runs in a
fresh process: its wall time (interpreter start included) and its peak
resident memory. The report's figures come from summaries gathered in the
test's own pass over the rows (no second read), so the target is ``--report``
within 1.10x the same command without it.

- ``mixed``: four numeric columns and one categorical (dictionary-encoded
  strings): the CLI reads such tables in memory. ``test`` against ``test
  --report``; with ``--explain`` (which also lists the rows where the witness
  is most extreme, a second pass in memory that holds every row's features:
  about 4.7 GB at 10^6 rows per file) only up to ``--n-explain`` rows.
- ``numeric``: the four numeric columns only, read in batches (memory bounded):
  ``test`` and ``test --explain``, each against the same with ``--report``.

    python benchmarks/bench_report.py                         # 10^7 rows per file
    python benchmarks/bench_report.py --n 1e6 --only numeric  # smaller, one part
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# The child times the report's own work too (the summaries' updates and the
# page), which the noise of a shared machine does not hide as it can a ratio.
_CHILD = r"""
import json, resource, sys, time
import skmmd.__main__ as cli
from skmmd import MMDTestResult
spent = [0.0]
def timed(method):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start
    return wrapper
cli.ColumnSummaries.update = timed(cli.ColumnSummaries.update)
MMDTestResult.save_report = timed(MMDTestResult.save_report)
status = cli.main(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out = {"status": status, "peak_rss_mb": peak, "report_seconds": spent[0]}
print(json.dumps(out), file=sys.stderr)
"""

CATEGORIES = np.array(["north", "south", "east", "west", "centre"])


def write_pair(folder, n, categorical=True, seed=0, group=10**6):
    """Two Parquet files of ``n`` rows (the second drifted), in row groups."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    fields = [pa.field(f"x{j}", pa.float64()) for j in range(4)]
    if categorical:
        fields.append(pa.field("region", pa.dictionary(pa.int32(), pa.string())))
    schema = pa.schema(fields)
    paths = []
    for name, shift, shares in (
        ("reference", 0.0, [0.3, 0.3, 0.2, 0.1, 0.1]),
        ("current", 0.05, [0.25, 0.3, 0.2, 0.15, 0.1]),
    ):
        path = Path(folder) / f"{name}_{n:.0e}_{len(fields)}.parquet"
        with pq.ParquetWriter(path, schema) as writer:
            for lo in range(0, n, group):
                rows = min(group, n - lo)
                numbers = rng.standard_normal((rows, 4))
                numbers[:, 0] += shift
                columns = [pa.array(numbers[:, j]) for j in range(4)]
                if categorical:
                    codes = rng.choice(len(CATEGORIES), size=rows, p=shares)
                    columns.append(
                        pa.DictionaryArray.from_arrays(
                            pa.array(codes, pa.int32()), pa.array(CATEGORIES)
                        )
                    )
                writer.write_table(pa.Table.from_arrays(columns, schema=schema))
        paths.append(path)
    return paths


def run(paths, options):
    """Seconds of one ``python -m skmmd test`` process, what it measured of
    itself (peak RSS in MB, seconds of the report's own work) and its output."""
    command = [sys.executable, "-c", _CHILD, "test", *map(str, paths), *options]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(proc.stderr[-3000:])
    child = json.loads(proc.stderr.strip().splitlines()[-1])
    return seconds, child, proc.stdout


def compare(paths, options, common, report):
    """Each command in ``options`` without and with ``--report``: the ratio."""
    for base in options:
        seconds = []
        for extra in ([], ["--report", str(report)]):
            label = " ".join(["test", *base, *extra[:1]])
            took, child, out = run(paths, [*common, *base, *extra])
            seconds.append(took)
            p_value = next(
                line.split("=")[1].strip()
                for line in out.splitlines()
                if line.startswith("p-value")
            )
            print(
                f"  {label:<28} {took:8.1f} s  peak RSS "
                f"{child['peak_rss_mb']:7.0f} MB  p = {p_value}"
            )
        own = child["report_seconds"]
        print(
            f"    ratio with --report: {seconds[1] / seconds[0]:.3f} (target <= "
            f"1.10); the report's own work (summaries and page): {own:.2f} s, "
            f"{own / seconds[1]:.1%} of its run"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7, help="rows per file")
    parser.add_argument("--n-explain", type=float, default=1e6, help="mixed --explain")
    parser.add_argument("--n-resamples", type=int, default=999)
    parser.add_argument("--only", default="mixed,numeric", help="parts to run")
    args = parser.parse_args()
    n = int(args.n)
    common = ["--n-resamples", str(args.n_resamples), "--no-progress"]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.html"
        for part in args.only.split(","):
            mixed = part == "mixed"
            runs = [(n, [[]])]
            if mixed:
                runs.append((int(args.n_explain), [["--explain"]]))
            else:
                runs = [(n, [[], ["--explain"]])]
            for rows, options in runs:
                start = time.perf_counter()
                paths = write_pair(tmp, rows, categorical=mixed)
                kind = (
                    "4 numeric + 1 categorical (in memory)"
                    if mixed
                    else ("4 numeric (in batches)")
                )
                print(
                    f"{part}: {rows:.0e} rows per file, {kind}, written in "
                    f"{time.perf_counter() - start:.0f} s"
                )
                compare(paths, options, common, report)
                print(f"    report page: {report.stat().st_size / 1024:.0f} KB")
                for path in paths:
                    path.unlink()


if __name__ == "__main__":
    main()

"""The mixed drift table of issue 65 (``mixed_tables.py``): the decision of
``mmd_test(..., explain_columns=True)`` and the time and memory of the column report,
against the loop of scipy tests a drift user writes.

Parts (``--parts``, several allowed):

``level``
    Type-I error of the decision (``result.reject``: the table's statistic
    and the first step of step-down maxT combined on the same permutations)
    on unchanged pairs of the mixed table at ``--width`` columns (default
    50: 10 columns of each numeric kind, 8 text, 2 gappy) and ``--n`` rows
    per sample (default 500), over ``--reps`` repetitions (seeds 0, 1, ...);
    beside it, the table's statistic alone (``table_pvalue``) and the family-
    wise error of the columns (any column flagged). 999 resamples.
``power``
    The same on the changed table (the five changes of ``MOVED``), over
    ``--power-reps`` repetitions: how often the decision, the table alone
    and the scipy loop reject, and how many of the five columns each flags.
``speed``
    Wall time and peak resident memory, one thread each, every measurement
    a fresh process (``--runs`` of each, default 7, alternated; medians, and
    the range): ``mmd_test(X,
    Y, explain_columns=True, random_state=0)`` against ``scipy_loop`` on the
    500-column table at 5000 rows per sample, and against a loop of
    ``ks_2samp`` with Bonferroni on 1000 normal DataFrame columns at 10^4
    rows per sample. skmmd's process runs the test twice: the time is the
    second call's (the first pays one-time imports and, on the wide numeric
    table, numba's loading), the first call's is shown beside it. Memory:
    the process's peak resident size (imports, tables and the test) once
    the test has run once (the first call: a process that runs one test),
    and its excess over the peak once the tables were made; the loop's
    after its one run. ``--tables mixed`` or ``--tables numeric`` times one
    table alone.

Run: ``python benchmarks/bench_mixed_tables.py --parts level power speed``.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mixed_tables  # noqa: E402

ONE_THREAD = dict.fromkeys(
    ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"),
    "1",
)


def wilson(hits, n, z=1.96):
    """A rate and its 95 % Wilson interval, as text."""
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{p:.3f} [{centre - half:.3f}, {centre + half:.3f}]"


def decisions(X, Y, seed):
    """(decision, table alone, columns flagged) of one explained test."""
    from skmmd import mmd_test

    result = mmd_test(X, Y, explain_columns=True, random_state=seed)
    report = result.column_report
    return (
        result.reject,
        result.table_pvalue <= 0.05,
        set(report.column[report.moved]),
    )


def part_level(args):
    counts = np.zeros(3)
    start = time.perf_counter()
    for seed in range(args.reps):
        X, Y = mixed_tables.make(args.n, seed, moved=False, width=args.width)
        decision, table, flagged = decisions(X, Y, seed)
        counts += [decision, table, bool(flagged)]
    print(
        f"level: width {args.width}, n {args.n} per sample, {args.reps} "
        f"repetitions (seeds 0-{args.reps - 1}), 999 resamples, alpha 0.05, "
        f"{time.perf_counter() - start:.0f} s"
    )
    for name, hits in zip(("decision", "table alone", "any column (FWER)"), counts):
        print(f"  {name:<20} {wilson(hits, args.reps)}")


def part_power(args):
    counts, found = np.zeros(4), np.zeros(3)
    for seed in range(args.power_reps):
        X, Y = mixed_tables.make(args.n, seed, moved=True, width=args.width)
        decision, table, flagged = decisions(X, Y, seed)
        loop = set(mixed_tables.scipy_loop(X, Y))
        moved = set(mixed_tables.MOVED)
        counts += [decision, table, bool(flagged), bool(loop)]
        found += [len(flagged & moved), len(loop & moved), len(flagged - moved)]
    reps = args.power_reps
    print(
        f"power: width {args.width}, n {args.n} per sample, {reps} repetitions, "
        f"the five changes of MOVED"
    )
    names = ("decision", "table alone", "explain flags any", "scipy loop flags any")
    for name, hits in zip(names, counts):
        print(f"  {name:<22} {wilson(hits, reps)}")
    print(
        f"  moved columns flagged per table: explain {found[0] / reps:.2f}, "
        f"scipy loop {found[1] / reps:.2f} (of 5); others flagged by explain "
        f"{found[2] / reps:.3f}"
    )


CHILD = """
import json, resource, sys, time
sys.path.insert(0, {here!r})
import numpy as np
import mixed_tables
which, table = sys.argv[1], sys.argv[2]
if table == "mixed":
    X, Y = mixed_tables.make(5000, 0)
else:
    import pandas as pd
    rng = np.random.default_rng(0)
    names = [f"c{{j}}" for j in range(1000)]
    X = pd.DataFrame(rng.normal(size=(10000, 1000)), columns=names)
    Y = pd.DataFrame(rng.normal(size=(10000, 1000)), columns=names)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
first = None
if which == "skmmd":
    from skmmd import mmd_test
    start = time.perf_counter()
    mmd_test(X, Y, explain_columns=True, random_state=0)
    first = time.perf_counter() - start
    once = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    result = mmd_test(X, Y, explain_columns=True, random_state=0)
    report = result.column_report
    flagged = sorted(report.column[report.adjusted_p_value <= 0.05])
elif table == "mixed":
    start = time.perf_counter()
    flagged = mixed_tables.scipy_loop(X, Y)
else:
    from scipy import stats
    start = time.perf_counter()
    p = np.array([stats.ks_2samp(X[c].to_numpy(), Y[c].to_numpy()).pvalue for c in X])
    flagged = sorted(X.columns[p <= 0.05 / p.size])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss if first is None else once
print(json.dumps({{"seconds": seconds, "first": first, "mb": peak / 1024,
                  "extra_mb": (peak - before) / 1024, "flagged": flagged}}))
"""


def child(which, table, threads):
    env = dict(os.environ, **(ONE_THREAD if threads == 1 else {}))
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(here=HERE), which, table],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def part_speed(args):
    for table, threads, label in (
        ("mixed", 1, "500 mixed columns, 5000 rows per sample, one thread"),
        ("numeric", None, "1000 normal DataFrame columns, 10^4 rows, all threads"),
    ):
        if table not in args.tables:
            continue
        runs = {"skmmd": [], "loop": []}
        for _ in range(args.runs):
            for which in runs:
                runs[which].append(child(which, table, threads))
        seconds = {
            k: float(np.median([r["seconds"] for r in v])) for k, v in runs.items()
        }
        memory = {k: float(np.median([r["mb"] for r in v])) for k, v in runs.items()}
        extra = {
            k: float(np.median([r["extra_mb"] for r in v])) for k, v in runs.items()
        }
        print(f"speed: {label} ({args.runs} runs each, medians)")
        for which in runs:
            first = [r["first"] for r in runs[which] if r["first"] is not None]
            cold = f" (first call {np.median(first):.2f} s)" if first else ""
            spread = [r["seconds"] for r in runs[which]]
            print(
                f"  {which:<6} {seconds[which]:7.2f} s [{min(spread):.2f}-"
                f"{max(spread):.2f}]{cold}  peak "
                f"{memory[which]:6.0f} MB (+{extra[which]:4.0f} MB over the "
                f"tables) flagged {runs[which][-1]['flagged']}"
            )
        print(
            f"  loop / skmmd time: {seconds['loop'] / seconds['skmmd']:.2f}x; "
            f"skmmd / loop peak memory: {memory['skmmd'] / memory['loop']:.2f}x"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=["speed"])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--power-reps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tables", nargs="+", default=["mixed", "numeric"])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--width", type=int, default=50)
    args = parser.parse_args(argv)
    for part in args.parts:
        {"level": part_level, "power": part_power, "speed": part_speed}[part](args)


if __name__ == "__main__":
    main()

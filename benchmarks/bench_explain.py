"""Benchmarks of the per-column tests of ``explain`` (``mmd_test(...,
explain_columns=True)``): time, level, power and false discovery rate.

Parts (``--parts``, several allowed; each prints a table headed by the
command, n, m, the repetitions and the seed range):

``issue42``
    (the default) Time of ``MMDTest.explain`` on a 20-column table, 10^5
    rows per sample (issue 42), and its decisions, so two versions of the
    package can be compared run against run on the same data and seed. Two
    samples from N(0, I_20); Y's columns 3 and 11 shifted by 0.05 and 0.03.
    Prints one JSON line: the seconds of the test's fit and of ``explain``,
    the columns flagged at ``alpha`` (adjusted p-value), and every adjusted
    p-value.
``speed``
    Numeric columns, n = 10^4 rows per sample: wall time of
    ``mmd_test(X, Y, explain_columns=True, random_state=0)`` (999 resamples) against
    a loop of :func:`scipy.stats.ks_2samp` over the columns with Bonferroni,
    at m = 1000 (``--reps`` runs of each, alternated, medians and ratio),
    m = 10^4 (one run each) and m = 200 with 3 columns shifted by 0.1 sd
    (columns flagged by each). Every measurement is a fresh process that
    reports its peak resident memory (``ru_maxrss``), before and after the
    test.
``level``
    Family-wise error of ``correction="fwer"`` on a DataFrame of m = 200
    columns of four kinds (50 normal, 50 Student-t(2), 50 Poisson(3)
    integers, 50 strings of 5 levels with unequal probabilities), both
    samples from the same law, n = 500: under the global null (any column
    flagged) and a partial null (5 normal columns of Y shifted by 1 sd; the
    other 195 counted). Also Bonferroni on the permutation p-values, the
    discrete baseline.
``power``
    Share of 5 changed columns among m = 200 normal ones flagged, n = 2000:
    a shift by 0.1 sd, a scale x1.15, and a shape change (the bimodal
    0.5 N(-0.8, 0.6^2) + 0.5 N(0.8, 0.6^2), mean 0 and variance 1, against
    N(0, 1)); ``explain`` with ``"fwer"`` and ``"fdr"`` against
    ``ks_2samp`` with Bonferroni and with Benjamini-Hochberg, on the same
    draws.
``fdr``
    ``correction="fdr"`` on m = 500 numeric columns (half normal, half
    t(3)), 20 of them (10 of each) shifted by 0.5 sd, n = 500: the mean
    false discovery proportion and the mean share of the 20 found, against
    ``ks_2samp`` with Benjamini-Hochberg on the same draws.

Monte Carlo parts (level, power, fdr) use ``n_resamples=199`` unless told
(``--n-resamples``) and seeds ``--seed``, ..., ``--seed + reps - 1``; run
them single-threaded (``OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1
OPENBLAS_NUM_THREADS=1``)::

    python benchmarks/bench_explain.py                      # issue42
    python benchmarks/bench_explain.py --n-resamples auto --frame
    python benchmarks/bench_explain.py --parts speed --out speed.txt
    python benchmarks/bench_explain.py --parts level power fdr --reps 100

Figures, with the commands that made them: ``doc/benchmarks.rst``.
"""

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
from time import perf_counter

import numpy as np

from skmmd import MMDTest, mmd_test

ALPHA = 0.05
MC_RESAMPLES = 199
# Part -> its defaults: rows per sample, columns, repetitions.
DEFAULTS = {
    "issue42": (10**5, 20, 1),
    "speed": (10**4, 1000, 3),
    "level": (500, 200, 500),
    "power": (2000, 200, 50),
    "fdr": (500, 500, 300),
}
CATEGORY_P = [0.4, 0.25, 0.15, 0.12, 0.08]


# ---------------------------------------------------------------- output


class Report:
    """Lines printed and, with ``path``, written to a file."""

    def __init__(self, path=None):
        self.file = open(path, "w") if path else None

    def __call__(self, text=""):
        print(text, flush=True)
        if self.file:
            self.file.write(text + "\n")
            self.file.flush()

    def table(self, headers, rows):
        cells = [list(map(str, headers))] + [[str(c) for c in r] for r in rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
        rule = "  ".join("=" * w for w in widths)
        lines = [rule, fmt_row(cells[0], widths), rule]
        lines += [fmt_row(r, widths) for r in cells[1:]] + [rule]
        self("\n".join(lines))


def fmt_row(cells, widths):
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()


def header(out, part, args, n, m, reps, extra="", seeds=None):
    seeds = seeds or f"seeds {args.seed}..{args.seed + reps - 1}"
    out(f"## part {part}")
    out(f"command: {shlex.join([sys.executable, *sys.argv])}")
    out(f"n = {n} rows per sample, m = {m} columns, reps = {reps}, {seeds}")
    if extra:
        out(extra)
    out(
        "machine: shared, 2 cores; threads as set by OMP_NUM_THREADS / "
        "NUMBA_NUM_THREADS / OPENBLAS_NUM_THREADS (here "
        f"{_threads()}); load average at the start "
        + " / ".join(f"{x:.2f}" for x in os.getloadavg())
    )


def _threads():
    names = ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS")
    return ", ".join(f"{k}={os.environ.get(k, 'unset')}" for k in names)


def rate(hits):
    """``"p +- se"`` of a share of 0/1 outcomes (binomial standard error)."""
    hits = np.asarray(hits, dtype=float)
    p = hits.mean()
    return f"{p:.4f} +- {np.sqrt(p * (1 - p) / hits.size):.4f}"


def mean_se(values):
    """``"mean +- se"`` over repetitions."""
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else np.nan
    return f"{values.mean():.4f} +- {se:.4f}"


def progress(done, total, start):
    if done % max(total // 10, 1) == 0 or done == total:
        print(f"  {done}/{total} ({perf_counter() - start:.0f} s)", file=sys.stderr)


# ---------------------------------------------------------------- tests


def skmmd_adjusted(X, Y, correction, seed, n_resamples=MC_RESAMPLES):
    """``(adjusted, permutation)`` p-values of each column (in ``X``'s column
    order) from ``mmd_test(..., explain_columns=True)``."""
    report = mmd_test(
        X,
        Y,
        explain_columns=True,
        correction=correction,
        n_resamples=n_resamples,
        random_state=seed,
    ).column_report
    names = X.columns if hasattr(X, "columns") else range(X.shape[1])
    report = report.set_index(report["column"].astype(str)).loc[list(map(str, names))]
    return report["adjusted_p_value"].to_numpy(), report["p_value"].to_numpy()


def ks_p_values(X, Y):
    """The loop of :func:`scipy.stats.ks_2samp` over the columns."""
    from scipy.stats import ks_2samp

    X, Y = np.asarray(X), np.asarray(Y)
    return np.array([ks_2samp(X[:, j], Y[:, j]).pvalue for j in range(X.shape[1])])


def bonferroni(p):
    return np.minimum(np.asarray(p) * len(p), 1.0)


def bh(p):
    from scipy.stats import false_discovery_control

    return false_discovery_control(p, method="bh")


# ---------------------------------------------------------------- data


def mixed_frame(rng, n, m):
    """A DataFrame of ``m`` columns, a quarter of each kind: normal,
    Student-t(2), Poisson(3) integers, strings of 5 levels (``CATEGORY_P``)."""
    import pandas as pd

    q = m // 4
    levels = np.array(list("abcde"))
    kinds = {
        "norm": lambda: rng.normal(size=n),
        "t2_": lambda: rng.standard_t(2, size=n),
        "pois": lambda: rng.poisson(3, size=n),
        "cat": lambda: levels[rng.choice(5, size=n, p=CATEGORY_P)],
    }
    return pd.DataFrame(
        {f"{name}{j}": draw() for name, draw in kinds.items() for j in range(q)}
    )


def normal_t_pair(rng, n, m):
    """``(X, Y, sd)``: columns ``0 .. m/2 - 1`` normal, the rest t(3) (sd
    sqrt(3)), both samples from the same law."""
    half = m // 2

    def draw():
        return np.hstack(
            [rng.normal(size=(n, half)), rng.standard_t(3, size=(n, m - half))]
        )

    sd = np.r_[np.ones(half), np.full(m - half, np.sqrt(3.0))]
    return draw(), draw(), sd


def bimodal(rng, size):
    """0.5 N(-0.8, 0.6^2) + 0.5 N(0.8, 0.6^2): mean 0, variance 1."""
    return rng.choice([-0.8, 0.8], size=size) + 0.6 * rng.normal(size=size)


CHANGES = {
    "shift +0.1 sd": lambda rng, y: y + 0.1,
    "scale x1.15": lambda rng, y: y * 1.15,
    "shape (bimodal)": lambda rng, y: bimodal(rng, y.shape),
}


# ---------------------------------------------------------------- parts


def part_issue42(args, out):
    rng = np.random.default_rng(args.seed)
    X = rng.normal(size=(args.n, args.columns))
    Y = rng.normal(size=(args.n, args.columns))
    Y[:, 3] += 0.05
    Y[:, 11] += 0.03
    if args.frame:
        import pandas as pd

        names = [f"c{j}" for j in range(args.columns)]
        X, Y = pd.DataFrame(X, columns=names), pd.DataFrame(Y, columns=names)
    resamples = args.n_resamples or "999"
    resamples = resamples if resamples == "auto" else int(resamples)
    start = perf_counter()
    test = MMDTest(n_resamples=resamples, random_state=args.seed).fit(X, Y)
    fit = perf_counter() - start
    start = perf_counter()
    report = test.explain(X, Y)
    seconds = perf_counter() - start
    adjusted = dict(zip(map(str, report["column"]), report["adjusted_p_value"]))
    flagged = sorted(c for c, p in adjusted.items() if p <= test.alpha)
    out(
        json.dumps(
            {
                "fit_s": round(fit, 3),
                "explain_s": round(seconds, 3),
                "flagged": flagged,
                "adjusted": adjusted,
            }
        )
    )


def measure(method, n, m, shifted, seed):
    """One measurement of the speed part (run in a fresh process): the wall
    time of ``method`` on fresh data, its flags and the peak memory."""
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(n, m)), rng.normal(size=(n, m))
    Y[:, :shifted] += 0.1
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = perf_counter()
    if method == "explain":  # the report alone, of a fitted test
        test = MMDTest(random_state=seed).fit(X, Y)
        rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = perf_counter()
        report = test.explain(X, Y)
        flagged = report["column"][report["adjusted_p_value"] <= ALPHA]
    elif method == "skmmd":
        report = mmd_test(X, Y, explain_columns=True, random_state=seed).column_report
        flagged = report["column"][report["adjusted_p_value"] <= ALPHA]
    else:
        flagged = np.flatnonzero(bonferroni(ks_p_values(X, Y)) <= ALPHA)
    seconds = perf_counter() - start
    flagged = np.asarray(flagged, dtype=int)
    return {
        "method": method,
        "seconds": seconds,
        "true_flags": int(np.count_nonzero(flagged < shifted)),
        "false_flags": int(np.count_nonzero(flagged >= shifted)),
        "rss_data_mb": rss_data / 1024,
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def in_child(method, n, m, shifted, seed):
    command = [sys.executable, __file__, "--measure", method, "--n", str(n)]
    command += ["--columns", str(m), "--shifted", str(shifted), "--seed", str(seed)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def part_speed(args, out):
    n, m, reps = args.n, args.columns, args.reps
    header(
        out,
        "speed",
        args,
        n,
        m,
        reps,
        "MMDTest(random_state=seed).fit(X, Y).explain(X, Y) (the report alone; "
        "999 resamples) and mmd_test(X, Y, explain_columns=True, random_state=seed) "
        "(the test and its report) vs [ks_2samp(X[:, j], Y[:, j]) for j] + "
        "Bonferroni; X, Y ~ N(0, I); "
        "each measurement a fresh process (data generation not timed; RSS in "
        "MB: after the data / peak)",
        seeds=f"every measurement on seed {args.seed}'s data",
    )
    trio = ("explain", "skmmd", "ks")
    runs = [
        ("alternated", m, 0, [trio] * reps),
        ("one run", 10 * m, 0, [trio]),
        ("3 shifted by 0.1 sd", m // 5, 3, [trio]),
    ]
    rows, medians = [], {}
    for label, width, shifted, order in runs:
        results = {method: [] for method in trio}
        for methods in order:
            for method in methods:
                r = in_child(method, n, width, shifted, args.seed)
                results[method].append(r)
                print(f"  {label} m={width} {r}", file=sys.stderr)
        for method, rs in results.items():
            seconds = [r["seconds"] for r in rs]
            medians[label, method] = np.median(seconds)
            rows.append(
                [
                    f"m={width} ({label})",
                    {
                        "explain": "explain (fwer)",
                        "skmmd": "mmd_test(explain_columns=True)",
                        "ks": "ks_2samp+Bonf",
                    }[method],
                    " / ".join(f"{s:.2f}" for s in seconds),
                    f"{np.median(seconds):.2f}",
                    f"{rs[-1]['true_flags']} / {shifted}",
                    rs[-1]["false_flags"],
                    f"{rs[-1]['rss_data_mb']:.0f} / {rs[-1]['rss_peak_mb']:.0f}",
                ]
            )
        for method in ("explain", "skmmd"):
            ratio = medians[label, "ks"] / medians[label, method]
            rows.append(
                ["", f"ks / {method} (medians)", "", f"{ratio:.2f}", "", "", ""]
            )
    out.table(
        [
            "setting",
            "method",
            "seconds (each run)",
            "median s",
            "flagged true",
            "false",
            "RSS MB",
        ],
        rows,
    )


def monte_carlo(args, out, part, one_rep, extra):
    """Run ``one_rep(seed) -> dict of per-rep values`` over the seeds."""
    header(out, part, args, args.n, args.columns, args.reps, extra)
    start, values = perf_counter(), []
    for k, seed in enumerate(range(args.seed, args.seed + args.reps), 1):
        values.append(one_rep(seed))
        progress(k, args.reps, start)
    out(f"wall time {perf_counter() - start:.0f} s")
    return {key: [v[key] for v in values] for key in values[0]}


def part_level(args, out):
    n, m, shifted = args.n, args.columns, 5
    floor = m / (args.n_resamples + 1)

    def one_rep(seed):
        rng = np.random.default_rng(seed)
        X, Y = mixed_frame(rng, n, m), mixed_frame(rng, n, m)
        moved = Y.copy()
        moved.iloc[:, :shifted] += 1.0
        global_adj, global_perm = skmmd_adjusted(X, Y, "fwer", seed, args.n_resamples)
        part_adj, part_perm = skmmd_adjusted(X, moved, "fwer", seed, args.n_resamples)
        others = slice(shifted, None)
        return {
            "global": np.any(global_adj <= ALPHA),
            "global_bonf": np.any(bonferroni(global_perm) <= ALPHA),
            "partial": np.any(part_adj[others] <= ALPHA),
            "partial_bonf": np.any(bonferroni(part_perm)[others] <= ALPHA),
            "power": np.mean(part_adj[:shifted] <= ALPHA),
            "power_bonf": np.mean(bonferroni(part_perm)[:shifted] <= ALPHA),
        }

    v = monte_carlo(
        args,
        out,
        "level",
        one_rep,
        f"mmd_test(..., explain_columns=True, correction='fwer', n_resamples="
        f"{args.n_resamples}) at alpha={ALPHA}; DataFrame of {m // 4} normal, "
        f"{m // 4} t(2), {m // 4} Poisson(3), {m // 4} 5-level strings (p="
        f"{CATEGORY_P}); partial null: {shifted} normal columns of Y +1 sd. "
        f"n_resamples={args.n_resamples} to keep it fast. Baseline: Bonferroni "
        f"on the permutation p_value (p * m); its floor, like the old min-p's, "
        f"is about m/(B+1) = {floor:.2f}",
    )
    out.table(
        ["null", "method", "FWER +- MC se", f"power on {shifted} moved"],
        [
            ["global", "skmmd fwer (maxT)", rate(v["global"]), ""],
            ["global", "Bonferroni on perm p", rate(v["global_bonf"]), ""],
            [
                f"partial ({m - shifted} nulls)",
                "skmmd fwer (maxT)",
                rate(v["partial"]),
                mean_se(v["power"]),
            ],
            [
                f"partial ({m - shifted} nulls)",
                "Bonferroni on perm p",
                rate(v["partial_bonf"]),
                mean_se(v["power_bonf"]),
            ],
        ],
    )


def power_rep(args, seed, change, changed, methods):
    """One draw of the power part: per method, the share of the ``changed``
    columns flagged and the count of the others flagged."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(args.n, args.columns))
    Y = rng.normal(size=(args.n, args.columns))
    Y[:, :changed] = change(rng, Y[:, :changed])
    ks = ks_p_values(X, Y)
    out = {}
    for name, adjust in methods.items():
        if adjust is None:  # "skmmd <correction>"
            p = skmmd_adjusted(X, Y, name.split()[1], seed, args.n_resamples)[0]
        else:
            p = adjust(ks)
        out[name] = (
            np.mean(p[:changed] <= ALPHA),
            np.count_nonzero(p[changed:] <= ALPHA),
        )
    return out


def part_power(args, out):
    n, m, changed = args.n, args.columns, 5
    methods = {
        "skmmd fwer": None,
        "skmmd fdr": None,
        "ks+Bonferroni": bonferroni,
        "ks+BH": bh,
    }
    header(
        out,
        "power",
        args,
        n,
        m,
        args.reps,
        f"X, Y ~ N(0, I_{m}); Y's first {changed} columns changed; same draws "
        f"(and seeds) for every method and change; explain with n_resamples="
        f"{args.n_resamples}; alpha={ALPHA}",
    )
    rows, start = [], perf_counter()
    for change_name, change in CHANGES.items():
        per_rep = [
            power_rep(args, seed, change, changed, methods)
            for seed in range(args.seed, args.seed + args.reps)
        ]
        print(f"  {change_name} ({perf_counter() - start:.0f} s)", file=sys.stderr)
        for name in methods:
            power = [r[name][0] for r in per_rep]
            false = [r[name][1] for r in per_rep]
            rows.append([change_name, name, mean_se(power), f"{np.mean(false):.3f}"])
    out(f"wall time {perf_counter() - start:.0f} s")
    out.table(
        [
            "change",
            "method",
            f"power: share of {changed} flagged +- se",
            f"false flags / rep (of {m - changed})",
        ],
        rows,
    )


def part_fdr(args, out):
    n, m, moved = args.n, args.columns, 20
    half = m // 2
    targets = np.r_[np.arange(moved // 2), half + np.arange(moved - moved // 2)]
    is_moved = np.zeros(m, dtype=bool)
    is_moved[targets] = True

    def fdp_power(adjusted):
        flagged = adjusted <= ALPHA
        false = np.count_nonzero(flagged & ~is_moved)
        return false / max(np.count_nonzero(flagged), 1), flagged[is_moved].mean()

    def one_rep(seed):
        rng = np.random.default_rng(seed)
        X, Y, sd = normal_t_pair(rng, n, m)
        Y[:, targets] += 0.5 * sd[targets]
        return {
            "skmmd fdr (BH on pooled p)": fdp_power(
                skmmd_adjusted(X, Y, "fdr", seed, args.n_resamples)[0]
            ),
            "ks_2samp + BH": fdp_power(bh(ks_p_values(X, Y))),
        }

    v = monte_carlo(
        args,
        out,
        "fdr",
        one_rep,
        f"mmd_test(..., explain_columns=True, correction='fdr', n_resamples="
        f"{args.n_resamples}) at alpha={ALPHA}; {half} normal + {m - half} t(3) "
        f"columns, {moved} ({moved // 2} of each) shifted by 0.5 sd in Y",
    )
    out.table(
        ["method", "mean FDP +- se", f"mean power (share of {moved}) +- se"],
        [
            [name, mean_se([r[0] for r in rs]), mean_se([r[1] for r in rs])]
            for name, rs in v.items()
        ],
    )


PARTS = {
    "issue42": part_issue42,
    "speed": part_speed,
    "level": part_level,
    "power": part_power,
    "fdr": part_fdr,
}


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=["issue42"])
    parser.add_argument("--n", type=int, help="rows per sample (part's default)")
    parser.add_argument("--columns", type=int, help="columns (part's default)")
    parser.add_argument("--reps", type=int, help="repetitions (part's default)")
    parser.add_argument(
        "--n-resamples", help="resamples (issue42: 999; Monte Carlo parts: 199)"
    )
    parser.add_argument("--frame", action="store_true", help="issue42: DataFrames")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--out", help="also write the output to this file")
    # One measurement of the speed part, in a fresh process.
    parser.add_argument(
        "--measure", choices=["explain", "skmmd", "ks"], help=argparse.SUPPRESS
    )
    parser.add_argument("--shifted", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(
            json.dumps(
                measure(args.measure, args.n, args.columns, args.shifted, args.seed)
            )
        )
        return 0
    out = Report(args.out)
    given = vars(args).copy()
    for part in args.parts:
        n, m, reps = DEFAULTS[part]
        args.n = given["n"] or n
        args.columns = given["columns"] or m
        args.reps = given["reps"] or reps
        args.n_resamples = given["n_resamples"]
        if part not in ("issue42", "speed"):
            args.n_resamples = int(args.n_resamples or MC_RESAMPLES)
        PARTS[part](args, out)
        out()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The family-wise error of ``explain`` seen whole: the global null of
``bench_explain.py --parts level`` (m = 200 columns of four kinds, n = 500
per sample), and for each repetition the smallest adjusted p-value of
``correction="fwer"`` (the first step of maxT, which alone decides whether
anything is flagged) and, for each kind of column, the resampling p-value of
the observed row's largest fitted ``-log p`` among that kind's columns.
Under exchangeable rows each is uniform on ``{1/(B+1), ..., 1}``: printed
is the share of each at or below 0.01, 0.05, 0.10, 0.20 and 0.50, and the
per-column permutation p-values' share at or below 0.005 and 0.05.

Run single-threaded (``OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1
OPENBLAS_NUM_THREADS=1``)::

    python benchmarks/bench_explain_steps.py --reps 500 --seed 20000

Figures, with the commands that made them: ``doc/benchmarks.rst``.
"""

import argparse

import numpy as np
from bench_explain import MC_RESAMPLES, Report, mixed_frame, monte_carlo, skmmd_adjusted

import skmmd.two_sample._explain as column_reports
from skmmd._inference._corrections import fitted_log_p_values

KINDS = ("norm", "t2_", "pois", "cat")
LEVELS = (0.01, 0.05, 0.10, 0.20, 0.50)


def rank_p(v):
    """The resampling p-value of row 0 of ``v`` (ties counted)."""
    return np.mean(v >= v[0] - 1e-9 * max(abs(v[0]), 1.0))


def run(args, out):
    captured, ranked = {}, column_reports.ranked

    def spy(labels, observed, null, *rest, **options):
        captured["labels"] = list(labels)
        captured["T"] = np.vstack([observed, null])
        return ranked(labels, observed, null, *rest, **options)

    def one_rep(seed):
        rng = np.random.default_rng(seed)
        X = mixed_frame(rng, args.n, args.columns)
        Y = mixed_frame(rng, args.n, args.columns)
        adjusted, permutation = skmmd_adjusted(X, Y, "fwer", seed, args.n_resamples)
        t = -fitted_log_p_values(captured["T"])
        labels = np.array(captured["labels"])
        values = {"first step": adjusted.min()}
        for kind in KINDS:
            own = np.char.startswith(labels, kind)
            values[f"max over {kind}"] = rank_p(t[:, own].max(axis=1))
        values["column p <= 0.005"] = np.mean(permutation <= 0.005)
        values["column p <= 0.05"] = np.mean(permutation <= 0.05)
        return values

    column_reports.ranked = spy
    try:
        v = monte_carlo(
            args,
            out,
            "steps",
            one_rep,
            f"global null of bench_explain's level part; n_resamples="
            f"{args.n_resamples}",
        )
    finally:
        column_reports.ranked = ranked
    rows = [
        [name, *(f"{np.mean(np.asarray(v[name]) <= q):.3f}" for q in LEVELS)]
        for name in ("first step", *(f"max over {k}" for k in KINDS))
    ]
    out.table(["resampling p-value", *(f"<= {q}" for q in LEVELS)], rows)
    out(
        "per-column permutation p-values: share <= 0.005 "
        f"{np.mean(v['column p <= 0.005']):.4f}, <= 0.05 "
        f"{np.mean(v['column p <= 0.05']):.4f}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="rows per sample")
    parser.add_argument("--columns", type=int, default=200)
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--n-resamples", type=int, default=MC_RESAMPLES)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--out", help="also write the output to this file")
    args = parser.parse_args(argv)
    run(args, Report(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

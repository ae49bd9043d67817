"""``python -m skmmd independence T --target y``: the HSIC test of independence
of one column of a table and its other columns; with ``--aggregate``, over a
grid of bandwidths; with ``--given``, the conditional test given some
columns."""

import argparse
import json
import sys

import numpy as np

from .._inference._explain import second_pass_decision
from ..conditional import ConditionalHSICTest
from ..independence import AggregatedHSICTest, HSICTest
from . import _files
from ._options import (
    EXIT_OK,
    EXIT_REJECT,
    add_common,
    add_correction,
    add_report_out,
    blocks_phrase,
    check_common,
    check_correction,
    check_report_out,
    effect_line,
    json_result,
    p_value_line,
    print_report,
    run,
    write_report,
)


def _check_flags(parser, args):
    """Reject conflicting options before any file is read: ``--aggregate``
    and ``--given`` run tests without exact kernels, ``--given`` without a
    per-column report and with one statistic of its own."""
    if args.aggregate and (args.given or args.transformer == "exact"):
        parser.error(
            "--aggregate tests a grid of random-feature kernels of the target "
            "and of the other columns: leave out --given and --transformer exact."
        )
    if args.given and (
        args.transformer == "exact" or args.explain or args.statistic is not None
    ):
        parser.error(
            "--given runs the conditional test, with random features, its own "
            "statistic and no per-column report: leave out --transformer exact, "
            "--explain and --statistic."
        )
    if args.statistic is None:
        args.statistic = "biased"


def _columns(args):
    """Positions of the target, the given columns and the columns tested."""
    names, width = _files.file_columns(args.table)
    (target,) = _files.column_positions(
        args.table, names, width, [args.target], "--target"
    )
    given = []
    if args.given:
        given = _files.column_positions(
            args.table, names, width, args.given.split(","), "--given"
        )
        if target in given:
            raise ValueError(
                f"{args.table}: --given includes the target {args.target!r}."
            )
    others = [i for i in range(width) if i != target and i not in given]
    if args.columns:
        columns = _files.column_positions(
            args.table, names, width, args.columns.split(","), "--columns"
        )
        if target in columns or set(columns) & set(given):
            raise ValueError(
                f"{args.table}: --columns includes the target {args.target!r} or a "
                "column of --given."
            )
        others = columns
    if not others:
        raise ValueError(
            f"{args.table}: the table has only the target column {args.target!r}; "
            "nothing to test it against."
        )
    return target, given, others


def _fitted_test(args, table, target, given, others):
    """The test the options ask for, fitted on the table."""
    X, y = table.iloc[:, others], table.iloc[:, [target]]
    common = {
        "n_resamples": args.n_resamples,
        "alpha": args.alpha,
        "random_state": args.seed,
        "block_size": args.block_size,
    }
    if given:
        return ConditionalHSICTest(**common).fit(X, y, Z=table.iloc[:, given])
    if args.aggregate:
        test = AggregatedHSICTest(
            statistic=args.statistic,
            correction=args.correction,
            decision=args.decision,
            **common,
        )
        return test.fit(X, y)
    exact = None if args.transformer == "exact" else "auto"
    test = HSICTest(
        exact,
        exact,
        statistic=args.statistic,
        correction=args.correction,
        decision=args.decision,
        **common,
    )
    return test.fit(X, y)


def _pairings(test):
    """What the resamples are: permutations, or with ``--block-size`` shifts
    of the target against the columns."""
    rows = getattr(test, "block_size_", None)
    return "permutations" if rows is None else f"shifts of at least {rows} rows"


def _kind(args):
    if args.given:
        return "conditional HSIC test"
    return "aggregated HSIC independence test" if args.aggregate else "HSIC test"


def _lines(args, test, effect, left_out=0):
    """The printed result: what was tested (and the rows with missing values
    ``--given`` left out), the statistic, the p-value, the decision and the
    effect with its interval."""
    given = f" given {args.given}" if args.given else ""
    columns = args.columns or "the other columns"
    low, high = effect.confidence_interval(args.confidence_level)
    decision = (
        f"reject H0: {args.target} depends on {columns}{given}"
        if test.reject_
        else f"do not reject H0 (no evidence of dependence{given})"
    )
    if args.given:
        kernel = (
            "kernel: auto (random features), ridge residuals on the given "
            f"columns' features; {args.n_resamples} bootstrap draws"
            f"{blocks_phrase(test)}"
        )
        statistic = (
            f"T        = {test.statistic_:.6g} (n times the squared "
            "cross-covariance of the ridge residuals)"
        )
    elif args.aggregate:
        kernel = (
            f"kernels: {len(test.kernels_)} pairs of Gaussian bandwidths; "
            f"{args.statistic} statistic, {args.n_resamples} "
            f"{_pairings(test)}"
        )
        statistic = f"aggregated statistic = {test.statistic_:.6g} (-log smallest p)"
    else:
        exact = (
            "exact Gaussian"
            if args.transformer == "exact"
            else "auto (random features)"
        )
        kernel = (
            f"kernel: {exact}; {args.statistic} statistic, {args.n_resamples} "
            f"{_pairings(test)}"
        )
        statistic = f"T        = {test.statistic_:.6g} (the {args.statistic} statistic)"
    name, value = effect.EFFECT_LABEL, getattr(effect, effect.EFFECT)
    kernels = ""
    if args.aggregate:  # the pair of kernels with the most evidence
        best = int(np.argmin(test.p_values_))
        value, low, high = value[best], low[best], high[best]
        kernels = f" ({test.kernels_[best]})"
    width = test.n_features_in_
    return [
        f"{_kind(args)}: {args.table}, target {args.target!r} against {width} "
        f"column{'s' * (width != 1)}{given}, n={test.n_samples_}"
        + (
            f" ({left_out} row{'s' * (left_out != 1)} with missing values left out)"
            if left_out
            else ""
        ),
        f"{kernel}, seed {args.seed}",
        statistic,
        p_value_line(test, args.n_resamples),
        f"decision = {decision} (alpha = {args.alpha})",
        effect_line(name, value, low, high, args.confidence_level) + kernels,
    ]


def run_independence(args, out=None):
    """The ``independence`` command: returns the exit status."""
    out = sys.stdout if out is None else out
    target, given, others = _columns(args)
    table = _files.read_table(args.table, True)
    left_out = 0
    if given:  # the conditional test runs on the rows complete for its columns
        complete = table.iloc[:, [target, *given, *others]].notna().all(axis=1)
        left_out = int((~complete).sum())
        table = table[complete.to_numpy()]
    test = _fitted_test(args, table, target, given, others)
    report = None
    if args.explain:
        report = test.explain(table.iloc[:, others], table.iloc[:, [target]])
        # The decision over the table and its columns, as hsic_test's.
        second_pass_decision(test, report)
        report = test.result_.column_report
        if args.report_out is not None:
            write_report(report, args.report_out)
    effect = test.result_
    status = EXIT_REJECT if test.reject_ else EXIT_OK
    if args.json:
        result = json_result(
            effect,
            args,
            report,
            n_samples=test.n_samples_,
            n_features=test.n_features_in_,
            target=args.target,
            kernel="exact"
            if args.transformer == "exact"
            else "aggregated"
            if args.aggregate
            else "auto",
            given=args.given.split(",") if given else None,
            rows_left_out=left_out if given else None,
            statistic_type="conditional" if given else args.statistic,
            n_resamples=args.n_resamples,
            resample_unit=test.resample_unit_,
            block_size=getattr(test, "block_size_", None),
            seed=args.seed,
        )
        print(json.dumps(result, default=str), file=out)
        return status
    lines = _lines(args, test, effect, left_out)
    if args.report_out is not None:
        lines.append(f"columns  = {args.report_out} (the per-column report)")
    print("\n".join(lines), file=out)
    if report is not None:
        print_report(
            report,
            args.alpha,
            f"per-column dependence on {args.target!r}",
            out,
            verb=f"depend on {args.target!r}",
        )
    return status


def _independence_parser():
    parser = argparse.ArgumentParser(
        prog="python -m skmmd independence",
        description="HSIC test of independence of one column of a table (the "
        "target) and its other columns; the table is a Parquet, CSV (with a "
        "header row) or NPY file, its columns of any type.",
    )
    parser.add_argument("table", help="the table (.parquet, .csv or .npy)")
    parser.add_argument(
        "--target", required=True, help="the target column (name, or position)"
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="test every column against the target, its p-value adjusted for "
        "testing them all (--correction): feature screening",
    )
    add_correction(parser)
    add_report_out(parser)
    parser.add_argument(
        "--transformer",
        choices=["auto", "exact"],
        default="auto",
        help="feature maps of the two sides: auto (random features, as "
        "HSICTest()) or exact Gaussian kernels (quadratic; numeric columns, at "
        "most 4096 rows)",
    )
    parser.add_argument(
        "--aggregate",
        action="store_true",
        help="aggregate a grid of Gaussian bandwidths of each side (numeric "
        "columns): one valid test for dependence the median bandwidth misses",
    )
    parser.add_argument(
        "--given",
        help="comma-separated columns to condition on: the conditional test of "
        "the target and the other columns given these",
    )
    parser.add_argument(
        "--statistic",
        choices=["biased", "unbiased"],
        default=None,
        help="the HSIC estimator (default biased; not with --given)",
    )
    add_common(parser)
    return parser


def command(argv):
    """Parse the ``independence`` command's options and run it."""
    parser = _independence_parser()
    args = parser.parse_args(argv)
    check_common(parser, args)
    check_correction(parser, args)
    check_report_out(parser, args)
    _check_flags(parser, args)
    return run(run_independence, args, "independence")

"""``python -m skmmd test A B``: the MMD two-sample test of two data files, in
memory or read in chunks (memory bounded whatever their size)."""

import argparse
import copy
import json
import shlex
import sys
from itertools import zip_longest
from pathlib import Path

import numpy as np
from sklearn.base import clone

from .. import __version__
from .._inference._inputs import auto_transformer
from .._inference._report import check_path
from .._tables._summaries import ColumnSummaries
from ..kernel_approximation import FastfoodSampler, RandomFourierSampler, TabularSampler
from ..two_sample import MMDTest
from . import _files
from ._files import CHUNK_ROWS as _CHUNK_ROWS
from ._options import (
    EXIT_OK,
    EXIT_REJECT,
    _bandwidth,
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

# Rows of each file held out to fit a median bandwidth when read in chunks.
_HELD_OUT = 1000

# --transformer choices: name -> class (None: the exact kernel test). Extend by
# adding entries; every class takes bandwidth, n_components and random_state.
# "tabular" reads the files as tables (any column types, missing values).
TRANSFORMERS = {
    "rff": RandomFourierSampler,
    "fastfood": FastfoodSampler,
    "tabular": TabularSampler,
    "exact": None,
}


def _make_test(args):
    """The MMDTest the command's options describe."""
    common = {
        "statistic": args.statistic,
        "calibration": args.calibration,
        "n_resamples": args.n_resamples,
        "alpha": args.alpha,
        "block_size": args.block_size,
        "random_state": args.seed,
        # The per-column report in the test's own pass over the rows.
        "explain_columns": args.explain,
        "correction": args.correction,
        "decision": args.decision,
    }
    if args.transformer == "exact":
        return MMDTest(None, bandwidth=args.bandwidth, **common)
    options = {"bandwidth": args.bandwidth, "n_components": args.n_components}
    if args.transformer == "auto":
        # MMDTest("auto")'s map, built here since a table read in chunks
        # arrives as arrays.
        sampler = auto_transformer(args.table, args.seed, **options)
    else:
        options = {k: v for k, v in options.items() if v is not None}
        sampler = TRANSFORMERS[args.transformer](random_state=args.seed, **options)
    return MMDTest(sampler, **common)


def _streams(args):
    """Whether the files are read in chunks (bounded memory): files of
    numbers only, for a feature map."""
    if args.transformer == "exact":
        if args.chunk_rows > 0:
            raise ValueError(
                "--chunk-rows reads the files in chunks for a feature map; the "
                "exact test (--transformer exact) needs every row at once: leave "
                "out --chunk-rows, or choose a feature map."
            )
        return False
    parquet = [
        p
        for p in (args.sample_a, args.sample_b)
        if Path(p).suffix.lower() in (".parquet", ".pq")
    ]
    if args.chunk_rows > 0:
        # Every file read in chunks, whatever its type: text columns are an
        # error naming them (iter_chunks), never a silent read in memory.
        return True
    if not all(_files.all_numeric(p) for p in parquet):
        return False  # other types in memory, as DataFrames
    # Parquet files larger than one chunk (smaller ones are read at once, so
    # that no rows are held out to fit the bandwidth).
    return any(_files.count_rows(p) > _CHUNK_ROWS for p in parquet)


def _progress(args, total):
    """A tqdm bar on standard error when asked (or on a terminal), else None."""
    if not args.progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit=" rows", unit_scale=True, file=sys.stderr)


def _held_first(chunks):
    """The chunks of one file, the first at least ``_HELD_OUT`` rows long
    (smaller chunks joined), so that the same rows are held out whatever
    ``--chunk-rows``."""
    first, size = [], 0
    for chunk in chunks:
        first.append(chunk)
        size += chunk.shape[0]
        if size >= _HELD_OUT:
            break
    if first:
        yield np.vstack(first)
    yield from chunks


def _fit_streamed(test, args, summaries=None):
    """partial_fit on the two files' chunks in lockstep.

    A fixed bandwidth gives a map that depends on no data: it is fit on one row
    and every row counts. With ``median`` the map is fit on the first
    ``_HELD_OUT`` rows of each file, which are held out of the statistic
    (``n_train_``), so the test stays exact. ``summaries`` (of
    ``--report``) are updated with every chunk, all rows included.
    """
    chunk_rows = args.chunk_rows or _CHUNK_ROWS
    readers = [
        _held_first(_files.iter_chunks(path, chunk_rows, columns))
        for path, columns in zip((args.sample_a, args.sample_b), args.positions)
    ]
    counts = [_files.count_rows(p) for p in (args.sample_a, args.sample_b)]
    bar = _progress(args, None if None in counts else sum(counts))
    for x, y in zip_longest(*readers):
        width = (x if x is not None else y).shape[1]
        x = np.empty((0, width)) if x is None else x
        y = np.empty((0, width)) if y is None else y
        if summaries is not None:
            summaries.update(x, y, names=args.names)
        if not hasattr(test, "n_samples_seen_"):
            # A fixed bandwidth makes the map independent of the data, except
            # a table's, whose columns are scaled by their quantiles.
            tabular = isinstance(test.transformer, TabularSampler)
            if args.bandwidth != "median" and not tabular:
                test.set_params(transformer=clone(test.transformer).fit(x[:1]))
            else:
                test.partial_fit(x[:_HELD_OUT], y[:_HELD_OUT])
                x, y = x[_HELD_OUT:], y[_HELD_OUT:]
        test.partial_fit(x, y)
        if bar is not None:
            bar.update(x.shape[0] + y.shape[0])
    if bar is not None:
        bar.close()
    if not hasattr(test, "n_samples_seen_"):
        raise ValueError(f"{args.sample_a} and {args.sample_b} hold no rows.")
    if not all(test.n_samples_seen_):
        fit = (
            "the median bandwidth: pass --bandwidth VALUE (then every row counts)"
            if args.bandwidth == "median"
            else "the table map's column scales"
        )
        raise ValueError(
            f"{args.sample_a} and {args.sample_b} hold no rows besides the first "
            f"{_HELD_OUT} of each, held out to fit {fit}, or leave out --chunk-rows."
        )
    return test


def _tables(args):
    """The two samples in memory: DataFrames for a table (or the tabular map),
    else float arrays."""
    tabular = args.transformer == "tabular" or (
        args.transformer == "auto" and args.table
    )
    X, Y = (
        _files.read_table(path, tabular, columns)
        for path, columns in zip((args.sample_a, args.sample_b), args.positions)
    )
    if tabular and args.names is not None:  # an .npy or headerless sample
        X.columns = Y.columns = args.names
    if tabular:
        _files.check_same_kinds((X, Y), (args.sample_a, args.sample_b))
    return X, Y


def _with_files(args):
    """A copy of ``args`` with what its files hold: ``table`` (whether
    either is a table), each file's column ``positions`` and the columns'
    ``names`` (the caller's ``args`` is left as it is)."""
    requested = args.columns.split(",") if args.columns else None
    positions, names = _files.matched_columns((args.sample_a, args.sample_b), requested)
    return argparse.Namespace(
        **vars(args),
        table=_files.is_table(args.sample_a) or _files.is_table(args.sample_b),
        positions=positions,
        names=names,
    )


def _run(test, args, summaries):
    """Fit ``test`` on the two files (streamed in chunks, or in memory),
    updating ``summaries``; returns the witness points of ``--explain`` in
    memory (None otherwise)."""
    if _streams(args):
        _fit_streamed(test, args, summaries)
        return None
    X, Y = _tables(args)
    bar = _progress(args, X.shape[0] + Y.shape[0])
    test.fit(X, Y)
    if summaries is not None:  # labelled as the column report is
        summaries.update(X, Y)
    points = None
    if args.explain:  # a second pass, in memory only
        points = test.witness_points(X, Y, n_points=3)
    if bar is not None:
        bar.update(X.shape[0] + Y.shape[0])
        bar.close()
    return points


def _named_report(test, args, points):
    """The column report of ``--explain`` (None without), its columns named
    as the files name them (chunks are read by position)."""
    if not args.explain:
        return None
    report = test.column_report_
    if points is None and args.names is not None:
        report = report.assign(column=[args.names[int(c)] for c in report.column])
    return report


def _settings(test, args):
    """What the test ran with, as the JSON output and the report list it."""
    fitted = test.transformer_
    return {
        "n_train": getattr(test, "n_train_", 0),
        "n_features": test.n_features_in_,
        "transformer": "exact" if fitted is None else type(fitted).__name__,
        "bandwidth": test.bandwidth_ if fitted is None else fitted.bandwidth_,
        "statistic_type": args.statistic,
        "calibration": args.calibration,
        "n_resamples": args.n_resamples,
        "resample_unit": test.resample_unit_,
        "block_size": test.block_size_,
        "seed": args.seed,
    }


def _summary_lines(test, args, settings):
    """The text output's lines before the column report."""
    effect = test.result_
    low, high = effect.confidence_interval(args.confidence_level)
    decision = (
        "reject H0: the samples come from different distributions"
        if test.reject_
        else "do not reject H0 (no evidence of a difference)"
    )
    held_out, bandwidth = settings["n_train"], settings["bandwidth"]
    held = f" ({held_out} first rows held out to fit the bandwidth)" if held_out else ""
    kernel = f"kernel: {settings['transformer']}" + (
        "" if bandwidth is None else f", bandwidth {bandwidth:.6g}"
    )
    lines = [
        f"MMD two-sample test: {args.sample_a} (m={test.n_samples_x_}) vs "
        f"{args.sample_b} (n={test.n_samples_y_}), {test.n_features_in_} features"
        f"{held}",
        f"{kernel}; {args.statistic} statistic, {args.calibration} with "
        f"{args.n_resamples} resamples{blocks_phrase(test)}, seed {args.seed}",
        f"T        = {test.statistic_:.6g} (the {args.statistic} statistic)",
        p_value_line(test, args.n_resamples),
        f"decision = {decision} (alpha = {args.alpha})",
        effect_line("MMD^2", effect.mmd2, low, high, args.confidence_level),
    ]
    if args.delta is not None:
        relevance = effect.relevance_test(args.delta)
        lines.append(
            f"relevance: H0 MMD^2 <= {args.delta:g}, p-value = {relevance.pvalue:.4g}"
        )
    if args.report is not None:
        lines.append(f"report   = {args.report}")
    if args.report_out is not None:
        lines.append(f"columns  = {args.report_out} (the per-column report)")
    return lines


def _print_points(points, shown, out):
    """The witness points of ``--explain``, with the values of the columns of
    the report's rows ``shown`` on a wide table (``--json`` has all)."""
    heading = "rows where the witness is most extreme"
    features = list(points.columns[3:])  # after sample, row and witness
    if len(features) > len(shown):
        keep = {str(c) for c in shown["column"]}
        points = points[[*points.columns[:3], *(c for c in features if str(c) in keep)]]
        heading += (
            f" (the report's {len(shown)} columns above; --json has all "
            f"{len(features)})"
        )
    print(f"\n{heading}:", file=out)
    print(points.to_string(index=False), file=out)


def run_test(args, out=None):
    """The ``test`` command: returns the exit status."""
    out = sys.stdout if out is None else out
    if args.report is not None:  # before the test runs
        check_path(args.report)
    args = _with_files(args)
    test = _make_test(args)
    # The report's distributions, from the chunks the test reads.
    summaries = None if args.report is None else ColumnSummaries()
    points = _run(test, args, summaries)
    effect, report = test.result_, _named_report(test, args, points)
    settings = _settings(test, args)
    result = json_result(effect, args, report, delta=args.delta, **settings)
    if args.report is not None:
        _save_report(effect, report, summaries, settings, args)
    if args.report_out is not None:
        write_report(report, args.report_out)
    if points is not None:
        result["witness_points"] = json.loads(points.to_json(orient="records"))
    status = EXIT_REJECT if test.reject_ else EXIT_OK
    if args.json:
        print(json.dumps(result, default=str), file=out)
        return status
    print("\n".join(_summary_lines(test, args, settings)), file=out)
    if report is not None:
        shown = print_report(report, args.alpha, "per-column report", out)
        if points is not None:
            _print_points(points, shown, out)
    return status


def _save_report(effect, report, summaries, settings, args):
    """Write the ``--report`` page: the result with the report's column names
    (a copy: the test's own result is left as it is)."""
    effect = copy.copy(effect)
    effect.column_report = report
    command = ["python -m skmmd test", *map(shlex.quote, args.argv)]
    effect.save_report(
        args.report,
        summaries=summaries,
        settings={
            "reference (X)": args.sample_a,
            "current (Y)": args.sample_b,
            **settings,
            "skmmd": __version__,
            "command": " ".join(command),
        },
        confidence_level=args.confidence_level,
        title=f"skmmd test: {Path(args.sample_a).name} vs {Path(args.sample_b).name}",
    )


def _test_parser():
    parser = argparse.ArgumentParser(
        prog="python -m skmmd test",
        description="MMD two-sample test of two samples stored as Parquet, CSV or "
        "NPY files (rows are points, columns features; a CSV may have one header "
        "row, and with one its columns may have any type).",
    )
    parser.add_argument("sample_a", help="first sample (.parquet, .csv or .npy)")
    parser.add_argument("sample_b", help="second sample (.parquet, .csv or .npy)")
    parser.add_argument(
        "--transformer",
        choices=["auto", *TRANSFORMERS],
        default="auto",
        help="feature map of the linear-time test, or 'exact'; default auto, "
        "as MMDTest(): tabular for tables (Parquet, CSV with a header row), "
        "else rff",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="per-column report: each column tested on its own, its p-value "
        "adjusted for testing them all (--correction)",
    )
    add_correction(parser)
    add_report_out(parser)
    parser.add_argument(
        "--delta",
        type=float,
        default=None,
        help="relevance test of H0: MMD^2 <= delta (a tolerated shift, > 0)",
    )
    parser.add_argument(
        "--report",
        metavar="PATH",
        default=None,
        help="also write a self-contained HTML report (the verdict, the null "
        "distribution, the settings; with --explain the columns that moved and "
        "their distributions) from summaries gathered in the test's pass",
    )
    parser.add_argument(
        "--bandwidth",
        type=_bandwidth,
        default="median",
        help="Gaussian bandwidth, or 'median' of the pooled sample (default)",
    )
    parser.add_argument(
        "--n-components",
        type=int,
        default=None,
        help="features (default: the map's, 256 for tabular, 1024 for rff)",
    )
    parser.add_argument(
        "--statistic", choices=["unbiased", "biased"], default="unbiased"
    )
    parser.add_argument(
        "--calibration", choices=["permutation", "bootstrap"], default="permutation"
    )
    add_common(parser)
    parser.add_argument(
        "--chunk-rows",
        type=int,
        default=0,
        help="read the files in chunks of this many rows, with memory bounded "
        f"whatever their size (default: Parquet files in chunks of {_CHUNK_ROWS}, "
        "CSV and NPY files at once)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=sys.stderr.isatty(),
        help="progress bar of the chunks read (needs tqdm; default: on a terminal)",
    )
    return parser


def command(argv):
    """Parse the ``test`` command's options and run it."""
    parser = _test_parser()
    args = parser.parse_args(argv)
    args.argv = argv
    check_common(parser, args)
    check_correction(parser, args)
    check_report_out(parser, args)
    if args.n_components is not None and args.n_components < 1:
        parser.error(f"--n-components must be >= 1; got {args.n_components}")
    if args.chunk_rows < 0:
        parser.error(f"--chunk-rows must be >= 0; got {args.chunk_rows}")
    if args.delta is not None and not args.delta > 0:
        parser.error(f"--delta must be > 0; got {args.delta}")
    return run(run_test, args, "test")

"""``python -m skmmd change-points series.csv``: the change points of a
series in a file (rows in time order), each with its p-value; with
``--chunk-rows``, the file read in chunks (``partial_fit``)."""

import argparse
import json
import sys

from ..change_points import KernelChangePoints
from . import _files
from ._options import EXIT_OK, EXIT_REJECT, _bandwidth, _block_size, run


def run_change_points(args, out=None):
    """The ``change-points`` command: returns the exit status (1 when a
    change is found)."""
    out = sys.stdout if out is None else out
    names, width = _files.file_columns(args.series)
    requested = None if args.columns is None else args.columns.split(",")
    positions = None
    if requested is not None:
        positions = _files.column_positions(args.series, names, width, requested)
    estimator = KernelChangePoints(
        bandwidth=args.bandwidth,
        n_changes=args.n_changes,
        penalty=args.penalty,
        alpha=args.alpha,
        min_size=args.min_size,
        n_resamples=args.n_resamples,
        block_size=args.block_size,
        random_state=args.seed,
    )
    if args.chunk_rows > 0:
        for chunk in _files.iter_chunks(args.series, args.chunk_rows, positions):
            estimator.partial_fit(chunk)
        if not hasattr(estimator, "n_features_in_"):
            raise ValueError(f"{args.series} holds no rows.")
    else:
        estimator.fit(_files.load_sample(args.series, positions))
    result = estimator.result_
    if args.json:
        print(json.dumps(result.to_dict()), file=out)
    else:
        blocks = "" if result.block_size is None else f", blocks of {result.block_size}"
        print(
            f"{result.n_samples} rows, {estimator.n_changes_} change points "
            f"(alpha = {args.alpha}{blocks}):",
            file=out,
        )
        for point, p, mmd2 in zip(result.change_points, result.pvalues, result.mmd2):
            print(f"  row {point}: p-value = {p:.4g}, MMD^2 = {mmd2:.4g}", file=out)
    return EXIT_REJECT if bool(result.reject.any()) else EXIT_OK


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m skmmd change-points",
        description="Kernel change points of a series (a CSV or NPY file of "
        "numeric rows in time order), each with a p-value; by significance at "
        "--alpha unless --n-changes or --penalty is given.",
    )
    parser.add_argument("series", help="the series (.csv or .npy)")
    parser.add_argument(
        "--columns", help="comma-separated columns (names or 0-based positions)"
    )
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--n-changes", type=int, help="find this many changes")
    chosen.add_argument("--penalty", type=float, help="the cost of a change")
    parser.add_argument("--min-size", type=int, default=2, help="fewest rows (2)")
    parser.add_argument("--n-resamples", type=int, default=999, help="999")
    parser.add_argument(
        "--block-size",
        type=_block_size,
        default=None,
        help='rows per block of the bootstrap, or "auto" (default: none)',
    )
    parser.add_argument(
        "--bandwidth",
        type=_bandwidth,
        default="median",
        help="Gaussian bandwidth, or 'median' of the rows (default; of the "
        "first chunk with --chunk-rows)",
    )
    parser.add_argument(
        "--chunk-rows",
        type=int,
        default=0,
        help="read the file in chunks of this many rows, holding the cumulative "
        "sums of their features, not the rows (default: the whole file at once)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="level (0.05)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    return parser


def command(argv):
    """Parse the ``change-points`` command's options and run it."""
    args = _parser().parse_args(argv)
    return run(run_change_points, args, "change-points")

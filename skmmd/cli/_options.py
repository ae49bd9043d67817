"""What the commands share: their common options, the exit statuses, the
``--json`` output and the one place where an error becomes a line on standard
error and an exit status."""

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

from .._inference._calibration import AUTO_RESAMPLES
from .._inference._corrections import CORRECTIONS
from .._inference._report import check_path

# Exit statuses of the commands (documented in :mod:`skmmd.cli`).
EXIT_OK, EXIT_REJECT, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def add_common(parser):
    """The options the test and independence commands share."""
    parser.add_argument(
        "--columns", help="comma-separated columns to test (default: all)"
    )
    parser.add_argument(
        "--confidence-level",
        type=float,
        default=0.95,
        help="level of the effect's interval (default 0.95)",
    )
    parser.add_argument(
        "--n-resamples",
        type=_resamples,
        default=999,
        help='default 999; "auto": stop when the decision at --alpha is known',
    )
    parser.add_argument(
        "--block-size",
        type=_block_size,
        default=None,
        help="rows in time order: resample blocks of this many consecutive rows; "
        '"auto" chooses the length from the data (default: rows exchangeable)',
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="level (0.05)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--null-distribution",
        action="store_true",
        help="with --json, include the resampled statistics",
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an error, show the traceback instead of one line",
    )


def add_correction(parser):
    """``--correction``, how ``--explain`` adjusts the columns' p-values, and
    ``--decision``, what the exit status decides with ``--explain``."""
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default=None,
        help="with --explain, how the columns' p-values are adjusted for "
        "testing them all: fwer (default), the family-wise error rate by "
        "step-down maxT; fdr, the false discovery rate by Benjamini-Hochberg; "
        "fdr_by, by Benjamini-Yekutieli (any dependence); none, each column's "
        "own p-value",
    )
    parser.add_argument(
        "--decision",
        choices=("combined", "table"),
        default=None,
        help="with --explain, what the p-value and the exit status decide: "
        "combined (default), the table's statistic and its most changed "
        "column together, so that a flagged column always rejects; table, "
        "the table's statistic alone",
    )


def check_correction(parser, args):
    """``--correction`` and ``--decision`` only with ``--explain`` (an error
    before any file is read); their defaults, "fwer" and "combined", set
    here."""
    for option in ("correction", "decision"):
        if getattr(args, option) is not None and not args.explain:
            parser.error(
                f"--{option} applies to the per-column report of --explain: add "
                f"--explain, or leave out --{option}"
            )
    if args.correction is None:
        args.correction = "fwer"
    if args.decision is None:
        args.decision = "combined"


# --report-out's formats, by the file's suffix.
REPORT_FORMATS = {".csv": "CSV", ".parquet": "Parquet", ".pq": "Parquet"}


def add_report_out(parser):
    """``--report-out``, the file the per-column report of ``--explain`` is
    written to."""
    parser.add_argument(
        "--report-out",
        metavar="PATH",
        default=None,
        help="with --explain, write the per-column report (every column, all "
        "its p-values, moved) to PATH: CSV for .csv, Parquet for .parquet "
        "(needs pyarrow)",
    )


def check_report_out(parser, args):
    """``--report-out`` only with ``--explain``, to a ``.csv`` or
    ``.parquet`` file (Parquet with pyarrow installed) in a folder that
    exists: each an error before any file is read."""
    path = args.report_out
    if path is None:
        return
    if not args.explain:
        parser.error(
            "--report-out writes the per-column report of --explain: add "
            "--explain, or leave out --report-out"
        )
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_FORMATS:
        parser.error(
            f"--report-out {path}: the suffix chooses the format, .csv or "
            f".parquet; got {suffix or 'no suffix'}"
        )
    if REPORT_FORMATS[suffix] == "Parquet" and not importlib.util.find_spec("pyarrow"):
        parser.error(
            f"--report-out {path} writes Parquet, which needs pyarrow: "
            "pip install 'skmmd[tables]' (or pip install pyarrow), or name a "
            ".csv file"
        )
    try:
        check_path(path)
    except OSError as exc:
        parser.error(f"--report-out {exc}")


def write_report(report, path):
    """Write the per-column ``report`` to ``path``, CSV or Parquet by its
    suffix: every column and all its p-values (Parquet keeps its ``attrs``:
    the correction, alpha). Column labels are written as text."""
    report = report.assign(column=report["column"].astype(str))
    if REPORT_FORMATS[Path(path).suffix.lower()] == "CSV":
        report.to_csv(path, index=False)
    else:
        report.to_parquet(path, index=False)


def _resamples(value):
    """``--n-resamples``: an integer, or "auto" (the sequential option)."""
    if value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'must be an integer or "auto"; got {value!r}'
        ) from None


def _word_or(word, convert, valid, expected):
    """An option's type: ``word``, or ``convert(text)`` where ``valid``;
    else an error saying ``expected``."""

    def parse(text):
        if text == word:
            return text
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not valid(value):
            raise argparse.ArgumentTypeError(f"{expected}; got {text!r}")
        return value

    return parse


# ``--bandwidth``: "median" or a positive number; ``--block-size``: "auto" or
# a positive integer.
_bandwidth = _word_or(
    "median",
    float,
    lambda value: bool(np.isfinite(value) and value > 0),
    "expected 'median' or a positive number",
)
_block_size = _word_or(
    "auto", int, lambda size: size >= 1, 'must be a positive integer or "auto"'
)


def blocks_phrase(test):
    """How the resamples moved rows, for the printed result: ``""``, or the
    blocks of consecutive rows of ``--block-size``."""
    rows = getattr(test, "block_size_", None)
    return "" if rows is None else f" (blocks of {rows} consecutive rows)"


def check_common(parser, args):
    if args.n_resamples != "auto" and args.n_resamples < 1:
        parser.error(f"--n-resamples must be >= 1; got {args.n_resamples}")
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha must be in (0, 1); got {args.alpha}")
    if not 0 < args.confidence_level < 1:
        parser.error(
            f"--confidence-level must be in (0, 1); got {args.confidence_level}"
        )


def p_value_line(test, n_resamples):
    """The printed p-value: a fixed number of resamples ``B`` gives ``(1 +
    #{T_b >= T}) / (B + 1)``, printed as that fraction; ``"auto"`` gives a
    sequential p-value, printed with the resamples drawn."""
    p, used = test.p_value_, test.n_resamples_used_
    table = getattr(test, "table_p_value_", p)
    alone = "" if table == p else f"; the table alone: {table:.4g}"
    if n_resamples == "auto":
        drawn = "all" if used == AUTO_RESAMPLES else f"stopped after {used} of"
        return (
            f"p-value  = {p:.4g} (sequential: {drawn} {AUTO_RESAMPLES} resamples"
            f"{alone})"
        )
    columns = f" (the table and its columns{alone})" if alone else ""
    return f"p-value  = {round(p * (used + 1))}/{used + 1} = {p:.4g}{columns}"


def effect_line(name, value, low, high, confidence_level):
    """The printed effect and its interval. The effect is a squared norm, so
    its interval starts at 0 or above; an unbiased estimate below 0 (by
    chance, where the effect is near 0) is printed as 0, its value beside."""
    estimate = f"{value:.4g}"
    if value < low:
        estimate = f"0 (unbiased estimate {value:.4g}: below 0 by chance)"
    return (
        f"effect   = {name} {estimate}, {confidence_level:.0%} interval "
        f"[{low:.4g}, {high:.4g}]"
    )


def json_result(effect, args, report, delta=None, **settings):
    """The ``--json`` output of a command: the result's own keys
    (:meth:`MMDTestResult.to_dict`, with ``n_resamples_used``), the run's
    ``settings``, and the per-column ``report`` (if any) as ``columns``,
    with the ``correction`` of its adjusted p-values."""
    result = {
        **effect.to_dict(
            args.confidence_level, delta, null_distribution=args.null_distribution
        ),
        **settings,
    }
    if report is not None:
        result["correction"] = report.correction
        result["columns"] = report.to_dict(orient="records")
    return result


# Rows of the printed per-column report (more when more columns moved).
REPORT_ROWS = 20


def print_report(report, alpha, heading, out, verb=None):
    """Print a per-column report under ``heading``, with how many columns
    ``verb`` (the report's own, or e.g. "depend on 'price'") out of all,
    under which correction: the first ``REPORT_ROWS`` rows, and every column
    that moved, then a line counting the others (``--json`` has every row).
    Returns the rows printed."""
    verb = report.verb if verb is None else verb
    print(f"\n{heading}: {report.count_text(alpha, verb)}", file=out)
    moved = report.flagged(alpha)
    shown = report[moved | (np.arange(len(report)) < REPORT_ROWS)]
    print(shown.to_string(index=False), file=out)
    if len(shown) < len(report):
        print(
            f"... and {len(report) - len(shown)} more columns (none {verb}; "
            "--json lists them all)",
            file=out,
        )
    return shown


def run(command, args, name):
    """Run a command; any error is one line on standard error and an exit
    status (``--debug``: the traceback instead)."""
    try:
        return command(args)
    except Exception as exc:
        if args.debug:
            raise
        # Bad input or files (argparse's status for usage errors, too).
        expected = isinstance(exc, (TypeError, ValueError, OSError, ImportError))
        kind = "error" if expected else f"internal error ({type(exc).__name__})"
        message = " ".join(str(exc).split()) or type(exc).__name__
        hint = "" if expected else " (--debug shows the traceback; please report it)"
        print(f"python -m skmmd {name}: {kind}: {message}{hint}", file=sys.stderr)
        return EXIT_INPUT if expected else EXIT_INTERNAL

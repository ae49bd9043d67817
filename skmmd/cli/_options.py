"""What the commands share: their common options, the exit statuses, the
``--json`` output and the one place where an error becomes a line on standard
error and an exit status."""

import argparse
import sys

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


def check_common(parser, args):
    if args.n_resamples != "auto" and args.n_resamples < 1:
        parser.error(f"--n-resamples must be >= 1; got {args.n_resamples}")
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha must be in (0, 1); got {args.alpha}")
    if not 0 < args.confidence_level < 1:
        parser.error(
            f"--confidence-level must be in (0, 1); got {args.confidence_level}"
        )


def json_result(effect, args, report, delta=None, **settings):
    """The ``--json`` output of a command: the result's own keys
    (:meth:`MMDTestResult.to_dict`, with ``n_resamples_used``), the run's
    ``settings``, and the per-column ``report`` (if any) as ``columns``."""
    result = {
        **effect.to_dict(
            args.confidence_level, delta, null_distribution=args.null_distribution
        ),
        **settings,
    }
    if report is not None:
        result["columns"] = report.to_dict(orient="records")
    return result


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

"""``python -m skmmd``: the demo, and the two-sample test command.

With no arguments: random Fourier features + a linear SVM against the exact
RBF-kernel SVM on the digits data (``--copies N`` adds an enlarged, jittered
copy of it), then MMD two-sample tests on digits.

``python -m skmmd test A.csv B.csv``: MMD two-sample test of two data files
(CSV with an optional header row, NPY or Parquet), printing the statistic, the
p-value, the decision and the MMD^2 with its confidence interval; ``--delta``
adds the relevance test, ``--explain`` the per-column report (``--correction``
how its p-values are adjusted: fwer, fdr, fdr_by or none), ``--json``
machine-readable output of all of it, ``--report PATH`` a self-contained HTML
page of it (figures from summaries of the chunks the test reads). Tables with
columns of any type (Parquet, or CSV with a header and non-numeric values) are
tested in memory with the tabular feature map; numeric Parquet files (and any file with
``--chunk-rows``) are read in chunks, memory bounded whatever their size.

``python -m skmmd independence table.parquet --target y``: HSIC test of
independence of the target column and the other columns of one table (Parquet,
CSV with a header row, or NPY with columns 0, 1, ...); ``--explain`` ranks
every column by its dependence on the target (feature screening), adjusted as
``--correction`` says.

``python -m skmmd change-points series.csv``: the kernel change points of a
series (CSV or NPY, rows in time order), each with its p-value
(``--n-changes``, ``--penalty``, ``--block-size``, ``--bandwidth``; exit
status 1 when a change is found at ``--alpha``); with ``--chunk-rows`` the file
is read in chunks, holding the cumulative sums of the features, not the rows.

``python -m skmmd warmup``: compiles and caches (on disk, numba's cache) the
kernels that the tests and the detector run, so that the first test in a fresh
environment (a new container of a monitoring job) does not pay for it; run it
once after installing, e.g. in the image's build.

``--columns`` takes names of a file's header or 0-based positions, the same
for CSV, Parquet and NPY; two files with headers are matched by name.

The default feature map (``--transformer auto``) is that of ``MMDTest()`` and
``mmd_test``: a ``TabularSampler`` for tables (Parquet, CSV with a header row),
random Fourier features for arrays (NPY, headerless CSV), with ``--seed`` as
their ``random_state``; in memory the three give the same statistic and p-value.

Exit statuses, like ``diff``'s: 0 when the test ran and did not reject H0, 1
when it rejected H0 (the samples differ; the target depends on the columns), 2
for bad usage, input or files (one line on standard error), 3 for an
unexpected error (a bug); ``--debug`` shows the traceback instead.

One module per command (``_demo``, ``_two_sample`` for ``test``,
``_independence``, ``_change_points``, ``_warmup``), each with a
``command(argv)``; the shared options, the ``--json`` output and the exit
statuses in ``_options``; files are read by :mod:`skmmd.cli._files`.
"""

import sys

from . import _change_points, _demo, _independence, _two_sample, _warmup
from ._demo import run_demo, run_two_sample_demo
from ._independence import run_independence
from ._options import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_REJECT
from ._two_sample import TRANSFORMERS, run_test
from ._warmup import run_warmup

# The commands by name; anything else runs the demo with its options.
COMMANDS = {
    "test": _two_sample.command,
    "independence": _independence.command,
    "warmup": _warmup.command,
    "change-points": _change_points.command,
}


def main(argv=None):
    """Entry point of ``python -m skmmd`` and the ``skmmd`` command."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        return COMMANDS[argv[0]](argv[1:])
    return _demo.command(argv)


__all__ = [
    "COMMANDS",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_REJECT",
    "TRANSFORMERS",
    "main",
    "run_demo",
    "run_independence",
    "run_test",
    "run_two_sample_demo",
    "run_warmup",
]

"""``python -m skmmd``: the demo, and the two-sample test command.

With no arguments: random Fourier features + a linear SVM against the exact
RBF-kernel SVM on the digits data (``--copies N`` adds an enlarged, jittered
copy of it), then MMD two-sample tests on digits.

``python -m skmmd test A.csv B.csv``: MMD two-sample test of two data files
(CSV with an optional header row, NPY or Parquet), printing the statistic, the
p-value, the decision and the MMD^2 with its confidence interval; ``--delta``
adds the relevance test, ``--explain`` the per-column report, ``--json``
machine-readable output of all of it, ``--report PATH`` a self-contained HTML
page of it (figures from summaries of the batches the test reads). Tables with
columns of any type (Parquet, or CSV with a header and non-numeric values) are
tested in memory with the tabular feature map; numeric Parquet files (and any file with
``--batch-rows``) are read in batches, memory bounded whatever their size.

``python -m skmmd independence table.parquet --target y``: HSIC test of
independence of the target column and the other columns of one table (Parquet,
CSV with a header row, or NPY with columns 0, 1, ...); ``--explain`` ranks
every column by its dependence on the target (feature screening).

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
"""

import argparse
import copy
import csv
import json
import shlex
import sys
import warnings
from itertools import zip_longest
from pathlib import Path
from time import perf_counter

import numpy as np
from sklearn.base import clone

from . import (
    FastfoodSampler,
    HSICTest,
    MMDTest,
    RandomFourierSampler,
    TabularSampler,
    __version__,
)
from ._utils import _files
from ._utils._summaries import ColumnSummaries
from .kernels import median_bandwidth
from .two_sample._inputs import auto_transformer
from .two_sample._report import check_path

# Rows per batch when a file is read in batches, and rows of each file held
# out to fit a median bandwidth.
_BATCH_ROWS = 65536
_HELD_OUT = 1000


def _timed_fit_score(model, X_train, y_train, X_test, y_test):
    start = perf_counter()
    model.fit(X_train, y_train)
    fit_time = perf_counter() - start
    return model.score(X_test, y_test), fit_time


def _enlarged_digits(X, y, copies, random_state):
    """Jittered copies of the digits: more points from the same distribution."""
    rng = np.random.default_rng(random_state)
    X_big = np.vstack([X + rng.normal(scale=0.15, size=X.shape) for _ in range(copies)])
    return X_big, np.tile(y, copies)


def _digits():
    """The digits scaled to [0, 1] (the demo's modules are imported here, not
    by every command: a cold start pays for what it runs)."""
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import MinMaxScaler

    X, y = load_digits(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y


def run_demo(copies=1, n_components=1024, random_state=0, out=sys.stdout):
    """Print accuracy and fit time of RFF + LinearSVC and exact SVC side by side."""
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import SVC, LinearSVC

    X, y = _digits()
    datasets = [("digits", X, y)]
    if copies > 1:
        datasets.append(
            (f"digits x{copies}", *_enlarged_digits(X, y, copies, random_state))
        )
    print("skmmd demo: RandomFourierSampler + LinearSVC vs exact RBF SVC\n", file=out)
    header = (
        f"{'data':<12} {'n_train':>7}  {'model':<28} {'accuracy':>8} {'fit (s)':>8}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for name, Xd, yd in datasets:
        X_train, X_test, y_train, y_test = train_test_split(
            Xd, yd, test_size=0.25, random_state=random_state, stratify=yd
        )
        # One bandwidth for both models, from the training data only.
        bandwidth = median_bandwidth(X_train, random_state=random_state)
        models = {
            f"RFF(D={n_components}) + LinearSVC": make_pipeline(
                RandomFourierSampler(
                    bandwidth=bandwidth,
                    n_components=n_components,
                    random_state=random_state,
                ),
                LinearSVC(C=1.0),
            ),
            "exact SVC(rbf)": SVC(kernel="rbf", gamma=0.5 / bandwidth**2, C=1.0),
        }
        for label, model in models.items():
            accuracy, fit_time = _timed_fit_score(
                model, X_train, y_train, X_test, y_test
            )
            print(
                f"{name:<12} {len(y_train):>7}  {label:<28} {accuracy:>8.4f} "
                f"{fit_time:>8.2f}",
                file=out,
            )


def run_two_sample_demo(random_state=0, copies=5, out=None):
    """MMD tests on digits: two random halves (H0 true) and even vs odd digits.

    The same problems on ``copies`` jittered copies of the digits show the
    exact test's quadratic cost against the feature test's linear one.
    """
    out = sys.stdout if out is None else out
    X, y = _digits()
    rng = np.random.default_rng(random_state)
    datasets = [("", X, y)]
    if copies > 1:
        datasets.append((f", x{copies}", *_enlarged_digits(X, y, copies, random_state)))
    tests = {
        "RFF(D=1024) MMDTest": MMDTest(
            RandomFourierSampler(n_components=1024, random_state=random_state),
            random_state=random_state,
        ),
        "exact MMDTest": MMDTest(None, random_state=random_state),
    }
    print("\nskmmd demo: MMD two-sample tests on digits (999 permutations)\n", file=out)
    header = (
        f"{'samples':<30} {'N':>5}  {'test':<20} {'MMD^2':>9} {'p-value':>8} "
        f"{'time (s)':>8}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for suffix, Xd, yd in datasets:
        halves = rng.permutation(len(Xd))
        problems = {
            "random halves (same law)": (Xd[halves[::2]], Xd[halves[1::2]]),
            "even vs odd digits": (Xd[yd % 2 == 0], Xd[yd % 2 == 1]),
        }
        for name, (A, B) in problems.items():
            for label, test in tests.items():
                start = perf_counter()
                test.fit(A, B)
                print(
                    f"{name + suffix:<30} {len(Xd):>5}  {label:<20} "
                    f"{test.statistic_:>9.5f} {test.p_value_:>8.3f} "
                    f"{perf_counter() - start:>8.2f}",
                    file=out,
                )


# --transformer choices: name -> class (None: the exact kernel test). Extend by
# adding entries; every class takes bandwidth, n_components and random_state.
# "tabular" reads the files as tables (any column types, missing values).
TRANSFORMERS = {
    "rff": RandomFourierSampler,
    "fastfood": FastfoodSampler,
    "tabular": TabularSampler,
    "exact": None,
}


def _read_csv(path):
    """A numeric CSV (one optional header row) as a float array."""
    data = _read_csv_fast(path)
    return _read_csv_checked(path) if data is None else data


def _read_csv_fast(path):
    """numpy's C parser (10x Python's ``csv`` here, a tenth of a second of a
    cold start at 2 x 10^4 rows); None when it cannot read the file, which
    then goes through :func:`_read_csv_checked` for its message."""
    with open(path, newline="") as f:
        skip = 0
        for skip, line in enumerate(f, start=1):
            if line.strip(" ,\t\r\n"):
                break
        else:
            return None
        header = not all(_is_float(c) for c in next(csv.reader([line])))
        if not header:
            skip -= 1
        f.seek(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # e.g. a header and no data
                data = np.loadtxt(
                    f, delimiter=",", skiprows=skip, ndmin=2, comments=None
                )
        except (ValueError, UserWarning):
            return None
    return data if data.size else None


def _read_csv_checked(path):
    with open(path, newline="") as f:
        rows = [row for row in csv.reader(f) if row and any(c.strip() for c in row)]
    if not rows:
        raise ValueError(f"{path}: the file holds no data.")

    def numbers(row, line):
        try:
            return [float(c) for c in row]
        except ValueError:
            bad = next(c for c in row if not _is_float(c))
            raise ValueError(
                f"{path}: line {line}: non-numeric value {bad!r}; expected comma-"
                "separated numbers (one optional header row)."
            ) from None

    start = 0 if all(_is_float(c) for c in rows[0]) else 1  # header row
    data = [numbers(row, i + 1) for i, row in enumerate(rows) if i >= start]
    widths = {len(row) for row in data}
    if len(widths) > 1:
        raise ValueError(
            f"{path}: rows have different numbers of columns {sorted(widths)}."
        )
    if not data:
        raise ValueError(f"{path}: the file holds a header but no data.")
    return np.array(data)


def _is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_sample(path):
    """Read one sample (n_samples x n_features) from a CSV or NPY file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    if path.suffix.lower() == ".npy":
        try:
            data = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: not a readable .npy file ({exc}).") from None
        if data.ndim not in (1, 2) or not np.issubdtype(data.dtype, np.number):
            raise ValueError(
                f"{path}: expected a 1-D or 2-D numeric array; got shape "
                f"{data.shape} and dtype {data.dtype}."
            )
        data = data.astype(np.float64)
    else:
        try:
            data = _read_csv(path)
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not a text CSV file.") from None
    return data.reshape(-1, 1) if data.ndim == 1 else data


def read_table(path, tabular, columns=None):
    """Read one sample: a pandas DataFrame for the tabular test (Parquet, or
    CSV with a header row and columns of any type), else a float array
    (:func:`load_sample`). ``columns``: 0-based positions of the columns to
    keep (see :func:`skmmd._utils._files.matched_columns`)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    if tabular:
        try:
            import pandas as pd
        except ImportError:
            raise ValueError(
                f"{path}: a table (a CSV with a header row, Parquet, or --"
                "transformer tabular) is read with pandas, which is not installed: "
                "python -m pip install 'skmmd[tables]', or pass --transformer rff "
                "to test its numeric columns as an array."
            ) from None
        suffix = path.suffix.lower()
        try:
            if suffix in (".parquet", ".pq"):
                data = pd.read_parquet(path)
            elif suffix == ".npy":
                data = pd.DataFrame(load_sample(path))
            else:
                header = _files.file_columns(path)[0] is not None
                data = pd.read_csv(path, header=0 if header else None)
        except (OSError, ValueError, ImportError) as exc:
            raise ValueError(f"{path}: not a readable table ({exc}).") from None
        return data if columns is None else data.iloc[:, columns]
    if path.suffix.lower() in (".parquet", ".pq"):
        return np.vstack(list(_files.iter_batches(path, _BATCH_ROWS, columns)))
    data = load_sample(path)
    return data if columns is None else data[:, columns]


def _is_table(path):
    """Whether a file is a table (named columns: Parquet, or CSV with a header
    row), read as a DataFrame would be, rather than an array (NPY, headerless
    CSV)."""
    return _files.file_columns(path)[0] is not None


def _all_numeric(path):
    """Whether every column of a Parquet file holds numbers (it can then be
    read in batches of float arrays)."""
    import pyarrow.parquet as pq
    from pyarrow import types

    return all(
        types.is_integer(field.type) or types.is_floating(field.type)
        for field in pq.read_schema(path)
    )


def _bandwidth(text):
    if text == "median":
        return text
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"expected 'median' or a positive number; got {text!r}"
        )
    return value


def _make_test(args):
    """The MMDTest the command's options describe."""
    common = {
        "statistic": args.statistic,
        "calibration": args.calibration,
        "n_resamples": args.n_resamples,
        "alpha": args.alpha,
        "random_state": args.seed,
        # The per-column report in the test's own pass over the rows.
        "explain_columns": args.explain,
    }
    if args.transformer == "exact":
        return MMDTest(None, bandwidth=args.bandwidth, **common)
    options = {"bandwidth": args.bandwidth, "n_components": args.n_components}
    if args.transformer == "auto":
        # MMDTest("auto")'s map, built here since a table read in batches
        # arrives as arrays.
        sampler = auto_transformer(args.table, args.seed, **options)
    else:
        options = {k: v for k, v in options.items() if v is not None}
        sampler = TRANSFORMERS[args.transformer](random_state=args.seed, **options)
    return MMDTest(sampler, **common)


def _streams(args):
    """Whether the files are read in batches (bounded memory): files of
    numbers only, for a feature map."""
    if args.transformer == "exact":
        return False
    parquet = [
        p
        for p in (args.sample_a, args.sample_b)
        if Path(p).suffix.lower() in (".parquet", ".pq")
    ]
    if not all(_all_numeric(p) for p in parquet):
        return False  # other types in memory, as DataFrames
    if args.batch_rows > 0:
        return True
    # Parquet files larger than one batch (smaller ones are read at once, so
    # that no rows are held out to fit the bandwidth).
    return any(_files.count_rows(p) > _BATCH_ROWS for p in parquet)


def _progress(args, total):
    """A tqdm bar on standard error when asked (or on a terminal), else None."""
    if not args.progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit=" rows", unit_scale=True, file=sys.stderr)


def _fit_streamed(test, args, summaries=None):
    """partial_fit on the two files' batches in lockstep.

    A fixed bandwidth gives a map that depends on no data: it is fit on one row
    and every row counts. With ``median`` the map is fit on the first
    ``_HELD_OUT`` rows of each file, which are held out of the statistic
    (``n_held_out_``), so the test stays exact. ``summaries`` (of
    ``--report``) are updated with every batch, all rows included.
    """
    batch_rows = args.batch_rows or _BATCH_ROWS
    readers = [
        _files.iter_batches(path, batch_rows, columns)
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
        if not hasattr(test, "_stream"):
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
    if not hasattr(test, "_stream"):
        raise ValueError(f"{args.sample_a} and {args.sample_b} hold no rows.")
    if not all(test._stream.n_rows):
        raise ValueError(
            f"{args.sample_a} and {args.sample_b} hold no rows besides the first "
            f"{_HELD_OUT} of each, held out to fit the median bandwidth: pass "
            "--bandwidth VALUE (then every row counts), or leave out --batch-rows."
        )
    return test


def _tables(args):
    """The two samples in memory: DataFrames for a table (or the tabular map),
    else float arrays."""
    tabular = args.transformer == "tabular" or (
        args.transformer == "auto" and args.table
    )
    X, Y = (
        read_table(path, tabular, columns)
        for path, columns in zip((args.sample_a, args.sample_b), args.positions)
    )
    if tabular and args.names is not None:  # an .npy or headerless sample
        X.columns = Y.columns = args.names
    return X, Y


def run_test(args, out=None):
    """The ``test`` command: returns the exit status."""
    out = sys.stdout if out is None else out
    if args.report is not None:  # before the test runs
        check_path(args.report)
    args.table = _is_table(args.sample_a) or _is_table(args.sample_b)
    requested = args.columns.split(",") if args.columns else None
    args.positions, args.names = _files.matched_columns(
        (args.sample_a, args.sample_b), requested
    )
    test = _make_test(args)
    report = points = None
    # The report's distributions, from the batches the test reads.
    summaries = None if args.report is None else ColumnSummaries()
    if _streams(args):
        _fit_streamed(test, args, summaries)
    else:
        X, Y = _tables(args)
        bar = _progress(args, X.shape[0] + Y.shape[0])
        test.fit(X, Y)
        if summaries is not None:  # labelled as the column report is
            summaries.update(X, Y)
        if args.explain:  # a second pass, in memory only
            points = test.witness_points(X, Y, n_points=3)
        if bar is not None:
            bar.update(X.shape[0] + Y.shape[0])
            bar.close()
    fitted = test.transformer_
    if fitted is None:
        bandwidth = test.bandwidth_
    elif isinstance(fitted, TabularSampler):
        numeric = fitted.column_transformer_.named_transformers_.get("numeric")
        bandwidth = None if numeric is None else numeric[-1].bandwidth_
    else:
        bandwidth = fitted.bandwidth_
    transformer = "exact" if fitted is None else type(fitted).__name__
    held_out = getattr(test, "n_held_out_", 0)
    if args.explain:
        report = test.column_report_
        if points is None and args.names is not None:  # batches: by position
            report = report.assign(column=[args.names[int(c)] for c in report.column])
    effect = test.result_
    low, high = effect.confidence_interval(args.confidence_level)
    settings = {
        "n_held_out": held_out,
        "n_features": test.n_features_in_,
        "transformer": transformer,
        "bandwidth": bandwidth,
        "statistic_type": args.statistic,
        "calibration": args.calibration,
        "n_resamples": args.n_resamples,
        "resample_unit": test.resample_unit_,
        "seed": args.seed,
    }
    result = _json_result(effect, args, report, delta=args.delta, **settings)
    if args.report is not None:
        _save_report(effect, report, summaries, settings, args)
    if points is not None:
        result["witness_points"] = json.loads(points.to_json(orient="records"))
    status = EXIT_REJECT if test.reject_ else EXIT_OK
    if args.json:
        print(json.dumps(result, default=str), file=out)
        return status
    decision = (
        "reject H0: the samples come from different distributions"
        if test.reject_
        else "do not reject H0 (no evidence of a difference)"
    )
    held = f" ({held_out} first rows held out to fit the bandwidth)" if held_out else ""
    kernel = f"kernel: {transformer}" + (
        "" if bandwidth is None else f", bandwidth {bandwidth:.6g}"
    )
    lines = [
        f"MMD two-sample test: {args.sample_a} (m={test.n_samples_x_}) vs "
        f"{args.sample_b} (n={test.n_samples_y_}), {test.n_features_in_} features"
        f"{held}",
        f"{kernel}; {args.statistic} statistic, {args.calibration} with "
        f"{args.n_resamples} resamples, seed {args.seed}",
        f"MMD^2    = {test.statistic_:.6g}",
        f"p-value  = {test.p_value_:.6g}",
        f"decision = {decision} (alpha = {args.alpha})",
        f"effect   = MMD^2 {effect.mmd2:.4g}, {args.confidence_level:.0%} interval "
        f"[{low:.4g}, {high:.4g}]",
    ]
    if args.delta is not None:
        relevance = effect.relevance_test(args.delta)
        lines.append(
            f"relevance: H0 MMD^2 <= {args.delta:g}, p-value = {relevance.pvalue:.4g}"
        )
    if args.report is not None:
        lines.append(f"report   = {args.report}")
    print("\n".join(lines), file=out)
    if report is not None:
        print("\nper-column report (family-wise adjusted p-values):", file=out)
        print(report.to_string(index=False), file=out)
    if points is not None:
        print("\nrows where the witness is most extreme:", file=out)
        print(points.to_string(index=False), file=out)
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


def _json_result(effect, args, report, delta=None, **settings):
    """The ``--json`` output of a command: the result's own keys
    (:meth:`MMDTestResult.to_dict`), the run's ``settings``, and the
    per-column ``report`` (if any) as ``columns``."""
    result = {
        **effect.to_dict(
            args.confidence_level, delta, null_distribution=args.null_distribution
        ),
        **settings,
    }
    if report is not None:
        result["columns"] = report.to_dict(orient="records")
    return result


def run_independence(args, out=None):
    """The ``independence`` command: returns the exit status."""
    out = sys.stdout if out is None else out
    table = read_table(args.table, True)
    names, width = _files.file_columns(args.table)
    (target,) = _files.column_positions(
        args.table, names, width, [args.target], "--target"
    )
    others = [i for i in range(width) if i != target]
    if args.columns:
        columns = _files.column_positions(
            args.table, names, width, args.columns.split(","), "--columns"
        )
        if target in columns:
            raise ValueError(
                f"{args.table}: --columns includes the target {args.target!r}."
            )
        others = columns
    if not others:
        raise ValueError(
            f"{args.table}: the table has only the target column {args.target!r}; "
            "nothing to test it against."
        )
    X, y = table.iloc[:, others], table.iloc[:, [target]]
    exact = None if args.exact else "auto"
    test = HSICTest(
        exact,
        exact,
        statistic=args.statistic,
        n_resamples=args.n_resamples,
        alpha=args.alpha,
        random_state=args.seed,
    )
    test.fit(X, y)
    report = test.explain(X, y) if args.explain else None
    effect = test.result_
    low, high = effect.confidence_interval(args.confidence_level)
    status = EXIT_REJECT if test.reject_ else EXIT_OK
    if args.json:
        result = _json_result(
            effect,
            args,
            report,
            n_samples=test.n_samples_,
            n_features=test.n_features_in_,
            target=args.target,
            kernel="exact" if args.exact else "auto",
            statistic_type=args.statistic,
            n_resamples=args.n_resamples,
            resample_unit=test.resample_unit_,
            seed=args.seed,
        )
        print(json.dumps(result, default=str), file=out)
        return status
    decision = (
        f"reject H0: {args.target} depends on the other columns"
        if test.reject_
        else "do not reject H0 (no evidence of dependence)"
    )
    lines = [
        f"HSIC independence test: {args.table}, target {args.target!r} against "
        f"{test.n_features_in_} columns, n={test.n_samples_}",
        f"kernel: {'exact Gaussian' if args.exact else 'auto (random features)'}; "
        f"{args.statistic} statistic, {args.n_resamples} permutations, "
        f"seed {args.seed}",
        f"HSIC     = {test.statistic_:.6g}",
        f"p-value  = {test.p_value_:.6g}",
        f"decision = {decision} (alpha = {args.alpha})",
        f"effect   = HSIC {effect.mmd2:.4g}, {args.confidence_level:.0%} interval "
        f"[{low:.4g}, {high:.4g}]",
    ]
    print("\n".join(lines), file=out)
    if report is not None:
        print(
            f"\nper-column dependence on {args.target!r} (family-wise adjusted "
            "p-values):",
            file=out,
        )
        print(report.to_string(index=False), file=out)
    return status


def run_warmup(out=None):
    """Compile the numba kernels a test, the detector or a learned kernel
    runs, for float64 and float32 and for the serial and parallel copies
    (inputs above the size at which a kernel goes parallel): numba caches
    them on disk."""
    from . import LearnedFourierSampler, OnlineMMDDetector, mmd_test

    out = sys.stdout if out is None else out
    start = perf_counter()
    rng = np.random.default_rng(0)
    for dtype in (np.float64, np.float32):
        X, Y = (rng.normal(size=(4000, 5)).astype(dtype) for _ in range(2))
        for rows in (100, 4000):  # the serial and the parallel copies
            mmd_test(X[:rows], Y[:rows], n_resamples=19, random_state=0)
        detector = OnlineMMDDetector(ert=50, window_size=5, n_bootstraps=50)
        detector.fit(X[:1000]).update(Y[:20])
        detector.update(Y[20])
    # The learned kernel's gradient (it learns in float64).
    learned = LearnedFourierSampler(max_iter=1, random_state=0)
    MMDTest(learned, train_size=0.5, n_resamples=19, random_state=0).fit(X, Y)
    print(
        f"skmmd warmup: kernels compiled and cached in {perf_counter() - start:.1f} s",
        file=out,
    )
    return EXIT_OK


def _add_common(parser):
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
    parser.add_argument("--n-resamples", type=int, default=999, help="default 999")
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


def _check_common(parser, args):
    if args.n_resamples < 1:
        parser.error(f"--n-resamples must be >= 1; got {args.n_resamples}")
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha must be in (0, 1); got {args.alpha}")
    if not 0 < args.confidence_level < 1:
        parser.error(
            f"--confidence-level must be in (0, 1); got {args.confidence_level}"
        )


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
        help="test every column against the target, with family-wise adjusted "
        "p-values (feature screening)",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="exact Gaussian kernels (quadratic; numeric columns, at most 4096 "
        "rows) instead of random features",
    )
    parser.add_argument("--statistic", choices=["biased", "unbiased"], default="biased")
    _add_common(parser)
    return parser


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
        help="per-column report with family-wise adjusted p-values (in memory)",
    )
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
    _add_common(parser)
    parser.add_argument(
        "--batch-rows",
        type=int,
        default=0,
        help="read the files in batches of this many rows, with memory bounded "
        f"whatever their size (default: Parquet files in batches of {_BATCH_ROWS}, "
        "CSV and NPY files at once)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=sys.stderr.isatty(),
        help="progress bar of the batches read (needs tqdm; default: on a terminal)",
    )
    return parser


# Exit statuses of the commands (documented in the module docstring).
EXIT_OK, EXIT_REJECT, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def _run(command, args, name):
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


def main(argv=None):
    """Entry point of ``python -m skmmd`` and the ``skmmd`` command."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "test":
        parser = _test_parser()
        args = parser.parse_args(argv[1:])
        args.argv = argv[1:]
        _check_common(parser, args)
        if args.n_components is not None and args.n_components < 1:
            parser.error(f"--n-components must be >= 1; got {args.n_components}")
        if args.batch_rows < 0:
            parser.error(f"--batch-rows must be >= 0; got {args.batch_rows}")
        if args.delta is not None and not args.delta > 0:
            parser.error(f"--delta must be > 0; got {args.delta}")
        return _run(run_test, args, "test")
    if argv and argv[0] == "warmup":
        argparse.ArgumentParser(
            prog="python -m skmmd warmup",
            description="Compile and cache the kernels of the tests (run once "
            "after installing).",
        ).parse_args(argv[1:])
        return run_warmup()
    if argv and argv[0] == "independence":
        parser = _independence_parser()
        args = parser.parse_args(argv[1:])
        _check_common(parser, args)
        return _run(run_independence, args, "independence")
    parser = argparse.ArgumentParser(
        prog="python -m skmmd",
        description="Run the skmmd demo (no arguments), 'python -m skmmd test "
        "A.csv B.csv' for a two-sample test (see 'python -m skmmd test -h'), or "
        "'python -m skmmd independence T.csv --target y' for a test of "
        "independence.",
    )
    parser.add_argument(
        "--copies",
        type=int,
        default=1,
        help="also run on this many jittered copies of digits (default 1: off)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.copies < 1:
        parser.error(f"--copies must be >= 1; got {args.copies}")
    run_demo(copies=args.copies, random_state=args.seed)
    run_two_sample_demo(random_state=args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Bit-for-bit results of every estimator, to compare two commits of skmmd.

Runs the public estimators (samplers' transforms; MMDTest, AggregatedMMDTest
and HSICTest in memory, chunked with ``partial_fit``, on Dask arrays and on
array-api-strict arrays; a learned kernel; the online detector) and the CLI's
``test`` and ``independence --json`` on fixed seeds, and saves every number in
one ``.npz``. ``--compare A.npz B.npz`` then reports, per entry, whether the
two are identical (``np.array_equal`` on the bits, NaN equal to NaN).

Keys of the CLI's JSON that a change renames are mapped by ``RENAMED``.

    python benchmarks/check_same_results.py --out before.npz   # old commit
    python benchmarks/check_same_results.py --out after.npz    # new commit
    python benchmarks/check_same_results.py --compare before.npz after.npz
"""

import argparse
import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

# scikit-learn's array-API dispatch needs scipy's, set before either is imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402

# CLI JSON keys renamed by the layout of a family of tests (issue 39):
# the independence result speaks of HSIC and pairs.
# the independence result speaks of HSIC and pairs (n_samples_y, which equalled
# n_samples_x, is gone).
RENAMED = {
    "independence.hsic": "independence.mmd2",
    "independence.n_pairs": "independence.n_samples_x",
}
REMOVED = {"independence.n_samples_y"}


def _data(seed=0, n=600, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(n, d)) + [0.2, 0.0, 0.0]
    return X, Y


def _test_values(prefix, test, out):
    for name in ("statistic_", "p_value_", "null_distribution_"):
        value = getattr(test, name, None)
        if value is not None:
            out[f"{prefix}.{name}"] = np.asarray(value, dtype=np.float64)
    result = test.result_
    for name in ("statistic", "pvalue", "standard_error"):
        out[f"{prefix}.result.{name}"] = np.asarray(getattr(result, name))
    low, high = result.confidence_interval()
    out[f"{prefix}.result.interval"] = np.array([low, high], dtype=np.float64)


def _samplers(out):
    import skmmd

    X, _ = _data()
    A = np.abs(X)
    for name, sampler, data in [
        ("rff", skmmd.RandomFourierSampler(n_components=64, random_state=0), X),
        (
            "nrff",
            skmmd.NormalizedRandomFourierSampler(n_components=64, random_state=0),
            X,
        ),
        ("fastfood", skmmd.FastfoodSampler(n_components=64, random_state=0), X),
        ("nystroem", skmmd.NystroemSampler(n_components=50, random_state=0), X),
        ("gcws", skmmd.GCWSSampler(n_components=32, random_state=0), A),
    ]:
        Z = sampler.fit(data).transform(data)
        Z = Z.toarray() if hasattr(Z, "toarray") else Z
        out[f"sampler.{name}"] = np.asarray(Z, dtype=np.float64)


def _mmd(out):
    from sklearn.base import clone

    import skmmd

    X, Y = _data()
    rff = skmmd.RandomFourierSampler(n_components=128, random_state=0)
    tests = {
        "mmd.rff": skmmd.MMDTest(rff, random_state=0, n_resamples=199),
        "mmd.biased_bootstrap": skmmd.MMDTest(
            rff,
            statistic="biased",
            calibration="bootstrap",
            random_state=1,
            n_resamples=199,
        ),
        "mmd.unit4": skmmd.MMDTest(
            rff, resample_unit=4, random_state=0, n_resamples=199
        ),
        "mmd.exact": skmmd.MMDTest(None, random_state=0, n_resamples=199),
        "agg": skmmd.AggregatedMMDTest(random_state=0, n_resamples=199),
    }
    for prefix, test in tests.items():
        _test_values(prefix, test.fit(X, Y), out)
    for prefix in ("mmd.rff", "agg"):
        test = clone(tests[prefix])
        for lo in range(0, 600, 250):
            test.partial_fit(X[lo : lo + 250], Y[lo : lo + 250])
        _test_values(prefix + ".partial", test, out)
    table = _table()
    test = skmmd.MMDTest(random_state=0, n_resamples=199)
    report = test.fit(table.iloc[:300], table.iloc[300:]).explain(
        table.iloc[:300], table.iloc[300:]
    )
    _test_values("mmd.tabular", test, out)
    out["mmd.tabular.explain"] = report.select_dtypes("number").to_numpy(float)
    learned = skmmd.MMDTest(
        skmmd.LearnedFourierSampler(n_components=64, random_state=0),
        train_size=0.5,
        random_state=0,
        n_resamples=199,
    ).fit(X, Y)
    _test_values("mmd.learned", learned, out)
    result = skmmd.mmd_test(X, Y, random_state=0, n_resamples=199)
    out["mmd_test"] = np.array([result.statistic, result.pvalue])


def _table():
    import pandas as pd

    rng = np.random.default_rng(3)
    n = 600
    return pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.exponential(size=n) + np.r_[np.zeros(300), 0.3 * np.ones(300)],
            "c": rng.choice(["x", "y", "z"], size=n),
        }
    )


def _hsic(out):
    import skmmd

    rng = np.random.default_rng(1)
    x = rng.normal(size=(800, 2))
    y = x[:, :1] ** 2 + rng.normal(size=(800, 1))
    tests = {
        "hsic.rff": skmmd.HSICTest(random_state=0, n_resamples=199),
        "hsic.unbiased": skmmd.HSICTest(
            statistic="unbiased", random_state=0, n_resamples=199
        ),
        "hsic.exact": skmmd.HSICTest(None, None, random_state=0, n_resamples=199),
    }
    for prefix, test in tests.items():
        _test_values(prefix, test.fit(x, y), out)
    test = skmmd.HSICTest(random_state=0, n_resamples=199)
    for lo in range(0, 800, 300):
        test.partial_fit(x[lo : lo + 300], y[lo : lo + 300])
    _test_values("hsic.partial", test, out)
    big = rng.normal(size=(5000, 1))
    _test_values(
        "hsic.unit",
        skmmd.HSICTest(random_state=0, n_resamples=199).fit(
            big, np.sin(3 * big) + rng.normal(size=(5000, 1))
        ),
        out,
    )
    table = _table()
    table["t"] = table["a"] ** 2 + rng.normal(size=600)
    result = skmmd.hsic_test(table, "t", explain=True, random_state=0, n_resamples=199)
    out["hsic_test"] = np.array([result.statistic, result.pvalue])
    out["hsic_test.explain"] = result.column_report.select_dtypes("number").to_numpy(
        float
    )


def _dask(out):
    try:
        import dask
        import dask.array as da
    except ImportError:
        return
    import skmmd

    X, Y = _data()
    with dask.config.set(scheduler="threads"):
        rff = skmmd.RandomFourierSampler(n_components=128, random_state=0)
        test = skmmd.MMDTest(rff, random_state=0, n_resamples=199)
        test.fit(da.from_array(X, chunks=250), da.from_array(Y, chunks=200))
        _test_values("dask.mmd", test, out)
        agg = skmmd.AggregatedMMDTest(random_state=0, n_resamples=199)
        agg.fit(da.from_array(X, chunks=250), da.from_array(Y, chunks=200))
        _test_values("dask.agg", agg, out)
        rng = np.random.default_rng(1)
        x = rng.normal(size=(800, 2))
        y = x[:, :1] ** 2 + rng.normal(size=(800, 1))
        hsic = skmmd.HSICTest(random_state=0, n_resamples=199)
        hsic.fit(da.from_array(x, chunks=300), da.from_array(y, chunks=300))
        _test_values("dask.hsic", hsic, out)


def _array_api(out):
    try:
        import array_api_strict as xp
    except ImportError:
        return
    import sklearn

    import skmmd

    X, Y = _data()
    with sklearn.config_context(array_api_dispatch=True):
        rff = skmmd.RandomFourierSampler(n_components=128, random_state=0)
        test = skmmd.MMDTest(rff, random_state=0, n_resamples=199)
        test.fit(xp.asarray(X), xp.asarray(Y))
        _test_values("array_api.mmd", test, out)


def _detector(out):
    import skmmd

    X, Y = _data()
    detector = skmmd.OnlineMMDDetector(
        skmmd.RandomFourierSampler(n_components=64, random_state=0),
        window_size=50,
        ert=200,
        random_state=0,
    ).fit(X)
    result = detector.update(Y[:200])
    out["detector.statistic"] = np.asarray(result.statistic, dtype=np.float64)


def _cli(out):
    from skmmd.__main__ import main

    X, Y = _data()
    table = _table()
    with tempfile.TemporaryDirectory() as tmp:
        a, b, t = (Path(tmp) / name for name in ("a.csv", "b.csv", "t.csv"))
        np.savetxt(a, X, delimiter=",", header="p,q,r", comments="")
        np.savetxt(b, Y, delimiter=",", header="p,q,r", comments="")
        table.to_csv(t, index=False)
        for name, argv in [
            ("test", ["test", str(a), str(b), "--json", "--n-resamples", "199"]),
            (
                "test_explain",
                ["test", str(a), str(b), "--json", "--explain", "--delta", "0.01"],
            ),
            (
                "independence",
                ["independence", str(t), "--target", "a", "--json", "--explain"],
            ),
        ]:
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                main(argv)
            _flatten(name, json.loads(buffer.getvalue()), out)


def _flatten(prefix, value, out):
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}", item, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _flatten(f"{prefix}.{i}", item, out)
    elif isinstance(value, (int, float, bool)) or value is None:
        out[prefix] = np.asarray(np.nan if value is None else value, dtype=np.float64)


def collect():
    out = {}
    for part in (_samplers, _mmd, _hsic, _dask, _array_api, _detector, _cli):
        part(out)
    return out


def compare(before, after):
    a, b = dict(np.load(before)), dict(np.load(after))
    mapped = {}
    for key, value in b.items():
        for new, old in RENAMED.items():
            if key.startswith(new + ".") or key == new:
                key = old + key[len(new) :]
                break
        mapped[key] = value
    same = [k for k in a if k in mapped and _equal(a[k], mapped[k])]
    differ = [k for k in a if k in mapped and k not in same]
    missing = [k for k in a if k not in mapped and k not in REMOVED]
    added = [k for k in mapped if k not in a]
    print(f"{len(a)} entries before, {len(b)} after")
    print(f"identical bit for bit: {len(same)}")
    print(f"different: {len(differ)}", *differ[:40], sep="\n  ")
    print(f"only before: {len(missing)}", *missing[:40], sep="\n  ")
    print(f"removed as documented: {sorted(REMOVED & set(a))}")
    print(f"only after: {len(added)}", *added[:40], sep="\n  ")
    return 1 if differ or missing else 0


def _equal(x, y):
    return x.shape == y.shape and np.array_equal(x, y, equal_nan=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="save this checkout's results here")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    np.savez(args.out, **collect())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Bit-for-bit results of every estimator, to compare two commits of skmmd.

Runs the public estimators (samplers' transforms; MMDTest, AggregatedMMDTest,
HSICTest and AggregatedHSICTest in memory, chunked with ``partial_fit``, on
Dask arrays and on array-api-strict arrays, with ``n_resamples="auto"`` and
every ``correction`` of ``explain``; a learned kernel; ConditionalHSICTest and
causal-learn's adapter ``SkmmdCIT`` with a PC search; the online detector) and
the goodness-of-fit tests; the CLI's ``test`` and ``independence --json``
(with ``--given`` too) on fixed
seeds, and saves every number in one ``.npz``. ``--compare A.npz B.npz`` then
reports, per entry, whether the two are identical (``np.array_equal`` on the
bits, NaN equal to NaN).

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

# Keys (new name: old name) that a change renames, and keys it removes on
# purpose; both start empty for each comparison of two commits.
RENAMED = {}
REMOVED = set()


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
    result = skmmd.hsic_test(
        table, "t", explain_columns=True, random_state=0, n_resamples=199
    )
    out["hsic_test"] = np.array([result.statistic, result.pvalue])
    out["hsic_test.explain"] = result.column_report.select_dtypes("number").to_numpy(
        float
    )


def _auto_and_corrections(out):
    import skmmd

    X, Y = _data()
    table = _table()
    for prefix, test, data in [
        ("auto.mmd", skmmd.MMDTest(n_resamples="auto", random_state=0), (X, Y)),
        (
            "auto.agg",
            skmmd.AggregatedMMDTest(n_resamples="auto", random_state=0),
            (X, Y),
        ),
        (
            "auto.hsic",
            skmmd.HSICTest(n_resamples="auto", random_state=0),
            (X, Y[:, :1]),
        ),
    ]:
        _test_values(prefix, test.fit(*data), out)
        out[prefix + ".n_resamples_used_"] = np.asarray(test.n_resamples_used_, float)
    for correction in ("fwer", "fdr", "fdr_by", "none"):
        result = skmmd.mmd_test(
            table.iloc[:300],
            table.iloc[300:],
            explain_columns=True,
            correction=correction,
            random_state=0,
            n_resamples=199,
        )
        report = result.column_report
        out[f"explain.{correction}"] = report.select_dtypes("number").to_numpy(float)
        # The decision over the table and its columns (added with issue 67).
        out[f"decision.{correction}"] = np.array(
            [result.pvalue, result.table_pvalue, result.reject], dtype=np.float64
        )
        out[f"decision.{correction}.flags"] = report["moved"].to_numpy(np.float64)


def _aggregated_hsic(out):
    import skmmd

    rng = np.random.default_rng(2)
    x = rng.normal(size=(600, 2))
    y = np.sin(2 * x[:, :1]) + rng.normal(size=(600, 1))
    for prefix, test in {
        "agghsic": skmmd.AggregatedHSICTest(random_state=0, n_resamples=199),
        "agghsic.uniform": skmmd.AggregatedHSICTest(
            weights="uniform", random_state=1, n_resamples=199
        ),
    }.items():
        _test_values(prefix, test.fit(x, y), out)
    test = skmmd.AggregatedHSICTest(random_state=0, n_resamples=199)
    for lo in range(0, 600, 250):
        test.partial_fit(x[lo : lo + 250], y[lo : lo + 250])
    _test_values("agghsic.partial", test, out)


def _goodness_of_fit(out):
    """The goodness-of-fit tests in memory and chunked (added with issue 64:
    ``block_size=None`` must leave them as they were)."""
    from scipy import stats

    import skmmd

    X = np.random.default_rng(5).laplace(size=(800, 2)) / np.sqrt(2)
    model = stats.multivariate_normal(np.zeros(2))
    for name, test in (
        ("ksd", skmmd.KernelSteinTest(model, random_state=0, n_resamples=199)),
        (
            "ksd.agg",
            skmmd.AggregatedKernelSteinTest(model, random_state=0, n_resamples=199),
        ),
    ):
        _test_values(name, test.fit(X), out)
    chunked = skmmd.KernelSteinTest(
        model, bandwidth=1.0, random_state=0, n_resamples=199
    )
    for chunk in np.array_split(X, 3):
        chunked.partial_fit(chunk)
    _test_values("ksd.partial_fit", chunked, out)


def _goodness_of_fit_models(out):
    """The goodness-of-fit tests' other models and inputs (added with issue
    67): composite nulls (a scipy family, with ``known_params``; a mixture
    refit per resample), a bounded support, the exact test and MCMC chains."""
    from scipy import stats
    from sklearn.mixture import GaussianMixture

    import skmmd

    rng = np.random.default_rng(6)
    x = rng.gamma(2.0, size=(300, 1))
    options = {"random_state": 0, "n_resamples": 99}
    for name, model, extra in (
        ("gof.family.norm", stats.norm, {}),
        ("gof.family.expon", stats.expon, {"known_params": {"loc": 0}}),
        ("gof.support.gamma", stats.gamma(2.0), {}),
    ):
        _test_values(name, skmmd.KernelSteinTest(model, **extra, **options).fit(x), out)
    X = rng.normal(size=(300, 2))
    mixture = GaussianMixture(2, random_state=0)
    _test_values(
        "gof.family.mixture", skmmd.KernelSteinTest(mixture, **options).fit(X), out
    )
    model = stats.multivariate_normal(np.zeros(2))
    _test_values(
        "gof.exact",
        skmmd.KernelSteinTest(model, transformer=None, **options).fit(X[:200]),
        out,
    )
    chains = rng.normal(size=(200, 3, 2)).cumsum(axis=0) * 0.1
    _test_values("gof.chains", skmmd.KernelSteinTest(model, **options).fit(chains), out)


def _decisions(out):
    """The flags of an independence screening's decision (added with issue
    67; the two-sample decisions are in :func:`_auto_and_corrections`)."""
    import skmmd

    table = _table()
    table["t"] = table["a"] ** 2
    result = skmmd.hsic_test(
        table, "t", explain_columns=True, random_state=0, n_resamples=199
    )
    out["decision.hsic.flags"] = result.column_report["depends"].to_numpy(np.float64)


def _causal_data(seed=4, n=400):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = np.sin(2 * a) + 0.5 * rng.normal(size=n)
    c = a**2 + 0.5 * rng.normal(size=n)
    d = b - c + 0.5 * rng.normal(size=n)
    e = rng.normal(size=n)
    return np.column_stack([a, b, c, d, e])


def _conditional(out):
    import skmmd

    data = _causal_data()
    for prefix, test, args in [
        ("cond", skmmd.ConditionalHSICTest(random_state=0, n_resamples=199), (1, 2, 0)),
        (
            "cond.dep",
            skmmd.ConditionalHSICTest(random_state=1, n_resamples=199),
            (1, 3, 0),
        ),
        (
            "cond.noz",
            skmmd.ConditionalHSICTest(random_state=0, n_resamples=199),
            (0, 4, None),
        ),
        (
            "cond.auto",
            skmmd.ConditionalHSICTest(random_state=0, n_resamples="auto"),
            (1, 2, 0),
        ),
        (
            "cond.two",
            skmmd.ConditionalHSICTest(
                n_folds=3, z_screen=False, random_state=2, n_resamples=199
            ),
            (0, 3, [1, 2]),
        ),
    ]:
        i, j, k = args
        Z = None if k is None else data[:, np.atleast_1d(k)]
        test.fit(data[:, [i]], data[:, [j]], Z)
        _test_values(prefix, test, out)
        for name in ("penalty_", "null_scale_", "resample_unit_", "n_resamples_used_"):
            out[f"{prefix}.{name}"] = np.asarray(getattr(test, name), dtype=np.float64)


def _causal(out):
    try:
        from causallearn.search.ConstraintBased.PC import pc
    except ImportError:
        return
    from skmmd.causal import SkmmdCIT

    data = _causal_data()
    for prefix, kwargs in [
        ("causal", {"n_resamples": 199}),
        ("causal.auto", {"n_resamples": "auto", "level": 0.05}),
    ]:
        cit = SkmmdCIT(data, random_state=0, **kwargs)
        out[prefix + ".p"] = np.array(
            [
                cit(0, 1),
                cit(1, 2, [0]),
                cit(0, 3, [1, 2]),
                cit(3, 4, []),
                cit(2, 1, (0,)),
            ]
        )
    graph = pc(
        data, 0.05, "skmmd", show_progress=False, random_state=0, n_resamples=199
    )
    out["causal.pc"] = np.asarray(graph.G.graph, dtype=np.float64)


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
            (
                "independence_given",
                ["independence", str(t), "--target", "a", "--given", "b", "--json"],
            ),
            (
                "independence_aggregate",
                ["independence", str(a), "--target", "p", "--aggregate", "--json"],
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
    for part in (
        _samplers,
        _mmd,
        _hsic,
        _auto_and_corrections,
        _aggregated_hsic,
        _goodness_of_fit,
        _goodness_of_fit_models,
        _decisions,
        _conditional,
        _causal,
        _dask,
        _array_api,
        _detector,
        _cli,
    ):
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

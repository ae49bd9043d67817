"""ConditionalHSICTest and conditional_independence_test: the statistic against
a direct computation, chunks against one pass, seeds, level and power on small
seeded problems, bad input; causal-learn's PC and FCI with the test."""

import sys

import numpy as np
import pytest

import skmmd
from skmmd import (
    ConditionalHSICTest,
    ConditionalHSICTestResult,
    RandomFourierSampler,
)
from skmmd._utils import _budgets
from skmmd.independence import _conditional_search, _ridge
from skmmd.independence._ridge import RidgeFolds


def _chain(n, rng, dependent=0.0):
    """z -> x and z -> y, non-linear, heteroscedastic; ``dependent`` adds a
    direct x -> y link."""
    z = rng.normal(size=(n, 1))
    x = np.sin(2 * z) + (0.2 + 0.2 * np.abs(z)) * rng.normal(size=(n, 1))
    y = np.tanh(2 * z) + z**2 / 2 + 0.3 * rng.normal(size=(n, 1)) + dependent * x
    return x, y, z


def _test(**params):
    return ConditionalHSICTest(n_resamples=199, random_state=0, **params)


def test_statistic_equals_the_residuals_computed_directly():
    # Ground truth in memory: cross-fitted residuals of the fitted maps'
    # features, weighted by g(z): T = n ||mean(r (x) g (x) s)||^2, same folds.
    rng = np.random.default_rng(0)
    x, y, z = _chain(600, rng)
    test = _test().fit(x, y, Z=z)
    A = test.x_transformer_.transform(x)
    B = test.y_transformer_.transform(y)
    C = test.z_transformer_.transform(z)
    seed = np.random.RandomState(0).randint(np.iinfo(np.int32).max)
    folds = _ridge.fold_labels(seed, np.arange(600), 5)
    F = np.hstack([A, B])
    # Double cross-fitting: x-features on folds at odd cyclic distance; the
    # fits undersmoothed (a tenth of the cross-validated penalty).
    ridge = RidgeFolds(5, split=A.shape[1], shrink=10.0).add(C, F, folds).fit()
    R = ridge.residuals(C, F, folds)
    r, s = R[:, : A.shape[1]], R[:, A.shape[1] :]
    G = test.z_weights_.transform(z)
    expected = 600 * np.sum((np.einsum("ij,im,il->jml", r, G, s) / 600) ** 2)
    assert test.statistic_ == pytest.approx(expected, rel=1e-10)
    unweighted = _test(z_weights=None).fit(x, y, Z=z)
    assert unweighted.statistic_ == pytest.approx(600 * np.sum((r.T @ s / 600) ** 2))
    np.testing.assert_array_equal(test.penalty_, ridge.penalty_)
    assert isinstance(test.result_, ConditionalHSICTestResult)
    assert test.result_.n_samples == 600 and test.n_features_in_ == 1


def test_chunks_give_the_same_statistic_and_p_value(monkeypatch):
    rng = np.random.default_rng(1)
    x, y, z = _chain(900, rng)
    whole = _test(resample_unit=2).fit(x, y, Z=z)
    monkeypatch.setattr(_budgets, "CHUNK_ENTRIES", 97 * 50)
    chunked = _test(resample_unit=2).fit(x, y, Z=z)
    # Chunks only reorder the sums of C'C and C'F; the undersmoothed ridge
    # solve (condition number ~1e3 larger) carries their rounding to ~1e-9.
    assert chunked.statistic_ == pytest.approx(whole.statistic_, rel=1e-7)
    assert chunked.p_value_ == whole.p_value_
    np.testing.assert_allclose(
        chunked.null_distribution_, whole.null_distribution_, rtol=1e-7
    )


def test_folds_are_balanced_and_independent_of_chunks():
    whole = _ridge.fold_labels(7, np.arange(10_000), 5)
    parts = np.concatenate(
        [
            _ridge.fold_labels(7, np.arange(lo, lo + 333), 5)
            for lo in range(0, 9990, 333)
        ]
        + [_ridge.fold_labels(7, np.arange(9990, 10_000), 5)]
    )
    np.testing.assert_array_equal(whole, parts)
    for stop in (10, 13, 4096, 8192):  # every fold once in each run of 5
        counts = np.bincount(whole[:stop], minlength=5)
        assert counts.max() - counts.min() <= 1


def test_same_seed_same_p_value_and_batches_do_not_matter():
    rng = np.random.default_rng(2)
    x, y, z = _chain(500, rng, dependent=0.2)
    a = _test().fit(x, y, Z=z)
    b = _test(batch=7).fit(x, y, Z=z)
    # The same signs; BLAS may round a product's rows by its shape.
    assert a.p_value_ == b.p_value_
    np.testing.assert_allclose(a.null_distribution_, b.null_distribution_, rtol=1e-12)
    c = _test().set_params(random_state=1).fit(x, y, Z=z)
    assert not np.array_equal(a.null_distribution_, c.null_distribution_)


def test_function_returns_the_estimators_result():
    rng = np.random.default_rng(3)
    x, y, z = _chain(400, rng, dependent=0.5)
    result = skmmd.conditional_independence_test(
        x[:, 0], y[:, 0], z[:, 0], n_resamples=199, random_state=0
    )
    test = _test().fit(x, y, Z=z)
    assert (result.statistic, result.pvalue) == (test.statistic_, test.p_value_)
    low, high = result.confidence_interval()
    assert low <= result.conditional_hsic <= high


def test_without_z_it_detects_the_dependence_through_z():
    rng = np.random.default_rng(4)
    x, y, z = _chain(500, rng)
    assert _test().fit(x, y).p_value_ == 0.005  # 1 / (B + 1)
    assert _test().fit(x, y, Z=z).p_value_ > 0.05


@pytest.mark.slow
def test_level_on_a_heteroscedastic_non_linear_null():
    # 40 seeded nulls at n = 300: the rejection count at alpha = 0.05 stays
    # within the binomial(40, 0.05) 99.9 % range (at most 7).
    rejections = 0
    for rep in range(40):
        rng = np.random.default_rng(100 + rep)
        x, y, z = _chain(300, rng)
        test = ConditionalHSICTest(n_resamples=99, random_state=rep)
        rejections += test.fit(x, y, Z=z).reject_
    assert rejections <= 7


def test_power_against_a_direct_link():
    rejections = 0
    for rep in range(10):
        rng = np.random.default_rng(200 + rep)
        x, y, z = _chain(600, rng, dependent=0.5)
        rejections += _test().set_params(random_state=rep).fit(x, y, Z=z).reject_
    assert rejections >= 9


def _interaction_and_noise_columns(n, rng):
    """z0 and z1 drive x and y through an interaction; z2..z4 are independent
    of everything."""
    z = rng.normal(size=(n, 5))
    x = np.sin(2 * z[:, 0]) * z[:, 1] + 0.3 * rng.normal(size=n)
    y = np.cos(2 * z[:, 0]) + z[:, 1] ** 2 / 2 + 0.3 * rng.normal(size=n)
    return x, y, z


def test_screen_leaves_out_the_columns_independent_of_everything():
    x, y, z = _interaction_and_noise_columns(1000, np.random.default_rng(12))
    test = _test().fit(x, y, Z=z)
    assert test.z_columns_.tolist() == [0, 1]
    assert test.z_transformer_.n_features_in_ == 2
    full = _test(z_screen=False).fit(x, y, Z=z)
    assert full.z_columns_.tolist() == [0, 1, 2, 3, 4]
    assert full.z_transformer_.n_features_in_ == 5
    # Kept: columns acting only jointly (x and y depend on sign(z0 z1): no
    # trace in either column alone), seen by the features of the rest jointly.
    rng = np.random.default_rng(13)
    z = rng.normal(size=(1000, 3))
    s = np.sign(z[:, 0] * z[:, 1])
    x, y = (s + 0.5 * rng.normal(size=1000) for _ in range(2))
    assert _test().fit(x, y, Z=z).z_columns_.tolist() == [0, 1]


def test_screen_takes_a_table_with_text_for_x():
    pd = pytest.importorskip("pandas", reason="pandas is not installed")
    x, y, z = _interaction_and_noise_columns(600, np.random.default_rng(16))
    # x as a table with a text column: its TabularSampler features are screened.
    X = pd.DataFrame({"x": x, "sign": np.where(x > 0, "up", "down")})
    kept = _test().fit(X, y, Z=z).z_columns_.tolist()
    assert kept[:2] == [0, 1] and len(kept) < 5


def test_screen_keeping_every_column_changes_nothing():
    rng = np.random.default_rng(14)
    z = rng.normal(size=(400, 2))
    x = np.sin(2 * z[:, 0]) + z[:, 1] + 0.3 * rng.normal(size=400)
    y = np.cos(2 * z[:, 0]) + z[:, 1] ** 2 + 0.3 * rng.normal(size=400)
    test = _test().fit(x, y, Z=z)
    assert test.z_columns_.tolist() == [0, 1]
    assert test.p_value_ == _test(z_screen=False).fit(x, y, Z=z).p_value_


def test_maps_may_be_given():
    rng = np.random.default_rng(5)
    x, y, z = _chain(300, rng)
    test = ConditionalHSICTest(
        RandomFourierSampler(n_components=4, random_state=0),
        RandomFourierSampler(n_components=6, random_state=0),
        RandomFourierSampler(n_components=30, random_state=0),
        n_resamples=99,
        random_state=0,
    ).fit(x, y, Z=z)
    assert test.z_transformer_.n_components == 30
    assert test.penalty_.shape == (10,)  # 4 x-features and 6 y-features


@pytest.mark.parametrize(
    "where, bad, match",
    [
        ("x", np.nan, "Input X contains NaN"),
        ("y", np.inf, "Input y contains infinity"),
        ("z", np.nan, "Input Z contains NaN"),
    ],
)
def test_non_finite_values_name_the_variable(where, bad, match):
    rng = np.random.default_rng(6)
    data = dict(zip("xyz", _chain(100, rng)))
    data[where][7, 0] = bad
    with pytest.raises(ValueError, match=match):
        _test().fit(data["x"], data["y"], Z=data["z"])


def test_bad_shapes_and_constant_columns():
    rng = np.random.default_rng(7)
    x, y, z = _chain(100, rng)
    with pytest.raises(ValueError, match="100 rows in X and 99 in Z"):
        _test().fit(x, y, Z=z[:99])
    with pytest.raises(ValueError, match="100 rows in X and 98 in y"):
        _test().fit(x, y[:98], Z=z)
    with pytest.raises(ValueError, match="a column of Z is constant"):
        _test().fit(x, y, Z=np.column_stack([z, np.ones(100)]))
    with pytest.raises(ValueError, match="Z has 30 columns and only 20 rows"):
        _test().fit(x[:20], y[:20], Z=rng.normal(size=(20, 30)))
    with pytest.raises(ValueError, match="requires y"):
        _test().fit(x, None)


def test_causal_learn_absent_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "causallearn.utils.cit", None)
    monkeypatch.delitem(sys.modules, "skmmd.causal", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'skmmd\[causal\]'"):
        import skmmd.causal  # noqa: F401


def _causal_data(n, rng):
    """x0 -> x1 -> x2 and x0 -> x3, non-linear (x1 and x3 given x0 are
    independent; so are x0 and x2 given x1)."""
    x0 = rng.normal(size=n)
    x1 = np.sin(2 * x0) + 0.3 * rng.normal(size=n)
    x2 = x1**2 + 0.3 * rng.normal(size=n)
    x3 = np.tanh(2 * x0) + 0.3 * rng.normal(size=n)
    return np.column_stack([x0, x1, x2, x3])


def test_pc_with_the_registered_test_is_reproducible(monkeypatch):
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from causallearn.search.ConstraintBased.PC import pc
    from causallearn.utils.cit import CIT

    import skmmd.causal  # noqa: F401 (registers the test)

    data = _causal_data(600, np.random.default_rng(8))
    calls = []
    original = _conditional_search._default_map
    monkeypatch.setattr(
        _conditional_search,
        "_default_map",
        lambda *args: calls.append(1) or original(*args),
    )
    options = {"n_resamples": 199, "n_z_features": 60}  # a small, fast test
    graphs = [
        pc(data, 0.05, "skmmd", show_progress=False, **options).G.graph
        for _ in range(2)
    ]
    np.testing.assert_array_equal(graphs[0], graphs[1])
    assert len(calls) == 2 * 4  # each column's features once per search
    skeleton = {tuple(sorted(e)) for e in zip(*np.nonzero(graphs[0]))}
    assert skeleton == {(0, 1), (1, 2), (0, 3)}
    test = CIT(data, "skmmd", **options)
    assert test(1, 3, [0]) == test(3, 1, (0,)) == test.pvalue_cache["1;3|0"]


def test_the_registered_test_leaves_out_columns_independent_of_everything():
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from causallearn.utils.cit import CIT

    import skmmd.causal  # noqa: F401

    rng = np.random.default_rng(15)
    data = np.column_stack([_causal_data(600, rng), rng.normal(size=600)])
    options = {"n_resamples": 99, "n_z_features": 60}
    test = CIT(data, "skmmd", **options)
    # x4 is independent of everything: the test is the one given x0 alone.
    assert test(1, 3, [0, 4]) == test(1, 3, [0])
    assert list(test.search._z_maps) == [(0,)]
    unscreened = CIT(data, "skmmd", z_screen=False, **options)
    unscreened(1, 3, [0, 4])
    assert list(unscreened.search._z_maps) == [(0, 4)]


def test_tests_given_one_set_share_its_design_whatever_the_order(monkeypatch):
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from causallearn.utils.cit import CIT

    import skmmd.causal  # noqa: F401 (registers the test)

    data = _causal_data(500, np.random.default_rng(11))
    options = {"n_resamples": 99, "n_z_features": 60}
    first = CIT(data, "skmmd", **options)
    p = [first(1, 3, [0]), first(2, 3, [0]), first(1, 2, [0, 3])]
    (features, design), _ = first.search._shared[(0,)]
    assert design.sealed and features[0].shape[0] == 500
    assert len(design._bases) == 10  # 5 folds x (x-fits, y-fits), computed once
    again = CIT(data, "skmmd", **options)  # the other order, nothing shared yet
    assert [again(1, 2, [0, 3]), again(2, 3, [0]), again(1, 3, [0])] == p[::-1]
    # An evicted set is recomputed, to the same p-values.
    monkeypatch.setattr(_conditional_search, "_SHARED_BYTES", 1)
    small = CIT(data, "skmmd", **options)
    later = [small(2, 3, [0]), small(1, 2, [0, 3]), small(1, 3, [0])]
    assert later == [p[1], p[2], p[0]]
    assert list(small.search._shared) == [(0,)]


def test_fci_runs_the_registered_test():
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from causallearn.search.ConstraintBased.FCI import fci

    import skmmd.causal  # noqa: F401

    data = _causal_data(400, np.random.default_rng(9))
    graph, _ = fci(
        data, "skmmd", 0.05, show_progress=False, n_resamples=99, n_z_features=60
    )
    assert graph.get_graph_edges()


def test_causal_bad_data_names_the_column():
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from causallearn.utils.cit import CIT

    import skmmd.causal  # noqa: F401

    data = _causal_data(200, np.random.default_rng(10))
    data[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"column\(s\) \[2\]"):
        CIT(data, "skmmd")
    data[3, 2] = 0.0
    data[:, 1] = 1.0
    with pytest.raises(ValueError, match="column 1 of data is constant"):
        CIT(data, "skmmd")(0, 1)


def test_cli_given_runs_the_conditional_test(tmp_path, capsys):
    import json

    import pandas as pd

    from skmmd.__main__ import main

    rng = np.random.default_rng(11)
    x, y, z = _chain(500, rng)
    path = tmp_path / "table.csv"
    pd.DataFrame({"x": x[:, 0], "y": y[:, 0], "z": z[:, 0]}).to_csv(path, index=False)
    args = ["independence", str(path), "--target", "y", "--n-resamples", "199"]
    assert main([*args, "--given", "z", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = skmmd.conditional_independence_test(
        x, y, z, n_resamples=199, random_state=0
    )
    assert out["p_value"] == expected.pvalue and out["given"] == ["z"]
    assert {"conditional_hsic", "n_samples", "statistic_type"} <= set(out)
    assert out["statistic_type"] == "conditional" and "hsic" not in out
    assert main(args) == 1  # not given z: dependent
    assert main([*args, "--given", "y"]) == 2
    assert "--given includes the target" in capsys.readouterr().err
    # Conflicting options are rejected before the file is read.
    missing = str(tmp_path / "missing.csv")
    for flag in ("--explain", "--exact", "--statistic=unbiased"):
        with pytest.raises(SystemExit) as exit:
            main(["independence", missing, "--target", "y", "--given", "z", flag])
        assert exit.value.code == 2
        assert "leave out --exact, --explain and --statistic" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["independence", missing, "--target", "y", "--aggregate", "--given", "z"])
    assert "leave out --given, --exact and --explain" in capsys.readouterr().err

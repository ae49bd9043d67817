"""The causal-learn adapter (skmmd/causal.py): the test registered as
"skmmd" for PC and FCI, pc and fci on tables (names, text, missing values),
reproducible graphs, the work shared by the tests given one conditioning
set, screening, ``n_resamples="auto"``, bad data, and the extra named when
causal-learn is missing."""

import sys

import numpy as np
import pytest

from skmmd.conditional import _search as _conditional_search


def test_causal_search_uses_auto():
    pytest.importorskip("causallearn")
    from skmmd.causal import SkmmdCIT

    rng = np.random.default_rng(10)
    z = rng.normal(size=500)
    data = np.column_stack([z + 0.5 * rng.normal(size=500), z, rng.normal(size=500)])
    auto = SkmmdCIT(data, n_resamples="auto")
    fixed = SkmmdCIT(data)
    for args in ((0, 2), (0, 1), (0, 2, [1])):
        assert (auto(*args) <= 0.05) == (fixed(*args) <= 0.05)
    # Through causal-learn's keyword arguments (pc keeps "alpha" for itself).
    from causallearn.search.ConstraintBased.PC import pc

    graph = pc(data, 0.05, "skmmd", n_resamples="auto", level=0.05, show_progress=False)
    assert graph.G.graph[0, 2] == 0 and graph.G.graph[0, 1] != 0
    with pytest.raises(ValueError, match="n_resamples. parameter of SkmmdCIT must be"):
        SkmmdCIT(data, n_resamples="fast")
    with pytest.raises(ValueError, match="level. parameter of SkmmdCIT must be"):
        SkmmdCIT(data, n_resamples="auto", level=1.5)


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
    original = _conditional_search.xy_map
    monkeypatch.setattr(
        _conditional_search,
        "xy_map",
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
    data[3, 2] = np.inf
    with pytest.raises(ValueError, match=r"infinite values in \['X3'\]"):
        CIT(data, "skmmd")
    data[3, 2] = 0.0
    data[:, 1] = 1.0
    with pytest.raises(ValueError, match=r"'X2' \(column 1 of data\) is constant"):
        CIT(data, "skmmd")(0, 1)
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame(data, columns=["a", "b", "c", "d"])
    with pytest.raises(ValueError, match="variable 'b'"):
        skmmd.causal.pc(table, show_progress=False)
    with pytest.raises(ValueError, match="node_names has 2 names for 4 columns"):
        skmmd.causal.pc(table, node_names=["a", "b"])


def test_missing_values_are_handled_test_wise(monkeypatch):
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from skmmd.causal import SkmmdCIT

    data = _causal_data(300, np.random.default_rng(11))
    holed = data.copy()
    holed[::10, 2] = np.nan  # 30 rows
    rows = []
    calibrated = _conditional_search.calibrated

    def counted(features, n_rows, seed, **options):
        rows.append(n_rows)
        return calibrated(features, n_rows, seed, **options)

    monkeypatch.setattr(_conditional_search, "calibrated", counted)
    test, whole = SkmmdCIT(holed, n_resamples=99), SkmmdCIT(data, n_resamples=99)
    # The tests of the variables without missing values run on every row, as
    # if there were none; those of column 2 on its 270 complete rows.
    assert test(0, 3, [1]) == whole(0, 3, [1])
    assert test(1, 2) <= 0.05 and test(0, 2, [1]) > 0.05
    assert test(0, 3, [2]) <= 0.05
    assert rows == [300, 300, 270, 270, 270]
    # Where too few rows are complete for a test, it says which variables.
    holed[10:, 2] = np.nan
    with pytest.raises(ValueError, match=r"only 9 rows have all of \['X1', 'X3'\]"):
        SkmmdCIT(holed, n_resamples=99)(0, 2)


def test_pc_on_a_table_with_text_and_missing_values():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from skmmd.causal import fci, pc

    rng = np.random.default_rng(12)
    data = _causal_data(400, rng)
    table = pd.DataFrame(data, columns=["root", "middle", "leaf", "side"])
    # The middle of the chain as text: three levels of a category.
    table["middle"] = np.array(["low", "mid", "high"])[
        np.digitize(data[:, 1], [-0.4, 0.4])
    ]
    table.loc[rng.choice(400, 4, replace=False), "leaf"] = np.nan  # 1 %
    graph = pc(table, 0.05, n_resamples="auto", show_progress=False)
    assert graph.G.get_node_names() == ["root", "middle", "leaf", "side"]
    edges = {tuple(sorted(str(e).split(" ")[::2])) for e in graph.G.get_graph_edges()}
    assert edges == {("middle", "root"), ("leaf", "middle"), ("root", "side")}
    pag, _ = fci(table, 0.05, n_resamples="auto", show_progress=False)
    assert pag.get_node_names() == ["root", "middle", "leaf", "side"]
    # The test's options and causal-learn's; any other refused by name.
    with pytest.raises(TypeError, match="n_resample"):
        pc(table, n_resample=99, show_progress=False)


def test_options_are_checked_as_the_estimators_are():
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from causallearn.search.ConstraintBased.PC import pc
    from causallearn.utils.cit import CIT

    import skmmd.causal  # noqa: F401

    data = _causal_data(200, np.random.default_rng(12))
    # A misspelt option, or one the test does not have, is refused by name,
    # also when it comes through pc's own keyword arguments.
    with pytest.raises(TypeError, match="n_resample"):
        CIT(data, "skmmd", n_resample=99)
    with pytest.raises(TypeError, match="n_jobs"):
        pc(data, 0.05, "skmmd", show_progress=False, n_jobs=2)
    # The estimator's constraints, under the adapter's name.
    for bad, name in [
        ({"n_folds": 1}, "n_folds"),
        ({"n_z_features": 0}, "n_z_features"),
        ({"n_resamples": "fast"}, "n_resamples"),
        ({"level": 1.5}, "level"),
    ]:
        with pytest.raises(ValueError, match=f"'{name}' parameter of SkmmdCIT"):
            CIT(data, "skmmd", **bad)
    # random_state=None draws one seed for the whole search.
    test = CIT(data, "skmmd", random_state=None, n_resamples=19)
    assert isinstance(test.search.params["random_state"], int)
    assert test(0, 1) == test(1, 0)

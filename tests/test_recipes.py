"""The recipes of the user guide (doc/user_guide/conditional.rst, "Beyond
causal-learn"): pgmpy's PC and DoWhy's graph falsification with skmmd's
conditional test. Neither package is a dependency of skmmd or of its tests:
each test skips, saying so, where its package is not installed."""

import numpy as np
import pytest


def _chain_table(n, rng):
    """a -> b -> c, non-linear, and d independent of all."""
    import pandas as pd

    a = rng.normal(size=n)
    b = np.sin(2 * a) + 0.3 * rng.normal(size=n)
    c = b**2 + 0.3 * rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": rng.normal(size=n)})


def test_pgmpy_pc_with_skmmd_test():
    pytest.importorskip("pgmpy", reason="pgmpy is not installed (recipe only)")
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from pgmpy.causal_discovery import PC

    from skmmd.causal import SkmmdCIT

    df = _chain_table(600, np.random.default_rng(0))
    # The recipe: one SkmmdCIT for the table (its tests share their work),
    # called by name; pgmpy wants True where the variables are independent.
    test = SkmmdCIT(df.to_numpy(), n_resamples="auto", level=0.05)
    position = {name: j for j, name in enumerate(df.columns)}

    def skmmd_test(X, Y, Z, significance_level=0.05, **kwargs):
        p = test(position[X], position[Y], [position[z] for z in Z])
        return p >= significance_level

    pc = PC(ci_test=skmmd_test, variant="stable", significance_level=0.05)
    pc.fit(df)
    edges = {tuple(sorted(edge)) for edge in pc.skeleton_.edges()}
    assert edges == {("a", "b"), ("b", "c")}


def test_dowhy_falsify_graph_with_skmmd_test():
    pytest.importorskip("dowhy", reason="DoWhy is not installed (recipe only)")
    import networkx as nx
    from dowhy.gcm.falsify import FalsifyConst, falsify_graph

    import skmmd

    df = _chain_table(400, np.random.default_rng(1))

    # The recipe: DoWhy hands the tests arrays of the variables' values.
    def independence(X, Y):
        return skmmd.hsic_test(X, Y, random_state=0).pvalue

    def conditional(X, Y, Z):
        return skmmd.conditional_independence_test(X, Y, Z, random_state=0).pvalue

    right = nx.DiGraph([("a", "b"), ("b", "c")])
    right.add_node("d")
    wrong = nx.DiGraph([("a", "b"), ("a", "c")])  # says c independent of b given a
    wrong.add_node("d")
    results = [
        falsify_graph(
            graph,
            df,
            independence_test=independence,
            conditional_independence_test=conditional,
            n_permutations=20,
            show_progress_bar=False,
        )
        for graph in (right, wrong)
    ]
    # The local Markov conditions each graph implies, tested: the wrong one
    # violates those of c (given a, c still depends on b) beyond what the
    # right one violates (a chance rejection of a true one is shared by both).
    violated = [
        {
            pair
            for pair, (_, rejected) in result.summary[FalsifyConst.VALIDATE_LMC][
                FalsifyConst.LOCAL_VIOLATION_INSIGHT
            ].items()
            if rejected
        }
        for result in results
    ]
    assert violated[1] - violated[0] == {("b", "c"), ("c", "b")}
    assert not violated[0] & {("b", "c"), ("c", "b"), ("a", "b"), ("b", "a")}

"""Causal discovery with skmmd's conditional test: graphs that belong to the
data, not to a seed; the time of n_resamples="auto" in a search; PC on
random non-linear DAGs of mixed types against causal-learn's tests.

(a) the mixed 8-variable table of the causal-discovery issue
    (``../shared/data/causal_table.py``: the first 1000 complete rows of
    ``make(2000, 0, 0.01)``), causal-learn's PC with ``random_state`` 0 to 9:
    how often the true skeleton is found, and the CPU time of each run with
    999 resamples and with ``n_resamples="auto"`` (the same graph?); then the
    raw table (1 % missing values in one column, the binary column as text)
    through :func:`skmmd.causal.pc`;
(b) decisions across seeds: draws of the alternatives and nulls of
    ``bench_conditional.py`` at n = 1000, each tested under ``random_state``
    0 to 9; among the draws whose median p-value is below 0.01 or above 0.2
    (clear decisions), the share whose 10 decisions at 0.05 agree, and the
    spread of the p-values;
(m) peak memory of PC on the table's 1980 complete rows (of
    ``make(2000, 0, 0.01)``) with ``n_resamples="auto"``: the process's
    peak resident size before and after the search (run alone: ``--parts m``);
(c) PC on random non-linear DAGs (expected degree 2) of 8 and 20 variables,
    one binary and one three-level text variable among them, at several n:
    skeleton F1 with skmmd under several ``random_state`` (mean, min, max),
    CPU seconds per test, against causal-learn's ``rcit``, ``fisherz`` and
    (8 variables, n <= 1000) ``kci`` on the variables' codes.

causal-learn is a benchmark and extra dependency (``pip install
'skmmd[causal]'``); pandas for (a) and (c).

    python benchmarks/bench_causal.py --parts a
    python benchmarks/bench_causal.py --parts m
    python benchmarks/bench_causal.py --parts b --draws 20
    python benchmarks/bench_causal.py --parts c --nodes 8 --sizes 500 1000 2000 5000
    python benchmarks/bench_causal.py --parts c --nodes 20 --sizes 1000 2000 --seeds 3
"""

import argparse
import importlib.util
import resource
import warnings
from pathlib import Path
from time import process_time

import numpy as np
from bench_conditional import (
    _skeleton_scores,
    chain,
    fork,
    pnl,
    random_dag,
    strobl,
)

from skmmd import ConditionalHSICTest

ALPHA = 0.05
_TABLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "causal_table.py"


def _causal_table():
    """The generator of the issue's 8-variable table."""
    if not _TABLE.exists():
        raise SystemExit(f"(a) needs {_TABLE} (the shared data generators).")
    spec = importlib.util.spec_from_file_location("causal_table", _TABLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table_seeds(seeds):
    from causallearn.search.ConstraintBased.PC import pc

    import skmmd.causal

    ct = _causal_table()
    df = ct.make(2000, 0, 0.01).dropna().iloc[:1000]
    data = df.to_numpy(dtype=float)
    print("\n(a) PC on the 8-variable table, n = 1000, alpha = 0.05")
    print(
        f"{'seed':>4} {'999: true?':>10} {'CPU s':>6} {'auto: same?':>11} {'CPU s':>6}"
    )
    found, seconds = 0, {"999": 0.0, "auto": 0.0}
    for seed in range(seeds):
        graphs = {}
        for label, options in (
            ("999", {}),
            ("auto", {"n_resamples": "auto", "level": ALPHA}),
        ):
            start = process_time()
            graph = pc(
                data, ALPHA, "skmmd", random_state=seed, show_progress=False, **options
            )
            seconds[label] += process_time() - start
            graphs[label] = (ct.skeleton(graph.G), process_time() - start)
        true = graphs["999"][0] == ct.TRUE_EDGES
        found += true
        same = graphs["auto"][0] == graphs["999"][0]
        print(
            f"{seed:>4} {str(true):>10} {graphs['999'][1]:6.1f} {str(same):>11} "
            f"{graphs['auto'][1]:6.1f}",
            flush=True,
        )
    print(
        f"true skeleton in {found} of {seeds}; CPU auto / 999: "
        f"{seconds['auto'] / seconds['999']:.2f}"
    )
    raw = ct.make(1010, 0, 0.01)  # 10 rows missing chol: 1000 complete rows
    raw["smoker"] = np.where(raw["smoker"] == 1, "yes", "no")
    start = process_time()
    graph = skmmd.causal.pc(raw, ALPHA, n_resamples="auto", show_progress=False)
    print(
        f"skmmd.causal.pc on the raw table (text column, 1 % missing): nodes "
        f"{graph.G.get_node_names()}, true skeleton "
        f"{ct.skeleton(graph.G) == ct.TRUE_EDGES}, {process_time() - start:.1f} CPU s"
    )


def table_memory():
    from causallearn.search.ConstraintBased.PC import pc

    import skmmd.causal  # noqa: F401 - registers "skmmd"

    ct = _causal_table()
    data = ct.make(2000, 0, 0.01).dropna().to_numpy(dtype=float)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = process_time()
    graph = pc(
        data, ALPHA, "skmmd", n_resamples="auto", level=ALPHA, show_progress=False
    )
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\n(m) PC on the table, n = {len(data)}: peak resident memory {after:.0f} MB "
        f"({before:.0f} MB before the search), {process_time() - start:.0f} CPU s, "
        f"{len(graph.test.search._shared)} conditioning sets' work kept at the end"
    )


_CASES = {
    "pnl, dz=1": (pnl, 1, 0.5),
    "strobl, dz=3": (strobl, 3, 0.5),
    "fork, dz=2": (fork, 2, 0.5),
    "pnl null, dz=1": (pnl, 1, 0.0),
    "fork null, dz=2": (fork, 2, 0.0),
    "chain null, dz=1": (chain, 1, 0.0),
}


def agreement(draws, seeds, n):
    print(
        f"\n(b) decisions at {ALPHA} across random_state 0-{seeds - 1}, n = {n}, "
        f"{draws} draws per case"
    )
    clear = agree = 0
    for name, (make, dz, effect) in _CASES.items():
        rows = []
        for draw in range(draws):
            rng = np.random.default_rng([draw, n, dz, 11])
            x, y, z = make(rng, n, dz, effect)
            rows.append(
                [
                    ConditionalHSICTest(random_state=seed).fit(x, y, Z=z).p_value_
                    for seed in range(seeds)
                ]
            )
        P = np.array(rows)
        median = np.median(P, axis=1)
        sure = (median < 0.01) | (median > 0.2)
        same = np.all((P <= ALPHA) == (P[:, :1] <= ALPHA), axis=1)
        clear, agree = clear + sure.sum(), agree + (same & sure).sum()
        spread = np.median(P.max(axis=1) - P.min(axis=1))
        print(
            f"{name:<18} clear {sure.sum():>3} of {draws}, agreeing "
            f"{np.sum(same & sure):>3}; all draws agreeing {same.sum():>3}; "
            f"median p-value range {spread:.3f}",
            flush=True,
        )
    print(f"clear decisions agreeing across seeds: {agree} of {clear}")


def _coarsened(j, value):
    """Node 1 binary, node 2 a three-level category (its codes)."""
    if j == 1:
        return (value > 0).astype(float)
    if j == 2:
        return np.digitize(value, np.quantile(value, [1 / 3, 2 / 3])).astype(float)
    return value


def mixed_dag(rng, n_nodes, n):
    """:func:`bench_conditional.random_dag` with node 1 binary and node 2 a
    three-level text category (coarsened before their children read them),
    as a table; also the codes."""
    import pandas as pd

    adjacency, values = random_dag(rng, n_nodes, n, coarsen=_coarsened)
    table = pd.DataFrame(values, columns=[f"v{j}" for j in range(n_nodes)])
    table["v2"] = np.array(["low", "mid", "high"])[values[:, 2].astype(int)]
    return adjacency, table, values


def _f1(true, graph):
    return _skeleton_scores(true, graph)[0]


def _tests(graph):
    return sum(";" in str(key) for key in graph.test.pvalue_cache)


def dags(nodes_list, sizes, seeds, kci_max):
    from causallearn.search.ConstraintBased.PC import pc

    import skmmd.causal

    print(f"\n(c) PC on random non-linear DAGs of mixed types, alpha = {ALPHA}")
    print(
        f"{'p':>3} {'n':>6} {'test':<8} {'F1 mean (min-max) over seeds':<30} "
        f"{'CPU s/test':>10} {'tests':>6}"
    )
    for n_nodes in nodes_list:
        for n in sizes:
            true, table, codes = mixed_dag(
                np.random.default_rng([n_nodes, n, 5]), n_nodes, n
            )
            f1, seconds, tests = [], 0.0, 0
            for seed in range(seeds):
                start = process_time()
                graph = skmmd.causal.pc(
                    table,
                    ALPHA,
                    random_state=seed,
                    n_resamples="auto",
                    show_progress=False,
                )
                seconds += process_time() - start
                f1.append(_f1(true, graph.G.graph))
                tests += _tests(graph)
            print(
                f"{n_nodes:>3} {n:>6} {'skmmd':<8} {np.mean(f1):.2f} "
                f"({min(f1):.2f}-{max(f1):.2f}){'':<17} {seconds / tests:10.3f} "
                f"{tests / seeds:6.0f}",
                flush=True,
            )
            others = ["rcit", "fisherz"] + (
                ["kci"] if n <= kci_max and n_nodes <= 8 else []
            )
            for method in others:
                np.random.seed(0)  # rcit draws from NumPy's global state
                start = process_time()
                graph = pc(codes, ALPHA, method, show_progress=False)
                seconds = process_time() - start
                print(
                    f"{n_nodes:>3} {n:>6} {method:<8} {_f1(true, graph.G.graph):.2f}"
                    f"{'':<26} {seconds / max(_tests(graph), 1):10.3f} "
                    f"{_tests(graph):6d}",
                    flush=True,
                )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="abc")
    parser.add_argument("--seeds", type=int, default=10, help="random_state 0..")
    parser.add_argument("--draws", type=int, default=20, help="draws per case of (b)")
    parser.add_argument("--n", type=int, default=1000, help="rows of (b)")
    parser.add_argument("--nodes", type=int, nargs="*", default=[8, 20])
    parser.add_argument("--sizes", type=int, nargs="*", default=[500, 1000, 2000, 5000])
    parser.add_argument("--kci-max", type=int, default=1000, help="largest n for kci")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    if "a" in args.parts:
        table_seeds(args.seeds)
    if "m" in args.parts:
        table_memory()
    if "b" in args.parts:
        agreement(args.draws, args.seeds, args.n)
    if "c" in args.parts:
        dags(args.nodes, args.sizes, args.seeds, args.kci_max)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""PCMCI (tigramite) with skmmd's conditional test against tigramite's own
ParCorr, GPDC and CMIknn on the same series: false links, true links found,
F1 and time.

The series come from tigramite's generator
(``tigramite.toymodels.structural_causal_processes.structural_causal_process``)
on systems of ``N = 5`` variables with known lagged graphs. Every variable
has a self-link at lag 1 with a coefficient drawn from [0.9, 0.95] (strong
autodependence) and the cross-links, at lags 1 or 2 drawn per system, with
the variables' roles permuted:

- nonlinear systems: a quadratic link, a sine link, a link of multiplicative
  noise (the target's noise scaled by the source) and a linear link from a
  variable whose own noise is heavy-tailed (Student's t with 3 degrees of
  freedom);
- linear systems (``--linear``): the same graph, every cross-link linear.

Each link function takes the source standardized by its stationary scale
(``1 / sqrt(1 - a^2)`` for self-link ``a``), so a link's strength does not
depend on the autodependence. PCMCI runs with its defaults (``pc_alpha =
0.05``, ``alpha_level = 0.05``) on lagged links only (``tau_min = 1``).
A link found is an edge ``-->`` of PCMCI's graph; the false-link share is
over the null lagged links (every ``(i, j, tau)``, ``1 <= tau <= tau_max``,
not in the graph), the true-positive rate over the true ones.

Parts:

- ``level``: ``--systems`` nonlinear systems at ``--T`` (default 1000),
  ``tau_max = 3``: the false-link share, TPR and F1 of each method;
- ``power``: nonlinear (and with ``--linear`` linear) systems at ``T = 500``:
  F1 of each method;
- ``speed``: one system at ``T = 500``, ``tau_max = 3``: the whole PCMCI's
  wall time with each method, in the same run, and the tests it ran;
- ``large``: one system at ``--T`` (15 000) and ``--tau-max`` (15) with
  skmmd's test alone: time, tests and the false-link share;
- ``screen``: ``--systems`` nonlinear and as many linear systems at ``--T``
  (500), ``tau_max = 3``: skmmd's PCMCI with the screen of Z's columns
  (``z_screen=True``) and without (the adapter's default): whether its
  p-values and measures are the same, and the seconds of each.

``--methods`` chooses among ``skmmd parcorr gpdc cmiknn`` (GPDC and CMIknn
take minutes to hours per run: see the benchmarks page). Needs the bench
extra (tigramite, dcor)::

    python benchmarks/bench_pcmci.py --parts level --systems 50 --methods skmmd parcorr
    python benchmarks/bench_pcmci.py --parts power --systems 10 --T 500 \
        --methods skmmd parcorr gpdc cmiknn
    python benchmarks/bench_pcmci.py --parts power --linear --systems 10 --T 500 \
        --methods skmmd parcorr
    python benchmarks/bench_pcmci.py --parts speed --methods skmmd parcorr gpdc cmiknn
    python benchmarks/bench_pcmci.py --parts large --T 15000 --tau-max 15 \
        --methods skmmd
    python benchmarks/bench_pcmci.py --parts screen --systems 10
"""

import argparse
import json
import warnings
from time import perf_counter

import numpy as np
from tigramite import data_processing as pp
from tigramite.pcmci import PCMCI
from tigramite.toymodels.structural_causal_processes import structural_causal_process

N_VARIABLES = 5


def system(seed, linear=False):
    """``(links, noises, true)`` of system ``seed``: tigramite's links, the
    noise of each variable, and the set of true lagged cross- and self-links
    ``(i, j, tau)``."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.9, 0.95, N_VARIABLES)
    scale = np.sqrt(1 - a**2)  # a source's stationary sd is 1 / scale
    order = rng.permutation(N_VARIABLES)
    src = {name: int(order[k]) for k, name in enumerate("pqrsh")}
    lags = rng.integers(1, 3, size=4)
    signs = rng.choice([-1.0, 1.0], size=4)
    noise_rng = np.random.default_rng(seed + 10**6)

    def standardized(i, f):
        return lambda x, s=scale[i]: f(x * s)

    quadratic = lambda t: np.clip(t, -3, 3) ** 2 - 1.0  # noqa: E731
    sine = lambda t: np.sin(2 * t)  # noqa: E731
    multiplicative = lambda t: t * noise_rng.standard_normal()  # noqa: E731
    linear_f = lambda t: t  # noqa: E731
    cross = [
        (src["p"], src["q"], quadratic, 0.6),
        (src["q"], src["r"], sine, 0.6),
        (src["p"], src["s"], multiplicative, 0.6),
        (src["h"], src["r"], linear_f, 0.4),
    ]
    links = {j: [((j, -1), float(a[j]), linear_f)] for j in range(N_VARIABLES)}
    true = {(j, j, 1) for j in range(N_VARIABLES)}
    for (i, j, f, c), lag, sign in zip(cross, lags, signs):
        f = linear_f if linear else f
        links[j].append(((i, -int(lag)), float(sign * c), standardized(i, f)))
        true.add((i, j, int(lag)))
    noise_seed = np.random.RandomState(seed)

    def gaussian(T):
        return noise_seed.standard_normal(T)

    def heavy(T):
        return noise_seed.standard_t(3, T) / np.sqrt(3.0)

    noises = [heavy if j == src["h"] else gaussian for j in range(N_VARIABLES)]
    return links, noises, true


def series(seed, T, linear=False):
    """The data of system ``seed`` (T, N) and its true links."""
    links, noises, true = system(seed, linear)
    data, nonvalid = structural_causal_process(links, T, noises=noises, seed=seed)
    if nonvalid:
        raise RuntimeError(f"system {seed} diverged")
    return data.astype(np.float64), true


def _corrcoef_without_ddof():
    """tigramite's block length of a shuffle test (CMIknn's) calls
    ``np.corrcoef(..., ddof=0)``, a keyword numpy 2 removed (it never changed
    a correlation): give numpy's corrcoef a wrapper that drops it."""
    corrcoef = np.corrcoef
    if getattr(corrcoef, "drops_ddof", False):
        return

    def without_ddof(*args, ddof=None, **kwargs):
        return corrcoef(*args, **kwargs)

    without_ddof.drops_ddof = True
    np.corrcoef = without_ddof


def make_test(method, seed):
    """A fresh tigramite CondIndTest of ``method``."""
    if method == "skmmd":
        from skmmd.tigramite import SkmmdCondIndTest

        return SkmmdCondIndTest(random_state=seed)
    if method == "parcorr":
        from tigramite.independence_tests.parcorr import ParCorr

        return ParCorr()
    if method == "gpdc":
        from tigramite.independence_tests.gpdc import GPDC

        return GPDC(seed=seed)
    if method == "cmiknn":
        from tigramite.independence_tests.cmiknn import CMIknn

        _corrcoef_without_ddof()
        return CMIknn(seed=seed)
    raise ValueError(f"unknown method {method!r}")


def run(method, data, tau_max, seed, progress=0):
    """PCMCI with ``method``'s test: its graph, seconds and tests run
    (every ``progress`` tests, the count and seconds so far are printed)."""
    pcmci = PCMCI(pp.DataFrame(data), cond_ind_test=make_test(method, seed))
    # Count the tests PCMCI asks of its test (its own copy) by ``run_test``:
    # a shuffle test (CMIknn's) computes its measure once per shuffle.
    test, counted = pcmci.cond_ind_test, {"n": 0}
    run_test = test.run_test

    def counting(*args, **kwargs):
        counted["n"] += 1
        if progress and counted["n"] % progress == 0:
            print(f"  {counted['n']} tests, {perf_counter() - start:.0f} s", flush=True)
        return run_test(*args, **kwargs)

    test.run_test = counting
    start = perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = pcmci.run_pcmci(tau_min=1, tau_max=tau_max, pc_alpha=0.05)
    return results["graph"], perf_counter() - start, counted["n"]


def scores(graph, true, tau_max):
    """False-link share over the null lagged links, TPR and F1."""
    found = {
        (int(i), int(j), int(tau))
        for i, j, tau in zip(*np.nonzero(graph == "-->"))
        if tau >= 1
    }
    n_null = N_VARIABLES * N_VARIABLES * tau_max - len(true)
    fp, tp = len(found - true), len(found & true)
    precision = tp / len(found) if found else 1.0
    recall = tp / len(true)
    f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
    return {"false": fp / n_null, "tpr": recall, "f1": f1, "n_false": fp}


def systems_part(args, T, tau_max, linear):
    rows = {m: [] for m in args.methods}
    for k in range(args.systems):
        seed = args.first_seed + k
        data, true = series(seed, T, linear)
        for method in args.methods:
            graph, seconds, tests = run(method, data, tau_max, seed)
            row = {**scores(graph, true, tau_max), "seconds": seconds, "tests": tests}
            rows[method].append(row)
            print(f"  system {seed} {method:8s} {json.dumps(row)}", flush=True)
    kind = "linear" if linear else "nonlinear"
    print(f"{kind} systems, T = {T}, tau_max = {tau_max}, {args.systems} systems:")
    for method, runs in rows.items():
        mean = {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
        se = float(np.std([r["false"] for r in runs]) / np.sqrt(len(runs)))
        print(
            f"  {method:8s} false links {mean['false']:.4f} (+- {se:.4f}), TPR "
            f"{mean['tpr']:.3f}, F1 {mean['f1']:.3f}, {mean['seconds']:.1f} s and "
            f"{mean['tests']:.0f} tests per PCMCI (mean)"
        )
    return rows


def screen_part(args):
    """skmmd's PCMCI with and without the screen of Z's columns on the same
    series: the same p-values and measures (bit for bit) or not, seconds."""
    from skmmd.tigramite import SkmmdCondIndTest

    T, same, seconds = args.T or 500, 0, {True: 0.0, False: 0.0}
    for linear in (False, True):
        for k in range(args.systems):
            seed = args.first_seed + k
            data, _ = series(seed, T, linear)
            found = {}
            for z_screen in (True, False):
                test = SkmmdCondIndTest(random_state=seed, z_screen=z_screen)
                start = perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    found[z_screen] = PCMCI(
                        pp.DataFrame(data), cond_ind_test=test
                    ).run_pcmci(tau_min=1, tau_max=3, pc_alpha=0.05)
                seconds[z_screen] += perf_counter() - start
            equal = all(
                np.array_equal(found[True][key], found[False][key])
                for key in ("p_matrix", "val_matrix")
            )
            same += equal
            print(f"  system {seed} linear={linear}: the same {equal}", flush=True)
    n = 2 * args.systems
    print(
        f"screen, T = {T}, tau_max = 3: the same p-values and measures in "
        f"{same} of {n} systems; {seconds[True] / n:.1f} s per PCMCI with the "
        f"screen, {seconds[False] / n:.1f} s without"
    )
    return {"same": same, "systems": n, "seconds": seconds}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=["speed"])
    parser.add_argument("--methods", nargs="+", default=["skmmd", "parcorr"])
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--T", type=int, default=None)
    parser.add_argument("--tau-max", type=int, default=None)
    parser.add_argument("--linear", action="store_true")
    parser.add_argument("--out", default=None, help="JSON file of every run")
    parser.add_argument(
        "--progress", type=int, default=0, help="print the count every N tests"
    )
    args = parser.parse_args(argv)
    out = {}
    for part in args.parts:
        if part == "level":
            out[part] = systems_part(args, args.T or 1000, args.tau_max or 3, False)
        elif part == "power":
            out[part] = systems_part(
                args, args.T or 500, args.tau_max or 2, args.linear
            )
        elif part == "speed":
            data, true = series(args.first_seed, args.T or 500)
            tau_max = args.tau_max or 3
            out[part] = {}
            for method in args.methods:
                graph, seconds, tests = run(
                    method, data, tau_max, args.first_seed, args.progress
                )
                out[part][method] = {"seconds": seconds, "tests": tests}
                found = json.dumps(scores(graph, true, tau_max))
                print(
                    f"speed, T = {len(data)}, tau_max = {tau_max}: {method:8s} "
                    f"{seconds:.1f} s, {tests} tests, {found}",
                    flush=True,
                )
            base = out[part].get("skmmd", {}).get("seconds")
            for method, row in out[part].items():
                if base and method != "skmmd":
                    print(f"  {method} / skmmd: {row['seconds'] / base:.1f}x")
        elif part == "large":
            T, tau_max = args.T or 15000, args.tau_max or 15
            data, true = series(args.first_seed, T)
            for method in args.methods:
                graph, seconds, tests = run(
                    method, data, tau_max, args.first_seed, args.progress
                )
                row = {
                    **scores(graph, true, tau_max),
                    "seconds": seconds,
                    "tests": tests,
                }
                out.setdefault(part, {})[method] = row
                print(
                    f"large, T = {T}, tau_max = {tau_max}: {method} {json.dumps(row)}"
                )
        elif part == "screen":
            out[part] = screen_part(args)
        else:
            raise ValueError(f"unknown part {part!r}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()

"""ConditionalHSICTest: level, power, speed, and PC on random non-linear DAGs,
against causal-learn's kci, rcit, fastkci and fisherz on the same draws.

(a) type-I error at alpha = 0.05 on nulls where Z drives X and Y strongly and
    non-linearly: the post-nonlinear model of Zhang et al. 2011 (Case I,
    re-implemented from its description: X = g1(f1(Z1) + E1), Y = g2(f2(Z1) +
    E2), f, g drawn from {linear, cube, tanh, exp(-|t|)}, Z of dimension 1 or
    5 with Z2.. as distractors), Strobl et al. 2019's setting (X and Y
    post-nonlinear in the sum of all coordinates of Z, dimension 3), a
    heteroscedastic fork (noise scale depending on Z), the same with three
    irrelevant Z columns besides, and a non-linear chain X -> Z -> Y; ``--n``
    rows, ``--reps`` repetitions; rcit on the same draws;
(b) power at n = 1000 on the post-nonlinear alternative (the same noise added
    to X and Y), ours against kci, rcit and fisherz on the same draws;
(c) time per test against n: ours (alone, and in a search: causal-learn's
    test of six pairs given one set, the set's shared work included), kci (up
    to n = 2000), rcit, fastkci; one
    test at ``--n-large`` rows with Z of dimension 5 in a fresh process (time,
    peak RSS);
(d) PC (causal-learn) on random non-linear DAGs of 10 and 20 variables:
    skeleton F1, structural Hamming distance of the skeleton, wall time and
    number of tests, with "skmmd", "rcit", "fisherz" and (at n = 1000) "kci";
(e) (not run by default) the nulls of (a) but the chain, each draw tested
    by the test and by the same statistic with the exact conditional means
    of the features in place of the regressions: how many rejections are
    the draws' and how many the regressions' (rejected by both, by one
    only; alpha plus the paired difference estimates the level where the
    exact-means test holds it);
(f) (not run by default) calibration given Z: for ``--draws`` of those
    nulls, Z kept and the noise of X and Y drawn ``--fresh`` times again; the
    statistic with exact conditional means rejects at alpha given Z?

causal-learn is a benchmark and extra dependency (``pip install
'skmmd[causal]'``).

    python benchmarks/bench_conditional.py --parts a --n 1000 --reps 1000
    python benchmarks/bench_conditional.py --parts a --n 100000 --reps 200
    python benchmarks/bench_conditional.py --parts bcd
    python benchmarks/bench_conditional.py --parts e --n 100000 --reps 400
    python benchmarks/bench_conditional.py --parts f --n 100000 --families dz=5 \
        --draws 160 331 --fresh 200
"""

import argparse
import json
import resource
import subprocess
import sys
import warnings
from time import perf_counter

import numpy as np

from skmmd import ConditionalHSICTest
from skmmd.statistics._conditional import residual_products
from skmmd.statistics._mean_norm import MultiplierParts

ALPHA = 0.05
_FUNCTIONS = {
    "linear": lambda t: t,
    "cube": lambda t: t**3,
    "tanh": np.tanh,
    "exp": lambda t: np.exp(-np.abs(t)),
}


def _standard(v):
    return (v - v.mean()) / v.std()


def pnl(rng, n, dz=1, effect=0.0, latent=False):
    """Zhang et al.'s post-nonlinear Case I; ``effect`` adds the same noise to
    X and Y (the alternative). ``latent``: also ``[(h, g, scale, mu, sd)]``
    of X and Y under H0, ``(g(h + scale E) - mu) / sd`` with E standard
    normal (for :func:`exact_means`)."""
    names = list(_FUNCTIONS)
    f1, g1, f2, g2 = (_FUNCTIONS[names[i]] for i in rng.integers(0, 4, size=4))
    z = rng.normal(size=(n, dz))
    shared = effect * rng.normal(size=n)
    hx = _standard(f1(z[:, 0]))
    x = g1(hx + 0.5 * rng.normal(size=n) + shared)
    hy = _standard(f2(z[:, 0]))
    y = g2(hy + 0.5 * rng.normal(size=n) + shared)
    out = _standard(x), _standard(y), z
    parts = [(h, g, 0.5, v.mean(), v.std()) for h, g, v in ((hx, g1, x), (hy, g2, y))]
    return out + (parts,) if latent else out


def strobl(rng, n, dz=3, effect=0.0, latent=False):
    """Strobl et al.'s setting: X and Y post-nonlinear in the sum of Z's
    coordinates, with their noise (and ``effect`` times a shared one);
    ``latent`` as for :func:`pnl`."""
    names = list(_FUNCTIONS)
    f1, f2 = (_FUNCTIONS[names[i]] for i in rng.integers(1, 4, size=2))
    z = rng.normal(size=(n, dz))
    s = z.sum(axis=1) / np.sqrt(dz)
    shared = effect * rng.normal(size=n)
    x = f1(s + 0.5 * rng.normal(size=n) + shared)
    y = f2(s + 0.5 * rng.normal(size=n) + shared)
    out = _standard(x), _standard(y), z
    parts = [(s, f, 0.5, v.mean(), v.std()) for f, v in ((f1, x), (f2, y))]
    return out + (parts,) if latent else out


def fork(rng, n, dz=2, effect=0.0, latent=False):
    """Z -> X and Z -> Y, strongly non-linear, noise scale depending on Z
    (two columns of Z; ``dz > 2``: irrelevant ones besides); ``latent`` as
    for :func:`pnl`."""
    z = rng.normal(size=(n, dz))
    scale = 0.2 + 0.3 * np.abs(z[:, 0])
    hx, hy = np.sin(2 * z[:, 0]) * z[:, 1], np.cos(2 * z[:, 0]) + z[:, 1] ** 2 / 2
    x = hx + scale * rng.normal(size=n)
    y = hy + scale * rng.normal(size=n)
    out = x, y + effect * x, z
    return (
        out + ([(h, _FUNCTIONS["linear"], scale, 0.0, 1.0) for h in (hx, hy)],)
        if latent
        else out
    )


def chain(rng, n, dz=1, effect=0.0):
    """X -> Z -> Y, non-linear links."""
    x = rng.normal(size=n)
    z = np.tanh(2 * x) + 0.3 * rng.normal(size=n)
    y = np.sin(3 * z) + 0.3 * rng.normal(size=n) + effect * x
    return x, y, z[:, None]


NULLS = {
    "pnl, dz=1": (pnl, 1),
    "pnl, dz=5": (pnl, 5),
    "strobl, dz=3": (strobl, 3),
    "fork (heterosc.), dz=2": (fork, 2),
    "fork+3 irrelevant, dz=5": (fork, 5),
    "chain, dz=1": (chain, 1),
}


def ours(x, y, z, seed, n_resamples=999):
    test = ConditionalHSICTest(n_resamples=n_resamples, random_state=seed)
    return test.fit(x, y, Z=z).p_value_


def _causallearn(method, x, y, z, seed, **kwargs):
    from causallearn.utils.cit import CIT

    np.random.seed(seed)  # rcit and fastkci draw from NumPy's global state
    data = np.column_stack([x, y, z])
    return CIT(data, method, **kwargs)(0, 1, list(range(2, data.shape[1])))


def level(n, reps, with_rcit, families, start=0):
    print(
        f"\n(a) type-I error at alpha = {ALPHA}, n = {n}, {reps} repetitions"
        + (f" (draws {start} to {start + reps - 1})" if start else "")
    )
    print(f"{'null':<24} {'skmmd':>7} {'rcit':>7}   (binomial 95 % half-width)")
    half = 1.96 * np.sqrt(ALPHA * (1 - ALPHA) / reps)
    for name, (make, dz) in NULLS.items():
        if families and not any(f in name for f in families):
            continue
        rejected = {"skmmd": 0, "rcit": 0}
        began = perf_counter()
        for rep in range(start, start + reps):
            x, y, z = make(np.random.default_rng([rep, n, dz]), n, dz)
            rejected["skmmd"] += ours(x, y, z, rep) <= ALPHA
            if with_rcit:
                rejected["rcit"] += _causallearn("rcit", x, y, z, rep) <= ALPHA
            done = rep + 1 - start
            if done % 100 == 0 and done < reps:  # progress of long runs
                so_far = {k: f"{v / done:.3f}" for k, v in rejected.items()}
                print(f"  {name}: {done} repetitions, {so_far}", flush=True)
        rcit = f"{rejected['rcit'] / reps:7.3f}" if with_rcit else "      -"
        print(
            f"{name:<24} {rejected['skmmd'] / reps:7.3f} {rcit}   (+/- {half:.3f}; "
            f"{perf_counter() - began:.0f} s)",
            flush=True,
        )


def _latent_means(test, latent, x, y, nodes=80):
    """The exact conditional means of the test's x- and y-features given Z,
    for ``latent`` as the models return it: ``(pairs, residuals)``,
    ``(features, mean)`` pairs (``features(noise)``: of a draw of the noise,
    the draw's standardization kept) and the exact residuals of ``x`` and
    ``y``. Quadrature over each row's noise ``e`` in ``[-10, 10]``: Gauss-
    Legendre with ``nodes`` nodes on each side of the ``e`` where the model's
    argument ``h + scale e`` is 0, the kink of ``exp(-|t|)`` (Gauss-Hermite
    quadrature with 150 nodes erred there by up to 5e-3 in the mean of a
    feature, and by 4e-3 on a cube's features at 3 times the median
    frequency: enough to bias the exact-means statistic at ``n = 10^5``)."""
    t, w = np.polynomial.legendre.leggauss(nodes)
    out = []
    for (h, g, scale, mu, sd), transformer in zip(
        latent, (test.x_transformer_, test.y_transformer_)
    ):

        def features(e, h=h, g=g, scale=scale, mu=mu, sd=sd, map=transformer):
            return map.transform(((g(h + scale * e) - mu) / sd)[:, None])

        kink = np.clip(-h / scale, -10.0, 10.0)
        mean = 0.0
        for a, b in ((-10.0, kink), (kink, 10.0)):
            half = (b - a) / 2
            for tk, wk in zip(t, w):
                e = a + half * (tk + 1)
                density = np.exp(-(e**2) / 2) / np.sqrt(2 * np.pi)
                mean = mean + (half * wk * density)[:, None] * features(e)
        out.append((features, mean))
    maps = (test.x_transformer_, test.y_transformer_)
    return out, [m.transform(v[:, None]) - o[1] for m, v, o in zip(maps, (x, y), out)]


def _latent_nulls(families):
    """The nulls of (a) with known conditional means (``latent=True``)."""
    for name, (make, dz) in NULLS.items():
        if make in (pnl, strobl, fork) and (
            not families or any(f in name for f in families)
        ):
            yield name, make, dz


def _exact_p(residuals, weights, seed, unit=8, n_resamples=999):
    """The p-value of the test's statistic on ``residuals`` (exact ones), its
    multiplier bootstrap on units of ``unit`` rows."""
    U = residual_products(*residuals, weights)
    G = len(U) // unit
    parts = MultiplierParts(
        U[: G * unit].reshape(G, unit, -1).sum(axis=1), np.full(G, unit)
    )
    signs = np.random.default_rng(seed).integers(0, 2, size=(n_resamples, G))
    draws = 2.0 * signs - 1.0  # Rademacher multipliers
    null = parts.statistics(draws)[0]
    return (1 + np.sum(null >= parts.observed()[0])) / (n_resamples + 1)


def exact_means(n, reps, families):
    """(e) The test beside one that knows the exact conditional means, on the
    same draws and seeds as (a): does the regression add rejections?"""
    print(f"\n(e) the test and exact conditional means, n = {n}, {reps} repetitions")
    print(
        f"{'null':<24} {'skmmd':>7} {'exact':>7} {'both':>5} {'only':>9}  "
        "mean p (skmmd, exact)  alpha + skmmd - exact (se)"
    )
    for name, make, dz in _latent_nulls(families):
        p = np.empty((reps, 2))
        for rep in range(reps):
            x, y, z, latent = make(
                np.random.default_rng([rep, n, dz]), n, dz, latent=True
            )
            test = ConditionalHSICTest(random_state=rep).fit(x, y, Z=z)
            exact = _latent_means(test, latent, x, y)[1]
            p[rep] = (
                test.p_value_,
                _exact_p(exact, test.z_weights_.transform(z[:, test.z_columns_]), rep),
            )
        rejected = p <= ALPHA
        rates, means = rejected.mean(axis=0), p.mean(axis=0)
        both = np.sum(rejected.all(axis=1))
        # The exact-means test holds its level (f): the test's level is alpha
        # plus the mean paired difference, a far smaller variance than its
        # rejection rate's where the two agree on most draws.
        only = rejected.sum(axis=0) - both
        se = np.sqrt(only.sum() - (only[0] - only[1]) ** 2 / reps) / reps
        print(
            f"{name:<24} {rates[0]:7.3f} {rates[1]:7.3f} {both:5d} "
            f"{only[0]:>4d} {only[1]:>4d}  {means[0]:.3f}, {means[1]:.3f}"
            f"{'':>12}{ALPHA + (only[0] - only[1]) / reps:.3f} ({se:.3f})",
            flush=True,
        )


def given_z(n, draws, fresh, families):
    """(f) Calibration given Z: each draw's Z (and the test's maps) kept, the
    noise of X and Y drawn ``fresh`` times again; the statistic with exact
    conditional means (as in (e)) and its multiplier bootstrap. Its rejection
    rate given Z should be alpha, also for Z of draws the test rejected."""
    print(f"\n(f) calibration given Z, n = {n}, {fresh} fresh noises per draw")
    print(f"{'null':<24} {'draw':>5} {'test p':>7} {'exact p':>7}  rejected given Z")
    for name, make, dz in _latent_nulls(families):
        for rep in draws:
            x, y, z, latent = make(
                np.random.default_rng([rep, n, dz]), n, dz, latent=True
            )
            test = ConditionalHSICTest(random_state=rep).fit(x, y, Z=z)
            weights = test.z_weights_.transform(z[:, test.z_columns_])
            means, exact = _latent_means(test, latent, x, y)
            p0 = _exact_p(exact, weights, rep)
            rng = np.random.default_rng([rep, n, dz, 6])
            rejected = 0
            for i in range(fresh):
                residuals = [f(rng.normal(size=n)) - mean for f, mean in means]
                rejected += _exact_p(residuals, weights, [rep, i]) <= ALPHA
            print(
                f"{name:<24} {rep:>5} {test.p_value_:7.3f} {p0:7.3f} "
                f"{rejected:>6} / {fresh} ({rejected / fresh:.3f})",
                flush=True,
            )


def power(n, reps, effect, kci_reps, methods=("skmmd", "kci", "rcit", "fisherz")):
    print(
        f"\n(b) power at n = {n}, post-nonlinear alternative (dz = 1, shared noise "
        f"{effect}), {reps} repetitions (kci: the first {kci_reps})"
    )
    methods = {method: [] for method in methods}
    seconds = dict.fromkeys(methods, 0.0)
    for rep in range(reps):
        x, y, z = pnl(np.random.default_rng([rep, n, 7]), n, 1, effect)
        for method in methods:
            if method == "kci" and rep >= kci_reps:
                continue
            start = perf_counter()
            if method == "skmmd":
                p = ours(x, y, z, rep)
            else:
                p = _causallearn(method, x, y, z, rep)
            seconds[method] += perf_counter() - start
            methods[method].append(p <= ALPHA)
    for method, hits in methods.items():
        print(
            f"{method:<8} power {np.mean(hits):.3f} over {len(hits)} "
            f"({seconds[method] / len(hits):.3f} s per test)"
        )


def _timed(method, x, y, z, seed):
    start = perf_counter()
    if method == "skmmd":
        ours(x, y, z, seed)
    else:
        _causallearn(method, x, y, z, seed)
    return perf_counter() - start


# Tests per conditioning set in a search: PC on the 20-variable DAGs of (d)
# asks about 6 pairs given each set (300 tests over 50 sets at n = 1000).
_PAIRS_PER_SET = 6


def _in_search(n, seed):
    """Seconds per test of skmmd's causal-learn test in a search: six pairs
    (children of the fork's Z) given one set Z, the set's shared work (its Z
    map, folds, features and ridge decompositions) included, with
    ``n_resamples="auto"`` as (d) runs it."""
    from causallearn.utils.cit import CIT

    import skmmd.causal  # noqa: F401 - registers "skmmd"

    rng = np.random.default_rng([seed, n])
    x, y, z = fork(rng, n)
    children = [x] + [
        np.sin(j * z[:, 0]) + z[:, 1] ** 2 / 2 + rng.normal(size=n)
        for j in range(1, _PAIRS_PER_SET)
    ]
    data = np.column_stack(children + [y, z])
    test = CIT(data, "skmmd", n_resamples="auto", level=ALPHA)
    for j in range(_PAIRS_PER_SET):  # each column's features: once per data set
        test(j, _PAIRS_PER_SET)
    start = perf_counter()
    given = [_PAIRS_PER_SET + 1, _PAIRS_PER_SET + 2]
    for j in range(_PAIRS_PER_SET):
        test(j, _PAIRS_PER_SET, given)
    return (perf_counter() - start) / _PAIRS_PER_SET


def speed(sizes, kci_max, n_large):
    print("\n(c) seconds per test (fork null, dz = 2), same machine and run;")
    print(
        f"    'search': skmmd in causal-learn, {_PAIRS_PER_SET} pairs given one set, "
        "the set's shared work included"
    )
    _timed("skmmd", *fork(np.random.default_rng(0), 500), 0)  # warm
    print(
        f"{'n':>8} {'skmmd':>8} {'search':>8} {'kci':>8} {'rcit':>8} {'fastkci':>8} "
        f"{'kci/skmmd':>10} {'kci/search':>10}"
    )
    for n in sizes:
        x, y, z = fork(np.random.default_rng(n), n)
        row = {"skmmd": min(_timed("skmmd", x, y, z, s) for s in range(2))}
        row["search"] = min(_in_search(n, s) for s in range(2))
        for method in ("kci", "rcit", "fastkci"):
            if method == "kci" and n > kci_max or method == "fastkci" and n > 20000:
                row[method] = np.nan
                continue
            row[method] = _timed(method, x, y, z, 0)
        print(
            f"{n:>8} {row['skmmd']:8.3f} {row['search']:8.3f} {row['kci']:8.2f} "
            f"{row['rcit']:8.3f} {row['fastkci']:8.2f} "
            f"{row['kci'] / row['skmmd']:10.0f} {row['kci'] / row['search']:10.0f}",
            flush=True,
        )
    if n_large:
        out = subprocess.run(
            [sys.executable, __file__, "--one-large", str(n_large)],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"n = {n_large}, dz = 5 (fork null, 3 distractors): {r['seconds']:.1f} s, "
            f"peak RSS {r['rss_mb']:.0f} MB (data alone {r['data_mb']:.0f} MB), "
            f"{r['z_features']} z features, units of {r['unit']}, p = {r['p']:.3f}"
        )


def _one_large(n):
    rng = np.random.default_rng(0)
    x, y, z = fork(rng, n, 2)
    z = np.column_stack([z, rng.normal(size=(n, 3))])
    data_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = perf_counter()
    test = ConditionalHSICTest(random_state=0).fit(x, y, Z=z)
    seconds = perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    width = test.z_transformer_.transform(z[:1]).shape[1]
    print(
        json.dumps(
            {
                "seconds": seconds,
                "rss_mb": rss,
                "data_mb": data_mb,
                "unit": test.resample_unit_,
                "z_features": width,
                "p": test.p_value_,
            }
        )
    )


def random_dag(rng, n_nodes, n, degree=2.0, coarsen=None):
    """A random DAG (edges i -> j, i < j, with probability degree / (p - 1))
    and n rows: each node a sum of random non-linear functions of its parents
    plus Gaussian noise, standardized, then ``coarsen(j, values)`` where
    given (before its children read it, so the data stay Markov to the
    DAG)."""
    links = [np.sin, np.tanh, lambda t: t**2 / 2, lambda t: t, np.cos]
    adjacency = np.triu(rng.random((n_nodes, n_nodes)) < degree / (n_nodes - 1), 1)
    data = np.empty((n, n_nodes))
    for j in range(n_nodes):
        value = 0.5 * rng.normal(size=n)
        for i in np.flatnonzero(adjacency[:, j]):
            f = links[rng.integers(len(links))]
            value += rng.choice([-1.0, 1.0]) * f(1.5 * data[:, i])
        data[:, j] = (
            _standard(value) if coarsen is None else coarsen(j, _standard(value))
        )
    return adjacency, data


def _skeleton_scores(true, graph):
    found = (graph != 0) | (graph.T != 0)
    truth = true | true.T
    upper = np.triu_indices_from(truth, 1)
    t, f = truth[upper], found[upper]
    tp = np.sum(t & f)
    f1 = 2 * tp / max(t.sum() + f.sum(), 1)
    return f1, int(np.sum(t != f))


def pc_search(nodes_list, sizes, with_kci, methods=("skmmd", "rcit", "fisherz")):
    from causallearn.search.ConstraintBased.PC import pc

    import skmmd.causal  # noqa: F401 - registers "skmmd"

    print("\n(d) PC on random non-linear DAGs (expected degree 2), alpha = 0.05")
    print(
        f"{'p':>3} {'n':>7} {'test':<8} {'F1':>5} {'SHD':>4} {'seconds':>8} "
        f"{'tests':>6}"
    )
    for n_nodes in nodes_list:
        for n in sizes:
            true, data = random_dag(np.random.default_rng([n_nodes, 1]), n_nodes, n)
            for method in list(methods) + (["kci"] if with_kci(n) else []):
                # skmmd stops each test's resamples once its decision at the
                # search's alpha is known (the causal integration's option).
                options = {"n_resamples": "auto", "level": ALPHA}
                np.random.seed(0)
                start = perf_counter()
                cg = pc(
                    data,
                    ALPHA,
                    method,
                    show_progress=False,
                    **(options if method == "skmmd" else {}),
                )
                seconds = perf_counter() - start
                f1, shd = _skeleton_scores(true, cg.G.graph)
                tests = sum(";" in str(k) for k in cg.test.pvalue_cache)
                print(
                    f"{n_nodes:>3} {n:>7} {method:<8} {f1:5.2f} {shd:>4} "
                    f"{seconds:8.1f} {tests:>6}",
                    flush=True,
                )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="abcd")
    parser.add_argument("--n", type=int, default=1000, help="rows of (a)")
    parser.add_argument("--reps", type=int, default=1000, help="repetitions of (a)")
    parser.add_argument("--families", nargs="*", help="nulls of (a) (substrings)")
    parser.add_argument(
        "--start", type=int, default=0, help="first draw of (a): to extend a run"
    )
    parser.add_argument("--no-rcit", action="store_true", help="(a) without rcit")
    parser.add_argument("--power-reps", type=int, default=200)
    parser.add_argument("--kci-reps", type=int, default=200)
    parser.add_argument("--effect", type=float, default=0.5, help="shared noise (b)")
    parser.add_argument(
        "--power-methods",
        nargs="*",
        default=["skmmd", "kci", "rcit", "fisherz"],
        help="tests of (b) (the same draws for each)",
    )
    parser.add_argument(
        "--sizes", type=int, nargs="*", default=[500, 2000, 10_000, 100_000]
    )
    parser.add_argument("--n-large", type=int, default=10**6)
    parser.add_argument("--dag-nodes", type=int, nargs="*", default=[10, 20])
    parser.add_argument(
        "--dag-sizes", type=int, nargs="*", default=[1000, 10_000, 100_000]
    )
    parser.add_argument(
        "--dag-methods",
        nargs="*",
        default=["skmmd", "rcit", "fisherz"],
        help="tests of (d) besides kci (which runs up to n = 1000)",
    )
    parser.add_argument(
        "--draws", type=int, nargs="*", default=[0, 1], help="draws (reps) of (f)"
    )
    parser.add_argument("--fresh", type=int, default=100, help="noises per draw (f)")
    parser.add_argument("--one-large", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    if args.one_large:
        return _one_large(args.one_large)
    if "a" in args.parts:
        level(args.n, args.reps, not args.no_rcit, args.families, args.start)
    if "b" in args.parts:
        power(1000, args.power_reps, args.effect, args.kci_reps, args.power_methods)
    if "c" in args.parts:
        speed(args.sizes, 2000, args.n_large)
    if "d" in args.parts:
        pc_search(args.dag_nodes, args.dag_sizes, lambda n: n <= 1000, args.dag_methods)
    if "e" in args.parts:
        exact_means(args.n, args.reps, args.families)
    if "f" in args.parts:
        given_z(args.n, args.draws, args.fresh, args.families)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Validity and power of MMDTest: type-I error under the null, power on blobs.

(1) Type-I error over ``--reps`` null replications (default 2000) for every
    calibration x statistic x transformer, on Gaussian data in low (d=2) and
    high (d=200) dimension, heavy-tailed (Student t, 3 dof) and discrete data
    with many ties (Poisson(1) counts), with unequal sizes m=40, n=70, B=99,
    alpha=0.05. Targets: permutation in [0.04, 0.06] (the level of the
    permutation test is exactly floor(alpha (B+1)) / (B+1) = 0.05 for
    continuous data), bootstrap in [0.03, 0.07]. With 2000 replications the
    rate's standard deviation is 0.0049.
(2) Power on the Gaussian blobs of FastMMD section 4.1 (5 x 5 grid, epsilon =
    4, bandwidth 1 for every test, B=199, alpha=0.05) against the exact test on
    the same data and the same permutations: vs n per sample (RFF D=1024), and
    vs n_components at n=1000. Target: |power(RFF, D>=1024) - power(exact)|
    <= 0.03 at n=1000. The paired difference is reported with its standard
    error.

(3) Power against the resampling unit (``--parts 3``): N(0, I_5) against a
    mean shift of 0.025 in one coordinate, 2 x 20000 points, the default map
    (RFF, D = 1024, median bandwidth), B = 999, with ``resample_unit`` 1, 2, 4
    and 8 on the same data and seed; the paired difference to unit 1 with its
    standard error. Units are exact at any size; this measures what they cost
    in power (``resample_unit="auto"`` picks 64 here: 625 units).
(4) Power and time against the number of units across n (``--parts 4``):
    bench_ctt.py's setting (N(0, I_10), one coordinate shifted by 0.07,
    0.035, 0.0175 at n = 4096, 16384, 65536 per sample), the default test with
    unit 1 and the units leaving 4096 ... 256 units in all, same data and seed;
    power, paired difference to unit 1, seconds per test.

Replications run in ``--n-jobs`` processes (default 2), one BLAS and one numba
thread each. Everything is seeded: a re-run prints the same numbers.

    python benchmarks/bench_mmd_validity.py           # several minutes
    python benchmarks/bench_mmd_validity.py --quick   # 500 null / 100 power reps
"""

import argparse
import os
from time import perf_counter

import numpy as np
from joblib import Parallel, delayed

from skmmd import MMDTest, RandomFourierSampler
from skmmd.datasets import make_blobs_two_sample

# Feature maps tested besides the exact kernel: name -> factory(n_components,
# bandwidth, seed).
TRANSFORMERS = {
    "rff": lambda n_components, bandwidth, seed: RandomFourierSampler(
        n_components=n_components, bandwidth=bandwidth, random_state=seed
    ),
    "orf": lambda n_components, bandwidth, seed: RandomFourierSampler(
        n_components=n_components,
        bandwidth=bandwidth,
        orthogonal=True,
        random_state=seed,
    ),
}

NULL_DATA = {
    "gauss d=2": lambda rng, m, n: (rng.normal(size=(m, 2)), rng.normal(size=(n, 2))),
    "gauss d=200": lambda rng, m, n: (
        rng.normal(size=(m, 200)),
        rng.normal(size=(n, 200)),
    ),
    "t3 d=5": lambda rng, m, n: (
        rng.standard_t(3, size=(m, 5)),
        rng.standard_t(3, size=(n, 5)),
    ),
    "poisson d=3 (ties)": lambda rng, m, n: (
        rng.poisson(1.0, size=(m, 3)).astype(float),
        rng.poisson(1.0, size=(n, 3)).astype(float),
    ),
}


def _single_thread():
    os.environ["OMP_NUM_THREADS"] = "1"
    import numba
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(1)
    return threadpool_limits(1)


def _make_test(transformer, bandwidth, seed, **params):
    if transformer == "exact":
        return MMDTest(None, bandwidth=bandwidth, random_state=seed, **params)
    sampler = TRANSFORMERS[transformer](params.pop("n_components"), bandwidth, seed)
    return MMDTest(sampler, random_state=seed, **params)


def _null_cell(data, transformer, statistic, calibration, reps, seed, m=40, n=70):
    with _single_thread():
        rng = np.random.default_rng(seed)
        extra = {} if transformer == "exact" else {"n_components": 256}
        p_values = []
        for rep in range(reps):
            X, Y = NULL_DATA[data](rng, m, n)
            test = _make_test(
                transformer,
                "median",
                rep,
                statistic=statistic,
                calibration=calibration,
                n_resamples=99,
                **extra,
            )
            p_values.append(test.fit(X, Y).p_value_)
    return np.array(p_values)


def bench_type_one(reps, n_jobs, only=""):
    print(
        f"\n(1) type-I error, alpha=0.05, m=40, n=70, B=99, {reps} null replications "
        f"(sd {np.sqrt(0.05 * 0.95 / reps):.4f})"
    )
    cells = [
        (data, tr, st, cal)
        for data in NULL_DATA
        for tr in ["exact", *TRANSFORMERS]
        for st in ("unbiased", "biased")
        for cal in ("permutation", "bootstrap")
        if all(
            word in " ".join((data, tr, st, cal)) for word in only.split(",") if word
        )
    ]
    start = perf_counter()
    results = Parallel(n_jobs=n_jobs)(
        delayed(_null_cell)(*cell, reps, seed) for seed, cell in enumerate(cells)
    )
    header = (
        f"{'data':<20} {'kernel':<7} {'statistic':<9} {'calibration':<12} "
        f"{'type-I':>7} {'target':>12} {'ok':>4}"
    )
    print(header)
    print("-" * len(header))
    n_ok = 0
    for (data, tr, st, cal), p in zip(cells, results):
        rate = np.mean(p <= 0.05)
        lo, hi = (0.04, 0.06) if cal == "permutation" else (0.03, 0.07)
        ok = lo <= rate <= hi
        n_ok += ok
        print(
            f"{data:<20} {tr:<7} {st:<9} {cal:<12} {rate:>7.4f} "
            f"{f'[{lo}, {hi}]':>12} {'yes' if ok else 'NO':>4}"
        )
    print(f"{n_ok}/{len(cells)} cells within target ({perf_counter() - start:.0f} s)")


def _power_rep(seed, n, n_components_list, kinds=("rff",)):
    """Decisions of the exact test and each feature map on one blobs data set;
    keys are D for RFF, "orf D" for orthogonal RFF."""
    with _single_thread():
        X, Y = make_blobs_two_sample(n, epsilon=4.0, random_state=seed)
        params = {"n_resamples": 199}
        out = {"exact": _make_test("exact", 1.0, seed, **params).fit(X, Y).reject_}
        for kind in kinds:
            for D in n_components_list:
                test = _make_test(kind, 1.0, seed, n_components=D, **params)
                out[D if kind == "rff" else f"{kind} {D}"] = test.fit(X, Y).reject_
    return out


def _paired_difference(decisions, baseline):
    """Mean of the paired differences of two 0/1 decision arrays, and its
    standard error."""
    diff = np.asarray(decisions, dtype=float) - np.asarray(baseline, dtype=float)
    se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else np.nan
    return diff.mean(), se


def _power_table(label, rows):
    print(f"{label:<10} {'exact':>7} {'RFF':>7} {'RFF-exact':>10} {'se':>6}")
    for key, decisions in rows:
        exact = np.array([d["exact"] for d in decisions], dtype=float)
        for D in [k for k in decisions[0] if k != "exact"]:
            rff = np.array([d[D] for d in decisions], dtype=float)
            diff, se = _paired_difference(rff, exact)
            print(
                f"{key(D):<10} {exact.mean():>7.3f} {rff.mean():>7.3f} "
                f"{diff:>+10.3f} {se:>6.3f}"
            )


def bench_power(reps, n_jobs, sizes, components, kinds=("rff",)):
    print(
        f"\n(2) power on blobs (epsilon=4, bandwidth 1, B=199), {reps} replications; "
        "RFF vs the exact test on the same data and permutations"
    )
    start = perf_counter()
    by_n = []
    for n in sizes:
        comps, kind = (components, kinds) if n == max(sizes) else ([1024], ("rff",))
        decisions = Parallel(n_jobs=n_jobs)(
            delayed(_power_rep)(seed, n, comps, kind) for seed in range(reps)
        )
        by_n.append((n, decisions))
    print("vs n per sample (RFF D=1024):")
    _power_table(
        "n",
        [
            (lambda D, n=n: str(n), [{"exact": d["exact"], 1024: d[1024]} for d in dec])
            for n, dec in by_n
        ],
    )
    print(f"vs n_components at n={max(sizes)}:")
    _power_table("D", [(str, by_n[-1][1])])
    print(
        f"target: |RFF(D>=1024) - exact| <= 0.03 at n=1000 "
        f"({perf_counter() - start:.0f} s)"
    )


# Part (3): points per sample and mean shift.
_UNIT_N, _UNIT_SHIFT = 20000, 0.025


def _unit_rep(seed, units):
    """p-values of the default test with each resampling unit, one data set."""
    with _single_thread():
        rng = np.random.default_rng(1000 + seed)
        X, Y = rng.normal(size=(_UNIT_N, 5)), rng.normal(size=(_UNIT_N, 5))
        Y[:, 0] += _UNIT_SHIFT
        return [
            MMDTest(random_state=seed, resample_unit=unit).fit(X, Y).p_value_
            for unit in units
        ]


def bench_units(reps, n_jobs, units=(1, 2, 4, 8)):
    print(
        f"\n(3) power against the resampling unit: 2 x {_UNIT_N} points, mean "
        f"shift {_UNIT_SHIFT}, RFF D=1024, B=999, {reps} replications"
    )
    start = perf_counter()
    p = np.array(
        Parallel(n_jobs=n_jobs)(delayed(_unit_rep)(seed, units) for seed in range(reps))
    )
    reject = (p <= 0.05).astype(float)
    print(f"{'unit':>5} {'units':>7} {'power':>7} {'-unit 1':>8} {'se':>6}")
    for j, unit in enumerate(units):
        diff, se = _paired_difference(reject[:, j], reject[:, 0])
        print(
            f"{unit:>5} {2 * _UNIT_N // unit:>7} {reject[:, j].mean():>7.3f} "
            f"{diff:>+8.3f} {se:>6.3f}"
        )
    print(f"({perf_counter() - start:.0f} s)")


# Part (4): bench_ctt.py's setting (issue 42): N(0, I_10) against a shift of
# one coordinate, n per sample -> shift (power near 0.5 with unit 1).
_CTT_SETTINGS = {4096: 0.07, 16384: 0.035, 65536: 0.0175}
_TOTAL_UNITS = (4096, 2048, 1024, 512, 256)


def _units_rep(seed, n, units):
    """(p-value, seconds) of the default test with each resampling unit."""
    with _single_thread():
        rng = np.random.default_rng([seed, n])
        X, Y = rng.normal(size=(n, 10)), rng.normal(size=(n, 10))
        Y[:, 0] += _CTT_SETTINGS[n]
        out = []
        for unit in units:
            start = perf_counter()
            p = MMDTest(random_state=seed, resample_unit=unit).fit(X, Y).p_value_
            out.append((p, perf_counter() - start))
        return out


def bench_units_across_n(reps, n_jobs, sizes):
    print(
        "\n(4) power and time against the number of units G (both samples), "
        f"N(0, I_10) vs a shift of one coordinate, default map, B=999, {reps} "
        "replications per n, same data and seed for every unit"
    )
    print(
        f"{'n':>6} {'unit':>5} {'G':>6} {'power':>6} {'-unit 1':>8} {'se':>6} {'s':>6}"
    )
    for n in sizes:
        units = [1] + [2 * n // g for g in _TOTAL_UNITS if 2 * n // g > 1]
        rows = Parallel(n_jobs=n_jobs)(
            delayed(_units_rep)(seed, n, units) for seed in range(reps)
        )
        p, seconds = np.array(rows).transpose(2, 0, 1)  # (reps, units) each
        reject = p <= 0.05
        for j, unit in enumerate(units):
            diff, se = _paired_difference(reject[:, j], reject[:, 0])
            print(
                f"{n:>6} {unit:>5} {2 * n // unit:>6} {reject[:, j].mean():>6.3f} "
                f"{diff:>+8.3f} {se:>6.3f} {seconds[:, j].mean():>6.3f}",
                flush=True,
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=None, help="null replications")
    parser.add_argument("--power-reps", type=int, default=None)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--parts", default="12")
    parser.add_argument(
        "--sizes", default="250,500,1000", help="n per sample for the power part"
    )
    parser.add_argument(
        "--components", default="64,256,1024,4096", help="D at the largest n"
    )
    parser.add_argument(
        "--orthogonal", action="store_true", help="also orthogonal RFF at each D"
    )
    parser.add_argument(
        "--unit-sizes", default="4096,16384,65536", help="n per sample of part 4"
    )
    parser.add_argument(
        "--only",
        default="",
        help="type-I cells whose name holds all these comma-separated words",
    )
    args = parser.parse_args(argv)
    reps = args.reps or (500 if args.quick else 2000)
    power_reps = args.power_reps or (100 if args.quick else 300)
    if "1" in args.parts:
        bench_type_one(reps, args.n_jobs, args.only)
    if "2" in args.parts:
        bench_power(
            power_reps,
            args.n_jobs,
            [int(v) for v in args.sizes.split(",")],
            [int(v) for v in args.components.split(",")],
            ("rff", "orf") if args.orthogonal else ("rff",),
        )
    if "3" in args.parts:
        bench_units(power_reps, args.n_jobs)
    if "4" in args.parts:
        sizes = [int(v) for v in args.unit_sizes.split(",")]
        bench_units_across_n(power_reps, args.n_jobs, sizes)


if __name__ == "__main__":
    main()

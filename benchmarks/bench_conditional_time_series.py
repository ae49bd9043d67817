"""ConditionalHSICTest on series in time order: its level with blocks
(``block_size="auto"``) beside today's exchangeable-rows test on the same
draws, and its power.

The null: every series AR(1) at ``phi`` (stationary, N(0, 1) marginals), x
and y each a non-linear function of z plus their own AR(1) noise, so x and y
are independent given z at every time point while all three are serially
dependent::

    z_t = phi z_{t-1} + e_t,    x_t = sin(2 z_t) + 0.5 u_t,
    y_t = cos(2 z_t) + 0.5 v_t, u, v AR(1) at phi.

The alternative adds ``--effect`` times x to y. Each repetition draws its
series from its own seed and runs each test on the same draw; the rejection
rates at alpha = 0.05 come with their binomial standard errors::

    python benchmarks/bench_conditional_time_series.py --phi 0.9 --reps 1000
    python benchmarks/bench_conditional_time_series.py --phi 0.5 --reps 1000
    python benchmarks/bench_conditional_time_series.py --phi 0.5 --reps 200 \
        --effect 0.3 --blocks auto

``--jobs`` runs repetitions in that many processes (the draws and tests do
not depend on it).
"""

import argparse
import json
import warnings
from concurrent.futures import ProcessPoolExecutor
from time import perf_counter

import numpy as np
from scipy import signal

from skmmd import ConditionalHSICTest

ALPHA = 0.05


def ar1(rng, n, phi, burn=200):
    """A stationary AR(1) series of ``n`` rows with N(0, 1) marginals."""
    noise = rng.normal(size=n + burn) * np.sqrt(1 - phi**2)
    return signal.lfilter([1.0], [1.0, -phi], noise)[burn:, None]


def draw(seed, n, phi, effect=0.0):
    """``(x, y, z)`` of repetition ``seed``."""
    rng = np.random.default_rng(seed)
    z = ar1(rng, n, phi)
    x = np.sin(2 * z) + 0.5 * ar1(rng, n, phi)
    y = np.cos(2 * z) + 0.5 * ar1(rng, n, phi) + effect * x
    return x, y, z


def one(args):
    """The p-values of repetition ``seed`` for each block size, and times."""
    seed, n, phi, effect, blocks = args
    x, y, z = draw(seed, n, phi, effect)
    out = {}
    for block_size in blocks:
        start = perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            test = ConditionalHSICTest(block_size=block_size, random_state=seed)
            test.fit(x, y, Z=z)
        out[str(block_size)] = (
            float(test.p_value_),
            test.block_size_,
            perf_counter() - start,
        )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phi", type=float, default=0.9)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--effect", type=float, default=0.0)
    parser.add_argument("--blocks", nargs="+", default=["auto", "none"])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=None, help="JSON file of every p-value")
    args = parser.parse_args(argv)
    blocks = [
        None if b == "none" else b if b == "auto" else int(b) for b in args.blocks
    ]
    seeds = range(args.first_seed, args.first_seed + args.reps)
    work = [(seed, args.n, args.phi, args.effect, blocks) for seed in seeds]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            runs = list(pool.map(one, work, chunksize=4))
    else:
        runs = [one(w) for w in work]
    print(
        f"n = {args.n}, phi = {args.phi}, effect = {args.effect}, "
        f"{args.reps} repetitions (seeds {seeds.start}-{seeds.stop - 1})"
    )
    summary = {}
    for key in runs[0]:
        p = np.array([r[key][0] for r in runs])
        rate = float(np.mean(p <= ALPHA))
        se = float(np.sqrt(rate * (1 - rate) / len(p)))
        lengths = [r[key][1] for r in runs if r[key][1] is not None]
        seconds = float(np.median([r[key][2] for r in runs]))
        summary[key] = {"rejected": rate, "se": se, "median_seconds": seconds}
        block = f", median block {np.median(lengths):.0f} rows" if lengths else ""
        print(
            f"  block_size={key:>5}: rejects {rate:.3f} +- {se:.3f} at alpha "
            f"{ALPHA}{block}, {seconds:.2f} s per test (median)"
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "summary": summary, "runs": runs}, f)


if __name__ == "__main__":
    main()

"""Power and time of ``mmd_test`` (999 resamples and ``n_resamples="auto"``)
against Compress Then Test (``goodpoints.ctt``, g = 2 and 3), in one run.

The setting of issue 42: X ~ N(0, I_10), Y the same shifted by ``shift`` in
one coordinate, ``n`` points per sample; ``mmd_test`` with its defaults;
``goodpoints.ctt`` with its defaults (B = 39, s = 16) and a Gaussian kernel
``exp(-||x - y||^2 / lam^2)`` at ``lam`` = the median distance of the pooled
sample (of 1000 points), computed in CTT's timed call. Every method sees the
same data in each repetition.

goodpoints is not a dependency of skmmd: run this in a benchmark-only
environment that also sees skmmd's dependencies, e.g.

    python -m venv /work/venv-ctt --system-site-packages
    /work/venv-ctt/bin/pip install goodpoints
    PYTHONPATH=.:/work/venv/lib/python3.11/site-packages \\
        /work/venv-ctt/bin/python benchmarks/bench_ctt.py --reps 30

The figures, with the commands that made them, are on the benchmarks page
(``doc/benchmarks.rst``, the Compress Then Test comparisons).
"""

import argparse
import contextlib
import io
from time import perf_counter

import numpy as np

from skmmd import mmd_test
from skmmd.kernels import median_bandwidth

try:
    from goodpoints.ctt import actt, ctt
except ImportError as error:  # a benchmark-only dependency
    raise SystemExit(
        "bench_ctt.py needs goodpoints in a benchmark-only environment: "
        "pip install goodpoints (never a dependency of skmmd)."
    ) from error

ALPHA = 0.05
D = 10
# n per sample -> the shift of issue 42's table (power near 0.5 at 999).
SETTINGS = {
    1024: 0.14,
    4096: 0.07,
    16384: 0.035,
    65536: 0.0175,
    2**20: 0.004375,
}
# The CTT paper's EMNIST setting on scikit-learn's bundled digits: P draws
# even digits with probability 0.5, Q with 0.45 (images scaled to [0, 1],
# drawn with replacement).
DIGITS_EVEN = (0.5, 0.45)


def _data(seed, n, shift):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(n, D)), rng.normal(size=(n, D))
    Y[:, 0] += shift
    return X, Y


def _digits(seed, n, _shift=None):
    from sklearn.datasets import load_digits

    images, labels = load_digits(return_X_y=True)
    images = images / 16.0
    pools = [images[labels % 2 == 0], images[labels % 2 == 1]]
    rng = np.random.default_rng(seed)
    samples = []
    for even in DIGITS_EVEN:
        odd = rng.random(n) >= even
        out = np.empty((n, images.shape[1]))
        for k, pool in enumerate(pools):
            rows = odd == bool(k)
            out[rows] = pool[rng.integers(len(pool), size=rows.sum())]
        samples.append(out)
    return samples


def _actt(X, Y, lam, seed):
    """``goodpoints.actt`` (g = 2) over the bandwidths ``lam`` x (1/2, 1, 2),
    equal weights; it prints its search, which is silenced."""
    with contextlib.redirect_stdout(io.StringIO()):
        result = actt(
            X,
            Y,
            2,
            lam=lam * np.array([0.5, 1.0, 2.0]),
            weights=np.full(3, 1 / 3),
            null_seed=seed,
            statistic_seed=seed + 1,
        )
    return float(result.rejects)


def _methods(X, Y, seed, with_actt=False):
    """Each method's (reject, seconds) on one data set (CTT's ``rejects``: its
    randomized test's probability of rejecting)."""

    def lam():
        # CTT needs its bandwidth given: its time includes finding it, as
        # mmd_test's includes its own median bandwidth.
        return median_bandwidth(np.vstack([X, Y]), random_state=seed)

    methods = {
        "skmmd 999": lambda: mmd_test(X, Y, random_state=seed).reject,
        "skmmd auto": lambda: (
            mmd_test(X, Y, n_resamples="auto", random_state=seed).reject
        ),
    }
    for g in (2, 3):
        methods[f"ctt g={g}"] = lambda g=g: float(
            ctt(X, Y, g, lam=lam(), null_seed=seed, statistic_seed=seed + 1).rejects
        )
    if with_actt:
        methods["actt g=2"] = lambda: _actt(X, Y, lam(), seed)
    out = {}
    for name, method in methods.items():
        start = perf_counter()
        out[name] = (method(), perf_counter() - start)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument(
        "--n", type=int, nargs="+", default=[4096, 16384, 65536], choices=SETTINGS
    )
    parser.add_argument(
        "--actt", action="store_true", help="also goodpoints.actt (g = 2)"
    )
    parser.add_argument(
        "--digits",
        action="store_true",
        help="the digits setting (even digits 0.5 vs 0.45) instead of the shift",
    )
    args = parser.parse_args(argv)
    data = _digits if args.digits else _data
    for n in args.n:
        # One untimed run of every method first: loading compiled code and
        # building cached tables (numba's, the sequential rule's) is paid
        # once per process, not per test.
        _methods(*data(args.reps, n, SETTINGS[n]), args.reps, args.actt)
        rows = [
            _methods(*data(rep, n, SETTINGS[n]), rep, args.actt)
            for rep in range(args.reps)
        ]
        cells = []
        for name in rows[0]:
            reject, seconds = np.array([row[name] for row in rows], dtype=float).T
            cells.append(f"{name} {reject.mean():.2f} / {seconds.mean():.3f} s")
        setting = "digits 0.5 vs 0.45" if args.digits else f"shift={SETTINGS[n]}"
        print(
            f"n={n} {setting} reps={args.reps}: " + " | ".join(cells),
            flush=True,
        )


if __name__ == "__main__":
    main()

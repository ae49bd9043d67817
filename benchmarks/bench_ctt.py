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

Measured (this 2-core machine, shared with two other jobs, one BLAS thread:
times are indicative, compare them within a row only; one run of 30
repetitions per n; power / mean seconds per test, CTT's power the mean of its
randomized rejection probability):

======  =======  ==============  ==============  =============  =============
n       shift    skmmd 999       skmmd "auto"    CTT g = 2      CTT g = 3
======  =======  ==============  ==============  =============  =============
4096    0.07     0.57 / 1.06 s   0.57 / 0.60 s   0.53 / 0.08 s  0.57 / 0.24 s
16384   0.035    0.40 / 1.21 s   0.40 / 0.66 s   0.37 / 0.26 s  0.23 / 0.83 s
65536   0.0175   0.53 / 1.32 s   0.53 / 0.73 s   0.27 / 1.03 s  0.40 / 3.99 s
======  =======  ==============  ==============  =============  =============

After the automatic unit was bounded to 512 units and the permutation draws
of small batches ran on one thread (this machine, every other job stopped;
one run of ``--n 4096 16384 65536``, 30 repetitions, one untimed run of every
method first; CTT's time includes its median bandwidth, as ``mmd_test``'s
does; power / mean seconds per test):

======  =======  ==============  ==============  =============  =============
n       shift    skmmd 999       skmmd "auto"    CTT g = 2      CTT g = 3
======  =======  ==============  ==============  =============  =============
4096    0.07     0.60 / 0.036 s  0.60 / 0.034 s  0.53 / 0.043 s 0.57 / 0.116 s
16384   0.035    0.37 / 0.054 s  0.37 / 0.066 s  0.37 / 0.190 s 0.23 / 0.589 s
65536   0.0175   0.60 / 0.143 s  0.60 / 0.168 s  0.27 / 0.884 s 0.40 / 3.343 s
======  =======  ==============  ==============  =============  =============

``--n 1024`` (same conditions): skmmd 999 0.43 / 0.041 s, "auto" 0.43 /
0.031 s, CTT g = 2 0.33 / 0.014 s, g = 3 0.33 / 0.025 s: at 1024 points CTT
is faster, at lower power.

``--n 1048576 --reps 5`` (2^20 points per sample; the machine shared with
two of my other jobs, so the times are indicative): skmmd 999 0.80 / 4.26 s,
"auto" 0.80 / 4.06 s, CTT g = 2 0.60 / 48.9 s, g = 3 0.80 / 197.7 s.

From 4096 points skmmd is ahead of both CTT variants on time and power (at 4096,
two more runs of ``--n 4096``: 0.034 / 0.035 s and 0.033 s against CTT g = 2's
0.043 / 0.044 s). With 512 units the calibration is so cheap that
``"auto"``'s looks cost about what they save on this alternative.

The digits setting (``--digits --n 1024 4096 16384``, same machine, other
jobs stopped, 30 repetitions; power / mean seconds per test):

======  ==============  ==============  =============  =============
n       skmmd 999       skmmd "auto"    CTT g = 2      CTT g = 3
======  ==============  ==============  =============  =============
1024    0.27 / 0.10 s   0.27 / 0.09 s   0.23 / 0.03 s  0.17 / 0.09 s
4096    0.77 / 0.11 s   0.77 / 0.14 s   0.57 / 0.12 s  0.77 / 0.42 s
16384   1.00 / 0.23 s   1.00 / 0.25 s   1.00 / 0.58 s  1.00 / 2.05 s
======  ==============  ==============  =============  =============

A second run (before the bound) with ``--actt --n 1024 4096 16384`` (same machine, 30
repetitions; ``actt`` at the median distance times 1/2, 1 and 2; power /
mean seconds):

=====  =====  ===========  ===========  ===========  ===========  ===========
n      shift  skmmd 999    skmmd auto   CTT g = 2    CTT g = 3    aCTT g = 2
=====  =====  ===========  ===========  ===========  ===========  ===========
1024   0.14   0.43 / 0.21  0.43 / 0.12  0.33 / 0.01  0.33 / 0.03  0.23 / 0.04
4096   0.07   0.57 / 0.76  0.57 / 0.41  0.53 / 0.06  0.57 / 0.18  0.47 / 0.11
16384  0.035  0.40 / 1.47  0.40 / 0.68  0.37 / 0.29  0.23 / 0.93  0.20 / 0.46
=====  =====  ===========  ===========  ===========  ===========  ===========

``"auto"`` made the same decisions as 999 resamples (180 of 180) in 0.46-0.57
of the time. Up to 16384 points CTT is still faster at equal or lower power
(the stopped calibration is about 0.3 s at 4096, mostly the matrix products
of the resamples that run long, beside the maps and unit sums); at 65536
points skmmd is ahead of CTT g = 2 and g = 3 on power and time. Not
measured then: n = 10^6, the digits setting of the CTT paper.
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

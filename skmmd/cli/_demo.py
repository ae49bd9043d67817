"""``python -m skmmd`` with no command: random Fourier features + a linear
classifier against the exact RBF-kernel SVM on 20 000 noisy two-moons points,
then MMD two-sample tests on digits."""

import argparse
import sys
from time import perf_counter

import numpy as np

from ..kernel_approximation import RandomFourierSampler
from ..kernels import median_bandwidth
from ..two_sample import MMDTest


def _timed_fit_score(model, X_train, y_train, X_test, y_test):
    start = perf_counter()
    model.fit(X_train, y_train)
    fit_time = perf_counter() - start
    return model.score(X_test, y_test), fit_time


def _enlarged_digits(X, y, copies, random_state):
    """Jittered copies of the digits: more points from the same distribution."""
    rng = np.random.default_rng(random_state)
    X_big = np.vstack([X + rng.normal(scale=0.15, size=X.shape) for _ in range(copies)])
    return X_big, np.tile(y, copies)


def _digits():
    """The digits scaled to [0, 1] (the demo's modules are imported here, not
    by every command: a cold start pays for what it runs)."""
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import MinMaxScaler

    X, y = load_digits(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y


def _moons(n_rows, random_state):
    """Two interleaved half circles with noise: many rows, so that the
    exact kernel machine is the slow one."""
    from sklearn.datasets import make_moons

    return make_moons(n_samples=n_rows, noise=0.3, random_state=random_state)


def warm_kernels(out=sys.stdout):
    """Load the numba kernels a first test runs (compiled once per
    environment, then read from numba's cache) and say how long it took, so
    that the tables time the methods, not the compiler."""
    from ._warmup import first_test_kernels

    start = perf_counter()
    first_test_kernels()
    print(
        f"numba kernels ready in {perf_counter() - start:.1f} s (compiled once "
        "per environment, then read from its cache)\n",
        file=out,
    )


def run_demo(copies=1, n_components=256, random_state=0, out=sys.stdout, rows=20000):
    """Print accuracy and fit time of random Fourier features + a linear
    classifier and of the exact RBF SVM, side by side, on ``rows`` noisy
    two-moons points (and ``copies`` times as many when ``copies > 1``)."""
    from sklearn.linear_model import RidgeClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import SVC

    warm_kernels(out)
    sizes = [rows] + ([rows * copies] if copies > 1 else [])
    print(
        "skmmd demo: RandomFourierSampler + a linear classifier vs exact RBF SVC\n",
        file=out,
    )
    header = (
        f"{'data':<12} {'n_train':>7}  {'model':<28} {'accuracy':>8} {'fit (s)':>8}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for n_rows in sizes:
        Xd, yd = _moons(n_rows, random_state)
        X_train, X_test, y_train, y_test = train_test_split(
            Xd, yd, test_size=0.25, random_state=random_state, stratify=yd
        )
        # One kernel for both models, its bandwidth from the training data.
        bandwidth = median_bandwidth(X_train, random_state=random_state) / 2
        models = {
            f"RFF(D={n_components}) + Ridge": make_pipeline(
                RandomFourierSampler(
                    bandwidth=bandwidth,
                    n_components=n_components,
                    random_state=random_state,
                ),
                RidgeClassifier(alpha=1.0),
            ),
            "exact SVC(rbf)": SVC(kernel="rbf", gamma=0.5 / bandwidth**2, C=1.0),
        }
        for label, model in models.items():
            accuracy, fit_time = _timed_fit_score(
                model, X_train, y_train, X_test, y_test
            )
            print(
                f"{'moons':<12} {len(y_train):>7}  {label:<28} {accuracy:>8.4f} "
                f"{fit_time:>8.2f}",
                file=out,
            )


def run_two_sample_demo(random_state=0, copies=5, out=None):
    """MMD tests on digits: two random halves (H0 true) and even vs odd digits.

    The same problems on ``copies`` jittered copies of the digits show the
    exact test's quadratic cost against the feature test's linear one.
    """
    out = sys.stdout if out is None else out
    X, y = _digits()
    rng = np.random.default_rng(random_state)
    datasets = [("", X, y)]
    if copies > 1:
        datasets.append((f", x{copies}", *_enlarged_digits(X, y, copies, random_state)))
    tests = {
        "RFF(D=1024) MMDTest": MMDTest(
            RandomFourierSampler(n_components=1024, random_state=random_state),
            random_state=random_state,
        ),
        "exact MMDTest": MMDTest(None, random_state=random_state),
    }
    print("\nskmmd demo: MMD two-sample tests on digits (999 permutations)\n", file=out)
    header = (
        f"{'samples':<30} {'N':>5}  {'test':<20} {'MMD^2':>9} {'p-value':>8} "
        f"{'time (s)':>8}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for suffix, Xd, yd in datasets:
        halves = rng.permutation(len(Xd))
        # The digits come grouped by writer; drawn in random order, neither
        # sample looks time-ordered to the tests' order check.
        shuffled, even = Xd[halves], yd[halves] % 2 == 0
        problems = {
            "random halves (same law)": (Xd[halves[::2]], Xd[halves[1::2]]),
            "even vs odd digits": (shuffled[even], shuffled[~even]),
        }
        for name, (A, B) in problems.items():
            for label, test in tests.items():
                start = perf_counter()
                test.fit(A, B)
                print(
                    f"{name + suffix:<30} {len(Xd):>5}  {label:<20} "
                    f"{test.statistic_:>9.5f} {test.p_value_:>8.3f} "
                    f"{perf_counter() - start:>8.2f}",
                    file=out,
                )


def command(argv):
    """Parse the demo's options and run both demos."""
    parser = argparse.ArgumentParser(
        prog="python -m skmmd",
        description="Run the skmmd demo (no arguments), 'python -m skmmd test "
        "A.csv B.csv' for a two-sample test (see 'python -m skmmd test -h'), or "
        "'python -m skmmd independence T.csv --target y' for a test of "
        "independence.",
    )
    parser.add_argument(
        "--copies",
        type=int,
        default=1,
        help="also run the classifiers on this many times the rows (default 1: off)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.copies < 1:
        parser.error(f"--copies must be >= 1; got {args.copies}")
    run_demo(copies=args.copies, random_state=args.seed)
    run_two_sample_demo(random_state=args.seed)
    return 0

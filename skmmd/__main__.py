"""``python -m skmmd``: the demo on data that ships with scikit-learn.

Random Fourier features + a linear SVM against the exact RBF-kernel SVM on the
digits data (``--copies N`` adds an enlarged, jittered copy of it).
"""

import argparse
import sys
from time import perf_counter

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC, LinearSVC

from . import RandomFourierSampler
from .kernels import median_bandwidth


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


def run_demo(copies=1, n_components=1024, random_state=0, out=sys.stdout):
    """Print accuracy and fit time of RFF + LinearSVC and exact SVC side by side."""
    X, y = load_digits(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    datasets = [("digits", X, y)]
    if copies > 1:
        datasets.append(
            (f"digits x{copies}", *_enlarged_digits(X, y, copies, random_state))
        )
    print("skmmd demo: RandomFourierSampler + LinearSVC vs exact RBF SVC\n", file=out)
    header = (
        f"{'data':<12} {'n_train':>7}  {'model':<28} {'accuracy':>8} {'fit (s)':>8}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    for name, Xd, yd in datasets:
        X_train, X_test, y_train, y_test = train_test_split(
            Xd, yd, test_size=0.25, random_state=random_state, stratify=yd
        )
        # One bandwidth for both models, from the training data only.
        bandwidth = median_bandwidth(X_train, random_state=random_state)
        models = {
            f"RFF(D={n_components}) + LinearSVC": make_pipeline(
                RandomFourierSampler(
                    bandwidth=bandwidth,
                    n_components=n_components,
                    random_state=random_state,
                ),
                LinearSVC(C=1.0),
            ),
            "exact SVC(rbf)": SVC(kernel="rbf", gamma=0.5 / bandwidth**2, C=1.0),
        }
        for label, model in models.items():
            accuracy, fit_time = _timed_fit_score(
                model, X_train, y_train, X_test, y_test
            )
            print(
                f"{name:<12} {len(y_train):>7}  {label:<28} {accuracy:>8.4f} "
                f"{fit_time:>8.2f}",
                file=out,
            )


def main(argv=None):
    """Entry point of ``python -m skmmd`` and the ``skmmd`` command."""
    parser = argparse.ArgumentParser(
        prog="python -m skmmd",
        description="Run the skmmd demo (no arguments).",
    )
    parser.add_argument(
        "--copies",
        type=int,
        default=1,
        help="also run on this many jittered copies of digits (default 1: off)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.copies < 1:
        parser.error(f"--copies must be >= 1; got {args.copies}")
    run_demo(copies=args.copies, random_state=args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())

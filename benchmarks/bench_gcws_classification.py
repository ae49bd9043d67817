"""Linearized GMM kernel (GCWS) vs linearized RBF kernel (NRFF) vs linear SVM.

The comparison of Li (2017), Tables 1-3 and Figures 10-16, on the datasets
that ship with scikit-learn: test accuracy of LinearSVC on

* the raw features (standardized),
* GCWS features (``GCWSSampler``, b = 8 bits) of the min-max scaled features,
* NRFF features (``NormalizedRandomFourierSampler``, Gaussian kernel) of the
  standardized features,

for n_components k in {16, ..., 1024}, averaged over seeds. Each seed draws a
stratified train/test split (70/30) and the random features. Hyper-parameters
(C for every method, and the bandwidth factor of NRFF around the median
heuristic) are chosen on a validation quarter of the training set, then the
model is refit on the whole training set, so no method sees the test set.

Run ``python benchmarks/bench_gcws_classification.py`` (about 5-10 minutes
on 2 busy cores) or ``--quick`` (one dataset, fewer k and seeds).
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import LinearSVC

from skmmd import GCWSSampler, NormalizedRandomFourierSampler

DATASETS = {
    "digits": load_digits,
    "breast_cancer": load_breast_cancer,
    "wine": load_wine,
}
C_GRID = (0.1, 1.0, 10.0, 100.0)
BANDWIDTH_FACTORS = (0.5, 1.0, 2.0)


def fit_best(Z_train, y_train, Z_test, y_test, seed, feature_sets=None):
    """Test accuracy of LinearSVC with C (and the feature set) picked on a
    validation split of the training rows."""
    if feature_sets is None:
        feature_sets = [(Z_train, Z_test)]
    idx = np.arange(len(y_train))
    fit, val = train_test_split(
        idx, test_size=0.25, random_state=seed, stratify=y_train
    )
    best = (-1.0, None, None)
    for f, (A, _) in enumerate(feature_sets):
        for C in C_GRID:
            model = LinearSVC(C=C, max_iter=2000, random_state=seed).fit(
                A[fit], y_train[fit]
            )
            score = model.score(A[val], y_train[val])
            if score > best[0]:
                best = (score, f, C)
    _, f, C = best
    A, B = feature_sets[f]
    return (
        LinearSVC(C=C, max_iter=2000, random_state=seed)
        .fit(A, y_train)
        .score(B, y_test)
    )


def run_dataset(name, ks, seeds):
    X, y = DATASETS[name](return_X_y=True)
    linear = np.empty(len(seeds))
    gcws = np.empty((len(ks), len(seeds)))
    nrff = np.empty((len(ks), len(seeds)))
    for s, seed in enumerate(seeds):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, random_state=seed, stratify=y
        )
        std = StandardScaler().fit(X_tr)
        S_tr, S_te = std.transform(X_tr), std.transform(X_te)
        mm = MinMaxScaler().fit(X_tr)
        M_tr, M_te = mm.transform(X_tr), mm.transform(X_te)
        linear[s] = fit_best(S_tr, y_tr, S_te, y_te, seed)
        for i, k in enumerate(ks):
            g = GCWSSampler(n_components=k, random_state=seed).fit(M_tr)
            gcws[i, s] = fit_best(
                g.transform(M_tr), y_tr, g.transform(M_te), y_te, seed
            )
            feature_sets = []
            median = NormalizedRandomFourierSampler(n_components=k, random_state=seed)
            median = median.fit(S_tr).bandwidth_
            for factor in BANDWIDTH_FACTORS:
                n = NormalizedRandomFourierSampler(
                    n_components=k, bandwidth=factor * median, random_state=seed
                ).fit(S_tr)
                feature_sets.append((n.transform(S_tr), n.transform(S_te)))
            nrff[i, s] = fit_best(None, y_tr, None, y_te, seed, feature_sets)
    return linear, gcws, nrff


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="digits, k <= 256, 2 seeds"
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    args = parser.parse_args(argv)
    ks = [16, 32, 64, 128, 256, 512, 1024]
    datasets, n_seeds = args.datasets, args.seeds
    if args.quick:
        ks, datasets, n_seeds = [16, 32, 64, 128, 256], ["digits"], 2
    seeds = list(range(n_seeds))
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name in datasets:
        start = time.perf_counter()
        linear, gcws, nrff = run_dataset(name, ks, seeds)
        print(
            f"\n{name}: test accuracy, mean (sd) over {len(seeds)} seeds; "
            f"linear SVM on raw features {linear.mean():.4f} ({linear.std():.4f})"
        )
        print(
            f"{'k':>6} {'GCWS':>16} {'NRFF':>16} {'GCWS-NRFF':>10} {'GCWS-linear':>12}"
            "  seeds GCWS>NRFF, >linear"
        )
        for i, k in enumerate(ks):
            print(
                f"{k:>6} {gcws[i].mean():>9.4f} ({gcws[i].std():.4f})"
                f" {nrff[i].mean():>9.4f} ({nrff[i].std():.4f})"
                f" {gcws[i].mean() - nrff[i].mean():>+10.4f}"
                f" {gcws[i].mean() - linear.mean():>+12.4f}"
                f"  {np.sum(gcws[i] > nrff[i])}/{len(seeds)},"
                f" {np.sum(gcws[i] > linear)}/{len(seeds)}"
            )
        print(f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()

"""Time of a bandwidth search with ``GridSearchCV(MMDTest(...))`` (issue 42):
a fit computes the features and unit sums and defers the resampling until a
result is read, so candidates scored by ``score`` (the power criterion on
held-out folds) never resample.

The baseline in the same run is the same search over ``EagerMMDTest``, an
``MMDTest`` that reads its p-value at the end of ``fit`` (what every fit did
before): the same candidates, folds, features and scores. The gallery
example's setting (``plot_bandwidth_selection.py``): blobs with covariances
differing by a factor 4, a selection half of ``n`` points per sample, 9
bandwidths, stratified 3-fold cross-validation, 512 random Fourier features.

    python benchmarks/bench_grid_search.py
    python benchmarks/bench_grid_search.py --n 5000 --n-resamples 999

Measured (this 2-core machine, other jobs stopped; 3 repetitions of each
search, in turn, after one untimed search; median seconds per search; n
points per sample, half of them searched):

======  ===========  ========  ================  =====  ===========
n       n_resamples  deferred  eager (baseline)  ratio  same scores
======  ===========  ========  ================  =====  ===========
1000    99           0.173 s   0.385 s           2.2x   yes
1000    999          0.185 s   0.473 s           2.6x   yes
5000    999          0.312 s   1.065 s           3.4x   yes
20000   999          1.611 s   1.892 s           1.2x   yes
======  ===========  ========  ================  =====  ===========

With at most 512 resampling units the calibration costs ``B x 512 x D``
whatever n, so from about 10^4 points the features dominate and the saving
shrinks.
"""

import argparse
from time import perf_counter

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

from skmmd import MMDTest, RandomFourierSampler
from skmmd.datasets import make_blobs_two_sample


class EagerMMDTest(MMDTest):
    """The baseline: an MMDTest whose fit also runs the calibration."""

    def fit(self, X, y=None):
        super().fit(X, y)
        self.p_value_  # noqa: B018 - reading it runs the resampling
        return self


def search(test_class, pooled, labels, n_resamples):
    grid = GridSearchCV(
        test_class(
            RandomFourierSampler(n_components=512, random_state=0),
            n_resamples=n_resamples,
            random_state=0,
        ),
        {"transformer__bandwidth": np.logspace(-1, 1.5, 9)},
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    )
    start = perf_counter()
    grid.fit(pooled, labels)
    return perf_counter() - start, grid.cv_results_["mean_test_score"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="points per sample")
    parser.add_argument("--n-resamples", type=int, default=99)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    X, Y = make_blobs_two_sample(args.n, epsilon=4.0, random_state=0)
    pooled = np.vstack([X, Y])
    labels = np.repeat([0, 1], [len(X), len(Y)])
    pooled, _, labels, _ = train_test_split(
        pooled, labels, test_size=0.5, stratify=labels, random_state=0
    )
    times = {MMDTest: [], EagerMMDTest: []}
    scores = {}
    search(MMDTest, pooled, labels, args.n_resamples)  # untimed: loading
    for _ in range(args.reps):
        for test_class in times:
            seconds, scores[test_class] = search(
                test_class, pooled, labels, args.n_resamples
            )
            times[test_class].append(seconds)
    deferred, eager = (np.median(times[c]) for c in (MMDTest, EagerMMDTest))
    same = np.array_equal(scores[MMDTest], scores[EagerMMDTest])
    print(
        f"n={args.n} n_resamples={args.n_resamples}: deferred {deferred:.3f} s, "
        f"eager {eager:.3f} s, ratio {eager / deferred:.2f}x, "
        f"same scores: {same}"
    )


if __name__ == "__main__":
    main()

"""
====================================================
Fastfood features + linear SVM against the exact SVC
====================================================

A linear SVM on :class:`~skmmd.FastfoodSampler` features approximates the
Gaussian-kernel SVM, with training cost linear in the number of samples
instead of the exact SVC's quadratic (or worse) one. The bandwidth is tuned
like any hyper-parameter, with ``GridSearchCV`` over ``rff__bandwidth``.

Left: cross-validated accuracy on the digits data against the bandwidth,
with the exact SVC at the same bandwidths. Right: training time against the
number of samples on a larger synthetic problem, with the test accuracy of
each model trained on all of them.
"""

from time import perf_counter

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits, make_classification
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from skmmd import FastfoodSampler
from skmmd.kernels import median_bandwidth

# %%
# Digits: tune the bandwidth
# --------------------------
X, y = load_digits(return_X_y=True)
median = median_bandwidth(X, random_state=0)
bandwidths = median * np.array([0.25, 0.5, 1.0, 2.0])

pipe = Pipeline(
    [
        ("rff", FastfoodSampler(n_components=1024, random_state=0)),
        ("svm", LinearSVC(C=10.0)),
    ]
)
search = GridSearchCV(pipe, {"rff__bandwidth": bandwidths}, cv=3).fit(X, y)
fastfood_scores = search.cv_results_["mean_test_score"]
# sklearn's gamma is 1 / (2 bandwidth^2).
exact_scores = [
    cross_val_score(SVC(C=10.0, gamma=0.5 / bw**2), X, y, cv=3).mean()
    for bw in bandwidths
]
print(
    f"best bandwidth {search.best_params_['rff__bandwidth']:.1f} (median {median:.1f})"
)
print(f"digits CV accuracy: Fastfood + LinearSVC {search.best_score_:.3f}, ", end="")
print(f"exact SVC {max(exact_scores):.3f}")

# %%
# A larger synthetic problem: accuracy and training time against n
# -----------------------------------------------------------------
# The exact SVC's training time grows faster than linearly with the number
# of samples (and so does its prediction time, with the number of support
# vectors); the Fastfood pipeline's grows linearly. At the sizes below the
# exact SVC is still faster; on this data the two cross at about 15000
# training samples, beyond which the pipeline pulls ahead.
Xs, ys = make_classification(
    n_samples=14_000,
    n_features=40,
    n_informative=20,
    n_clusters_per_class=4,
    class_sep=1.5,
    flip_y=0.05,
    random_state=0,
)
Xs = StandardScaler().fit_transform(Xs)
X_train, X_test, y_train, y_test = train_test_split(Xs, ys, random_state=0)
bandwidth = median_bandwidth(X_train, random_state=0)
models = {
    "Fastfood + LinearSVC": Pipeline(
        [
            (
                "rff",
                FastfoodSampler(bandwidth=bandwidth, n_components=1024, random_state=0),
            ),
            ("svm", LinearSVC(C=1.0, dual=False)),
        ]
    ),
    "exact SVC": SVC(C=1.0, gamma=0.5 / bandwidth**2),
}
sizes = [2500, 5000, len(X_train)]
seconds = {name: [] for name in models}
accuracy = {}
for n in sizes:
    for name, model in models.items():
        start = perf_counter()
        model.fit(X_train[:n], y_train[:n])
        seconds[name].append(perf_counter() - start)
        accuracy[name] = model.score(X_test, y_test)
for name in models:
    print(
        f"{name:<22} n={sizes[-1]}: test accuracy {accuracy[name]:.3f}, "
        f"fit {seconds[name][-1]:.2f} s"
    )

# %%
# Plot
# ----
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.semilogx(bandwidths, fastfood_scores, "o-", label="Fastfood + LinearSVC")
ax1.semilogx(bandwidths, exact_scores, "s--", label="exact SVC")
ax1.set_xlabel("bandwidth")
ax1.set_ylabel("3-fold CV accuracy")
ax1.set_title("digits (1797 x 64)")
ax1.legend()
for (name, times), style in zip(seconds.items(), ["o-", "s--"]):
    ax2.loglog(sizes, times, style, label=f"{name} (test acc. {accuracy[name]:.3f})")
ax2.set_xlabel("training samples")
ax2.set_ylabel("fit time (s)")
ax2.set_title("synthetic, 40 features")
ax2.legend()
fig.tight_layout()
plt.show()

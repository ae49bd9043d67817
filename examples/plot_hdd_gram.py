"""
========================================================
Kernels between sets of samples with HDD random features
========================================================

Each input here is a *set* of 2-D points drawn from its own density (a
mixture of truncated Gaussians). :class:`skmmd.HDDSampler` maps every set to a
vector whose dot products approximate the Jensen-Shannon kernel
``exp(-JS(p, q) / (2 sigma^2))`` between the sets' densities (Sutherland et al.
2016), in time linear in the number of sets.

Left: the kernel estimated from samples against the kernel of the true
densities (the paper's Figure 2). Right: predicting the number of mixture
components of a set with ridge regression on HDD features, against the mean
embedding (MMD) baseline (the paper's Figure 4).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import RidgeCV
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline

from skmmd import HDDSampler, MeanEmbedding, RandomFourierSampler
from skmmd.datasets import make_mixture_bags, make_mixture_components_regression
from skmmd.kernels import hdd_kernel

# %%
# Gram matrix: estimated vs true JS kernel
# ----------------------------------------
bags, densities = make_mixture_bags(20, n_points=1000, random_state=0)
hdd = HDDSampler(divergence="js", n_components=4096, random_state=0)
Z = hdd.fit_transform(bags)
K_est = Z @ Z.T
K_true = hdd_kernel(
    densities, divergence="js", bandwidth=hdd.bandwidth_, n_features=2, n_grid=200
)
iu = np.triu_indices(len(bags), 1)
r2 = r2_score(K_true[iu], K_est[iu])

# %%
# Number-of-components regression
# -------------------------------
X, y = make_mixture_components_regression(1200, n_points=200, random_state=0)
X_train, y_train, X_test, y_test = X[:1000], y[:1000], X[1000:], y[1000:]
models = {
    "HDD-JS": HDDSampler(n_lambdas=10, n_mc=64**2, n_components=512, random_state=0),
    "HDD-Hellinger": HDDSampler(
        divergence="hellinger", n_mc=64**2, n_components=512, random_state=0
    ),
    "MMD": make_pipeline(
        MeanEmbedding(RandomFourierSampler(n_components=512, random_state=0)),
        RandomFourierSampler(n_components=512, random_state=0),
    ),
}
rmse = {}
for name, features in models.items():
    model = make_pipeline(features, RidgeCV(alphas=np.logspace(-6, 2, 17)))
    model.fit(X_train, y_train)
    rmse[name] = np.sqrt(np.mean((model.predict(X_test) - y_test) ** 2))
rmse["constant"] = np.sqrt(np.mean((y_test - y_train.mean()) ** 2))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.scatter(K_true[iu], K_est[iu], s=6)
lims = [K_true[iu].min(), 1.0]
ax1.plot(lims, lims, "k--", lw=1)
ax1.set_xlabel("true JS kernel (numerical integration)")
ax1.set_ylabel("HDD random features")
ax1.set_title(f"JS Gram matrix, R$^2$ = {r2:.3f}")
ax2.bar(list(rmse), list(rmse.values()), color=["C0", "C1", "C2", "0.6"])
ax2.set_ylabel("test RMSE")
ax2.set_title("number of mixture components (1000 training sets)")
fig.tight_layout()
plt.show()

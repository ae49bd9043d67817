"""
=====================================================================
Does the model fit? Checking a mixture and MCMC draws by their score
=====================================================================

A goodness-of-fit test asks whether rows come from a model. The kernel Stein
discrepancy needs only the model's score ``grad log p``: no normalizing
constant and no draws from the model, so it checks a fitted density and an
unnormalized posterior alike (:class:`~skmmd.KernelSteinTest`,
:func:`~skmmd.goodness_of_fit_test`, linear in the number of rows).

Two uses:

* choosing how many components a Gaussian mixture needs for three stretched
  clusters (scikit-learn's ``make_blobs``): each mixture fitted on most of
  the rows and tested on the others (a model tested on its own training rows
  is biased towards them, and one fitted on as few rows as it is tested on
  fails by its own estimation error);
* checking the draws of a random-walk Metropolis sampler against the
  (unnormalized) banana-shaped density it targets: a well-mixed chain, and
  one whose steps are too small to leave where it started.
"""

# %%
# How many components does the mixture need?
# -------------------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import train_test_split

import skmmd

rows, _ = make_blobs(
    n_samples=22000,
    centers=[[-4, 0], [0, 3], [3, -1]],
    cluster_std=[1.0, 0.6, 1.4],
    random_state=0,
)
rows = rows @ np.array([[1.0, 0.4], [0.0, 0.8]])  # stretched clusters
fit_rows, test_rows = train_test_split(rows, test_size=2000, random_state=0)

components = range(1, 6)
results = []
for k in components:
    mixture = GaussianMixture(k, covariance_type="full", random_state=0).fit(fit_rows)
    # One kernel (a mixture's default is the grid of bandwidths): one KSD^2
    # per mixture, comparable across the mixtures, to plot.
    results.append(
        skmmd.goodness_of_fit_test(test_rows, mixture, aggregate=False, random_state=0)
    )
    print(
        f"{k} components: p = {results[-1].pvalue:.3f}, KSD^2 = {results[-1].ksd2:.4f}"
    )

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
left.scatter(*test_rows.T, s=8, alpha=0.6)
left.set_xlabel("$x_1$")
left.set_ylabel("$x_2$")
left.set_title(f"the {len(test_rows)} tested rows")
low, high = np.array([r.confidence_interval() for r in results]).T
estimate = np.array([max(r.ksd2, 0.0) for r in results])
right.errorbar(
    list(components),
    estimate,
    yerr=[estimate - low, high - estimate],
    fmt="o",
    capsize=4,
)
right.set_xlabel("mixture components")
right.set_xlim(0.5, 5.5)
right.margins(y=0.15)
right.set_ylabel("KSD$^2$ (95% interval)")
right.set_title("misfit of each mixture on held-out rows")
for k, r in zip(components, results):
    right.annotate(f"p={r.pvalue:.3f}", (k, high[k - 1]), ha="center", va="bottom")

# %%
# One or two Gaussians cannot follow the three clusters; from three
# components on, the held-out rows no longer contradict the mixture and its
# discrepancy's interval reaches 0.
#
# Checking MCMC draws against their target
# ----------------------------------------
# The banana density ``log p(x) = -x_1^2 / 8 - (x_2 - x_1^2 / 4)^2 / 2`` (up
# to a constant), its score written by hand. The test assumes independent
# rows, so each chain is thinned to one draw in 25 (its autocorrelation then
# is small).


def log_banana(X):
    return -(X[:, 0] ** 2) / 8 - (X[:, 1] - X[:, 0] ** 2 / 4) ** 2 / 2


def banana_score(X):
    bend = X[:, 1] - X[:, 0] ** 2 / 4
    return np.column_stack([-X[:, 0] / 4 + bend * X[:, 0] / 2, -bend])


def metropolis(step, n_steps, rng, chains=40):
    """Random-walk Metropolis, ``chains`` chains side by side from (3, 0)."""
    x = np.tile([3.0, 0.0], (chains, 1))
    log_p = log_banana(x)
    draws = np.empty((n_steps, chains, 2))
    for t in range(n_steps):
        proposal = x + step * rng.normal(size=x.shape)
        log_q = log_banana(proposal)
        accept = np.log(rng.random(chains)) < log_q - log_p
        x[accept], log_p[accept] = proposal[accept], log_q[accept]
        draws[t] = x
    return draws


rng = np.random.default_rng(0)
fig, axes = plt.subplots(
    1, 2, figsize=(10, 4), sharex=True, sharey=True, layout="constrained"
)
for ax, step in zip(axes, (1.5, 0.05)):
    draws = metropolis(step, 2500, rng)[500::25].reshape(-1, 2)  # burn-in, thin
    result = skmmd.goodness_of_fit_test(draws, banana_score, random_state=0)
    ax.scatter(*draws.T, s=5, alpha=0.5)
    ax.set_title(f"step {step}: p = {result.pvalue:.3f}, {len(draws)} draws")
    print(f"step {step}: p = {result.pvalue:.3f}")
    ax.set_xlabel("$x_1$")
axes[0].set_ylabel("$x_2$")
plt.show()

# %%
# The well-tuned chain's thinned draws fit the banana. With steps of 0.05 the
# chains have not left the neighbourhood of their start after 2500 steps,
# and the test rejects: from the score alone, without the normalizing
# constant and without any exact draw from the target.

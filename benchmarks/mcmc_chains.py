"""The chains of ``bench_time_series.py --mcmc``: random-walk Metropolis and
unadjusted Langevin samplers run on many chains at once, their targets (a
2-D banana, a 10-D Gaussian: log density, score, exact draws) and Sokal's
integrated autocorrelation time."""

import numpy as np


def rwm(rng, log_density, x0, n, step):
    """Random-walk Metropolis, one chain per row of ``x0``, all at once:
    the draws (n, chains, d)."""
    x, lp = x0.copy(), log_density(x0)
    out = np.empty((n,) + x.shape)
    for t in range(n):
        y = x + step * rng.normal(size=x.shape)
        ly = log_density(y)
        accept = np.log(rng.random(x.shape[0])) < ly - lp
        x[accept], lp[accept] = y[accept], ly[accept]
        out[t] = x
    return out


def ula(rng, score, x0, n, step):
    """The unadjusted Langevin algorithm: biased for any step (no
    Metropolis correction), more the larger the step."""
    x, out = x0.copy(), np.empty((n,) + x0.shape)
    for t in range(n):
        x = x + step * score(x) + np.sqrt(2 * step) * rng.normal(size=x.shape)
        out[t] = x
    return out


def banana(s1=2.0, b=0.5):
    """A 2-D banana: x1 ~ N(0, s1^2), x2 + b (x1^2 - s1^2) ~ N(0, 1)."""

    def log_density(X):
        z = X[:, 1] + b * (X[:, 0] ** 2 - s1**2)
        return -(X[:, 0] ** 2) / (2 * s1**2) - z**2 / 2

    def score(X):
        z = X[:, 1] + b * (X[:, 0] ** 2 - s1**2)
        return np.column_stack([-X[:, 0] / s1**2 - 2 * b * X[:, 0] * z, -z])

    def sample(rng, m):
        x1 = rng.normal(0, s1, m)
        return np.column_stack([x1, rng.normal(size=m) - b * (x1**2 - s1**2)])

    return log_density, score, sample


def gaussian(d=10):
    def sample(rng, m):
        return rng.normal(size=(m, d))

    return (lambda X: -0.5 * np.sum(X**2, axis=1)), (lambda X: -X), sample


def integrated_time(chain):
    """Integrated autocorrelation time of a 1-D chain (Sokal's window)."""
    x = chain - chain.mean()
    f = np.fft.rfft(x, 2 * len(x))
    rho = np.fft.irfft(f * np.conj(f))[: len(x)]
    rho /= rho[0]
    tau = 1 + 2 * np.cumsum(rho[1:])
    window = np.argmax(np.arange(1, len(x)) >= 5 * tau)
    return tau[window]

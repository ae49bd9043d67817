"""Textbook formulas in plain numpy, the ground truth of faster code."""

import numpy as np


def mmd2_dense(Kxx, Kyy, Kxy, unbiased):
    """Textbook formulas on full Gram matrices (Gretton et al. 2012, eq. 2-3)."""
    m, n = Kxy.shape
    if unbiased:
        return (
            (Kxx.sum() - np.trace(Kxx)) / (m * (m - 1))
            + (Kyy.sum() - np.trace(Kyy)) / (n * (n - 1))
            - 2 * Kxy.mean()
        )
    return Kxx.mean() + Kyy.mean() - 2 * Kxy.mean()


def sign_split(u):
    """``u~[2i] = max(u_i, 0)``, ``u~[2i+1] = max(-u_i, 0)``: the nonnegative
    vector on which the generalized min-max kernel of signed data is the
    min-max kernel."""
    out = np.zeros(2 * u.size)
    out[0::2] = np.maximum(u, 0)
    out[1::2] = np.maximum(-u, 0)
    return out

"""Data generators shared by the tests of several modules."""

import numpy as np


def conditional_chain(n, rng, dependent=0.0):
    """z -> x and z -> y, non-linear, heteroscedastic; ``dependent`` adds a
    direct x -> y link."""
    z = rng.normal(size=(n, 1))
    x = np.sin(2 * z) + (0.2 + 0.2 * np.abs(z)) * rng.normal(size=(n, 1))
    y = np.tanh(2 * z) + z**2 / 2 + 0.3 * rng.normal(size=(n, 1)) + dependent * x
    return x, y, z


def mixed_table(rng, n, shift=0.0, missing=0.15):
    """A table of numbers, a category, strings and booleans, with missing
    values; ``shift`` scales the income."""
    import pandas as pd

    table = pd.DataFrame(
        {
            "income": rng.lognormal(10, 0.5, n) * (1 + shift),
            "age": rng.integers(18, 90, n).astype(float),
            "region": pd.Categorical(rng.choice(["north", "south", "east"], n)),
            "plan": rng.choice(["basic", "plus", "pro"], n),
            "active": rng.random(n) < 0.7,
        }
    )
    table.loc[rng.random(n) < missing, "income"] = np.nan
    table.loc[rng.random(n) < missing / 2, "plan"] = None
    return table


def ar1(rng, n, phi, d=1):
    """A stationary AR(1) series of ``n`` rows, ``d`` independent coordinates
    with N(0, 1) marginals (rows in time order)."""
    from scipy import signal

    start = rng.normal(size=(1, d))
    noise = rng.normal(size=(n - 1, d)) * np.sqrt(1 - phi**2)
    rest, _ = signal.lfilter([1.0], [1.0, -phi], noise, axis=0, zi=phi * start)
    return np.vstack([start, rest])

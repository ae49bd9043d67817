"""Fitted tests and a detector for the displays to draw (matplotlib's Agg
backend, selected by every test module here before pyplot is imported)."""

import numpy as np
import pytest

from skmmd import MMDTest, OnlineMMDDetector


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def shifted():
    """Three columns, the second shifted: it alone moved."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(300, 3)), rng.normal(size=(300, 3))
    Y[:, 1] += 1.0
    return X, Y


@pytest.fixture(scope="module")
def explained(shifted):
    return MMDTest(explain_columns=True, n_resamples=199, random_state=0).fit(*shifted)


@pytest.fixture(scope="module")
def detector():
    rng = np.random.default_rng(0)
    ref = rng.normal(size=(1000, 2))
    return OnlineMMDDetector(
        ert=500, window_size=[10, 30], n_resamples=500, random_state=0
    ).fit(ref)


@pytest.fixture(scope="module")
def wide_tables():
    """Twelve columns with long names, the first three shifted."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    names = [f"customer_lifetime_value_estimate_{i}_in_euros" for i in range(12)]
    X = pd.DataFrame(rng.normal(size=(300, 12)), columns=names)
    Y = pd.DataFrame(rng.normal(size=(300, 12)), columns=names)
    Y.iloc[:, :3] += 1.5
    return X, Y

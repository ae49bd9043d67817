import numpy as np
import pytest


@pytest.fixture
def bags_2d(global_random_seed):
    """Six sets of 2-D points (one of a single point), each from its own
    Beta law."""
    rng = np.random.default_rng(global_random_seed)
    sizes = [50, 80, 1, 120, 200, 30]
    return [rng.beta(1 + i, 2, size=(n, 2)) for i, n in enumerate(sizes)]

import os

# scikit-learn's array API dispatch (tests/test_array_api.py) needs scipy's
# array API support, which scipy reads from the environment when it is first
# imported: set it before anything imports scipy.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

# One seed by default; SKMMD_SEED_SWEEP=1 runs the seeded tests for every seed
# 0-99 (the accuracy bounds are derived to hold for all of them).
_SWEEP = os.environ.get("SKMMD_SEED_SWEEP", "0") not in ("", "0")
_SEEDS = list(range(100)) if _SWEEP else [42]


def pytest_generate_tests(metafunc):
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", _SEEDS)


@pytest.fixture
def rng(global_random_seed):
    return np.random.default_rng(global_random_seed)

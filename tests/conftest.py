import os

# scikit-learn's array API dispatch (tests/_utils/test_array_api.py) needs scipy's
# array API support, which scipy reads from the environment when it is first
# imported: set it before anything imports scipy.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

# One seed by default; SKMMD_SEED_SWEEP=1 runs the seeded tests for every seed
# 0-99 (the accuracy bounds are derived to hold for all of them).
_SWEEP = os.environ.get("SKMMD_SEED_SWEEP", "0") not in ("", "0")
_SEEDS = list(range(100)) if _SWEEP else [42]


# The doctests (of skmmd's docstrings and of the user guide's pages) that take
# more than a few seconds, marked slow as the tests that do are.
_SLOW_DOCTESTS = {
    "_demo_output.rst",  # the whole demo
    "hdd.rst",
    "independence.rst",
    "fourier.rst",
    "fastfood.rst",
    "online.rst",
    "skmmd.independence._api.hsic_test",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.name in _SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)


def pytest_generate_tests(metafunc):
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", _SEEDS)


@pytest.fixture
def rng(global_random_seed):
    return np.random.default_rng(global_random_seed)


# Fixtures shared by the tests of more than one package.


@pytest.fixture
def sample_files(tmp_path):
    """Two samples that differ (a CSV with a header, a .npy shifted by one)
    and a third from the first's law (a CSV without a header)."""
    rng = np.random.default_rng(0)
    a = tmp_path / "a.csv"
    np.savetxt(a, rng.normal(size=(60, 3)), delimiter=",", header="u,v,w", comments="")
    b = tmp_path / "b.npy"
    np.save(b, rng.normal(size=(70, 3)) + 1.0)
    same = tmp_path / "same.csv"
    np.savetxt(same, rng.normal(size=(50, 3)), delimiter=",")
    return a, b, same


@pytest.fixture(scope="module")
def drifted():
    """A table whose ``amount`` moved (and gained missing values)."""
    pd = pytest.importorskip("pandas", reason="the report's tables use pandas")
    rng = np.random.default_rng(0)

    def table(n, shift, missing):
        amount = rng.normal(size=n) + shift
        amount[rng.random(n) < missing] = np.nan
        return pd.DataFrame(
            {
                "amount": amount,
                "age": rng.normal(40, 10, size=n),
                "city": rng.choice(["Oslo", "Lima", "Pune"], size=n),
            }
        )

    return table(400, 0.0, 0.0), table(400, 1.0, 0.2)


@pytest.fixture(scope="module")
def dask_client():
    """A client of a two-process LocalCluster, one per module (so the suite
    stays fast); dask's scheduler while the module's tests run."""
    distributed = pytest.importorskip("distributed", reason="distributed is optional")
    from tests.helpers.clusters import local_cluster

    with local_cluster() as cluster, distributed.Client(cluster) as client:
        yield client

import numpy as np
import pytest
from scipy import stats

from skmmd._inference._aggregation import (
    aggregated_p_value,
    grid_weights,
    per_kernel_p_values,
    standardize,
)


def _exchangeable(rng, B, K, rho=0.8):
    """B + 1 i.i.d. rows of K correlated statistics (what permutations give
    under the null), with kernels on different scales."""
    cov = rho * np.ones((K, K)) + (1 - rho) * np.eye(K)
    T = rng.multivariate_normal(np.zeros(K), cov, size=B + 1)
    return np.exp(T) * np.logspace(-3, 3, K)


def test_per_kernel_p_values_match_definition():
    rng = np.random.default_rng(0)
    T = rng.normal(size=(50, 3))
    T[7, 1] = T[0, 1]  # a tie counts as >=
    p = per_kernel_p_values(T)
    for b in (0, 7, 20):
        for k in range(3):
            assert p[b, k] == np.mean(T[:, k] >= T[b, k])
    assert p[0, 1] == (1 + np.sum(T[1:, 1] >= T[0, 1])) / 50


@pytest.mark.parametrize("method", ["mmdagg", "fuse"])
def test_p_values_are_valid_under_exchangeability(method):
    # Under exchangeable rows, P(p <= alpha) <= alpha exactly. 2000 replicates:
    # the rejection rate must not exceed alpha by more than 3 binomial sd.
    rng = np.random.default_rng(1)
    alpha, reps = 0.05, 2000
    p = np.array(
        [aggregated_p_value(_exchangeable(rng, 99, 6), method)[1] for _ in range(reps)]
    )
    assert p.min() >= 1 / 100 and p.max() <= 1
    rate = np.mean(p <= alpha)
    assert rate <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)
    # And not wildly conservative: a discrete-uniform p has rate exactly 0.05.
    assert rate >= alpha - 3 * np.sqrt(alpha * (1 - alpha) / reps)


@pytest.mark.parametrize("method", ["mmdagg", "fuse"])
def test_signal_in_one_kernel_is_detected(method):
    rng = np.random.default_rng(2)
    T = _exchangeable(rng, 199, 8, rho=0.3)
    T[0, 5] = T[1:, 5].max() * 10  # one kernel sees a large effect
    assert aggregated_p_value(T, method)[1] <= 0.05


def test_minp_single_kernel_is_the_permutation_p_value():
    T = np.random.default_rng(3).normal(size=(100, 1))
    assert aggregated_p_value(T)[1] == per_kernel_p_values(T)[0, 0]


def test_standardize_constant_column_is_zero():
    T = np.column_stack([np.ones(10), np.arange(10.0)])
    S = standardize(T)
    assert np.all(S[:, 0] == 0)
    np.testing.assert_allclose(S[:, 1], stats.zscore(np.arange(10.0)))


@pytest.mark.parametrize("method", ["mmdagg", "fuse"])
def test_weighted_p_values_are_valid_under_exchangeability(method):
    # Any fixed weights keep the rows' symmetry, hence the level.
    rng = np.random.default_rng(4)
    alpha, reps = 0.05, 2000
    weights = grid_weights("decreasing", 6)
    p = np.array(
        [
            aggregated_p_value(_exchangeable(rng, 99, 6), method, weights)[1]
            for _ in range(reps)
        ]
    )
    assert abs(np.mean(p <= alpha) - alpha) <= 3 * np.sqrt(alpha * (1 - alpha) / reps)


def test_weights_move_the_level_to_the_favoured_kernel():
    # A moderate effect in the first kernel only: favouring it lowers the
    # aggregated p-value, favouring the others raises it, and nearly all the
    # weight on it gives (about) its own p-value.
    rng = np.random.default_rng(5)
    T = _exchangeable(rng, 999, 5, rho=0.0)
    T[0, 0] = np.quantile(T[1:, 0], 0.995)
    own = per_kernel_p_values(T)[0, 0]
    p = {
        name: aggregated_p_value(T, "mmdagg", w)[1]
        for name, w in {
            "uniform": None,
            "first": grid_weights("decreasing", 5),
            "last": grid_weights("increasing", 5),
            "only": np.r_[1.0, np.full(4, 1e-9)],
        }.items()
    }
    assert p["first"] < p["uniform"] < p["last"]
    assert own - 1e-3 <= p["only"] <= own + 1e-3


def test_grid_weights_shapes():
    n = 5
    for shape in ("uniform", "increasing", "decreasing", "centred"):
        w = grid_weights(shape, n)
        assert w.shape == (n,) and np.isclose(w.sum(), 1) and np.all(w > 0)
    assert np.all(np.diff(grid_weights("decreasing", n)) < 0)
    assert np.all(np.diff(grid_weights("increasing", n)) > 0)
    centred = grid_weights("centred", n)
    assert centred.argmax() == 2 and np.allclose(centred, centred[::-1])
    even = grid_weights("centred", 4)
    assert np.allclose(even, even[::-1]) and even[1] == even.max()

"""Nystroem MMD and the three-sample rule (skmmd/statistics/_nystroem.py)."""

import numpy as np
import pytest
import scipy.sparse as sp

from skmmd import NystroemSampler
from skmmd._utils._compat import InvalidParameterError
from skmmd.kernels import gaussian_kernel
from skmmd.statistics import ThreeSampleResult, nystroem_mmd2, three_sample_test
from tests.helpers.graphs import random_graphs, shortest_path_kernel


def exact_biased_mmd2(X, Y, bandwidth):
    m = len(X)
    K = gaussian_kernel(np.concatenate([X, Y]), bandwidth=bandwidth)
    return K[:m, :m].mean() + K[m:, m:].mean() - 2 * K[:m, m:].mean()


def test_all_landmarks_give_exact_mmd(rng):
    # With every pooled point a landmark the Nystroem kernel equals k on the
    # pooled set (up to the ~1e-11 eigenvalue cutoff), so reg = 0 gives the
    # exact biased MMD^2 (V-statistic) and reg adds lambda (1/m + 1/n) for
    # distinct points.
    X, Y = rng.normal(size=(40, 2)), rng.normal(0.5, size=(30, 2))
    sampler = NystroemSampler(bandwidth=1.0, n_components=70, random_state=0)
    value = nystroem_mmd2(X, Y, sampler=sampler)
    assert value == pytest.approx(exact_biased_mmd2(X, Y, 1.0), abs=1e-9)
    reg = nystroem_mmd2(X, Y, sampler=sampler, reg=0.3)
    assert reg - value == pytest.approx(0.3 * (1 / 40 + 1 / 30), rel=1e-9)
    # A sparse copy gives the same value.
    sparse = nystroem_mmd2(sp.csr_matrix(X), sp.csr_matrix(Y), sampler=sampler, reg=0.3)
    assert sparse == pytest.approx(reg, rel=1e-9)


def test_regularization_merges_duplicates(rng):
    # v_x = p_x - q_x over distinct points: a point in both samples gets
    # mass 1/m - 1/n (not two separate masses), and equal samples get v = 0.
    X = rng.normal(size=(10, 2))
    Y = np.concatenate([X[:4], rng.normal(size=(6, 2))])
    sampler = NystroemSampler(bandwidth=1.0, n_components=16, random_state=0)
    plain = nystroem_mmd2(X, Y, sampler=sampler)
    reg = nystroem_mmd2(X, Y, sampler=sampler, reg=1.0)
    # 4 shared points: mass 0.1 - 0.1 = 0; 6 points only in X and 6 only in Y.
    assert reg - plain == pytest.approx(12 * 0.1**2, rel=1e-9)
    assert nystroem_mmd2(X, X[::-1], sampler=sampler, reg=1.0) == pytest.approx(
        0.0, abs=1e-12
    )
    graphs = [
        np.eye(n, k=1, dtype=int) + np.eye(n, k=-1, dtype=int) for n in range(3, 9)
    ]
    graph_sampler = NystroemSampler(
        kernel=shortest_path_kernel, n_components=4, random_state=0
    )
    g_plain = nystroem_mmd2(graphs[:4], graphs[2:], sampler=graph_sampler)
    g_reg = nystroem_mmd2(graphs[:4], graphs[2:], sampler=graph_sampler, reg=1.0)
    # graphs 2, 3 shared (mass 0); 0, 1 only in X and 4, 5 only in Y.
    assert g_reg - g_plain == pytest.approx(4 * 0.25**2, rel=1e-9)


def test_three_sample_decision(global_random_seed):
    # N(0, 1) vs N(0, 2) (variances), 300 points each, 20 landmarks: the
    # MMD^2 between N(0,1) and N(0,2) (~0.02 at the median bandwidth) is
    # about 10 standard deviations of the estimates, so the rule never errs.
    rng = np.random.default_rng(global_random_seed)
    X = rng.normal(0.0, 1.0, size=(300, 1))
    Y = rng.normal(0.0, np.sqrt(2.0), size=(300, 1))
    Z1 = rng.normal(0.0, 1.0, size=(300, 1))
    Z2 = rng.normal(0.0, np.sqrt(2.0), size=(300, 1))
    sampler = NystroemSampler(n_components=20, random_state=global_random_seed)
    for Z, expected in ((Z1, "X"), (Z2, "Y")):
        result = three_sample_test(X, Y, Z, sampler=sampler, reg=1e-3)
        assert isinstance(result, ThreeSampleResult)
        assert result.closer == expected
        assert min(result.distance_zx, result.distance_zy) >= 0


def test_three_sample_callable_distance_and_graphs(rng):
    def mean_gap(A, B):
        return abs(np.mean(A) - np.mean(B))

    X, Y = np.zeros((5, 1)), np.ones((5, 1))
    result = three_sample_test(X, Y, np.full((3, 1), 0.4), distance=mean_gap)
    assert result == ThreeSampleResult("X", pytest.approx(0.4), pytest.approx(0.6))
    # Ties go to Y (the rule is D(Z, X) < D(Z, Y) for X).
    assert (
        three_sample_test(X, Y, np.full((3, 1), 0.5), distance=mean_gap).closer == "Y"
    )
    # Graphs: paths vs complete graphs, shortest-path kernel.
    paths = [
        np.eye(n, k=1, dtype=int) + np.eye(n, k=-1, dtype=int) for n in range(4, 9)
    ]
    cliques = [np.ones((n, n), int) - np.eye(n, dtype=int) for n in range(4, 9)]
    sampler = NystroemSampler(
        kernel=shortest_path_kernel, n_components=6, random_state=0
    )
    result = three_sample_test(paths, cliques, paths[::2], sampler=sampler, reg=0.1)
    assert result.closer == "X"


def test_errors(rng):
    X = rng.normal(size=(10, 2))
    with pytest.raises(ValueError, match="same number of features"):
        nystroem_mmd2(X, X[:, :1])
    with pytest.raises(InvalidParameterError, match="reg"):
        nystroem_mmd2(X, X, reg=-1.0)
    with pytest.raises(InvalidParameterError, match="distance"):
        three_sample_test(X, X, X, distance="exact")
    with pytest.raises(InvalidParameterError, match="sampler"):
        nystroem_mmd2(X, X, sampler="nystroem")
    sampler = NystroemSampler(kernel=shortest_path_kernel)
    with pytest.raises(ValueError, match="at least one point"):
        nystroem_mmd2(random_graphs(rng, 3), [], sampler=sampler)

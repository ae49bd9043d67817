"""MeanEmbedding (skmmd/kernel_approximation/_mean_embedding.py) against the
exact mean kernel; blocks, the default sampler, a non-transformer refused."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.utils._testing import assert_allclose

from skmmd import MeanEmbedding, RandomFourierSampler
from skmmd.kernels import gaussian_kernel
from tests.helpers.gram_bounds import bernstein

# ---------------------------------------------------------------------------
# MeanEmbedding against the exact mean kernel
# ---------------------------------------------------------------------------


def test_mean_embedding_matches_mean_kernel(global_random_seed):
    rng = np.random.default_rng(global_random_seed)
    bags = [rng.normal(loc=i, size=(n, 2)) for i, n in enumerate([5, 17, 1, 40])]
    D = 4096
    emb = MeanEmbedding(
        RandomFourierSampler(
            bandwidth=1.5, n_components=D, random_state=global_random_seed
        )
    ).fit(bags)
    M = emb.transform(bags)
    exact = np.array(
        [[gaussian_kernel(a, b, bandwidth=1.5).mean() for b in bags] for a in bags]
    )
    # each entry is an average of cos_sin Gram entries, each with variance
    # <= 1 / (D / 2) terms bounded by 2: Bernstein at delta = 1e-4 / 16.
    tol = bernstein(1.0, D // 2, 2.0, 1e-4 / 16)
    assert np.max(np.abs(M @ M.T - exact)) <= tol
    # a deliberately wrong embedding (sum instead of mean) fails the check
    sizes = np.array([len(b) for b in bags])
    wrong = M * sizes[:, None]
    assert np.max(np.abs(wrong @ wrong.T - exact)) > tol


def test_mean_embedding_blocks_and_default_sampler(monkeypatch):
    from skmmd.kernel_approximation import _mean_embedding

    rng = np.random.default_rng(0)
    bags = [rng.normal(size=(n, 3)) for n in (3, 9, 1, 20, 7)]
    emb = MeanEmbedding().fit(bags)
    assert isinstance(emb.sampler_, RandomFourierSampler)
    full = emb.transform(bags)
    monkeypatch.setattr(_mean_embedding, "_CHUNK_POINTS", 8)
    assert_allclose(emb.transform(bags), full)
    expected = emb.sampler_.transform(bags[3]).mean(axis=0)
    assert_allclose(full[3], expected)


def test_mean_embedding_rejects_non_transformer(bags_2d):
    with pytest.raises(ValueError, match="sampler"):
        MeanEmbedding(sampler=Ridge()).fit(bags_2d)

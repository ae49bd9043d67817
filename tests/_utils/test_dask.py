"""Samplers on dask arrays (skmmd/_utils/_dask.py): a lazy transform equal to
numpy's, fit on a bounded subsample, and dask never imported by skmmd
alone."""

import subprocess
import sys

import numpy as np
import pytest

from skmmd import (
    FastfoodSampler,
    GCWSSampler,
    NormalizedRandomFourierSampler,
    NystroemSampler,
    RandomFourierSampler,
)

da = pytest.importorskip("dask.array", reason="dask is an optional extra")


def _data(seed=0, m=9000, n=7000, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, d)), rng.normal(size=(n, d)) + 0.05


@pytest.mark.slow
def test_sampler_transform_is_lazy_and_equals_numpy(dask_client):
    X, _ = _data(2, m=3000)
    dX = da.from_array(X, chunks=(700, 2))  # column chunks are merged first
    samplers = [
        RandomFourierSampler(n_components=40, random_state=0),
        NormalizedRandomFourierSampler(n_components=40, random_state=0),
        FastfoodSampler(n_components=40, random_state=0),
        NystroemSampler(n_components=30, random_state=0),
    ]
    for sampler in samplers:
        fitted = sampler.fit(dX)  # a bounded subsample: all 3000 rows here
        Z = fitted.transform(dX)
        assert isinstance(Z, da.Array) and Z.chunks[0] == dX.chunks[0]
        assert Z.shape == (3000, fitted.transform(X[:1]).shape[1])
        np.testing.assert_allclose(Z.compute(), fitted.transform(X), rtol=1e-12)
        ref = type(sampler)(**sampler.get_params()).fit(X)
        np.testing.assert_allclose(
            fitted.transform(X), ref.transform(X), rtol=1e-12, atol=1e-15
        )
    gcws = GCWSSampler(n_components=16, random_state=0).fit(np.abs(X))
    Z = gcws.transform(da.from_array(np.abs(X), chunks=700)).compute()
    assert (Z != gcws.transform(np.abs(X))).nnz == 0


def test_fit_on_a_large_dask_array_reads_a_bounded_subsample(monkeypatch):
    from skmmd._utils import _budgets

    monkeypatch.setattr(_budgets, "FIT_SUBSAMPLE_ROWS", 500)
    X, _ = _data(3, m=5000)
    sampler = RandomFourierSampler(n_components=8, random_state=0)
    sampler.fit(da.from_array(X, chunks=1000))
    rng = np.random.RandomState(0)
    idx = np.sort(
        np.random.default_rng(rng.randint(np.iinfo(np.int32).max)).choice(
            5000, 500, replace=False
        )
    )
    ref = RandomFourierSampler(n_components=8, random_state=0).fit(X[idx])
    assert sampler.bandwidth_ == ref.bandwidth_


@pytest.mark.slow
def test_importing_skmmd_does_not_import_dask():
    code = (
        "import sys, skmmd; print('dask' in sys.modules, 'distributed' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]

"""The tests on dask arrays (skmmd/_inference/_dask.py): any chunking equals
memory, the reduction on a real multi-process LocalCluster (one per module, so
the suite stays fast), dask DataFrames, unknown chunk sizes, bad input, and
workers lost in the middle of a reduction."""

import os

import numpy as np
import pytest

from skmmd import (
    AggregatedMMDTest,
    FastfoodSampler,
    HSICTest,
    MMDTest,
    RandomFourierSampler,
)
from tests.helpers.clusters import local_cluster

da = pytest.importorskip("dask.array", reason="dask is an optional extra")
distributed = pytest.importorskip("distributed", reason="distributed is optional")

REL = 1e-10


def _data(seed=0, m=9000, n=7000, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, d)), rng.normal(size=(n, d)) + 0.05


def _tests():
    rff = RandomFourierSampler(bandwidth=1.5, n_components=64, random_state=0)
    ff = FastfoodSampler(bandwidth=1.5, n_components=64, random_state=0)
    return {
        "rff": MMDTest(rff, random_state=0, n_resamples=99, resample_unit=2),
        "fastfood": MMDTest(ff, random_state=0, n_resamples=99),
        "aggregated": AggregatedMMDTest(
            n_bandwidths=3, n_components=32, random_state=0, n_resamples=99
        ),
    }


def _same(a, b):
    assert a.statistic_ == pytest.approx(b.statistic_, rel=REL)
    assert a.p_value_ == b.p_value_


@pytest.mark.parametrize("name", ["rff", "fastfood", "aggregated"])
def test_dask_arrays_of_any_chunking_equal_memory(name):
    X, Y = _data()
    ref = _tests()[name].fit(X, Y)
    for cx, cy in [(1000, 7000), (1234, (700, 3)), (9000, 333)]:
        test = _tests()[name].fit(
            da.from_array(X, chunks=cx), da.from_array(Y, chunks=cy)
        )
        _same(test, ref)
        assert test.n_features_in_ == 3


@pytest.mark.slow
def test_on_a_multiprocess_cluster(dask_client):
    X, Y = _data(1)
    ref = _tests()["rff"].fit(X, Y)
    dX, dY = da.from_array(X, chunks=2000), da.from_array(Y, chunks=1500)
    with distributed.get_task_stream(dask_client) as stream:
        test = _tests()["rff"].fit(dX, dY)
    _same(test, ref)
    # The unit sums were computed in the worker processes, not in this one.
    workers = {t["worker"] for t in stream.data if "_block_sums" in t["key"]}
    assert workers and workers <= set(dask_client.scheduler_info()["workers"])
    pids = dask_client.run(os.getpid)
    assert os.getpid() not in pids.values() and len(set(pids.values())) == 2
    aggregated = _tests()["aggregated"].fit(dX, dY)
    _same(aggregated, _tests()["aggregated"].fit(X, Y))


def test_unknown_chunk_sizes_are_handled():
    X, Y = _data(4, m=3000, n=2500)
    dX = da.from_array(X, chunks=1000)
    dX = dX[dX[:, 0] > -np.inf]  # a boolean mask: unknown chunk sizes
    assert np.isnan(dX.chunks[0][0])
    test = _tests()["rff"].fit(dX, da.from_array(Y, chunks=1000))
    _same(test, _tests()["rff"].fit(X, Y))


def test_bad_dask_input(monkeypatch):
    from skmmd._utils import _budgets

    X, Y = _data(5, m=5000, n=300)
    bad = X.copy()
    bad[4500, 0] = np.nan
    # The maps are fit on 50 rows (not the bad one): the NaN is met in the
    # reduction, in the block that holds it.
    monkeypatch.setattr(_budgets, "FIT_SUBSAMPLE_ROWS", 50)
    with pytest.raises(ValueError, match="rows 4096-4999 of X: .*NaN"):
        _tests()["rff"].fit(da.from_array(bad, chunks=4096), da.from_array(Y))
    with pytest.raises(ValueError, match="same number of features"):
        _tests()["rff"].fit(da.from_array(X), da.from_array(Y[:, :2]))
    with pytest.raises(TypeError, match="second sample Y as a dask array"):
        _tests()["rff"].fit(da.from_array(X), Y)
    with pytest.raises(TypeError, match="exact test"):
        MMDTest(None).fit(da.from_array(X), da.from_array(Y))


def test_dask_dataframes_pass_partitions_to_the_transformer():
    dd = pytest.importorskip("dask.dataframe", reason="dask[dataframe] is optional")
    pd = pytest.importorskip("pandas")
    X, Y = _data(6, m=5000, n=4500)
    fx = pd.DataFrame(X, columns=["a", "b", "c"])
    fy = pd.DataFrame(Y, columns=["a", "b", "c"])
    test = _tests()["rff"].fit(
        dd.from_pandas(fx, npartitions=3), dd.from_pandas(fy, npartitions=4)
    )
    _same(test, _tests()["rff"].fit(X, Y))
    assert list(test.feature_names_in_) == ["a", "b", "c"]
    with pytest.raises(ValueError, match=r"same columns .* differ in \['c', 'd'\]"):
        _tests()["rff"].fit(
            dd.from_pandas(fx, npartitions=2),
            dd.from_pandas(fy.rename(columns={"c": "d"}), npartitions=2),
        )


@pytest.mark.slow
def test_hsic_on_a_cluster_equals_in_memory(dask_client):
    """HSICTest on dask arrays (pairs reduced to unit sums on the workers)
    gives the in-memory statistic and p-value for the same seed."""
    from skmmd import HSICTest

    rng = np.random.default_rng(4)
    x = rng.normal(size=(10000, 2))
    y = np.sin(2 * x[:, 0]) + rng.normal(size=10000)

    def make():
        return HSICTest(
            RandomFourierSampler(bandwidth=1.0, n_components=32, random_state=0),
            RandomFourierSampler(bandwidth=1.0, n_components=32, random_state=1),
            n_resamples=99,
            random_state=0,
        )

    ref = make().fit(x, y)
    test = make().fit(da.from_array(x, chunks=3000), da.from_array(y, chunks=2500))
    assert test.resample_unit_ == ref.resample_unit_ == 4
    assert test.statistic_ == pytest.approx(ref.statistic_, rel=REL)
    np.testing.assert_allclose(
        test.null_distribution_, ref.null_distribution_, rtol=REL
    )
    assert test.p_value_ == ref.p_value_ == 0.01
    with pytest.raises(ValueError, match="paired row by row"):
        make().fit(da.from_array(x), da.from_array(y[:-1]))


@pytest.mark.slow
def test_aggregated_hsic_on_a_cluster_equals_memory_and_chunks(dask_client):
    """AggregatedHSICTest: every map's unit sums reduced on the workers give
    the in-memory statistics, null and p-value, and so do chunks given to
    partial_fit (fitted maps), for the same seed."""
    from skmmd import AggregatedHSICTest

    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, size=(10000, 1))
    y = np.sin(6 * x) + rng.normal(size=(10000, 1))

    def make(prefit=False):
        xs = [
            RandomFourierSampler(bandwidth=b, n_components=32, random_state=i)
            for i, b in enumerate((0.2, 1.0))
        ]
        ys = [RandomFourierSampler(bandwidth=1.0, n_components=32, random_state=5)]
        if prefit:
            xs, ys = [t.fit(x[:1]) for t in xs], [t.fit(y[:1]) for t in ys]
        return AggregatedHSICTest(xs, ys, n_resamples=99, random_state=0)

    ref = make().fit(x, y)
    lazy = make().fit(da.from_array(x, chunks=3000), da.from_array(y, chunks=2500))
    chunked = make(prefit=True)
    for a, b in zip(np.array_split(x, 5), np.array_split(y, 5)):
        chunked.partial_fit(a, b)
    for test in (lazy, chunked):
        assert test.resample_unit_ == ref.resample_unit_ == 4
        assert test.statistic_ == pytest.approx(ref.statistic_, rel=REL)
        np.testing.assert_allclose(test.statistics_, ref.statistics_, rtol=REL)
        np.testing.assert_allclose(
            test.null_distributions_, ref.null_distributions_, rtol=REL
        )
        assert test.p_value_ == ref.p_value_ == 0.01
    # The default grid is drawn from the same rows in memory and on Dask.
    auto = {"n_bandwidths": 2, "n_components": 16, "n_resamples": 19}
    ref = AggregatedHSICTest(random_state=0, **auto).fit(x, y)
    lazy = AggregatedHSICTest(random_state=0, **auto).fit(
        da.from_array(x, chunks=4000), da.from_array(y, chunks=4000)
    )
    np.testing.assert_allclose(lazy.x_bandwidths_, ref.x_bandwidths_)
    assert lazy.p_value_ == ref.p_value_


def test_column_report_on_a_cluster_equals_in_memory(dask_client):
    """explain_columns: the column maps' unit sums are reduced on the workers
    with the test's; the report equals the in-memory one."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(3000, 3)), rng.normal(size=(3000, 3)) + [0, 0.4, 0]
    test = MMDTest(
        RandomFourierSampler(n_components=64, random_state=0),
        explain_columns=True,
        n_resamples=99,
        random_state=0,
    )
    expected = test.fit(X, Y).column_report_
    lazy = test.fit(da.from_array(X, chunks=700), da.from_array(Y, chunks=900))
    pd.testing.assert_frame_equal(lazy.column_report_, expected, rtol=1e-9)
    assert expected.column[0] == "1" and expected.adjusted_p_value[0] <= 0.05


@pytest.mark.slow
def test_columnwise_report_on_a_cluster_equals_in_memory(dask_client):
    """The default map's report (every numeric column in one columnwise map,
    in the test's stream) from dask arrays equals the in-memory one; so does
    HSICTest.explain's."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(5000, 12)), rng.normal(size=(5000, 12))
    Y[:, 3] += 0.3
    test = MMDTest(explain_columns=True, n_resamples=99, random_state=0)
    expected = test.fit(X, Y).column_report_
    lazy = test.fit(da.from_array(X, chunks=1500), da.from_array(Y, chunks=1100))
    pd.testing.assert_frame_equal(lazy.column_report_, expected, rtol=1e-9)
    assert expected.column[0] == "3" and expected.adjusted_p_value[0] <= 0.05
    y = np.cos(2 * X[:, 5]) + 0.5 * rng.normal(size=5000)
    hsic = HSICTest(n_resamples=99, random_state=0).fit(X, y)
    expected = hsic.explain(X, y)
    lazy = hsic.explain(da.from_array(X, chunks=1500), da.from_array(y, chunks=1500))
    pd.testing.assert_frame_equal(lazy, expected, rtol=1e-9)
    assert expected.column[0] == "5" and expected.adjusted_p_value[0] <= 0.05


class _Killer:
    """A scheduler plugin (it runs in this process, beside LocalCluster's
    scheduler) that SIGKILLs worker processes as soon as a first block's unit
    sums are computed: in the middle of the reduction, the merges still to
    run. ``every``: every worker, their nannies told not to restart them."""

    name = "skmmd-killer"

    def __init__(self, cluster, pids, every=False):
        self.cluster, self.pids, self.every = cluster, pids, every
        self.killed, self.merged = [], 0

    def transition(self, key, start, finish, *args, **kwargs):
        name = str(key[0] if isinstance(key, tuple) else key)
        if finish == "memory" and name.startswith("_merge"):
            self.merged += 1
        if self.killed or finish != "memory" or not name.startswith("_block_sums"):
            return
        import signal

        from distributed.core import Status

        targets = list(self.pids) if self.every else [kwargs["worker"]]
        if self.every:  # a nanny closing gracefully does not restart its worker
            for nanny in self.cluster.workers.values():
                nanny.status = Status.closing_gracefully
        for worker in targets:
            os.kill(self.pids[worker], signal.SIGKILL)
        self.killed = targets
        self.merged_at_kill = self.merged


@pytest.mark.slow
def test_a_worker_killed_mid_reduction_and_every_worker_gone(monkeypatch):
    """On a 2-process LocalCluster, over data held by the workers: a worker
    killed mid-reduction changes neither the statistic nor the p-value (dask
    recomputes the lost pieces); every worker gone is a clear error, not a
    wait without end."""
    import threading

    from distributed.diagnostics.plugin import SchedulerPlugin

    from skmmd._inference import _dask

    class Killer(_Killer, SchedulerPlugin):
        pass

    monkeypatch.setattr(_dask, "NO_WORKERS_TIMEOUT", 2.0, raising=False)
    X, Y = _data(7, m=20000, n=20000)
    ref = _tests()["rff"].fit(X, Y)
    with local_cluster() as cluster, distributed.Client(cluster) as dask_client:
        dX, dY = dask_client.persist([da.from_array(X, chunks=4096),
                                 da.from_array(Y, chunks=4096)])  # fmt: skip
        distributed.wait([dX, dY])
        killer = Killer(cluster, dask_client.run(os.getpid))
        cluster.scheduler.add_plugin(killer)
        test = _tests()["rff"].fit(dX, dY)
        assert len(killer.killed) == 1 and killer.merged_at_kill == 0
        _same(test, ref)
        cluster.scheduler.remove_plugin(name=Killer.name)
        dask_client.wait_for_workers(2, timeout=60)
        everyone = Killer(cluster, dask_client.run(os.getpid), every=True)
        cluster.scheduler.add_plugin(everyone)
        outcome = []

        def fit():
            try:
                _tests()["rff"].fit(dX, dY)
            except Exception as error:  # noqa: BLE001 - checked below
                outcome.append(error)

        worker = threading.Thread(target=fit, daemon=True)
        worker.start()
        worker.join(timeout=60)
        assert not worker.is_alive(), "the test waited for workers without end"
        assert len(everyone.killed) == 2
        assert isinstance(outcome[0], RuntimeError)
        assert "no worker for 2 s in the middle of the test" in str(outcome[0])

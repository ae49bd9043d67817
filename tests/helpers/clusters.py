"""A real multi-process Dask cluster."""


def local_cluster():
    """Two worker processes of one thread and one numba thread each: the
    workers' threads and numba's would otherwise oversubscribe the cores."""
    import distributed

    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        env={"NUMBA_NUM_THREADS": "1"},
    )

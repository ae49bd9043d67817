"""The process-wide BLAS thread limit, changed in one place.

The calibration loop's batches, the conditional pipeline and kernel learning
run their small products on one BLAS thread, where thread starts and waits
cost more than the products; the fused projection of the Fourier maps limits
BLAS inside its own parallel tasks. All of them go through this module, so
that nested and concurrent sections never leave BLAS limited.
"""

import contextlib
import functools
import sys
import threading

from threadpoolctl import ThreadpoolController  # a scikit-learn dependency

# Serializes every change of the BLAS limit (one_blas_thread and the fused
# projection of kernel_approximation._trig): concurrent limit/restore pairs
# from several Python threads could leave BLAS limited to one thread.
BLAS_LIMIT_LOCK = threading.Lock()


@functools.cache
def blas_controller():
    import scipy.linalg.cython_blas  # noqa: F401  (numba's np.dot calls it)

    return ThreadpoolController()


# The sections that run on one BLAS thread now (one_blas_thread), and the limit
# the first of them set.
_ONE_THREAD = {"sections": 0, "limit": None}


@contextlib.contextmanager
def one_blas_thread():
    """BLAS on one thread inside the section, restored when the last open
    section (from any Python thread) closes: nested and concurrent sections
    cannot leave BLAS limited, as paired limit/restore calls from several
    threads could."""
    with BLAS_LIMIT_LOCK:
        if _ONE_THREAD["sections"] == 0:
            _ONE_THREAD["limit"] = blas_controller().limit(limits=1, user_api="blas")
        _ONE_THREAD["sections"] += 1
    try:
        yield
    finally:
        with BLAS_LIMIT_LOCK:
            _ONE_THREAD["sections"] -= 1
            if _ONE_THREAD["sections"] == 0:
                _ONE_THREAD["limit"].restore_original_limits()


def concurrently(*calls, threads=True):
    """The results of ``calls`` (functions of no argument), in their order:
    run side by side on threads (if ``threads``) where numba runs on several
    threads and its threading layer is thread safe, one after the other on
    the caller's thread otherwise (the same
    results either way: each call draws from its own seed), with the
    caller's scikit-learn configuration. The first call's error is raised
    first, as it would be in order."""
    if not threads or len(calls) < 2 or not _side_by_side():
        return [call() for call in calls]
    return in_threads(calls, len(calls))


def in_threads(calls, workers=None):
    """The results of ``calls`` (functions of no argument), in their order,
    run on up to ``workers`` threads (None: the machine's cores), with the
    caller's scikit-learn configuration: for NumPy and LAPACK work that
    releases the GIL, each call on one BLAS thread (inside
    :func:`one_blas_thread`), so that the cores share the calls. The first
    call's error is raised first, as it would be in order."""
    import joblib
    from sklearn import config_context, get_config

    workers = min(len(calls), joblib.cpu_count() if workers is None else workers)
    if workers < 2:
        return [call() for call in calls]
    from concurrent.futures import ThreadPoolExecutor

    config = get_config()  # thread-local: array API dispatch, validation

    def configured(call):
        with config_context(**config):
            return call()

    with ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(configured, call) for call in calls]
        return [future.result() for future in futures]


def _side_by_side():
    # Not imported yet: no compiled loop has run, and none need run side by
    # side; numba is not imported only to be asked.
    numba = sys.modules.get("numba")
    if numba is None or numba.get_num_threads() < 2:
        return False
    try:
        return numba.threading_layer() in ("omp", "tbb")
    except ValueError:  # no parallel kernel has run yet: the layer to come
        return numba.config.THREADING_LAYER in ("omp", "tbb")

"""The process-wide BLAS limit (skmmd/_utils/_threads.py): sections opened
and closed from several Python threads, nested or overlapping, restore it."""

from skmmd._utils import _threads


def _blas_threads():
    return [
        info["num_threads"]
        for info in _threads.blas_controller().info()
        if info["user_api"] == "blas"
    ]


def test_one_blas_thread_restores_after_overlapping_sections():
    import threading

    before = _blas_threads()
    entered, release = threading.Barrier(2), threading.Event()

    def section():
        with _threads.one_blas_thread():
            entered.wait()
            release.wait()

    # Two sections from two threads, closed in the order they opened: a
    # paired limit/restore would restore the second's saved limit (1) last.
    other = threading.Thread(target=section)
    other.start()
    with _threads.one_blas_thread():
        entered.wait()
        assert set(_blas_threads()) == {1}
        release.set()
        other.join()
        assert set(_blas_threads()) == {1}  # this section is still open
        with _threads.one_blas_thread():  # nested
            pass
        assert set(_blas_threads()) == {1}
    assert _blas_threads() == before

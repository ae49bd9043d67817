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


def test_concurrently_gives_the_results_in_order_with_the_caller_s_config(
    monkeypatch,
):
    """Side by side or in turn, the same results in the calls' order, the
    caller's scikit-learn configuration inside each call, and the first
    call's error first."""
    import threading

    import pytest
    import sklearn

    seen = []

    def call(k):
        def run():
            seen.append(threading.get_ident())
            return k, sklearn.get_config()["assume_finite"]

        return run

    for side_by_side in (True, False):
        monkeypatch.setattr(_threads, "_side_by_side", lambda: side_by_side)
        with sklearn.config_context(assume_finite=True):
            results = _threads.concurrently(call(1), call(2))
        assert results == [(1, True), (2, True)]

        def fails(message):
            def run():
                raise ValueError(message)

            return run

        with pytest.raises(ValueError, match="first"):
            _threads.concurrently(fails("first"), fails("second"))
    assert len(set(seen)) >= 2  # the side-by-side calls ran on other threads
    seen.clear()
    monkeypatch.setattr(_threads, "_side_by_side", lambda: True)
    assert _threads.concurrently(call(1), call(2), threads=False)[1][0] == 2
    assert seen == [threading.get_ident()] * 2  # in turn, on the caller's thread

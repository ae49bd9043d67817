"""Compiling one loop twice: serially and with ``prange`` in parallel.

Small inputs run the serial copy (waking the thread pool costs more than it
saves); large ones the parallel copy. numba's on-disk cache keys an entry by
the function's qualified name and signature, not by ``parallel``, so two
dispatchers of the same Python function share their cache entries: a process
that loaded the serial compilation for the parallel dispatcher would run
single-threaded. The parallel copy is therefore a distinct function object
with its own qualified name, hence its own cache file.
"""

import types

from numba import njit


def renamed(func, suffix, **names):
    """A copy of ``func`` under the qualified name ``func.__qualname__ +
    suffix`` (so numba caches it separately), its globals ``names`` rebound:
    one loop compiled around different inner kernels."""
    env = dict(func.__globals__, **names) if names else func.__globals__
    twin = types.FunctionType(
        func.__code__, env, func.__name__, func.__defaults__, func.__closure__
    )
    twin.__qualname__ = func.__qualname__ + suffix
    twin.__module__ = func.__module__
    twin.__doc__ = func.__doc__
    return twin


def serial_and_parallel(func, **options):
    """``(serial, parallel)`` numba dispatchers of ``func``, cached on disk
    under different names; ``options`` go to :func:`numba.njit` for both."""
    return (
        njit(cache=True, **options)(func),
        njit(parallel=True, cache=True, **options)(renamed(func, "_parallel")),
    )

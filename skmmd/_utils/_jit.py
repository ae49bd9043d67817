"""Compiled loops: numba imported and each loop compiled when first called,
and a loop compiled twice, serially and with ``prange`` in parallel.

:func:`njit` is :func:`numba.njit` deferred: it returns a :class:`Compiled`
that makes numba's dispatcher on its first call. ``import skmmd`` thus never
imports numba (tens of megabytes and a fraction of a second), and a test
that reaches no compiled loop (a table's, a small input's) never loads it.
Compiled loops call each other and read ``prange`` (or another numba name
given by :func:`later`) as globals: before a loop compiles, those of its
module are bound to numba's dispatchers and objects.

Small inputs run the serial copy (waking the thread pool costs more than it
saves); large ones the parallel copy. numba's on-disk cache keys an entry by
the function's qualified name and signature, not by ``parallel``, so two
dispatchers of the same Python function share their cache entries: a process
that loaded the serial compilation for the parallel dispatcher would run
single-threaded. The parallel copy is therefore a distinct function object
with its own qualified name, hence its own cache file.
"""

import functools
import threading
import types

# One compilation at a time: a loop binds its callees (compiling them) first.
_COMPILING = threading.RLock()


class later:
    """A numba name (``later("prange")``) in a compiled loop's module, bound
    to numba's object when a loop of the module compiles; called from Python
    before that, it imports numba and calls the object."""

    def __init__(self, name):
        self.name = name

    def resolve(self):
        import numba

        return getattr(numba, self.name)

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __repr__(self):
        return f"later({self.name!r})"


prange = later("prange")


class Compiled:
    """A loop compiled by :func:`numba.njit` with ``options`` when first
    called (or when an attribute of numba's dispatcher is read)."""

    def __init__(self, func, options):
        self.py_func, self.options = func, options
        self._dispatcher = None
        functools.update_wrapper(self, func)

    def dispatcher(self):
        """numba's dispatcher of the loop, made (and its globals bound) once."""
        if self._dispatcher is None:
            with _COMPILING:
                if self._dispatcher is None:
                    import numba

                    _bind_globals(self.py_func)
                    self._dispatcher = numba.njit(**self.options)(self.py_func)
        return self._dispatcher

    def __call__(self, *args, **kwargs):
        return self.dispatcher()(*args, **kwargs)

    def __getattr__(self, name):  # signatures, stats, ...: numba's
        if name.startswith("__") or name in ("_dispatcher", "py_func", "options"):
            raise AttributeError(name)
        return getattr(self.dispatcher(), name)


def _bind_globals(func):
    """Bind the globals ``func`` reads that stand for compiled loops or numba
    names to numba's dispatchers and objects (in ``func``'s own globals: its
    module's, or a :func:`renamed` copy's)."""
    env = func.__globals__
    for name in _global_names(func.__code__):
        value = env.get(name)
        if isinstance(value, Compiled):
            env[name] = value.dispatcher()
        elif isinstance(value, later):
            env[name] = value.resolve()


def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def njit(func=None, **options):
    """:func:`numba.njit` deferred: ``@njit``, ``@njit(cache=True, ...)`` or
    ``njit(**options)(func)``, a :class:`Compiled`."""
    if func is not None:
        return Compiled(func, options)
    return lambda func: Compiled(func, options)


def num_threads():
    """numba's thread count (importing numba): the threads a parallel loop
    runs on."""
    import numba

    return numba.get_num_threads()


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
    """``(serial, parallel)`` compiled loops of ``func``, cached on disk
    under different names; ``options`` go to :func:`numba.njit` for both."""
    return (
        njit(cache=True, **options)(func),
        njit(parallel=True, cache=True, **options)(renamed(func, "_parallel")),
    )

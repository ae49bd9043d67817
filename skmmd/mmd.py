"""Former name of :mod:`skmmd.statistics`, kept for the code that imports
from it: each public name is :mod:`skmmd.statistics`'s own, given with a
``FutureWarning``. ``skmmd.mmd`` will be removed in skmmd 0.3.
"""

import warnings

from . import statistics

_MOVED = frozenset(statistics.__all__)


def __getattr__(name):
    if name in _MOVED:
        warnings.warn(
            f"skmmd.mmd.{name} is now skmmd.statistics.{name}; skmmd.mmd will "
            "be removed in skmmd 0.3.",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(statistics, name)
    raise AttributeError(f"module 'skmmd.mmd' has no attribute {name!r}")


def __dir__():
    return sorted(_MOVED)

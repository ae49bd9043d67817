"""Former name of :mod:`skmmd.statistics`, kept for the code that imports
from it: each public name is :mod:`skmmd.statistics`'s own, given with a
``FutureWarning``. ``skmmd.mmd`` will be removed in skmmd 0.3.
"""

from . import statistics
from ._utils._deprecation import moved_names

__getattr__, __dir__ = moved_names("skmmd.mmd", "skmmd.statistics", statistics.__all__)

"""Reading what a display drew."""

import numpy as np


def vertical_at(line, x):
    """Whether the matplotlib ``line`` is a vertical line at ``x``."""
    xdata = np.asarray(line.get_xdata(), dtype=float)
    return xdata.size == 2 and np.all(xdata == x)

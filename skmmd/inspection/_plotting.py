"""What the displays share: matplotlib imported on first use, with an error
that names the extra to install, and the axes a display draws into."""

import numpy as np


def pyplot(caller):
    """``matplotlib.pyplot``, or an ImportError naming ``caller`` and the extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            f"{caller} needs matplotlib, which is not installed: install it with "
            'pip install "skmmd[plot]" (or pip install matplotlib).'
        ) from exc
    return plt


def axes(ax, n_panels, caller):
    """``(axes, figure)``: ``n_panels`` axes in a row, new or the given ones
    (one Axes, or a sequence of ``n_panels`` of them)."""
    plt = pyplot(caller)
    if ax is None:
        figure, ax = plt.subplots(
            1, n_panels, figsize=(4.5 * n_panels, 3.5), squeeze=False
        )
        return ax.ravel(), figure
    panels = np.ravel(np.asarray(ax, dtype=object))
    if panels.size != n_panels:
        raise ValueError(
            f"{caller} draws {n_panels} panel(s); ax holds {panels.size} Axes."
        )
    return panels, panels[0].figure

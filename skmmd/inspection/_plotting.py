"""What the displays share: matplotlib imported on first use, with an error
that names the extra to install, the axes a display draws into (a grid laid
out to keep every label inside the figure) and labels shortened to fit."""

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


def grid_shape(n_panels):
    """``(rows, columns)`` of a new figure's panels: one row for one or two,
    else a near-square grid, so that a figure stays between 1:3 and 3:1
    whatever the number of panels."""
    if n_panels <= 2:
        return 1, n_panels
    columns = int(np.ceil(np.sqrt(n_panels)))
    return int(np.ceil(n_panels / columns)), columns


def shorten(text, width=32):
    """``text`` of at most ``width`` characters, its middle elided (the ends
    tell long column names apart)."""
    text = str(text)
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + "\u2026" + text[len(text) - (width - 1 - head) :]


def axes(ax, n_panels, caller, panel_size=None):
    """``(axes, figure)``: ``n_panels`` axes, new (a grid of them, in a
    figure laid out so that no label falls outside it) or the given ones
    (one Axes, or a sequence of ``n_panels`` of them). ``panel_size``:
    ``(width, height)`` in inches of each new panel."""
    plt = pyplot(caller)
    if ax is None:
        rows, columns = grid_shape(n_panels)
        width, height = panel_size or ((4.5, 3.5) if n_panels <= 4 else (3.2, 2.6))
        figure, ax = plt.subplots(
            rows,
            columns,
            figsize=(width * columns, height * rows),
            squeeze=False,
            layout="constrained",
        )
        for extra in ax.ravel()[n_panels:]:
            extra.set_visible(False)
        return ax.ravel()[:n_panels], figure
    panels = np.ravel(np.asarray(ax, dtype=object))
    if panels.size != n_panels:
        raise ValueError(
            f"{caller} draws {n_panels} panel(s); ax holds {panels.size} Axes."
        )
    return panels, panels[0].figure

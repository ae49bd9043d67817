"""Small bar charts as inline SVG text: figures for a self-contained HTML page
that need no plotting library, no script and no network."""

from html import escape

import numpy as np

_FONT = 'font-family="sans-serif" font-size="10"'


def bar_chart(
    series,
    labels,
    *,
    edges=None,
    lines=(),
    title="",
    value_format="{:.0%}",
    width=380,
    height=170,
):
    """An ``<svg>`` element of grouped bars, one group per slot.

    Parameters
    ----------
    series : list of (name, color, values)
        One bar per slot and series; ``values`` of one length ``n``.
    labels : list of str
        The ``n`` slots' labels (written where they do not overlap).
    edges : array-like of shape (n + 1,), default=None
        Data coordinates of the slots' edges (a histogram), for ``lines``.
    lines : list of (x, color, name)
        Vertical lines at ``x`` (data coordinates of ``edges``).
    title : str, default=""
        Written above the bars, with the legend.
    value_format : str, default="{:.0%}"
        Format of the largest value, written on the vertical axis.
    width, height : int
        Size in pixels.

    Returns
    -------
    svg : str
    """
    left, right, top, bottom = 44, 8, 30, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(labels)
    values = np.array([np.asarray(v, dtype=float) for _, _, v in series]).reshape(
        len(series), n
    )
    peak = float(np.nanmax(values)) if values.size else 0.0
    scale = plot_h / peak if peak > 0 else 0.0
    slot = plot_w / max(n, 1)
    bar = slot * 0.9 / max(len(series), 1)
    parts = [
        f'<svg width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}">',
        f'<text x="{left}" y="12" {_FONT} font-weight="bold">{escape(title)}</text>',
    ]
    legend_x = left
    for name, color, _ in series:
        parts.append(
            f'<rect x="{legend_x}" y="17" width="8" height="8" fill="{color}"/>'
            f'<text x="{legend_x + 11}" y="25" {_FONT}>{escape(name)}</text>'
        )
        legend_x += 14 + 6 * len(name)
    for s, (name, color, _) in enumerate(series):
        for i, value in enumerate(values[s]):
            h = 0.0 if not np.isfinite(value) else value * scale
            x = left + i * slot + slot * 0.05 + s * bar
            parts.append(
                f'<rect x="{x:.2f}" y="{top + plot_h - h:.2f}" width="{bar:.2f}" '
                f'height="{h:.2f}" fill="{color}"><title>{escape(name)} '
                f"{escape(labels[i])}: {value:.4g}</title></rect>"
            )
    for x, color, name in lines:
        if edges is None or not np.isfinite(x):
            continue
        lo, hi = edges[0], edges[-1]
        position = left + plot_w * (min(max(x, lo), hi) - lo) / ((hi - lo) or 1.0)
        parts.append(
            f'<line x1="{position:.2f}" x2="{position:.2f}" y1="{top - 2}" '
            f'y2="{top + plot_h}" stroke="{color}" stroke-width="2">'
            f"<title>{escape(name)}: {x:.4g}</title></line>"
            f'<text x="{min(position + 3, width - 60):.2f}" y="{top + 9}" '
            f'{_FONT} fill="{color}">{escape(name)}</text>'
        )
    # Axes: the baseline, the largest value, and the slot labels that fit.
    parts.append(
        f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" '
        f'y2="{top + plot_h}" stroke="#444"/>'
        f'<text x="{left - 4}" y="{top + 8}" {_FONT} text-anchor="end">'
        f"{escape(value_format.format(peak))}</text>"
    )
    texts = [t if len(t) <= 10 else t[:9] + "\u2026" for t in labels]
    widest = 6 * max(map(len, texts), default=1) + 4  # pixels of a label
    step = max(1, int(np.ceil(n * widest / plot_w)))
    for i in range(0, n, step):
        text = texts[i]
        parts.append(
            f'<text x="{left + (i + 0.5) * slot:.2f}" y="{top + plot_h + 12}" '
            f'{_FONT} text-anchor="middle">{escape(text)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)

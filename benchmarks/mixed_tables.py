"""The mixed drift table of issue 65 and the loop of scipy tests it is
measured against.

``make(n, seed, moved=True, width=500)`` returns two DataFrames (reference,
current) of ``n`` rows each and ``width`` columns (a multiple of 50; the
shares below scaled):

- 400 numeric columns of four kinds, 100 each: normal (``norm_*``),
  Student-t with 3 degrees of freedom (``t3_*``), Poisson(3) counts
  (``count_*``) and log-normal (``lognorm_*``);
- 80 text columns (``text_*``) of 5 levels with unequal shares (0.35,
  0.20, 0.20, 0.15, 0.10);
- 20 normal columns with 1 % of their values missing (``gappy_*``).

With ``moved``, five columns of the current sample change (``MOVED``): a
shift of 0.15 sd (``norm_0``), a scale x 1.3 (``norm_1``), a bimodal law
with the same mean and variance (``norm_2``: 0.5 N(-0.8, 0.6^2) + 0.5
N(0.8, 0.6^2)), one level's share 20 % -> 26 % (``text_0``, level "b",
taken from level "a"), and a missing rate 1 % -> 5 % (``gappy_0``).

``scipy_loop(X, Y)`` is the baseline a drift user writes: ``ks_2samp`` on
each numeric column's present values, a chi-square test of each text
column's level counts and of each gappy column's missing rate, all with
Bonferroni; it returns the columns flagged at ``alpha``.
"""

import numpy as np
import pandas as pd
from scipy import stats

MOVED = ("norm_0", "norm_1", "norm_2", "text_0", "gappy_0")
LEVELS = np.array(["a", "b", "c", "d", "e"])
SHARES = np.array([0.35, 0.20, 0.20, 0.15, 0.10])


def _sample(rng, n, moved, width):
    columns, kind = {}, width // 5
    for i in range(kind):
        columns[f"norm_{i}"] = rng.normal(size=n)
    for i in range(kind):
        columns[f"t3_{i}"] = rng.standard_t(3, size=n)
    for i in range(kind):
        columns[f"count_{i}"] = rng.poisson(3.0, size=n).astype(np.float64)
    for i in range(kind):
        columns[f"lognorm_{i}"] = rng.lognormal(0.0, 0.5, size=n)
    for i in range(width * 4 // 25):
        shares = SHARES
        if moved and i == 0:
            shares = SHARES + np.array([-0.06, 0.06, 0.0, 0.0, 0.0])
        columns[f"text_{i}"] = LEVELS[rng.choice(5, size=n, p=shares)]
    for i in range(width // 25):
        values = rng.normal(size=n)
        rate = 0.05 if moved and i == 0 else 0.01
        values[rng.random(n) < rate] = np.nan
        columns[f"gappy_{i}"] = values
    if moved:
        columns["norm_0"] = columns["norm_0"] + 0.15
        columns["norm_1"] = columns["norm_1"] * 1.3
        sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        columns["norm_2"] = sign * 0.8 + 0.6 * rng.normal(size=n)
    return pd.DataFrame(columns)


def make(n=5000, seed=0, moved=True, width=500):
    """``(reference, current)``: two samples of the table, ``n`` rows each;
    the current one with the five changes of ``MOVED`` when ``moved``."""
    if width % 50 or width < 50:
        raise ValueError(f"width must be a multiple of 50; got {width}.")
    rng = np.random.default_rng(seed)
    return _sample(rng, n, False, width), _sample(rng, n, moved, width)


def scipy_loop(X, Y, alpha=0.05):
    """The columns flagged by the scipy loop (Bonferroni over its tests)."""
    p_values = {}
    for name in X.columns:
        x, y = X[name].to_numpy(), Y[name].to_numpy()
        if x.dtype.kind in "fiu":
            gaps = np.isnan(x), np.isnan(y)
            p_values[name] = stats.ks_2samp(x[~gaps[0]], y[~gaps[1]]).pvalue
            if gaps[0].any() or gaps[1].any():
                table = [[g.sum(), g.size - g.sum()] for g in gaps]
                p_values[f"{name} (missing)"] = stats.chi2_contingency(table)[1]
        else:
            levels, codes = np.unique(np.concatenate([x, y]), return_inverse=True)
            counts = np.stack(
                [
                    np.bincount(codes[: x.size], minlength=levels.size),
                    np.bincount(codes[x.size :], minlength=levels.size),
                ]
            )
            p_values[name] = stats.chi2_contingency(counts)[1]
    bound = alpha / len(p_values)
    return sorted({k.split(" ")[0] for k, p in p_values.items() if p <= bound})

"""The default feature maps of the conditional test: of x and of y, of z
(the regressors) and of the weights ``g(z)``; shared by
:class:`~skmmd.ConditionalHSICTest` and the causal-learn adapter."""

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state

from .._utils._tables import is_dataframe
from ..kernel_approximation import NystroemSampler, RandomFourierSampler, TabularSampler
from ..kernels import median_bandwidth

# Features of x and of y of the default map (cos/sin pairs at the median
# bandwidth), and weights g(z) of the default weight map (the same, of Z
# standardized): the products have Dx * Dg * Dy = 216 entries per row.
_XY_FEATURES = 6
_Z_WEIGHTS = 6

# Rows the default z map is fit on, at most (a seeded subsample): its means,
# scales and medians; fitting a ColumnTransformer also transforms its rows.
_Z_FIT_ROWS = 10_000


def z_scales(n_rows):
    """Multiples of the median bandwidth of each column of (standardized) z,
    and of all columns jointly, for the default z map: smaller ones as ``n``
    grows, as for any kernel regression (benchmarks/conditional_level_probe.py:
    at ``n = 10^5`` the small-n scales left type-I error 0.72 on a
    heteroscedastic 2-D null, these 0.04)."""
    if n_rows <= 2000:
        return (0.2, 0.5, 1.0), (0.25, 0.5, 1.0)
    return (0.1, 0.2, 0.5, 1.0), (0.15, 0.25, 0.5, 1.0)


def _default_map(V, n_features, random_state):
    if is_dataframe(V):
        return TabularSampler(n_components=n_features, random_state=random_state).fit(V)
    return RandomFourierSampler(n_components=n_features, random_state=random_state).fit(
        V
    )


def _default_weight_map(V, n_features, random_state):
    """The default weights of Z: random Fourier features of Z standardized,
    at its median bandwidth (a TabularSampler for tables with text)."""
    if is_dataframe(V):
        return TabularSampler(n_components=n_features, random_state=random_state).fit(V)
    sampler = RandomFourierSampler(n_components=n_features, random_state=random_state)
    return make_pipeline(StandardScaler(), sampler).fit(V)


def _default_z_map(V, n_features, random_state):
    """The default map of Z (a table with text columns: one TabularSampler).

    Z standardized, then ``n_features`` Nystroem features of Gaussian kernels
    (landmarks drawn from the rows of Z: they cover where Z lies, which random
    Fourier features of several columns at small bandwidths do not; at n = 1000
    they halved the regression error of a function of the sum of three
    columns). One column: at its median bandwidth times each of
    :func:`z_scales`' first. Several: half of them on all columns jointly
    (their median bandwidth times the second), half on each column alone (its
    own median times the first: an additive part, for when few columns
    matter). The ridge weighs every block by cross-validation.
    """
    if is_dataframe(V):
        return TabularSampler(n_components=n_features, random_state=random_state).fit(V)
    rng = check_random_state(random_state)
    n_rows = V.shape[0]
    if n_rows > _Z_FIT_ROWS:  # what the map learns needs no more rows
        V = V[np.sort(rng.choice(V.shape[0], _Z_FIT_ROWS, replace=False))]
    scaler = StandardScaler().fit(V)
    Zs = scaler.transform(V)

    def scaled(name, width, columns, scales):
        bandwidth = median_bandwidth(Zs[:, columns], random_state=rng)
        landmarks = max(2, min(width // len(scales), len(Zs)))
        return [
            (
                f"{name}_{scale:g}",
                NystroemSampler(
                    n_components=landmarks,
                    bandwidth=scale * bandwidth,
                    random_state=rng.randint(np.iinfo(np.int32).max),
                ),
                columns,
            )
            for scale in scales
        ]

    columns, joint = z_scales(n_rows)
    d = Zs.shape[1]
    if d == 1:
        blocks = scaled("z0", n_features, [0], columns)
    else:
        blocks = scaled("all", n_features // 2, list(range(d)), joint)
        for j in range(d):
            blocks += scaled(f"z{j}", n_features // 2 // d, [j], columns)
    return make_pipeline(scaler, ColumnTransformer(blocks)).fit(V)

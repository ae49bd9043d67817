"""The conditional statistic's row features (skmmd/statistics/_conditional.py):
residual products, weighted and not."""

import numpy as np

from skmmd.statistics._conditional import residual_products


def test_residual_products_are_row_wise_outer_products(rng):
    R, S = rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
    P = residual_products(R, S)
    assert P.shape == (7, 6)
    for i in range(7):
        np.testing.assert_allclose(P[i], np.outer(R[i], S[i]).ravel())


def test_weighted_products_are_the_products_of_x_z_features(rng):
    R, S, G = rng.normal(size=(7, 3)), rng.normal(size=(7, 2)), rng.normal(size=(7, 4))
    P = residual_products(R, S, G)
    assert P.shape == (7, 24)
    for i in range(7):
        np.testing.assert_allclose(P[i], np.outer(np.outer(R[i], G[i]), S[i]).ravel())

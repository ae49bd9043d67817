"""HSIC of many columns at once (skmmd/statistics/_hsic.py, ``ColumnHSICParts``)
against each column's own Gram statistics and effect sizes."""

import numpy as np

from skmmd.statistics._hsic import ColumnHSICParts, HSICParts, feature_gram


def test_column_hsic_parts_equal_the_gram_statistics(rng):
    G, w = 80, 5
    a = rng.normal(size=(G, 4 * w))
    b = rng.normal(size=(G, 9))
    b[:, 0] += a[:, 0]
    pairings = np.array([rng.permutation(G) for _ in range(7)])
    for unbiased in (False, True):
        stat, _ = ColumnHSICParts(a, 4, b, unbiased).statistics(pairings)
        for j in range(4):
            grams = feature_gram(a[:, j * w : (j + 1) * w]), feature_gram(b)
            expected, _ = HSICParts(*grams, unbiased).statistics(pairings)
            np.testing.assert_allclose(stat[:, j], expected, rtol=1e-10)


def test_column_hsic_effect_sizes_equal_each_columns_jackknife(rng):
    """Every column's unbiased HSIC and standard error (jackknife plus the
    spread over y's feature draw) from the features, against the Grams'."""
    from skmmd import RandomFourierSampler
    from skmmd.independence._observations import effect_sizes

    G, w = 60, 5
    a = rng.normal(size=(G, 3 * w))
    y = a[:, :1] + rng.normal(size=(G, 1))
    y_map = RandomFourierSampler(n_components=16, random_state=0).fit(y)
    b = y_map.transform(y)
    parts = ColumnHSICParts(a, 3, b, True)
    hsic, se = parts.effect_sizes(b, y_map.column_draws())
    for j in range(3):
        aj = a[:, j * w : (j + 1) * w]
        one = HSICParts(feature_gram(aj), feature_gram(b), True)
        expected = effect_sizes(one, [aj], [b], [None], [y_map])
        np.testing.assert_allclose((hsic[j], se[j]), expected, rtol=1e-9)

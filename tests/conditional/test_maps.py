"""The maps of a conditional test (skmmd/conditional/_maps.py):
the fixed-frequency map of one column, the screen that leaves out the columns
of Z independent of everything, the size of Z's default map, and the
features a map computes while it is fit."""

import numpy as np
import pytest

from skmmd import ConditionalHSICTest, RandomFourierSampler
from skmmd._utils import _budgets
from skmmd.conditional._maps import (
    SpectralQuantileMap,
    _default_map,
    n_z_features,
    weight_map,
    z_map,
)
from skmmd.kernels import gaussian_kernel


def _test(**params):
    return ConditionalHSICTest(n_resamples=199, random_state=0, **params)


def test_spectral_quantile_map_approaches_the_gaussian_kernel():
    x = np.random.default_rng(0).normal(size=(300, 1))
    exact = gaussian_kernel(x, bandwidth=SpectralQuantileMap().fit(x).bandwidth_)
    errors = []
    for n_components in (6, 40, 400):
        F = SpectralQuantileMap(n_components=n_components).fit_transform(x)
        assert F.shape == (300, n_components)
        errors.append(np.abs(F @ F.T - exact).max())
    # A quadrature: its error falls with the frequencies, to far below that of
    # 400 random ones (about 0.1).
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.01


def test_default_map_of_one_column_is_a_function_of_the_data():
    x = np.random.default_rng(1).normal(size=(2000, 1))
    maps = [_default_map(x, 6, seed) for seed in (0, 1, 2)]
    assert all(isinstance(m, SpectralQuantileMap) for m in maps)
    for m in maps[1:]:
        np.testing.assert_array_equal(m.transform(x), maps[0].transform(x))
    # Several columns: random Fourier features, drawn from the seed.
    X = np.random.default_rng(2).normal(size=(100, 2))
    assert isinstance(_default_map(X, 6, 0), RandomFourierSampler)


def test_u_shaped_dependence_found_whatever_the_seed():
    # Three random frequencies can all be low: the features of both columns
    # nearly linear, a U-shaped link nearly invisible. The fixed frequencies
    # see it under every seed.
    rng = np.random.default_rng(3)
    x = rng.normal(size=500)
    y = x**2 + rng.normal(size=500)
    for seed in range(5):
        test = ConditionalHSICTest(n_resamples=99, random_state=seed).fit(x, y)
        assert test.p_value_ == 0.01
    with pytest.raises(ValueError, match="n_components"):
        SpectralQuantileMap(n_components=1).fit(x[:, None])


def _interaction_and_noise_columns(n, rng):
    """z0 and z1 drive x and y through an interaction; z2..z4 are independent
    of everything."""
    z = rng.normal(size=(n, 5))
    x = np.sin(2 * z[:, 0]) * z[:, 1] + 0.3 * rng.normal(size=n)
    y = np.cos(2 * z[:, 0]) + z[:, 1] ** 2 / 2 + 0.3 * rng.normal(size=n)
    return x, y, z


def test_screen_leaves_out_the_columns_independent_of_everything():
    x, y, z = _interaction_and_noise_columns(1000, np.random.default_rng(12))
    test = _test().fit(x, y, Z=z)
    assert test.z_columns_.tolist() == [0, 1]
    assert test.z_transformer_.n_features_in_ == 2
    full = _test(z_screen=False).fit(x, y, Z=z)
    assert full.z_columns_.tolist() == [0, 1, 2, 3, 4]
    assert full.z_transformer_.n_features_in_ == 5
    # Kept: columns acting only jointly (x and y depend on sign(z0 z1): no
    # trace in either column alone), seen by the features of the rest jointly.
    rng = np.random.default_rng(13)
    z = rng.normal(size=(1000, 3))
    s = np.sign(z[:, 0] * z[:, 1])
    x, y = (s + 0.5 * rng.normal(size=1000) for _ in range(2))
    assert _test().fit(x, y, Z=z).z_columns_.tolist() == [0, 1]


def test_screen_takes_a_table_with_text_for_x():
    pd = pytest.importorskip("pandas", reason="pandas is not installed")
    x, y, z = _interaction_and_noise_columns(600, np.random.default_rng(16))
    # x as a table with a text column: its TabularSampler features are screened.
    X = pd.DataFrame({"x": x, "sign": np.where(x > 0, "up", "down")})
    kept = _test().fit(X, y, Z=z).z_columns_.tolist()
    assert kept[:2] == [0, 1] and len(kept) < 5


def test_screen_keeping_every_column_changes_nothing():
    rng = np.random.default_rng(14)
    z = rng.normal(size=(400, 2))
    x = np.sin(2 * z[:, 0]) + z[:, 1] + 0.3 * rng.normal(size=400)
    y = np.cos(2 * z[:, 0]) + z[:, 1] ** 2 + 0.3 * rng.normal(size=400)
    test = _test().fit(x, y, Z=z)
    assert test.z_columns_.tolist() == [0, 1]
    assert test.p_value_ == _test(z_screen=False).fit(x, y, Z=z).p_value_


def test_z_feature_rule():
    sizes = [n_z_features(n) for n in (10, 1000, 10**4, 10**5, 10**7)]
    assert sizes == sorted(sizes) and sizes[0] == 48 and sizes[-1] == 600
    assert all(d % 6 == 0 for d in sizes)


@pytest.mark.parametrize("d", [1, 3])
def test_features_computed_while_fitting_are_those_of_transform(d, monkeypatch):
    # A causal search takes the features of a conditioning set from the fit
    # of its maps: they must be the maps' own, bit for bit.
    Z = np.random.default_rng(d).normal(size=(300, d))
    fitted, F = z_map(Z, "auto", len(Z), 7, features=True)
    np.testing.assert_array_equal(F, fitted.transform(Z))
    np.testing.assert_array_equal(F, z_map(Z, "auto", len(Z), 7).transform(Z))
    weights, G = weight_map(Z, 8, features=True)
    np.testing.assert_array_equal(G, weights.transform(Z))
    # A map fit on a subsample of the rows has no features of them all.
    monkeypatch.setattr(_budgets, "Z_FIT_ROWS", 100)
    assert z_map(Z, "auto", len(Z), 7, features=True)[1] is None

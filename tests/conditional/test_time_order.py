"""The conditional test on rows in time order (``block_size``): blocks that
keep the level where single rows break it, the order check, and a causal
search on a series."""

import warnings

import numpy as np
import pytest

from skmmd import (
    ConditionalHSICTest,
    SerialDependenceWarning,
    conditional_independence_test,
)
from tests.helpers.data import ar1


def _null_series(rng, n, phi):
    """x and y each a function of z plus their own noise, every series
    AR(1) at ``phi``: independent given z."""
    z = ar1(rng, n, phi)
    x = np.sin(2 * z) + 0.5 * ar1(rng, n, phi)
    y = np.cos(2 * z) + 0.5 * ar1(rng, n, phi)
    return x, y, z


def test_blocks_keep_the_level_where_single_rows_do_not():
    # Every series AR(0.9), x and y independent given z, 16 seeded draws:
    # rows resampled one by one reject most of them; blocks about the level's
    # share (at most 4 of 16 keeps a true level of 0.05 in its 99.5 % band).
    rejected = {None: 0, "auto": 0}
    for seed in range(16):
        x, y, z = _null_series(np.random.default_rng(seed), 600, 0.9)
        for block_size in rejected:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ordered rows; a coarse null
                result = conditional_independence_test(
                    x, y, z, block_size=block_size, n_resamples=99, random_state=seed
                )
            rejected[block_size] += result.pvalue <= 0.05
    assert rejected[None] >= 8 and rejected["auto"] <= 4


def test_blocks_still_find_a_dependence(rng):
    x, _, z = _null_series(rng, 1000, 0.5)
    y = np.cos(2 * z) + 0.5 * ar1(rng, 1000, 0.5) + 0.6 * x
    test = ConditionalHSICTest(block_size="auto", random_state=0).fit(x, y, Z=z)
    assert test.p_value_ <= 0.01 and test.block_size_ >= 1
    assert test.block_scale_ >= 1.0 and test.null_scale_ > 0


def test_the_order_check_warns_on_ordered_rows_only(rng):
    x, y, z = _null_series(rng, 800, 0.8)
    with pytest.warns(SerialDependenceWarning, match="block_size='auto'"):
        ConditionalHSICTest(n_resamples=19, random_state=0).fit(x, y, Z=z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Exchangeable rows, and ordered rows tested as ordered: no warning.
        order = rng.permutation(800)
        ConditionalHSICTest(n_resamples=19, random_state=0).fit(
            x[order], y[order], Z=z[order]
        )
        test = ConditionalHSICTest(block_size=16, n_resamples=19, random_state=0)
        test.fit(x, y, Z=z)
    assert test.block_size_ == 16
    fitted = ConditionalHSICTest(n_resamples=19, random_state=0).fit(
        x[order], y[order], Z=z[order]
    )
    assert fitted.block_size_ is None and fitted.block_scale_ is None


@pytest.mark.parametrize("block_size", [0, -3, "big", 2.5])
def test_bad_block_sizes_name_the_parameter(rng, block_size):
    x, y, z = _null_series(rng, 100, 0.5)
    with pytest.raises(ValueError, match="block_size"):
        ConditionalHSICTest(block_size=block_size).fit(x, y, Z=z)


def test_a_causal_search_on_a_series_is_seeded_and_cached(rng):
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from skmmd.causal import SkmmdCIT

    x, y, z = _null_series(rng, 600, 0.9)
    data = np.hstack([x, y, z])
    test = SkmmdCIT(data, block_size="auto", n_resamples=99)
    p = test(0, 1, [2])
    assert test(0, 1, [2]) == p  # cached
    again = SkmmdCIT(data, block_size="auto", n_resamples=99)
    assert again(0, 1, [2]) == p
    plain = SkmmdCIT(data, n_resamples=99)
    # The cache key (the search's parameters) names block_size where given.
    assert test.search.params["block_size"] == "auto"
    assert "block_size" not in plain.search.params

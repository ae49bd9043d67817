"""The check every learned criterion's gradient passes."""

import numpy as np
import pytest


def assert_gradient_matches_differences(criterion, theta):
    """``value_and_gradient`` at ``theta`` against ``value`` and its central
    differences."""
    value, gradient = criterion.value_and_gradient(theta)
    assert value == pytest.approx(criterion.value(theta), rel=1e-12)
    step = 1e-6
    numeric = [
        (criterion.value(theta + step * e) - criterion.value(theta - step * e))
        / (2 * step)
        for e in np.eye(theta.size)
    ]
    # Central differences are exact to O(step^2) ~ 1e-12 times the third
    # derivative; their rounding error is ~ 1e-16 / step.
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-8)

"""tigramite's searches with skmmd's conditional test (``skmmd.tigramite``):
PCMCI, PCMCI+ and LPCMCI unchanged, masks and missing values, seeds that do
not depend on the order of the tests, copies, and the options refused."""

import copy

import numpy as np
import pytest

pytest.importorskip(
    "tigramite", reason="tigramite (the tigramite extra) is not installed"
)

from tigramite import data_processing as pp  # noqa: E402
from tigramite.lpcmci import LPCMCI  # noqa: E402
from tigramite.pcmci import PCMCI  # noqa: E402

from skmmd.tigramite import SkmmdCondIndTest  # noqa: E402

# Short strongly autocorrelated series: "auto" may want blocks longer than a
# fifth of the rows, and says so; the searches here are about the plumbing.
pytestmark = pytest.mark.filterwarnings("ignore:block_size='auto'")


def _system(rng, T=400):
    """X0 -> X1 at lag 1 through a sine, X2 alone; all strongly
    autocorrelated."""
    data = rng.normal(size=(T, 3))
    for t in range(1, T):
        data[t, 0] += 0.8 * data[t - 1, 0]
        data[t, 1] += 0.7 * data[t - 1, 1] + 1.5 * np.sin(2 * data[t - 1, 0])
        data[t, 2] += 0.8 * data[t - 1, 2]
    return data


def test_pcmci_finds_the_nonlinear_link_and_no_other(rng):
    pcmci = PCMCI(pp.DataFrame(_system(rng)), cond_ind_test=SkmmdCondIndTest())
    results = pcmci.run_pcmci(tau_max=2, pc_alpha=0.05, alpha_level=0.01)
    graph = results["graph"]
    assert graph[0, 1, 1] == "-->"
    found = {(i, j, tau) for i, j, tau in zip(*np.nonzero(graph != "")) if tau > 0}
    # The true lagged links: the three self-links and X0 -> X1.
    assert found <= {(0, 0, 1), (1, 1, 1), (2, 2, 1), (0, 1, 1), (0, 0, 2), (2, 2, 2)}
    assert results["val_matrix"][0, 1, 1] > 0


def test_pcmciplus_and_lpcmci_run_unchanged(rng):
    data = _system(rng, 300)
    test = SkmmdCondIndTest(n_resamples=99)
    plus = PCMCI(pp.DataFrame(data), cond_ind_test=test).run_pcmciplus(
        tau_max=1, pc_alpha=0.01
    )
    assert plus["graph"][0, 1, 1] == "-->"
    lpcmci = LPCMCI(pp.DataFrame(data), cond_ind_test=SkmmdCondIndTest(n_resamples=99))
    graph = lpcmci.run_lpcmci(tau_max=1, pc_alpha=0.01)["graph"]
    assert graph[0, 1, 1] in ("-->", "o->")


def test_a_tests_p_value_does_not_depend_on_the_tests_before(rng):
    frame = pp.DataFrame(_system(rng, 300))
    fresh = SkmmdCondIndTest(n_resamples=99)
    fresh.set_dataframe(frame)
    used = SkmmdCondIndTest(n_resamples=99)
    used.set_dataframe(frame)
    used.run_test([(2, -1)], [(1, 0)], [(0, -2)], tau_max=2)
    used.run_test([(0, -2)], [(2, 0)], [], tau_max=2)
    question = ([(0, -1)], [(1, 0)], [(1, -1), (2, -1)])
    assert fresh.run_test(*question, tau_max=2) == used.run_test(*question, tau_max=2)
    # The order of Z's variables does not change the test either.
    swapped = ([(0, -1)], [(1, 0)], [(2, -1), (1, -1)])
    other = SkmmdCondIndTest(n_resamples=99)
    other.set_dataframe(frame)
    assert other.run_test(*swapped, tau_max=2) == fresh.run_test(*question, tau_max=2)
    # A copy (as searches make) gives the same answers.
    copied = copy.deepcopy(fresh)
    copied.cached_ci_results = {}
    assert copied.run_test(*question, tau_max=2) == fresh.run_test(*question, tau_max=2)


def test_masks_and_missing_values_are_tigramites(rng):
    data = _system(rng, 300)
    mask = np.zeros_like(data, dtype=bool)
    mask[:100, 1] = True  # X1's first 100 rows left out of tests of y
    question = ([(0, -1)], [(1, 0)], [(1, -1)])
    values = []
    for frame, mask_type in (
        (pp.DataFrame(data), None),
        (pp.DataFrame(data, mask=mask), "y"),
    ):
        test = SkmmdCondIndTest(n_resamples=99, mask_type=mask_type)
        test.set_dataframe(frame)
        values.append(test.run_test(*question, tau_max=1))
        assert values[-1][1] <= 0.05
    assert values[0] != values[1]
    gappy = data.copy()
    gappy[50:60, 2] = 999.0
    test = SkmmdCondIndTest(n_resamples=99)
    test.set_dataframe(pp.DataFrame(gappy, missing_flag=999.0))
    value, p = test.run_test([(2, -1)], [(1, 0)], [(1, -1)], tau_max=1)
    assert np.isfinite(value) and 0 < p <= 1


def test_several_variables_in_x_and_raw_arrays(rng):
    data = _system(rng, 300)
    test = SkmmdCondIndTest(n_resamples=99)
    test.set_dataframe(pp.DataFrame(data))
    value, p = test.run_test([(0, -1), (2, -1)], [(1, 0)], [(1, -1)], tau_max=1)
    assert p <= 0.05
    value, p = test.run_test_raw(data[:-1, :1], data[1:, 1:2], data[:-1, 1:2])
    assert p <= 0.05 and value > 0


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"significance": "fixed_thres"}, ValueError, "significance='fixed_thres'"),
        ({"block_size": 0}, ValueError, "block_size"),
        ({"n_folds": 1}, ValueError, "n_folds"),
        ({"random_state": None}, TypeError, "random_state must be an int"),
    ],
)
def test_options_are_checked_when_made(options, error, match):
    with pytest.raises(error, match=match):
        SkmmdCondIndTest(**options)

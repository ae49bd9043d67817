"""tigramite's PCMCI, PCMCI+ and LPCMCI with skmmd's conditional independence test.

:class:`SkmmdCondIndTest` is a tigramite ``CondIndTest``: hand it to
``PCMCI(dataframe, cond_ind_test=SkmmdCondIndTest())`` (or to PCMCI+ and
LPCMCI) and every test of the search is :class:`~skmmd.ConditionalHSICTest`'s,
on the lagged rows tigramite builds (its masks and missing values applied
by tigramite), calibrated with blocks of consecutive rows by default, since
lagged series are serially dependent. The tests of a search share their
work as a causal search on a table does
(:class:`~skmmd.conditional._search.ConditionalSearch`): each lagged
variable's features are computed once, each conditioning set's map of z,
its features and the ridge's eigendecompositions once for all the pairs
tested given it. Needs the ``tigramite`` extra (``python -m pip install
'skmmd[tigramite]'``); tigramite is GPL-3.0 and is called, never copied.
"""

import hashlib

import numpy as np

from .conditional import ConditionalHSICTest
from .conditional._search import ConditionalSearch

try:
    from tigramite.independence_tests.independence_tests_base import CondIndTest
except ImportError as error:  # the optional extra
    raise ImportError(
        "skmmd.tigramite plugs skmmd's conditional independence test into "
        "tigramite (PCMCI, PCMCI+, LPCMCI), which is not installed: "
        "python -m pip install 'skmmd[tigramite]'."
    ) from error

__all__ = ["SkmmdCondIndTest"]

# tigramite's significance options: each is skmmd's bootstrap p-value, the
# one calibration of the test; a threshold on the dependence measure has no
# meaning shared across feature maps.
_SIGNIFICANCE = ("analytic", "shuffle_test")


def _identity(column):
    """A stable non-negative int of a column's values: its identity in the
    search's seeds and caches (the same lagged variable on the same rows is
    the same column, whichever test asks first)."""
    digest = hashlib.sha1(np.ascontiguousarray(column, dtype=np.float64)).digest()
    return int.from_bytes(digest[:8], "little") >> 1


class SkmmdCondIndTest(CondIndTest):
    """skmmd's conditional independence test as a tigramite ``CondIndTest``.

    Each test of ``X`` and ``Y`` given ``Z`` on the lagged rows tigramite
    builds is :class:`~skmmd.ConditionalHSICTest`'s: the features of x and of
    y regressed on the features of z by a cross-fitted ridge, the residuals'
    weighted cross-covariance tested by a multiplier bootstrap, linear in
    the number of rows. With ``block_size`` (``"auto"`` by default) the rows
    are taken in time order: one multiplier per block of consecutive rows,
    so the p-value holds on autocorrelated series.

    Read more in the :ref:`User Guide <causal_time_series>`.

    Parameters
    ----------
    block_size : None, "auto" or int, default="auto"
        Rows per block of the bootstrap (see
        :class:`~skmmd.ConditionalHSICTest`); ``"auto"``: the library's rule
        on each test's residual products. None treats the rows as
        exchangeable.
    n_resamples : int or "auto", default="auto"
        Bootstrap draws; ``"auto"`` stops once the decision at ``alpha`` is
        known (the p-value is then exact below ``alpha`` and coarse above).
        Give an int for p-values to correct for multiple testing
        (``fdr_method``).
    alpha : float, default=0.05
        The level at which ``n_resamples="auto"`` stops when tigramite asks
        for a test without one; a search's tests stop at the level it gives
        them (PCMCI's ``pc_alpha`` in its PC phase, ``alpha_level`` in its
        MCI phase).
    n_folds, n_z_features
        As in :class:`~skmmd.ConditionalHSICTest` (defaults 5 and "auto").
    z_screen : bool, default=False
        As in :class:`~skmmd.ConditionalHSICTest`, off by default: PCMCI
        conditions on the parents its PC phase found (and those of X at
        their lags), each chosen for its dependence on the variable it
        conditions, so the screen finds nothing to leave out and only costs
        its time (:ref:`bench-pcmci`).
    random_state : int, default=0
        Seed of every test, combined with the values of the variables
        tested: a test's p-value does not depend on which tests ran before.
    significance : {"analytic", "shuffle_test"}, default="analytic"
        tigramite's option; both give skmmd's bootstrap p-value.
        ``"fixed_thres"`` is refused: the dependence measure's scale
        depends on the feature maps.
    mask_type : str or None, default=None
        tigramite's: which of ``"x"``, ``"y"``, ``"z"`` the dataframe's mask
        removes rows for (tigramite builds the rows).
    verbosity : int, default=0
        tigramite's.

    Attributes
    ----------
    measure : str
        ``"skmmd"``, tigramite's name of the dependence measure: the
        squared norm of the residuals' weighted cross-covariance (the
        test's statistic over the rows tested, at least 0).
    two_sided : bool
        False: dependence only increases the measure.

    See Also
    --------
    skmmd.ConditionalHSICTest : The test, on one ``(x, y, z)``.
    skmmd.causal.SkmmdCIT : The same test for causal-learn's PC and FCI.

    Notes
    -----
    tigramite builds each test's rows from the lagged variables and drops
    those its mask or missing values exclude, so a test's rows are in time
    order with gaps where rows were dropped; blocks span those gaps. Lagged
    variables with the same values (a variable at one lag, on the rows of
    one window) share their features across the tests of a search, and the
    tests given one conditioning set share its map of z and the ridge's
    statistics; ``pc_alpha=None`` (model selection over several levels) is
    not available.

    Examples
    --------
    >>> import numpy as np
    >>> from tigramite import data_processing as pp
    >>> from tigramite.pcmci import PCMCI
    >>> from skmmd.tigramite import SkmmdCondIndTest
    >>> rng = np.random.default_rng(0)
    >>> data = rng.normal(size=(500, 2))
    >>> for t in range(1, 500):
    ...     data[t, 0] += 0.6 * data[t - 1, 0]
    ...     data[t, 1] += 0.6 * data[t - 1, 1] + np.sin(2 * data[t - 1, 0])
    >>> pcmci = PCMCI(pp.DataFrame(data), cond_ind_test=SkmmdCondIndTest())
    >>> results = pcmci.run_pcmci(tau_max=1, pc_alpha=0.05)
    >>> bool(results["p_matrix"][0, 1, 1] < 0.01)  # X0(t-1) -> X1(t)
    True
    """

    measure = "skmmd"
    two_sided = False

    def __init__(
        self,
        *,
        block_size="auto",
        n_resamples="auto",
        alpha=0.05,
        n_folds=5,
        n_z_features="auto",
        z_screen=False,
        random_state=0,
        significance="analytic",
        mask_type=None,
        verbosity=0,
    ):
        if significance not in _SIGNIFICANCE:
            raise ValueError(
                f"significance={significance!r}: skmmd's test gives its own "
                f"bootstrap p-value; use one of {_SIGNIFICANCE} (both give it) "
                "and the search's pc_alpha / alpha_level, not a threshold on "
                "the dependence measure, whose scale depends on the feature maps."
            )
        if not isinstance(random_state, (int, np.integer)):
            raise TypeError(
                f"random_state must be an int (the seed of every test of the "
                f"search); got {random_state!r}."
            )
        self.options = {
            "block_size": block_size,
            "n_resamples": n_resamples,
            "n_folds": n_folds,
            "n_z_features": n_z_features,
            "z_screen": z_screen,
            "random_state": int(random_state),
        }
        self.alpha = alpha
        # A search on no columns checks every option now, not at the first test.
        ConditionalSearch(
            np.empty((2, 0)), level=alpha, caller=type(self).__name__, **self.options
        )
        super().__init__(
            seed=int(random_state),
            mask_type=mask_type,
            significance=significance,
            verbosity=verbosity,
        )
        self._searches = {}  # rows tested -> (search, column of each identity)
        self._last = None  # (measure, p-value) of the last test
        self._level = alpha  # where the next test's resampling may stop

    def run_test(
        self, X, Y, Z=None, tau_max=0, cut_off="2xtau_max", alpha_or_thres=None
    ):
        """tigramite's test of ``X`` and ``Y`` given ``Z`` (lagged variables
        ``[(var, -tau)]``), its resampling stopped (``n_resamples="auto"``) at
        the level the search gives, ``alpha_or_thres`` (else ``alpha``).

        Parameters
        ----------
        X, Y, Z : list of tuple
            tigramite's lagged variables.
        tau_max : int, default=0
            tigramite's: the largest lag of the search.
        cut_off : str, default="2xtau_max"
            tigramite's: the rows cut off at the start.
        alpha_or_thres : float or None, default=None
            The level of the test's decision.

        Returns
        -------
        val, pval[, dependent]
            As tigramite's ``run_test``.
        """
        self._level = self.alpha if alpha_or_thres is None else float(alpha_or_thres)
        return super().run_test(
            X, Y, Z, tau_max=tau_max, cut_off=cut_off, alpha_or_thres=alpha_or_thres
        )

    def _search(self, n_rows):
        """The search of the tests on ``n_rows`` rows (tigramite's windows of
        one length share it: columns are known by their values)."""
        if n_rows not in self._searches:
            search = ConditionalSearch(
                np.empty((n_rows, 0)),
                level=self.alpha,
                caller=type(self).__name__,
                **self.options,
            )
            self._searches[n_rows] = (search, {})
        return self._searches[n_rows]

    def _columns(self, n_rows, variables):
        """The search's columns of ``variables`` (n_rows, k), added on
        first sight, in the order of their identities."""
        search, known = self._search(n_rows)
        out = []
        for column in variables.T:
            key = _identity(column)
            if key not in known:
                (known[key],) = search.extend(column[:, None], [key])
            out.append((key, known[key]))
        return [j for _, j in sorted(out)]

    def get_dependence_measure(self, array, xyz, data_type=None):
        """The test of the rows of ``array`` (``(dim, T)``, tigramite's
        layout; ``xyz`` says which rows are X, Y and Z): returns the
        dependence measure and keeps the p-value for tigramite's next call
        of :meth:`get_analytic_significance`.

        Parameters
        ----------
        array : ndarray of shape (dim, T)
            The variables of X, Y and Z (rows) at the ``T`` time points.
        xyz : ndarray of shape (dim,)
            0, 1 or 2: whether each row of ``array`` is of X, Y or Z.
        data_type : ndarray or None, default=None
            tigramite's; the variables are mapped as numbers.

        Returns
        -------
        measure : float
            The statistic over the rows tested.
        """
        x, y, z = (array[xyz == v].T for v in (0, 1, 2))
        n_rows = array.shape[1]
        if x.shape[1] == 1 and y.shape[1] == 1:
            i, k = self._columns(n_rows, np.hstack([x, y]))
            S = self._columns(n_rows, z)
            run = self._search(n_rows)[0].test(i, k, S, level=self._level)
            statistic, p_value = run.statistic, run.p_value
        else:  # several variables in X or Y: one test of them, unshared
            seed = _identity(array) % (2**31)
            test = ConditionalHSICTest(
                **{**self.options, "random_state": seed}, alpha=self._level
            ).fit(x, y, Z=z if z.shape[1] else None)
            statistic, p_value = test.statistic_, test.p_value_
        measure = float(statistic) / n_rows
        self._last = (measure, float(p_value))
        return measure

    def _p_value_of(self, value):
        if self._last is None or self._last[0] != value:
            raise ValueError(
                "SkmmdCondIndTest gives the p-value of the test it just ran "
                "(get_dependence_measure); run the test through run_test."
            )
        return self._last[1]

    def get_analytic_significance(self, value, T, dim, xyz=None):
        """The p-value of the test that gave the measure ``value``: skmmd's
        bootstrap (tigramite's ``significance="analytic"``).

        Parameters
        ----------
        value : float
            The measure :meth:`get_dependence_measure` returned.
        T, dim : int
            tigramite's sample size and dimension (the test knows them).
        xyz : ndarray or None, default=None
            tigramite's.

        Returns
        -------
        p_value : float
            The test's p-value.
        """
        return self._p_value_of(value)

    def get_shuffle_significance(
        self, array, xyz, value, data_type=None, return_null_dist=False
    ):
        """The p-value of the test that gave the measure ``value``: skmmd's
        bootstrap of blocks of consecutive rows (tigramite's
        ``significance="shuffle_test"``).

        Parameters
        ----------
        array, xyz, data_type
            tigramite's (the test has read them).
        value : float
            The measure :meth:`get_dependence_measure` returned.
        return_null_dist : bool, default=False
            Not available: the null is the bootstrap's, on the residuals.

        Returns
        -------
        p_value : float
            The test's p-value.
        """
        if return_null_dist:
            raise ValueError(
                "SkmmdCondIndTest's null distribution is its bootstrap of the "
                "residual products; read it from skmmd.ConditionalHSICTest."
            )
        return self._p_value_of(value)

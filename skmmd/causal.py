"""causal-learn's PC and FCI with skmmd's conditional independence test.

``import skmmd.causal`` registers :class:`SkmmdCIT` with causal-learn under the
name ``"skmmd"``, so that ``pc(data, 0.05, "skmmd")`` and ``fci(data,
"skmmd")`` run :class:`~skmmd.ConditionalHSICTest`'s test on every ``(X, Y,
S)`` the search asks about. Needs the ``causal`` extra (``python -m pip install
'skmmd[causal]'``). The tests of one search share their work (see
:class:`~skmmd.independence._conditional_search.ConditionalSearch`).
"""

import hashlib
import json

from .independence._conditional_search import ConditionalSearch

try:
    from causallearn.utils.cit import CIT_Base, register_ci_test
except ImportError as error:  # the optional extra
    raise ImportError(
        "skmmd.causal plugs skmmd's conditional independence test into "
        "causal-learn, which is not installed: python -m pip install "
        "'skmmd[causal]'."
    ) from error

__all__ = ["SkmmdCIT"]


class SkmmdCIT(CIT_Base):
    """skmmd's conditional independence test as a causal-learn ``CIT``.

    Parameters
    ----------
    data : ndarray of shape (n_samples, n_features)
        The data set of the search, one column per variable.
    random_state : int, RandomState instance or None, default=0
        Seed of every test, combined with the variables tested.
    n_resamples, n_folds, n_z_features, z_screen
        As in :class:`~skmmd.ConditionalHSICTest` (defaults 999, 5, "auto",
        True), checked by the same constraints.
    level : float, default=0.05
        The level ``n_resamples="auto"`` stops at: the search's ``alpha``
        (which ``pc`` and ``fci`` take for themselves).
    cache_path : str or None, default=None
        causal-learn's JSON cache of p-values.

    Any other option (a misspelt one, or one the test does not have) is a
    ``TypeError``, whether given here or through ``pc(..., **options)``.

    See Also
    --------
    skmmd.ConditionalHSICTest : The test, on one ``(x, y, z)``.

    Examples
    --------
    >>> import numpy as np
    >>> import skmmd.causal
    >>> from causallearn.utils.cit import CIT
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=1000)
    >>> noise = 0.3 * rng.normal(size=(1000, 2))
    >>> data = np.column_stack([np.sin(2 * z) + noise[:, 0], z, z**2 + noise[:, 1]])
    >>> test = CIT(data, "skmmd")
    >>> bool(test(0, 2, [1]) > 0.05), test(0, 2) < 0.01
    (True, True)
    """

    def __init__(
        self,
        data,
        random_state=0,
        n_resamples=999,
        level=0.05,
        n_folds=5,
        n_z_features="auto",
        z_screen=True,
        cache_path=None,
    ):
        self.search = ConditionalSearch(
            data,
            random_state=random_state,
            n_resamples=n_resamples,
            level=level,
            n_folds=n_folds,
            n_z_features=n_z_features,
            z_screen=z_screen,
        )
        super().__init__(self.search.data, cache_path=cache_path)
        key = json.dumps(self.search.params, sort_keys=True).encode()
        self.check_cache_method_consistent("skmmd", hashlib.md5(key).hexdigest())

    def __call__(self, X, Y, condition_set=None):
        """The p-value of column ``X`` independent of column ``Y`` given the
        columns ``condition_set`` (a list or None)."""
        Xs, Ys, S, key = self.get_formatted_XYZ_and_cachekey(X, Y, condition_set)
        if key not in self.pvalue_cache:
            self.pvalue_cache[key] = self.search.p_value(Xs[0], Ys[0], S)
        return self.pvalue_cache[key]


register_ci_test("skmmd", SkmmdCIT)

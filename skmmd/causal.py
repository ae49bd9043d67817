"""causal-learn's PC and FCI with skmmd's conditional independence test.

:func:`pc` and :func:`fci` run causal-learn's searches on a table (a
DataFrame: its column names become the graph's node names; text,
categorical and boolean columns and missing values are taken) and return
causal-learn's own graph objects. ``import skmmd.causal`` also registers
:class:`SkmmdCIT` with causal-learn under the name ``"skmmd"``, so that
causal-learn's ``pc(data, 0.05, "skmmd")`` and ``fci(data, "skmmd")`` on an
array run :class:`~skmmd.ConditionalHSICTest`'s test on every ``(X, Y, S)``
the search asks about. Needs the ``causal`` extra (``python -m pip install
'skmmd[causal]'``). The tests of one search share their work (see
:class:`~skmmd.conditional._search.ConditionalSearch`).
"""

import hashlib
import inspect
import json

from .conditional._search import CONSTRAINTS, ConditionalSearch

try:
    from causallearn.search.ConstraintBased.FCI import fci as _causal_learn_fci
    from causallearn.search.ConstraintBased.PC import pc as _causal_learn_pc
    from causallearn.utils.cit import CIT_Base, register_ci_test
except ImportError as error:  # the optional extra
    raise ImportError(
        "skmmd.causal plugs skmmd's conditional independence test into "
        "causal-learn, which is not installed: python -m pip install "
        "'skmmd[causal]'."
    ) from error

__all__ = ["SkmmdCIT", "fci", "pc"]


class SkmmdCIT(CIT_Base):
    """skmmd's conditional independence test as a causal-learn ``CIT``.

    Parameters
    ----------
    data : ndarray of shape (n_samples, n_features)
        The data set of the search, one column per variable (NaN: missing;
        each test runs on the rows complete for its variables).
    random_state : int, RandomState instance or None, default=0
        Seed of every test, combined with the variables tested.
    n_resamples, n_folds, n_z_features, z_screen, block_size
        As in :class:`~skmmd.ConditionalHSICTest` (defaults 999, 5, "auto",
        True, None), checked by the same constraints. ``block_size``: the
        rows are in time order (blocks of consecutive rows; see
        :ref:`time_ordered`).
    level : float, default=0.05
        The level ``n_resamples="auto"`` stops at: the search's ``alpha``
        (which ``pc`` and ``fci`` take for themselves).
    cache_path : str or None, default=None
        causal-learn's JSON cache of p-values.
    table : DataFrame or None, default=None
        The table ``data`` encodes (text columns as codes), whose columns the
        tests then map as the estimator maps a table's; what :func:`pc` and
        :func:`fci` pass.

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
        block_size=None,
        cache_path=None,
        table=None,
    ):
        self.search = ConditionalSearch(
            data if table is None else table,
            random_state=random_state,
            n_resamples=n_resamples,
            level=level,
            n_folds=n_folds,
            n_z_features=n_z_features,
            z_screen=z_screen,
            block_size=block_size,
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


def _search_arguments(data, alpha, node_names, options):
    """causal-learn's data, node names and the test's options for a search
    of ``data`` (an array or a DataFrame)."""
    search = ConditionalSearch(data, level=alpha, **_TEST_DEFAULTS)  # names, codes
    if node_names is None:
        node_names = search.names
    if len(node_names) != search.data.shape[1]:
        raise ValueError(
            f"node_names has {len(node_names)} names for {search.data.shape[1]} "
            "columns of data."
        )
    table = search.table
    return search.data, list(node_names), {"table": table, "level": alpha}


# The test's options and their defaults, as SkmmdCIT has them (which checks
# what pc and fci pass on).
_TEST_DEFAULTS = {
    name: parameter.default
    for name, parameter in inspect.signature(SkmmdCIT).parameters.items()
    if name in CONSTRAINTS and name != "level"
}


def pc(data, alpha=0.05, *, node_names=None, **options):
    """causal-learn's PC on a table, each test skmmd's conditional test.

    Parameters
    ----------
    data : DataFrame or ndarray of shape (n_samples, n_variables)
        One column per variable. A DataFrame's column names become the
        graph's node names; its numeric and boolean columns are numbers, its
        text and categorical columns are mapped by a
        :class:`~skmmd.TabularSampler` (as :class:`~skmmd.ConditionalHSICTest`
        maps a table). Missing values (NaN, None, pd.NA) are handled test-wise:
        each test runs on the rows complete for its variables, as causal-learn's
        ``mv_fisherz`` does (valid where values are missing independently of
        the variables, MCAR).
    alpha : float, default=0.05
        Level of each test (and where ``n_resamples="auto"`` stops).
    node_names : list of str or None, default=None
        None: a DataFrame's column names, or ``X1, X2, ...``.
    **options
        The test's: ``random_state`` (default 0), ``n_resamples`` (999),
        ``n_folds``, ``n_z_features``, ``z_screen`` (see :class:`SkmmdCIT`);
        and causal-learn's ``pc``'s (``stable``, ``uc_rule``, ``uc_priority``,
        ``background_knowledge``, ``show_progress``, ...). Any other is a
        ``TypeError`` naming it.

    Returns
    -------
    graph : causallearn.graph.GraphClass.CausalGraph
        causal-learn's result: ``graph.G`` the graph (its nodes named),
        ``graph.G.graph`` the adjacency matrix.

    See Also
    --------
    fci : The same with FCI (latent confounders allowed).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skmmd.causal import pc
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=500)
    >>> df = pd.DataFrame({"x": np.sin(2 * z) + 0.3 * rng.normal(size=500), "z": z,
    ...                    "y": z**2 + 0.3 * rng.normal(size=500)})
    >>> graph = pc(df, 0.05, n_resamples="auto", show_progress=False)
    >>> sorted(str(edge) for edge in graph.G.get_graph_edges())
    ['x --- z', 'z --- y']
    """
    data, names, test = _search_arguments(data, alpha, node_names, options)
    return _causal_learn_pc(data, alpha, "skmmd", node_names=names, **test, **options)


def fci(data, alpha=0.05, *, node_names=None, **options):
    """causal-learn's FCI on a table, each test skmmd's conditional test.

    Parameters
    ----------
    data : DataFrame or ndarray of shape (n_samples, n_variables)
        As in :func:`pc`.
    alpha : float, default=0.05
        Level of each test (and where ``n_resamples="auto"`` stops).
    node_names : list of str or None, default=None
        None: a DataFrame's column names, or ``X1, X2, ...``.
    **options
        The test's (as in :func:`pc`) and causal-learn's ``fci``'s
        (``depth``, ``max_path_length``, ``background_knowledge``,
        ``show_progress``, ...). Any other is a ``TypeError`` naming it.

    Returns
    -------
    graph : causallearn.graph.GeneralGraph.GeneralGraph
        The partial ancestral graph, nodes named.
    edges : list of causallearn.graph.Edge.Edge
        Its edges, with causal-learn's properties.

    See Also
    --------
    pc : The same with PC (no latent confounders).
    """
    data, names, test = _search_arguments(data, alpha, node_names, options)
    return _causal_learn_fci(data, "skmmd", alpha, node_names=names, **test, **options)

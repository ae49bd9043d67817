"""ruptures' searches with skmmd's kernel cost on random features.

:class:`CostRandomFeatures` is a ruptures ``BaseCost``: hand it to
``rpt.Pelt(custom_cost=CostRandomFeatures())`` (or to ``Binseg``,
``BottomUp``, ``Window``, ``Dynp``) and each segment's cost is the kernel
cost of ruptures' ``CostRbf``, read from cumulative sums of random Fourier
features in ``O(D)`` instead of from the ``n x n`` Gram matrix ``CostRbf``
keeps. Needs the ``ruptures`` extra (``python -m pip install
'skmmd[ruptures]'``); ruptures is called, never copied.
"""

import numpy as np

from .change_points._cost import SegmentCost, default_map
from .kernels import median_bandwidth

try:
    from ruptures.base import BaseCost
    from ruptures.exceptions import NotEnoughPoints
except ImportError as error:  # the optional extra
    raise ImportError(
        "skmmd.ruptures plugs skmmd's kernel cost into ruptures' searches, and "
        "ruptures is not installed: python -m pip install 'skmmd[ruptures]'."
    ) from error

__all__ = ["CostRandomFeatures"]


class CostRandomFeatures(BaseCost):
    """ruptures' Gaussian kernel cost on random Fourier features.

    The cost of a segment ``[start, end)`` is ``sum_t ||z_t - zbar||^2`` over
    its rows' features ``z_t``, the cost of ruptures' ``CostRbf`` with the
    kernel ``exp(-gamma ||x - y||^2)`` replaced by ``z(x)'z(y)``; ``fit``
    stores the cumulative sums of the features (``8 (n + 1) D`` bytes) and
    each ``error`` is ``O(D)``.

    Parameters
    ----------
    gamma : float or None, default=None
        The kernel's ``gamma``, as ruptures' ``CostRbf(gamma=)`` (the
        library's ``bandwidth`` is ``1 / sqrt(2 gamma)``). None: ruptures'
        heuristic, one over the median squared distance between rows (of a
        subsample of 1000 rows).
    n_components : int or None, default=None
        Number of features; None: 1024, fewer for long signals (a power of
        two down to 64, keeping the cumulative sums within 1 GiB). Their
        frequencies are a scrambled Sobol sequence, as those of
        :class:`KernelChangePoints`' default map.
    min_size : int, default=1
        The fewest rows of a segment whose cost is computed (ruptures reads
        it from the cost).
    random_state : int, RandomState instance or None, default=None
        Determines the random features. Pass an int for reproducible results
        across multiple function calls.

    Attributes
    ----------
    model : str
        ``"skmmd_rbf"``: the cost's name in ruptures.
    transformer_ : RandomFourierSampler
        The fitted feature map.

    See Also
    --------
    KernelChangePoints : The change points with a p-value each.

    Examples
    --------
    >>> import numpy as np
    >>> import ruptures as rpt
    >>> from skmmd.ruptures import CostRandomFeatures
    >>> rng = np.random.default_rng(0)
    >>> signal = np.r_[rng.normal(size=(200, 2)), rng.normal(2.0, size=(200, 2))]
    >>> cost = CostRandomFeatures(random_state=0)
    >>> rpt.Pelt(custom_cost=cost, min_size=5).fit(signal).predict(pen=20)
    [200, 400]
    """

    model = "skmmd_rbf"

    def __init__(self, gamma=None, n_components=None, min_size=1, random_state=None):
        self.gamma = gamma
        self.n_components = n_components
        self.min_size = min_size
        self.random_state = random_state
        self._cost = None

    def fit(self, signal):
        """Map the signal's rows and store the cumulative sums of their
        features.

        Parameters
        ----------
        signal : array-like of shape (n_samples,) or (n_samples, n_features)
            The signal, rows in time order.

        Returns
        -------
        self : CostRandomFeatures
            The fitted cost.
        """
        signal = np.asarray(signal, dtype=np.float64)
        if signal.ndim == 1:
            signal = signal.reshape(-1, 1)
        if signal.ndim != 2 or not np.all(np.isfinite(signal)):
            raise ValueError(
                "signal must be a 1-D or 2-D array of finite numbers; got shape "
                f"{signal.shape}."
            )
        if self.gamma is not None and not self.gamma > 0:
            raise ValueError(f"gamma must be positive; got {self.gamma!r}.")
        if self.gamma is None:
            # gamma = 1 / median squared distance: the bandwidth is the
            # median distance over sqrt(2).
            median = median_bandwidth(signal, random_state=0)
            bandwidth = median / np.sqrt(2.0) if median > 0 else 1.0
        else:
            bandwidth = 1.0 / np.sqrt(2.0 * self.gamma)
        map_ = default_map(bandwidth, *signal.shape, self.random_state)
        if self.n_components is not None:
            map_.set_params(n_components=self.n_components)
        self.transformer_ = map_.fit(signal)
        width = self.transformer_.n_components
        self._cost = SegmentCost.of(self.transformer_.transform, signal, width)
        self.signal = signal  # ruptures reads its shape
        return self

    def error(self, start, end):
        """The cost of the rows ``start .. end - 1``.

        Parameters
        ----------
        start, end : int
            The segment's first row and the row after its last.

        Returns
        -------
        cost : float
            The segment's kernel cost.
        """
        if end - start < self.min_size:
            raise NotEnoughPoints
        return float(self._cost.cost(start, end))

"""The witness of a fitted two-sample test and the classifier built on it:
a point goes to the sample whose mean kernel value there is larger (a Parzen
window classifier with equal priors), so that ``MMDTest`` is a binary
classifier in scikit-learn's sense."""

import numpy as np
from sklearn.utils import gen_batches
from sklearn.utils.validation import check_is_fitted

from .._inference import _inputs
from .._utils import _array_api, _budgets
from . import _explain
from ._base import _with_numpy


class WitnessClassifierMixin:
    """``witness``, ``witness_points``, ``decision_function`` and ``predict``
    of a fitted test with ``transformer_`` and ``witness_weights_`` (or the
    exact kernel, ``_kernel_function`` and its ``_samples``)."""

    @_with_numpy()
    def witness(self, X):
        """Witness function: where the first sample has more mass than the second.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_points, n_features)
            Points where the witness is evaluated.

        Returns
        -------
        values : ndarray of shape (n_points,)
            ``mean_i k(x, x_i) - mean_j k(x, y_j)`` (with the approximate kernel
            ``z(x)^T z(y)`` when there is a transformer): positive where X is
            denser than Y.
        """
        check_is_fitted(self)
        X = _inputs.points(self, X, **self._input_options(X))
        xp, device = _array_api.namespace(X)
        if xp is not None and self.transformer_ is not None:  # on X's device
            Z = _array_api.float64(self.transformer_.transform(X), xp, device)
            return Z @ _array_api.from_numpy(self.witness_weights_, xp, device)
        if self.transformer_ is not None:
            return np.asarray(
                self.transformer_.transform(X) @ self.witness_weights_
            ).ravel()
        kfun = self._kernel_function()
        S_x, S_y = self._samples
        out = np.empty(X.shape[0])
        block = max(1, _budgets.MAP_CHUNK_ENTRIES // (S_x.shape[0] + S_y.shape[0]))
        for rows in gen_batches(X.shape[0], block):
            out[rows] = kfun(X[rows], S_x).mean(axis=1) - kfun(X[rows], S_y).mean(
                axis=1
            )
        return out

    @_with_numpy(always=True)
    def witness_points(self, X, y=None, *, n_points=5):
        """The rows of each sample where the witness function is most extreme.

        Parameters
        ----------
        X : DataFrame or array-like of shape (m, n_features) or (N, n_features)
            The first sample, or the pooled sample when ``y`` is labels.
        y : DataFrame or array-like of shape (n, n_features) or (N,)
            The second sample, or labels of the two samples.
        n_points : int, default=5
            Rows per sample.

        Returns
        -------
        points : pandas.DataFrame
            ``sample`` ("X" or "Y"), ``row`` (position in its sample),
            ``witness``, then the row's columns: the rows of X where the
            witness is largest (X much denser there than Y), then those of Y
            where it is smallest.
        """
        check_is_fitted(self)
        X, Y, _ = self._two_samples(X, y, reset=False)
        return _explain.witness_points(self, X, Y, n_points)

    def decision_function(self, X):
        """Compute ``-witness(X)``: positive where the second sample is denser.

        The mean-embedding classifier's score, with scikit-learn's binary
        convention that positive values mean ``classes_[1]`` (sample Y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_points, n_features)
            Points to score.

        Returns
        -------
        scores : ndarray of shape (n_points,)
            ``mean_j k(x, y_j) - mean_i k(x, x_i)``, that is ``-witness(X)``.
        """
        return -self.witness(X)

    def predict(self, X):
        """Label of the sample with the larger mean kernel value at each point.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_points, n_features)
            Points to classify.

        Returns
        -------
        labels : ndarray of shape (n_points,)
            ``classes_[1]`` where ``decision_function`` is positive (Y denser
            than X), else ``classes_[0]``.
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        xp, device = _array_api.namespace(scores)
        if xp is not None:  # device scores: the labels on their device
            classes = _array_api.from_numpy(self.classes_, xp, device)
            return xp.take(classes, xp.astype(scores > 0, xp.int64))
        return self.classes_[(scores > 0).astype(int)]

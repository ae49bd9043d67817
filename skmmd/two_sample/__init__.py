"""Kernel two-sample tests as scikit-learn estimators.

The test machinery, from its inputs up (each module imports only those listed
before it; ``pyproject.toml``'s import-linter contracts keep it so):

- ``_inputs``: the two input conventions and per-kind validation;
- ``_streaming``: the one pipeline, rows -> features -> per-unit sums, for any
  kind of rows (the row operations come from its engine);
- ``_calibration``: the one calibration loop (permutations or bootstrap)
  over unit sums; ``_aggregation``: p-values over several kernels;
- ``_results``: effect size, intervals, :class:`~skmmd.MMDTestResult`;
- ``_engines`` and ``_dask``: the drivers, where the kind of input is
  recognised once and the pipeline is run for it;
- ``_explain``: per-column reports and witness points;
- ``_base``, ``_mmd``, ``_aggregated``, ``_hsic``: the estimators; ``_api``:
  :func:`skmmd.mmd_test`, :func:`skmmd.hsic_test`.
"""

from ._aggregated import AggregatedMMDTest
from ._hsic import HSICTest
from ._mmd import MMDTest

__all__ = ["AggregatedMMDTest", "HSICTest", "MMDTest"]

"""The machinery every kernel test shares, below the families
(:mod:`skmmd.two_sample`, :mod:`skmmd.independence`); it knows no family.

From the bottom (each module imports only those listed before it;
``pyproject.toml``'s import-linter contracts keep it so):

- ``_inputs``: the input conventions and per-kind validation;
  ``_calibration``: the one calibration loop (resamples of units drawn in
  batches, their statistics from a family's ``work``, the p-value);
  ``_aggregation``: p-values over several kernels;
- ``_report``: the HTML page of a result;
- ``_streaming``: the one pipeline, rows -> features -> per-unit sums, for any
  kind of rows (the row operations come from its engine);
  ``_results``: intervals and the base of every family's result;
- ``_dask``, ``_engines``: the drivers, where the kind of input is recognised
  once and the pipeline is run for it;
- ``_explain``: the column groups, a map per group and the ranked report;
- ``_base``: what the estimators share (parameters of the loop, fit rows,
  results computed when first read).
"""

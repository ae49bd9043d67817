"""The DataFrame machinery: what a table is and how its columns are read,
below the samplers and the tests that take tables.

- ``_labels``: column labels (the input contract's first part),
  ``is_dataframe``;
- ``_values``: columns' values as the column tools read them (floats,
  seconds, one missing value, objects of one kind);
- ``_kinds``: which columns are numeric, the one rule
  (``numeric_dtype``, ``numeric_column``, ``column_kind``);
- ``_parts``: the parts of the table map's column transformer (median
  fill, quartiles, missingness flags) and the transformer fitted and
  mapped part by part; ``_one_hot``: its categorical part;
- ``_columnwise_fourier`` (with its cells, ``_columnwise_cells``) and
  ``_columnwise_categories``: each column's own map, for the column report;
- ``_summaries``: bounded per-column summaries of two samples, for the HTML
  report.

It imports ``_utils`` only: no kernel, sampler, statistic or test
(``pyproject.toml``'s import-linter contracts keep it so).
"""

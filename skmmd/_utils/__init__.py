"""Private helpers under every package: scikit-learn compatibility, the
budgets and the named random streams every test shares, array-API
namespaces, Dask blocks, numba helpers and the BLAS thread limit, random
draws, SVG bars. The DataFrame machinery (the dtypes tables are read as,
per-column summaries) is :mod:`skmmd._tables`.

The bottom layer: nothing here imports another skmmd package. The CLI's file
readers live with the CLI (:mod:`skmmd.cli._files`).
"""

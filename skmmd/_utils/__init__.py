"""Private utilities that know no skmmd concept: scikit-learn compatibility,
array-API namespaces, Dask blocks, numba helpers, random draws, file readers.

The bottom layer: nothing here imports another skmmd package.
"""

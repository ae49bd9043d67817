"""Helpers shared by the tests of more than one module: reference
implementations, data generators, page and output parsers. Fixtures live in
the ``conftest.py`` files; these are plain functions, imported by name."""

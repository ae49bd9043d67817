"""Sphinx configuration for the skmmd documentation."""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

import skmmd

project = "skmmd"
author = "The skmmd developers"
copyright = "2026, The skmmd developers"
version = release = skmmd.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
numpydoc_show_class_members = False
templates_path = ["_templates"]
# user_guide/_*.rst: fragments included by other pages (doctested there by
# pytest, which collects doc/user_guide/*.rst), not pages of their own.
exclude_patterns = [
    "_build",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "user_guide/_*.rst",
]

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
}
# No network here or in CI: resolve intersphinx only when asked to.
if not os.environ.get("SKMMD_DOC_INTERSPHINX"):
    intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
}

html_theme = "pydata_sphinx_theme"
html_title = "skmmd"


def _check_every_example_made_a_figure(app, exception):
    """Fail the build when a gallery example ran but saved no figure."""
    if exception is not None or str(app.config.plot_gallery).lower() in (
        "0",
        "false",
    ):
        return
    from pathlib import Path

    from sphinx.errors import ExtensionError

    images = Path(app.srcdir) / "auto_examples" / "images"
    examples = sorted((Path(app.srcdir) / ".." / "examples").glob("plot_*.py"))
    missing = [
        e.name for e in examples if not (images / f"sphx_glr_{e.stem}_001.png").exists()
    ]
    if missing:
        raise ExtensionError(f"gallery examples without a figure: {missing}")


def setup(app):
    app.connect("build-finished", _check_every_example_made_a_figure)

"""Sphinx configuration of nbparallel's documentation site.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (``pip install -e '.[docs]'``).
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import nbparallel  # noqa: E402

project = "nbparallel"
author = "the nbparallel developers"
copyright = "2026, the nbparallel developers"
release = version = nbparallel.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "generated_pages",
    "results_table",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "tools", "_ext", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.json", "sg_execution_times.rst"]
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing", "myst.header"]

autosummary_generate = ["generated/api.rst"]  # written by _ext/generated_pages.py at builder-inited, before autosummary reads it
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_validation_checks = set()

intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "write_computation_times": False,
}

html_theme = "pydata_sphinx_theme"
html_title = "nbparallel"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}

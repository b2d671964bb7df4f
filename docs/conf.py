"""Sphinx configuration of the xbackend documentation site.

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (warnings are errors, as in CI).

Intersphinx and the network: links into the NumPy, PyTorch, CuPy and Dask docs need their ``objects.inv``
inventories, which Sphinx downloads at build time. CI machines reach PyPI only, and a failed download is a
*warning* that ``-W`` turns into a failed build. So the mappings are switched on only when
``XBACKEND_DOCS_INTERSPHINX=1`` is set (the published build); offline builds still pass with ``-W`` and render
those references as plain code instead of links. A docs build that fails in CI is worse than a missing link.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document the tree being built, not an installed copy

import xbackend  # noqa: E402

project = "xbackend"
author = "xbackend developers"
copyright = "xbackend developers"  # noqa: A001 - Sphinx's name
release = xbackend.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# MyST: ```{directive} fences, :::{note} blocks, $math$, heading anchors for [text](page.md#anchor) links
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: numpy-style docstrings, one generated page per public name
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_member_order = "bysource"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

# `sphinx-build -b doctest`: the examples in docstrings run with xbackend imported as xb
doctest_global_setup = "import numpy as np\nimport xbackend as xb"

if os.environ.get("XBACKEND_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable/", None),
        "torch": ("https://docs.pytorch.org/docs/stable/", None),
        "cupy": ("https://docs.cupy.dev/en/stable/", None),
        "dask": ("https://docs.dask.org/en/stable/", None),
    }
else:
    intersphinx_mapping = {}

html_theme = "furo"
html_title = f"xbackend {release}"
html_static_path = ["_static"]

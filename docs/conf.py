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
sys.path.insert(0, str(Path(__file__).resolve().parent))  # api_examples.py

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


# ---------------------------------------------------------------------------------------------------------------
# Docstrings the API reference completes at build time (nothing here changes the library):
# - module constants (``xb.e``, ``xb.pi``, ...) and version strings would otherwise show ``float``'s or ``str``'s
#   docstring;
# - the elementwise functions are built by one factory with a one-line docstring: each gets an example whose output
#   is computed on NumPy while the site builds (so it cannot go stale);
# - every error class gets an example of the builtin it also is.

_DATA_DOCS = {
    "xbackend.e": "Euler's number, a Python ``float`` (the standard's ``e``).",
    "xbackend.pi": "π, a Python ``float`` (the standard's ``pi``).",
    "xbackend.inf": "Positive infinity, a Python ``float`` (the standard's ``inf``).",
    "xbackend.nan": "Not a number, a Python ``float`` (the standard's ``nan``).",
    "xbackend.newaxis": "``None``: in an index, inserts an axis of length one (``x[:, xb.newaxis]``).",
    "xbackend.__version__": "The version of xbackend, a string.",
    "xbackend.__array_api_version__": "The version of the Array API standard this namespace implements, a string.",
}

_UNARY_INPUTS = ([0.25, 0.5, 1.0], [-0.5, 0.0, 0.5], [1.0, 2.0, 4.0], [-1.5, 0.5, 2.5], [1, 2, 12], [True, False])
_BINARY_INPUTS = (([1.0, 2.0, 4.0], [3.0, 0.5, 2.0]), ([12, 5, 7], [10, 3, 1]), ([True, False, True], [True, True, False]))


def _elementwise_example(name: str) -> list[str]:
    import inspect
    import math

    import numpy as np

    import xbackend as xb

    fn = getattr(xb, name)
    params = [p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty]
    cases = _BINARY_INPUTS if len(params) == 2 else [(a,) for a in _UNARY_INPUTS]
    for args in cases:
        try:
            with np.errstate(all="ignore"):
                result = fn(*[xb.asarray(a) for a in args]).tolist()
        except Exception:  # noqa: BLE001 - this dtype is not accepted: try the next inputs
            continue
        if any(isinstance(v, float) and not math.isfinite(v) for v in result):
            continue
        lines = ["", "Examples", "--------", ">>> import xbackend as xb"]
        names = ["x", "y"][: len(args)]
        lines += [f">>> {n} = xb.asarray({a!r})" for n, a in zip(names, args)]
        lines += [f">>> xb.{name}({', '.join(names)}).tolist()", repr(result)]
        return lines
    return []


def _complete_docstring(app, what, name, obj, options, lines):  # noqa: ANN001 - Sphinx's event signature
    import xbackend as xb
    from xbackend import _elementwise

    text = "\n".join(lines)
    from api_examples import EXAMPLES

    if name in _DATA_DOCS:
        lines[:] = [_DATA_DOCS[name]]
    elif ">>>" in text:
        return
    elif name in EXAMPLES:
        lines += ["", "Examples", "--------", *EXAMPLES[name].strip("\n").splitlines()]
    elif name.startswith("xbackend.") and name[len("xbackend."):] in _elementwise.__all__:
        lines += _elementwise_example(name[len("xbackend."):])
    elif isinstance(obj, type) and issubclass(obj, xb.XBackendError) and obj is not xb.XBackendError:
        builtins = [c.__name__ for c in obj.__mro__[1:] if c.__module__ == "builtins" and c not in (Exception,
                    BaseException, object)]  # fmt: skip
        caught = ", ".join(["xb.XBackendError"] + builtins)
        lines += ["", "Examples", "--------", ">>> import xbackend as xb",
                  f">>> issubclass(xb.{obj.__name__}, ({caught}))", "True",
                  "", "What raises it and the fix: :doc:`/guide/errors`."]  # fmt: skip


def _skip_habits(app, what, name, obj, skip, options):  # noqa: ANN001, ANN201 - Sphinx's event signature
    """Other libraries' methods an Array does not have (xbackend/_habits.py: properties that raise with the
    xbackend spelling) are no API: the reference leaves them out."""
    if isinstance(obj, property) and getattr(obj.fget, "__xb_habit__", False):
        return True
    return None


def setup(app):  # noqa: ANN001, ANN201 - Sphinx's extension hook
    app.connect("autodoc-process-docstring", _complete_docstring)
    app.connect("autodoc-skip-member", _skip_habits)

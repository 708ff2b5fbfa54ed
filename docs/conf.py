"""Sphinx configuration for the vcg_otel documentation.

Pages are Markdown (MyST); the API reference is autodoc over the package's docstrings; the
reference tables of emitted names and settings are generated at build time from the code by
the local extension ``_ext/vcg_reference.py``. Build (warnings are errors, as in CI):

    sphinx-build -W --keep-going -b html docs /tmp/vcg-docs
    sphinx-build -W --keep-going -b doctest docs /tmp/vcg-docs-doctest
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # the package from this checkout, not an older install

# litellm (imported by the docs' examples through the judge) must not fetch its price map
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from vcg_otel import __version__  # noqa: E402

project = "vcg_otel"
author = "vcg_otel developers"
copyright = "vcg_otel developers, MIT licence"
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "vcg_reference",
]

# Docstrings name classes by their short name (:class:`Citation`); where two modules define one
# (vcg_otel.audit and the Haystack integration), Sphinx links the first and would warn.
suppress_warnings = ["ref.python"]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# docs/drafts/: other branches' drafts, folded into pages by hand; never built
exclude_patterns = ["_build", "drafts", "drafts/**", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# autodoc: members in each module's __all__ (or its public names), in source order
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_inherit_docstrings = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True  # "Attributes:" as a field list, not duplicate object entries

# doctest: every {testcode} block of the pages runs; output compared where {testoutput} is
doctest_global_setup = """
import os
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
"""

html_theme = "furo"
html_title = f"vcg_otel {release}"
html_static_path: list[str] = []
pygments_style = "sphinx"

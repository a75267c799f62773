"""Sphinx configuration of the kernelkit documentation (``make docs``).

The API reference (``api/``) and the "Differences from scikit-learn" guide page are
generated here from the package itself at every build, so they cannot drift from it.
``KERNELKIT_DOCS_QUICK=1`` (``make docs QUICK=1``, as CI runs it) makes the gallery examples
run on reduced sizes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))

import kk_api  # noqa: E402
import kk_differences  # noqa: E402

import kernelkit  # noqa: E402

QUICK = os.environ.get("KERNELKIT_DOCS_QUICK", "") not in ("", "0")

kk_api.write_api(HERE / "api")
kk_differences.write_page(HERE / "guide" / "differences.rst")

project = "kernelkit"
author = "the kernelkit developers"
copyright = "the kernelkit developers"
release = version = kernelkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # serves MathJax from _static: the site works offline
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
    "kk_differences",
]
extensions = [e for e in extensions if e]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "examples/GALLERY_HEADER.rst"]
templates_path = ["_templates"]
root_doc = "index"
nitpicky = False

# -- API reference ----------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_use_plots = False


def _skip_foreign(app, what, name, obj, skip, options):
    """Document what kernelkit defines: skip members inherited from scikit-learn or
    Python (get_params, set_output, fit_transform...), which are documented there."""
    module = getattr(obj, "__module__", None) or ""
    qualname = getattr(obj, "__qualname__", "")
    if module.startswith(("sklearn", "builtins", "typing", "abc")) and "." in qualname:
        return True
    return None


# -- gallery -----------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "min_reported_time": 1,
    "image_srcset": [],
    "reset_modules": ("matplotlib",),
    "write_computation_times": False,
    "show_signature": False,
    # which examples use which kernelkit names: each reference page lists them
    "doc_module": ("kernelkit",),
    "backreferences_dir": "api/backreferences",
}

# -- user guide plots and math -----------------------------------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"figure.figsize": (6.4, 3.6), "figure.dpi": 100}
plot_pre_code = "import numpy as np\nimport matplotlib.pyplot as plt\nimport kernelkit as kk"
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
# BENCHMARKS.md (included as a page) goes from its title straight to level-3 sections
suppress_warnings = ["myst.header"]

# -- HTML --------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"kernelkit {version}"
html_static_path = ["_static"]
html_css_files = ["kernelkit.css"]
# pages without a section to navigate: no left sidebar (the benchmark tables are wide)
html_sidebars = {"index": [], "benchmarks": [], "design": []}
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": {"**": ["page-toc"], "benchmarks": []},
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_context = {"default_mode": "light"}


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign)

"""Bundled real data sets and generators.

Names are imported lazily from their defining submodules.
"""

from __future__ import annotations

from .._core.lazy import attach

_NAMES = {
    "load_co2": "loaders",
    "load_letters": "loaders",
    "load_diabetes": "loaders",
    "load_breast_cancer": "loaders",
    "load_digits": "loaders",
    "make_letter_words": "letter_words",
    "make_sparse_text": "sparse_text",
}

__getattr__, __dir__, __all__ = attach(__name__, _NAMES)

"""The bottom layer: what every other layer may use, importing nothing of kernelkit above it.

BLAS and numba threads (:mod:`.threads`, :mod:`.blas`), memory budgets and scratch buffers
(:mod:`.memory`, :mod:`.scratch`), small numba loops run by CPython (:mod:`.interpreted`,
:mod:`.twin`, :mod:`.nb_sort`), the solvers' result (:mod:`.result`), progress bars
(:mod:`.progress`), lazy namespaces (:mod:`.lazy`), input validation (:mod:`.validation`)
and the exceptions (:mod:`.exceptions`, public as :mod:`kernelkit.exceptions`).
tests/test_architecture.py checks that nothing here imports anything outside ``_core``.
"""

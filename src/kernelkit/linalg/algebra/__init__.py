"""A small algebra of linear maps: the systems the solvers build, written as they are in the
notes instead of as closures.

Every map has ``shape``, ``dtype``, ``matmul(V)`` (also ``A @ V`` for an array ``V``) and
``to_dense()``; ``solve(B)`` where a closed form exists. Maps compose with ``@`` (a
product, applied right to left), add with ``+`` (a number ``a`` added is ``a I``) and scale
with a number ``*``:

- :func:`as_map` wraps an array, a :class:`~kernelkit.linalg.KernelOperator` or anything
  with ``@`` and ``shape``;
- :class:`Diagonal` ``diag(s)`` (solve: ``B / s``);
- :class:`Projection` ``I - u u^T`` for a unit vector ``u`` (the centering of kernel ridge's
  unpenalized offset: ``P K P``);
- :class:`LowRankPlusIdentity` ``U U^T + a I``, solved by the Woodbury identity
  ``(a I + U U^T)^-1 = (I - U (a I + U^T U)^-1 U^T) / a`` (Nystrom preconditioners);
- :class:`Normal` ``A^T A`` (one pass over a kernel operator's rows: Falkon's
  ``K_nM^T K_nM``);
- :class:`~kernelkit.linalg.algebra.kronecker.Kronecker` ``A (x) B`` and its eigen form
  :class:`~kernelkit.linalg.algebra.kronecker.KroneckerEigen` (module ``kronecker``: the
  multi-output GP on a complete grid).

``A.T`` is the transpose (``t_matmul(V)`` = ``A^T V``): a symmetric map is its own, a
product ``(L R)^T = R^T L^T``, a sum ``a^T + b^T``.

Examples
--------
>>> import numpy as np
>>> from kernelkit.linalg.algebra import Diagonal, Projection, as_map
>>> rng = np.random.default_rng(0)
>>> K = rng.normal(size=(5, 5)); K = K @ K.T
>>> s, u = rng.uniform(1, 2, 5), np.ones(5) / np.sqrt(5)
>>> P, S = Projection(u), Diagonal(s)
>>> A = P @ S @ as_map(K) @ S @ P + 0.5  # the system P S K S P + a I of KernelRidge
>>> dense = (np.eye(5) - np.outer(u, u)) @ np.diag(s)
>>> bool(np.allclose(A.to_dense(), dense @ K @ dense.T + 0.5 * np.eye(5)))
True
"""


from .kronecker import Kronecker, KroneckerEigen
from .maps import (
    Diagonal,
    Identity,
    LinearMap,
    LowRankPlusIdentity,
    Normal,
    Projection,
    as_map,
)

__all__ = ["LinearMap", "as_map", "Identity", "Diagonal", "Projection", "LowRankPlusIdentity",
           "Normal", "Kronecker", "KroneckerEigen"]

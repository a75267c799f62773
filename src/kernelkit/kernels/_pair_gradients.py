"""Contractions of a kernel's gradient over rectangular pairs and diagonals.

The sparse GP's gradient needs ``sum W * dK(X, Z)/dtheta`` (rectangular), the contraction of
``d diag(K)/dtheta`` and ``sum W * dK(X, Z)/dZ`` without forming ``(n, m, p)`` tensors. This
mixin gives every :class:`~kernelkit.kernels.Kernel` the generic forms (through the square
``gradient_dot``); kernels with closed forms override them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PairContractions"]


class PairContractions:
    """Rectangular and diagonal gradient contractions (mixed into ``Kernel``)."""

    def cross_gradient_dot(self, X, Y, W: np.ndarray, K: np.ndarray | None = None
                           ) -> np.ndarray:
        """``g_j = sum_ik W_ik (dK(X, Y)/dtheta_j)_ik`` for a rectangular pair ``(X, Y)``.

        The contraction behind the sparse-GP gradient (``dK_nM/dtheta``) without an
        ``(n, m, p)`` tensor. Sums, products, scales, Constant, White and RBF have closed
        forms; the fallback takes the off-diagonal block of the square gradient of the
        stacked rows ``[X; Y]``, contracted with ``[[0, W/2], [W^T/2, 0]]``
        (``O((n + m)^2)`` per call: pass row blocks).

        Parameters
        ----------
        X : array of shape (n, d)
        Y : array of shape (m, d)
        W : ndarray of shape (n, m)
        K : ndarray of shape (n, m), optional
            This kernel's ``K(X, Y)``, if already computed.

        Returns
        -------
        ndarray of shape (n_dims,)

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import Matern
        >>> X, Y = np.array([[0.0], [1.0]]), np.array([[0.5]])
        >>> k = Matern(1.0, nu=2.5)
        >>> g = k.cross_gradient_dot(X, Y, np.ones((2, 1)))
        >>> h = 1e-6; kp = Matern(np.exp(h), nu=2.5); km = Matern(np.exp(-h), nu=2.5)
        >>> bool(np.isclose(g[0], (kp(X, Y) - km(X, Y)).sum() / (2 * h)))
        True
        """
        if not self.n_dims:
            return np.empty(0)
        X, Y = self._check_input(X), self._check_input(Y)
        n = len(X)
        S = np.zeros((n + len(Y),) * 2)
        S[:n, n:] = 0.5 * W  # S symmetric: sum S * dK = sum W * dK(X, Y)
        S[n:, :n] = 0.5 * np.asarray(W).T
        return self.gradient_dot(np.concatenate([X, Y]), S)

    # True where _value_and_cross_gradient_dot(X, Y, W, K) depends on W and K only through
    # W * K (so that c * k may pass its own K = c Ko instead of dividing): the RBF
    _contracts_through_product = False

    def _value_and_cross_gradient_dot(self, X, Y, W, K=None) -> tuple[float, np.ndarray]:
        """``(sum W * K(X, Y), cross_gradient_dot(X, Y, W, K))`` (for scales and products)."""
        if K is None:
            K = self._compute(self._check_input(X), self._check_input(Y))
        return float(np.sum(W * K)), self.cross_gradient_dot(X, Y, W, K)

    def diag_gradient_dot(self, X, w: np.ndarray) -> np.ndarray:
        """``g_j = sum_i w_i d k(x_i, x_i) / dtheta_j``: the contraction of ``d diag(K)``.

        Kernels whose diagonal does not depend on ``theta`` (the stationary ones) return
        zeros at once; the fallback contracts the square gradient of small row blocks with
        ``diag(w)``.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> (3.0 * RBF()).diag_gradient_dot(np.zeros((4, 2)), np.ones(4)).tolist()
        [12.0, 0.0]
        """
        g = np.zeros(self.n_dims)
        if not self.n_dims:
            return g
        X = self._check_input(X)
        w = np.asarray(w, dtype=float)
        for a in range(0, len(X), 256):
            g += self.gradient_dot(X[a : a + 256], np.diag(w[a : a + 256]))
        return g

    def input_gradient_dot(self, X, Y, W: np.ndarray, K: np.ndarray | None = None
                           ) -> np.ndarray:
        """``G_j = sum_i W_ij d k(x_i, y_j) / d y_j``: the gradient of ``sum W * K(X, Y)``
        with respect to the rows of ``Y`` (inducing-point locations), shape ``(m, d)``.

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> X, Y = np.array([[0.0], [1.0]]), np.array([[0.5]])
        >>> g = RBF(1.0).input_gradient_dot(X, Y, np.ones((2, 1)))
        >>> float(g[0, 0])  # the two terms cancel by symmetry
        0.0
        """
        raise NotImplementedError(
            f"{type(self).__name__} has no gradient with respect to its inputs; learned "
            "inducing points need one (RBF, Linear, Constant, White and their sums, "
            "products and scales have it)."
        )

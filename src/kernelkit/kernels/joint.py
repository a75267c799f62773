"""Joint kernels on (input, output) pairs: k((x, y), (x', y')) = k_X(x, x') * k_Y(y, y').

The product of two PSD kernels is PSD (Schur product theorem) and its RKHS is the
tensor product H_X (x) H_Y: the joint feature map is phi(x) (x) psi(y). This is how a
k-class score vector becomes a single function f(x, y) (see ``kernelkit.structured``).
"""

from __future__ import annotations

import numpy as np

from ._params import _as_float_array, _n_rows
from .base import Kernel

__all__ = ["JointKernel"]


class JointKernel(Kernel):
    """Product kernel on pairs ``(X, y)``.

    Parameters
    ----------
    input_kernel : Kernel
        Kernel on inputs, k_X.
    label_kernel : None, Kernel or array of shape (n_labels, n_labels)
        Kernel on outputs, k_Y. ``None`` is the delta kernel 1[y = y'] (plain classes);
        a square matrix is indexed by integer labels; a Kernel is evaluated on the labels
        as 1-D feature vectors (or on 2-D label encodings).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import JointKernel, Linear
    >>> k = JointKernel(Linear())
    >>> X = np.array([[1.0], [2.0]]); y = np.array([0, 1])
    >>> k((X, y), (X, np.array([0, 0]))).tolist()
    [[1.0, 2.0], [0.0, 0.0]]
    """

    def __init__(self, input_kernel: Kernel, label_kernel=None):
        self.input_kernel = input_kernel
        self.label_kernel = label_kernel

    @property
    def hyperparameters(self):
        hs = [h._replace(name="input_kernel__" + h.name) for h in self.input_kernel.hyperparameters]
        if isinstance(self.label_kernel, Kernel):
            hs += [h._replace(name="label_kernel__" + h.name)
                   for h in self.label_kernel.hyperparameters]
        return hs

    @property
    def requires_vector_input(self):
        return False

    def _check_input(self, A):
        if not (isinstance(A, tuple) and len(A) == 2):
            raise ValueError("JointKernel inputs are pairs (X, y) of inputs and their outputs.")
        X, y = A
        X = self.input_kernel.check_input(X)  # sparse rows: the input kernel says if it can
        y = np.asarray(y)
        if len(y) != _n_rows(X):
            raise ValueError(f"X has {_n_rows(X)} rows but y has {len(y)} outputs.")
        return X, y

    def label_matrix(self, y1, y2=None) -> np.ndarray:
        """k_Y between two label arrays."""
        y2 = y1 if y2 is None else y2
        lk = self.label_kernel
        if lk is None:
            return (y1[:, None] == y2[None, :]).astype(np.float64)
        if isinstance(lk, Kernel):
            a = _as_float_array(y1.reshape(len(y1), -1))
            b = _as_float_array(y2.reshape(len(y2), -1))
            return lk._compute(a, b)
        M = np.asarray(lk, dtype=float)
        if M.ndim != 2 or M.shape[0] != M.shape[1]:
            raise ValueError("label_kernel must be None, a Kernel or a square matrix.")
        yi, yj = np.asarray(y1, dtype=np.intp), np.asarray(y2, dtype=np.intp)
        if yi.min(initial=0) < 0 or max(yi.max(initial=0), yj.max(initial=0)) >= len(M):
            raise ValueError(f"labels must lie in 0..{len(M) - 1} for this label matrix.")
        return M[np.ix_(yi, yj)]

    def _compute(self, A, B):
        X, y = A
        X2, y2 = (X, None) if B is None else B
        K = self.input_kernel._compute(X, None if B is None else X2)
        K *= self.label_matrix(y, y2)  # k = k_X(x, x') k_Y(y, y')
        return K

    def diag(self, A):
        X, y = self._check_input(A)
        lk = self.label_kernel
        if lk is None:
            ly = np.ones(len(y))
        elif isinstance(lk, Kernel):
            ly = lk.diag(_as_float_array(y.reshape(len(y), -1)))
        else:
            ly = np.diagonal(np.asarray(lk, float))[np.asarray(y, dtype=np.intp)]
        return self.input_kernel.diag(X) * ly

    def gradient(self, A, K=None):
        X, y = self._check_input(A)
        L = self.label_matrix(y)
        for dK in self.input_kernel.gradient(X):
            dK *= L
            yield dK
        if isinstance(self.label_kernel, Kernel):
            KX = self.input_kernel._compute(X, None)
            Y2 = _as_float_array(y.reshape(len(y), -1))
            for dL in self.label_kernel.gradient(Y2):
                dL *= KX
                yield dL

"""Online updates of kernel ridge regression: extend the Cholesky factor by a block.

``dual_coef = (K + alpha I)^-1 y``: with ``K + alpha I = L L^T`` kept from the dense fit as
a :class:`~kernelkit.linalg.BlockCholesky` (the factor the GP's online updates extend too),
k new points append a block row to L (O(n^2 k), the factor never copied) and the
coefficients are two triangular solves on all n + k targets (O(n^2)).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..linalg import BlockCholesky

__all__ = ["OnlineState", "online_state", "extend_kernel_ridge"]


class OnlineState(NamedTuple):
    """What partial_fit extends: the factor, its jitter, the targets and the penalty."""

    L: BlockCholesky
    jitter: float
    Y: np.ndarray  # (n, t) training targets
    alpha: float


def online_state(model, Y, alphas, sample_weight, factor) -> OnlineState | None:
    """The state kept after fit, or None when the fit does not support partial_fit."""
    simple = (factor is not None and not model.fit_intercept
              and sample_weight is None and np.unique(alphas).size == 1
              and not (isinstance(model.kernel, str) and model.kernel == "precomputed"))
    if not simple:
        return None
    L, jitter = factor
    return OnlineState(BlockCholesky(L), float(jitter), np.array(Y), float(alphas[0]))


def _unsupported(model) -> ValueError:
    return ValueError(
        "partial_fit supports KernelRidge fits by the dense 'cholesky' solver with "
        "fit_intercept=False, no sample_weight, one alpha for all targets and a kernel "
        f"that is not 'precomputed' (it extends the kept Cholesky factor); this fit used "
        f"solver={model.solver_!r}, fit_intercept={model.fit_intercept}. Fit again on all "
        "the data, or fit with solver='cholesky' to add points later."
    )


def extend_kernel_ridge(model, X, y) -> None:
    """Add ``(X, y)`` to a fitted KernelRidge (new fitted arrays; none written in place)."""
    state = getattr(model, "_online", None)
    if state is None:
        raise _unsupported(model)
    y = np.asarray(y, dtype=state.Y.dtype)
    Y_new = y.reshape(len(y), -1) if y.ndim <= 2 else y
    if Y_new.shape != (X.shape[0], state.Y.shape[1]) \
            or (y.ndim == 2) != (model.dual_coef_.ndim == 2):
        raise ValueError(
            f"y has shape {y.shape} but X has {X.shape[0]} rows and the model was fitted on "
            f"{state.Y.shape[1]} target(s) of dual_coef_ shape {model.dual_coef_.shape}; give "
            "one row of targets per new point."
        )
    if not np.all(np.isfinite(Y_new)):
        raise ValueError("y contains NaN or infinity.")
    X = X.astype(model.X_fit_.dtype, copy=False)
    A22 = model.kernel_(X)
    A22[np.diag_indices_from(A22)] += state.alpha + state.jitter  # the fit's diagonal
    L, extra = state.L.append(
        model.kernel_(model.X_fit_, X), A22,
        what="regularized kernel matrix K + alpha I",
        hint="increase alpha or use a kernel that is positive semi-definite",
    )
    Y = np.vstack([state.Y, Y_new])
    coef = L.cho_solve(Y)  # dual_coef = (K + alpha I)^-1 y on all the data
    if sp.issparse(model.X_fit_) or sp.issparse(X):  # sparse training rows stay sparse
        model.X_fit_ = sp.vstack([model.X_fit_, X], format="csr")
    else:
        model.X_fit_ = np.vstack([model.X_fit_, X])
    model.dual_coef_ = coef[:, 0] if model.dual_coef_.ndim == 1 else coef
    model._online = OnlineState(L, state.jitter + extra, Y, state.alpha)

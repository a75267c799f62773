"""L-BFGS-B on the Kronecker path with the coregionalization profiled out.

The ICM likelihood on a complete grid depends on the kernel's hyperparameters only through
``K_x = V S V^T`` (O(n^3)); given ``(S, V, V^T Y)`` an evaluation in the others (W, kappa,
the noise variances: phi) costs O(n T^2) (see ``_kronecker.py``). So instead of one
L-BFGS-B over everything, where each of the hundreds of steps an ill-conditioned
coregionalization needs pays for an eigendecomposition, the outer L-BFGS-B runs over the
kernel's theta alone on the profile

    p(theta_k) = max_phi lml(theta_k, phi),     dp/dtheta_k = d lml/d theta_k (theta_k, phi*)

(the envelope theorem: at the inner optimum, phi*'s own change does not move p to first
order), and the inner L-BFGS-B over phi runs to a tight tolerance on the cached
eigendecomposition, warm-started from the previous inner optimum. A maximum of the profile
is a maximum of the likelihood; each outer step costs one eigendecomposition.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize

from ._kronecker import kernel_eigen, kronecker_log_marginal_likelihood
from ._optimize import lbfgs_box
from ._optimizer_warnings import warn_lbfgs_stop

__all__ = ["profiled_minimize"]

# the inner problem is cheap (O(n T^2) per evaluation): solve it tightly, so that the outer
# gradient (envelope theorem) is exact to well below the outer tolerance
_INNER = {"ftol": 1e-12, "gtol": 1e-8, "maxiter": 15000}  # (1e-14 made the inner solves creep
# along the flat rotations of W for thousands of steps: n = 300, T = 8 took 48 s, not 8 s)


def profiled_minimize(params, X, Y, theta0, bounds) -> tuple[np.ndarray, float]:
    """``(theta, -lml(theta))`` maximizing the ICM likelihood from ``theta0``.

    Parameters
    ----------
    params : Coregionalization
        Q = 1; its theta is overwritten.
    X : ndarray of shape (n, d)
    Y : ndarray of shape (n, T)
        Every entry observed.
    theta0 : ndarray of shape (p,)
    bounds : ndarray of shape (p, 2)
    """
    nk = params.kernels[0].n_dims
    theta0 = np.asarray(theta0, dtype=float)
    bounds = np.asarray(bounds, dtype=float)
    phi = {"last": theta0[nk:].copy()}

    def inner(theta_k):
        params.theta = np.concatenate([theta_k, phi["last"]])
        eig = kernel_eigen(params.kernels[0], X, Y)

        def f(p):
            params.set_tail(p)  # the kernel (theta_k) is set above
            lml, grad = kronecker_log_marginal_likelihood(params, X, Y, True, eig=eig,
                                                          kernel_gradient=False)
            return -lml, -grad[nk:]

        if phi["last"].size == 0:  # nothing but the kernel is learned
            return eig, phi["last"], float(f(phi["last"])[0])
        res = scipy.optimize.minimize(f, phi["last"], jac=True, method="L-BFGS-B",
                                      bounds=lbfgs_box(bounds[nk:]), options=_INNER)
        phi["last"] = np.asarray(res.x, dtype=float)
        return eig, phi["last"], float(res.fun)

    if nk == 0:
        _, p, fun = inner(np.empty(0))
        return p, fun

    def outer(theta_k):
        eig, p, _ = inner(theta_k)
        params.theta = np.concatenate([theta_k, p])
        lml, grad = kronecker_log_marginal_likelihood(params, X, Y, True, eig=eig)
        return -lml, -grad[:nk]

    res = scipy.optimize.minimize(outer, theta0[:nk], jac=True, method="L-BFGS-B",
                                  bounds=lbfgs_box(bounds[:nk]))
    if not res.success:
        warn_lbfgs_stop(res)
    theta_k = np.asarray(res.x, dtype=float)
    _, p, fun = inner(theta_k)  # phi at the optimum (not at the last line-search trial)
    return np.concatenate([theta_k, p]), fun

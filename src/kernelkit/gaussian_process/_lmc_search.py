"""The coordinates in which L-BFGS-B searches the LMC's likelihood on the Cholesky path.

``theta`` (the public vector, see :class:`Coregionalization`) holds log variances and every
entry of each ``W_q``. Two of its features make a quasi-Newton search slow without changing
what it can reach:

- a variance whose maximum-likelihood value is (near) 0 (an output without noise of its own,
  a kappa that the rank-r part leaves nothing to) lies at ``log v -> -inf``: the likelihood is
  flat there (``d lml / d log v = v d lml / dv -> 0``) and L-BFGS-B creeps down a constant
  step at a time until the lower bound. In the standard deviation ``u = sqrt(v)`` the same
  boundary optimum is an ordinary one (``dv / du = 2u``: the likelihood is locally quadratic
  in u), reached in a few steps;
- ``B_q = W_q W_q^T`` is unchanged by ``W_q -> W_q R`` for any orthogonal r x r ``R``: a
  flat valley of r(r-1)/2 dimensions. Writing ``W_q^T = Q R`` (QR), ``W_q Q = R^T`` is lower
  trapezoidal (zeros above the diagonal) with the same ``W_q W_q^T``; the search keeps those
  zeros fixed and moves the other entries.

Both are changes of coordinates of the same box-constrained problem (``v = u^2`` maps
``[sqrt(lo), sqrt(hi)]`` onto ``[lo, hi]``, and every ``B_q`` of rank <= r has a lower
trapezoidal factor), so the optimum is the same maximum likelihood. On the demo's diabetes
problem (250 inputs, 6 outputs, 30% missing: 1,044 pairs, 29 hyperparameters) the search
took 417 evaluations in ``theta`` and takes 113 here (with L-BFGS-B keeping as many
correction pairs as there are parameters, up to 50), to a likelihood 0.013 higher.

One flat direction is left that no change of coordinates of a generic kernel removes: the
length-scale of a binary input ('sex') whose two values the likelihood wants uncorrelated.
Their kernel factor ``exp(-d^2 / (2 l^2))`` goes to 0 with ``l``, and every derivative with
it: with scipy's stopping rule (a step gaining < 2.2e-9 |f|) the last 27 of the 113
evaluations walk ``log l`` from -0.57 to -0.97 (the factor from 1e-3 to 1e-6) for 0.0025 in
log ML. With ``FTOL = 1e-8`` the search stops at 86 evaluations: log ML -1091.5889 against
-1091.5864 (2.3e-6 relative), every prediction within 0.7% of its output's standard
deviation (RMSE on the hidden entries 0.64488 against 0.64493). Searching each standard
deviation in units of its start (:func:`search_minimize`) then takes 72: log ML -1091.5887,
predictions within 1.6% of the standard deviations of the 113-evaluation fit's (RMSE 0.64498).
"""

from __future__ import annotations

import numpy as np
import scipy.optimize

from ._coregionalization import Coregionalization
from ._optimize import lbfgs_box
from ._optimizer_warnings import warn_lbfgs_stop

__all__ = ["SearchSpace", "scaled_objective", "search_minimize"]

# L-BFGS-B's correction pairs: one per parameter (a full BFGS model) up to this many; an
# evaluation costs O(N^3) (a Cholesky factor and the inverse), the model O(p * memory)
_MAX_MEMORY = 50
# L-BFGS-B stops when a step gains less than FTOL |f| (scipy's default, factr 1e7, is
# 2.2e-9; 1e-8 is factr 4.5e7, still its "moderate accuracy"). A likelihood that only
# approaches its supremum towards a bound (below) otherwise takes tens of steps that each
# gain < 1e-4: on the demo's problem 113 evaluations against 86, for 0.0025 in log ML
FTOL = 1e-8


class SearchSpace:
    """The map ``theta <-> u`` between the public vector and the search coordinates.

    Parameters
    ----------
    params : Coregionalization
        Only its layout (kernels' sizes, W shapes, which variances are learned) is read.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.gaussian_process._coregionalization import Coregionalization
    >>> from kernelkit.gaussian_process._lmc_search import SearchSpace
    >>> b = np.array([1e-6, 1e5])
    >>> p = Coregionalization([RBF(1.0)], [np.array([[1.0, 2.0], [3.0, 4.0]])],
    ...                       np.ones((1, 2)), np.full(2, 0.25), b, b)
    >>> space = SearchSpace(p)
    >>> u = space.to_search(p.theta)
    >>> u.size, p.theta.size  # W[0, 1] is held at 0
    (8, 9)
    >>> p2 = Coregionalization([RBF(1.0)], [np.zeros((2, 2))], np.ones((1, 2)),
    ...                        np.ones(2), b, b)
    >>> p2.theta = space.to_theta(u)
    >>> bool(np.allclose(p2.Bs(), p.Bs())), p2.noise.tolist()
    (True, [0.25, 0.25])
    """

    def __init__(self, params: Coregionalization):
        size = params.n_dims
        T = params.n_outputs
        self._variance = np.zeros(size, dtype=bool)  # log-variance entries of theta
        self._keep = np.ones(size, dtype=bool)  # entries the search moves
        self._W = []  # (start, shape) of each W_q in theta
        i = sum(k.n_dims for k in params.kernels)
        for W in params.W:
            t, r = W.shape
            self._W.append((i, (t, r)))
            upper = np.triu(np.ones((t, r), dtype=bool), k=1)  # the gauge's zeros
            self._keep[i:i + W.size] = ~upper.ravel()
            i += W.size
            if params.kappa_bounds is not None:
                self._variance[i:i + T] = True
                i += T
        if params.noise_bounds is not None:
            self._variance[i:i + T] = True
        self.bounds_theta = params.bounds

    def to_search(self, theta: np.ndarray) -> np.ndarray:
        """``u``: each ``W_q`` rotated to its lower trapezoidal factor, variances as
        standard deviations (``u = exp(theta / 2)``)."""
        th = np.array(theta, dtype=float)
        for start, (t, r) in self._W:
            W = th[start:start + t * r].reshape(t, r)
            if r:
                Q, _ = np.linalg.qr(W.T, mode="complete")  # W^T = Q R, W Q = R^T
                W = W @ Q
                W[np.triu_indices(t, k=1, m=r)] = 0.0  # rounding of the exact zeros
            th[start:start + t * r] = W.ravel()
        th[self._variance] = np.exp(0.5 * th[self._variance])
        return th[self._keep]

    def _full(self, u: np.ndarray) -> np.ndarray:
        th = np.zeros(self._keep.size)
        th[self._keep] = u
        return th

    def to_theta(self, u: np.ndarray) -> np.ndarray:
        """``theta`` of a point ``u`` (``log v = 2 log u``; the gauge's zeros filled in)."""
        th = self._full(u)
        th[self._variance] = 2.0 * np.log(th[self._variance])
        return th

    def gradient(self, u: np.ndarray, grad_theta: np.ndarray) -> np.ndarray:
        """``d f / d u`` from ``d f / d theta`` (chain rule: ``d theta / d u = 2 / u`` for a
        variance, 1 otherwise)."""
        g = np.array(grad_theta, dtype=float)
        g[self._variance] *= 2.0 / self._full(u)[self._variance]
        return g[self._keep]

    @property
    def variance(self) -> np.ndarray:
        """Which entries of ``u`` are standard deviations (bool mask)."""
        return self._variance[self._keep]

    def bounds(self) -> np.ndarray:
        """Bounds of ``u`` (a variance's ``[lo, hi]`` becomes ``[sqrt(lo), sqrt(hi)]``)."""
        b = np.array(self.bounds_theta, dtype=float)
        b[self._variance] = np.exp(0.5 * b[self._variance])
        return b[self._keep]


def scaled_objective(obj_func, space: SearchSpace, scale: np.ndarray):
    """``z -> (value, d value / d z)`` at ``u = z * scale`` from ``obj_func`` in ``theta``."""
    def f(z):
        u = z * scale
        value, grad = obj_func(space.to_theta(u))
        return value, space.gradient(u, grad) * scale  # chain rule: du / dz = scale

    return f


def search_minimize(obj_func, theta0, space: SearchSpace) -> tuple[np.ndarray, float]:
    """``(theta, obj_func(theta))`` of L-BFGS-B in the search coordinates from ``theta0``.

    Each standard deviation is searched in units of its starting value (``z = u / u0``,
    every other coordinate as it is): L-BFGS-B's first step and its initial Hessian
    ``gamma I`` treat all coordinates alike, and a kappa's ``sqrt`` may start 30 times
    smaller than a length-scale's log. A diagonal scaling of the box: the same optimum.
    ``obj_func(theta) -> (value, gradient)`` in ``theta``; a stop that is not convergence
    warns with its reason (as :func:`~._optimize.minimize_once`).
    """
    u0 = space.to_search(theta0)
    scale = np.where(space.variance, u0, 1.0)  # u0 > 0: a variance's sqrt
    f = scaled_objective(obj_func, space, scale)
    res = scipy.optimize.minimize(
        f, u0 / scale, jac=True, method="L-BFGS-B",
        bounds=lbfgs_box(space.bounds() / scale[:, None]),
        options={"maxcor": int(min(max(u0.size, 10), _MAX_MEMORY)), "ftol": FTOL})
    if not res.success:
        warn_lbfgs_stop(res)
    return space.to_theta(np.asarray(res.x, dtype=float) * scale), float(res.fun)

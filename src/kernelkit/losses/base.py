"""The Loss protocol: value, derivative, convex conjugate and the dual coordinate step.

Conventions shared by every loss, solver and estimator
------------------------------------------------------
A kernel machine minimises the regularised risk (lecture notes)

    J(f) = (1/m) sum_i l(y_i, f(x_i)) + alpha ||f||_H^2 .

Multiplying by ``1 / (2 alpha)`` gives the libsvm scaling with ``C = 1 / (2 alpha m)``:

    P(f) = 1/2 ||f||^2 + C sum_i l(y_i, f(x_i)).

By the representer theorem ``f = sum_j a_j k(x_j, .)`` (``f = K a`` on the sample), and the
Fenchel dual of ``P`` is

    D(a) = -1/2 a^T K a - C sum_i l*(y_i, -a_i / C),

with ``l*(y, s) = sup_f s f - l(y, f)`` the convex conjugate in the second argument (``+inf``
outside its domain). At the optimum ``a`` are exactly the representer coefficients and the
duality gap ``P(Ka) - D(a) = sum_i [a_i f_i + C l(y_i, f_i) + C l*(y_i, -a_i/C)] >= 0``
(Fenchel-Young) is the stopping rule of :func:`kernelkit.solvers.solve_dual_cd`.

The *dual step* (:meth:`Loss.dual_step`) is the exact minimiser of ``-D`` along one
coordinate:

    a_new = argmin_b  1/2 q (b - a)^2 + g (b - a) + C l*(y, -b / C),

where ``a`` is the current coefficient, ``g = (K a)_i`` the current output and
``q = K_ii``.  All losses here except the logistic have a *quadratic-box conjugate*

    C l*(y, -b / C) = -y b + c2 b^2 / (2 C) + eps |b|,   b in [lo, hi]   (box in a-space),

described by :attr:`Loss.dual_quadratic` ``= (c2, eps)`` and :meth:`Loss.dual_box`; their step
is ``clip(soft(q a - g + y, eps) / (q + c2 / C), lo, hi)`` (one formula, implemented once in
:func:`quadratic_box_step`). Piecewise-linear losses (``c2 = 0``) also have a libsvm form
(:meth:`Loss.libsvm_form`) so that the SMO solver can fit an unregularised intercept.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["Loss", "quadratic_box_step", "soft_threshold"]


@njit(cache=True)
def soft_threshold(z: float, eps: float) -> float:
    """``sign(z) max(|z| - eps, 0)``."""
    if z > eps:
        return z - eps
    if z < -eps:
        return z + eps
    return 0.0


@njit(cache=True)
def quadratic_box_step(y, a, g, q, C, c2, eps, lo, hi):
    """Exact coordinate step for a quadratic-box conjugate (see module docstring).

    Minimises ``1/2 q (b - a)^2 + g (b - a) - y b + c2 b^2/(2C) + eps |b|`` over
    ``lo <= b <= hi``: ``b = clip(soft(q a - g + y, eps) / (q + c2/C), lo, hi)``.
    """
    den = q + c2 / C
    if den <= 0.0:  # q = 0 and linear conjugate: move to the bound the slope points to
        slope = g - y
        if slope > eps:
            return lo
        if slope < -eps:
            return hi
        return min(max(0.0, lo), hi)
    b = soft_threshold(q * a - g + y, eps) / den
    if b < lo:
        return lo
    if b > hi:
        return hi
    return b


class Loss:
    """Base class of losses ``l(y, f)``; a loss never holds a kernel.

    Subclasses implement :meth:`value`, :meth:`derivative`, :meth:`conjugate` and
    :meth:`conjugate_domain`, and either set :attr:`dual_quadratic` (then :meth:`dual_step`
    comes for free) or override :meth:`dual_step`.

    Attributes
    ----------
    name : str
        The name :func:`~kernelkit.losses.resolve_loss` knows it by.
    smooth : bool
        ``True`` when ``l`` is differentiable in ``f`` with a Lipschitz derivative (the
        Newton solver can be used; :meth:`second_derivative` is then defined).
    is_classification, is_regression, is_multiclass : bool
        Which estimators accept the loss. Binary classification losses take ``y`` in {-1, +1};
        multiclass losses take integer labels and an ``(n, n_classes)`` score matrix.
    dual_quadratic : tuple (c2, eps) or None
        The quadratic-box form of the scaled conjugate (module docstring), or ``None``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.losses import Hinge
    >>> loss = Hinge()
    >>> loss.value(np.array([1.0]), np.array([0.25]))
    array([0.75])
    >>> f, a = 0.25, loss.derivative(np.array([1.0]), np.array([0.25]))
    >>> # Fenchel-Young equality at a = l'(f): l(f) + l*(a) = a f
    >>> bool(np.isclose(loss.value(1.0, f) + loss.conjugate(1.0, a), a * f))
    True
    """

    name: str = "loss"
    smooth: bool = False
    is_classification: bool = False
    is_regression: bool = False
    is_multiclass: bool = False
    dual_quadratic: tuple[float, float] | None = None

    # ------------------------------------------------------------------ primal
    def value(self, y, f) -> np.ndarray:
        """``l(y, f)`` elementwise."""
        raise NotImplementedError

    def derivative(self, y, f) -> np.ndarray:
        """``dl/df`` elementwise (a subgradient at kinks)."""
        raise NotImplementedError

    def subgradient(self, y, f) -> np.ndarray:
        """Alias of :meth:`derivative` (an element of the subdifferential at kinks)."""
        return self.derivative(y, f)

    def __call__(self, y, f) -> np.ndarray:
        """``l(y, f)``, the same as :meth:`value`."""
        return self.value(y, f)

    def second_derivative(self, y, f) -> np.ndarray:
        """``d^2 l / df^2`` (generalised Hessian for piecewise-quadratic losses)."""
        raise NotImplementedError(f"{type(self).__name__} is not twice differentiable.")

    # -------------------------------------------------------------------- dual
    def conjugate(self, y, s) -> np.ndarray:
        """Convex conjugate ``l*(y, s) = sup_f s f - l(y, f)``; ``+inf`` outside the domain."""
        raise NotImplementedError

    def conjugate_domain(self, y) -> tuple[np.ndarray, np.ndarray]:
        """Closed interval ``[s_lo, s_hi]`` (elementwise) where ``l*(y, .)`` is finite."""
        raise NotImplementedError

    def dual_box(self, y, C: float) -> tuple[np.ndarray, np.ndarray]:
        """Box ``[lo, hi]`` of the coefficients ``a = -C s`` (``s`` in the conjugate domain)."""
        s_lo, s_hi = self.conjugate_domain(y)
        return -C * np.asarray(s_hi, dtype=float), -C * np.asarray(s_lo, dtype=float)

    @property
    def has_dual_step(self) -> bool:
        return self.dual_quadratic is not None

    def dual_step(self, y, a, g, q, C: float) -> np.ndarray:
        """Exact coordinate minimiser ``argmin_b 1/2 q (b-a)^2 + g (b-a) + C l*(y, -b/C)``.

        Elementwise over arrays; ``a`` the current coefficient, ``g = (K a)_i`` the current
        output at that point, ``q = K_ii > 0``.
        """
        if self.dual_quadratic is None:
            raise NotImplementedError(f"{type(self).__name__} has no closed-form dual step.")
        c2, eps = self.dual_quadratic
        y, a, g, q = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (y, a, g, q)))
        lo, hi = self.dual_box(y, C)
        lo, hi = np.broadcast_to(lo, y.shape), np.broadcast_to(hi, y.shape)
        out = np.empty(y.shape)
        for k in np.ndindex(y.shape):
            out[k] = quadratic_box_step(y[k], a[k], g[k], q[k], C, c2, eps, lo[k], hi[k])
        return out

    def libsvm_form(self, y, C: float):
        """The intercept problem in libsvm form, for :func:`~kernelkit.solvers.solve_smo`.

        Returns ``dict(p, ys, lower, upper, idx)`` such that
        ``min 1/2 b^T Q b + p^T b, ys^T b = 0, lower <= b <= upper`` with
        ``Q_uv = ys_u ys_v K[idx_u, idx_v]`` is the dual of ``P`` with an unregularised
        intercept; the coefficients are ``a_r = sum_{u: idx_u = r} ys_u b_u`` and
        ``f(x) = sum_r a_r k(x_r, x) - rho``. ``None`` when the loss has no such form
        (non-linear conjugate).
        """
        if self.dual_quadratic is None or self.dual_quadratic[0] != 0.0:
            return None
        eps = self.dual_quadratic[1]
        y = np.asarray(y, dtype=float)
        n = len(y)
        lo, hi = self.dual_box(y, C)
        lo, hi = np.broadcast_to(lo, y.shape).astype(float), np.broadcast_to(hi, y.shape)
        hi = hi.astype(float)
        if eps == 0.0:
            # C l*(-b/C) = -y b on the box: p = -y, ys = +1 (a-space)
            return dict(p=-y, ys=np.ones(n), lower=lo, upper=hi, idx=np.arange(n))
        # eps |b|: split b = b+ - b- with b+ in [0, hi], b- in [0, -lo] (libsvm's eps-SVR)
        return dict(
            p=np.concatenate([eps - y, eps + y]),
            ys=np.concatenate([np.ones(n), -np.ones(n)]),
            lower=np.zeros(2 * n),
            upper=np.concatenate([np.maximum(hi, 0.0), np.maximum(-lo, 0.0)]),
            idx=np.concatenate([np.arange(n), np.arange(n)]),
        )

    # ------------------------------------------------------------------- misc
    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(vars(self).items()))))


def _inf_outside(value, inside):
    """``value`` where ``inside``, ``+inf`` elsewhere (as float array)."""
    value = np.asarray(value, dtype=float)
    return np.where(inside, value, np.inf)

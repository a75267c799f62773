"""State of the margin-rescaled structured SVM dual, shared by its two solvers.

Primal (n-slack, margin rescaling):
    min_w  1/2 ||w||^2 + C sum_i max_y [Delta(y_i, y) - <w, psi_i(y)>],
    psi_i(y) = phi(x_i, y_i) - phi(x_i, y).
Dual over the (example, output) pairs:
    max_alpha  sum_{i,y} alpha_iy Delta(y_i, y) - 1/2 ||sum_{i,y} alpha_iy psi_i(y)||^2
    s.t. alpha_i in C * simplex (the mass left on y_i carries psi = 0, Delta = 0).
Per example i the solvers keep w_i = sum_y alpha_iy psi_i(y) (its unary rows U[rows_i] in
:class:`~kernelkit.structured._field.UnaryField` and its explicit part tau_blk[i]) and
ell_i = sum_y alpha_iy Delta(y_i, y), so that w = sum_i w_i, dual D = sum_i ell_i - ||w||^2/2
and the duality gap P - D = ||w||^2 + C sum_i H_i - sum_i ell_i with
H_i = max_y Delta(y_i, y) - <w, psi_i(y)> (one loss-augmented inference per example).
"""

from __future__ import annotations

import numpy as np

from .base import Scores

__all__ = ["DualState"]


class DualState:
    """Dual variables, w's pieces and the working set of (example, output) pairs."""

    def __init__(self, oracle, parts, offsets, Z, field, C: float):
        self.oracle, self.parts, self.offsets, self.Z = oracle, parts, offsets, Z
        self.field, self.C = field, float(C)
        self.L = np.asarray(oracle.label_kernel_matrix(), dtype=np.float64)
        self.L_is_eye = bool(np.array_equal(self.L, np.eye(len(self.L))))
        n = len(offsets) - 1
        self.tau_true = oracle.pairwise_batch(Z, offsets)  # tau(y_i), (n, D)
        D = self.tau_true.shape[1]
        self.w_tau = np.zeros(D)
        self.tau_blk = np.zeros((n, D))
        self.ell = np.zeros(n)
        self.ws_z: list[list[np.ndarray]] = [[] for _ in range(n)]  # outputs y != y_i
        self.ws_alpha: list[np.ndarray] = [np.zeros(0) for _ in range(n)]
        self.ws_index: list[dict] = [{} for _ in range(n)]  # output bytes -> position
        self._off = [int(o) for o in offsets]

    # ------------------------------------------------------------- blocks
    def rows(self, i: int) -> tuple[int, int]:
        return self._off[i], self._off[i + 1]

    def scores(self, i: int) -> Scores:
        """Unary scores G = (K U L)[rows_i] and transition weights of f(x_i, .)."""
        a, b = self.rows(i)
        G = self.field.scores(a, b)
        return Scores(G if self.L_is_eye else G @ self.L, self.w_tau)

    def psi(self, i: int, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """psi_i(z): unary rows E(y_i) - E(z) (one-hot, (T, S)) and tau(y_i) - tau(z)."""
        a, b = self.rows(i)
        T, t = b - a, np.arange(b - a)
        dU = np.zeros((T, len(self.L)))
        dU[t, self.Z[a:b]] += 1.0
        dU[t, z] -= 1.0
        return dU, self.tau_true[i] - self.oracle.pairwise_features(z)

    def inner_w(self, G: np.ndarray, dU: np.ndarray, dtau: np.ndarray) -> float:
        """<w, d> for a block direction d = (dU, dtau): sum(dU * G) + w_tau . dtau."""
        return float(np.vdot(dU, G) + np.dot(self.w_tau, dtau))

    def sq_norm(self, i: int, dU: np.ndarray, dtau: np.ndarray) -> float:
        """||d||^2 = tr(dU^T K_ii dU L) + ||dtau||^2."""
        a, b = self.rows(i)
        KdU = self.field.gram(a, b) @ dU
        return float(np.vdot(KdU if self.L_is_eye else KdU @ self.L, dU) + np.dot(dtau, dtau))

    def apply(self, i: int, dU: np.ndarray, dtau: np.ndarray) -> None:
        """w_i += d (and w with it)."""
        a, b = self.rows(i)
        self.field.update(a, b, dU)
        self.tau_blk[i] += dtau
        self.w_tau += dtau

    # ------------------------------------------------------- working set
    def find(self, i: int, z: np.ndarray) -> int:
        return self.ws_index[i].get(np.asarray(z, dtype=np.int64).tobytes(), -1)

    def add(self, i: int, z: np.ndarray) -> int:
        z = np.asarray(z, dtype=np.int64).copy()
        self.ws_index[i][z.tobytes()] = len(self.ws_z[i])
        self.ws_z[i].append(z)
        self.ws_alpha[i] = np.append(self.ws_alpha[i], 0.0)
        return len(self.ws_z[i]) - 1

    def n_active(self) -> int:
        return int(sum(np.count_nonzero(a > 0) for a in self.ws_alpha))

    # -------------------------------------------------------- objectives
    def inference(self, G: np.ndarray | None = None):
        """Loss-augmented inference for every example at the current w.

        Returns (G, Zs, H): unary scores (K U L) of all parts, the most violated outputs
        and H_i = max(0, Delta(y_i, y*) + f(x_i, y*) - f(x_i, y_i)).
        """
        off, Z = self.offsets, self.Z
        if G is None:
            G = self.field.all_scores()
            G = G if self.L_is_eye else G @ self.L
        Zs = self.oracle.argmax_batch(self.parts, off, G, self.w_tau, Z)
        p = np.arange(len(Z))
        f_true = np.add.reduceat(G[p, Z], off[:-1]) + self.tau_true @ self.w_tau
        f_star = (np.add.reduceat(G[p, Zs], off[:-1])
                  + self.oracle.pairwise_batch(Zs, off) @ self.w_tau)
        H = np.maximum(self.oracle.loss_batch(Z, Zs, off) + f_star - f_true, 0.0)
        return G, Zs, H

    def objectives(self, H: np.ndarray | None = None) -> tuple[float, float]:
        """(primal, dual) at the current w: P = ||w||^2/2 + C sum H_i, D = sum ell_i - ||w||^2/2."""
        if H is None:
            H = self.inference()[2]
        wsq = self.field.sq_norm(self.L) + float(self.w_tau @ self.w_tau)
        return 0.5 * wsq + self.C * float(H.sum()), float(self.ell.sum()) - 0.5 * wsq

    def get_state(self) -> list:
        """Copies of everything that defines (alpha, w): the best certified iterate."""
        return self.field.get_state() + [self.w_tau.copy(), self.tau_blk.copy(),
                                         self.ell.copy(), [a.copy() for a in self.ws_alpha]]

    def set_state(self, state: list) -> None:
        self.field.set_state(state[:2])
        self.w_tau, self.tau_blk, self.ell = state[2], state[3], state[4]
        self.ws_alpha = state[5]

    def export(self, oracle) -> dict:
        """Fitted state: support parts, unary coefficients, transition weights, pairs."""
        sv, coef = self.field.support()
        ex = [i for i, al in enumerate(self.ws_alpha) for a in al if a > 0]
        outs = [oracle.decode_one(z) for zs, al in zip(self.ws_z, self.ws_alpha)
                for z, a in zip(zs, al) if a > 0]
        alpha = np.concatenate([al[al > 0] for al in self.ws_alpha]) if ex else np.zeros(0)
        return dict(support_=sv, support_parts_=self.parts[sv], unary_coef_=coef,
                    pairwise_coef_=self.w_tau.copy(), dual_coef_=alpha,
                    active_examples_=np.asarray(ex, dtype=np.int64), active_outputs_=outs)

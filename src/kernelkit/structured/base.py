"""The oracle protocol: what a structured model needs to know about an output space.

A structured model scores an (input, output) pair with a function f(x, y) in the RKHS of a
joint kernel k((x, y), (x', y')) and predicts argmax_y f(x, y). The output space is usually
too large to enumerate, so everything that depends on it lives in an *oracle*.

Decomposition used by every oracle here (and by yours)
------------------------------------------------------
An input ``x`` is made of ``T`` *parts* (rows ``x_1 .. x_T``: one row for a plain
classification example, one row per position for a sequence). An output ``y`` is encoded
as a vector ``z`` of ``T`` *states* in ``0 .. n_states - 1``, one per part, plus an optional
explicit feature vector ``tau(z)`` of length ``n_pairwise_features`` (e.g. the bigram counts
of a label sequence). The joint feature map and joint kernel are

    phi(x, y) = ( sum_t phi_X(x_t) (x) psi_Y(z_t),  tau(z) )
    k((x, y), (x', y')) = sum_{t, u} k_X(x_t, x'_u) L[z_t, z'_u] + tau(z) . tau(z')

with ``L = <psi_Y(s), psi_Y(s')>`` the (PSD) label kernel matrix on states. The product
k_X * L of two PSD kernels is PSD (Schur) and its RKHS is the tensor product H_X (x) H_Y,
so a sum of such terms is a valid kernel. Consequently every f in the model's span has

    f(x, y) = sum_t G[t, z_t] + w . tau(z),        G = (unary scores, shape (T, n_states))

and inference only ever sees the matrix ``G`` and the vector ``w`` (a :class:`Scores`).

To write an oracle for your own output space, subclass :class:`Oracle` and implement
``n_states``, ``encode_one``/``decode_one`` (output <-> state vector), ``loss`` (the task
loss Delta(z_true, z) >= 0 with Delta(z, z) = 0; solvers call it through ``task_loss``)
and ``argmax`` (loss-augmented when ``z_true`` is given); optionally
``label_kernel_matrix``, ``n_pairwise_features`` / ``pairwise_features`` and
``split_inputs`` (how an input is cut into parts). The batch
methods have loop defaults; override them for speed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_array

__all__ = ["Scores", "Oracle", "as_scores", "check_oracle"]


class Scores(NamedTuple):
    """Scores an oracle maximizes: ``f(x, z) = sum_t unary[t, z_t] + <pairwise, tau(z)>``.

    Attributes
    ----------
    unary : ndarray of shape (T, n_states)
    pairwise : ndarray of shape (n_pairwise_features,)
    """

    unary: np.ndarray
    pairwise: np.ndarray


class Oracle(BaseEstimator):
    """Base class and protocol of the output-space oracles (see the module docstring).

    Estimators clone the oracle and call :meth:`fit` on the training outputs before using
    it, so an oracle may learn its output space (e.g. the class labels) there.

    Examples
    --------
    A two-state output space where every example has one part (plain binary labels):

    >>> import numpy as np
    >>> from kernelkit.structured import Oracle, Scores
    >>> class Binary(Oracle):
    ...     n_states = 2
    ...     def loss(self, z_true, z):
    ...         return float(z_true[0] != z[0])
    ...     def argmax(self, x, scores, y_true=None):
    ...         g = scores.unary[0].copy()
    ...         if y_true is not None:
    ...             g += 1.0 - np.eye(2)[y_true[0]]  # + Delta(y_true, z)
    ...         return np.array([np.argmax(g)])
    >>> o = Binary().fit([0, 1, 1])
    >>> o.argmax(None, Scores(np.array([[0.2, 0.5]]), np.empty(0))).tolist()
    [1]
    """

    #: number of part states (override as a class attribute or property)
    n_states: int = 0

    # ---------------------------------------------------------- output space
    def fit(self, Y) -> Oracle:
        """Learn or check the output space from training outputs; returns self."""
        return self

    def encode_one(self, y) -> np.ndarray:
        """State vector (int64, one state per part) of one output ``y``."""
        z = np.atleast_1d(np.asarray(y))
        if z.dtype.kind not in "iu" or z.ndim != 1:
            raise ValueError(f"outputs must be integer states; got {y!r}.")
        self._check_states(z.astype(np.int64))
        return z.astype(np.int64)

    def decode_one(self, z: np.ndarray) -> Any:
        """The output whose state vector is ``z`` (inverse of :meth:`encode_one`)."""
        return int(z[0]) if len(z) == 1 else np.asarray(z)

    def _check_states(self, z: np.ndarray) -> None:
        if z.size and (z.min() < 0 or z.max() >= self.n_states):
            raise ValueError(
                f"outputs must lie in the oracle's output space (states 0..{self.n_states - 1}); "
                f"got {sorted(set(z.tolist()) - set(range(self.n_states)))[:5]}."
            )

    # ---------------------------------------------------------------- inputs
    def split_inputs(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Cut inputs into parts: returns ``(parts (N, d), offsets (n + 1,))``.

        The default treats ``X`` as a 2-D array with one part per example.
        """
        X = check_array(X, dtype=(np.float64, np.float32), ensure_min_samples=1)
        return X, np.arange(len(X) + 1, dtype=np.int64)

    # ----------------------------------------------------------- joint kernel
    def label_kernel_matrix(self) -> np.ndarray:
        """The label kernel L on states, shape (n_states, n_states); default delta."""
        return np.eye(self.n_states)

    n_pairwise_features: int = 0

    def pairwise_features(self, z: np.ndarray) -> np.ndarray:
        """Explicit output features tau(z), shape (n_pairwise_features,)."""
        return np.zeros(self.n_pairwise_features)

    def joint_kernel(self, K_parts: np.ndarray, z1: np.ndarray, z2: np.ndarray) -> float:
        """k((x, z1), (x', z2)) given ``K_parts = k_X(parts of x, parts of x')``.

        k = sum_{t,u} K_parts[t, u] L[z1_t, z2_u] + tau(z1) . tau(z2).
        """
        L = self.label_kernel_matrix()
        unary = float(np.sum(K_parts * L[np.ix_(z1, z2)]))
        return unary + float(self.pairwise_features(z1) @ self.pairwise_features(z2))

    # ------------------------------------------------------------- inference
    def loss(self, z_true: np.ndarray, z: np.ndarray) -> float:
        """Task loss Delta(z_true, z) >= 0, zero when z = z_true."""
        raise NotImplementedError

    def task_loss(self, z_true: np.ndarray, z: np.ndarray) -> float:
        """The task loss the solvers call: :meth:`loss` unless an oracle names it otherwise.

        An oracle whose constructor takes a ``loss`` parameter (``ChainOracle(loss=...)``)
        overrides this method instead of :meth:`loss`.
        """
        return self.loss(z_true, z)

    def argmax(self, x, scores: Scores, y_true: np.ndarray | None = None) -> np.ndarray:
        """argmax_z f(x, z), or argmax_z Delta(y_true, z) + f(x, z) when ``y_true`` is given.

        ``x`` is the example's parts (T, d) (unused by the built-in oracles), ``scores`` a
        :class:`Scores` (the built-in oracles also take a plain (T, n_states) array of unary
        scores, with zero pairwise weights), ``y_true`` the true state vector. Returns the
        state vector (int64, length T). The estimators pass all three positionally.
        """
        raise NotImplementedError

    # ----------------------------------------------------- batch (loop) forms
    def encode(self, Y, offsets: np.ndarray) -> np.ndarray:
        """Concatenated state vectors of outputs ``Y``, checked against ``offsets``."""
        n = len(offsets) - 1
        if _length(Y) != n:
            raise ValueError(f"X has {n} examples but Y has {_length(Y)} outputs.")
        out = []
        for i, y in enumerate(Y):
            z = self.encode_one(y)
            if len(z) != offsets[i + 1] - offsets[i]:
                raise ValueError(
                    f"output {i} has {len(z)} states but its input has "
                    f"{offsets[i + 1] - offsets[i]} parts; lengths must match."
                )
            out.append(z)
        return np.concatenate(out).astype(np.int64) if out else np.empty(0, np.int64)

    def decode(self, Z: np.ndarray, offsets: np.ndarray) -> list:
        """Outputs from concatenated state vectors."""
        return [self.decode_one(Z[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]

    def argmax_batch(self, parts, offsets, unary, pairwise, Z_true=None) -> np.ndarray:
        """:meth:`argmax` for every example; ``unary`` is (N, n_states) over all parts."""
        out = np.empty(offsets[-1], dtype=np.int64)
        for a, b in zip(offsets[:-1], offsets[1:]):
            zt = None if Z_true is None else Z_true[a:b]
            out[a:b] = self.argmax(parts[a:b], Scores(unary[a:b], pairwise), zt)
        return out

    def loss_batch(self, Z_true, Z, offsets) -> np.ndarray:
        """Task loss per example."""
        return np.array([self.task_loss(Z_true[a:b], Z[a:b])
                         for a, b in zip(offsets[:-1], offsets[1:])], dtype=np.float64)

    def pairwise_batch(self, Z, offsets) -> np.ndarray:
        """tau(z) per example, shape (n, n_pairwise_features)."""
        D = self.n_pairwise_features
        out = np.zeros((len(offsets) - 1, D))
        if D:
            for i, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
                out[i] = self.pairwise_features(Z[a:b])
        return out


def as_scores(scores, n_pairwise: int) -> Scores:
    """A :class:`Scores` from a Scores, a (unary, pairwise) pair or a unary score array."""
    if isinstance(scores, Scores):
        return scores
    if isinstance(scores, tuple) and len(scores) == 2:
        return Scores(np.atleast_2d(np.asarray(scores[0], dtype=np.float64)),
                      np.asarray(scores[1], dtype=np.float64).ravel())
    return Scores(np.atleast_2d(np.asarray(scores, dtype=np.float64)), np.zeros(n_pairwise))


def _length(Y) -> int:
    try:
        return len(Y)
    except TypeError as exc:
        raise ValueError(f"Y must be a sequence of outputs; got {type(Y).__name__}.") from exc


REQUIRED_ORACLE_METHODS = ("fit", "encode", "decode", "split_inputs", "label_kernel_matrix",
             "argmax_batch", "pairwise_batch", "loss_batch")


def check_oracle(oracle, *, need_loss: bool) -> None:
    """Raise a ValueError naming what an oracle lacks (``need_loss``: a task loss)."""
    if oracle is None:
        raise ValueError("oracle is required: pass e.g. MulticlassOracle() or ChainOracle(26).")
    if isinstance(oracle, type):
        raise ValueError(f"oracle must be an instance, e.g. {oracle.__name__}(...); got the class.")
    missing = [m for m in REQUIRED_ORACLE_METHODS if not callable(getattr(oracle, m, None))]
    if missing:
        raise ValueError(
            f"{type(oracle).__name__} is not an oracle: it lacks {missing}. Subclass "
            "kernelkit.structured.Oracle."
        )
    if need_loss:
        own = getattr(type(oracle), "task_loss", Oracle.task_loss) is not Oracle.task_loss
        loss = getattr(type(oracle), "loss", None)
        if not own and (loss is None or loss is Oracle.loss
                        or not callable(getattr(oracle, "loss", None))):
            raise ValueError(
                f"{type(oracle).__name__} has no task loss: implement loss(z_true, z) "
                "(Delta >= 0, zero at z_true); the structured SVM needs it for its margins."
            )

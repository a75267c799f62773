"""The kernel perceptron (Rosenblatt's online algorithm in dual form), averaged and voted.

The notes' algorithm on a stream (x_1, y_1), (x_2, y_2), ... with labels y in {-1, +1}:

    predict  y^_t = sign(f_t(x_t)),   f_t(x) = sum_{i < t} c_i k(x_i, x)
    update   c_t = y_t  if  y_t f_t(x_t) <= 0  (a mistake)  else  0.

A score of exactly 0 counts as a mistake (``sign(0)`` is neither label), so the very
first example is always a mistake. The k-class perceptron keeps one score per class,
``f_r(x) = sum_i c_{r,i} k(x_i, x)``; a mistake is ``max_{r != y} f_r >= f_y`` and adds
``+1`` to the true class and ``-1`` to the best wrong class ``y^`` (first by index on ties).

Implementation: the stream is processed in blocks of ``B`` examples. For a block, the
kernel values against the current support set and within the block are formed with the
kernel object (BLAS for rbf/linear/poly), the scores against the support set are one
GEMM, and a numba loop walks the block in order adding the effect of every update made
inside the block. One epoch therefore costs O(n |support|) kernel evaluations and no
Python work per example.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.interpreted import pick
from .._core.threads import single_threaded
from .._core.validation import (
    KERNEL_PARAMETER_CONSTRAINTS,
    check_classification_targets,
    check_is_fitted,
    check_two_classes,
    plain,
    validate_data,
)
from ..kernels import resolve_estimator_kernel
from ..linalg import block_rows, is_precomputed

__all__ = ["KernelPerceptron"]

_VARIANTS = ("standard", "averaged", "voted")
_BLOCK = 256  # examples per block


@njit(cache=True)
def _process_block(Kold, Kbb, base, yb, exb, streamb, t0, C, U, stream_idx, ex_sid,
                   base_sid, head, m, budget, multiclass, log, n_log, newpos,
                   ev_col, ev_dense, ev_c1, ev_c2, ev_val, ev_delta):  # pragma: no cover
    """One block of the online pass, in stream order; returns (head, m, n_log, mistakes).

    Slots ``[head, m)`` of ``C`` (current coefficients) and ``U`` (sum of delta*(t-1), for
    the average) are the support set; slot s has support id ``base_sid + s``. Kernel values
    of block row t: ``Kold[t, s]`` for slots s < m0 (support at block start),
    ``Kbb[t, p]`` for the example at block position p. ``base = Kold @ C[:m0]``.
    """
    B = Kbb.shape[0]
    S = C.shape[1]
    m0 = Kold.shape[1]
    n_ev = 0
    mistakes = 0
    score = np.empty(S)
    for t in range(B):
        # f_t(x_t) = base + every update made earlier in this block
        for r in range(S):
            score[r] = base[t, r]
        for e in range(n_ev):
            col = ev_col[e]
            kv = Kold[t, col] if col < m0 else Kbb[t, col - m0]
            if ev_dense[e] >= 0:
                for r in range(S):
                    score[r] += ev_delta[ev_dense[e], r] * kv
            else:
                score[ev_c1[e]] += ev_val[e] * kv
                if ev_c2[e] >= 0:
                    score[ev_c2[e]] -= ev_val[e] * kv
        yc = yb[t]
        pred = -1
        if multiclass:
            for r in range(S):  # best wrong class, first on ties
                if r != yc and (pred < 0 or score[r] > score[pred]):
                    pred = r
            mistake = score[pred] >= score[yc]
        else:
            ys = 2.0 * yc - 1.0
            mistake = ys * score[0] <= 0.0  # sign(0) is a mistake
            pred = 1 - yc
        time = t0 + t + 1  # 1-based position in the whole stream
        if not mistake:
            continue
        mistakes += 1
        ex = exb[t]
        sid = ex_sid[ex] if ex >= 0 else -1
        slot = sid - base_sid if sid >= base_sid + head else -1
        if slot < 0:
            if budget > 0 and m - head >= budget:
                # budget: forget the oldest support example (first to enter the set)
                h = head
                ev_col[n_ev] = h if h < m0 else m0 + newpos[h - m0]
                ev_dense[n_ev] = n_ev
                for r in range(S):
                    ev_delta[n_ev, r] = -C[h, r]
                    C[h, r] = 0.0
                    U[h, r] = 0.0
                n_ev += 1
                head += 1
            slot = m
            m += 1
            for r in range(S):
                C[slot, r] = 0.0
                U[slot, r] = 0.0
            stream_idx[slot] = streamb[t]
            newpos[slot - m0] = t
            sid = base_sid + slot
            if ex >= 0:
                ex_sid[ex] = sid
        # c_t = y_t (k-class: +1 true class, -1 predicted class); U += delta (t - 1)
        if multiclass:
            C[slot, yc] += 1.0
            C[slot, pred] -= 1.0
            U[slot, yc] += time - 1.0
            U[slot, pred] -= time - 1.0
            ev_c1[n_ev] = yc
            ev_c2[n_ev] = pred
            ev_val[n_ev] = 1.0
        else:
            C[slot, 0] += ys
            U[slot, 0] += ys * (time - 1.0)
            ev_c1[n_ev] = 0
            ev_c2[n_ev] = -1
            ev_val[n_ev] = ys
        ev_col[n_ev] = slot if slot < m0 else m0 + newpos[slot - m0]
        ev_dense[n_ev] = -1
        n_ev += 1
        log[n_log, 0] = sid
        log[n_log, 1] = yc
        log[n_log, 2] = pred
        log[n_log, 3] = time
        n_log += 1
    return head, m, n_log, mistakes


@njit(parallel=True, cache=True)
def _voted_votes(Kt, log_slot, log_y, log_pred, log_t, T, S, multiclass):  # pragma: no cover
    # sum_k s_k sign(v_k . x) over the prediction vectors v_k (after the k-th mistake),
    # s_k = number of steps v_k was the current vector (Freund & Schapire 1999)
    n = Kt.shape[0]
    M = log_slot.shape[0]
    n_out = S if multiclass else 1
    out = np.zeros((n, n_out))
    for i in prange(n):
        score = np.zeros(S)
        for k in range(M):
            s = log_slot[k]
            if s >= 0:
                kv = Kt[i, s]
                if multiclass:
                    score[log_y[k]] += kv
                    score[log_pred[k]] -= kv
                else:
                    score[0] += (2.0 * log_y[k] - 1.0) * kv
            surv = (log_t[k + 1] if k + 1 < M else T + 1) - log_t[k]
            if multiclass:
                best = 0
                for r in range(1, S):
                    if score[r] > score[best]:
                        best = r
                out[i, best] += surv
            elif score[0] > 0:
                out[i, 0] += surv
            elif score[0] < 0:
                out[i, 0] -= surv
    return out


class KernelPerceptron(ClassifierMixin, BaseEstimator):
    """Kernel perceptron: standard, averaged and voted, binary and k-class, with a budget.

    Exactly the notes' online algorithm (module docstring): predict
    ``y^_t = sign(sum_{i<t} c_i k(x_i, x_t))`` and on a mistake set ``c_t = y_t``. A score
    of exactly 0 counts as a mistake. ``max_epochs`` repeats the stream; a mistake on an
    example that is already a support example adds ``y`` to its coefficient (the same
    predictor as a new copy of it). ``partial_fit`` continues the stream with new data.

    Parameters
    ----------
    kernel : str, callable, kernelkit or scikit-learn GP kernel, default="rbf"
        ``"rbf"``, ``"linear"``, ``"poly"``, ``"laplacian"``, ``"precomputed"`` (``fit``
        only), ... or a kernel object.
    max_epochs : int, default=100
        At most this many passes over the training data in ``fit``; it stops after the
        first pass that makes no mistake (the data are then separated, and further passes
        would change nothing).
    variant : {"standard", "averaged", "voted"}, default="standard"
        Which predictor is used after training (training itself is identical):
        "standard" the final vector ``f_T``; "averaged" ``(1/T) sum_t f_t`` (the average of
        the vector after every step); "voted" ``sign(sum_k s_k sign(v_k(x)))`` over the
        prediction vectors ``v_k`` with survival counts ``s_k`` (Freund & Schapire 1999;
        k-class: each ``v_k`` votes ``s_k`` for its argmax class, first class on ties).
    budget : int, default=None
        At most ``budget`` support examples. Removal rule: when a mistake needs a new
        support example and the set is full, the **oldest** support example (the one that
        entered the set first) is forgotten, i.e. its coefficient is set to 0 before the
        new one is added (FIFO, the Forgetron's removal without its shrinking step).
        A forgotten example is removed from the whole history: the averaged and voted
        predictors are computed as if it had never been a support example. Its mistakes
        still count in ``mistakes_``, and a later mistake on it adds it anew.
    shuffle : bool, default=True
        Visit the examples in a new random order in every epoch (else in the given order;
        class-sorted data then make the first examples of each class all mistakes).
    random_state : int, RandomState or None, default=None
        Seed of the shuffling.
    gamma, degree, coef0, kernel_params :
        Parameters of string kernels as in scikit-learn (``gamma=None`` is
        ``1 / n_features``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_support,)
        Positions in the training stream of the support examples (``c_i != 0``): indices
        into ``X`` for ``fit``, running positions over all batches for ``partial_fit``.
    support_vectors_ : ndarray of shape (n_support, n_features)
        (``(n_support, 0)`` with a precomputed kernel.)
    dual_coef_ : ndarray of shape (n_scores, n_support)
        Coefficients of the predictor: ``decision_function(x) = dual_coef_ @ k(SV, x)``
        (final vector for "standard" and "voted", the average for "averaged").
        ``n_scores`` is 1 for two classes (score of ``classes_[1]``), else ``n_classes``.
    coef_current_ : ndarray of shape (n_support, n_scores)
        Coefficients ``c`` of the current (last) vector.
    coef_time_ : ndarray of shape (n_support, n_scores)
        ``sum over updates of delta (t - 1)``: the averaged coefficients are
        ``c - coef_time_ / t_``.
    mistakes_ : ndarray of shape (n_passes,)
        Mistakes per epoch of ``fit`` (one entry per ``partial_fit`` call after it).
    mistake_log_ : ndarray of shape (n_mistakes, 4)
        ``(support id, true class, predicted class, time t)`` of every mistake (the voted
        predictor's history); support ids below ``first_support_id_`` were forgotten.
    first_support_id_ : int
        Id of ``support_vectors_[0]`` (ids count support examples ever added).
    t_ : int
        Examples processed (the length T of the stream so far).
    n_seen_ : int
        Training examples seen (stream positions used by ``partial_fit``).
    n_iter_ : int
        Epochs run by the last ``fit`` (plus later ``partial_fit`` calls).
    kernel_ : Kernel
    n_features_in_ : int

    Notes
    -----
    There is no bias term (the notes' perceptron); add one with a kernel such as
    ``RBF() + Constant(1.0)``. At prediction a score of exactly 0 gives ``classes_[0]``.

    Differences from scikit-learn
    -----------------------------
    scikit-learn has no kernel perceptron; its nearest peer is the linear
    ``sklearn.linear_model.Perceptron`` (``shuffle=True`` by default, as here). Ours stops
    after the first epoch without a mistake instead of Perceptron's ``tol`` /
    ``n_iter_no_change`` rule, has no intercept and no regularization (``penalty``,
    ``alpha``), and accepts any kernel. With the defaults on standardized data (5-fold
    accuracy) it is within a point of ``Perceptron()`` on iris and breast cancer and better
    on iris, but about 3 points below it on wine (an RBF perceptron without margin).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import KernelPerceptron
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2, 1, -1)
    >>> clf = KernelPerceptron(kernel="rbf", gamma=1.0, max_epochs=3, random_state=0).fit(X, y)
    >>> clf.mistakes_.tolist()[0] > clf.mistakes_.tolist()[-1]
    True
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    # scikit-learn's parameter validation (Perceptron's constraints for max_iter, shuffle and
    # random_state carried over to max_epochs, shuffle and random_state)
    _parameter_constraints: dict = {
        **KERNEL_PARAMETER_CONSTRAINTS,
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "variant": [StrOptions(set(_VARIANTS))],
        "budget": [Interval(Integral, 1, None, closed="left"), None],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        kernel="rbf",
        max_epochs=100,
        variant="standard",
        budget=None,
        shuffle=True,
        random_state=None,
        *,
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
    ):
        self.kernel = kernel
        self.max_epochs = max_epochs
        self.variant = variant
        self.budget = budget
        self.shuffle = shuffle
        self.random_state = random_state
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params

    # ---------------------------------------------------------------- checks
    def _precomputed(self) -> bool:
        return is_precomputed(self.kernel)

    # ----------------------------------------------------------------- state
    def _init_state(self, classes, n_features):
        self.classes_ = classes
        S = 1 if len(classes) == 2 else len(classes)
        self.coef_current_ = np.zeros((0, S))
        self.coef_time_ = np.zeros((0, S))
        self.support_ = np.zeros(0, dtype=np.int64)
        self.support_vectors_ = np.zeros((0, 0 if self._precomputed() else n_features))
        self.mistake_log_ = np.zeros((0, 4), dtype=np.int64)
        self.first_support_id_ = 0
        self.t_ = 0
        self.n_seen_ = 0
        self.mistakes_ = np.zeros(0, dtype=np.int64)
        self.n_iter_ = 0

    def _pass(self, X, yc, order, ex_sid, stream):
        """One pass over ``X[order]`` continuing the stream; returns the mistake count."""
        S = self.coef_current_.shape[1]
        multiclass = S > 1
        budget = 0 if self.budget is None else int(self.budget)
        precomputed = self._precomputed()
        m = self.coef_current_.shape[0]
        d = self.support_vectors_.shape[1]
        cap = m + _BLOCK
        C = np.zeros((cap, S))
        U = np.zeros((cap, S))
        sidx = np.zeros(cap, dtype=np.int64)
        # sparse rows keep sparse support vectors (CSR, exactly m rows, appended per block)
        sparse_sv = not precomputed and (sp.issparse(X) or sp.issparse(self.support_vectors_))
        if sparse_sv:
            SV = sp.csr_matrix(self.support_vectors_, dtype=np.float64)
        else:
            SV = np.zeros((cap, d))
            SV[:m] = self.support_vectors_
        C[:m], U[:m], sidx[:m] = self.coef_current_, self.coef_time_, self.support_
        log = np.zeros((len(self.mistake_log_) + len(order), 4), dtype=np.int64)
        n_log = len(self.mistake_log_)
        log[:n_log] = self.mistake_log_
        base_sid = self.first_support_id_
        B = len(order)
        ev_col = np.zeros(2 * _BLOCK, dtype=np.int64)
        ev_dense = np.zeros(2 * _BLOCK, dtype=np.int64)
        ev_c1 = np.zeros(2 * _BLOCK, dtype=np.int64)
        ev_c2 = np.zeros(2 * _BLOCK, dtype=np.int64)
        ev_val = np.zeros(2 * _BLOCK)
        ev_delta = np.zeros((2 * _BLOCK, S))
        newpos = np.zeros(_BLOCK, dtype=np.int64)
        no_ex = np.full(_BLOCK, -1, dtype=np.int64)  # partial_fit: no example ids
        total = 0
        t = self.t_
        for start in range(0, B, _BLOCK):
            ids = order[start:start + _BLOCK]
            nb = len(ids)
            if cap < m + nb:
                cap = max(2 * cap, m + nb)
                C, U, sidx = (_grow(a, cap) for a in (C, U, sidx))
                SV = SV if sparse_sv else _grow(SV, cap)
            Xb = X[ids]
            if precomputed:
                Kold = np.ascontiguousarray(Xb[:, sidx[:m]])
                Kbb = np.ascontiguousarray(Xb[:, ids])
            else:
                Kold = self.kernel_.block(Xb, SV[:m]) if m else np.zeros((nb, 0))
                Kbb = self.kernel_.block(Xb, Xb)
            base = Kold @ C[:m]  # f(x_t) against the support set at block start
            head, m_new, n_log, mk = pick(_process_block, B + m)(  # small: interpreted
                np.ascontiguousarray(Kold, dtype=np.float64),
                np.ascontiguousarray(Kbb, dtype=np.float64), base, yc[ids],
                ids if ex_sid is not None else no_ex[:nb], stream[start:start + nb], t,
                C, U, sidx, ex_sid if ex_sid is not None else no_ex, base_sid, 0, m, budget,
                multiclass, log, n_log, newpos, ev_col, ev_dense, ev_c1, ev_c2, ev_val,
                ev_delta,
            )
            if sparse_sv:  # the block's new support vectors appended as CSR rows
                SV = sp.vstack([SV[:m], sp.csr_matrix(Xb[newpos[: m_new - m]])], format="csr")
            elif not precomputed:
                for s in range(max(m, head), m_new):  # new support vectors of this block
                    SV[s] = Xb[newpos[s - m]]
            if head:  # forgotten supports: shift the live slots down
                live = slice(head, m_new)
                C[: m_new - head], U[: m_new - head] = C[live].copy(), U[live].copy()
                sidx[: m_new - head] = sidx[live].copy()
                SV = SV[live] if sparse_sv else SV
                if not sparse_sv:
                    SV[: m_new - head] = SV[live].copy()
                base_sid += head
            m = m_new - head
            t += nb
            total += mk
        self.coef_current_, self.coef_time_ = C[:m].copy(), U[:m].copy()
        self.support_, self.support_vectors_ = sidx[:m].copy(), SV[:m].copy()
        self.mistake_log_ = log[:n_log].copy()
        self.first_support_id_ = int(base_sid)
        self.t_ = int(t)
        return total

    def _finish(self):
        # the predictor's coefficients: averaged = (1/T) sum_t c(t) = c - U / T
        if self.variant == "averaged" and self.t_:
            coef = self.coef_current_ - self.coef_time_ / self.t_
        else:
            coef = self.coef_current_
        self.dual_coef_ = np.ascontiguousarray(coef.T)

    # ------------------------------------------------------------------- fit
    def fit(self, X, y):
        """Run ``max_epochs`` passes of the online algorithm over ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, or the (n_samples, n_samples) Gram matrix for
            ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : KernelPerceptron
        """
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        classes, yc = np.unique(y, return_inverse=True)
        check_two_classes(self, y, classes)
        if self._precomputed() and X.shape[0] != X.shape[1]:
            raise ValueError(f"kernel='precomputed' needs a square Gram matrix at fit; got "
                             f"shape {X.shape}.")
        X = _dense_gram(X) if self._precomputed() else X
        self.kernel_ = resolve_estimator_kernel(self, X.shape[1])
        self._init_state(classes, X.shape[1])
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        ex_sid = np.full(n, -1, dtype=np.int64)  # example -> support id (merges)
        stream = np.arange(n, dtype=np.int64)
        yc = yc.astype(np.int64)
        mistakes = []
        # the per-block algebra on one thread: the blocks are small (B x |support|), so
        # fanning them out costs more in synchronization than it gains, badly so on a busy
        # machine (measured 15x slower with 2 threads on an oversubscribed 2-core box)
        with single_threaded():
            for _ in range(self.max_epochs):
                order = rng.permutation(n).astype(np.int64) if self.shuffle else stream
                mistakes.append(self._pass(X, yc, order, ex_sid, order))
                if mistakes[-1] == 0:  # separated: another pass would change nothing
                    break
        self.mistakes_ = np.asarray(mistakes, dtype=np.int64)
        self.n_iter_ = len(mistakes)
        self.n_seen_ = n
        self._finish()
        return self

    def partial_fit(self, X, y, classes=None):
        """Continue the stream with one pass over ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), optional
            Every class of the whole stream; required on the first call.

        Returns
        -------
        self : KernelPerceptron
        """
        self._validate_params()
        if self._precomputed():
            raise ValueError("partial_fit does not support kernel='precomputed'; use fit.")
        first = not hasattr(self, "classes_")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=first)
        check_classification_targets(y)
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit "
                                 "(every label the stream will contain).")
            all_classes = np.unique(classes)
            if len(all_classes) < 2:
                raise ValueError(f"KernelPerceptron.partial_fit: classes must contain at least "
                                 f"2 labels; got {plain(all_classes)}.")
            self.kernel_ = resolve_estimator_kernel(self, X.shape[1])
            self._init_state(all_classes, X.shape[1])
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={list(np.unique(classes))} differs from the classes of the first "
                f"partial_fit call {list(self.classes_)}.")
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(
                f"y contains labels {list(unknown)} that are not in classes_ "
                f"{list(self.classes_)}; pass every label in classes= on the first call.")
        yc = np.searchsorted(self.classes_, y).astype(np.int64)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        order = (rng.permutation(n) if self.shuffle else np.arange(n)).astype(np.int64)
        with single_threaded():  # small blocks, as in fit
            mk = self._pass(X, yc, order, None, self.n_seen_ + order)
        self.mistakes_ = np.append(self.mistakes_, mk)
        self.n_seen_ += n
        self.n_iter_ += 1
        self._finish()
        return self

    # --------------------------------------------------------------- predict
    def _kernel_blocks(self, X):
        m = self.support_.shape[0]
        step = block_rows(max(m, 1))
        for start in range(0, X.shape[0], step):
            Xb = X[start:start + step]
            if self._precomputed():
                yield start, Xb[:, self.support_]
            elif m:
                yield start, self.kernel_.block(Xb, self.support_vectors_)
            else:
                yield start, np.zeros((Xb.shape[0], 0))

    def decision_function(self, X):
        """Scores: ``dual_coef_ @ k(SV, x)``; for "voted" the survival-weighted vote / T.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) for two classes (score of ``classes_[1]``),
            else (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if self._precomputed() and X.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have {self.n_features_in_} columns (one per training "
                             f"sample); got {X.shape[1]}.")
        X = _dense_gram(X) if self._precomputed() else X
        S = self.coef_current_.shape[1]
        out = np.empty((X.shape[0], S))
        if self.variant == "voted":
            log = self.mistake_log_
            slot = log[:, 0] - self.first_support_id_
            slot[slot < 0] = -1  # forgotten support examples
            for start, Kt in self._kernel_blocks(X):
                votes = _voted_votes(np.ascontiguousarray(Kt, dtype=np.float64), slot,
                                     log[:, 1].copy(), log[:, 2].copy(), log[:, 3].copy(),
                                     self.t_, S, S > 1)
                out[start:start + len(Kt)] = votes / max(self.t_, 1)
        else:
            for start, Kt in self._kernel_blocks(X):
                out[start:start + len(Kt)] = Kt @ self.dual_coef_.T
        return out[:, 0] if S == 1 else out

    def predict(self, X):
        """Class labels (binary: ``classes_[1]`` where the score is > 0).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X, never densified (CSR rows)
        tags.input_tags.pairwise = self._precomputed()
        return tags


def _dense_gram(K):
    """A precomputed kernel matrix as a dense array (its values are n x m whatever the
    storage; sparse *rows* of features are never densified)."""
    return K.toarray() if sp.issparse(K) else K


def _grow(a, cap):
    out = np.zeros((cap,) + a.shape[1:], dtype=a.dtype)
    out[: len(a)] = a
    return out

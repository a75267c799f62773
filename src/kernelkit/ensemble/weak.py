"""Weak learners for boosting: stumps, trees, linear thresholds and function dictionaries.

Each one is a scikit-learn classifier (``fit(X, y, sample_weight)``, ``predict``) that
minimizes the weighted training error ε = Σᵢ wᵢ·1[h(xᵢ) ≠ yᵢ] exactly (stump, dictionary)
or as documented (tree, linear threshold; the stump's default for K > 2 classes minimizes
the weighted Gini impurity instead, see :class:`DecisionStump`). Each also has a boosting
fast path, the :class:`WeakLearner` protocol: ``_boost_prepare(X, y_idx, classes)`` does
the per-fit work once (binning, presorting, the dictionary's prediction matrix) and
``_boost_fit(ctx, w)`` fits one round on it, returning a fitted learner and its class-index
predictions on the training set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numba
import numpy as np
import scipy.linalg
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin

from .._core.interpreted import pick
from .._core.threads import pool
from .._core.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_is_fitted,
    check_sample_weight,
    check_two_classes,
    validate_data,
)
from . import _stump_numba as nb
from ._binning import MAX_BINS, Binned, bin_features
from ._parallel import Chooser
from ._sparse_stump import SparseColumns, column_split

__all__ = ["WeakLearner", "DecisionStump", "DecisionTree", "LinearThreshold",
           "FunctionDictionary"]


@runtime_checkable
class WeakLearner(Protocol):
    """What AdaBoost needs from a kernelkit weak learner.

    ``fit``/``predict`` are the plain scikit-learn interface. The fast path:
    ``_boost_prepare(X, y_idx, classes, sample_weight)`` is called once per boosting fit with
    the labels encoded as indices into ``classes`` and the initial weights (rows of weight 0
    keep weight 0 in every round); ``_boost_fit(ctx, w)`` fits one round for the weights
    ``w`` (Σw = 1) and returns ``(fitted_learner, class_index_predictions)``.
    """

    def fit(self, X, y, sample_weight=None) -> WeakLearner: ...

    def predict(self, X) -> np.ndarray: ...

    def _boost_prepare(self, X: np.ndarray, y_idx: np.ndarray, classes: np.ndarray,
                       sample_weight: np.ndarray | None = None) -> Any: ...

    def _boost_fit(self, ctx: Any, w: np.ndarray) -> tuple[WeakLearner, np.ndarray]: ...


class _Context:
    """Per-fit state shared by the rounds (never stored on a fitted estimator)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


class _BaseWeak(ClassifierMixin, BaseEstimator):
    """``fit`` = prepare + one weighted round; subclasses implement the two fast-path steps."""

    _sparse: tuple | bool = False  # the scipy.sparse formats accepted (validate_data's rule)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._sparse)
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit to the weighted sample (weights default to uniform).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=FLOAT_DTYPES, accept_sparse=self._sparse)
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        check_two_classes(self, y, classes)
        # float64 weights also for float32 X (not rounded to float32)
        sw = check_sample_weight(sample_weight, X, dtype=np.float64)
        total = float(np.sum(sw))
        if total <= 0:
            raise ValueError("sample_weight must have a positive sum (one class has no weight "
                             "is not enough either).")
        ctx = self._boost_prepare(X, y_idx, classes, sw)
        fitted, _ = self._boost_fit(ctx, np.asarray(sw, dtype=np.float64) / total)
        self.__dict__.update({k: v for k, v in fitted.__dict__.items() if k.endswith("_")})
        return self

    def _new(self):
        """A fresh unfitted copy with the same parameters (cheaper than ``clone``)."""
        est = object.__new__(type(self))
        est.__dict__.update({k: v for k, v in self.__dict__.items() if not k.endswith("_")})
        return est

    def _set_common(self, ctx):
        self.classes_ = ctx.classes
        self.n_features_in_ = ctx.n_features
        if hasattr(ctx, "feature_names_in_"):
            self.feature_names_in_ = ctx.feature_names_in_

    def _check_X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=FLOAT_DTYPES, reset=False,
                             accept_sparse=self._sparse)

    def predict(self, X) -> np.ndarray:
        """Predicted class labels of ``X``."""
        X = self._check_X(X)
        return self.classes_[self._predict_index(X)]


def _binned_context(X, y_idx, classes, max_bins, sample_weight):
    # edges from the rows of positive weight only: weight 0 acts as a removed row
    rows = None if sample_weight is None else np.asarray(sample_weight) > 0
    B = bin_features(X, max_bins, rows)
    y_pm = np.where(y_idx == 1, 1.0, -1.0)
    return _Context(binned=B, y_idx=np.ascontiguousarray(y_idx, dtype=np.int64), y_pm=y_pm,
                    classes=classes, n_features=X.shape[1], kind="binned", max_bins=max_bins,
                    run=Chooser())


_CRITERIA = {"gini": 0, "entropy": 1, "error": 2}


def _argsort_rows(A: np.ndarray) -> np.ndarray:
    """``np.argsort`` of every row of A; rows spread over threads (NumPy's sort frees the GIL)."""
    out = np.empty(A.shape, np.intp)

    def job(j):
        out[j] = np.argsort(A[j])

    workers = min(numba.get_num_threads(), A.shape[0])
    if workers < 2 or A.size < 100_000:
        for j in range(A.shape[0]):
            job(j)
    else:
        list(pool(workers).map(job, range(A.shape[0])))
    return out


def _unflag(i: int) -> int:
    """Row index of a presorted entry (``~i`` marks the start of a new value)."""
    return int(~i) if i < 0 else int(i)


class DecisionStump(_BaseWeak):
    """The best single split ``1[x_j ≥ θ]``: exact weighted error (two classes) or Gini (K > 2).

    With ``criterion="error"`` the stump minimizes the weighted misclassification error
    exactly. For two classes this is the test ``s·sign(1[x_j ≥ θ] − ½)`` with polarity
    s = ±1, searched over every feature j, every threshold θ and both polarities; for K
    classes each side predicts its weighted-majority class. The constant classifier
    (θ = −∞) is one of the candidates. Ties go to the first feature, the lowest threshold,
    polarity +1.

    With ``criterion="gini"`` (or "entropy") the split instead minimizes the weighted Gini
    impurity of the two sides, as scikit-learn's depth-1 tree does, and each side still
    predicts its weighted-majority class; ``error_`` is then that stump's weighted error,
    which can exceed the minimum.

    The default ``criterion="auto"`` is "error" for two classes and "gini" for K > 2
    classes. Why: a two-leaf stump predicts at most 2 of the K classes, so its 0-1 error is
    decided by the two largest classes only; the error-minimizing stump keeps peeling off
    the currently heaviest class and ignores how well the split separates the others, and
    under SAMME's reweighting it makes a poor ensemble (UCI letters, K = 26, T = 200: test
    accuracy 0.376 with "error" vs 0.507 with "gini" — scikit-learn's 0.507; see
    BENCHMARKS.md). The Gini split, which rewards purer class distributions on both sides,
    is the weak learner SAMME is usually run with. For two classes the default is exactly
    error-minimizing, as the notes' AdaBoost analysis assumes.

    Search (the candidate thresholds are the midpoints between consecutive distinct
    values of a feature): a feature with ≤ 256 distinct values is binned exactly, one bin
    per value, into uint8 codes, and a round builds its histogram of w·y (or of w per
    class) in numba and scans the cumulative sums; a feature with more distinct values is
    presorted (``max_bins=None``, the default) and a round walks it in sorted order
    accumulating w·y (or w per class). Both are O(n·d) per round, no sort and no tree fit;
    within AdaBoost the binning and sorting are done once per fit and reused every round.
    With an integer ``max_bins`` every feature is binned instead, into at most that many
    quantile bins when it has more distinct values (faster, and exact only over those
    bins' edges; see :mod:`kernelkit.ensemble._binning`).

    Parameters
    ----------
    max_bins : int or None, default=None
        None: exact search over every threshold (features with > 256 distinct values
        presorted); an int in 2–256: every feature binned to at most that many bins.
    criterion : {"auto", "error", "gini", "entropy"}, default="auto"
        "error": minimize the weighted misclassification error exactly; "gini"/"entropy":
        minimize the weighted impurity; "auto": "error" for two classes, "gini" for more.

    Attributes
    ----------
    feature_ : int
    threshold_ : float
        Go to the right side when ``x[feature_] >= threshold_`` (−inf: constant stump).
    value_ : ndarray of shape (2,)
        Class indices predicted on the left (x < θ) and the right (x ≥ θ).
    polarity_ : int
        +1 when the right side predicts ``classes_[1]`` (two classes), −1 otherwise.
    error_ : float
        Weighted training error (weights normalized to sum 1).
    criterion_ : str
        The criterion used ("auto" resolved).
    classes_, n_features_in_, feature_importances_

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.ensemble import DecisionStump
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 1.0], [3.0, 0.0]])
    >>> s = DecisionStump().fit(X, [-1, -1, 1, 1])
    >>> int(s.feature_), float(s.threshold_), s.predict(X).tolist()
    (0, 1.5, [-1, -1, 1, 1])
    """

    _sparse = ("csc", "csr")

    def __init__(self, max_bins: int | None = None, criterion: str = "auto"):
        self.max_bins = max_bins
        self.criterion = criterion

    def _criterion(self, n_classes: int) -> str:
        """"auto" → "error" for two classes, "gini" for more (see the class docstring)."""
        if self.criterion != "auto" and self.criterion not in _CRITERIA:
            raise ValueError(f"criterion must be one of {['auto', *sorted(_CRITERIA)]}; "
                             f"got {self.criterion!r}.")
        if self.criterion == "auto":
            return "error" if n_classes == 2 else "gini"
        return self.criterion

    def _boost_prepare(self, X, y_idx, classes, sample_weight=None):
        crit = self._criterion(len(classes))
        if scipy.sparse.issparse(X):  # the non-zeros of CSC columns, presorted once
            return _Context(kind="sparse", columns=SparseColumns(X, sample_weight),
                            y_idx=np.ascontiguousarray(y_idx, dtype=np.int64),
                            y_pm=np.where(y_idx == 1, 1.0, -1.0), classes=classes,
                            n_features=X.shape[1], criterion=crit, run=Chooser())
        if self.max_bins is not None:
            ctx = _binned_context(X, y_idx, classes, self.max_bins, sample_weight)
            ctx.criterion, ctx.sorted_features = crit, np.zeros(0, np.int64)
            ctx.binned_features = np.arange(X.shape[1])
            return ctx
        # exact search: features with ≤ 256 distinct values are binned exactly, the others
        # presorted (a probe of ~2048 rows finds most of the latter without binning them)
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        rows = np.arange(n) if sample_weight is None else \
            np.flatnonzero(np.asarray(sample_weight) > 0)
        probe = np.sort(X[rows[::max(1, len(rows) // 2048)]], axis=0)
        many = 1 + np.sum(probe[1:] != probe[:-1], axis=0) > MAX_BINS
        E = np.flatnonzero(~many)
        ctx = _binned_context(X[:, E], y_idx, classes, MAX_BINS, sample_weight)
        ctx.criterion, ctx.n_features = crit, d
        B: Binned = ctx.binned
        S = np.sort(np.concatenate([np.flatnonzero(many), E[~B.exact]]))
        E = E[B.exact]
        ctx.binned = B.subset(np.flatnonzero(B.exact)) if len(E) else None
        ctx.binned_features, ctx.sorted_features = E, S
        if len(S):
            XS = np.ascontiguousarray(X[np.ix_(rows, S)].T)
            ctx.order = nb.flag_sorted(XS, _argsort_rows(XS), rows.astype(np.int64),
                                       work=XS.size)
            ctx.XS = np.ascontiguousarray(X[:, S].T) if len(rows) < n else XS
        return ctx

    def _best_binned(self, ctx, w, K):
        """(score, feature, bin, left, right, error) over the binned features."""
        B: Binned = ctx.binned
        if ctx.criterion == "error" and K == 2:
            j, b, pol, err = ctx.run(nb.best_stump_binary, B.codes, B.n_bins, w, ctx.y_pm,
                                     np.zeros((B.codes.shape[0], int(B.n_bins.max()))),
                                     work=B.codes.size)
            left, right = (0, 1) if pol > 0 else (1, 0)
            score = err
        else:  # class histograms (kept up to date across rounds), then a scan
            hist = self._class_histograms(ctx, w, K)
            j, b, left, right, err, score = ctx.run(
                nb.best_stump_from_histograms, hist, B.n_bins, _CRITERIA[ctx.criterion],
                work=hist.size * 4)
        return score, int(ctx.binned_features[j]), int(b), int(left), int(right), float(err)

    _REFRESH = 50  # full histograms at least every 50 rounds (bounds the rounding drift)

    def _class_histograms(self, ctx, w, K):
        """hist[j, b, k] = Σ_{code_j = b, y = k} w, updated from the previous round's.

        A boosting round rescales the weights of the rows its stump got right by one factor
        and of the others by another; for the larger group the update is one multiplication
        of the histograms, and only the rows of the smaller group (≈ (1 − ε)·n for SAMME
        with many classes) are added (:func:`~kernelkit.ensemble._stump_numba.
        reweighted_rows`). Any other change of the weights falls back to a full pass.
        """
        B: Binned = ctx.binned
        n = w.shape[0]
        prev = getattr(ctx, "hist_state", None)
        if prev is not None and prev["pred"] is not None and prev["age"] < self._REFRESH:
            m, c = nb.reweighted_rows(w, prev["w"], prev["pred"], ctx.y_idx, prev["delta"],
                                      prev["rows"])
            if m <= n // 4:
                # work: the listed rows per feature, and every histogram cell scaled by c
                ctx.run(nb.update_class_histograms, B.codes, ctx.y_idx, prev["hist"], c,
                        prev["delta"], prev["rows"], m,
                        work=m * B.codes.shape[0] + prev["hist"].size)
                prev["w"][:] = w
                prev["age"] += 1
                return prev["hist"]
        hist = ctx.run(nb.class_histograms, B.codes, ctx.y_idx, w, K, int(B.n_bins.max()),
                       work=B.codes.size)
        ctx.hist_state = {"hist": hist, "w": w.copy(), "pred": None, "age": 0,
                          "delta": np.empty(n), "rows": np.empty(n, np.int64)}
        return hist

    def _best_sorted(self, ctx, w, K):
        """(score, feature, position, left, right, error) over the presorted features."""
        if ctx.criterion == "error" and K == 2:
            j, p, pol, err = ctx.run(nb.best_stump_sorted_binary, ctx.order, w, ctx.y_pm,
                                     work=ctx.order.size)
            left, right = (0, 1) if pol > 0 else (1, 0)
            score = err
        else:
            j, p, left, right, err, score = ctx.run(
                nb.best_stump_sorted_classes, ctx.order, ctx.y_idx, w, K,
                _CRITERIA[ctx.criterion], work=ctx.order.size * K)
        return score, int(j), int(p), int(left), int(right), float(err)

    def _boost_fit(self, ctx, w):
        K = len(ctx.classes)
        if ctx.kind == "sparse":
            j, threshold, left, right, err = ctx.columns.best(
                ctx.run, w, ctx.y_idx, ctx.y_pm, K, _CRITERIA[ctx.criterion])
            return self._fitted(ctx, j, threshold, left, right, err,
                                ctx.columns.predict(j, threshold, left, right))
        cand = []
        if ctx.binned is not None:
            cand.append(("b",) + self._best_binned(ctx, w, K))
        if len(ctx.sorted_features):
            cand.append(("s",) + self._best_sorted(ctx, w, K))
        kind, score, j, b, left, right, err = cand[0]
        if len(cand) == 2:  # the better part; ties → the lower feature index
            o = cand[1]
            jo = int(ctx.sorted_features[o[2]])
            tol = 1e-12 * float(w.sum())
            if o[1] < score - tol or (o[1] <= score + tol and jo < j):
                kind, score, j, b, left, right, err = o
        if kind == "b":
            B: Binned = ctx.binned
            jj = int(np.searchsorted(ctx.binned_features, j))
            threshold = B.threshold(jj, b)
            codes = B.codes[jj]
            pred = pick(nb.stump_predict_codes, len(codes))(codes, b, left, right)
        else:
            col, xs = ctx.order[j], ctx.XS[j]
            if b <= 0:
                threshold = -np.inf
            else:  # midpoint of the two distinct values around the cut (as in the binning)
                lo, hi = xs[_unflag(col[b - 1])], xs[_unflag(col[b])]
                threshold = lo + (hi - lo) / 2.0
                if threshold <= lo or threshold > hi:
                    threshold = hi
            pred = np.where(xs >= threshold, right, left).astype(np.int64)
            j = int(ctx.sorted_features[j])
        return self._fitted(ctx, j, threshold, left, right, err, pred)

    def _fitted(self, ctx, j, threshold, left, right, err, pred):
        """A fitted copy of the stump "x_j ≥ θ → right, else left", and its predictions."""
        est = self._new()
        est._set_common(ctx)
        est.feature_ = int(j)
        est.threshold_ = float(threshold)
        est.value_ = np.array([left, right], dtype=np.int64)
        est.polarity_ = 1 if right == 1 else -1
        est.error_ = float(err)
        est.criterion_ = ctx.criterion
        state = getattr(ctx, "hist_state", None)
        if state is not None:  # the next round's weights are this round's, reweighted by pred
            state["pred"] = pred
        return est, pred

    def _predict_index(self, X):
        if scipy.sparse.issparse(X):
            return column_split(X, self.feature_, self.threshold_, *self.value_)
        return np.where(X[:, self.feature_] >= self.threshold_, self.value_[1], self.value_[0])

    @property
    def feature_importances_(self) -> np.ndarray:
        check_is_fitted(self)
        out = np.zeros(self.n_features_in_)
        if np.isfinite(self.threshold_) and self.value_[0] != self.value_[1]:
            out[self.feature_] = 1.0
        return out


class DecisionTree(_BaseWeak):
    """A weighted, depth-limited classification tree grown by histogram split search.

    Grown level by level on the binned features (the same uint8 codes as
    :class:`DecisionStump`): for every open node of a level one numba pass builds the
    histograms (node, feature, bin, class) of the weights, O(n·d) per level, and each node
    takes the split that most decreases the weighted impurity (``criterion``; ties → first
    feature, lowest threshold). A node stays a leaf when it is pure or no split leaves both
    children with positive weight (as in scikit-learn, a split that does not decrease the
    impurity is still taken: XOR needs one). Leaves predict their
    weighted-majority class, so given its partition the tree minimizes the weighted error;
    the partition itself is greedy (Gini by default, as scikit-learn's trees — the
    misclassification criterion stalls on splits that do not change a majority).

    Parameters
    ----------
    max_depth : int, default=3
    criterion : {"gini", "entropy", "error"}, default="gini"
    max_bins : int, default=256

    Every level keeps one histogram per node (heap layout, 2^level nodes), so this is a
    weak learner for shallow trees: a depth whose deepest level and tree arrays would need
    more than 256 MiB is a ValueError that names the largest depth that fits.

    Attributes
    ----------
    tree_feature_ : ndarray of int, heap layout (children of node g are 2g+1, 2g+2); −1 = leaf
    tree_threshold_ : ndarray of float (go right when ``x[feature] >= threshold``)
    tree_value_ : ndarray of int (class index of every node's weighted majority)
    feature_importances_ : ndarray (normalized weighted impurity decrease)
    classes_, n_features_in_

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.ensemble import DecisionTree
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    >>> DecisionTree(max_depth=2).fit(X, [0, 1, 1, 0]).predict(X).tolist()
    [0, 1, 1, 0]
    """

    _MAX_BYTES = 1 << 28  # split histograms of one level + the tree (see _boost_prepare)

    def __init__(self, max_depth: int = 3, criterion: str = "gini", max_bins: int = MAX_BINS):
        self.max_depth = max_depth
        self.criterion = criterion
        self.max_bins = max_bins

    def _boost_prepare(self, X, y_idx, classes, sample_weight=None):
        if isinstance(self.max_depth, bool) or not isinstance(self.max_depth, int | np.integer) \
                or self.max_depth < 1:
            raise ValueError(f"max_depth must be an integer >= 1; got {self.max_depth!r}.")
        if self.criterion not in _CRITERIA:
            raise ValueError(f"criterion must be one of {sorted(_CRITERIA)}; "
                             f"got {self.criterion!r}.")
        ctx = _binned_context(X, y_idx, classes, self.max_bins, sample_weight)
        # the deepest split level holds 2^(D−1) node histograms of d × bins × K weights, the
        # fitted tree three heap arrays of 2^(D+1) − 1 entries
        per_node = ctx.binned.codes.shape[0] * int(ctx.binned.n_bins.max()) * len(classes) * 8

        def need(depth):
            return 2 ** (depth - 1) * per_node + 2 ** (depth + 1) * 24

        D = int(self.max_depth)
        if need(D) > self._MAX_BYTES:
            ok = max(k for k in range(1, D) if need(k) <= self._MAX_BYTES) \
                if need(1) <= self._MAX_BYTES else 0
            raise ValueError(
                f"max_depth={D} needs {need(D) / 2**20:.3g} MiB of split histograms and tree "
                f"arrays (over {self._MAX_BYTES >> 20} MiB); DecisionTree is a weak learner for "
                f"shallow trees: use max_depth <= {ok} here (or fewer max_bins).")
        return ctx

    def _boost_fit(self, ctx, w):
        B: Binned = ctx.binned
        K = len(ctx.classes)
        D = int(self.max_depth)
        size = 2 ** (D + 1) - 1
        feature = np.full(size, -1, np.int64)
        threshold = np.full(size, np.inf)
        value = np.zeros(size, np.int64)
        importance = np.zeros(ctx.n_features)
        node = np.zeros(w.shape[0], np.int64)
        max_bins = int(B.n_bins.max())
        crit = _CRITERIA[self.criterion]
        heap = np.zeros(w.shape[0], np.int64)  # each sample's node, heap layout
        for level in range(D + 1):
            n_nodes = 2 ** level
            first = n_nodes - 1  # heap index of this level's node 0
            if level == D:  # leaves: class totals only, no feature histograms
                tot = pick(nb.node_class_totals, len(node))(node, ctx.y_idx, w,
                                                            np.zeros((n_nodes, K)))
                value[first:first + n_nodes] = np.argmax(tot, axis=1)
                break
            hist = ctx.run(nb.tree_level_histograms, B.codes, ctx.y_idx, w, node,
                           np.zeros((n_nodes, B.codes.shape[0], max_bins, K)),
                           work=B.codes.size)
            value[first:first + n_nodes] = np.argmax(hist[:, 0].sum(axis=1), axis=1)
            feat, bins, gain = ctx.run(
                nb.tree_best_splits, hist, B.n_bins, crit, np.full(n_nodes, -1, np.int64),
                np.zeros(n_nodes, np.int64), np.zeros(n_nodes), np.zeros((n_nodes, 3, K)),
                work=hist.size)
            feature[first:first + n_nodes] = feat
            for m in np.flatnonzero(feat >= 0):
                threshold[first + m] = B.threshold(int(feat[m]), int(bins[m]))
                importance[feat[m]] += gain[m]
            if not np.any(feat >= 0):
                break
            node = pick(nb.tree_route, len(node))(B.codes, node, heap, feat, bins)
        est = self._new()
        est._set_common(ctx)
        est.tree_feature_, est.tree_threshold_, est.tree_value_ = feature, threshold, value
        s = importance.sum()
        est.feature_importances_ = importance / s if s > 0 else importance
        return est, value[heap]

    def _predict_index(self, X):
        X = np.ascontiguousarray(X, dtype=np.float64)
        return nb.tree_predict_raw(X, self.tree_feature_, self.tree_threshold_,
                                   self.tree_value_, work=X.shape[0] * 8)


def _best_threshold_1d(s, y_pm, w):
    """Exact weighted-error threshold on scores s: returns (θ, polarity, error).

    polarity +1 predicts +1 on s ≥ θ; −1 predicts +1 on s < θ; θ = −inf is the constant.
    """
    order = np.argsort(s, kind="stable")
    ss, wy = s[order], (w * y_pm)[order]
    w_neg = float(np.sum(w[y_pm < 0]))
    W = float(np.sum(w))
    # cut before position p (p = 0..n) allowed where ss[p-1] < ss[p]
    S = np.concatenate(([0.0], np.cumsum(wy)))
    valid = np.ones(len(ss) + 1, bool)
    valid[1:-1] = ss[1:] > ss[:-1]
    e_plus = np.where(valid, w_neg + S, np.inf)
    e_minus = np.where(valid, W - (w_neg + S), np.inf)
    p1, p2 = int(np.argmin(e_plus)), int(np.argmin(e_minus))
    pol, p = (1, p1) if e_plus[p1] <= e_minus[p2] else (-1, p2)
    err = e_plus[p] if pol > 0 else e_minus[p]
    if p == 0:
        theta = -np.inf
    elif p == len(ss):
        theta = np.inf
    else:
        a, b = ss[p - 1], ss[p]
        theta = a + (b - a) / 2.0
        if theta <= a or theta > b:
            theta = b
    return float(theta), pol, max(float(err), 0.0)


class LinearThreshold(_BaseWeak):
    """A linear threshold classifier ``sign(wᵀx + b)`` fitted to the weighted sample.

    Method (fast, closed form): the direction w is the weighted least-squares fit of the ±1
    labels, ``(ZᵀDZ + λI) β = ZᵀD y`` with Z = [X, 1] and a tiny ridge λ = ``alpha``·tr/(d+1)
    (for ±1 labels this is Fisher's weighted LDA direction); then the offset b and the sign
    are chosen by an **exact** weighted-error search along ``wᵀx`` (one sort). So ε is
    minimized exactly over thresholds of that direction, not over all hyperplanes
    (which is NP-hard). For K > 2 classes one least-squares score per class (one-hot
    targets) and the argmax are used.

    Parameters
    ----------
    alpha : float, default=1e-8
        Relative ridge added to the weighted normal equations.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) (two classes) or (K, n_features)
    intercept_ : float or ndarray of shape (K,)
        Two classes: predict ``classes_[1]`` where ``coef_ @ x + intercept_ >= 0``
        (for polarity −1 the boundary point itself goes to ``classes_[0]``).
    classes_, n_features_in_, feature_importances_

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.ensemble import LinearThreshold
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.5], [3.0, 3.0]])
    >>> LinearThreshold().fit(X, [0, 0, 1, 1]).predict(X).tolist()
    [0, 0, 1, 1]
    """

    def __init__(self, alpha: float = 1e-8):
        self.alpha = alpha

    def _boost_prepare(self, X, y_idx, classes, sample_weight=None):
        if not (np.isscalar(self.alpha) and np.isfinite(self.alpha) and self.alpha >= 0):
            raise ValueError(f"alpha must be a finite number >= 0; got {self.alpha!r}.")
        Z = np.hstack([np.asarray(X, dtype=np.float64), np.ones((X.shape[0], 1))])
        K = len(classes)
        T = np.where(y_idx == 1, 1.0, -1.0)[:, None] if K == 2 else \
            np.where(y_idx[:, None] == np.arange(K), 1.0, -1.0 / (K - 1))
        return _Context(Z=Z, T=T, y_idx=y_idx, y_pm=np.where(y_idx == 1, 1.0, -1.0),
                        classes=classes, n_features=X.shape[1])

    def _boost_fit(self, ctx, w):
        Z, K = ctx.Z, len(ctx.classes)
        A = Z.T @ (Z * w[:, None])  # Zᵀ D Z
        lam = float(self.alpha) * max(np.trace(A) / A.shape[0], 1e-300)
        A[np.diag_indices_from(A)] += lam
        rhs = Z.T @ (ctx.T * w[:, None])
        try:
            beta = scipy.linalg.solve(A, rhs, assume_a="pos")
        except (np.linalg.LinAlgError, ValueError):
            beta = np.linalg.lstsq(A, rhs, rcond=None)[0]
        est = self._new()
        est._set_common(ctx)
        if K == 2:
            v = beta[:-1, 0]
            s = ctx.Z[:, :-1] @ v
            theta, pol, err = _best_threshold_1d(s, ctx.y_pm, w)
            est.direction_, est.threshold_, est.polarity_ = v, theta, pol
            finite = np.isfinite(theta)
            est.coef_ = pol * v if finite else np.zeros_like(v)
            est.intercept_ = float(-pol * theta) if finite else float(
                1.0 if (pol > 0) == (theta < 0) else -1.0)
            est.error_ = err
            pred = est._index_from_scores(s)
        else:
            est.coef_, est.intercept_ = beta[:-1].T.copy(), beta[-1].copy()
            pred = np.argmax(Z @ beta, axis=1)
        return est, pred

    def _index_from_scores(self, s):
        return ((s >= self.threshold_) == (self.polarity_ > 0)).astype(np.int64)

    def _predict_index(self, X):
        if len(self.classes_) == 2:
            return self._index_from_scores(X @ self.direction_)
        return np.argmax(X @ self.coef_.T + self.intercept_, axis=1)

    def decision_function(self, X) -> np.ndarray:
        """``coef_ @ x + intercept_`` (two classes) or the K class scores."""
        X = self._check_X(X)
        return X @ self.coef_.T + self.intercept_

    @property
    def feature_importances_(self) -> np.ndarray:
        check_is_fitted(self)
        a = np.abs(np.atleast_2d(self.coef_)).sum(axis=0)
        s = a.sum()
        return a / s if s > 0 else a


class FunctionDictionary(_BaseWeak):
    """The best of a finite set of user functions h: X → {±1} (two classes only).

    The functions are evaluated once per fit into an n × ``|H|`` matrix H of ±1; a round picks
    the column with the smallest weighted error with one product r = Hᵀ(w·y):
    ε_m = (Σw − r_m)/2. With ``allow_negation=True`` the negated functions −h are candidates
    too (ε = (Σw + r_m)/2), i.e. the best by ``|r_m|``. Ties go to the first function, then to
    the unnegated one. Outputs −1 stand for ``classes_[0]``, +1 for ``classes_[1]``;
    boolean outputs count as True = +1.

    Parameters
    ----------
    functions : sequence of callables
        Each maps an (n, d) array to n values in {−1, +1} (or booleans).
    allow_negation : bool, default=True

    Attributes
    ----------
    index_ : int
        Position of the chosen function in ``functions``.
    sign_ : int
        +1, or −1 when the negated function was chosen.
    error_ : float
    classes_, n_features_in_

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.ensemble import FunctionDictionary
    >>> H = [lambda X: np.sign(X[:, 0]), lambda X: np.sign(X[:, 1])]
    >>> X = np.array([[1.0, -1.0], [-1.0, 1.0], [2.0, 3.0]])
    >>> f = FunctionDictionary(H).fit(X, [-1, 1, 1])
    >>> int(f.index_), int(f.sign_)
    (1, 1)
    """

    def __init__(self, functions: Sequence[Callable] = (), allow_negation: bool = True):
        self.functions = functions
        self.allow_negation = allow_negation

    def _evaluate(self, X, i):
        h = np.asarray(self.functions[i](X))
        if h.dtype == bool:
            h = np.where(h, 1.0, -1.0)
        h = np.asarray(h, dtype=np.float64).reshape(-1)
        if h.shape[0] != X.shape[0] or not np.all((h == 1) | (h == -1)):
            raise ValueError(f"functions[{i}] must return one value in {{-1, +1}} (or a bool) "
                             f"per row of X; got shape {h.shape} with values "
                             f"{np.unique(h)[:5]}.")
        return h

    def _boost_prepare(self, X, y_idx, classes, sample_weight=None):
        if len(classes) != 2:
            raise ValueError("FunctionDictionary is for two classes (its functions map to "
                             f"{{-1, +1}}); got {len(classes)} classes.")
        if len(self.functions) == 0 or not all(callable(f) for f in self.functions):
            raise ValueError("functions must be a non-empty sequence of callables.")
        H = np.column_stack([self._evaluate(X, i) for i in range(len(self.functions))])
        return _Context(H=H, y_pm=np.where(y_idx == 1, 1.0, -1.0), classes=classes,
                        n_features=X.shape[1])

    def _boost_fit(self, ctx, w):
        r = ctx.H.T @ (w * ctx.y_pm)  # r_m = Σ w y h_m; ε_m = (Σw − r_m)/2
        W = float(w.sum())
        if self.allow_negation:
            m = int(np.argmax(np.abs(r)))
            sign = 1 if r[m] >= 0 else -1
        else:
            m, sign = int(np.argmax(r)), 1
        est = self._new()
        est._set_common(ctx)
        est.index_, est.sign_ = m, sign
        est.error_ = max((W - sign * float(r[m])) / 2.0, 0.0)
        pred = (sign * ctx.H[:, m] > 0).astype(np.int64)
        return est, pred

    def _predict_index(self, X):
        return (self.sign_ * self._evaluate(X, self.index_) > 0).astype(np.int64)

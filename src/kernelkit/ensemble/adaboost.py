"""AdaBoost exactly as in the notes, with log-space weights; SAMME for K > 2 classes."""

from __future__ import annotations

import numbers
import sys
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_regressor
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import has_fit_parameter

from .._core.interpreted import pick
from .._core.progress import progress_bar
from .._core.validation import (
    FLOAT_DTYPES,
    check_classification_targets,
    check_is_fitted,
    check_positive,
    check_sample_weight,
    check_two_classes,
    validate_data,
)
from ._stump_numba import boost_update, exp_weights, log_weighted_error
from .weak import DecisionStump, DecisionTree, LinearThreshold

__all__ = ["AdaBoost", "AdaBoostClassifier"]

_NAMED = {"stump": DecisionStump, "tree": DecisionTree, "linear": LinearThreshold}


def _label_index(classes: np.ndarray, labels, what: str) -> np.ndarray:
    """Positions of ``labels`` in the sorted ``classes``; ValueError naming ``what``."""
    labels = np.asarray(labels)
    idx = np.clip(np.searchsorted(classes, labels), 0, len(classes) - 1)
    if not np.all(classes[idx] == labels):
        raise ValueError(f"{what} contains labels that are not in classes_ {classes!r}.")
    return idx


# validate_data's rules for X: kernelkit weak learners (fast) / any other classifier
_X_RULES = {True: dict(dtype=FLOAT_DTYPES),
            False: dict(dtype=None, ensure_2d=False, allow_nd=True)}


def _sparse_rule(base):
    """validate_data's ``accept_sparse`` for X: what the weak learner's tags accept
    (scikit-learn's AdaBoost: CSR/CSC, passed on as given to the estimator)."""
    try:
        sparse = get_tags(base).input_tags.sparse
    except (AttributeError, TypeError):  # a classifier without scikit-learn tags
        sparse = False
    return getattr(base, "_sparse", ("csr", "csc")) if sparse else False


_EPS_PERFECT = 1e-10  # ε used for the weight of a perfect weak learner
_LOG_MAX = float(np.log(np.finfo(np.float64).max))  # log Z_t above this overflows


@dataclass
class _Rounds:
    """The state the boosting rounds share: log D_t, D_t, the votes and the records."""

    y_idx: np.ndarray
    d1: np.ndarray  # D₁
    log_d: np.ndarray  # log D_t (−inf for zero weights)
    w: np.ndarray  # D_t = exp(log D_t)
    G: np.ndarray  # G_k(x_i) = Σ_t α_t^{SAMME} 1[h_t(x_i) = k], class-major (K, n)
    top: np.ndarray  # argmax_k G_k(x_i)
    gtop: np.ndarray  # G_top(x_i)
    Gv: np.ndarray | None  # votes on the held-out part (early stopping)
    ctx: object = None  # the weak learner's per-fit preparation (fast path)
    ests: list = field(default_factory=list)
    alphas: list = field(default_factory=list)
    errs: list = field(default_factory=list)
    log_z: list = field(default_factory=list)
    train_err: list = field(default_factory=list)
    val_err: list = field(default_factory=list)
    best_val: float = np.inf
    best_t: int = 0

    @classmethod
    def start(cls, X, y_idx, sw, K, Xv):
        n = X.shape[0]
        d1 = sw / sw.sum()
        with np.errstate(divide="ignore"):
            log_d = np.log(d1)  # log D₁
        return cls(y_idx=np.ascontiguousarray(y_idx, dtype=np.int64), d1=d1, log_d=log_d,
                   w=pick(exp_weights, n)(log_d, np.empty(n)), G=np.zeros((K, n)),
                   top=np.zeros(n, dtype=np.int64), gtop=np.zeros(n),
                   Gv=None if Xv is None else np.zeros((Xv.shape[0], K)))

    def record(self, est, alpha, eps, log_z, train_err):
        self.ests.append(est)
        self.alphas.append(alpha)
        self.errs.append(eps)
        self.log_z.append(log_z)
        self.train_err.append(train_err)


class AdaBoost(ClassifierMixin, BaseEstimator):
    """AdaBoost (discrete, the notes' algorithm) for two classes; SAMME for K > 2.

    With labels y ∈ {±1} (``classes_[0] → −1``, ``classes_[1] → +1``) and D₁(i) = 1/n
    (or the normalized ``sample_weight``), round t fits the weak learner h_t to D_t and sets

    * ε_t = Σᵢ D_t(i)·1[h_t(xᵢ) ≠ yᵢ],
    * α_t = ½ log((1 − ε_t)/ε_t)  (times ``learning_rate``),
    * D_{t+1}(i) = D_t(i)·e^{−α_t yᵢ h_t(xᵢ)} / Z_t,  Z_t = Σᵢ D_t(i) e^{−α_t yᵢ h_t(xᵢ)}
      (= 2√(ε_t(1 − ε_t)) at learning_rate 1),

    and predicts sign F(x), F = Σ_t α_t h_t. The weights are kept as log D and normalized by
    log-sum-exp every round, so thousands of rounds neither underflow nor overflow; ε_t is
    summed from log D_t too (log-sum-exp over the misclassified samples), so a tiny ε_t is
    never mistaken for 0. The training error of F_T is at most ∏_t Z_t
    (``training_error_bound_``). ``decision_function`` and ``predict_proba`` are
    scikit-learn's (F normalized by Σ_t α_t, SAMME probabilities); the notes' F itself is
    :meth:`unnormalized_decision_function` and :meth:`margins` gives y F / Σ_t α_t.

    K > 2 classes use SAMME: α_t = log((1 − ε_t)/ε_t) + log(K − 1) and
    D_{t+1} ∝ D_t e^{α_t(1[h_t ≠ y] − ½)} (K = 2 gives back the rule above with α doubled);
    Z_t is that update's normalizer, and the training error is again ≤ ∏ Z_t (a sample
    is misclassified only if Σ_t α_t 1[h_t ≠ y] ≥ ½ Σ_t α_t).

    Stopping: a round with ε_t = 0 keeps its (perfect) learner with the finite weight
    α = Σ_{s<t} α_s + α(ε = 1e-10), so that it outvotes all earlier rounds, records
    Z_t = 2√(ε_t(1 − ε_t)) = 0 (the limit α → ∞; the training error is then 0 too) and stops
    with a ``UserWarning`` (``stop_reason_ = "perfect weak learner"``); a round with
    ε_t ≥ ½ (two classes; 1 − 1/K for SAMME) is discarded and stops with a ``UserWarning``
    (``stop_reason_ = "weak learner no better than chance"``; a ``ValueError`` if it is the
    first round, as there is no ensemble to keep); a round whose Z_t would overflow float64
    (learning rates far above 1) is discarded and stops with scikit-learn's ``UserWarning``
    "Sample weights have reached infinite values" (``stop_reason_ = "normalizer overflow"``).

    Parameters
    ----------
    estimator : {"stump", "tree", "linear"}, a kernelkit weak learner, a classifier or None, \
default="stump"
        "stump" (or None, as in scikit-learn) = :class:`~kernelkit.ensemble.DecisionStump`
        (exact weighted-error minimum for two classes; for K > 2 its default splits by the
        weighted Gini impurity, a better SAMME learner — see its docstring), "tree" =
        :class:`~kernelkit.ensemble.DecisionTree` (depth 3), "linear" =
        :class:`~kernelkit.ensemble.LinearThreshold`; kernelkit weak learners share their
        per-fit preparation (binning) across rounds. Any other scikit-learn classifier
        whose ``fit`` accepts ``sample_weight`` is cloned and refitted each round.
    n_estimators : int, default=100
        Maximum number of rounds T.
    learning_rate : float, default=1.0
        Shrinks every α_t.
    algorithm : {"discrete", "SAMME"}, default="discrete"
        "discrete": the notes' α_t = ½ log((1−ε)/ε) for two classes (SAMME for K > 2).
        "SAMME": SAMME's α_t = log((1−ε)/ε) + log(K−1) also for two classes (α doubled;
        identical weights D_t and predictions; ``estimator_weights_`` as scikit-learn's).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data (stratified) and stop when the held-out
        error has not decreased for ``n_iter_no_change`` rounds; the ensemble is then cut
        back to the round with the lowest held-out error.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=10
    random_state : int, RandomState or None
        Used for the validation split and for base estimators with a ``random_state``.
    verbose : int, default=0

    Attributes
    ----------
    estimator_ : estimator
        The unfitted base estimator that every round clones (as scikit-learn's).
    estimators_ : list of fitted weak learners
    estimator_weights_ : ndarray of shape ``(n_estimators_,)``
        α_t.
    estimator_errors_ : ndarray of shape ``(n_estimators_,)``
        ε_t.
    Z_ : ndarray of shape ``(n_estimators_,)``
        Normalizers Z_t (0 for a perfect round, ε_t = 0).
    training_error_bound_ : ndarray of shape ``(n_estimators_,)``
        ∏_{s≤t} Z_s (each Z_t is finite: a round whose Z_t would overflow float64 stops the
        loop; their product may still reach inf for a learning_rate far above 1).
    training_errors_ : ndarray of shape ``(n_estimators_,)``
        Training error of F_t (weighted by D₁, i.e. the plain error rate without
        ``sample_weight``; on the training part of the split with ``early_stopping``), never
        above ``training_error_bound_``.
    validation_errors_ : ndarray (only with ``early_stopping``)
    log_sample_weight_ : ndarray of shape (n_samples,)
        log D_{T+1}, the distribution after the last round that ran (−inf for zero weight).
    classes_ : ndarray of shape (K,)
    n_classes_ : int
    n_estimators_ : int
    stop_reason_ : str
        "n_estimators", "perfect weak learner", "weak learner no better than chance" or
        "early stopping".
    feature_importances_ : ndarray of shape (n_features,)
        α-weighted mean of the weak learners' importances.

    Differences from scikit-learn
    -----------------------------
    - ``estimator`` defaults to "stump", kernelkit's exact weighted-error stump (for two
      classes; scikit-learn's depth-1 tree splits by Gini); pass
      ``DecisionTreeClassifier(max_depth=1)`` for scikit-learn's stumps.
    - ``algorithm="discrete"`` (default) reports the notes' α_t = ½ log((1−ε)/ε) in
      ``estimator_weights_`` for two classes (half of SAMME's); the ensemble, the decision
      function and the probabilities are the same as with ``algorithm="SAMME"``.
    - Weights are kept in log space and never clipped (scikit-learn clips D_t at machine
      epsilon each round); a weight underflowing to 0 in D_t still counts in ε_t.
    - Extra parameters (``early_stopping``, ``validation_fraction``, ``n_iter_no_change``,
      ``verbose``), attributes (``Z_``, ``training_error_bound_``, ``training_errors_``,
      ``log_sample_weight_``, ``stop_reason_``) and methods
      (``unnormalized_decision_function``, ``margins``).
    - A perfect weak learner (ε = 0) is kept with a finite weight that outvotes the earlier
      rounds (scikit-learn keeps it with weight 1).
    - A single class is refused with the message every kernelkit classifier gives ("AdaBoost
      needs samples of at least 2 classes; got 1 class: ..."); scikit-learn fits a model
      whose ``predict_proba`` is a column of ones.
    - kernelkit's weak learners are deterministic and have no ``random_state``;
      scikit-learn gives each round's tree its own (its trees permute features at random).
    - ``sample_weight`` may have any scale (only the ratios matter; it is divided by its
      maximum), where other kernelkit estimators refuse weights beyond 1e±100.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import AdaBoost
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2, 1, -1)
    >>> clf = AdaBoost(n_estimators=50).fit(X, y)
    >>> bool(np.all(clf.training_errors_ <= clf.training_error_bound_ + 1e-12))
    True
    >>> clf.score(X, y) > 0.9
    True
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        "estimator": [StrOptions(set(_NAMED)), HasMethods(["fit", "predict"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "algorithm": [StrOptions({"discrete", "SAMME"})],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    @property
    def _squares_inputs(self) -> bool:
        # stumps and trees only compare feature values: any finite magnitude is fine
        # (kernelkit._core.validation refuses values whose squares overflow for the others)
        return not (self.estimator in (None, "stump", "tree")
                    or isinstance(self.estimator, (DecisionStump, DecisionTree)))

    def __init__(self, estimator="stump", n_estimators: int = 100, learning_rate: float = 1.0,
                 algorithm: str = "discrete", early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 10,
                 random_state=None, verbose: int = 0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.algorithm = algorithm
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ checks
    def _check_params(self):
        for name in ("n_estimators", "n_iter_no_change"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1; got {v!r}.")
        check_positive(self.learning_rate, "learning_rate")
        if not isinstance(self.early_stopping, bool | np.bool_):
            raise ValueError(f"early_stopping must be True or False; got "
                             f"{self.early_stopping!r}.")
        if self.algorithm not in ("discrete", "SAMME"):
            raise ValueError(f"algorithm must be 'discrete' or 'SAMME'; got {self.algorithm!r}.")
        if self.early_stopping:
            v = self.validation_fraction
            if not isinstance(v, numbers.Real) or not 0 < v < 1:
                raise ValueError(f"validation_fraction must lie in (0, 1); got {v!r}.")

    def _base_estimator(self):
        """(prototype, fast) — fast when it follows the kernelkit WeakLearner protocol."""
        est = "stump" if self.estimator is None else self.estimator
        if isinstance(est, str):
            if est not in _NAMED:
                raise ValueError(f"estimator must be one of {sorted(_NAMED)}, a kernelkit weak "
                                 f"learner or a classifier; got {est!r}.")
            return _NAMED[est](), True
        if isinstance(est, type):
            raise ValueError(f"estimator must be an instance, e.g. {est.__name__}(); got the "
                             f"class {est!r}.")
        if not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise ValueError(f"estimator must have fit and predict; got {est!r}.")
        if is_regressor(est):
            raise ValueError(f"estimator must be a classifier; got the regressor {est!r}.")
        if hasattr(est, "_boost_prepare") and hasattr(est, "_boost_fit"):
            return clone(est), True
        if not has_fit_parameter(est, "sample_weight"):
            raise ValueError(
                f"{type(est).__name__} doesn't support sample_weight, which AdaBoost needs "
                "to reweight the sample; pass a classifier that does (e.g. "
                "DecisionTreeClassifier) or one of 'stump', 'tree', 'linear'.")
        return clone(est), False

    # --------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
        """Boost for at most ``n_estimators`` rounds.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Initial distribution D₁ (normalized); uniform by default.

        Returns
        -------
        self
        """
        self._validate_params()
        self._check_params()
        base, fast = self._base_estimator()
        # kernelkit weak learners read 2-D float X; any other classifier gets X as it
        # accepts it (any dimension, any dtype), as in scikit-learn
        X, y = validate_data(self, X, y, **_X_RULES[fast], accept_sparse=_sparse_rule(base))
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        K = len(classes)
        check_two_classes(self, y, classes)
        # D_1 = w / sum(w): only the weights' ratios matter, so any scale is accepted and
        # brought to max 1 (scikit-learn's test fits weights of 1e-263)
        sw = check_sample_weight(sample_weight, X, dtype=np.float64, any_scale=True)
        sw = sw / sw.max()
        if not sw.sum() > 0:
            raise ValueError("sample_weight must have a positive sum.")
        rng = check_random_state(self.random_state)
        self.classes_, self.n_classes_ = classes, K
        Xv = yv = None
        if self.early_stopping:
            strat = y_idx if np.min(np.bincount(y_idx)) >= 2 else None
            X, Xv, y_idx, yv, sw, _ = train_test_split(
                X, y_idx, sw, test_size=self.validation_fraction, stratify=strat,
                random_state=rng.randint(np.iinfo(np.int32).max))
            if len(np.unique(y_idx)) < 2:
                raise ValueError("the training part of the early-stopping split has one class; "
                                 "lower validation_fraction or disable early_stopping.")
            if not sw.sum() > 0:
                raise ValueError("sample_weight of the training split sums to zero.")
        self._boost(X, y_idx, sw, base, fast, rng, Xv, yv)
        return self

    def _boost(self, X, y_idx, sw, base, fast, rng, Xv, yv):
        """The boosting loop (template method): one :meth:`_boost_round` per round."""
        st = _Rounds.start(X, y_idx, sw, self.n_classes_, Xv)
        st.ctx = base._boost_prepare(X, y_idx, self.classes_, sw) if fast else None
        reason = None
        with progress_bar(self.verbose, self.n_estimators, "AdaBoost") as bar:
            for t in range(self.n_estimators):
                est, pred = self._fit_weak(st, X, base, fast, rng)
                reason = self._boost_round(t, st, est, pred, Xv, yv)
                bar.update()
                if reason is not None:
                    break
        self._set_fitted(st, base, reason or "n_estimators")

    def _fit_weak(self, st, X, base, fast, rng):
        """Fit h_t to D_t; returns (h_t, class indices of h_t(x_i))."""
        if fast:
            est, pred = base._boost_fit(st.ctx, st.w)
        else:
            est = clone(base)
            if "random_state" in est.get_params():
                est.set_params(random_state=rng.randint(np.iinfo(np.int32).max))
            est.fit(X, self.classes_[st.y_idx], sample_weight=st.w)
            pred = self._index_of(est.predict(X))
        return est, np.ascontiguousarray(pred, dtype=np.int64)

    def _boost_round(self, t, st, est, pred, Xv, yv):
        """Round t given h_t: ε_t, α_t, D_{t+1}, Z_t; returns a stop reason or None."""
        K = self.n_classes_
        chance = 0.5 if K == 2 else 1.0 - 1.0 / K
        # ε_t = Σ D_t(i) 1[h_t(x_i) ≠ y_i], from log D_t (never underflows to a false 0)
        log_eps = pick(log_weighted_error, len(pred))(st.log_d, st.w, pred, st.y_idx)
        eps = float(np.exp(log_eps))
        if eps >= chance - 1e-10:  # (ε = ½ up to rounding after a reweighting)
            return self._stop_at_chance(t, eps, chance)
        perfect = log_eps == -np.inf
        # SAMME: α = ν(log((1−ε)/ε) + log(K−1)); for K = 2 twice the notes' α_t. A perfect
        # round gets α(ε = 1e-10) plus every earlier α: it outvotes all earlier rounds
        le, e = (np.log(_EPS_PERFECT), _EPS_PERFECT) if perfect else (log_eps, eps)
        a = float(self.learning_rate) * (np.log1p(-e) - le + np.log(K - 1.0))
        a += float(np.sum(st.alphas)) if perfect else 0.0
        # Z_t = (1 − ε) e^{−α/2} + ε e^{α/2} (the normalizer of D_t e^{α(1[wrong] − ½)})
        if not perfect and np.logaddexp(np.log1p(-eps) - a / 2, log_eps + a / 2) > _LOG_MAX:
            warnings.warn(
                f"Sample weights have reached infinite values at round {t + 1}: the "
                f"normalizer Z_t of D_t e^(α_t(1[wrong] - 1/2)) overflows float64 (α_t = "
                f"{a:.4g}, ε_t = exp({log_eps:.4g})). Iterations stopped. Try lowering the "
                f"learning rate ({self.learning_rate!r}).", UserWarning, stacklevel=4)
            return "normalizer overflow"
        # D_{t+1} ∝ D_t e^{α(1[wrong] − ½)} (also into w), Z_t, G += α·1[h = k],
        # and the training error of F_t
        lz, tr = boost_update(st.log_d, pred, st.y_idx, a, st.G, st.top, st.gtop, st.d1, st.w)
        st.record(est, a, eps, -np.inf if perfect else lz, tr)  # perfect: Z_t = 0 (α → ∞)
        if st.Gv is not None and self._validate(t, st, est, Xv, yv):
            return "early stopping"
        if perfect:
            warnings.warn(f"AdaBoost stopped at round {t + 1}: the weak learner is "
                          "perfect on the training set (weighted error 0) and is kept "
                          "with a weight that outvotes any earlier rounds.",
                          UserWarning, stacklevel=4)
            return "perfect weak learner"
        return None

    def _stop_at_chance(self, t, eps, chance):
        if t == 0:
            raise ValueError(
                f"BaseClassifier in AdaBoost ensemble is worse than random, ensemble can not "
                f"be fit: the first weak learner is no better than chance (ε = {eps:.4g} >= "
                f"{chance:.4g}); use a stronger estimator.")
        warnings.warn(f"AdaBoost stopped at round {t + 1}: the weak learner's "
                      f"weighted error {eps:.4g} is no better than chance.",
                      UserWarning, stacklevel=4)
        return "weak learner no better than chance"

    def _validate(self, t, st, est, Xv, yv) -> bool:
        """Held-out error of F_t; True when early stopping should end the loop."""
        st.Gv[np.arange(st.Gv.shape[0]), self._predict_index(est, Xv)] += st.alphas[-1]
        ve = float(np.mean(np.argmax(st.Gv, axis=1) != yv))
        st.val_err.append(ve)
        if ve < st.best_val:
            st.best_val, st.best_t = ve, t
            return False
        return t - st.best_t >= self.n_iter_no_change

    def _set_fitted(self, st, base, reason):
        T = st.best_t + 1 if reason == "early stopping" else len(st.ests)
        alphas = np.asarray(st.alphas[:T])
        self.algorithm_ = self.algorithm
        self.estimator_ = base
        self.estimators_ = st.ests[:T]
        self.estimator_weights_ = alphas / 2.0 if self._halve() else alphas
        self.estimator_errors_ = np.asarray(st.errs[:T])
        self.Z_ = np.exp(np.asarray(st.log_z[:T]))
        with np.errstate(over="ignore"):  # ∏Z_t may exceed float64 (learning_rate > 1)
            self.training_error_bound_ = np.exp(np.cumsum(st.log_z[:T]))
        self.training_errors_ = np.asarray(st.train_err[:T])
        if st.Gv is not None:
            self.validation_errors_ = np.asarray(st.val_err)
        elif hasattr(self, "validation_errors_"):  # from an earlier fit with early_stopping
            del self.validation_errors_
        self.n_estimators_ = T
        self.stop_reason_ = reason
        self.log_sample_weight_ = st.log_d  # log D_{t+1} after the last round that ran
        if self.verbose:
            print(f"AdaBoost: {T} rounds ({reason}); training error "
                  f"{self.training_errors_[-1]:.4g}, bound {self.training_error_bound_[-1]:.4g}",
                  file=sys.stderr)  # progress output goes to stderr, never to stdout

    # ---------------------------------------------------------------- helpers
    def _halve(self) -> bool:
        """True when estimator_weights_ are the notes' α (half of SAMME's)."""
        return self.n_classes_ == 2 and self.algorithm_ == "discrete"

    def _samme_alphas(self) -> np.ndarray:
        return self.estimator_weights_ * (2.0 if self._halve() else 1.0)

    def _index_of(self, labels) -> np.ndarray:
        return _label_index(self.classes_, labels, "the base estimator's prediction")

    def _predict_index(self, est, X) -> np.ndarray:
        if hasattr(est, "_predict_index"):
            return est._predict_index(X)
        return self._index_of(est.predict(X))

    def _check_X(self, X):
        check_is_fitted(self)
        fast = hasattr(self.estimator_, "_boost_prepare")
        return validate_data(self, X, reset=False, **_X_RULES[fast],
                             accept_sparse=_sparse_rule(self.estimator_))

    def _staged_G(self, X):
        """Yield (G_t, A_t): G_k = Σ_{s≤t} α_s^{SAMME} 1[h_s(x) = k] (n, K), A_t = Σ_{s≤t} α_s."""
        X = self._check_X(X)
        G = np.zeros((X.shape[0], self.n_classes_))
        rows = np.arange(G.shape[0])
        total = 0.0
        for a, est in zip(self._samme_alphas(), self.estimators_):
            G[rows, self._predict_index(est, X)] += a
            total += a
            yield G, total

    def _G(self, X):
        last = (None, 0.0)
        for last in self._staged_G(X):  # noqa: B007 - the last stage is the ensemble
            pass
        return last

    def _unnormalized(self, G):
        if self.n_classes_ == 2:  # F = Σ_t α_t h_t with h ∈ {±1}
            return (G[:, 1] - G[:, 0]) * (0.5 if self._halve() else 1.0)
        return G - G.mean(axis=1, keepdims=True)

    def _normalized(self, G, total):
        # scikit-learn's SAMME decision Σ_t α_t (1[h_t = k] − 1[h_t ≠ k]/(K − 1)) / Σ_t α_t
        # written as r - (1 - r)/(K - 1), r = G / Σα, so that one learner gives exactly
        # 1 and -1/(K - 1), as scikit-learn's (its test compares the sets of values)
        K = self.n_classes_
        r = G / total
        D = r - (1.0 - r) / (K - 1)
        return D[:, 1] - D[:, 0] if K == 2 else D  # K = 2: 2 F / Σ_t α_t

    def _proba(self, decision):
        # SAMME probabilities: softmax of decision / (K − 1) (K = 2: of (−d/2, d/2))
        if self.n_classes_ == 2:
            decision = np.column_stack([-decision, decision]) / 2.0
        else:
            decision = decision / (self.n_classes_ - 1)
        return softmax(decision, axis=1)

    # ------------------------------------------------------------- prediction
    def decision_function(self, X) -> np.ndarray:
        """scikit-learn's AdaBoostClassifier decision, normalized by Σ_t α_t.

        Two classes: ``2 F(x) / Σ_t α_t`` ∈ [−2, 2], F = Σ_t α_t h_t (h ∈ {±1}), > 0 for
        ``classes_[1]``; K > 2: shape (n, K), ``Σ_t α_t (1[h_t = k] − 1[h_t ≠ k]/(K − 1)) /
        Σ_t α_t``. The notes' unnormalized F is :meth:`unnormalized_decision_function`.
        """
        return self._normalized(*self._G(X))

    def staged_decision_function(self, X):
        """Yield ``decision_function`` of F_1, F_2, … (each normalized by its own Σα)."""
        for G, total in self._staged_G(X):
            yield self._normalized(G, total)

    def unnormalized_decision_function(self, X) -> np.ndarray:
        """The notes' F(x) = Σ_t α_t h_t(x) (two classes, h ∈ {±1}, α = ``estimator_weights_``).

        For K > 2: the centred SAMME votes G_k(x) − mean_k G_k(x), G_k = Σ_t α_t 1[h_t = k],
        shape (n, K).
        """
        return self._unnormalized(self._G(X)[0])

    def staged_unnormalized_decision_function(self, X):
        """Yield ``unnormalized_decision_function`` of F_1, F_2, …"""
        for G, _ in self._staged_G(X):
            yield self._unnormalized(G)

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where F > 0, else ``classes_[0]`` (ties → the first class)."""
        G, _ = self._G(X)
        return self.classes_[np.argmax(G, axis=1)]

    def staged_predict(self, X):
        """Yield the predictions of F_1, F_2, …"""
        check_is_fitted(self)
        for G, _ in self._staged_G(X):
            yield self.classes_[np.argmax(G, axis=1)]

    def predict_proba(self, X) -> np.ndarray:
        """SAMME class probabilities, as scikit-learn's AdaBoostClassifier.

        ``softmax_k(decision_k / (K − 1))``; two classes ``σ(decision)`` = σ(2F/Σα).
        """
        return self._proba(self.decision_function(X))

    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def staged_predict_proba(self, X):
        """Yield ``predict_proba`` of F_1, F_2, …"""
        for D in self.staged_decision_function(X):
            yield self._proba(D)

    def staged_score(self, X, y, sample_weight=None):
        """Yield the (weighted) accuracy of F_1, F_2, … on ``(X, y)``."""
        y = np.asarray(y)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        for pred in self.staged_predict(X):
            yield float(np.average(pred == y, weights=w))

    def margins(self, X, y) -> np.ndarray:
        """Normalized margins (G_y − max_{k≠y} G_k)/Σ_t α_t ∈ [−1, 1] (two classes: yF/Σα)."""
        G, total = self._G(X)
        y = np.asarray(y)
        if y.shape != (G.shape[0],):
            raise ValueError(f"y must have shape ({G.shape[0]},); got {y.shape}.")
        yi = _label_index(self.classes_, y, "y")
        rows = np.arange(G.shape[0])
        gy = G[rows, yi].copy()
        G[rows, yi] = -np.inf
        return (gy - G.max(axis=1)) / total

    @property
    def feature_importances_(self) -> np.ndarray:
        """α-weighted mean of the weak learners' ``feature_importances_``."""
        check_is_fitted(self)
        try:
            imp = [est.feature_importances_ for est in self.estimators_]
        except AttributeError as exc:
            raise AttributeError("the weak learners have no feature_importances_") from exc
        a = self.estimator_weights_
        return np.sum([ai * fi for ai, fi in zip(a, imp)], axis=0) / np.sum(a)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        try:  # sparse X when the weak learner takes it (the stump does)
            tags.input_tags.sparse = bool(_sparse_rule(self._base_estimator()[0]))
        except ValueError:  # an invalid estimator: fit says why
            tags.input_tags.sparse = False
        return tags


class AdaBoostClassifier(AdaBoost):
    """:class:`AdaBoost` under scikit-learn's name, signature and defaults.

    The same estimator as :class:`AdaBoost` (a subclass that only changes the constructor),
    so that code and grids written for ``sklearn.ensemble.AdaBoostClassifier`` run
    unchanged: ``make_pipeline`` names the step ``adaboostclassifier`` and the grid keys
    ``adaboostclassifier__n_estimators``, ``__learning_rate``, ``__estimator`` and
    ``__random_state`` reach the parameters of the same names. Where scikit-learn has the
    parameter, its default is scikit-learn's (``n_estimators=50``, ``learning_rate=1.0``,
    ``estimator=None``), and ``estimator_weights_`` are SAMME's α_t = log((1 − ε_t)/ε_t) +
    log(K − 1) as in scikit-learn (``algorithm="SAMME"``; the ensemble is the same with
    the notes' ``"discrete"`` α_t, which is half of it for two classes).

    Parameters
    ----------
    estimator : {"stump", "tree", "linear"}, a kernelkit weak learner, a classifier or None, \
default=None
        None = kernelkit's :class:`~kernelkit.ensemble.DecisionStump`; see :class:`AdaBoost`.
    n_estimators : int, default=50
        Maximum number of rounds T.
    learning_rate : float, default=1.0
        Shrinks every α_t.
    random_state : int, RandomState or None, default=None
    algorithm : {"discrete", "SAMME"}, default="SAMME"
        Which α_t ``estimator_weights_`` report for two classes (see :class:`AdaBoost`).
    early_stopping : bool, default=False
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=10
    verbose : int, default=0
        As in :class:`AdaBoost`.

    Attributes
    ----------
    estimators_, estimator_weights_, estimator_errors_, classes_, n_classes_, \
feature_importances_
        As scikit-learn's, and every attribute of :class:`AdaBoost` (``Z_``,
        ``training_error_bound_``, ``training_errors_``, ``stop_reason_``, ...).

    Differences from scikit-learn
    -----------------------------
    - ``estimator=None`` is kernelkit's exact weighted-error stump (for two classes;
      scikit-learn's default is ``DecisionTreeClassifier(max_depth=1)``, which splits by
      Gini): the ensembles differ where the two criteria pick different splits. Pass
      ``DecisionTreeClassifier(max_depth=1)`` for scikit-learn's stumps.
    - The parameters after ``random_state`` (``algorithm``, ``early_stopping``,
      ``validation_fraction``, ``n_iter_no_change``, ``verbose``) are kernelkit's
      additions; scikit-learn ≥ 1.8 has no ``algorithm`` (SAMME only, the default here).
    - Everything else listed under :class:`AdaBoost`'s "Differences from scikit-learn":
      log-space weights, the finite weight of a perfect weak learner, a single class
      refused, deterministic kernelkit weak learners, ``sample_weight`` of any scale.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernelkit import AdaBoostClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 2))
    >>> y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.5, 1, 0)
    >>> pipe = make_pipeline(StandardScaler(), AdaBoostClassifier(random_state=0))
    >>> grid = {"adaboostclassifier__n_estimators": [10, 40],
    ...         "adaboostclassifier__learning_rate": [0.5, 1.0]}
    >>> search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    >>> sorted(search.best_params_)
    ['adaboostclassifier__learning_rate', 'adaboostclassifier__n_estimators']
    """

    def __init__(self, estimator=None, *, n_estimators: int = 50, learning_rate: float = 1.0,
                 random_state=None, algorithm: str = "SAMME", early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 10,
                 verbose: int = 0):
        super().__init__(estimator=estimator, n_estimators=n_estimators,
                         learning_rate=learning_rate, algorithm=algorithm,
                         early_stopping=early_stopping,
                         validation_fraction=validation_fraction,
                         n_iter_no_change=n_iter_no_change, random_state=random_state,
                         verbose=verbose)

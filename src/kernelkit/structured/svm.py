"""The margin-rescaled structured SVM with joint kernels, solved in the dual."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..exceptions import ConvergenceWarning
from ._dual import DualState
from ._estimator import SHARED_CONSTRAINTS, JointKernelModel
from ._field import UnaryField
from .bcfw import solve_bcfw
from .cutting_plane import solve_cutting_plane

__all__ = ["StructuredSVM"]

_SOLVERS = {"bcfw": solve_bcfw, "cutting_plane": solve_cutting_plane}


class StructuredSVM(JointKernelModel):
    """Structured SVM: f(x, y) in the RKHS of a joint kernel, margin rescaling, kernelized.

    Solves min_w 1/2 ||w||^2 + C sum_i max_y [Delta(y_i, y) + f(x_i, y) - f(x_i, y_i)]
    in the dual, where dual coefficients alpha_{i,y} are added "on the fly": an (example,
    output) pair enters the working set only when loss-augmented inference finds it
    violated. With ``MulticlassOracle()`` (delta label kernel, 0/1 loss) this is exactly
    the Crammer-Singer multiclass SVM with the same C (C multiplies the *sum* of the
    per-example losses).

    Parameters
    ----------
    oracle : Oracle
        The output space: ``MulticlassOracle``, ``HierarchyOracle``, ``ChainOracle`` or
        your own (see :mod:`kernelkit.structured.base`). It must define a task loss.
    kernel : str, Kernel or callable, default="rbf"
        Input kernel k_X on parts (rows of X, or positions of a sequence).
    gamma, degree, coef0, kernel_params :
        scikit-learn's parameters for string kernels (``gamma=None``: 1 / n_features).
    C : float, default=1.0
        Weight of the summed structured hinge losses.
    solver : {"bcfw", "cutting_plane"}, default="bcfw"
        ``"bcfw"``: block-coordinate Frank-Wolfe with exact line search (Lacoste-Julien et
        al. 2013), one loss-augmented inference per example and visit. For a
        ``ChainOracle`` a whole pass is one numba call (with a kernel matrix beyond
        ``cache_size``: one per group of examples whose kernel rows fit in it, each group
        visited 3 times while its rows are at hand): every visit takes a pairwise
        step toward the Viterbi output and a few more within the example's working set
        (linear convergence); with the linear kernel or a FeatureMap on inputs with at
        most 4 ``n_states`` nonzero features a part, each such pass is followed by 3 passes
        within the working sets only (no inference; Shah et al. 2015's multi-plane BCFW),
        and ``max_iter`` counts the passes with inference.
        Other oracles take one pairwise step per visit (mass moves from the block's worst
        output carrying mass to the loss-augmented argmax), from the first pass.
        Memory beyond the kernel cache: the working set's alphas only.
        ``"cutting_plane"``: n-slack cutting planes; each iteration adds every example's
        most violated output (when it beats the example's slack) and re-solves the dual
        over the whole working set in numba. Converges to high accuracy in few iterations
        on small and medium problems; the working set's Gram matrix must fit in
        ``cache_size``, except on the chain fast path (the ``ChainOracle`` cases above),
        which solves the working sets by pairwise steps on w itself (no Gram).
    max_iter : int, default=300
        Maximum passes over the training examples.
    tol : float, default=1e-3
        Stop when the duality gap is at most ``tol`` relative to the primal objective,
        (primal - dual) <= tol * primal: the objective is then within a fraction ``tol`` of
        its optimum (an absolute bound would depend on C and on the number of examples).
    cache_size : float, default=1024
        MiB allowed for caching the input kernel matrix between training parts; beyond it
        kernel rows are recomputed (on the chain fast path: a block of rows of at most
        ``cache_size`` MiB at a time, each row once a pass). The linear kernel never needs
        it.
    random_state : int, RandomState or None
        Order of the examples in each pass.
    verbose : int, default=0
        Show a progress bar with the gap.

    Attributes
    ----------
    oracle_ : Oracle
        The fitted clone of ``oracle``.
    kernel_ : Kernel
        The resolved input kernel.
    support_ : ndarray of shape (n_support,)
        Indices (among all training parts) of the parts with a nonzero unary coefficient.
    support_parts_ : ndarray of shape (n_support, n_features)
        Those training parts.
    unary_coef_ : ndarray of shape (n_support, n_states)
        Coefficients U: f's unary scores are ``k_X(x_t, support_parts_) U L``.
    pairwise_coef_ : ndarray of shape (n_pairwise_features,)
        Weights of the explicit output features (transition weights for chains).
    label_kernel_ : ndarray of shape (n_states, n_states)
    dual_coef_, active_examples_, active_outputs_ :
        The working set with positive alpha: alpha, example index, output.
    n_active_ : int
        Size of that working set.
    history_ : list of float
        Duality gap after each pass (``"bcfw"``: of the best iterate so far, which is the
        one returned, so it never increases; the exact gap is computed only on passes where
        the block Frank-Wolfe gaps say ``tol`` is near, every 10 passes and at the last, and a
        pass without that check repeats the last certified gap; ``"cutting_plane"``: after
        each working-set solve).
    dual_objective_, primal_objective_, duality_gap_ : float
    n_iter_ : int
    converged_ : bool

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.structured import ChainOracle, StructuredSVM
    >>> rng = np.random.default_rng(0)
    >>> Y = [rng.integers(0, 2, size=5) for _ in range(20)]
    >>> X = [np.c_[y + 0.3 * rng.normal(size=5)] for y in Y]
    >>> m = StructuredSVM(ChainOracle(2), kernel="linear", C=1.0, tol=0.1, random_state=0)
    >>> m = m.fit(X, Y)
    >>> m.score(X, Y) > 0.9
    True
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "C": [Interval(Real, 0, np.inf, closed="neither")],
        "solver": [StrOptions(set(_SOLVERS))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, oracle=None, kernel="rbf", C=1.0, solver="bcfw", max_iter=300, tol=1e-3,
                 *, gamma=None, degree=3, coef0=1, kernel_params=None, cache_size=1024,
                 random_state=None, verbose=0):
        self.oracle = oracle
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.C = C
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.cache_size = cache_size
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y) -> StructuredSVM:
        """Fit on inputs ``X`` and outputs ``y`` (as the oracle defines them)."""
        parts, offsets, Z = self._prepare(X, y, need_loss=True)  # validates the parameters
        C, max_iter = float(self.C), int(self.max_iter)
        rng = check_random_state(self.random_state)
        field = UnaryField(self.kernel_, parts, self.oracle_.n_states, self.cache_size)
        st = DualState(self.oracle_, parts, offsets, Z, field, C)
        kw = {"mem_limit": self.cache_size * 2.0**20} if self.solver == "cutting_plane" else {}
        res = _SOLVERS[self.solver](st, max_iter=max_iter, tol=self.tol, rng=rng,
                                    verbose=self.verbose, **kw)
        for key, value in st.export(self.oracle_).items():
            setattr(self, key, value)
        self.n_active_ = len(self.dual_coef_)
        self.history_ = [float(g) for g in res.history]
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.primal_objective_ = float(res.info["primal"])
        self.dual_objective_ = float(res.info["dual"])
        self.duality_gap_ = float(res.info["gap"])
        if not res.converged:
            warnings.warn(
                f"StructuredSVM ({self.solver}) stopped after max_iter={max_iter} passes with "
                f"duality gap {self.duality_gap_:.3g} > tol * primal "
                f"({self.tol * self.primal_objective_:.3g}); increase max_iter or tol.",
                ConvergenceWarning, stacklevel=2)
        return self


"""The kernelized structured perceptron (Collins 2002) over joint kernels."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from .._core.progress import progress_bar
from ._dual import DualState
from ._estimator import SHARED_CONSTRAINTS, JointKernelModel
from ._field import UnaryField

__all__ = ["StructuredPerceptron"]


class StructuredPerceptron(JointKernelModel):
    """Perceptron over outputs: on a mistake y_hat != y_i, w += phi(x_i, y_i) - phi(x_i, y_hat).

    Kernelized: w is kept as unary coefficients on the training parts plus the explicit
    output-feature weights (see :mod:`kernelkit.structured.base`), so every update costs
    one matrix product. With ``averaged=True`` the returned weights are the average
    (1/K) sum_k w_k of the K iterates (computed in O(1) per update from
    sum_k w_k = (K + 1) w_K - sum_j j Delta_j), which generalizes better.

    Parameters
    ----------
    oracle : Oracle
        The output space (no task loss needed: inference is plain argmax).
    kernel : str, Kernel or callable, default="rbf"
    gamma, degree, coef0, kernel_params :
        scikit-learn's parameters for string kernels.
    max_epochs : int, default=10
        Passes over the data; stops early after a pass without mistakes.
    averaged : bool, default=True
    shuffle : bool, default=True
        Visit the examples in a new random order each epoch.
    cache_size : float, default=1024
        MiB for caching the input kernel matrix of the training parts.
    random_state : int, RandomState or None
    verbose : int, default=0

    Attributes
    ----------
    oracle_, kernel_, support_, support_parts_, unary_coef_, pairwise_coef_, label_kernel_ :
        As in :class:`~kernelkit.structured.StructuredSVM`.
    n_mistakes_ : list of int
        Mistakes per epoch.
    n_updates_ : int
    n_iter_ : int
        Epochs run.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.structured import MulticlassOracle, StructuredPerceptron
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [3.0, 3.0], [3.1, 3.0], [0.0, 3.0], [0.1, 3.0]])
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> m = StructuredPerceptron(MulticlassOracle(), kernel="rbf", gamma=1.0,
    ...                          random_state=0).fit(X, y)
    >>> m.predict(X).tolist()
    [0, 0, 1, 1, 2, 2]
    """

    # scikit-learn's parameter validation: an invalid type or value raises
    # InvalidParameterError (a ValueError and TypeError) naming the parameter
    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "averaged": ["boolean"],
        "shuffle": ["boolean"],
    }

    def __init__(self, oracle=None, kernel="rbf", max_epochs=10, averaged=True, *, gamma=None,
                 degree=3, coef0=1, kernel_params=None, shuffle=True, cache_size=1024,
                 random_state=None, verbose=0):
        self.oracle = oracle
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.max_epochs = max_epochs
        self.averaged = averaged
        self.shuffle = shuffle
        self.cache_size = cache_size
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y) -> StructuredPerceptron:
        """Run the perceptron on inputs ``X`` and outputs ``y``."""
        parts, offsets, Z = self._prepare(X, y, need_loss=False)  # validates the parameters
        epochs = int(self.max_epochs)
        rng = check_random_state(self.random_state)
        field = UnaryField(self.kernel_, parts, self.oracle_.n_states, self.cache_size)
        st = DualState(self.oracle_, parts, offsets, Z, field, 1.0)
        n = len(offsets) - 1
        U_acc = np.zeros_like(field.U)  # sum_j j * Delta_j (unary rows)
        tau_acc = np.zeros_like(st.w_tau)
        k = 0  # examples visited
        self.n_mistakes_ = []
        with progress_bar(self.verbose, total=epochs, desc="StructuredPerceptron") as bar:
            for _ in range(epochs):
                order = rng.permutation(n) if self.shuffle else np.arange(n)
                mistakes = 0
                for i in order:
                    k += 1
                    a, b = st.rows(int(i))
                    z = self.oracle_.argmax(parts[a:b], st.scores(int(i)))
                    if np.array_equal(z, Z[a:b]):
                        continue
                    dU, dtau = st.psi(int(i), z)  # phi(x_i, y_i) - phi(x_i, y_hat)
                    st.apply(int(i), dU, dtau)
                    U_acc[a:b] += k * dU
                    tau_acc += k * dtau
                    mistakes += 1
                self.n_mistakes_.append(mistakes)
                bar.update()
                if mistakes == 0:
                    break
        U, w_tau = field.U, st.w_tau
        if self.averaged and k:
            # (1/K) sum_k w_k = ((K + 1) w_K - sum_j j Delta_j) / K
            U = ((k + 1) * U - U_acc) / k
            w_tau = ((k + 1) * w_tau - tau_acc) / k
        sv = np.flatnonzero(np.any(U != 0.0, axis=1))
        self.support_ = sv
        self.support_parts_ = parts[sv]
        self.unary_coef_ = U[sv]
        self.pairwise_coef_ = w_tau.copy()
        self.n_updates_ = int(sum(self.n_mistakes_))
        self.n_iter_ = len(self.n_mistakes_)
        return self

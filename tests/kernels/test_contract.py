"""The kernel contract, run on every public kernel discovered from ``kernels.__all__``.

A kernel class is instantiated with its defaults; the few whose constructors need an
argument (composites, adapters) get one from ``NEEDS_ARGUMENTS`` below, and a new kernel
that has no defaults and no entry there fails :func:`test_every_public_kernel_is_covered`.
Each instance must give: a symmetric, PSD matrix (on 1-D data, where the periodic kernel is
PSD too), ``diag(X) == diagonal(K(X))``, analytic gradients equal to central finite
differences in log space (and ``gradient_dot`` equal to their contractions),
``block`` = ``__call__`` on checked inputs, fused tiles from ``tile_factors`` (when it
offers them) equal to the kernel, clone / get_params, and save / load.
"""

from __future__ import annotations

import inspect
import os
import tempfile

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.gaussian_process.kernels import RBF as SkRBF

import kernelkit
from kernelkit import kernels
from kernelkit.io import SerializationError


def _features(X):
    return np.hstack([X, X**2])


NEEDS_ARGUMENTS = {
    "Sum": lambda: kernels.Sum(kernels.RBF(0.7), kernels.White(0.1)),
    "Product": lambda: kernels.Product(kernels.Constant(2.0), kernels.Matern(1.3, nu=2.5)),
    "Scale": lambda: kernels.Scale(kernels.RationalQuadratic(0.8, alpha=2.0), 1.5),
    "Exponentiation": lambda: kernels.Exponentiation(kernels.RBF(0.9) + kernels.Constant(0.4), 2.0),
    "FeatureMap": lambda: kernels.FeatureMap(_features),
    "SklearnKernel": lambda: kernels.SklearnKernel(SkRBF(0.9)),
    "JointKernel": None,  # on (X, y) pairs: its own tests (test_kernels.py, structured/)
}
EXTRA = [  # compositions whose parts exercise the fast paths of Sum and Product
    lambda: 2.0 * kernels.RBF(np.array([0.5, 2.0])) + kernels.White(0.3),
    lambda: kernels.Polynomial(2, 0.5, 1.0) * kernels.Laplacian(1.5) + 1.0,
]


def _public_kernel_classes():
    out = []
    for name in kernels.__all__:
        obj = getattr(kernels, name)
        if inspect.isclass(obj) and issubclass(obj, kernels.Kernel) and obj is not kernels.Kernel:
            out.append(obj)
    return out


def _instances():
    out = []
    for cls in _public_kernel_classes():
        factory = NEEDS_ARGUMENTS.get(cls.__name__)
        if cls.__name__ in NEEDS_ARGUMENTS:
            if factory is not None:
                out.append(pytest.param(factory, id=cls.__name__))
            continue
        out.append(pytest.param(cls, id=cls.__name__))
    for i, f in enumerate(EXTRA):
        out.append(pytest.param(f, id=f"composite{i}"))
    return out


def test_every_public_kernel_is_covered():
    classes = _public_kernel_classes()
    assert len(classes) >= 15
    for cls in classes:
        if cls.__name__ in NEEDS_ARGUMENTS:
            continue
        cls()  # a kernel without defaults needs an entry in NEEDS_ARGUMENTS


def _data(kernel, n=9, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.2, 2.0, size=(n, d))
    if isinstance(kernel, kernels.Precomputed):
        Z = rng.normal(size=(n, 3))
        return Z @ Z.T  # the input is the (PSD) matrix itself
    return X


@pytest.mark.parametrize("make", _instances())
def test_symmetric_psd_and_diag(make):
    k = make()
    try:  # 1-D data where the kernel takes it (the periodic kernel is PSD there)
        X = _data(k, d=1)
        K = k(X)
    except ValueError:  # ARD length scales need their number of features
        X = _data(k)
        K = k(X)
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-14)
    w = np.linalg.eigvalsh(K)
    assert w.min() >= -1e-8 * max(1.0, abs(w).max())
    np.testing.assert_allclose(k.diag(X), np.diagonal(K), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("make", _instances())
def test_block_is_the_call_on_checked_inputs(make):
    k = make()
    X = _data(k)
    Xc = k.check_input(X)
    np.testing.assert_allclose(k.block(Xc), k(X), rtol=1e-12, atol=1e-14)
    if not isinstance(k, kernels.Precomputed):
        Y = _data(k, n=4, seed=1)
        k.check_pair(Xc, k.check_input(Y))
        np.testing.assert_allclose(k.block(Xc, k.check_input(Y)), k(X, Y), rtol=1e-12)
    factors = k.exp_factors(Xc)
    if factors is not None:  # K = exp(min(A B^T, 0))
        A, B = factors
        np.testing.assert_allclose(np.exp(np.minimum(A @ B.T, 0)), k(X), atol=1e-12)
    assert k.sparse_row_products(Xc) is None  # dense X: rows come from block
    if not isinstance(k, kernels.Precomputed):  # sparse X: rows from X's columns, if offered
        import scipy.sparse as sp

        Xs = sp.csr_matrix(X)
        try:
            prod = k.sparse_row_products(k.check_input(Xs))
        except TypeError:  # a kernel that refuses sparse rows (named in its message)
            prod = None
        if prod is not None:
            out = np.zeros((3, X.shape[0]))
            prod.into(out, np.array([0, 5, 2]), np.array([0, 1, 2]))
            K = k(X)
            off = ~np.eye(X.shape[0], dtype=bool)[[0, 5, 2]]  # (callers set the diagonal)
            np.testing.assert_allclose(out[off], K[[0, 5, 2]][off], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("make", _instances())
def test_tile_factors_give_the_kernel(make, dtype):
    """Where a kernel offers fused tiles, every tile of K(X, Y) and K(X, X) is the kernel."""
    from kernelkit.linalg.fused import tile_plan

    k = make()
    if isinstance(k, kernels.Precomputed):
        assert k.tile_factors(_data(k)) is None
        return
    X = k.check_input(_data(k, n=11).astype(dtype))
    Y = k.check_input(_data(k, n=7, seed=1).astype(dtype))
    tol = dict(rtol=1e-12, atol=1e-13) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-6)
    for Z in (Y, None):
        plan = tile_plan(k, X, Z)
        if plan is None:
            continue
        K = k(X.astype(np.float64), None if Z is None else Z.astype(np.float64))
        out = np.empty((4, 5), dtype=dtype)
        n, m = K.shape
        for r in range(0, n, 4):  # every 4 x 5 tile, the diagonal ones included
            for c in range(0, m, 5):
                rows, cols = slice(r, min(r + 4, n)), slice(c, min(c + 5, m))
                T = plan.tile(rows, cols, out)
                assert T.dtype == dtype
                np.testing.assert_allclose(T, K[rows, cols], **tol)


@pytest.mark.parametrize("make", _instances())
def test_gradients_match_finite_differences(make):
    k = make()
    X = _data(k)
    theta = k.theta
    grads = list(k.gradient(X))
    assert len(grads) == k.n_dims == theta.size
    h = 1e-6
    for j in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[j] += h
        down[j] -= h
        fd = (k.clone_with_theta(up)(X) - k.clone_with_theta(down)(X)) / (2 * h)
        np.testing.assert_allclose(grads[j], fd, rtol=1e-5, atol=1e-7)
    W = np.random.default_rng(3).normal(size=(X.shape[0],) * 2)
    W = W + W.T
    expected = np.array([float(np.sum(W * G)) for G in grads])
    np.testing.assert_allclose(k.gradient_dot(X, W), expected, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("make", _instances())
def test_clone_params_and_save_load(make):
    k = make()
    c = clone(k)
    assert c == k and c is not k
    assert c.get_params(deep=False).keys() == k.get_params(deep=False).keys()
    X = _data(k)
    path = os.path.join(tempfile.mkdtemp(), "k.kkm")
    try:
        kernelkit.save(k, path)
    except SerializationError:
        # only a kernel holding a Python callable cannot be stored without pickle
        assert any(callable(v) and not isinstance(v, kernels.Kernel)
                   for v in k.get_params(deep=True).values())
        return
    loaded = kernelkit.load(path)
    assert type(loaded) is type(k)
    np.testing.assert_array_equal(loaded(X), k(X))


def test_algebra_takes_kernels_and_numbers_only():
    k = kernels.RBF()
    assert isinstance(k + 1.0, kernels.Sum) and isinstance(2 * k, kernels.Scale)
    assert isinstance(1.0 + k, kernels.Sum) and isinstance(k * k, kernels.Product)
    with pytest.raises(TypeError, match="resolve_kernel"):
        k + "rbf"
    with pytest.raises(TypeError, match="resolve_kernel"):
        k * "rbf"
    # the parts say what they are: a constant factor scales, white noise adds a diagonal
    assert kernels.Constant(2.0).is_constant and not k.is_constant
    assert kernels.White(0.1).adds_to_diagonal and not k.adds_to_diagonal


def test_exp_factors_are_the_exp_form_of_tile_factors():
    # one capability: exp_factors is tile_factors read as K = exp(A B^T), when its map is exp
    X = np.random.default_rng(0).uniform(size=(7, 2))
    A, B = kernels.RBF(0.8).exp_factors(X)
    f = kernels.RBF(0.8).tile_factors(X)
    assert f.pair is None and np.array_equal(A, f.A) and np.array_equal(B, f.B)
    np.testing.assert_allclose(np.exp(A @ B.T), kernels.RBF(0.8)(X), rtol=1e-12)
    for k in (2.0 * kernels.RBF(0.8), kernels.Matern(0.8), kernels.Laplacian(0.8),
              kernels.Polynomial(2)):
        assert k.tile_factors(X) is not None and k.exp_factors(X) is None

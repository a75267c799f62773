"""The sparse GP on a dask LocalCluster against the single-process fit."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from kernelkit import NystromKernelRidge, SparseGaussianProcessRegressor  # noqa: E402
from kernelkit.gaussian_process._collapsed_bound import collapsed_bound  # noqa: E402
from kernelkit.gaussian_process._rows import InMemoryRows, TrainingRows  # noqa: E402
from kernelkit.kernels import RBF, Constant  # noqa: E402
from kernelkit.linalg.dask_rows import DaskRows  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _data(n=700, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.3 * np.cos(2 * X[:, 1] * X[:, 2]) + 0.1 * rng.normal(size=n)
    return X, y


def test_dask_without_client_is_the_nystrom_error():
    # first in the module: before the module's client fixture starts a cluster
    X, y = _data(100)
    Xd, yd = da.from_array(X, chunks=(50, 3)), da.from_array(y, chunks=50)
    with pytest.raises(ValueError, match="no Client is running") as sgp_err:
        SparseGaussianProcessRegressor(n_inducing=5).fit(Xd, yd)
    with pytest.raises(ValueError, match="no Client is running") as krr_err:
        NystromKernelRidge(n_centers=5).fit(Xd, yd)
    assert str(sgp_err.value).split(" got dask")[1] == str(krr_err.value).split(" got dask")[1]


def test_bound_and_gradient_per_chunk_equal_single_process(client):
    X, y = _data()
    Y = y[:, None]
    kernel = Constant(1.2) * RBF([0.9, 1.1, 1.3])
    Z = X[::35] + 0.05
    local = collapsed_bound(kernel, Z, 0.1, InMemoryRows(X, Y, 64), gradient=True,
                            inducing_gradient=True)
    # the data seam's dask rows: each worker reduces its own chunks
    rows = TrainingRows(DaskRows(da.from_array(X, chunks=(151, 3))),
                        da.from_array(Y, chunks=(151, 1)), 64)
    dist = collapsed_bound(kernel, Z, 0.1, rows, gradient=True, inducing_gradient=True)
    assert dist.value == pytest.approx(local.value, rel=1e-10)
    np.testing.assert_allclose(dist.grad_theta, local.grad_theta, rtol=1e-9)
    np.testing.assert_allclose(dist.grad_inducing, local.grad_inducing, rtol=1e-8, atol=1e-10)
    assert dist.grad_log_noise == pytest.approx(local.grad_log_noise, rel=1e-9)


@pytest.mark.parametrize("normalize_y", [False, True])
def test_dask_fit_and_predict_equal_single_process(client, normalize_y):
    X, y = _data()
    kw = dict(n_inducing=20, noise_variance=0.2, random_state=0, normalize_y=normalize_y)
    local = SparseGaussianProcessRegressor(RBF([1.0, 1.0, 1.0]), **kw).fit(X, y)
    dist = SparseGaussianProcessRegressor(RBF([1.0, 1.0, 1.0]), **kw).fit(
        da.from_array(X, chunks=(200, 3)), da.from_array(y, chunks=150))
    np.testing.assert_allclose(dist.inducing_points_, local.inducing_points_)
    assert dist.elbo_ == pytest.approx(local.elbo_, rel=1e-10)
    np.testing.assert_allclose(dist.kernel_.theta, local.kernel_.theta, rtol=1e-6)
    Xt = _data(90, seed=1)[0]
    mean, std = dist.predict(da.from_array(Xt, chunks=(40, 3)), return_std=True)
    assert isinstance(mean, da.Array)
    m0, s0 = local.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean.compute(), m0, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(std.compute(), s0, rtol=1e-6, atol=1e-8)
    # the public ELBO at a given theta works on the cluster too
    theta = np.concatenate([dist.kernel_.theta, np.log([dist.noise_variance_])])
    assert dist.log_marginal_likelihood(theta) == pytest.approx(dist.elbo_, rel=1e-10)


def test_dask_non_finite_chunk_is_named(client):
    X, y = _data(200)
    y[150] = np.nan
    with pytest.raises(ValueError, match="y chunk 1"):
        SparseGaussianProcessRegressor(n_inducing=5).fit(da.from_array(X, chunks=(100, 3)),
                                                         da.from_array(y, chunks=100))

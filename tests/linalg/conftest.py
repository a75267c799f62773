"""Fixtures shared by the linalg tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def client():
    """A one-worker in-process dask cluster for the module's tests (skipped without
    distributed)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()

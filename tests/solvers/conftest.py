"""Single-threaded BLAS for the small solver problems (threads only add overhead here)."""

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield

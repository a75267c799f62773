"""Hostile model files (issue 19, bounded profile of ``python -m benchmarks.fuzz --part files``).

Every mutation family of :mod:`benchmarks._rel_files` on every genuine file, plus
hypothesis-chosen bit flips and truncations: each load ends in a FormatError or a valid
kernelkit estimator, within 100 MB of allocations and a second, writing nothing and
importing nothing outside kernelkit.
"""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import _rel_files as rel


@pytest.fixture(scope="module")
def originals(monkeypatch_module):
    monkeypatch_module.setattr(rel, "BOMB_BYTES", 1 << 27)  # past the bomb check's 64 MiB
    rel._warm()
    return rel.genuine_bytes()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


@pytest.mark.parametrize("family", sorted(rel.FAMILIES))
def test_every_family_is_refused_or_loads_a_valid_model(originals, family):
    rng = random.Random(family)
    for name, data in sorted(originals.items()):
        out = rel.try_load(rel.FAMILIES[family](data, rng), family)
        assert out.outcome != "failure", f"{family} on {name}: {out.detail}"


def test_the_checks_catch_what_they_should():
    """The harness itself: a 1 MB allocation limit and a foreign class are failures."""
    import kernelkit

    data = rel.genuine_bytes()["KernelRidge"]
    assert rel.try_load(data).outcome == "loaded"
    old = rel.MAX_MB
    rel.MAX_MB = 1e-6
    try:
        assert rel.try_load(data).outcome == "failure"
    finally:
        rel.MAX_MB = old
    assert kernelkit.load  # a genuine load keeps working


@functools.lru_cache(maxsize=1)
def _genuine():
    return rel.genuine_bytes()


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_flips_and_cuts(data):
    genuine = _genuine()
    name = data.draw(st.sampled_from(sorted(genuine)))
    raw = bytearray(genuine[name])
    if data.draw(st.booleans()):
        for i in data.draw(st.lists(st.integers(0, len(raw) - 1), min_size=1, max_size=6)):
            raw[i] ^= 1 << data.draw(st.integers(0, 7))
    else:
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    out = rel.try_load(bytes(raw), "hypothesis")
    assert out.outcome != "failure", out.detail


def test_stored_size_beyond_the_file_is_refused_without_allocating_it():
    """A member whose central-directory entry claims 128 MB of stored bytes (one flipped
    bit, found by the test above) is refused before zipfile allocates a buffer for them."""
    import struct

    for name, data in sorted(_genuine().items()):
        raw = bytearray(data)
        entry = raw.rfind(b"PK\x01\x02")  # the last member's central-directory entry
        stored = struct.unpack_from("<I", raw, entry + 20)[0]
        struct.pack_into("<I", raw, entry + 20, stored | (1 << 27))
        out = rel.try_load(bytes(raw), "stored size")
        assert out.outcome == "refused", f"{name}: {out.outcome} {out.detail}"
        assert out.peak_mb < 16, name

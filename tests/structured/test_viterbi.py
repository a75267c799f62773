"""Viterbi (plain and loss-augmented) against brute-force enumeration of all sequences."""

import numpy as np
import pytest

from kernelkit.structured import ChainOracle, Scores
from kernelkit.structured.viterbi import viterbi, viterbi_batch
from tests.reference.structured import brute_viterbi, chain_score


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("T,S", [(1, 3), (2, 2), (3, 3), (5, 2), (4, 4)])
def test_viterbi_matches_enumeration(seed, T, S):
    rng = np.random.default_rng(seed)
    G, W = rng.normal(size=(T, S)), rng.normal(size=(S, S))
    z = viterbi(G, W)
    _, best = brute_viterbi(G, W)
    assert chain_score(G, W, z) == pytest.approx(best, abs=1e-12)
    z_true = rng.integers(0, S, size=T)
    za = viterbi(G, W, z_true)
    _, best_a = brute_viterbi(G, W, z_true)
    assert chain_score(G, W, za) + np.mean(za != z_true) == pytest.approx(best_a, abs=1e-12)


def test_batch_equals_single_and_oracle_argmax():
    rng = np.random.default_rng(0)
    S = 3
    lengths = [1, 4, 2, 5]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    G, W = rng.normal(size=(offsets[-1], S)), rng.normal(size=(S, S))
    Zt = rng.integers(0, S, size=offsets[-1])
    for zt in (None, Zt):
        Z = viterbi_batch(G, W, offsets, zt)
        for a, b in zip(offsets[:-1], offsets[1:]):
            np.testing.assert_array_equal(Z[a:b], viterbi(G[a:b], W, None if zt is None
                                                          else zt[a:b]))
    o = ChainOracle(S).fit(None)
    z = o.argmax(None, Scores(G[:4], W.ravel()), Zt[:4])
    np.testing.assert_array_equal(z, viterbi(G[:4], W, Zt[:4]))
    np.testing.assert_array_equal(o.argmax_batch(None, offsets, G, W.ravel()),
                                  viterbi_batch(G, W, offsets))


def test_viterbi_bad_shapes():
    with pytest.raises(ValueError, match="T >= 1"):
        viterbi(np.zeros((0, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"\(S, S\)"):
        viterbi(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="one label per position"):
        viterbi(np.zeros((3, 2)), np.zeros((2, 2)), np.array([0, 1]))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("T,S", [(1, 3), (3, 3), (5, 2), (4, 4)])
def test_unnormalized_hamming_augmentation_matches_enumeration(seed, T, S):
    # Delta = sum_t [z_t != y_t] (Taskar's loss): the augmentation is +1 per wrong position
    rng = np.random.default_rng(seed)
    G, W = rng.normal(size=(T, S)), rng.normal(size=(S, S))
    z_true = rng.integers(0, S, size=T)
    za = viterbi(G, W, z_true, normalize=False)
    _, best = brute_viterbi(G, W, z_true, normalize=False)
    assert chain_score(G, W, za) + np.sum(za != z_true) == pytest.approx(best, abs=1e-12)
    zb = viterbi_batch(G, W, np.array([0, T]), z_true, normalize=False)
    np.testing.assert_array_equal(zb, za)

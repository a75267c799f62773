"""Losses: Fenchel-Young, conjugates against numerical maximisation, dual steps, derivatives."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.losses import (
    Absolute,
    EpsilonInsensitive,
    Hinge,
    Huber,
    Logistic,
    Loss,
    Quantile,
    Squared,
    SquaredHinge,
    resolve_loss,
)
from tests.reference.losses import conjugate_numeric, dual_step_numeric

LOSSES = [Squared(), Absolute(), EpsilonInsensitive(0.3), Huber(0.7), Quantile(0.25),
          Hinge(), SquaredHinge(), Logistic()]
IDS = [type(loss).__name__ for loss in LOSSES]


def _labels(loss, rng, n):
    if loss.is_classification:
        return rng.choice([-1.0, 1.0], size=n)
    return rng.normal(size=n)


def _inside(loss, y, rng):
    """Random points of the conjugate domain (finite part)."""
    lo, hi = loss.conjugate_domain(y)
    lo = np.where(np.isfinite(lo), lo, -3.0)
    hi = np.where(np.isfinite(hi), hi, 3.0)
    return lo + (hi - lo) * rng.uniform(0.001, 0.999, size=y.shape)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_fenchel_young(loss):
    # l(y, f) + l*(y, s) >= s f for all s, with equality at s = l'(y, f)
    rng = np.random.default_rng(0)
    y = _labels(loss, rng, 300)
    f = 2.0 * rng.normal(size=300)
    s = _inside(loss, y, rng)
    assert np.all(loss.value(y, f) + loss.conjugate(y, s) >= s * f - 1e-12)
    s_star = loss.derivative(y, f)
    np.testing.assert_allclose(loss.value(y, f) + loss.conjugate(y, s_star), s_star * f,
                               atol=1e-10)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_conjugate_matches_numerical_maximisation(loss):
    rng = np.random.default_rng(1)
    y = _labels(loss, rng, 12)
    s = _inside(loss, y, rng)
    for yi, si in zip(y, s):
        ref = conjugate_numeric(loss, yi, si)
        assert float(loss.conjugate(yi, si)) == pytest.approx(ref, abs=1e-6)


@pytest.mark.parametrize("loss", [l_ for l_ in LOSSES if not isinstance(l_, Squared)],
                         ids=[i for i in IDS if i != "Squared"])
def test_conjugate_is_inf_outside_domain(loss):
    y = np.array([1.0, -1.0]) if loss.is_classification else np.array([0.3, -0.2])
    lo, hi = loss.conjugate_domain(y)
    out = np.where(np.isfinite(hi), hi + 0.5, lo - 0.5)
    assert np.all(np.isinf(loss.conjugate(y, out)))


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_dual_step_is_the_exact_coordinate_minimiser(loss):
    rng = np.random.default_rng(2)
    C = 0.7
    y = _labels(loss, rng, 10)
    lo, hi = loss.dual_box(y, C)
    lo = np.where(np.isfinite(lo), lo, -2.0)
    hi = np.where(np.isfinite(hi), hi, 2.0)
    a = lo + (hi - lo) * rng.uniform(0.05, 0.95, size=10)
    g = rng.normal(size=10)
    q = rng.uniform(0.2, 2.0, size=10)
    step = loss.dual_step(y, a, g, q, C)
    for k in range(10):
        ref = dual_step_numeric(loss, y[k], a[k], g[k], q[k], C)

        def obj(b, k=k):
            return (0.5 * q[k] * (b - a[k]) ** 2 + g[k] * (b - a[k])
                    + C * float(loss.conjugate(y[k], -b / C)))

        assert obj(step[k]) <= obj(ref) + 1e-9
        assert step[k] == pytest.approx(ref, abs=1e-5)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_derivatives_match_finite_differences(loss):
    rng = np.random.default_rng(3)
    y = _labels(loss, rng, 50)
    f = rng.normal(size=50) * 2
    h = 1e-6
    fd = (loss.value(y, f + h) - loss.value(y, f - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(y, f), fd, atol=1e-5)
    if loss.smooth:
        fd2 = (loss.derivative(y, f + h) - loss.derivative(y, f - h)) / (2 * h)
        np.testing.assert_allclose(loss.second_derivative(y, f), fd2, atol=1e-4)


def test_flags():
    assert all(loss.is_regression for loss in LOSSES[:5])
    assert all(loss.is_classification for loss in LOSSES[5:])
    assert not any(loss.is_multiclass for loss in LOSSES)
    assert [loss.smooth for loss in LOSSES] == [True, False, False, True, False,
                                                False, True, True]


def test_libsvm_form_of_epsilon_insensitive_is_svr():
    y = np.array([0.5, -1.0, 2.0])
    form = EpsilonInsensitive(0.1).libsvm_form(y, 2.0)
    np.testing.assert_allclose(form["p"], [-0.4, 1.1, -1.9, 0.6, -0.9, 2.1])
    np.testing.assert_allclose(form["ys"], [1, 1, 1, -1, -1, -1])
    np.testing.assert_allclose(form["upper"], 2.0)
    assert Squared().libsvm_form(y, 1.0) is None and Logistic().libsvm_form(y, 1.0) is None


def test_resolve_loss():
    assert resolve_loss("hinge") == Hinge()
    assert resolve_loss("Quantile", q=0.9) == Quantile(0.9)
    assert resolve_loss("huber", delta=2.0, epsilon=0.1) == Huber(2.0)  # extra keys dropped
    loss = Logistic()
    assert resolve_loss(loss) is loss
    assert isinstance(resolve_loss("squared"), Loss)
    with pytest.raises(ValueError, match="Unknown loss"):
        resolve_loss("hingee")
    with pytest.raises(ValueError, match="Unknown loss"):
        resolve_loss(3)
    # scikit-learn's spellings
    assert resolve_loss("squared_error") == Squared()
    assert resolve_loss("log_loss") == Logistic()
    assert resolve_loss("absolute_error").name == "absolute"


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_call_and_subgradient_aliases(loss):
    y, f = np.array([1.0, -1.0, 0.3]), np.array([0.2, 0.7, -2.0])
    np.testing.assert_array_equal(loss(y, f), loss.value(y, f))
    np.testing.assert_array_equal(loss.subgradient(y, f), loss.derivative(y, f))


@pytest.mark.parametrize("make", [lambda: EpsilonInsensitive(-1), lambda: Huber(0.0),
                                  lambda: Quantile(1.0), lambda: Quantile(0.0)])
def test_bad_loss_parameters(make):
    with pytest.raises(ValueError):
        make()

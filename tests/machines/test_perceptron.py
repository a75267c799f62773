"""KernelPerceptron against the plain reference of the notes' pseudo-code, exactly."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

import kernelkit.machines.perceptron as perceptron_module
from kernelkit import KernelPerceptron
from tests.reference.perceptron import decision, perceptron_stream


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    # blocks of 7 examples: every test crosses many block boundaries
    monkeypatch.setattr(perceptron_module, "_BLOCK", 7)


def _data(kind, n=70, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "blobs":
        centers = rng.normal(scale=2.0, size=(n_classes, 3))
        y = rng.integers(0, n_classes, size=n)
        X = centers[y] + rng.normal(size=(n, 3))
    else:  # "rings": not linearly separable
        X = rng.normal(size=(n, 3))
        y = np.digitize(np.linalg.norm(X, axis=1), np.quantile(
            np.linalg.norm(X, axis=1), np.linspace(0, 1, n_classes + 1)[1:-1]))
    Xt = rng.normal(size=(9, 3)) * 1.5
    return X, y, Xt


KERNELS = {
    "rbf": (dict(kernel="rbf", gamma=0.5), lambda A, B: rbf_kernel(A, B, gamma=0.5)),
    "poly": (dict(kernel="poly", degree=2, gamma=0.5, coef0=1.0),
             lambda A, B: polynomial_kernel(A, B, degree=2, gamma=0.5, coef0=1.0)),
    "linear": (dict(kernel="linear"), linear_kernel),
}


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("kind", ["blobs", "rings"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("budget", [None, 8])
def test_mistake_sequence_matches_reference(kernel, kind, n_classes, budget):
    kw, kfun = KERNELS[kernel]
    X, y, Xt = _data(kind, n_classes=n_classes, seed=n_classes)
    max_epochs = 3
    for variant in ("standard", "averaged", "voted"):
        clf = KernelPerceptron(shuffle=False, max_epochs=max_epochs, budget=budget,
                               variant=variant, **kw)
        clf.fit(X, y)
        # fit stops after the first epoch without a mistake: the reference runs as many
        epochs = clf.n_iter_
        assert epochs == max_epochs or clf.mistakes_[-1] == 0
        res = perceptron_stream(kfun(X, X), y, list(range(len(X))) * epochs, n_classes, budget)
        mistakes = np.array(res["mistakes"]).reshape(epochs, -1).sum(axis=1)
        np.testing.assert_array_equal(clf.mistakes_, mistakes)
        np.testing.assert_array_equal(clf.support_, res["support"])
        np.testing.assert_allclose(clf.decision_function(Xt), decision(res, kfun(Xt, X), variant),
                                   atol=1e-10)
        assert clf.t_ == epochs * len(X)
    if budget is not None:
        assert len(clf.support_) <= budget


def test_per_step_mistakes_and_coefficients_match_reference():
    X, y, _ = _data("rings", n=50)
    K = rbf_kernel(X, gamma=0.5)
    res = perceptron_stream(K, y, list(range(50)) * 2, 2)
    clf = KernelPerceptron(shuffle=False, gamma=0.5, max_epochs=2).fit(X, y)
    # the mistake log holds the exact times of the mistakes
    np.testing.assert_array_equal(clf.mistake_log_[:, 3] - 1, np.flatnonzero(res["mistakes"]))
    # c_i = y_i * (number of mistakes on example i)
    np.testing.assert_allclose(clf.dual_coef_[0], [res["coef"][i][0] for i in res["support"]])
    np.testing.assert_allclose(clf.support_vectors_, X[clf.support_])


def test_sign_zero_counts_as_a_mistake():
    # the first example has score 0: a mistake, whatever its label; an example orthogonal to
    # the support (linear kernel) also scores 0 and is a mistake
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0], [-3.0, -3.0]])
    y = np.array([1, 1, 1, -1])  # scores: 0, 0, -1 + 1 = 0, -6 (correct)
    clf = KernelPerceptron(shuffle=False, kernel="linear", max_epochs=1).fit(X, y)
    assert clf.mistakes_.tolist() == [3]
    assert clf.support_.tolist() == [0, 1, 2]
    # at prediction a score of exactly 0 gives classes_[0]
    assert clf.predict(np.array([[0.0, 0.0]])).tolist() == [-1]


def test_novikoff_mistake_bound():
    # linearly separable through the origin with margin gamma and radius R:
    # number of mistakes of the perceptron <= (R / gamma)^2 over any number of epochs
    rng = np.random.default_rng(3)
    w = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    X = rng.normal(size=(400, 3))
    X = X[np.abs(X @ w) > 0.3]
    y = np.where(X @ w > 0, 1, -1)
    R, gamma = np.max(np.linalg.norm(X, axis=1)), np.min(np.abs(X @ w))
    clf = KernelPerceptron(shuffle=False, kernel="linear", max_epochs=20).fit(X, y)
    assert clf.mistakes_.sum() <= (R / gamma) ** 2
    assert clf.mistakes_[-1] == 0  # converged: separates the training data
    assert clf.score(X, y) == 1.0


def test_partial_fit_continues_the_stream():
    X, y, Xt = _data("rings", n=60, n_classes=3)
    res = perceptron_stream(rbf_kernel(X, gamma=0.5), y, list(range(60)), 3, budget=10)
    clf = KernelPerceptron(shuffle=False, max_epochs=1, gamma=0.5, budget=10, variant="averaged")
    for start in range(0, 60, 13):
        clf.partial_fit(X[start:start + 13], y[start:start + 13], classes=[0, 1, 2])
    assert clf.mistakes_.sum() == sum(res["mistakes"])
    np.testing.assert_array_equal(clf.support_, res["support"])
    np.testing.assert_allclose(clf.decision_function(Xt),
                               decision(res, rbf_kernel(Xt, X, gamma=0.5), "averaged"),
                               atol=1e-10)
    full = KernelPerceptron(shuffle=False, max_epochs=1, gamma=0.5, budget=10,
                            variant="averaged").fit(X, y)
    np.testing.assert_allclose(clf.decision_function(Xt), full.decision_function(Xt))


def test_shuffle_is_the_reference_on_the_permuted_stream():
    X, y, Xt = _data("blobs", n=50)
    clf = KernelPerceptron(gamma=0.5, max_epochs=2, shuffle=True, random_state=4).fit(X, y)
    rng = np.random.RandomState(4)
    order = list(rng.permutation(50)) + list(rng.permutation(50))
    res = perceptron_stream(rbf_kernel(X, gamma=0.5), y, order, 2)
    assert clf.mistakes_.tolist() == [sum(res["mistakes"][:50]), sum(res["mistakes"][50:])]
    np.testing.assert_allclose(clf.decision_function(Xt),
                               decision(res, rbf_kernel(Xt, X, gamma=0.5), "standard"))


def test_precomputed_kernel_matches_rbf():
    X, y, Xt = _data("rings", n=50, n_classes=3)
    a = KernelPerceptron(shuffle=False, gamma=0.5, max_epochs=2, variant="voted").fit(X, y)
    b = KernelPerceptron(shuffle=False, kernel="precomputed", max_epochs=2, variant="voted").fit(
        rbf_kernel(X, gamma=0.5), y)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(rbf_kernel(Xt, X, gamma=0.5)))
    with pytest.raises(ValueError, match="precomputed"):
        KernelPerceptron(shuffle=False, kernel="precomputed").partial_fit(
            rbf_kernel(X), y, classes=[0, 1, 2])


def test_labels_are_kept():
    X, y, Xt = _data("blobs", n=40, n_classes=3)
    names = np.array(["ant", "bee", "cat"])[y]
    clf = KernelPerceptron(shuffle=False, gamma=0.5, max_epochs=3).fit(X, names)
    assert set(clf.predict(Xt)) <= set(names)
    assert clf.decision_function(Xt).shape == (9, 3)
    assert clf.dual_coef_.shape == (3, len(clf.support_))


def test_partial_fit_bad_input():
    X, y, _ = _data("blobs", n=30)
    with pytest.raises(ValueError, match="classes must be passed"):
        KernelPerceptron(shuffle=False).partial_fit(X, y)
    clf = KernelPerceptron(shuffle=False).partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="not in classes_"):
        clf.partial_fit(X, np.full(30, 2))
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:, :2], y)
    with pytest.raises(ValueError, match="differs"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="classes must contain at least 2 labels; got \\[0\\]"):
        KernelPerceptron(shuffle=False).partial_fit(X, np.zeros(30), classes=[0])


@pytest.mark.parametrize("params, match", [
    (dict(variant="median"), "variant"),
    (dict(max_epochs=0), "max_epochs"),
    (dict(budget=0), "budget"),
    (dict(budget=2.5), "budget"),
])
def test_bad_parameters(params, match):
    X, y, _ = _data("blobs", n=20)
    with pytest.raises(ValueError, match=match):
        KernelPerceptron(**params).fit(X, y)


def test_constructor_signature_is_the_issue_s():
    # KernelPerceptron(kernel="rbf", max_epochs, variant="standard", budget=None,
    # shuffle, random_state=None), positionally in that order; issue 22's defaults: shuffle,
    # up to 100 epochs (stopping at the first epoch without a mistake)
    import inspect

    params = list(inspect.signature(KernelPerceptron).parameters.values())
    assert [(p.name, p.default) for p in params[:6]] == [
        ("kernel", "rbf"), ("max_epochs", 100), ("variant", "standard"), ("budget", None),
        ("shuffle", True), ("random_state", None)]
    clf = KernelPerceptron("linear", 3, "averaged", 5, True, 0)
    assert (clf.kernel, clf.max_epochs, clf.variant, clf.budget, clf.shuffle,
            clf.random_state) == ("linear", 3, "averaged", 5, True, 0)


def test_one_epoch_costs_n_times_support_kernel_evaluations(monkeypatch):
    # the scores of the support set are kept incrementally: a pass evaluates k(x_t, x_i)
    # only for support examples i (plus the current block of 7), never all n^2 pairs
    from kernelkit.kernels import RBF

    evaluated = []
    compute = RBF._compute

    def counting(self, X, Y=None):
        evaluated.append(len(X) * (len(X) if Y is None else len(Y)))
        return compute(self, X, Y)

    monkeypatch.setattr(RBF, "_compute", counting)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=400)
    X = rng.normal(size=(400, 3)) + 4.0 * (2 * y[:, None] - 1)  # two far-apart blobs
    clf = KernelPerceptron(shuffle=False, gamma=0.5, max_epochs=2).fit(X, y)
    n, n_sv = len(X), len(clf.support_)
    assert n_sv < n / 10
    assert sum(evaluated) <= 2 * n * (n_sv + 7)

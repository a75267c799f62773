"""StructuredPerceptron against a brute-force kernelized perceptron over enumerated outputs."""

import numpy as np
import pytest
from sklearn.base import clone

from kernelkit.kernels import RBF
from kernelkit.structured import ChainOracle, MulticlassOracle, StructuredPerceptron
from tests.reference.structured import all_sequences, chain_joint_kernel, perceptron


@pytest.mark.parametrize("averaged", [False, True])
def test_chain_perceptron_matches_brute_force(averaged):
    rng = np.random.default_rng(2)
    Y = [rng.integers(0, 2, size=rng.integers(1, 4)) for _ in range(8)]
    X = [np.c_[y + 0.8 * rng.normal(size=len(y))] for y in Y]
    kx = lambda a, b: float(np.exp(-0.5 * np.sum((a - b) ** 2)))
    jk = lambda x1, z1, x2, z2: chain_joint_kernel(kx, x1, z1, x2, z2)
    outs = [all_sequences(len(y), 2) for y in Y]
    epochs = 3
    m = StructuredPerceptron(ChainOracle(2), kernel=RBF(1.0), max_epochs=epochs,
                             averaged=averaged, shuffle=False).fit(X, Y)
    order = list(range(len(X))) * m.n_iter_
    f = perceptron(jk, X, Y, outs, order, averaged)
    for x, outs_x in zip(X[:4], outs[:4]):
        ours = m.decision_function([x] * len(outs_x), outs_x)
        ref = np.array([f(x, z) for z in outs_x])
        np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)


def test_multiclass_perceptron_separable_and_clone():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [3.0, 3.0], [3.1, 3.0], [0.0, 3.0], [0.1, 3.0]])
    y = np.array(["a", "a", "b", "b", "c", "c"])
    m = StructuredPerceptron(MulticlassOracle(), kernel="rbf", gamma=1.0, random_state=0)
    m.fit(X, y)
    assert m.predict(X).tolist() == y.tolist()
    assert m.n_mistakes_[-1] == 0 and m.n_iter_ <= 10
    assert clone(m).get_params()["max_epochs"] == 10
    with pytest.raises(ValueError, match="max_epochs"):
        StructuredPerceptron(MulticlassOracle(), max_epochs=0).fit(X, y)

"""Oracles: losses, label kernels, joint kernels against naive sums, bad outputs."""

import numpy as np
import pytest

from kernelkit.kernels import RBF, JointKernel, Linear, Polynomial
from kernelkit.structured import ChainOracle, HierarchyOracle, MulticlassOracle, Oracle, Scores
from tests.reference.structured import all_sequences, chain_joint_kernel, chain_score

# A tree:      0
#            /   \
#           1     2
#          / \     \
#         3   4     5
PARENTS = [-1, 0, 0, 1, 1, 2]


def test_product_of_psd_kernels_is_psd_and_tensor_product():
    # JointKernel(k_X, L) equals the Gram matrix of phi(x) (x) psi(y) for finite maps
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = rng.integers(0, 4, size=30)
    A = rng.normal(size=(4, 3))  # psi(y) = A[y]
    L = A @ A.T
    phi = np.column_stack([np.ones(30), np.sqrt(2) * X, X**2, np.sqrt(2) * X[:, :1] * X[:, 1:]])
    F = np.einsum("ni,nj->nij", phi, A[y]).reshape(30, -1)  # phi(x) (x) psi(y)
    K = JointKernel(Polynomial(degree=2, gamma=1.0, coef0=1.0), L)((X, y))
    np.testing.assert_allclose(K, F @ F.T, rtol=1e-10, atol=1e-10)
    # Schur: the product of PSD kernels is PSD (RBF x a random PSD label kernel)
    K2 = JointKernel(RBF(0.7), L)((X, y))
    assert np.linalg.eigvalsh(K2)[0] >= -1e-10 * np.trace(K2)
    # delta label kernel: the tensor product with one-hot class indicators
    K3 = JointKernel(Linear())((X, y))
    F3 = np.einsum("ni,nj->nij", X, np.eye(4)[y]).reshape(30, -1)
    np.testing.assert_allclose(K3, F3 @ F3.T, atol=1e-12)


def test_multiclass_oracle():
    o = MulticlassOracle().fit(np.array(["b", "a", "c", "a"]))
    assert o.n_states == 3 and o.classes_.tolist() == ["a", "b", "c"]
    Z = o.encode(np.array(["c", "a"]), np.arange(3))
    assert Z.tolist() == [2, 0]
    assert o.decode(Z, np.arange(3)).tolist() == ["c", "a"]
    assert o.loss([0], [0]) == 0.0 and o.loss([0], [1]) == 1.0
    # loss-augmented inference adds Delta(y_i, y) to the scores
    s = Scores(np.array([[1.0, 0.5, 0.2]]), np.empty(0))
    assert o.argmax(None, s).tolist() == [0]
    assert o.argmax(None, s, np.array([0])).tolist() == [1]
    with pytest.raises(ValueError, match="outside the output space"):
        o.encode(np.array(["z"]), np.arange(2))


def test_multiclass_label_kernel_and_loss_matrix():
    L = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])
    M = np.array([[0.0, 0.2, 1.0], [0.2, 0.0, 1.0], [1.0, 1.0, 0.0]])
    o = MulticlassOracle(label_kernel=L, loss_matrix=M).fit([0, 1, 2])
    np.testing.assert_array_equal(o.label_kernel_matrix(), L)
    assert o.loss([0], [1]) == 0.2
    with pytest.raises(ValueError, match="output space"):
        o.encode(np.array([3]), np.arange(2))
    with pytest.raises(ValueError, match="semi-definite"):
        MulticlassOracle(label_kernel=np.array([[1.0, 2.0], [2.0, 1.0]])).fit([0, 1])
    with pytest.raises(ValueError, match="zero diagonal"):
        MulticlassOracle(loss_matrix=np.ones((2, 2))).fit([0, 1])
    with pytest.raises(ValueError, match="numeric class values"):
        MulticlassOracle(label_kernel=RBF(1.0)).fit(["a", "b"])
    np.testing.assert_allclose(MulticlassOracle(label_kernel=RBF(1.0)).fit([0.0, 2.0])
                               .label_kernel_matrix(), RBF(1.0)(np.c_[[0.0, 2.0]]))
    with pytest.raises(ValueError, match="sizes differ"):
        MulticlassOracle(label_kernel=np.eye(2), loss_matrix=1 - np.eye(3)).fit([0, 1])


def test_hierarchy_oracle_kernel_counts_shared_ancestors_and_loss_is_tree_distance():
    o = HierarchyOracle(PARENTS).fit([3, 4, 5])
    L = o.label_kernel_matrix()
    anc = {0: {0}, 1: {0, 1}, 2: {0, 2}, 3: {0, 1, 3}, 4: {0, 1, 4}, 5: {0, 2, 5}}
    depth = {v: len(a) - 1 for v, a in anc.items()}
    for a in range(6):
        for b in range(6):
            assert L[a, b] == len(anc[a] & anc[b])
            lca_depth = len(anc[a] & anc[b]) - 1
            assert o.loss([a], [b]) == depth[a] + depth[b] - 2 * lca_depth
    assert np.linalg.eigvalsh(L)[0] > -1e-12
    # inference ranges over the leaves only
    s = Scores(np.array([[0.0, 9.0, 9.0, 1.0, 0.0, 0.5]]), np.empty(0))
    assert o.argmax(None, s).tolist() == [3]
    assert o.argmax(None, s, np.array([3])).tolist() == [5]  # 0.5 + Delta(3, 5) = 4.5
    with pytest.raises(ValueError, match="not in the output space"):
        o.encode(np.array([1]), np.arange(2))
    with pytest.raises(ValueError, match="cycle"):
        HierarchyOracle([-1, 2, 1]).fit([0])
    with pytest.raises(ValueError, match="exactly one root"):
        HierarchyOracle([-1, -1]).fit([0])


def test_chain_oracle_joint_kernel_equals_naive_sum():
    rng = np.random.default_rng(0)
    o = ChainOracle(3).fit(None)
    k = RBF(0.9)
    for _ in range(5):
        x1, x2 = rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
        z1, z2 = rng.integers(0, 3, 4), rng.integers(0, 3, 3)
        naive = chain_joint_kernel(lambda a, b: float(k(a[None], b[None])[0, 0]), x1, z1, x2, z2)
        assert o.joint_kernel(k(x1, x2), z1, z2) == pytest.approx(naive, rel=1e-12)


def test_chain_oracle_batches_and_bad_input():
    o = ChainOracle(3).fit(None)
    X = [np.zeros((2, 1)), np.zeros((3, 1))]
    parts, off = o.split_inputs(X)
    assert parts.shape == (5, 1) and off.tolist() == [0, 2, 5]
    Z = o.encode([np.array([0, 1]), np.array([2, 2, 1])], off)
    np.testing.assert_array_equal(o.pairwise_batch(Z, off)[1], o.pairwise_features(Z[2:]))
    np.testing.assert_allclose(o.loss_batch(Z, np.zeros(5, int), off), [0.5, 1.0])
    with pytest.raises(ValueError, match="length 0"):
        o.split_inputs([np.zeros((0, 1))])
    with pytest.raises(ValueError, match=r"n_states=3.*ChainOracle\(n_states=4\)"):
        o.encode([np.array([0, 3]), np.array([0, 0, 0])], off)
    with pytest.raises(ValueError, match="parts; lengths must match"):
        o.encode([np.array([0]), np.array([0, 0, 0])], off)
    with pytest.raises(ValueError, match="2 examples but Y has 1"):
        o.encode([np.array([0, 1])], off)
    with pytest.raises(ValueError, match="different numbers of features"):
        o.split_inputs([np.zeros((2, 1)), np.zeros((2, 2))])
    with pytest.raises(ValueError, match="n_states"):
        ChainOracle(0).fit(None)


def test_user_oracle_protocol_default_joint_kernel():
    class Binary(Oracle):
        n_states = 2

        def loss(self, z_true, z):
            return float(z_true[0] != z[0])

        def argmax(self, x, scores, z_true=None):
            g = scores.unary[0] + (0 if z_true is None else 1.0 - np.eye(2)[z_true[0]])
            return np.array([int(np.argmax(g))])

    o = Binary().fit([0, 1])
    K = np.array([[2.0]])
    assert o.joint_kernel(K, np.array([1]), np.array([1])) == 2.0
    assert o.joint_kernel(K, np.array([1]), np.array([0])) == 0.0


def test_oracle_argmax_accepts_plain_score_arrays_and_y_true_keyword():
    o = MulticlassOracle().fit([0, 1, 2])
    assert o.argmax(None, np.array([0.1, 0.5, 0.2])).tolist() == [1]
    assert o.argmax(None, np.array([0.1, 0.5, 0.2]), y_true=1).tolist() == [2]  # 0.2 + 1
    assert o.loss(0, 2) == 1.0 and o.loss(1, 1) == 0.0
    c = ChainOracle(2)
    G = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    assert c.argmax(None, G).tolist() == [0, 0, 0]
    # Hamming augmentation 1/T per wrong position cannot beat a margin of 1 per position
    assert c.argmax(None, G, y_true=np.array([0, 0, 0])).tolist() == [0, 0, 0]
    assert c.argmax(None, 0.2 * G, y_true=np.array([0, 0, 0])).tolist() == [1, 1, 1]
    assert c.argmax(None, (G, np.array([0.0, -5.0, -5.0, 0.0]))).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="y_true has 2 labels"):
        c.argmax(None, G, y_true=np.array([0, 0]))
    with pytest.raises(ValueError, match="same length"):
        c.task_loss(np.array([0, 1]), np.array([0, 1, 1]))


@pytest.mark.parametrize("label_kernel", [None, "matrix", "kernel"])
def test_joint_kernel_values_diag_and_gradient(label_kernel):
    rng = np.random.default_rng(3)
    X, X2 = rng.normal(size=(7, 2)), rng.normal(size=(4, 2))
    y, y2 = rng.integers(0, 3, 7), rng.integers(0, 3, 4)
    L = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]])
    lk = {"None": None, "matrix": L, "kernel": RBF(2.0)}[str(label_kernel)]
    k = JointKernel(RBF(0.7), lk)
    kx = lambda a, b: np.exp(-0.5 * np.sum((a - b) ** 2) / 0.7**2)
    ky = {"None": lambda a, b: float(a == b), "matrix": lambda a, b: L[a, b],
          "kernel": lambda a, b: np.exp(-0.5 * (a - b) ** 2 / 4.0)}[str(label_kernel)]
    naive = np.array([[kx(a, b) * ky(u, v) for b, v in zip(X2, y2)] for a, u in zip(X, y)])
    np.testing.assert_allclose(k((X, y), (X2, y2)), naive, rtol=1e-12)  # k_X * k_Y
    np.testing.assert_allclose(k.diag((X, y)), np.diag(k((X, y))), rtol=1e-12)
    K, dK = k((X, y), eval_gradient=True)
    eps = 1e-6
    for j in range(len(k.theta)):
        tp, tm = k.theta.copy(), k.theta.copy()
        tp[j] += eps
        tm[j] -= eps
        fd = (k.clone_with_theta(tp)((X, y)) - k.clone_with_theta(tm)((X, y))) / (2 * eps)
        np.testing.assert_allclose(dK[:, :, j], fd, atol=1e-7)
    with pytest.raises(ValueError, match="pairs"):
        k(X)


@pytest.mark.parametrize("loss", ["hamming", "normalized_hamming"])
def test_chain_oracle_loss_augmented_argmax_is_the_enumerated_one(loss):
    # max_z Delta(y, z) + f(z) over every label sequence, Delta from the oracle's task_loss
    rng = np.random.default_rng(1)
    S = 3
    o = ChainOracle(S, loss=loss).fit(None)
    for T in [1, 2, 4, 5]:
        G, W = rng.normal(size=(T, S)), rng.normal(size=(S, S))
        y = rng.integers(0, S, size=T)
        val = lambda z, G=G, W=W, y=y: chain_score(G, W, z) + o.task_loss(y, z)
        best = max(val(z) for z in all_sequences(T, S))
        z = o.argmax(None, (G, W.ravel()), y)
        assert val(z) == pytest.approx(best, abs=1e-12)
        off = np.array([0, T])
        np.testing.assert_array_equal(o.argmax_batch(None, off, G, W.ravel(), y), z)
        assert o.loss_batch(y, z, off)[0] == pytest.approx(o.task_loss(y, z))
    wrong = np.array([0, 1, 1, 2]) != np.array([1, 1, 0, 2])
    assert o.task_loss([0, 1, 1, 2], [1, 1, 0, 2]) == (2.0 if loss == "hamming" else 0.5)
    assert wrong.sum() == 2


def test_chain_oracle_n_states_is_required_and_named_in_errors():
    Y = [np.array([0, 25, 3]), np.array([7, 1])]
    with pytest.raises(ValueError, match=r"needs n_states.*ChainOracle\(n_states=26\)"):
        ChainOracle().fit(Y)
    with pytest.raises(ValueError, match=r"ChainOracle\(n_states=2\).*largest label is 25.*"
                                         r"ChainOracle\(n_states=26\)"):
        ChainOracle(2).fit(Y)
    with pytest.raises(ValueError, match="loss must be"):
        ChainOracle(3, loss="squared").fit(None)
    assert ChainOracle(26).fit(Y).n_states == 26

"""Plain reference of the notes' kernel perceptron pseudo-code (Python loops, no tricks).

Used to check ``kernelkit.KernelPerceptron`` exactly: the mistake sequence, the support
set and the standard / averaged / voted predictors, with and without a budget.

Conventions (the same as the estimator's docstring):
- binary labels y in {-1, +1}: mistake iff y * f(x) <= 0; on a mistake c_i += y;
- k classes (codes 0..K-1): mistake iff max_{r != y} f_r >= f_y, with y^ the first such
  best wrong class; on a mistake c_{y,i} += 1, c_{y^,i} -= 1;
- a mistake on an example that is already a support example updates its coefficient;
- budget B: before adding a new support example to a full set, forget the oldest one
  (the first to have entered the set); a forgotten example disappears from the whole
  history (also from the averaged and voted predictors).
"""

from __future__ import annotations

import numpy as np


def perceptron_stream(K, y, order, n_classes, budget=None):
    """Run the online algorithm over the stream ``order`` (example indices, may repeat).

    Parameters
    ----------
    K : ndarray (n, n)
        Kernel matrix of the examples, ``K[i, j] = k(x_i, x_j)``.
    y : ndarray (n,)
        Class codes 0..n_classes-1 (binary: 0 -> -1, 1 -> +1).
    order : sequence of int
        The stream (e.g. ``list(range(n)) * epochs``).

    Returns
    -------
    dict with ``mistakes`` (list of bool per step), ``support`` (example indices, oldest
    first), ``coef`` (dict example -> coefficient vector), ``history`` (the coefficient
    dict after every step, for the averaged / voted predictors, forgotten examples
    removed), ``T``.
    """
    S = 1 if n_classes == 2 else n_classes
    support = []  # example indices, in the order they entered the set
    coef = {}  # example -> np.array(S)
    steps = []  # (example, delta) updates per step, None when no mistake
    mistakes = []
    forgotten = set()
    for x in order:
        f = np.zeros(S)
        for i in support:
            f += coef[i] * K[i, x]
        if S == 1:
            ys = 2.0 * y[x] - 1.0
            mistake = ys * f[0] <= 0
            delta = np.array([ys])
        else:
            wrong = [r for r in range(S) if r != y[x]]
            pred = wrong[int(np.argmax([f[r] for r in wrong]))]
            mistake = f[pred] >= f[y[x]]
            delta = np.zeros(S)
            delta[y[x]] += 1.0
            delta[pred] -= 1.0
        mistakes.append(bool(mistake))
        if not mistake:
            steps.append(None)
            continue
        if x not in coef:
            if budget is not None and len(support) >= budget:
                old = support.pop(0)
                del coef[old]
                forgotten.add(old)
                # forgotten: remove from the whole history
                steps = [None if s is None or s[0] == old else s for s in steps]
            support.append(x)
            coef[x] = np.zeros(S)
            forgotten.discard(x)
        coef[x] = coef[x] + delta
        steps.append((x, delta))
    # history of coefficient vectors after every step, with the forgotten removed. A
    # forgotten-then-readded example must only count its updates after it re-entered:
    # steps before its removal were already set to None above.
    history = []
    cur = {}
    for s in steps:
        if s is not None:
            cur[s[0]] = cur.get(s[0], np.zeros(S)) + s[1]
        history.append(dict(cur))
    return dict(mistakes=mistakes, support=support, coef=coef, history=history,
                T=len(order), steps=steps)


def decision(res, k_test, variant):
    """Scores of test points; ``k_test[j, i] = k(x_i, test_j)`` (shape (n_test, n))."""
    S = len(next(iter(res["coef"].values()))) if res["coef"] else 1
    T = res["T"]
    out = []
    for kt in k_test:
        if variant == "standard":
            f = np.zeros(S)
            for i, c in res["coef"].items():
                f += c * kt[i]
            out.append(f)
        elif variant == "averaged":
            # (1/T) sum_t f_t(x)
            f = np.zeros(S)
            for cur in res["history"]:
                for i, c in cur.items():
                    f += c * kt[i]
            out.append(f / T)
        else:
            # voted: each step's vector votes sign (binary) / argmax (k-class); the
            # initial zero vector (before the first mistake) does not vote
            v = np.zeros(S)
            started = False
            for mistake, cur in zip(res["mistakes"], res["history"]):
                started = started or mistake
                if not started:
                    continue
                f = np.zeros(S)
                for i, c in cur.items():
                    f += c * kt[i]
                if S == 1:
                    v[0] += np.sign(f[0])
                else:
                    v[int(np.argmax(f))] += 1
            out.append(v / T)
    out = np.array(out)
    return out[:, 0] if S == 1 else out

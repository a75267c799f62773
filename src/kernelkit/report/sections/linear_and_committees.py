"""The remaining estimators of the tour: least squares as maximum likelihood, Bayesian linear
regression (= a GP with a finite feature map), exact leave-one-out KRR, random Fourier
features, and a majority-vote committee."""

from __future__ import annotations

import time

import numpy as np

from .. import DemoContext, Section

ORDER = 25
TITLE = "Linear models, exact LOO, random features and a committee"


def _fit(est, *args):
    t0 = time.perf_counter()
    est.fit(*args)
    return est, round(time.perf_counter() - t0, 3)


def run(ctx: DemoContext) -> Section:
    from sklearn import linear_model as sklm
    from sklearn.ensemble import VotingClassifier
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    import kernelkit as kk
    from kernelkit.datasets import load_breast_cancer, load_diabetes
    from kernelkit.kernels import FeatureMap

    rows = []
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    tr, te = slice(0, 350), slice(350, None)
    data = "diabetes (350 train / 92 test, standardized)"

    ctx.progress("LinearRegression as maximum likelihood; BayesianLinearRegression = GP")
    ours, t = _fit(kk.LinearRegression(), X[tr], y[tr])
    peer, tp = _fit(sklm.LinearRegression(), X[tr], y[tr])
    rows.append(dict(model="LinearRegression", data=data, metric="test R^2",
                     ours=round(ours.score(X[te], y[te]), 4),
                     peer=round(peer.score(X[te], y[te]), 4), seconds=t, peer_seconds=tp))
    rows.append(dict(model="LinearRegression", data=data,
                     metric="noise variance MLE RSS/n", ours=round(ours.noise_variance_, 4),
                     peer=None))
    def features(Z):
        # Phi(x) = [1, x, x^2]: a finite feature map
        return np.hstack([np.ones((len(Z), 1)), Z, Z**2])

    blr, t = _fit(kk.BayesianLinearRegression(features, alpha=1.0, noise=0.5), X[tr], y[tr])
    gp = kk.GaussianProcessRegressor(kernel=FeatureMap(features), alpha=0.5, optimizer=None)
    gp.fit(X[tr], y[tr])
    m1, s1 = blr.predict(X[te], return_std=True)
    m2, s2 = gp.predict(X[te], return_std=True)
    rows.append(dict(model="BayesianLinearRegression", data=data,
                     metric="max |mean - GP(FeatureMap) mean|, |std - GP std|",
                     ours=f"{np.abs(m1 - m2).max():.1e}, {np.abs(s1 - s2).max():.1e}",
                     peer=None, seconds=t))

    ctx.progress("KernelRidgeCV: exact leave-one-out for every alpha from one eigendecomposition")
    alphas = np.logspace(-3, 1, 10 if ctx.quick else 20)
    cv, t = _fit(kk.KernelRidgeCV(alphas=alphas, kernel="rbf", gamma=0.05), X[tr], y[tr])
    grid, tp = _fit(GridSearchCV(SkKernelRidge(kernel="rbf", gamma=0.05),
                                 {"alpha": alphas}, cv=5), X[tr], y[tr])
    rows.append(dict(model=f"KernelRidgeCV (alpha_={cv.alpha_:.3g})", data=data,
                     metric="test R^2 (peer: GridSearchCV(KernelRidge, cv=5))",
                     ours=round(cv.score(X[te], y[te]), 4),
                     peer=round(grid.score(X[te], y[te]), 4), seconds=t, peer_seconds=tp))

    ctx.progress("RandomFourierFeatures + Ridge vs RBFSampler + Ridge")
    D = 200 if ctx.quick else 1000
    ours, t = _fit(make_pipeline(kk.RandomFourierFeatures("rbf", D, gamma=0.05, random_state=0),
                                 sklm.Ridge(alpha=1.0)), X[tr], y[tr])
    peer, tp = _fit(make_pipeline(RBFSampler(gamma=0.05, n_components=D, random_state=0),
                                  sklm.Ridge(alpha=1.0)), X[tr], y[tr])
    rows.append(dict(model=f"RandomFourierFeatures(D={D}) + Ridge", data=data,
                     metric="test R^2 (peer: RBFSampler + Ridge)",
                     ours=round(ours.score(X[te], y[te]), 4),
                     peer=round(peer.score(X[te], y[te]), 4), seconds=t, peer_seconds=tp))

    ctx.progress("MajorityVote of a kernel machine, a perceptron and AdaBoost")
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xb = StandardScaler().fit_transform(Xb)
    rng = np.random.default_rng(ctx.random_state)
    idx = rng.permutation(len(yb))
    tr_b, te_b = idx[:400], idx[400:]
    members = [("svm", kk.KernelClassifier("hinge", alpha=1e-3, gamma=0.02)),
               ("perceptron", kk.KernelPerceptron(kernel="rbf", gamma=0.02,
                                                  variant="averaged", max_epochs=3)),
               ("adaboost", kk.AdaBoost(n_estimators=50))]
    vote, t = _fit(kk.MajorityVote(members), Xb[tr_b], yb[tr_b])
    sk_vote, tp = _fit(VotingClassifier([("svm", SVC(gamma=0.02)),
                                         ("tree", DecisionTreeClassifier(max_depth=3)),
                                         ("lr", sklm.LogisticRegression())]),
                       Xb[tr_b], yb[tr_b])
    data_b = f"breast cancer ({len(tr_b)} train / {len(te_b)} test)"
    rows.append(dict(model="MajorityVote(KernelClassifier, KernelPerceptron, AdaBoost)",
                     data=data_b, metric="test accuracy (peer: VotingClassifier, hard)",
                     ours=round(vote.score(Xb[te_b], yb[te_b]), 4),
                     peer=round(sk_vote.score(Xb[te_b], yb[te_b]), 4),
                     seconds=t, peer_seconds=tp))
    return Section(
        TITLE, rows=rows,
        text=("Least squares is the maximum-likelihood estimate under Gaussian noise, with the "
              "noise variance estimated as RSS/n. Bayesian linear regression on an explicit "
              "finite feature map gives the same predictive mean and variance as a Gaussian "
              "process with the kernel k(x, y) = phi(x).phi(y). KernelRidgeCV scores every "
              "alpha by exact leave-one-out residuals from one eigendecomposition of K."),
    )

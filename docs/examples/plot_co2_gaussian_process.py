"""
A Gaussian process on the Mauna Loa CO2 record
==============================================

The weekly CO2 concentration at Mauna Loa (1958–2001), averaged per month, modelled by a
Gaussian process whose kernel is a sum of a long-term trend, a seasonal (periodic times
decaying) component, medium-term irregularities and white noise. The hyperparameters
maximize the log marginal likelihood (L-BFGS-B from the kernel's starting values); the
posterior mean and a two-standard-deviation band extrapolate ten years past the data. The
quick documentation build (``make docs QUICK=1``) fits three-month means instead (176 points
instead of 519), with the same optimization. See :doc:`/guide/gaussian_process`.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from kernelkit import GaussianProcessRegressor
from kernelkit.datasets import load_co2
from kernelkit.kernels import RBF, Constant, ExpSineSquared, RationalQuadratic, White

QUICK = os.environ.get("KERNELKIT_DOCS_QUICK", "") not in ("", "0")

X, y = load_co2(return_X_y=True)
# monthly means (quick mode: three-month means)
step = 3 if QUICK else 1
month = np.floor((X[:, 0] - X[0, 0]) * 12 / step).astype(int)
counts = np.bincount(month)
keep = counts > 0
Xm = (np.bincount(month, X[:, 0])[keep] / counts[keep])[:, None]
ym = np.bincount(month, y)[keep] / counts[keep]

kernel = (
    Constant(2000.0) * RBF(50.0)  # long-term trend
    + Constant(15.0) * RBF(110.0) * ExpSineSquared(2.2, 1.0, periodicity_bounds="fixed")
    + Constant(0.3) * RationalQuadratic(1.0, 5.0)  # medium-term irregularities
    + Constant(0.02) * RBF(0.25)
    + White(0.02, noise_level_bounds=(1e-5, 1e1))
)
# the hyperparameters maximize the log marginal likelihood, in quick mode too (about 1 s)
gp = GaussianProcessRegressor(kernel, normalize_y=True, optimizer="fmin_l_bfgs_b")
gp.fit(Xm, ym)
print(f"{len(ym)} months, log marginal likelihood {gp.log_marginal_likelihood_value_:.1f}")
print("kernel:", gp.kernel_)

X_plot = np.linspace(Xm[0, 0], Xm[-1, 0] + 10, 600)[:, None]
mean, std = gp.predict(X_plot, return_std=True)

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(Xm[:, 0], ym, ".", ms=2, color="k", label="monthly mean")
ax.plot(X_plot[:, 0], mean, lw=1, label="posterior mean")
ax.fill_between(X_plot[:, 0], mean - 2 * std, mean + 2 * std, alpha=0.3, label="± 2 std")
ax.set_xlabel("year")
ax.set_ylabel("CO$_2$ (ppmv)")
ax.legend(loc="upper left")
fig.tight_layout()

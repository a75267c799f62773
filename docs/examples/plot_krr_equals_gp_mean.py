"""
Kernel ridge regression is the GP posterior mean
================================================

With the same kernel and ``alpha`` equal to the noise variance, the kernel ridge
predictor :math:`k(x)^\\top (K + \\lambda I)^{-1} y` and the Gaussian-process posterior
mean are the same function; the GP adds the posterior variance. Here on two years of the
Mauna Loa record with the trend removed. With ``alpha`` near zero the GP interpolates
(noise-free): its variance vanishes at the training inputs. See
:doc:`/guide/kernel_ridge` and :doc:`/guide/gaussian_process`.
"""

import matplotlib.pyplot as plt
import numpy as np

from kernelkit import GaussianProcessRegressor, KernelRidge
from kernelkit.datasets import load_co2
from kernelkit.kernels import RBF

X, y = load_co2(return_X_y=True)
window = (X[:, 0] >= 1990) & (X[:, 0] < 1992)
X, y = X[window][::4], y[window][::4]  # every fourth week
y = y - np.polyval(np.polyfit(X[:, 0], y, 1), X[:, 0])  # remove the linear trend

kernel, noise = RBF(0.1), 0.1
krr = KernelRidge(alpha=noise, kernel=kernel).fit(X, y)
gp = GaussianProcessRegressor(kernel, alpha=noise, optimizer=None).fit(X, y)
gp0 = GaussianProcessRegressor(kernel, alpha=1e-10, optimizer=None).fit(X, y)

X_plot = np.linspace(1990, 1992, 400)[:, None]
mean, std = gp.predict(X_plot, return_std=True)
mean0, std0 = gp0.predict(X_plot, return_std=True)
print("max |KRR - GP mean| =", np.abs(krr.predict(X_plot) - mean).max())
print("noise-free GP: max |f(x_i) - y_i| =", np.abs(gp0.predict(X) - y).max())

fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
ax = axes[0]
ax.plot(X[:, 0], y, "k.", label="data")
ax.plot(X_plot[:, 0], krr.predict(X_plot), lw=3, alpha=0.5, label="kernel ridge")
ax.plot(X_plot[:, 0], mean, "--", label="GP mean")
ax.fill_between(X_plot[:, 0], mean - 2 * std, mean + 2 * std, alpha=0.2)
ax.set_title(rf"noise variance $\alpha = {noise}$")
ax.legend(loc="lower left", fontsize=8)
ax = axes[1]
ax.plot(X[:, 0], y, "k.")
ax.plot(X_plot[:, 0], mean0, label="GP mean")
ax.fill_between(X_plot[:, 0], mean0 - 2 * std0, mean0 + 2 * std0, alpha=0.2)
ax.set_title(r"noise-free ($\alpha \to 0$): interpolation")
for a in axes:
    a.set_xlabel("year")
axes[0].set_ylabel("detrended CO$_2$ (ppmv)")
fig.tight_layout()

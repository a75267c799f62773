"""
Gaussian-process regression of the Mauna Loa CO2 record
========================================================

test
"""

import matplotlib.pyplot as plt

from kernelkit.datasets import load_co2

X, y = load_co2(return_X_y=True)
plt.plot(X, y)

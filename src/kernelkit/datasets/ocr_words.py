"""Taskar's OCR handwritten words (Kassel's data) from a local ``ocr_letters.npz`` file.

The benchmark of Taskar, Guestrin & Koller (2003), "Max-margin Markov networks": 6,877
handwritten words (52,152 letters), each letter a 16 x 8 binary image (128 pixels), labels
``0..25`` for ``a..z``, words split into 10 folds. The usual protocol trains on one fold
(fold 1: 704 words, 5,375 letters) and tests on the other nine. The file is not shipped
with kernelkit; it holds the arrays ``X`` (uint8, (52152, 128)), ``y`` (0..25),
``lengths`` (letters per word, in order) and ``folds`` (fold of each word).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["load_ocr_words"]


def load_ocr_words(path, train_folds=(1,), dtype=np.float32):
    """Words of the OCR data split by folds: ``(X_train, Y_train, X_test, Y_test)``.

    Parameters
    ----------
    path : str or Path
        The ``ocr_letters.npz`` file.
    train_folds : sequence of int, default=(1,)
        Folds (0..9) of the training words; the other folds are the test words.
    dtype : numpy dtype, default=np.float32
        Dtype of the pixel arrays (the pixels are 0/1, exact in float32).

    Returns
    -------
    X_train, Y_train, X_test, Y_test : lists
        One ``(T, 128)`` array of pixels and one ``(T,)`` int64 array of labels per word.

    Examples
    --------
    >>> from pathlib import Path
    >>> from kernelkit.datasets.ocr_words import load_ocr_words
    >>> path = Path("../shared/data/ocr_letters.npz")
    >>> if path.exists():  # the file is not part of kernelkit
    ...     Xw, Yw, Xt, Yt = load_ocr_words(path)
    ...     assert (len(Xw), sum(len(y) for y in Yw)) == (704, 5375)
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no OCR data at {path}; pass the path of ocr_letters.npz.")
    with np.load(path) as d:
        X, y, lengths, folds = d["X"], d["y"], d["lengths"], d["folds"]
    bad = set(np.atleast_1d(train_folds).tolist()) - set(np.unique(folds).tolist())
    if bad:
        raise ValueError(f"train_folds {sorted(bad)} are not folds of the data "
                         f"{np.unique(folds).tolist()}.")
    cuts = np.cumsum(lengths)[:-1]
    Xs = np.split(X.astype(dtype), cuts)
    Ys = np.split(y.astype(np.int64), cuts)
    train = np.isin(folds, train_folds)
    return ([x for x, t in zip(Xs, train) if t], [v for v, t in zip(Ys, train) if t],
            [x for x, t in zip(Xs, train) if not t], [v for v, t in zip(Ys, train) if not t])

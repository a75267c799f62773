"""make_letter_words: real words spelled with real letter images from the right split."""

import numpy as np
import pytest

from kernelkit.datasets import load_letters, make_letter_words
from kernelkit.datasets.letter_words import _words


def test_words_are_spelled_with_rows_of_the_right_split():
    d = make_letter_words(30, 10, min_len=4, max_len=6, standardize=False, random_state=0)
    Xtr, ytr, Xte, yte = load_letters(return_X_y=True)
    vocab = set(_words())
    for X, Y, words, Xs, ys in [(d.X_train, d.Y_train, d.words_train, Xtr, ytr),
                                (d.X_test, d.Y_test, d.words_test, Xte, yte)]:
        assert len(X) == len(Y) == len(words)
        rows = {tuple(r): c for r, c in zip(Xs, ys)}
        for x, y, w in zip(X, Y, words):
            assert w in vocab and 4 <= len(w) <= 6 and x.shape == (len(w), 16)
            assert "".join(d.target_names[y]) == w
            for row, letter in zip(x, w):  # each position is an image of its letter
                assert rows[tuple(row)].lower() == letter


def test_reproducible_and_bad_input():
    a = make_letter_words(5, 2, return_X_y=True, random_state=1)
    b = make_letter_words(5, 2, return_X_y=True, random_state=1)
    for u, v in zip(a[0] + a[1], b[0] + b[1]):
        np.testing.assert_array_equal(u, v)
    assert make_letter_words(3, 0, random_state=0).X_test == []
    with pytest.raises(ValueError, match="min_len"):
        make_letter_words(5, 2, min_len=5, max_len=4)
    with pytest.raises(ValueError, match="no bundled word"):
        make_letter_words(5, 2, min_len=40, max_len=50)
    with pytest.raises(ValueError, match="n_train_words"):
        make_letter_words(-1, 2)
    assert all(w.isalpha() and w.islower() for w in _words())

"""Letter-word sequences: real English words spelled with real letter images.

Each word of the bundled list (``data/words.txt``) becomes a sequence whose t-th position
is a row of the UCI letter-recognition data showing the word's t-th letter. Training words
take their rows from the 16,000 training rows, test words from the 4,000 test rows, so no
letter image is shared between the splits; the words themselves are drawn independently
for the two splits (as in the OCR words data, a word may occur in both). Because the
letters follow English spelling, letter-to-letter transitions carry information that a
per-letter classifier cannot use.
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np
from sklearn.utils import Bunch, check_random_state

from .loaders import load_letters

__all__ = ["make_letter_words"]

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


@functools.lru_cache(maxsize=1)
def _words() -> tuple[str, ...]:
    text = resources.files("kernelkit.datasets").joinpath("data", "words.txt").read_text()
    return tuple(w for w in (line.strip() for line in text.splitlines())
                 if w and not w.startswith("#"))


def _spell(words, X, y_idx, rng):
    """One (len(word), d) array per word: a random image row of each of its letters."""
    if not words:
        return [], []
    order = np.argsort(y_idx, kind="stable")  # rows grouped by letter
    count = np.bincount(y_idx, minlength=26)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    states = np.array([ALPHABET.index(ch) for w in words for ch in w], dtype=np.int64)
    if np.any(count[states] == 0):
        raise ValueError("the letters data lacks images of some letters.")
    pick = (rng.random_sample(len(states)) * count[states]).astype(np.int64)
    rows = order[start[states] + pick]  # a uniform random image of each letter
    cuts = np.cumsum([len(w) for w in words])[:-1]
    return np.split(X[rows], cuts), np.split(states, cuts)


def make_letter_words(n_train_words: int = 2000, n_test_words: int = 500, *, min_len: int = 3,
                      max_len: int = 8, standardize: bool = True, return_X_y: bool = False,
                      random_state=None):
    """Sequences of letter images that spell real English words (a chain-labeling task).

    Parameters
    ----------
    n_train_words, n_test_words : int
        Numbers of words in the two splits (drawn uniformly, with replacement, from the
        bundled words whose length lies in ``[min_len, max_len]``).
    min_len, max_len : int, default=3, 8
        Word lengths (1 <= min_len <= max_len).
    standardize : bool, default=True
        Standardize the 16 features with the training split's mean and deviation.
    return_X_y : bool, default=False
        Return ``(X_train, Y_train, X_test, Y_test)`` instead of a Bunch.
    random_state : int, RandomState or None

    Returns
    -------
    data : Bunch
        ``X_train`` / ``X_test``: lists of (len, 16) float arrays (one per word);
        ``Y_train`` / ``Y_test``: lists of int arrays of letter indices (0 = 'a' ... 25 = 'z');
        ``words_train`` / ``words_test``: the words; ``target_names``: the 26 letters.
    (X_train, Y_train, X_test, Y_test) : tuple, if ``return_X_y``

    Examples
    --------
    >>> from kernelkit.datasets import make_letter_words
    >>> d = make_letter_words(20, 5, random_state=0)
    >>> len(d.X_train), d.X_train[0].shape[1]
    (20, 16)
    >>> "".join(d.target_names[d.Y_train[0]]) == d.words_train[0]
    True
    """
    for name, v in [("n_train_words", n_train_words), ("n_test_words", n_test_words),
                    ("min_len", min_len), ("max_len", max_len)]:
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer; got {v!r}.")
    if min_len < 1 or max_len < min_len:
        raise ValueError(f"need 1 <= min_len <= max_len; got min_len={min_len}, "
                         f"max_len={max_len}.")
    pool = [w for w in _words() if min_len <= len(w) <= max_len]
    if not pool:
        raise ValueError(f"no bundled word has a length in [{min_len}, {max_len}].")
    rng = check_random_state(random_state)
    Xtr, ytr, Xte, yte = load_letters(return_X_y=True, standardize=standardize)
    to_idx = lambda y: np.array([ALPHABET.index(c.lower()) for c in y], dtype=np.int64)
    w_train = [pool[i] for i in rng.randint(len(pool), size=n_train_words)]
    w_test = [pool[i] for i in rng.randint(len(pool), size=n_test_words)]
    X_train, Y_train = _spell(w_train, Xtr, to_idx(ytr), rng)
    X_test, Y_test = _spell(w_test, Xte, to_idx(yte), rng)
    if return_X_y:
        return X_train, Y_train, X_test, Y_test
    return Bunch(X_train=X_train, Y_train=Y_train, X_test=X_test, Y_test=Y_test,
                 words_train=w_train, words_test=w_test,
                 target_names=np.array(list(ALPHABET)))

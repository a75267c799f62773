"""Files written whole or not at all: :func:`atomic_write` and the files it is writing now.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from kernelkit._core.files import atomic_write
>>> path = Path(tempfile.mkdtemp()) / "out.txt"
>>> _ = atomic_write(path, lambda fh: fh.write("done"), mode="w")
>>> path.read_text(), sorted(p.name for p in path.parent.iterdir())
('done', ['out.txt'])
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["atomic_write", "remove_pending_writes"]


def atomic_write(path: str | os.PathLike, write, *, mode: str = "wb") -> Path:
    """Call ``write(fh)`` on a temporary file beside ``path``, then rename it to ``path``.

    On any error the temporary file is removed and ``path`` is left as it was.
    """
    path = Path(path)
    # the name is chosen before the file exists, so that an interrupt arriving right after
    # its creation (Ctrl-C, SIGTERM) still finds it to remove: with mkstemp the file existed
    # before its name was stored, and a signal in between left it behind
    tmp = str(path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp")
    _PENDING_WRITES.add(tmp)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        _PENDING_WRITES.discard(tmp)
    return path


# temporary files that atomic_write is writing now, in any thread
_PENDING_WRITES: set[str] = set()


def remove_pending_writes() -> list[str]:
    """Remove the temporary files that :func:`atomic_write` calls are writing now (for a
    process about to end by ``os._exit``, which runs no ``except`` clause); returns them."""
    removed = []
    for tmp in list(_PENDING_WRITES):
        try:
            os.unlink(tmp)
            removed.append(tmp)
        except FileNotFoundError:  # not created yet, or already renamed into place
            pass
    return removed

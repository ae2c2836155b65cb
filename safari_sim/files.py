"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write to a temporary file beside ``path``, then rename it into place. The file gets the
    usual permissions (0666 less the umask), not the temporary file's private 0600."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def yaml_fault(error: Exception) -> str:
    """Where a YAML file is wrong, in words: the line a fault is on, not only where the parser
    noticed it (an unclosed ``{`` or ``[`` is noticed on a later line: name the line it opens
    on, which is where the fix goes)."""
    problem = getattr(error, "problem", None) or str(error)
    pm = getattr(error, "problem_mark", None)
    cm = getattr(error, "context_mark", None)
    context = getattr(error, "context", None)
    if pm is None:
        return problem
    if cm is not None and context and cm.line < pm.line:
        return (f"line {cm.line + 1}: {context.removeprefix('while parsing ')} that opens there "
                f"is not closed ({problem}, noticed on line {pm.line + 1})")
    return f"line {pm.line + 1}, column {pm.column + 1}: {problem}"

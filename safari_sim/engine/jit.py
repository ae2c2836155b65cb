"""Keeping numba's on-disk cache honest.

numba keys a cached kernel by the time stamp of the file that defines it, and only that file: a
kernel that inlines helpers from another file (every game inlines ``chance.below`` and
``events.log_event``; Duck Duck Bruce's compiled policies inline its rules) would go on running
the old helpers from the cache after they change. ``refresh_cache(path, deps)`` gives ``path`` a
new time stamp when a file it depends on is newer, so numba compiles it again. Call it when the
module is imported, before its kernels first run.
"""

from __future__ import annotations

import os
from pathlib import Path

ENGINE = Path(__file__).parent
KERNEL_HELPERS = (ENGINE / "chance.py", ENGINE / "events.py", ENGINE / "drama.py")


def refresh_cache(path: str | os.PathLike, deps=KERNEL_HELPERS) -> None:
    path = Path(path)
    try:
        newest = max(Path(d).stat().st_mtime for d in deps)
        if newest > path.stat().st_mtime:
            os.utime(path, (newest, newest))
    except OSError:  # a read-only install: its caches were built from the files as they are
        pass

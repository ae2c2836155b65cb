"""Keeping numba's on-disk cache honest.

numba keys a cached kernel by the contents of the file that defines it (a hash of its source),
and only that file: a kernel that calls or inlines helpers from another file (every game uses
``chance.below`` and ``events.log_event``; the compiled policies use their game's rules;
Savannah's modules each other) would go on running the old helpers from the cache after they
change, and give wrong games without a word. ``refresh_cache(path, deps)`` keeps, beside
``path``'s cached kernels, a stamp of the contents of the files it depends on; when they differ
from the stamp, it deletes ``path``'s cached kernels so numba compiles them again. Call it when
the module is imported, before its kernels first run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ENGINE = Path(__file__).parent
KERNEL_HELPERS = (ENGINE / "chance.py", ENGINE / "events.py", ENGINE / "drama.py")


def _probe() -> None:  # a function for numba's locators, which read a function's line number
    pass


def cache_dir(path: str | os.PathLike) -> Path | None:
    """Where numba keeps the cached kernels of the functions defined in ``path`` (its own
    locators, in its order: ``NUMBA_CACHE_DIR``, the source's ``__pycache__``, a user-wide
    folder), or None where it keeps none."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # 0.68 / older
    for cls in impl._locator_classes:
        try:
            loc = cls.from_function(_probe, str(path))
        except Exception:  # a locator for another kind of source (IPython, a zip)
            continue
        if loc is not None:
            return Path(loc.get_cache_path())
    return None


def deps_stamp(deps) -> str:
    h = hashlib.sha256()
    for d in deps:
        h.update(Path(d).name.encode() + b"\0" + Path(d).read_bytes() + b"\0")
    return h.hexdigest()


def refresh_cache(path: str | os.PathLike, deps=KERNEL_HELPERS) -> bool:
    """Delete ``path``'s cached kernels when the files in ``deps`` are not those they were
    compiled against; returns whether it deleted any."""
    path = Path(path)
    try:
        folder = cache_dir(path)
        if folder is None:
            return False
        stamp = deps_stamp(deps)
        mark = folder / f"{path.stem}.deps"
        if mark.exists() and mark.read_text() == stamp:
            return False
        stale = [f for pattern in (f"{path.stem}.*.nbi", f"{path.stem}.*.nbc")
                 for f in folder.glob(pattern)]
        for f in stale:
            f.unlink(missing_ok=True)
        tmp = mark.with_name(f"{mark.name}.{os.getpid()}.tmp")
        tmp.write_text(stamp)
        os.replace(tmp, mark)
        return bool(stale)
    except OSError:  # a read-only install: its caches were built from the files as they are
        return False

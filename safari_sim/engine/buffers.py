"""Large state arrays that a process allocates once and reuses from batch to batch.

A game whose state is large (Savannah's grid and candidate lists: about 73 kB a game, 300 MB a
batch of 4,096) pays for fresh memory at every batch: numpy asks for huge pages for arrays of
4 MB and more, and the system's first touch of them can stall for compaction (0.6 s of system
time for a batch on the project's machine, against 0.7 s of play; some batches later again),
and in the steady state the pages are faulted in and zeroed again at every batch. Here such an
array is taken from a pool when no one holds it any more (its only reference is the pool's) and
filled again; a new one is mapped with ordinary pages, which cost only the first touch.

``zeros`` and ``full`` behave as numpy's: a new, writable array filled with the value. An array
still referenced anywhere (a state kept by a caller, a view of it) is never handed out again.
"""

from __future__ import annotations

import mmap
import sys
import threading

import numpy as np

MIN_BYTES = 1 << 20          # smaller arrays: numpy's own allocation is as fast
MAX_POOLED = 2 << 30         # bytes the pool keeps in all; beyond, arrays are not pooled
_PER_SHAPE = 3               # arrays kept of one shape and type (a state, the one before, spare)

_pool: dict[tuple, list[np.ndarray]] = {}
_scratch: dict[tuple, list[np.ndarray]] = {}   # ``scratch``'s: not zeroed on reuse
_lock = threading.Lock()


def _mapped(shape: tuple, dtype: np.dtype) -> np.ndarray:
    n = int(np.prod(shape)) * dtype.itemsize
    m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        m.madvise(mmap.MADV_NOHUGEPAGE)
    # the array's base is the map itself, so every view of it holds the array (its refcount)
    return np.ndarray(shape, dtype, buffer=m)  # zero pages until written


def _pooled_bytes() -> int:
    return sum(a.nbytes for pool in (_pool, _scratch) for lst in pool.values() for a in lst)


def _make_room(n: int) -> bool:
    """Drop free pooled arrays until ``n`` more bytes fit under MAX_POOLED; whether they do."""
    for lst in _pool.values():
        i = 0
        while _pooled_bytes() + n > MAX_POOLED and i < len(lst):
            if sys.getrefcount(lst[i]) == 2:
                del lst[i]
            else:
                i += 1
    return _pooled_bytes() + n <= MAX_POOLED


def full(shape, fill_value, dtype) -> np.ndarray:
    """``np.full(shape, fill_value, dtype)``, reusing a pooled array of that shape when free."""
    shape = tuple(int(s) for s in (shape if isinstance(shape, tuple) else (shape,)))
    dtype = np.dtype(dtype)
    if int(np.prod(shape)) * dtype.itemsize < MIN_BYTES:
        return np.full(shape, fill_value, dtype)
    key = (shape, dtype.str)
    with _lock:
        lst = _pool.setdefault(key, [])
        for i in range(len(lst)):
            if sys.getrefcount(lst[i]) == 2:   # the list and this call's argument: free
                a = lst[i]
                a.fill(fill_value)
                return a
        a = _mapped(shape, dtype)
        if len(lst) < _PER_SHAPE and _make_room(a.nbytes):
            lst.append(a)
    if fill_value != 0:
        a.fill(fill_value)
    return a


def zeros(shape, dtype) -> np.ndarray:
    """``np.zeros(shape, dtype)``, reusing a pooled array of that shape when free."""
    return full(shape, 0, dtype)


def scratch(shape, dtype) -> np.ndarray:
    """A writable array of ``shape`` whose contents are left over from its last use (not
    zeroed: the caller writes every entry it will read), the first ``shape[0]`` rows of a pooled
    one with at least that many rows that no one holds any more (a search's worlds, thousands a
    decision: their pages are faulted in once, not at every decision)."""
    shape = tuple(int(s) for s in (shape if isinstance(shape, tuple) else (shape,)))
    dtype = np.dtype(dtype)
    n = shape[0]
    if int(np.prod(shape)) * dtype.itemsize < MIN_BYTES:
        return np.empty(shape, dtype)
    key = (shape[1:], dtype.str)
    with _lock:
        lst = _scratch.setdefault(key, [])
        for a in lst:
            if a.shape[0] >= n and sys.getrefcount(a) == 3:  # the list, a, the call: free
                return a[:n]
        rows = 1 << max(n - 1, 1).bit_length()   # a power of two: fewer sizes come and go
        a = _mapped((rows,) + shape[1:], dtype)
        free = [i for i in range(len(lst)) if sys.getrefcount(lst[i]) == 2]
        if len(lst) >= _PER_SHAPE and free:          # the smallest free one makes room
            del lst[min(free, key=lambda i: lst[i].shape[0])]
        if len(lst) < _PER_SHAPE and _make_room(a.nbytes):
            lst.append(a)
    return a[:n]


def clear() -> None:
    """Forget every pooled array (the ones still in use stay valid)."""
    with _lock:
        _pool.clear()
        _scratch.clear()

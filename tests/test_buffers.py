"""The pool of large state arrays (engine/buffers.py): numpy's zeros and full, never an array
someone still holds."""

import numpy as np

from safari_sim.engine import buffers

SHAPE = (64, 1 << 15)        # 2 MB of int8: pooled


def test_a_freed_array_comes_back_filled_again():
    a = buffers.zeros(SHAPE, np.int8)
    a[:] = 7
    addr = a.ctypes.data
    del a
    b = buffers.zeros(SHAPE, np.int8)
    assert b.ctypes.data == addr             # reused, not mapped again
    assert not b.any()
    del b
    c = buffers.full(SHAPE, -1, np.int8)
    assert (c == -1).all() and c.ctypes.data == addr


def test_an_array_still_held_or_viewed_is_never_handed_out():
    a = buffers.zeros(SHAPE, np.int8)
    view = a[3:5][1:].reshape(-1)            # a view of a view
    a_addr = a.ctypes.data
    del a                                    # the view keeps it alive
    b = buffers.zeros(SHAPE, np.int8)
    assert b.ctypes.data != a_addr
    b[:] = 1
    view[:] = 2
    assert (b == 1).all() and (view == 2).all()
    held = [buffers.zeros(SHAPE, np.int8) for _ in range(5)]   # more than the pool keeps
    assert len({h.ctypes.data for h in held} | {b.ctypes.data, a_addr}) == 7
    for h in held:
        assert not h.any()


def test_small_arrays_and_other_shapes_are_plain_numpy():
    s = buffers.full((3, 4), 5, np.int16)
    assert s.dtype == np.int16 and (s == 5).all() and s.flags.owndata
    a = buffers.zeros(SHAPE, np.int32)
    assert a.dtype == np.int32 and a.shape == SHAPE and a.flags.writeable and a.flags.c_contiguous


def test_scratch_reuses_a_free_buffer_and_never_one_in_use():
    """``scratch``: the first rows of a pooled buffer with enough rows, its old contents left;
    a buffer still held (through any view) is never handed out again."""
    buffers.clear()
    row = (1 << 16,)                               # 64 kB a row: pooled from 16 rows on
    a = buffers.scratch((20,) + row, np.int8)
    a[:] = 5
    addr = a.ctypes.data
    b = buffers.scratch((20,) + row, np.int8)      # a is held: another buffer
    assert not np.shares_memory(a, b)
    del a, b
    c = buffers.scratch((17,) + row, np.int8)      # fewer rows: the first free buffer's
    assert c.ctypes.data == addr and c.shape == (17,) + row and (c == 5).all()
    d = buffers.scratch((40,) + row, np.int8)      # more rows than any: a new one
    assert not np.shares_memory(c, d) and d.shape[0] == 40
    assert buffers.scratch((2, 8), np.int8).shape == (2, 8)   # small: numpy's own
    buffers.clear()

"""The first run says what it is doing: a kernel numba compiles is counted and said, with the
time so far; a kernel already compiled (or loaded from the cache) says nothing."""

from __future__ import annotations

from numba import njit
from rich.console import Console

from safari_sim.compiling import first_notice, watch


def test_compiling_is_said_with_the_kernels_and_time_and_a_compiled_kernel_is_not():
    @njit
    def inner(x):
        return x + 1

    @njit
    def outer(x):
        return inner(x) * 2

    said = []
    with watch(said.append, "duck_duck_bruce", "Duck Duck Bruce") as c:
        assert outer(3) == 8
    assert c.kernels == 2 and said and said[0] is c
    console = Console(width=300, record=True)
    console.print(c)
    line = console.export_text()
    assert "compiling Duck Duck Bruce for this machine" in line and "about 29 s of CPU" in line
    assert "2 kernels" in line and "now" in line
    again = []
    with watch(again.append, "duck_duck_bruce", "Duck Duck Bruce") as c2:
        assert outer(4) == 10
    assert c2.kernels == 0 and not again


def test_commands_with_their_own_progress_get_one_line():
    @njit
    def f(x):
        return x - 1

    @njit
    def g(x):
        return f(x) + f(x)

    lines = []
    with first_notice(lines.append, "savannah", "Savannah"):
        g(2)
    assert len(lines) == 1 and lines[0].startswith("compiling Savannah for this machine")

"""Saying what a first run is doing: numba compiles a game's kernels the first time they run on a
machine (then loads them from its cache), which takes seconds to a minute of CPU in silence.

``watch`` listens to numba's compile events (a kernel loaded from the cache fires none): on the
first one it says what is happening and roughly how long it takes, then counts the kernels as
they compile, with the time so far.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

from numba.core import event

# CPU seconds of a one-chunk run on an empty cache (`safari-sim bench --cold`, the project's
# 2-core machine): what "roughly how long" says. A game not listed says nothing of the time.
FIRST_RUN_SECONDS = {
    "animal_hunt": 16, "bluff_in_zoo": 33, "deducktion": 33, "duck_duck_bruce": 18,
    "herds": 48, "hi_lo_hijinks": 21, "jungle_thrills": 39, "paper_safari": 29,
    "safari_sprint": 28, "savannah": 50,
}


def about(game_id: str) -> str:
    s = FIRST_RUN_SECONDS.get(game_id)
    return f"about {s} s of CPU, " if s else ""


class _Counter(event.Listener):
    def __init__(self, say: Callable[[str], None], game_id: str, game_name: str):
        self.say, self.game_id, self.game_name = say, game_id, game_name
        self.kernels, self.depth, self.t0, self.now = 0, 0, None, ""

    def on_start(self, ev) -> None:
        if self.t0 is None:
            self.t0 = time.perf_counter()
        self.depth += 1
        self.kernels += 1
        fn = getattr(ev.data.get("dispatcher"), "py_func", None)
        self.now = f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}" if fn else "a kernel"
        self.say(self)

    def __rich__(self) -> str:
        """The status line, read each time the display refreshes: the seconds keep counting
        while one big kernel compiles."""
        return (f"compiling {self.game_name} for this machine, its first run here "
                f"({about(self.game_id)}once): {self.kernels} kernels, {self.seconds:.0f} s, "
                f"now {self.now}")

    def on_end(self, ev) -> None:
        self.depth -= 1

    @property
    def seconds(self) -> float:
        return 0.0 if self.t0 is None else time.perf_counter() - self.t0


@contextmanager
def watch(say: Callable[[str], None], game_id: str, game_name: str) -> Iterator[_Counter]:
    """Within the block, ``say(counter)`` is called at each kernel numba compiles (none when
    every kernel comes from the cache): the counter is a rich renderable whose line counts the
    kernels and the seconds so far; it also tells how many and how long once the block ends."""
    counter = _Counter(say, game_id, game_name)
    with event.install_listener("numba:compile", counter):
        yield counter


@contextmanager
def first_notice(say: Callable[[str], None], game_id: str, game_name: str) -> Iterator[_Counter]:
    """For commands with progress displays of their own (tune, sensitivity, skill), and for a run
    whose output is a log rather than a terminal (no live status line there): one line, said at
    the first kernel compiled; the counter as ``watch`` gives it."""
    said = []

    def once(_counter) -> None:
        if not said:
            said.append(True)
            say(f"compiling {game_name} for this machine, its first run here "
                f"({about(game_id)}once: later runs load it at once)")

    with watch(once, game_id, game_name) as counter:
        yield counter

"""The engine: the batched game protocol, chance, events, and the play loops.

numba's inliner is patched here, before any kernel compiles (every game imports the engine), so
that a first run does not spend most of its time copying IR (engine/inlining.py)."""

from . import inlining as _inlining

_inlining.install()

"""What a strategy is: an object built from validated parameters with one method, ``act``.

A strategy knows nothing of the runner. It receives the observations of the games where its seat
is to move (numpy arrays, first axis = those games), the legal mask for them, and a numpy
Generator, and returns one action per game.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Strategy:
    """Base class. Subclasses set ``name``, ``game`` (None = works for every game), a one-line
    ``summary`` and ``Params`` (a pydantic model whose fields are the knobs)."""

    name: ClassVar[str]
    game: ClassVar[str | None] = None
    summary: ClassVar[str] = ""
    Params: ClassVar[type[BaseModel]] = NoParams

    def __init__(self, **params: Any):
        self.params = self.Params(**params)
        self.label = self.name

    def reset(self, batch: int, n_players: int) -> None:
        """Called before each batch; strategies with memory allocate [batch, n_players] arrays here."""

    def act(self, obs: Any, legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per observed game."""
        raise TypeError(f"strategy {type(self).__name__} does not define act()")

    # The compiled fast path (docs/architecture.md, "Compiled strategies"): a game's shipped
    # strategies may define ``policy()`` (what their compiled twin needs: a kind and knobs) and a
    # ``play_compiled(state, seating, policies, seat_rs)`` that plays whole games with the twins.
    # ``twin_methods`` are the numpy methods a twin was written from, besides ``act``.
    twin_methods: ClassVar[tuple[str, ...]] = ()

    def policy(self) -> Any:
        return None

    def compiled_policy(self) -> Any:
        """``policy()``, or None where a subclass changed a numpy method the twin was written
        from (``act`` or one of ``twin_methods``) without a ``policy`` of its own: such a
        strategy is played through ``act``."""
        mro = type(self).__mro__

        def owner(name):
            return next(c for c in mro if name in c.__dict__)

        twin = owner("policy")
        if not all(issubclass(twin, owner(m)) for m in ("act",) + self.twin_methods):
            return None
        return self.policy()


def random_legal(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``legal``."""
    # the pick-th True in each row; a narrow cumulative count keeps wide masks cheap
    csum = np.cumsum(legal, axis=1, dtype=np.int16 if legal.shape[1] < 2**15 else np.int32)
    pick = (rng.random(legal.shape[0]) * csum[:, -1]).astype(csum.dtype)
    return (csum <= pick[:, None]).sum(axis=1)


def first_legal(legal: np.ndarray) -> np.ndarray:
    return np.argmax(legal, axis=1)

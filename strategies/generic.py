"""Strategies that play every game."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .base import Strategy, first_legal, random_legal


class Random(Strategy):
    name = "random"
    summary = "uniform over the legal actions"

    def act(self, obs, legal, rng):
        return random_legal(legal, rng)


class FirstLegal(Strategy):
    name = "first_legal"
    summary = "always the lowest-numbered legal action (a fixed, predictable baseline)"

    def act(self, obs, legal, rng):
        return first_legal(legal)


STRATEGIES = [Random, FirstLegal]


class Blunder(Strategy):
    """A weakened copy of another strategy (the skill measure's restricted player): at each
    decision, with probability ``epsilon``, a uniformly random legal move instead of the base
    strategy's. The base strategy is asked at every decision (so one with memory sees every
    observation) and its answer is replaced where the coin says so."""

    name = "blunder"
    summary = "another strategy that plays a random legal move with probability epsilon"

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        base: str = Field("random", description="the strategy weakened: a generic one (random), "
                          "GAME.NAME for a game's own (duck_duck_bruce.stop_at), or path.py:Class")
        base_params: dict[str, Any] = Field(default_factory=dict, description="the base's knobs")
        epsilon: float = Field(0.25, ge=0.0, le=1.0,
                               description="chance of a random legal move at each decision")

    def __init__(self, **params: Any):
        super().__init__(**params)
        self.base = _resolve_base(self.params.base)(**self.params.base_params)
        self.wants_worlds = bool(getattr(self.base, "wants_worlds", False))
        # a compiled heuristic's blunders: it decides from the state, as it would alone
        self.reads_state = bool(getattr(self.base, "reads_state", False))

    def reset(self, batch: int, n_players: int) -> None:
        self.base.reset(batch, n_players)

    def act(self, obs, legal, rng, *worlds):
        return self._slip(np.asarray(self.base.act(obs, legal, rng, *worlds)), legal, rng)

    def decide(self, state, games, rng, legal):
        return self._slip(np.asarray(self.base.decide(state, games, rng, legal)), legal, rng)

    def _slip(self, planned, legal, rng):
        slip = rng.random(len(planned)) < self.params.epsilon
        return np.where(slip, random_legal(legal, rng), planned)


def _resolve_base(spec: str) -> type[Strategy]:
    from . import StrategyNotFound, get_strategy

    if ":" in spec or spec.endswith(".py"):
        return get_strategy("", spec)
    game, _, name = spec.rpartition(".")
    if spec == "blunder":
        raise StrategyNotFound("blunder: base cannot be blunder itself")
    if not game:
        generic = {s.name: s for s in STRATEGIES}
        if name not in generic:
            raise StrategyNotFound(f"blunder: base '{spec}' is not a generic strategy; write a "
                                   f"game's own as GAME.NAME (e.g. duck_duck_bruce.stop_at)")
        return generic[name]
    return get_strategy(game, name)


STRATEGIES.append(Blunder)

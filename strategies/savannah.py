"""Savannah strategies: how people play the grid game.

Every decision is a choice in the observation's candidate list (each legal placement with the
points it scores now; in a claim, which drawn card to keep, with the most that card could score
now), so a strategy scores the candidates and takes the best one.
"""

from __future__ import annotations

import functools

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.savannah import lookahead
from safari_sim.games.savannah.game import Obs

from .base import Strategy, random_legal


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def best_of(value: np.ndarray, obs: Obs) -> np.ndarray:
    """Index of the best-valued candidate (the first on ties); padding never wins."""
    return np.argmax(np.where(obs.valid, value, -np.inf), axis=1)


def with_noise(choice: np.ndarray, noise: float, legal: np.ndarray, rng) -> np.ndarray:
    if noise <= 0:
        return choice
    # every draw is one row per observed game, and every game draws both numbers whether or not
    # it goes wild: how many numbers a game's seat stream gives never depends on its batch
    wild = rng.random(len(choice)) < noise
    return np.where(wild, random_legal(legal, rng), choice)


class SavannahStrategy(Strategy):
    """The shipped strategies also have compiled twins (``policy``: a kind and knobs for
    ``_savannah_compiled.policy``), so a table of them plays whole games in one kernel; a
    subclass that overrides ``act`` is played through ``act`` unless it also overrides
    ``policy``. The knobs are (the strategy's own knob, ``noise``): the twin makes
    ``with_noise``'s two draws from the mover's seat stream."""

    game = "savannah"

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def _twin(self, kind: int, knob: float):
        return (kind, (float(knob), float(self.params.noise)))


class Greedy(SavannahStrategy):
    name = "greedy"
    summary = "the placement that scores most now; in a claim, keeps the card worth most now"

    class Params(_Params):
        noise: float = Field(0.0, ge=0, le=1,
                             description="chance of a random legal move instead (a distracted "
                                         "player)")

    def act(self, obs: Obs, legal, rng):
        pts = obs.points
        # padding entries may hold stale numbers: the legal mask rules them out
        choice = np.argmax(np.where(legal[:, :obs.width], pts, -1), axis=1)
        return with_noise(choice, self.params.noise, legal, rng)

    def policy(self):
        return self._twin(K_GREEDY, 0.0)


class Cautious(SavannahStrategy):
    name = "cautious"
    summary = ("points now minus `caution` times the most the next player could score, with a "
               "card this player has not seen, at the spaces this play changes (phase two: on "
               "the board after this play's removals); a claim keeps the card worth most now")

    class Params(_Params):
        caution: float = Field(0.6, ge=0,
                               description="weight of the next player's best reply at the "
                                           "spaces the play changes, after its removals "
                                           "(0 = greedy)")
        noise: float = Field(0.0, ge=0, le=1, description="chance of a random legal move")

    def act(self, obs: Obs, legal, rng):
        value = obs.points.astype(np.float64)
        place = obs.kind == 0
        if place.any() and self.params.caution > 0:
            value = value - self.params.caution * lookahead.threat(obs) * place[:, None]
        return with_noise(best_of(value, obs), self.params.noise, legal, rng)

    def policy(self):
        return self._twin(K_CAUTIOUS, self.params.caution)


class SpaceMaker(SavannahStrategy):
    name = "space_maker"
    summary = ("phase one: points now plus `space_value` for each space anywhere on the table "
               "the play makes unplayable (at its line ends, or wherever its card was the last "
               "copy a space could take; each is a point and a choice of cards); phase two and "
               "claims: greedy")

    class Params(_Params):
        space_value: float = Field(1.5, ge=0,
                                   description="value of each space a placement makes "
                                               "unplayable, anywhere on the table (worth a point "
                                               "and a card choice)")
        noise: float = Field(0.0, ge=0, le=1, description="chance of a random legal move")

    def act(self, obs: Obs, legal, rng):
        value = obs.points.astype(np.float64)
        hunt = (obs.kind == 0) & (obs.phase == 1)
        if hunt.any() and self.params.space_value > 0:
            value = value + self.params.space_value * lookahead.new_unplayable(obs) * hunt[:, None]
        return with_noise(best_of(value, obs), self.params.noise, legal, rng)

    def policy(self):
        return self._twin(K_SPACE_MAKER, self.params.space_value)


K_GREEDY, K_CAUTIOUS, K_SPACE_MAKER = range(3)


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _savannah_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Greedy, Cautious, SpaceMaker]
BENCHMARK = {"strategy": "greedy", "params": {}}

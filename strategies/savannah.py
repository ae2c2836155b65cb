"""Savannah strategies: how people play the grid game.

Every decision is a choice in the mover's candidate list (each legal placement with the points
it scores now; in a claim, which drawn card to keep, with the most that card could score now),
so a strategy scores the candidates and takes the best one. Each is a compiled policy, written
once in ``_savannah_compiled.py`` (``KINDS``); this module names them, with their knobs.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SavannahStrategy(Heuristic):
    """The knobs a policy reads are (the strategy's own knob, ``noise``): with noise the policy
    makes two draws from the mover's seat stream at every decision."""

    game = "savannah"
    kernels = "strategies._savannah_compiled"

    def knobs(self) -> tuple[float, float]:
        return (0.0, float(self.params.noise))


class Greedy(SavannahStrategy):
    name = "greedy"
    summary = "the placement that scores most now; in a claim, keeps the card worth most now"

    class Params(_Params):
        noise: float = Field(0.0, ge=0, le=1,
                             description="chance of a random legal move instead (a distracted "
                                         "player)")


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

    def knobs(self):
        return (float(self.params.caution), float(self.params.noise))


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

    def knobs(self):
        return (float(self.params.space_value), float(self.params.noise))


def phase_one(obs):
    """bool[n]: the decisions of the first phase (a search's ``searched``: the opening's
    placements and the second phase's removals are left to its ``elsewhere``)."""
    return np.asarray(obs.phase) == 1


def after_opening(obs):
    """bool[n]: the decisions of the first and second phases (the opening's placements left to
    a search's ``elsewhere``)."""
    return np.asarray(obs.phase) >= 1


def outside_phase_one(obs):
    """bool[n]: the opening's placements and the second phase's removals (the first phase's
    placements left to a search's ``elsewhere``)."""
    return np.asarray(obs.phase) != 1


STRATEGIES = [Greedy, Cautious, SpaceMaker]
BENCHMARK = {"strategy": "greedy", "params": {}}
# The search's defaults (docs/search.md, "Savannah", issue 32): only the placements searched
# (a claim's kept card is space_maker's, that is greedy's, choice), space_maker's top 3, 16
# worlds each played 3 more placements (every seat's; the claims of a turn played with it,
# uncounted) by greedy and valued by the running-score margin: the strongest screened (8 and 12
# worlds, 2 or 4 candidates, the win objective, other depths, a cut by every decision and
# searched claims were level or behind it), about 700 decisions a second at 3 players (880 at 2;
# 400 to 470 before the world copy by slices, "Savannah: speed, second session"), 3.1 ms a
# decision one game at a time: a third of the 2,000. Fewer worlds, top 2, racing and
# searching only some phases (``searched``: phase_one, after_opening, outside_phase_one) were
# faster and weaker.
SEARCH = {"kinds": [0], "elsewhere": "space_maker", "top_k": 3, "prior": "space_maker",
          "rollouts": 16, "rollout": "benchmark", "depth": 3, "depth_kinds": [0],
          "objective": "margin"}
# Where the search is the stronger player (skill's best player, the tuner's best response): at 3
# and 2 players, ahead of space_maker (the best heuristic in the seat: 0.34 and 0.49) and of every
# other heuristic (docs/search.md, "Savannah"). Slower than the speed: docs/sensitivity.md says
# what a skill run costs with it.
SEARCH_AHEAD = {"players": [3, 2], "closest": "space_maker", "win": 0.42, "half": 0.04, "games": 600,
                "at": {2: {"win": 0.62, "half": 0.04, "games": 600}}}

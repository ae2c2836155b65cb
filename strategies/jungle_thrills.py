"""Jungle Thrills strategies: players who remember, forget and guess.

The observation carries everything a perfect memory could hold. Each strategy keeps its own
memory of it (per game and seat, cleared in ``reset``): a fact it has remembered is forgotten
with probability 1 - ``recall`` after each turn (the game's clock counts cards turned up and
demands made), so a fact that happened d turns ago is still known with probability recall**d.
Forgetting draws from the strategy's own stream. Three kinds of fact are remembered:

- who holds each set (first version): a set's slot, animal and holder;
- who refused which animal (first version): "P2 has no lions";
- the animal of each pair in the centre (second version, where pairs lie face down).

Decisions: which animal to name and whom to ask (first version), whether and which pair to hunt
(second). Each is a compiled policy, written once in ``_jungle_thrills_compiled.py`` (``KINDS``,
``policy``, ``Memory``); this module names them, with their knobs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def recall_knob(default: float, what: str = "remembered fact"):
    return Field(default, ge=0, le=1, description=(
        f"chance of keeping each {what} through a turn (1 = perfect memory)"))


def decline_knob(default: float):
    return Field(default, ge=0, le=1, description=(
        "with rules.may_decline: chance of not using a Hunter's (or a refusal's) right to demand "
        "when it remembers no set held by another player and holds a set itself"))


def bold_knob(default: float, when: str = "when none is known"):
    return Field(default, ge=0, le=1, description=(
        f"second version: chance of hunting a pair it cannot remember {when}"))


class JungleStrategy(Heuristic):
    """Remembers what its seat sees (its ``mem``, the compiled module's ``Memory``, with its
    ``recall``), then demands (first version) or hunts (second); the knobs its policy reads are
    (recall, bold, decline, chase)."""

    game = "jungle_thrills"
    kernels = "strategies._jungle_thrills_compiled"

    def __init__(self, **params):
        super().__init__(**params)
        self.mem = self.compiled().Memory(self.params.recall)

    def reset(self, batch, n_players):
        self.mem.reset()   # sized at the first decision, from the state

    def knobs(self):
        p = self.params
        return (p.recall, p.bold, p.decline, getattr(p, "chase", 0.0))

    def policy(self):
        return (*super().policy(), self.mem)


class Rememberer(JungleStrategy):
    name = "rememberer"
    summary = ("tries to remember everything (`recall`): demands the most valuable set it "
               "remembers, else guesses at the biggest holder; hunts a remembered pair, or an "
               "unknown one with probability `bold`")

    class Params(_Params):
        recall: float = recall_knob(0.95)
        bold: float = bold_knob(0.3)
        decline: float = decline_knob(0.0)


class Leader(JungleStrategy):
    name = "leader_hunter"
    summary = ("goes after the leader: demands a remembered set from the opponent with most "
               "points (won plus remembered held), else guesses at the leader; hunting grows "
               "bolder the further behind it is")

    class Params(_Params):
        recall: float = recall_knob(0.8)
        bold: float = bold_knob(0.3, "when level on points")
        decline: float = decline_knob(0.5)
        chase: float = Field(0.02, ge=0, description=(
            "extra boldness per point behind the best opponent (less when ahead)"))


class Guesser(JungleStrategy):
    name = "guesser"
    summary = ("does not track who holds what: asks whoever holds most sets for an animal it "
               "does not remember him refusing; in the second version knows only pairs it saw "
               "turned up in a wrong hunt, else hunts any pair with probability `bold`")

    class Params(_Params):
        recall: float = recall_knob(0.8, "remembered refusal or revealed pair")
        bold: float = bold_knob(0.5)
        decline: float = decline_knob(0.0)


STRATEGIES = [Rememberer, Leader, Guesser]
# the 3-player baseline's table (experiments/jungle_thrills-3p.yaml), first version
BENCHMARK = {"strategy": "rememberer", "params": {"recall": 0.9}, "players": 3,
             "mix": [("rememberer", {"recall": 0.95}), ("leader_hunter", {"recall": 0.8}),
                     ("guesser", {"recall": 0.8})]}
# The search player's knobs in this game (strategies/search.py reads them where a player leaves
# a knob unset), chosen by the measured table in docs/search.md ("Per-game defaults"): every
# legal action, 3 whole play-outs each by the BENCHMARK rememberer, the win share: ahead of
# rememberer (4 or 8 play-outs win no more, fewer decisions a second; fewer candidates lose).
SEARCH = {"rollouts": 3, "rollout": "benchmark"}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md measures it ahead of every shipped heuristic at these
# player counts, 600 games against two copies of each; the closest of them and its row.
SEARCH_AHEAD = {"players": [3], "closest": "rememberer", "win": 0.50, "half": 0.04, "games": 600}

"""Herds strategies: how people play it.

Every decision of a turn is one small step (see safari_sim/games/herds.py): step two (draw a
grassland card, the deck's top, or trade), the trade's give and take, step three (new herds,
growths, swaps, done) and step four (the card to pass and its receiver). Each strategy values
the cards for its own hand and picks among the legal actions. Each is a compiled policy,
written once in ``_herds_compiled.py`` (``KINDS``); this module names them, with their knobs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HerdsStrategy(Heuristic):
    """The shipped heuristics' base. ``knobs()``: take_at, trade_at, lay_deck, lay_min_hand,
    wild_grow and one extra (the blocker's ``block``, the sprinter's ``focus_bonus``), the
    columns the policy reads (``KP_*`` of the compiled module)."""

    game = "herds"
    kernels = "strategies._herds_compiled"

class Collector(HerdsStrategy):
    name = "collector"
    summary = "keeps runs of one animal, takes or trades for the number that extends them, passes what it values least"

    class Params(_Params):
        take_at: float = Field(2.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(3.0, description="least value of a grassland card worth a one-for-one trade of a held card of the same number")
        lay_deck: int = Field(20, description="hold cards: lay new herds only once the deck has at most this many cards...")
        lay_min_hand: int = Field(7, description="...or the hand holds at least this many cards")
        wild_grow: bool = Field(False, description="grow animal herds with explorers as wilds (they add no size)")

    def knobs(self):
        q = self.params
        return q.take_at, q.trade_at, q.lay_deck, q.lay_min_hand, q.wild_grow, 0.0


class Blocker(HerdsStrategy):
    name = "blocker"
    summary = "plays like the collector but passes the leading opponent cards that grow none of the opponents' herds"

    class Params(_Params):
        block: float = Field(5.0, description="weight against passing a card that grows an opponent's herd")
        take_at: float = Field(2.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(3.0, description="least value of a grassland card worth a trade")
        lay_deck: int = Field(20, description="hold cards: lay new herds once the deck has at most this many cards...")
        lay_min_hand: int = Field(7, description="...or the hand holds at least this many cards")

    def knobs(self):
        q = self.params
        return q.take_at, q.trade_at, q.lay_deck, q.lay_min_hand, False, q.block


class Sprinter(HerdsStrategy):
    name = "sprinter"
    summary = "picks the animal it holds the most numbers of and races for its 1-6 herd, laying and growing at once"

    class Params(_Params):
        focus_bonus: float = Field(3.0, description="extra value of a card of the chosen animal")
        take_at: float = Field(3.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(4.0, description="least value of a grassland card worth a trade")
        lay_deck: int = Field(66, description="lay new herds once the deck has at most this many cards (66: at once)")
        wild_grow: bool = Field(True, description="grow with explorers as wilds to reach 1-6 sooner")

    def knobs(self):
        q = self.params
        return q.take_at, q.trade_at, q.lay_deck, 0, q.wild_grow, q.focus_bonus


STRATEGIES = [Collector, Blocker, Sprinter]
BENCHMARK = {"strategy": "collector", "params": {}}
# The search player's knobs in this game (strategies/search.py reads them where a player leaves
# a knob unset), chosen by the measured table in docs/search.md ("Per-game defaults"): the 3
# moves collector likes best, 4 worlds each played 12 steps on by collector (about a round of
# turns) and scored by the running-score margin: stronger than whole play-outs and ten times
# faster (depths 4 and 8 did worse, 16 and 24 no better).
SEARCH = {"rollouts": 4, "rollout": "benchmark", "top_k": 3, "prior": "collector", "depth": 12,
          "objective": "margin"}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md measures it ahead of every shipped heuristic at these
# player counts, 600 games against two copies of each; the closest of them and its row. At 4
# players in teams (docs/search.md, "Other player counts"): the search's team (its partner
# played by blocker, the strongest heuristic team there) against two blocker, fair 1/2.
SEARCH_AHEAD = {"players": [3, 4], "closest": "collector", "win": 0.62, "half": 0.04, "games": 600,
                "at": {4: {"closest": "blocker", "win": 0.72, "half": 0.04, "games": 600,
                           "against": "with a blocker partner against two of it, in teams (fair 0.50)"}}}

"""Duck Duck Bruce strategies: how people actually play it.

Each decides two things: when to stop turning cards and bank the row, and, after a Bruce, whom to
rob and how many cards to declare. Each is a compiled policy, written once in
``_duck_duck_bruce_compiled.py`` (``KINDS``); this module names them, with their knobs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DuckStrategy(Heuristic):
    game = "duck_duck_bruce"
    kernels = "strategies._duck_duck_bruce_compiled"


class StopAt(DuckStrategy):
    name = "stop_at"
    summary = ("bank as soon as the row holds `cards` cards; after a Bruce rob the biggest nest "
               "declaring `declare` (pass when every nest is empty)")

    class Params(_Params):
        cards: int = Field(3, ge=1, description="bank the row once it holds this many cards")
        declare: int = Field(1, ge=1, description="cards to declare after a Bruce")


class CardCounter(DuckStrategy):
    name = "card_counter"
    summary = ("counts the unseen cards: banks when the chance that the next card busts "
               "passes `risk`; declares by the odds of the die")

    class Params(_Params):
        risk: float = Field(0.3, ge=0, le=1,
                            description="bank when the chance of a double duck or Bruce reaches this")


class Scoreboard(DuckStrategy):
    name = "scoreboard"
    summary = ("plays the scoreboard: takes more risk the further behind the leader, "
               "aims Bruce at the leader, declares by the odds")

    class Params(_Params):
        risk: float = Field(0.3, ge=0, le=1, description="bust chance accepted when level")
        chase: float = Field(0.5, ge=0, description=(
            "extra risk accepted per target_score of deficit (and less when ahead)"))


class ValueHunter(DuckStrategy):
    name = "value_hunter"
    summary = "banks once the row would add at least `points` to its nest; robs the biggest nest"

    class Params(_Params):
        points: int = Field(4, ge=1, description="bank when banking would add this many points")
        max_cards: int = Field(6, ge=1, description="bank anyway once the row holds this many cards")


STRATEGIES = [StopAt, CardCounter, Scoreboard, ValueHunter]
# the quickstart's table, one round (the speed issue's reference shape)
BENCHMARK = {"strategy": "stop_at", "params": {"cards": 3}, "players": 3, "rules": {"rounds": 1},
             "mix": [("stop_at", {"cards": 2}), ("stop_at", {"cards": 4}),
                     ("card_counter", {"risk": 0.3})]}
# The search player's knobs in this game (strategies/search.py reads them where a player leaves
# a knob unset), chosen by the measured table in docs/search.md ("Per-game defaults"): 48 worlds
# per action, each played 4 steps on by card_counter (its default risk 0.3) and valued by the
# game's race model of the final win share (DuckDuckBruce.cut_value; objective win): a decision
# moves the final margin by far less than a whole play-out's spread (docs/search.md, "Why it is
# weak in Duck Duck Bruce"), and the running-score margin at the cut ignores the race to 77.
SEARCH = {"rollouts": 48, "rollout": "card_counter", "depth": 4, "objective": "win"}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md ("Duck Duck Bruce") measures it ahead of every shipped
# heuristic at 3 players, 1,200 games against two copies of each (opponents as its search yaml:
# card_counter risk 0.3, stop_at cards 2); the closest, scoreboard, and its row (every shipped
# heuristic in the same seat against two scoreboard wins at most 0.34 ± 0.03).
SEARCH_AHEAD = {"players": [3], "closest": "scoreboard", "win": 0.40, "half": 0.03, "games": 1200}

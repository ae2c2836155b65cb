"""Bluff in Zoo strategies: how people actually play it.

Every turn is a few small decisions: doubt the last claim or go on, which card to place (a hand
card, the draw pile's top card, or none), how many animals to claim, and which animal. The
strategies share one piece of arithmetic, the pile model (``pile_model`` in
``_bluff_in_zoo_compiled.py``): the chance that the discard pile holds at least c animals of a
kind, from the cards the player put there itself plus the cards the others put there (a normal
approximation, mixed over whether the action cards are in force): each of those backs its
player's last claim with chance ``trust``, else is a random card among those whose place the
player does not know; how much of the doubted piles it remembers is ``recall``. Each is a
compiled policy, written once in ``_bluff_in_zoo_compiled.py`` (``KINDS``); this module names
them, with their knobs; each strategy's ``summary`` says what it does.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


# How much of the doubted piles a player remembers by default: see docs/rules/bluff_in_zoo.md
RECALL = 0.5


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _BluffStrategy(Heuristic):
    """Each decision kind (respond, source, count, kind) read from the same pile model; the
    knobs in the policy's order: doubt_at, trust, recall, draw_rate, then the strategy's own."""

    game = "bluff_in_zoo"
    kernels = "strategies._bluff_in_zoo_compiled"


def _doubt_at(default: float):
    return Field(default, ge=0, le=1, description=(
        "doubts exactly when its estimate that the last claim is false passes this"))


def _draw_rate(default: float):
    return Field(default, ge=0, le=1, description=(
        "chance of drawing a card from the draw pile (it looks at it) and placing it "
        "instead of a hand card"))


class _Common(_Params):
    doubt_at: float = _doubt_at(0.5)
    trust: float = Field(0.5, ge=0, le=1, description=(
        "chance it gives that a card another player placed this round backs the animal that "
        "player claimed last (people claim what they placed); 0: every unseen card is random"))
    recall: float = Field(RECALL, ge=0, le=1, description=(
        "share of the cards shown by earlier doubts (the point cards) it remembers: 1 a perfect "
        "card counter, 0 forgets every doubted pile (a forgotten card could be anywhere)"))
    draw_rate: float = _draw_rate(0.1)


class Honest(_BluffStrategy):
    name = "honest"
    summary = ("places the card that backs its claim and claims the most it believes "
               "(true with chance `belief`; the smallest raise when it believes none); doubts "
               "exactly the claims it thinks false (`doubt_at`)")

    class Params(_Common):
        belief: float = Field(0.75, ge=0, le=1, description=(
            "claims the highest number (then the biggest animal) it thinks true with at least "
            "this chance"))


class Bluffer(_BluffStrategy):
    name = "bluffer"
    summary = ("dumps its least useful card; claims the smallest raise, or with chance "
               "`bluff_rate` `bluff_raise` more; doubts only claims it thinks very likely false "
               "(`doubt_at` 0.7)")

    class Params(_Common):
        doubt_at: float = _doubt_at(0.7)
        draw_rate: float = _draw_rate(0.2)
        bluff_rate: float = Field(0.3, ge=0, le=1, description=(
            "chance of claiming `bluff_raise` more animals than the smallest raise"))
        bluff_raise: int = Field(2, ge=1, description="extra animals named by a bluff")


class Doubter(_BluffStrategy):
    name = "doubter"
    summary = ("doubts every claim it thinks false with chance over `doubt_at` 0.3 (more than "
               "`honest`, at 0.5); otherwise the smallest raise, with chance `skip_rate` placing "
               "no card")

    class Params(_Common):
        doubt_at: float = _doubt_at(0.3)
        skip_rate: float = Field(0.25, ge=0, le=1, description=(
            "chance of claiming without placing a card (when allowed): keeps the pile small"))


STRATEGIES = [Honest, Bluffer, Doubter]
BENCHMARK = {"strategy": "doubter", "params": {}}
# The search player's knobs in this game (strategies/search.py reads them where a player leaves
# a knob unset), chosen by the measured table in docs/search.md ("Per-game defaults"): worlds
# weighed by the claims (an honest-leaning model of the others, moved by their doubted claims),
# only the doubt searched (searching the claim's number too did worse), honest for the rest and
# in the rollouts.
SEARCH = {"rollouts": 32, "depth": 4, "objective": "margin", "rollout": "honest",
          "kinds": [0], "elsewhere": "honest", "weigh": 0.9}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md measures it ahead of every shipped heuristic at these
# player counts, 600 games against two copies of each; the closest of them and its row.
SEARCH_AHEAD = {"players": [3], "closest": "bluffer", "win": 0.45, "half": 0.04, "games": 600}

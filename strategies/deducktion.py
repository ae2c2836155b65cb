"""Deducktion strategies: a naive asker, a meld collector, and a deducer that tracks where every
card can be.

Places are bits of a per-card set: bit o is the hand of the player o seats to the left (bit 0:
this player), bit P the five missing cards, bit P + 1 the two-player reserve hand. The deducer
rebuilds, at each look, the set of places each card can be in from what the seat has seen (its
dealt hand, the face-up card, melds, every answer's count, the cards it passed and received,
its draws), then spreads each card over its places so that every hand holds its size and the
box one card of each animal. Each is a compiled policy, written once in
``_deducktion_compiled.py`` (``KINDS``; ``deductions`` there gives the deducer's card sets and
chances); this module names them, with their knobs.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.deducktion import A_GUESS, A_NO_GUESS, GUESS, NN

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DeducktionStrategy(Heuristic):
    game = "deducktion"
    kernels = "strategies._deducktion_compiled"


class Naive(DeducktionStrategy):
    name = "naive"
    summary = ("melds whenever it can, asks a random player a random allowed question, passes "
               "random cards, guesses among the cards it never saw")

    class Params(_Params):
        max_unseen: int = Field(6, ge=1, le=6, description=(
            "guess an animal's missing card only when at most this many of its cards were never "
            "seen (6: always guess)"))


class Collector(DeducktionStrategy):
    name = "collector"
    summary = ("asks the biggest hand the allowed question that most likely brings cards of the "
               "numbers it holds, melds, passes off its loosest cards, guesses among unseen cards")

    class Params(_Params):
        meld_at: int = Field(3, ge=3, le=5, description=(
            "meld a number once holding this many of it (always on the last turn)"))
        max_unseen: int = Field(2, ge=1, le=6, description=(
            "guess an animal's missing card only when at most this many of its cards were never "
            "seen"))


class Deducer(DeducktionStrategy):
    name = "deducer"
    summary = ("tracks where every card can be, asks whoever and whatever splits its uncertainty "
               "most (plus cards toward melds, and at two players a sure zero answer for a reserve "
               "card, by knobs), guesses a missing card when sure enough")

    class Params(_Params):
        guess_at: float = Field(0.4, ge=0, le=1, description=(
            "guess an animal's missing card when its estimated chance reaches this (a guess "
            "pays on average from 3/8)"))
        meld_weight: float = Field(0.5, ge=0, description=(
            "weight of the expected cards toward melds against the information (bits) a "
            "question brings"))
        meld_at: int = Field(3, ge=3, le=5, description=(
            "meld a number once holding this many of it (always on the last turn)"))
        draw_weight: float = Field(10.0, ge=0, description=(
            "two players, printed reserve rule (a question answered zero draws a reserve card): "
            "weight of the chance that the answer is zero, while the reserve has cards"))


STRATEGIES = [Naive, Collector, Deducer]
# the bench's mixed table: the three heuristics (compiled, the deducer, which rebuilds its card
# sets from the whole history at each look, no longer needs leaving out)
BENCHMARK = {"strategy": "naive", "params": {}, "players": 4,
             "mix": [["naive", {}], ["collector", {}], ["deducer", {}]]}
# The search's defaults (issue 32; docs/search.md "Deducktion", the table that chose them): only
# the guesses searched, among the game's candidates (`search_candidates`: the numbers never seen,
# and no guess; a sure guess alone), 16 worlds per candidate played to the end by `deducer`, the
# win share; every other decision is the deducer's holding its melds to five of a number
# (`meld_at` 5: a meld at five, or on the last turn), which is most of the strength (the table).
SEARCH = {"kinds": [5], "rollouts": 16, "objective": "win", "rollout": "deducer",
          "candidates": "search_candidates",
          "elsewhere": "deducer", "elsewhere_params": {"meld_at": 5}}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md measures it ahead of every shipped heuristic (at their
# shipped knobs) at 3 players, 2,400 games against two deducers (games 0-599 and 1200-2999,
# chosen before they were played; 0-599 alone: 0.42 ± 0.04). The deducer holding its melds to
# five (`meld_at` 5) in the same seat does as well (0.44): the strength is that play's.
SEARCH_AHEAD = {"players": [3], "closest": "deducer", "win": 0.43, "half": 0.02, "games": 2400}


def search_candidates(obs, legal) -> np.ndarray:
    """bool[n, W]: the actions the search weighs (its ``candidates`` knob). A guess: the numbers
    of the animal (``obs.animal``) the seat never saw (``obs.seen``: a card it saw is not in the
    box), and no guess; where one number is left unseen it is the missing card: that sure guess
    alone (+5, never worse). Every other decision: every legal action."""
    cand = np.asarray(legal, np.bool_).copy()
    rows = np.flatnonzero(np.asarray(obs.kind) == GUESS)
    if rows.size:
        a = np.asarray(obs.animal, np.int64)[rows]
        seen = np.asarray(obs.seen)[rows]
        unseen = ~seen[np.arange(rows.size)[:, None], a[:, None] * NN + np.arange(NN)]
        sure = unseen.sum(axis=1) == 1
        cand[rows, A_GUESS:A_GUESS + NN] &= unseen
        cand[rows, A_NO_GUESS] &= ~sure
    return cand

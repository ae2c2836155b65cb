"""Safari Sprint strategies: how people play the race.

Two decisions: while choosing, which animal to claim (or take from its owner) and on which space;
in a round, which card to put into the line. Every card moves the ducky of its own animal, so a
player pushes their own animal with its cards and holds back the others by playing their cards
where the racing card moves little. Each strategy below scores the candidate cards with the
moves the line gives every ducky if it is played now (the cards still to come unknown), and
claims by the `claim` knob shared by all of them. With `expect_later` (the backer's default)
a card's spot is an expectation over the players still to play this round, so that a low card
played first is known to end low in the line. Each is a compiled policy, written once in
``_safari_sprint_compiled.py`` (``KINDS``); this module names them, with their knobs.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    claim: Literal["hand", "space", "leader"] = Field(
        "hand", description="choosing: 'hand' the animal whose cards this hand is strongest in "
                            "(then the highest free space), 'space' the highest free space for "
                            "any animal, 'leader' take the claimed animal furthest ahead when it "
                            "can (else as 'hand')")
    hand_weight: float = Field(1.0, ge=0, description="with 'hand': spaces one point of hand "
                                                      "strength (sum of that animal's numbers "
                                                      "in hand) is worth")
    expect_later: bool = Field(True, description="count on the cards still to be played this "
                                                 "round pushing a card down the line (odds from "
                                                 "the numbers of the cards not seen); false: "
                                                 "as if nobody played after it")


class SprintStrategy(Heuristic):
    """The shipped heuristics' base: the claim while choosing, a card in a round, one compiled
    policy per strategy. ``knobs()``: the claim knobs (the mode's number in ``CLAIM_MODES``,
    hand_weight, expect_later), then the strategy's own in Params order."""

    game = "safari_sprint"
    kernels = "strategies._safari_sprint_compiled"

    def _claim_knobs(self) -> tuple[float, float, float]:
        p = self.params
        return (self.compiled().CLAIM_MODES.index(p.claim), p.hand_weight, float(p.expect_later))


class Backer(SprintStrategy):
    name = "backer"
    summary = ("backs its animal: plays its own cards where the racing card moves them most, "
               "its rivals' (and the explorer's) where it moves them least, counting on the "
               "cards still to come pushing a low card down the line, and keeps its own high "
               "cards for the spots that move most (thrift)")

    class Params(_Params):
        rival_weight: float = Field(0.6, ge=0, description="cost of a space a rival animal moves, "
                                                           "against one of its own")
        explorer_weight: float = Field(0.4, ge=0, description="cost of a space the explorer moves")
        thrift: float = Field(1.0, ge=0, description="cost per number of an own card spent "
                                                     "(keeps high cards for better spots; none "
                                                     "in a race's last round, when the card "
                                                     "kept is never played)")

    def knobs(self):
        p = self.params
        return self._claim_knobs() + (p.rival_weight, p.explorer_weight, p.thrift)


class Spoiler(SprintStrategy):
    name = "spoiler"
    summary = ("holds the leading rival back: plays its low cards where they move least, lands "
               "a ducky on it to push it back, and keeps its highest card to the end (and, with "
               "save_six, its own 6s for the last rounds)")

    class Params(_Params):
        leader_weight: float = Field(1.0, ge=0, description="cost of a space the leading rival "
                                                            "moves")
        own_weight: float = Field(0.5, ge=0, description="worth of a space its own animal moves")
        push_bonus: float = Field(2.0, ge=0, description="worth of a card whose ducky lands on "
                                                         "the leader (pushing it back)")
        hold: bool = Field(True, description="never play the leader's highest card in hand while "
                                             "another card is legal (the last card held)")
        save_six: int = Field(0, ge=0, description="keep its own animal's 6s for the last this many "
                                                   "rounds of a race (0: play them any time)")
        expect_later: bool = Field(False, description="count on the cards still to be played "
                                                      "this round pushing a card down the line "
                                                      "(measured weaker for this strategy: it "
                                                      "then spends its high cards early)")

    def knobs(self):
        p = self.params
        return self._claim_knobs() + (p.leader_weight, p.own_weight, p.push_bonus,
                                      float(p.hold), p.save_six)


class Projector(SprintStrategy):
    name = "projector"
    summary = ("plays for the place: the card that gives its animal the best place (race "
               "points) on the board the line so far makes, then the widest margin")

    class Params(_Params):
        margin_weight: float = Field(0.2, ge=0, description="worth of a space of lead over the "
                                                            "next ducky, against a race point")
        late_only: int = Field(0, ge=0, description="play for the place only in the last this "
                                                    "many rounds (0: every round); before, "
                                                    "play for spaces gained over the rivals")
        expect_later: bool = Field(False, description="count on the cards still to be played "
                                                      "this round pushing a card down the line "
                                                      "(measured weaker for this strategy: it "
                                                      "then spends its high cards early)")

    def knobs(self):
        p = self.params
        return self._claim_knobs() + (p.margin_weight, p.late_only)


STRATEGIES = [Backer, Spoiler, Projector]
BENCHMARK = {"strategy": "backer", "params": {}, "players": 4,
             "mix": [("backer", {}), ("spoiler", {}), ("projector", {}),
                     ("backer", {"claim": "leader"})]}
# The search player's knobs in this game (strategies/search.py reads them where a player leaves
# a knob unset), chosen by the measured table in docs/search.md ("Per-game defaults"): only the
# card played into the line searched (backer chooses the animal and its space), among the 3
# cards backer likes best, 4 whole play-outs each by backer (a depth cut loses here: the places
# a few steps into a race are not its final places). At 4 players (`"at"`) only backer's top 2:
# its 3 cost 1,744 decisions a second there (each play-out is longer), under issue 32's 2,000; the
# top 2 play 2,196 and win 0.33 ± 0.03 against three backer on 1,200 games (docs/search.md,
# "Other player counts").
SEARCH = {"rollouts": 4, "rollout": "benchmark", "top_k": 3, "prior": "backer", "kinds": [1],
          "elsewhere": "backer", "at": {4: {"top_k": 2}}}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md measures it ahead of every shipped heuristic at these
# player counts, 600 games against two copies of each; the closest of them and its row. At 4
# players (the baseline; docs/search.md, "Other player counts") against three copies, fair 1/4.
SEARCH_AHEAD = {"players": [3, 4], "closest": "backer", "win": 0.54, "half": 0.04, "games": 600,
                "at": {4: {"closest": "backer", "win": 0.33, "half": 0.03, "games": 1200}}}

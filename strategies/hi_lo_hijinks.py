"""Hi-Lo Hijinks strategies: how people actually play it.

Three decisions: which card to play (and, for an explorer card, on which stack), whether to
reverse a stack after an exact match, and which card to give away after one (and to whom).

Every card in a hand must be played some day, and a card a stack does not want takes the whole
stack; cards of a type in which a player has the most are discarded at the end. The strategies
weigh a play by how close it is to the stack's top (a card far from the top leaves room for the
next player), a take by what it would add to the player's own count (majorities included), and
a card in hand by how far it is from being wanted (the worst ones are the ones to get rid of).
Each is a compiled policy, written once in ``_hi_lo_hijinks_compiled.py`` (``KINDS``); this
module names them, with their knobs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HiLoStrategy(Heuristic):
    """The shipped heuristics' base: three decisions (the card to play, whether to reverse a
    matched stack, the card to give and to whom), one compiled policy per strategy.
    ``knobs()``: the Params in field order (the giver's ``target`` as "is it the leader")."""

    game = "hi_lo_hijinks"
    kernels = "strategies._hi_lo_hijinks_compiled"


class Safe(HiLoStrategy):
    name = "safe"
    summary = ("plays a card the stack wants, closest to its top, matches first; when nothing "
               "fits takes the smallest stack; after a match narrows the stack and gives its "
               "worst card to the next player")

    class Params(_Params):
        match_bonus: float = Field(3.0, description=(
            "steps of distance a match is worth (a match, at distance 0, is the closest play "
            "anyway: this matters against `spoil`)"))
        explorer_cost: float = Field(
            2.0, description="steps of distance an explorer card costs (it takes the ducky)")
        spoil: float = Field(0.0, ge=0, description=(
            "weight of the room a play leaves the next player (numbers the stack still wants)"))
        majority: bool = Field(False, description=(
            "count a take's cost with majorities (cards of a type it would lead cost nothing)"))
        reverse: bool = Field(True, description="after a match reverse when it narrows the stack")
        give: bool = Field(True, description="after a match give away the worst card in hand")


class Dumper(HiLoStrategy):
    name = "dumper"
    summary = ("while the deck lasts takes small stacks on purpose with its worst card, keeping "
               "the good ones; then plays safe; counts takes with majorities")

    class Params(_Params):
        max_stack: int = Field(4, ge=1, description="a stack of at most this many cards is small")
        until_deck: int = Field(1, ge=0, description=(
            "dump while the draw deck holds at least this many cards (0: all game)"))
        worst_at_least: float = Field(1.0, ge=0, description=(
            "dump only a card at least this far from being wanted"))
        match_bonus: float = Field(3.0, description=(
            "steps of distance a match is worth (a match, at distance 0, is the closest play "
            "anyway: this matters against `spoil`)"))
        explorer_cost: float = Field(2.0, description="steps of distance an explorer card costs")
        dump_explorers: bool = Field(True, description=(
            "dump an explorer card too when no animal card can be dumped (the ducky goes to "
            "whoever plays the last explorer card)"))
        spoil: float = Field(0.0, ge=0, description=(
            "weight of the room a play leaves the next player (numbers the stack still wants)"))


class Giver(HiLoStrategy):
    name = "giver"
    summary = ("plays like safe (matches first) but counts takes with majorities, and uses its "
               "matches to pass its worst card (explorer cards first, none nearer than "
               "`at_least`) to the leader, reversing the stack when that narrows it and the "
               "leader plays next")

    class Params(_Params):
        match_bonus: float = Field(6.0, description=(
            "steps of distance a match is worth (a match, at distance 0, is the closest play "
            "anyway: this matters against `spoil`)"))
        explorer_cost: float = Field(2.0, description="steps of distance an explorer card costs")
        spoil: float = Field(0.0, ge=0, description=(
            "weight of the room a play leaves the next player (numbers the stack still wants)"))
        explorer_first: bool = Field(True, description="give explorer cards before any other")
        at_least: float = Field(2.0, ge=0, description=(
            "give only a card at least this far from being wanted (0: always give; explorer "
            "cards first counts them farthest)"))
        target: str = Field("leader", pattern="^(leader|next)$", description=(
            "who gets the card: 'leader' (best standing now) or 'next' (the player to the left)"))

    def knobs(self):
        p = self.params
        return (p.match_bonus, p.explorer_cost, p.spoil, p.explorer_first, p.at_least,
                p.target == "leader")


STRATEGIES = [Safe, Dumper, Giver]

BENCHMARK = {"strategy": "safe", "params": {}}
# The search player's knobs in this game (strategies/search.py reads them where a player leaves
# a knob unset), chosen by the measured table in docs/search.md ("Per-game defaults"): every
# legal action, 2 whole play-outs each by the BENCHMARK safe, the win share (4 play-outs win
# no more against dumper, at less than half the speed; a depth cut loses here).
SEARCH = {"rollouts": 2, "rollout": "benchmark"}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md measures it ahead of every shipped heuristic at these
# player counts, 600 games against two copies of each; the closest of them and its row.
SEARCH_AHEAD = {"players": [3], "closest": "giver", "win": 0.70, "half": 0.04, "games": 600}

"""Paper Safari strategies: how people actually play it.

Every turn asks: draw from the deck or take the discard; (with an Elephant) look or not; then
which slot to exchange, or throw the card away. All of them value a slot the same way: a known
card at its value, a card never seen at the average of the cards not yet seen, and a column
whose two known cards are equal at 0. They differ in what card they keep, whether they hunt
equal columns, and when they let the round end. Each is a compiled policy, written once in
``_paper_safari_compiled.py`` (``KINDS``); this module names them, with their knobs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .base import Heuristic


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keep_below: float = Field(4.0, description=(
        "keep (or take from the discard) cards worth less than this"))
    safari_worth: float = Field(1.0, description=(
        "what a Safari card is taken to be worth while planning (it copies a row neighbour at the "
        "end, so it is usually low)"))
    patience: float = Field(6.0, gt=0, description=(
        "laps of the table after which the player grows less picky: per `patience` laps of the "
        "round, keep_below rises by 1 and turning a face-down card up counts 1 point more"))


class PaperSafariStrategy(Heuristic):
    """The shipped heuristics' base: the knobs every policy reads are keep_below, safari_worth,
    patience, then the strategy's own."""

    game = "paper_safari"
    kernels = "strategies._paper_safari_compiled"

    def knobs(self) -> tuple[float, ...]:
        p = self.params
        return (p.keep_below, p.safari_worth, p.patience)


class ThresholdReplacer(PaperSafariStrategy):
    name = "threshold"
    summary = ("keeps a drawn card worth less than `keep_below` and puts it where it saves the "
               "most; takes the discard on the same rule; throws the rest away")

    Params = _Params


class ColumnMatcher(PaperSafariStrategy):
    name = "column_matcher"
    summary = ("builds equal columns: takes or keeps a card that makes a new equal column with a "
               "known card (worth `match_bonus` extra), else plays like the threshold replacer")

    class Params(_Params):
        keep_below: float = Field(3.0, description=(
            "keep cards worth less than this even without a match"))
        match_bonus: float = Field(3.0, ge=0, description=(
            "extra points a placement that makes an equal column is worth, beyond what it saves"))

    def knobs(self):
        return super().knobs() + (self.params.match_bonus,)


class Closer(PaperSafariStrategy):
    name = "closer"
    summary = ("threshold replacer that turns up its last face-down card (ending the round) only "
               "when its score with that card beats every opponent's expected score by `margin`; "
               "when ahead, keeps any card that helps and pays up to `rush` to turn a card up")

    class Params(_Params):
        margin: float = Field(0.0, description=(
            "finish the round only when its expected score is at least this much below every "
            "opponent's"))
        rush: float = Field(0.0, ge=0, description=(
            "when ahead, accept a card that costs up to this much if it turns a face-down card up"))

    def knobs(self):
        return super().knobs() + (self.params.margin, self.params.rush)


STRATEGIES = [ThresholdReplacer, ColumnMatcher, Closer]
BENCHMARK = {"strategy": "threshold", "params": {"keep_below": 4.0}}
# The search player's knobs in this game (strategies/search.py reads them where a player leaves
# a knob unset), chosen by the measured table in docs/search.md ("Per-game defaults"): the 3
# actions column_matcher likes best, 16 worlds each played 2 steps on by column_matcher and
# scored by the running-score margin, 32 more where the best two are close (`race`). Its
# strength grows with the worlds per decision and its speed falls: this is the best measured
# near 2,000 decisions a second.
SEARCH = {"rollouts": 16, "race": 32, "top_k": 3, "prior": "column_matcher",
          "rollout": "column_matcher", "depth": 2, "objective": "margin"}
# Where the search with these defaults is the stronger player (`skill`'s best player, the
# tuner's best response): docs/search.md measures it ahead of every shipped heuristic at these
# player counts, 600 games against two copies of each; the closest of them and its row.
SEARCH_AHEAD = {"players": [3], "closest": "column_matcher", "win": 0.43, "half": 0.04, "games": 600}

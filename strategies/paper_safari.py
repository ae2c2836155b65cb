"""Paper Safari strategies: how people actually play it.

Every turn asks: draw from the deck or take the discard; (with an Elephant) look or not; then
which slot to exchange, or throw the card away. All of them value a slot the same way: a known
card at its value, a card never seen at the average of the cards not yet seen, and a column
whose two known cards are equal at 0. They differ in what card they keep, whether they hunt
equal columns, and when they let the round end. Observations are rotated: index 0 is the
player, index o the player o seats to the left.
"""

from __future__ import annotations

import functools

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.paper_safari import (DECK, DISCARD, DRAW, NO_PEEK, PEEK, PLACE, SLOT0, TAKE,
                                          Obs)

from .base import Strategy


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


class View:
    """The player's own grid as numbers: values (unseen cards at the average unseen value), which
    slots are known, and each slot's column partner (the other row; 2 rows in the printed game)."""

    def __init__(self, obs: Obs, params: _Params):
        tv = obs.card_value.astype(np.float64)
        safari_worth = params.safari_worth
        tv[obs.safari] = safari_worth
        self.tv = tv
        unseen = obs.unseen.astype(np.float64)
        self.mean_unseen = (unseen @ tv) / np.maximum(unseen.sum(axis=1), 1.0)
        own = obs.grid[:, 0, :].astype(np.int64)
        self.known = own >= 0
        self.val = np.where(self.known, tv[np.maximum(own, 0)], self.mean_unseen[:, None])
        self.face_down = ~obs.up[:, 0, :]
        s = own.shape[1]
        k = np.arange(s)
        self.has_partner = obs.rows > 1
        self.partner = ((k // obs.cols + 1) % obs.rows) * obs.cols + k % obs.cols
        self.rows, self.cols = obs.rows, obs.cols
        self.pair_zero_min = obs.pair_zero_min
        # impatience: a round that drags on makes people keep worse cards and turn cards up
        self.urge = obs.round_turns / (obs.grid.shape[1] * params.patience)
        self.keep_below = params.keep_below + self.urge
        # the card being weighed: the discard top while drawing, else the card in hand
        card = np.where(obs.kind == DRAW, obs.discard_top, obs.held)
        self.card_value = tv[np.maximum(card, 0)]

    def delta(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Change of this player's score (n, S) if a card worth ``v`` (n,) replaced each slot
        (negative is good; a face-down slot gains the impatience bonus), and whether that
        placement makes a new equal column (one that was not equal already: swapping a card of
        an equal column for its twin, a Tarzan for a Tarzan, makes none)."""
        x, xk = self.val, self.known
        if self.has_partner:
            p = self.val[:, self.partner]
            pk = self.known[:, self.partner]
        else:
            p = np.zeros_like(x)
            pk = np.zeros_like(xk)
        zmin = self.pair_zero_min
        match = pk & (v[:, None] == p) & (p >= zmin)
        paired = xk & pk & (x == p) & (p >= zmin)
        old = np.where(paired, 0.0, x + p)
        new = np.where(match, 0.0, v[:, None] + p)
        return new - old - self.urge[:, None] * self.face_down, match & ~paired

    def estimates(self, obs: Obs) -> np.ndarray:
        """Expected score (n, P) of every grid from what this player sees: the seen cards, and
        the average unseen card for each card not seen."""
        return obs.seen_sum + obs.hidden * self.mean_unseen[:, None]


def first_slot(legal: np.ndarray) -> np.ndarray:
    """The first legal slot action (turning up at setup, or the card to look at)."""
    return SLOT0 + np.argmax(legal[:, SLOT0:], axis=1)


def decide(obs: Obs, legal: np.ndarray, view: View, score: np.ndarray,
           want: np.ndarray) -> np.ndarray:
    """One action per game from the strategy's ``score`` (n, S) of putting the card in hand (or
    the discard top, when drawing) into each slot, lower is better, and whether it ``want``s that
    card at all. Draw: take the discard if wanted and some slot scores below 0. Place: exchange
    with the best slot likewise, else discard (when allowed). Elephant: look only when the
    Elephant would not hurt in a known slot (looking forces the exchange)."""
    n = len(obs.kind)
    slot = np.argmin(score, axis=1)
    best = score[np.arange(n), slot]
    good = want & (best < 0)
    draw = np.where((good & legal[:, TAKE]) | ~legal[:, DECK], TAKE, DECK)
    look = np.where(view.known, score, np.inf).min(axis=1) <= 0
    peek = np.where(look, first_slot(legal), NO_PEEK)
    place = np.where(good | ~legal[:, DISCARD], SLOT0 + slot, DISCARD)
    kind = obs.kind
    return np.where(kind == DRAW, draw, np.where(kind == PEEK, peek,
                                                 np.where(kind == PLACE, place, first_slot(legal))))


class PaperSafariStrategy(Strategy):
    """The shipped heuristics' base. Each also has a compiled twin (``policy()``: its number
    and knobs for ``strategies/_paper_safari_compiled.py``), so a table of them plays whole
    matches in one kernel; a subclass that overrides ``act`` is played through ``act`` unless it
    also overrides ``policy``."""

    game = "paper_safari"

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def knobs(self) -> tuple[float, ...]:
        """keep_below, safari_worth, patience: the knobs every twin reads."""
        p = self.params
        return (p.keep_below, p.safari_worth, p.patience)

    def twin_ok(self) -> bool:
        """The twin's average of the unseen cards is exact (bit for bit the numpy one) when a
        Safari's planned worth is a multiple of 2**-20 (see the compiled module)."""
        w = float(self.params.safari_worth) * 2.0 ** 20
        return abs(w) <= 2.0 ** 36 and w == int(w)


class ThresholdReplacer(PaperSafariStrategy):
    name = "threshold"
    summary = ("keeps a drawn card worth less than `keep_below` and puts it where it saves the "
               "most; takes the discard on the same rule; throws the rest away")

    Params = _Params

    def act(self, obs, legal, rng):
        view = View(obs, self.params)
        d, _ = view.delta(view.card_value)
        return decide(obs, legal, view, d, view.card_value < view.keep_below)

    def policy(self):
        return (K_THRESHOLD, self.knobs()) if self.twin_ok() else None


class ColumnMatcher(PaperSafariStrategy):
    name = "column_matcher"
    summary = ("builds equal columns: takes or keeps a card that makes a new equal column with a "
               "known card (worth `match_bonus` extra), else plays like the threshold replacer")

    class Params(_Params):
        keep_below: float = Field(3.0, description=(
            "keep cards worth less than this even without a match"))
        match_bonus: float = Field(3.0, ge=0, description=(
            "extra points a placement that makes an equal column is worth, beyond what it saves"))

    def act(self, obs, legal, rng):
        view = View(obs, self.params)
        d, match = view.delta(view.card_value)
        score = d - self.params.match_bonus * match
        want = (view.card_value < view.keep_below) | match.any(axis=1)
        return decide(obs, legal, view, score, want)

    def policy(self):
        return (K_COLUMN_MATCHER, self.knobs() + (self.params.match_bonus,)) \
            if self.twin_ok() else None


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

    def act(self, obs, legal, rng):
        view = View(obs, self.params)
        est = view.estimates(obs)
        best_other = est[:, 1:].min(axis=1)
        ahead = est[:, 0] + self.params.margin < best_other
        d, _ = view.delta(view.card_value)
        # turning up the last face-down card ends the round: only with the card in hand there
        # (own grid then fully known, but for the impatience bonus) it must beat every opponent
        finish = (view.face_down.sum(axis=1) == 1)[:, None] & view.face_down
        plain = d + view.urge[:, None] * view.face_down
        wins = est[:, 0, None] + plain + self.params.margin < best_other[:, None]
        score = np.where(finish & ~wins, np.inf,
                         d - (self.params.rush * ahead)[:, None] * view.face_down)
        return decide(obs, legal, view, score, (view.card_value < view.keep_below) | ahead)

    def policy(self):
        return (K_CLOSER, self.knobs() + (self.params.margin, self.params.rush)) \
            if self.twin_ok() else None


K_THRESHOLD, K_COLUMN_MATCHER, K_CLOSER = range(3)


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _paper_safari_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [ThresholdReplacer, ColumnMatcher, Closer]
BENCHMARK = {"strategy": "threshold", "params": {"keep_below": 4.0}}

"""Duck Duck Bruce strategies: how people actually play it.

Each decides two things: when to stop turning cards and bank the row, and, after a Bruce, whom to
rob and how many cards to declare. Observations are rotated: index 0 is the player, index o the
player o seats to the left.
"""

from __future__ import annotations

import functools

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.duck_duck_bruce import BANK, BRUCE, DRAW, PASS, Obs

from .base import Strategy


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


@functools.lru_cache(maxsize=None)
def _opponent_seats(p: int) -> np.ndarray:
    """int64[p, p-1]: the seat of the player o seats to the left of seat s, at [s, o - 1]."""
    seats = (np.arange(p)[:, None] + np.arange(1, p)[None, :]) % p
    seats.flags.writeable = False  # shared by every call
    return seats


def most_cards_target(obs: Obs) -> np.ndarray:
    """Offset (1..P-1) of the opponent with the most nest cards; the lowest seat on ties."""
    n, p = obs.nest_size.shape
    abs_seat = np.take(_opponent_seats(p), obs.seat, axis=0)  # one gather (run every step)
    key = obs.nest_size[:, 1:].astype(np.int64) * (p + 1) - abs_seat
    return 1 + np.argmax(key, axis=1)


def leader_target(obs: Obs) -> np.ndarray:
    """Offset of the opponent with the best standing (total plus what the nest scores now);
    the one with more nest cards, then the lowest seat, on ties."""
    n, p = obs.nest_size.shape
    offs = np.arange(1, p)
    abs_seat = (obs.seat[:, None].astype(np.int64) + offs[None, :]) % p
    standing = obs.total[:, 1:].astype(np.int64) + obs.round_pts[:, 1:]
    key = (standing * 1000 + obs.nest_size[:, 1:]) * (p + 1) - abs_seat
    return 1 + np.argmax(key, axis=1)


def declare_by_odds(obs: Obs, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The declaration with the best expected card balance against the opponent at ``offset``:
    min(k, their nest) * P(roll >= k) - P(negative roll) * cards given back.
    Returns (k, expected balance)."""
    die = obs.die.astype(np.int64)
    rows = np.arange(len(offset))
    their = obs.nest_size[rows, offset].astype(np.int64)
    mine = obs.nest_size[:, 0].astype(np.int64)
    lose = sum(np.minimum(-f, mine) for f in die if f < 0) / len(die)
    ks = np.arange(1, obs.max_steal + 1)
    p_win = np.array([(die >= k).mean() for k in ks])
    gain = np.minimum(ks[None, :], their[:, None]) * p_win[None, :] - np.asarray(lose)[..., None]
    best = np.argmax(gain, axis=1)
    return ks[best], gain[rows, best]


def bruce_action(obs: Obs, legal: np.ndarray, offset: np.ndarray, k: np.ndarray,
                 value: np.ndarray | None = None) -> np.ndarray:
    """Steal ``k`` from ``offset``; pass instead where the expected balance is not positive
    and passing is allowed."""
    a = obs.steal_action(offset, np.minimum(k, obs.max_steal))
    if value is not None:
        a = np.where((value <= 0) & legal[:, PASS], PASS, a)
    return a


def split(obs: Obs, legal: np.ndarray, choose, bruce) -> np.ndarray:
    """``choose(obs, legal)`` decides take-or-bank; ``bruce(obs, legal)`` is asked only on the
    rows where a Bruce was revealed (about one decision in ten)."""
    out = np.asarray(choose(obs, legal), np.int64)
    rows = np.flatnonzero(obs.kind == BRUCE)
    if rows.size:
        out[rows] = bruce(obs.take(rows), np.take(legal, rows, axis=0))
    return out


def bruce_by_odds(obs: Obs, legal: np.ndarray) -> np.ndarray:
    """Rob the biggest nest, declaring by the odds of the die (pass when nothing is to gain)."""
    target = most_cards_target(obs)
    k, value = declare_by_odds(obs, target)
    return bruce_action(obs, legal, target, k, value)


class DuckStrategy(Strategy):
    """Two decisions, two methods: ``choose`` (take another card or bank) on every decision's
    observation, ``bruce`` only where a Bruce was revealed (default: rob by the odds).

    The shipped ones also have a compiled twin (``policy``: its number and knobs for
    ``compiled.policy``), so a table of them plays whole games in one kernel
    (``compiled.play_batch``); a subclass that overrides ``choose`` or ``bruce`` is played
    through ``act`` unless it also overrides ``policy``."""

    game = "duck_duck_bruce"

    twin_methods = ("choose", "bruce")

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def act(self, obs, legal, rng):
        return split(obs, legal, self.choose, self.bruce)

    def choose(self, obs: Obs, legal: np.ndarray) -> np.ndarray:
        """Take another card (DRAW) or bank the row (BANK), per observed game."""
        return np.full(len(obs.game), BANK)

    def bruce(self, obs: Obs, legal: np.ndarray) -> np.ndarray:
        return bruce_by_odds(obs, legal)


class StopAt(DuckStrategy):
    name = "stop_at"
    summary = ("bank as soon as the row holds `cards` cards; after a Bruce rob the biggest nest "
               "declaring `declare` (pass when every nest is empty)")

    class Params(_Params):
        cards: int = Field(3, ge=1, description="bank the row once it holds this many cards")
        declare: int = Field(1, ge=1, description="cards to declare after a Bruce")

    def choose(self, obs, legal):
        return np.where(obs.row_len >= self.params.cards, BANK, DRAW)

    def bruce(self, obs, legal):
        # one declaration for every row; pass where even the biggest nest is empty (a steal can
        # only win nothing there, and a -1 would give a card away)
        k = min(self.params.declare, obs.max_steal)
        target = most_cards_target(obs)
        a = obs.steal_action(target, k)
        empty = obs.nest_size[np.arange(len(target)), target] == 0
        return np.where(empty & legal[:, PASS], PASS, a)

    def policy(self):
        return K_STOP_AT, (self.params.cards, self.params.declare)


class CardCounter(DuckStrategy):
    name = "card_counter"
    summary = ("counts the unseen cards: banks when the chance that the next card busts "
               "passes `risk`; declares by the odds of the die")

    class Params(_Params):
        risk: float = Field(0.3, ge=0, le=1,
                            description="bank when the chance of a double duck or Bruce reaches this")

    def choose(self, obs, legal):
        stop = (obs.bust_chance() >= self.params.risk) & (obs.row_gain > 0)
        return np.where(stop, BANK, DRAW)

    def policy(self):
        return K_CARD_COUNTER, (self.params.risk,)


class Scoreboard(DuckStrategy):
    name = "scoreboard"
    summary = ("plays the scoreboard: takes more risk the further behind the leader, "
               "aims Bruce at the leader, declares by the odds")

    class Params(_Params):
        risk: float = Field(0.3, ge=0, le=1, description="bust chance accepted when level")
        chase: float = Field(0.5, ge=0, description=(
            "extra risk accepted per target_score of deficit (and less when ahead)"))

    def choose(self, obs, legal):
        standing = obs.total.astype(np.float64) + obs.round_pts
        gap = standing[:, 1:].max(axis=1) - standing[:, 0]
        scale = obs.target_score if obs.rounds is None else max(1.0, 20.0 * obs.rounds)
        risk = np.clip(self.params.risk + self.params.chase * gap / scale, 0.02, 0.98)
        stop = (obs.bust_chance() >= risk) & (obs.row_gain > 0)
        return np.where(stop, BANK, DRAW)

    def bruce(self, obs, legal):
        target = leader_target(obs)
        k, value = declare_by_odds(obs, target)
        return bruce_action(obs, legal, target, k, value)

    def policy(self):
        return K_SCOREBOARD, (self.params.risk, self.params.chase)


class ValueHunter(DuckStrategy):
    name = "value_hunter"
    summary = "banks once the row would add at least `points` to its nest; robs the biggest nest"

    class Params(_Params):
        points: int = Field(4, ge=1, description="bank when banking would add this many points")
        max_cards: int = Field(6, ge=1, description="bank anyway once the row holds this many cards")

    def choose(self, obs, legal):
        stop = (obs.row_gain >= self.params.points) | (obs.row_len >= self.params.max_cards)
        return np.where(stop, BANK, DRAW)

    def policy(self):
        return K_VALUE_HUNTER, (self.params.points, self.params.max_cards)


K_STOP_AT, K_CARD_COUNTER, K_SCOREBOARD, K_VALUE_HUNTER = range(4)


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _duck_duck_bruce_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [StopAt, CardCounter, Scoreboard, ValueHunter]
# the quickstart's table, one round (the speed issue's reference shape)
BENCHMARK = {"strategy": "stop_at", "params": {"cards": 3}, "players": 3, "rules": {"rounds": 1},
             "mix": [("stop_at", {"cards": 2}), ("stop_at", {"cards": 4}),
                     ("card_counter", {"risk": 0.3})]}

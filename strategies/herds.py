"""Herds strategies: how people play it.

Every decision of a turn is one small step (see safari_sim/games/herds.py): step two (draw a
grassland card, the deck's top, or trade), the trade's give and take, step three (new herds,
growths, swaps, done) and step four (the card to pass and its receiver). Each strategy values
the cards for its own hand (``card_values``) and picks among the legal actions with numpy over
the observed games.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.herds import (A_CARD0, A_DECK, A_DONE, A_GIVE_DONE, A_GROW0, A_NEW0,
                                    A_RECV0, A_SWAP0, A_TRADE, EXPLORER, K_GIVE, K_HERD, K_PASS,
                                    K_RECV, K_STEP2, K_TAKE, MAXH, NCARDS, Obs)

from .base import Strategy

SUIT = np.array([c // 12 if c < 60 else EXPLORER for c in range(NCARDS)])
NUM = np.arange(NCARDS) % 6
NEG = -1e9


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


COL = SUIT * 6 + NUM  # column of each card in a [n, 36] (suit, number) table


def _table(flat: np.ndarray, ok: np.ndarray, m: int) -> np.ndarray:
    """bool[m, 6, 6] from row-offset (suit, number) indices where ``ok``."""
    return (np.bincount(flat[ok], minlength=m * 36) > 0).reshape(m, 6, 6)


def wanted_ends(obs: Obs, rows: np.ndarray, side: int = 1) -> np.ndarray:
    """bool[m, 6, 6]: (suit, number) that grows a herd of ``side`` (1 own, 0 opponents')."""
    return obs.want[rows, side].reshape(len(rows), 6, 6)


def own_cover(obs: Obs, rows: np.ndarray) -> np.ndarray:
    """bool[m, 6, 6]: (suit, number) already in one of the side's herds."""
    m = len(rows)
    mine = obs.herd_side[rows] == 1
    suit = obs.herd_suit[rows].astype(np.int64)
    lo, hi = obs.herd_lo[rows], obs.herd_hi[rows]
    base = (np.arange(m) * 36)[:, None] + suit * 6
    flat = np.concatenate([(base + n).ravel() for n in range(6)])
    ok = np.concatenate([(mine & (lo <= n) & (hi >= n)).ravel() for n in range(6)])
    return _table(flat, ok, m)


def card_values(obs: Obs, rows: np.ndarray, focus: np.ndarray | None = None,
                focus_bonus: float = 0.0) -> np.ndarray:
    """float[m, 66] for the observed games ``rows``: how much a card helps the player: it grows
    one of its side's herds (3), or sits next to held cards of its animal (2 for a neighbour, 1
    two numbers away); an explorer is worth 2, plus 2 if it can grow an animal herd as a wild,
    plus 3 if it grows an explorer herd. ``focus`` (int[m] suit) adds a bonus to that animal."""
    m = len(rows)
    hc = obs.hand_table[rows].reshape(m, 6, 6) > 0
    want = wanted_ends(obs, rows, 1)
    pad = np.zeros((m, 6, 10), np.float64)
    pad[:, :, 2:8] = hc
    near = 2.0 * (pad[:, :, 1:7] + pad[:, :, 3:9]) + pad[:, :, 0:6] + pad[:, :, 4:10]
    table = (near + 3.0 * want).reshape(m, 36)
    val = np.take(table, COL, axis=1)
    wild = want[:, :5, :].any(axis=1)
    val[:, 60:] = 2.0 + 2.0 * wild + 3.0 * want[:, 5, :]
    if focus is not None:
        val += focus_bonus * (SUIT[None, :] == focus[:, None])
    return val


def opponent_use(obs: Obs, rows: np.ndarray) -> np.ndarray:
    """float[m, 66]: 1 where a card grows an opponent's herd (explorers: as a wild too)."""
    want = wanted_ends(obs, rows, 0)
    use = np.take(want.reshape(len(rows), 36), COL, axis=1).astype(np.float64)
    use[:, 60:] = np.maximum(use[:, 60:], want.any(axis=1))
    return use


def _pick(score: np.ndarray, legal: np.ndarray) -> np.ndarray:
    return np.argmax(np.where(legal, score, NEG), axis=1)


def _plan(obs: Obs, rows: np.ndarray, val: np.ndarray):
    """The one-for-one trade step two considers: the best grassland card ``best`` (value
    ``bv``) for the held card of the same number the player values least (``give``); ``ok``
    where it is worth making (the card taken is worth more than 1 above the one given) and
    can be made under every reading of the explorer rule (an explorer only when it grows a
    herd of the side and the hand holds another card)."""
    v = np.where(obs.grass[rows], val, NEG)
    best = v.argmax(axis=1)
    bv = v.max(axis=1)
    same = obs.hand[rows] & (NUM[None, :] == NUM[best][:, None])
    cheap_v = np.where(same, val, np.inf)
    give = cheap_v.argmin(axis=1)
    cheap = cheap_v.min(axis=1)
    grows = wanted_ends(obs, rows, 1)[np.arange(len(rows)), :, NUM[best]].any(axis=1)
    explorer_ok = (SUIT[best] != EXPLORER) | (grows & (obs.hand_sizes[rows, 0] >= 2))
    return best, bv, give, (cheap + 1.0 < bv) & explorer_ok


def choose(obs: Obs, legal: np.ndarray, values, pass_scores, receiver, take_at: float,
           trade_at: float, lay_deck: int, wild_grow: bool, lay_min_hand: int) -> np.ndarray:
    """The shared decision procedure; the strategies differ in the functions and knobs.

    values(obs, rows) -> float[m, 66]: the player's value of each card; pass_scores(obs, rows,
    val) -> float[m, 66] (higher = better to pass); receiver(obs, rows) -> offset to pass to.
    take_at: the least value of a grassland card worth taking over the deck; trade_at: the least
    value of a grassland card worth a one-for-one trade; new herds are laid only when the deck
    has at most lay_deck cards or the hand holds lay_min_hand cards or more.
    """
    n, w = legal.shape
    out = np.argmax(legal, axis=1)
    kind = np.asarray(obs.kind)
    need = np.flatnonzero((kind == K_STEP2) | (kind == K_GIVE) | (kind == K_PASS))
    val_all = values(obs, need) if need.size else None
    at = np.zeros(n, np.int64)  # row of each game in val_all
    at[need] = np.arange(need.size)
    # step two: a one-for-one trade for the best grassland card (a held card of the same
    # number, ``_plan``), else the best grassland card or the deck's top
    rows = np.flatnonzero(kind == K_STEP2)
    if rows.size:
        lg = legal[rows]
        best, bv, give, ok = _plan(obs, rows, val_all[at[rows]])
        trade = lg[:, A_TRADE] & ok & (bv >= trade_at)
        a = np.where(bv >= take_at, A_CARD0 + best, A_DECK)
        a = np.where(lg[np.arange(len(a)), a], a, np.argmax(lg, axis=1))
        out[rows] = np.where(trade, A_TRADE, a)
    # the trade's give: the planned card (the hand is still the one step two saw), then
    # "trade these"
    rows = np.flatnonzero(kind == K_GIVE)
    if rows.size:
        lg = legal[rows]
        _, _, give, _ = _plan(obs, rows, val_all[at[rows]])
        a = np.where(lg[np.arange(len(rows)), A_CARD0 + give], A_CARD0 + give,
                     A_CARD0 + _pick(-val_all[at[rows]], lg[:, A_CARD0:A_CARD0 + NCARDS]))
        done = lg[:, A_GIVE_DONE] & (np.asarray(obs.give_sum)[rows] > 0)
        out[rows] = np.where(done, A_GIVE_DONE, a)
    # the trade's take: the most valuable card that still completes the total, valued with the
    # hand of step two (the given cards back in it): the planned card
    rows = np.flatnonzero(kind == K_TAKE)
    if rows.size:
        aug = obs.hand_table.copy()
        np.add.at(aug, (np.nonzero(obs.give)[0], COL[np.nonzero(obs.give)[1]]), 1)
        before = dataclasses.replace(obs, hand_table=aug)
        out[rows] = A_CARD0 + _pick(values(before, rows),
                                    legal[rows, A_CARD0:A_CARD0 + NCARDS])
    # step three: swap, then grow, then lay (when the holding knobs allow), then done
    rows = np.flatnonzero(kind == K_HERD)
    if rows.size:
        m = len(rows)
        lg = legal[rows]
        hc = obs.hand_table[rows]
        suit = obs.herd_suit[rows].astype(np.int64)
        lo = obs.herd_lo[rows].astype(np.int64) - 1
        hi = obs.herd_hi[rows].astype(np.int64) + 1
        animal = (suit >= 0) & (suit < 5)
        real_lo = animal & (lo >= 0) & (np.take_along_axis(hc, np.clip(suit * 6 + lo, 0, 35), 1) > 0)
        real_hi = animal & (hi <= 5) & (np.take_along_axis(hc, np.clip(suit * 6 + hi, 0, 35), 1) > 0)
        ok_lo = real_lo | (suit == 5) | wild_grow
        ok_hi = real_hi | (suit == 5) | wild_grow
        grow = lg[:, A_GROW0:A_GROW0 + 2 * MAXH] & np.stack([ok_lo, ok_hi], axis=2).reshape(m, 2 * MAXH)
        swap = lg[:, A_SWAP0:A_DONE]
        lay = (obs.deck_left[rows] <= lay_deck) | (obs.hand_sizes[rows, 0] >= lay_min_hand)
        new = lg[:, A_NEW0:A_GROW0] & lay[:, None]
        a = np.where(lg[:, A_DONE], A_DONE, np.argmax(lg, axis=1))  # forced: the first legal
        a = np.where(new.any(axis=1), A_NEW0 + np.argmax(new, axis=1), a)
        a = np.where(grow.any(axis=1), A_GROW0 + np.argmax(grow, axis=1), a)
        out[rows] = np.where(swap.any(axis=1), A_SWAP0 + np.argmax(swap, axis=1), a)
    # step four
    rows = np.flatnonzero(kind == K_PASS)
    if rows.size:
        ps = pass_scores(obs, rows, val_all[at[rows]])
        out[rows] = A_CARD0 + _pick(ps, legal[rows, A_CARD0:A_CARD0 + NCARDS])
    rows = np.flatnonzero(kind == K_RECV)
    if rows.size:
        a = A_RECV0 + receiver(obs, rows) - 1
        lg = legal[rows]
        out[rows] = np.where(lg[np.arange(len(a)), np.clip(a, 0, w - 1)], a, np.argmax(lg, axis=1))
    return out


def left_offset(obs: Obs, rows: np.ndarray) -> np.ndarray:
    """The first opponent to the left (offset 1; the game moves it on if that is a partner)."""
    return np.ones(len(rows), np.int64)


def least_valued(obs: Obs, rows: np.ndarray, val: np.ndarray) -> np.ndarray:
    return -val


def leader_offset(obs: Obs, rows: np.ndarray) -> np.ndarray:
    """Offset (1..P-1) of the opponent whose side leads; the nearest to the left on ties."""
    p = obs.n_players
    offs = np.arange(1, p)
    opp = offs[None, :] != np.asarray(obs.partner)[rows][:, None]  # partner 0: none
    key = np.where(opp, obs.totals[rows, 1:].astype(float) * 10 - offs[None, :] * 0.01, NEG)
    return 1 + np.argmax(key, axis=1)


class HerdsStrategy(Strategy):
    """The shipped heuristics' base: their compiled twins (strategies/_herds_compiled.py) play
    whole games in one kernel when every seat holds one (``policy()``: a kind and knobs)."""

    game = "herds"

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))


def _knobs(*values) -> tuple[float, ...] | None:
    """The knobs as floats for a twin, or None (no twin: the lockstep path) when one is not a
    finite number of a size a float holds exactly enough (a NaN or an infinity would meet
    numpy's NaN rules in ways the twins do not follow)."""
    out = tuple(float(v) for v in values)
    if not all(math.isfinite(v) and abs(v) < 1e15 for v in out):
        return None
    return out


class Collector(HerdsStrategy):
    name = "collector"
    summary = "keeps runs of one animal, takes or trades for the number that extends them, passes what it values least"

    class Params(_Params):
        take_at: float = Field(2.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(3.0, description="least value of a grassland card worth a one-for-one trade of a held card of the same number")
        lay_deck: int = Field(20, description="hold cards: lay new herds only once the deck has at most this many cards...")
        lay_min_hand: int = Field(7, description="...or the hand holds at least this many cards")
        wild_grow: bool = Field(False, description="grow animal herds with explorers as wilds (they add no size)")

    def act(self, obs, legal, rng):
        q = self.params
        return choose(obs, legal, card_values, least_valued, left_offset, q.take_at, q.trade_at,
                      q.lay_deck, q.wild_grow, q.lay_min_hand)

    def policy(self):
        q = self.params
        knobs = _knobs(q.take_at, q.trade_at, q.lay_deck, q.lay_min_hand, q.wild_grow, 0.0)
        return None if knobs is None else (K_COLLECTOR, knobs)


class Blocker(HerdsStrategy):
    name = "blocker"
    summary = "plays like the collector but passes the leading opponent cards that grow none of the opponents' herds"

    class Params(_Params):
        block: float = Field(5.0, description="weight against passing a card that grows an opponent's herd")
        take_at: float = Field(2.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(3.0, description="least value of a grassland card worth a trade")
        lay_deck: int = Field(20, description="hold cards: lay new herds once the deck has at most this many cards...")
        lay_min_hand: int = Field(7, description="...or the hand holds at least this many cards")

    def act(self, obs, legal, rng):
        q = self.params

        def pass_scores(obs, rows, val):
            return -val - q.block * opponent_use(obs, rows)

        return choose(obs, legal, card_values, pass_scores, leader_offset, q.take_at, q.trade_at,
                      q.lay_deck, False, q.lay_min_hand)

    def policy(self):
        q = self.params
        knobs = _knobs(q.take_at, q.trade_at, q.lay_deck, q.lay_min_hand, False, q.block)
        return None if knobs is None else (K_BLOCKER, knobs)


class Sprinter(HerdsStrategy):
    name = "sprinter"
    summary = "picks the animal it holds the most numbers of and races for its 1-6 herd, laying and growing at once"

    class Params(_Params):
        focus_bonus: float = Field(3.0, description="extra value of a card of the chosen animal")
        take_at: float = Field(3.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(4.0, description="least value of a grassland card worth a trade")
        lay_deck: int = Field(66, description="lay new herds once the deck has at most this many cards (66: at once)")
        wild_grow: bool = Field(True, description="grow with explorers as wilds to reach 1-6 sooner")

    def act(self, obs, legal, rng):
        q = self.params

        def values(obs, rows):
            held = obs.hand_table[rows].reshape(len(rows), 6, 6)[:, :5] > 0
            focus = (held | own_cover(obs, rows)[:, :5]).sum(axis=2).argmax(axis=1)
            return card_values(obs, rows, focus, q.focus_bonus)

        return choose(obs, legal, values, least_valued, left_offset, q.take_at, q.trade_at,
                      q.lay_deck, q.wild_grow, 0)

    def policy(self):
        q = self.params
        knobs = _knobs(q.take_at, q.trade_at, q.lay_deck, 0, q.wild_grow, q.focus_bonus)
        return None if knobs is None else (K_SPRINTER, knobs)


# the compiled twins' kinds (strategies/_herds_compiled.py)
K_COLLECTOR, K_BLOCKER, K_SPRINTER = range(3)


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _herds_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Collector, Blocker, Sprinter]
BENCHMARK = {"strategy": "collector", "params": {}}

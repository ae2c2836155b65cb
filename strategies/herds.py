"""Herds strategies: how people play it.

Every decision of a turn is one small step (see safari_sim/games/herds.py): step two (draw a
grassland card, the deck's top, or trade), the trade's give and take, step three (new herds,
growths, swaps, done) and step four (the card to pass and its receiver). Each strategy values
the cards for its own hand (``card_values``) and picks among the legal actions with numpy over
the observed games.
"""

from __future__ import annotations

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


def hand_counts(hand: np.ndarray) -> np.ndarray:
    """int[n, 6, 6]: cards held by suit and number - 1."""
    n = hand.shape[0]
    out = np.zeros((n, 6, 6), np.int64)
    out[:, :5] = hand[:, :60].reshape(n, 5, 2, 6).sum(axis=2)
    out[:, 5] = hand[:, 60:]
    return out


def wanted_ends(obs: Obs, side: int = 1) -> np.ndarray:
    """bool[n, 6, 6]: (suit, number) that grows a herd of ``side`` (1 own, 0 opponents')."""
    n = len(obs.game)
    out = np.zeros((n, 6, 7 + 1), bool)  # numbers -1..6 shifted by one
    mine = obs.herd_side == side
    rows = np.repeat(np.arange(n)[:, None], MAXH, axis=1)
    suit = np.where(mine, obs.herd_suit, 0).astype(np.int64)
    lo = obs.herd_lo.astype(np.int64)      # low end wants lo - 1: index lo
    hi = obs.herd_hi.astype(np.int64) + 2  # high end wants hi + 1: index hi + 2
    out[rows[mine], suit[mine], lo[mine]] = True
    out[rows[mine], suit[mine], hi[mine]] = True
    return out[:, :, 1:7]


def card_values(obs: Obs, focus: np.ndarray | None = None, focus_bonus: float = 0.0) -> np.ndarray:
    """float[n, 66]: how much a card helps the player: it grows one of its side's herds (3), or
    sits next to held cards of its animal (2 for a neighbour, 1 two numbers away); an explorer
    is worth 2 plus 2 if it can grow a herd as a wild. ``focus`` (int[n] suit) adds a bonus."""
    hc = hand_counts(obs.hand) > 0
    want = wanted_ends(obs, 1)
    pad = np.zeros((hc.shape[0], 6, 10), bool)
    pad[:, :, 2:8] = hc
    near = (2.0 * (pad[:, :, 1:7].astype(float) + pad[:, :, 3:9])
            + pad[:, :, 0:6] + pad[:, :, 4:10])  # [n, 6, 6]
    val = near[:, SUIT, NUM] + 3.0 * want[:, SUIT, NUM]
    wild = want[:, :5, :].any(axis=1)  # [n, 6]: an explorer of that number grows an animal herd
    val[:, 60:] = 2.0 + 2.0 * wild + 3.0 * want[:, 5, :]
    if focus is not None:
        val = val + focus_bonus * (SUIT[None, :] == focus[:, None])
    return val


def opponent_use(obs: Obs) -> np.ndarray:
    """float[n, 66]: 1 where a card grows an opponent's herd (explorers: as a wild too)."""
    want = wanted_ends(obs, 0)
    use = want[:, SUIT, NUM].astype(float)
    use[:, 60:] = np.maximum(use[:, 60:], want.any(axis=1))
    return use


def _pick(score: np.ndarray, legal: np.ndarray) -> np.ndarray:
    s = np.where(legal, score, NEG)
    return np.argmax(s, axis=1)


def choose(obs: Obs, legal: np.ndarray, val: np.ndarray, take_at: float, trade_at: float,
           lay_deck: int, wild_grow: bool, pass_score: np.ndarray, receiver: np.ndarray,
           lay_min_hand: int) -> np.ndarray:
    """The shared decision procedure; the strategies differ in the values they pass in.

    val: the player's value of each card; take_at: the least value of a grassland card worth
    taking over the deck; trade_at: the least value of a grassland card worth a trade for it;
    lay_deck: lay new herds only when the deck has at most this many cards (or the hand holds
    lay_min_hand cards or more); pass_score: higher = better to pass; receiver: offset to pass to.
    """
    n, w = legal.shape
    out = np.argmax(legal, axis=1)
    kind = obs.kind
    cards = np.zeros((n, w))
    cards[:, A_CARD0:A_CARD0 + NCARDS] = val
    # step two
    k = kind == K_STEP2
    if k.any():
        lg = legal[k]
        v = np.where(obs.grass[k], val[k], NEG)
        best = v.argmax(axis=1)
        bv = v.max(axis=1)
        # a trade for the best grassland card: give a held card of the same number worth less
        held_same = obs.hand[k][:, None, :] & (NUM[None, None, :] == NUM[best][:, None, None])
        cheap = np.where(held_same[:, 0], val[k], np.inf).min(axis=1)
        trade = lg[:, A_TRADE] & (bv >= trade_at) & (cheap + 1.0 < bv)
        a = np.where(bv >= take_at, A_CARD0 + best, A_DECK)
        a = np.where(lg[np.arange(len(a)), a], a, np.argmax(lg, axis=1))
        out[k] = np.where(trade, A_TRADE, a)
    # the trade's give: the cheapest card, then done as soon as it can be
    k = kind == K_GIVE
    if k.any():
        lg = legal[k]
        a = _pick(-cards[k], lg)
        out[k] = np.where(lg[:, A_GIVE_DONE], A_GIVE_DONE, a)
    # the trade's take: the most valuable card that still completes the total
    k = kind == K_TAKE
    if k.any():
        out[k] = _pick(cards[k], legal[k])
    # step three
    k = kind == K_HERD
    if k.any():
        lg = legal[k]
        ob = obs.take(np.flatnonzero(k))
        sc = np.full(lg.shape, NEG)
        sc[:, A_SWAP0:A_DONE] = 30.0
        # growing: with a real card always, with a wild explorer if wild_grow
        hc = hand_counts(ob.hand)
        h = np.arange(MAXH)
        suit = np.clip(ob.herd_suit.astype(np.int64), 0, 5)
        lo = ob.herd_lo.astype(np.int64) - 1
        hi = ob.herd_hi.astype(np.int64) + 1
        r = np.arange(len(lg))[:, None]
        real_lo = (lo >= 0) & (hc[r, suit, np.clip(lo, 0, 5)] > 0) & (suit < 5)
        real_hi = (hi <= 5) & (hc[r, suit, np.clip(hi, 0, 5)] > 0) & (suit < 5)
        grow = np.stack([real_lo | (suit == 5) | wild_grow, real_hi | (suit == 5) | wild_grow],
                        axis=2).reshape(len(lg), 2 * MAXH)
        sc[:, A_GROW0:A_GROW0 + 2 * MAXH] = np.where(grow, 20.0, NEG)
        lay = (ob.deck_left <= lay_deck) | (ob.hand.sum(axis=1) >= lay_min_hand)
        sc[:, A_NEW0:A_GROW0] = np.where(lay[:, None], 10.0, NEG)
        sc[:, A_DONE] = 0.0
        forced = ob.must != 0
        a = _pick(sc, lg)
        ok = lg[np.arange(len(a)), a] & ((sc[np.arange(len(a)), a] > NEG / 2) | forced)
        a = np.where(ok, a, np.where(lg[:, A_DONE], A_DONE, np.argmax(lg, axis=1)))
        out[k] = a
    # step four
    k = kind == K_PASS
    if k.any():
        ps = np.zeros((k.sum(), w))
        ps[:, A_CARD0:A_CARD0 + NCARDS] = pass_score[k]
        out[k] = _pick(ps, legal[k])
    k = kind == K_RECV
    if k.any():
        a = A_RECV0 + receiver[k] - 1
        lg = legal[k]
        out[k] = np.where(lg[np.arange(len(a)), np.clip(a, 0, w - 1)], a, np.argmax(lg, axis=1))
    return out


def leader_offset(obs: Obs) -> np.ndarray:
    """Offset (1..P-1) of the opponent whose side leads; the nearest to the left on ties."""
    p = obs.n_players
    offs = np.arange(1, p)
    opp = np.ones((len(obs.game), p - 1), bool)
    if obs.teams:
        opp &= (offs % 2 == 1)[None, :]
    key = np.where(opp, obs.totals[:, 1:].astype(float) * 10 - offs[None, :] * 0.01, NEG)
    return 1 + np.argmax(key, axis=1)


class Collector(Strategy):
    name = "collector"
    game = "herds"
    summary = "keeps runs of one animal, takes or trades for the number that extends them, passes what it values least"

    class Params(_Params):
        take_at: float = Field(2.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(3.0, description="least value of a grassland card worth a one-for-one trade of a held card of the same number")
        lay_deck: int = Field(20, description="hold cards: lay new herds only once the deck has at most this many cards...")
        lay_min_hand: int = Field(7, description="...or the hand holds at least this many cards")
        wild_grow: bool = Field(False, description="grow animal herds with explorers as wilds (they add no size)")

    def act(self, obs, legal, rng):
        q = self.params
        val = card_values(obs)
        return choose(obs, legal, val, q.take_at, q.trade_at, q.lay_deck, q.wild_grow, -val,
                      np.ones(len(obs.game), np.int64), q.lay_min_hand)


class Blocker(Strategy):
    name = "blocker"
    game = "herds"
    summary = "plays like the collector but passes the leading opponent cards that grow none of the opponents' herds"

    class Params(_Params):
        block: float = Field(5.0, description="weight against passing a card that grows an opponent's herd")
        take_at: float = Field(2.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(3.0, description="least value of a grassland card worth a trade")
        lay_deck: int = Field(20, description="hold cards: lay new herds once the deck has at most this many cards...")
        lay_min_hand: int = Field(7, description="...or the hand holds at least this many cards")

    def act(self, obs, legal, rng):
        q = self.params
        val = card_values(obs)
        ps = -val - q.block * opponent_use(obs)
        return choose(obs, legal, val, q.take_at, q.trade_at, q.lay_deck, False, ps,
                      leader_offset(obs), q.lay_min_hand)


class Sprinter(Strategy):
    name = "sprinter"
    game = "herds"
    summary = "picks the animal it holds the most numbers of and races for its 1-6 herd, laying and growing at once"

    class Params(_Params):
        focus_bonus: float = Field(3.0, description="extra value of a card of the chosen animal")
        take_at: float = Field(3.0, description="least value of a grassland card taken instead of the deck's top")
        trade_at: float = Field(4.0, description="least value of a grassland card worth a trade")
        lay_deck: int = Field(66, description="lay new herds once the deck has at most this many cards (66: at once)")
        wild_grow: bool = Field(True, description="grow with explorers as wilds to reach 1-6 sooner")

    def act(self, obs, legal, rng):
        q = self.params
        n = len(obs.game)
        hc = hand_counts(obs.hand)[:, :5] > 0
        own = np.zeros((n, 5, 6), bool)
        mine = (obs.herd_side == 1) & (obs.herd_suit < 5) & (obs.herd_suit >= 0)
        for n_ in range(6):
            has = mine & (obs.herd_lo <= n_) & (obs.herd_hi >= n_)
            for s in range(5):
                own[:, s, n_] |= (has & (obs.herd_suit == s)).any(axis=1)
        focus = (hc | own).sum(axis=2).argmax(axis=1)
        val = card_values(obs, focus, q.focus_bonus)
        return choose(obs, legal, val, q.take_at, q.trade_at, q.lay_deck, q.wild_grow, -val,
                      np.ones(n, np.int64), 0)


STRATEGIES = [Collector, Blocker, Sprinter]
BENCHMARK = {"strategy": "collector", "params": {}}

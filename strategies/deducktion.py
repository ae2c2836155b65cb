"""Deducktion strategies: a naive asker, a meld collector, and a deducer that tracks where every
card can be.

Places are bits of a per-card set: bit o is the hand of the player o seats to the left (bit 0:
this player), bit P the five missing cards, bit P + 1 the two-player reserve hand. ``track``
rebuilds, for every observed game at once, the set of places each card can be in from what the
seat has seen (its dealt hand, the face-up card, melds, every answer's count, the cards it passed
and received, its draws), then ``estimate`` spreads each card over its places so that every hand
holds its size and the box one card of each animal.
"""

from __future__ import annotations

import functools

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.deducktion import (A_ASK, A_CARD, A_GUESS, A_MELD, A_NO_GUESS, A_QUESTION,
                                         A_TARGET, BITS, DRAW_ZERO, GIVE, GUESS, MELD, NA, NC,
                                         NN, PASS,
                                         QBITS, QUESTION, TARGET, Obs, place_sizes, track)


from .base import Strategy, random_legal

QBITS_T = np.ascontiguousarray(QBITS.T.astype(np.float64))  # [30, 336]
RANK = BITS % NN
ANIMAL = BITS // NN
# the most questions three flipped cards allow (three explorers: 5 animals x 2 runs x 3 pairs;
# a test recounts it over every triple): the width of the deducer's ask draws, the same for every
# game whatever its own flipped cards or the other games allow
ASK_WIDTH = 30


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _rank_counts(hand: np.ndarray) -> np.ndarray:
    """int[n, 6]: cards of each number in the hand."""
    return hand.reshape(-1, NA, NN).sum(axis=1)


def estimate(obs: Obs, poss: np.ndarray, rounds: int = 4) -> np.ndarray:
    """float[n, 30, X]: chance that each card is in each place, spread so that rows sum to 1,
    each hand to its size and the box to one card of each animal (a few scaling rounds)."""
    P = obs.players
    X = P + 2 if P == 2 else P + 1
    w = ((poss[:, :, None] >> np.arange(X).astype(np.uint8)) & 1).astype(np.float64)
    size = place_sizes(obs)[:, None, :X].astype(np.float64)
    for _ in range(rounds):
        w = w / np.maximum(w.sum(axis=2, keepdims=True), 1e-12)
        col = w.sum(axis=1, keepdims=True)
        w = w * np.where(col > 0, size / np.maximum(col, 1e-12), 0)
        box = w[:, :, P].reshape(-1, NA, NN)
        box = box / np.maximum(box.sum(axis=2, keepdims=True), 1e-12)
        w[:, :, P] = box.reshape(-1, NC)
    return w / np.maximum(w.sum(axis=2, keepdims=True), 1e-12)


def _entropy(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return -(p * np.log2(p) + (1 - p) * np.log2(1 - p))


def _only(rng, rows: np.ndarray):
    """The seat streams of the observed games ``rows`` (indices into the observed games): a
    block of draws only some games' decision reads is drawn from those games' streams alone,
    so how far a game's stream moves at a decision never depends on the other games."""
    return rng.take(rows)


def _fewest_rank_card(hand: np.ndarray, rng) -> np.ndarray:
    """The card of the hand whose number the hand holds fewest of (ties at random: 30 draws,
    one per card)."""
    cnt = _rank_counts(hand)[:, RANK]
    key = np.where(hand, cnt + rng.random((len(hand), NC)) * 0.5, np.inf)
    return A_CARD + np.argmin(key, axis=1)


def _melds(obs: Obs, legal: np.ndarray, meld_at: int) -> np.ndarray:
    """Meld the number with most cards held when it has meld_at cards or this is the player's
    last turn, and (add_to_meld) add to an own meld at once; else ask."""
    cnt = _rank_counts(obs.hand)
    last = (obs.q_left // 3 <= obs.players)[:, None]
    legal_m = legal[:, A_MELD:A_MELD + NN]
    ok = legal_m & ((cnt >= meld_at) | last | (cnt < 3))
    return np.where(ok.any(axis=1), A_MELD + np.argmax(np.where(ok, cnt, -1), axis=1), A_ASK)


def _unseen_guess(obs: Obs, rows: np.ndarray, rng, max_unseen: int) -> np.ndarray:
    """Guess one of the animal's cards this player never saw, if at most max_unseen are left,
    for the observed games ``rows`` (6 draws each, from ``rng``: theirs)."""
    n = len(rows)
    a = obs.animal[rows].astype(np.int64)
    unseen = ~obs.seen[rows].reshape(n, NA, NN)[np.arange(n), a]     # [n, 6]
    k = unseen.sum(axis=1)
    pick = np.argmax(np.where(unseen, rng.random((n, NN)), -1), axis=1)
    return np.where((k >= 1) & (k <= max_unseen), A_GUESS + pick, A_NO_GUESS)


class DeducktionStrategy(Strategy):
    """The shipped strategies' base: each has a compiled twin (``policy()``: its kind and knobs
    for ``_deducktion_compiled.policy``), so a table of them plays whole games in one kernel
    (``play_compiled``); a subclass that overrides ``act`` (or a method named in
    ``twin_methods``) without its own ``policy`` is played through ``act``."""

    game = "deducktion"

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))


class Naive(DeducktionStrategy):
    name = "naive"
    summary = ("melds whenever it can, asks a random player a random allowed question, passes "
               "random cards, guesses among the cards it never saw")

    class Params(_Params):
        max_unseen: int = Field(6, ge=1, le=6, description=(
            "guess an animal's missing card only when at most this many of its cards were never "
            "seen (6: always guess)"))

    def act(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        out = random_legal(legal, rng)
        meld = obs.kind == MELD
        if meld.any():
            first = np.argmax(legal[:, A_MELD:A_MELD + NN], axis=1)
            out = np.where(meld, np.where(legal[:, A_MELD:A_MELD + NN].any(axis=1),
                                          A_MELD + first, A_ASK), out)
        g = np.flatnonzero(obs.kind == GUESS)
        if g.size:
            out[g] = _unseen_guess(obs, g, _only(rng, g), self.params.max_unseen)
        return out

    def policy(self):
        return K_NAIVE, (self.params.max_unseen,)


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

    def act(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        """One draw (random_legal) for every game, then a block only for the games at the
        decision that reads it: P - 1 at TARGET, 336 at QUESTION, 30 at PASS / GIVE, 6 at
        GUESS."""
        out = random_legal(legal, rng)
        k = obs.kind
        if (k == MELD).any():
            out = np.where(k == MELD, _melds(obs, legal, self.params.meld_at), out)
        t = np.flatnonzero(k == TARGET)
        if t.size:
            sizes = obs.hand_size[t, 1:] + _only(rng, t).random((t.size, obs.players - 1)) * 0.5
            out[t] = A_TARGET + np.argmax(sizes, axis=1)
        q = np.flatnonzero(k == QUESTION)
        if q.size:
            hand, seen, table = obs.hand[q], obs.seen[q], obs.table[q]
            cnt = _rank_counts(hand)[:, RANK].astype(np.float64)              # [m, 30]
            free = ~seen | (~hand & (table < 0) & seen)
            val = np.where(free & ~hand & (table < 0), cnt, 0.0)
            score = val @ QBITS_T                                             # [m, 336]
            noise = _only(rng, q).random((q.size, score.shape[1])) * 0.1
            score = np.where(obs.allowed[q], score + noise, -1)
            out[q] = A_QUESTION + np.argmax(score, axis=1)
        pg = np.flatnonzero((k == PASS) | (k == GIVE))
        if pg.size:
            out[pg] = _fewest_rank_card(obs.hand[pg], _only(rng, pg))
        g = np.flatnonzero(k == GUESS)
        if g.size:
            out[g] = _unseen_guess(obs, g, _only(rng, g), self.params.max_unseen)
        return out

    def policy(self):
        return K_COLLECTOR, (self.params.meld_at, self.params.max_unseen)


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

    def _scores(self, obs: Obs, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(questions int[n, K], value float[n, P - 1, K]): the allowed questions of each game
        (padded) and the value of asking the player o + 1 to the left each of them: the bits
        of uncertainty the answer (and the cards seen) removes, plus meld_weight times the
        expected cards toward melds."""
        P = obs.players
        allowed = obs.allowed
        K = max(int(allowed.sum(axis=1).max(initial=1)), 1)
        qs = np.argsort(~allowed, axis=1, kind="stable")[:, :K]
        ok = np.take_along_axis(allowed, qs, axis=1)
        pt = w[:, :, 1:P]                                                    # [n, 30, P-1]
        cnt = _rank_counts(obs.hand)[:, RANK].astype(np.float64)
        per_card = _entropy(pt) + self.params.meld_weight * (np.minimum(cnt, 2.0) / 2.0)[:, :, None] * pt
        value = np.matmul(QBITS[qs].astype(np.float64), per_card).transpose(0, 2, 1)
        dw = self.params.draw_weight
        if P == 2 and dw > 0:
            # the chance of a zero answer (cards taken as independent), multiplied in card order
            draws = (obs.reserve_rule == DRAW_ZERO) & (obs.draw_left > 0)
            qb = QBITS[qs]                                                   # [n, K, 30]
            z = np.ones(qb.shape[:2])
            for c in range(NC):
                z = np.where(qb[:, :, c], z * (1.0 - pt[:, c, 0][:, None]), z)
            value = value + np.where(draws[:, None], dw * z, 0.0)[:, None, :]
        return qs, np.where(ok[:, None, :], value, -np.inf)

    def act(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        """One draw (random_legal) for every game, then 30 for each game at PASS / GIVE and
        (P - 1) x ASK_WIDTH for each at TARGET or QUESTION (draw o * ASK_WIDTH + j: opponent o,
        allowed question j); none at GUESS."""
        out = random_legal(legal, rng)
        k = obs.kind
        if (k == MELD).any():
            out = np.where(k == MELD, _melds(obs, legal, self.params.meld_at), out)
        pg = np.flatnonzero((k == PASS) | (k == GIVE))
        if pg.size:
            out[pg] = _fewest_rank_card(obs.hand[pg], _only(rng, pg))
        need = np.flatnonzero((k == TARGET) | (k == QUESTION) | (k == GUESS))
        if not need.size:
            return out
        sub = obs.take(need)
        m = need.size
        w = estimate(sub, track(sub))
        ks = sub.kind
        ask = np.flatnonzero((ks == TARGET) | (ks == QUESTION))
        if ask.size:
            aobs = sub.take(ask)
            qs, s = self._scores(aobs, w[ask])
            K = s.shape[2]
            assert K <= ASK_WIDTH, K
            u = _only(rng, need[ask]).random((ask.size, (obs.players - 1) * ASK_WIDTH))
            s = s + u.reshape(ask.size, obs.players - 1, ASK_WIDTH)[:, :, :K] * 1e-6
            best = s.reshape(ask.size, -1).argmax(axis=1)
            t = np.clip(aobs.target.astype(np.int64) - 1, 0, obs.players - 2)
            q = np.take_along_axis(qs, s[np.arange(ask.size), t].argmax(axis=1)[:, None],
                                   axis=1)[:, 0]
            out[need[ask]] = np.where(aobs.kind == TARGET, A_TARGET + best // K, A_QUESTION + q)
        g = np.flatnonzero(ks == GUESS)
        if g.size:
            a = np.maximum(sub.animal[g].astype(np.int64), 0)
            pm = w[g, :, obs.players].reshape(g.size, NA, NN)[np.arange(g.size), a]   # [., 6]
            best = pm.argmax(axis=1)
            sure = pm.max(axis=1) >= self.params.guess_at
            out[need[g]] = np.where(sure, A_GUESS + best, A_NO_GUESS)
        return out

    twin_methods = ("_scores",)

    def policy(self):
        return K_DEDUCER, (self.params.guess_at, self.params.meld_weight, self.params.meld_at,
                           self.params.draw_weight)


K_NAIVE, K_COLLECTOR, K_DEDUCER = range(3)


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _deducktion_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Naive, Collector, Deducer]
# the bench's mixed table: the three heuristics (with their compiled twins the deducer, which
# rebuilds its card sets from the whole history at each look, no longer needs leaving out)
BENCHMARK = {"strategy": "naive", "params": {}, "players": 4,
             "mix": [["naive", {}], ["collector", {}], ["deducer", {}]]}

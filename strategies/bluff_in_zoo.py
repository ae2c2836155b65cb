"""Bluff in Zoo strategies: how people actually play it.

Every turn is a few small decisions: doubt the last claim or go on, which card to place (a hand
card, the draw pile's top card, or none), how many animals to claim, and which animal. The
strategies share one piece of arithmetic, ``PileModel.odds``: the chance that the discard pile
holds at least c animals of a kind, from the cards the player put there itself plus the cards
the others put there (a normal approximation, mixed over whether the action cards are in force):
each of those backs its player's last claim with chance ``trust``, else is a random card among
those whose place the player does not know; how much of the doubted piles it remembers is
``recall``. Each strategy's ``summary`` says what it does.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.engine.protocol import read_only
from safari_sim.games.bluff_in_zoo import (ALL_EQUAL, ANIMAL, CONTINUE, COUNT, COUNT_ONE, DOUBT,
                                           HAND0, KIND, RESPOND, SOURCE, STOP, WILD, Obs)

from .base import Strategy


# How much of the doubted piles a player remembers by default: see docs/rules/bluff_in_zoo.md
RECALL = 0.5


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- what a card is worth to a claim ---------------------------------------------------------

@lru_cache(maxsize=16)
def _face(t_cls: bytes, t_kind: bytes, t_val: bytes, n_kinds: int) -> np.ndarray:
    cls = np.frombuffer(t_cls, np.int64)
    kind = np.frombuffer(t_kind, np.int64)
    val = np.frombuffer(t_val, np.int64).astype(np.float64)
    counts = (cls == WILD) | ((cls == ANIMAL) & (kind == np.arange(n_kinds)[:, None]))
    return read_only(counts * val)   # cached and shared by every call: nobody may write into it


@lru_cache(maxsize=16)
def _backs_table(t_cls: bytes, t_kind: bytes, t_val: bytes, n_kinds: int) -> np.ndarray:
    return read_only((_face(t_cls, t_kind, t_val, n_kinds) > 0).astype(np.float32))


def _backs(obs: Obs) -> np.ndarray:
    """float32[K, T]: 1 where a card of type t backs a claim of kind k (its animal, or wild)."""
    return _backs_table(obs.t_cls.tobytes(), obs.t_kind.tobytes(), obs.t_val.tobytes(),
                        obs.n_kinds)


def face_value(obs: Obs) -> np.ndarray:
    """float[K, T]: animals of kind k a card of type t shows with no action card in force (wild
    cards count for every kind)."""
    return _face(obs.t_cls.tobytes(), obs.t_kind.tobytes(), obs.t_val.tobytes(), obs.n_kinds)


def _type_of(obs: Obs, cls: int) -> int:
    return int(np.flatnonzero(obs.t_cls == cls)[0])


def _moments(obs: Obs, x: np.ndarray, power: int) -> np.ndarray:
    """float[n, 4, K]: sum over card types of x[:, t] * (animals of kind k on t) ** power, in the
    four action-card states s = 2 * one + equal."""
    k = obs.n_kinds
    nv = int((obs.t_cls == ANIMAL).sum()) // k
    val = obs.t_val.astype(np.float64)
    animal = x[:, :k * nv].reshape(-1, k, nv)
    wild = x[:, k * nv:][:, obs.t_cls[k * nv:] == WILD]
    wval = val[k * nv:][obs.t_cls[k * nv:] == WILD]
    by_val = (animal * val[:nv] ** power).sum(axis=2)     # [n, K] counting the animals shown
    by_card = animal.sum(axis=2)                          # [n, K] counting 1 per card
    w_val = (wild * wval ** power).sum(axis=1)[:, None]
    w_card = wild.sum(axis=1)[:, None]
    out = np.empty((x.shape[0], 4, k))
    out[:, 0] = by_val + w_val                                  # printed values, own kind
    out[:, 1] = by_val.sum(axis=1, keepdims=True) + w_val       # all animals are equal
    out[:, 2] = by_card + w_card                                # all cards count 1
    out[:, 3] = by_card.sum(axis=1, keepdims=True) + w_card     # both
    return out


_TABLES: dict[bytes, np.ndarray] = {}


def moments(obs: Obs, x: np.ndarray, power: int) -> np.ndarray:
    """``_moments`` as one matrix product (the map is linear in x; the table is built once).

    The product is taken in float64 and rounded once to x's dtype: the table holds small whole
    numbers and x float32 values, so every product and every sum of them is exact in float64 and
    each row gets the correctly rounded result, whatever rows share the product. (A float32
    product through BLAS sums in an order that depends on where a row sits in the matrix, which
    made a game's moves depend on the other games of its batch; and the compiled twins compute
    the same numbers one game at a time.)"""
    key = obs.t_cls.tobytes() + obs.t_val.tobytes() + bytes([obs.n_kinds, power])
    table = _TABLES.get(key)
    if table is None:
        nt = len(obs.t_cls)
        table = _TABLES[key] = _moments(obs, np.eye(nt), power).reshape(nt, -1)
    wide = np.empty((x.shape[0], table.shape[1]), np.float64)
    # In slices of 512 rows: a bigger product makes OpenBLAS start threads, which costs far more
    # than it saves on a 20-column matrix (and fights the runner's worker processes).
    for i in range(0, x.shape[0], 512):
        np.matmul(x[i:i + 512], table, out=wide[i:i + 512])
    return wide.astype(x.dtype).reshape(x.shape[0], 4, obs.n_kinds)


def normal_cdf(z: np.ndarray) -> np.ndarray:
    """Phi(z) to within 3e-4 (the tanh form), in float32: twenty times faster than scipy's ndtr
    and exact enough for a player's estimate."""
    return 0.5 + 0.5 * np.tanh(np.float32(0.7978846) * (z + np.float32(0.044715) * z * z * z))


def remembered_unseen(obs: Obs, recall: float) -> np.ndarray:
    """float32[n, T]: the cards whose place this player does not know, for a player who
    remembers a share ``recall`` of the cards the doubts have shown (the point cards): a
    forgotten shown card is, to it, one more card that could be anywhere."""
    unseen = obs.unseen.astype(np.float32)
    if recall < 1:
        unseen = unseen + np.float32(1 - recall) * obs.revealed.astype(np.float32)
    return unseen


class PileModel:
    """What this player can say about the discard pile: its own cards there are known; every
    card another player put there is, with chance ``trust``, a card backing the animal that
    player claimed last this round (people claim what they placed), else a random card among
    those whose place it does not know (``remembered_unseen``, with ``recall``). The count of
    each kind is approximated by a normal law in each of the four action-card states, mixed by
    their chances."""

    def __init__(self, obs: Obs, trust: float = 0.0, recall: float = 1.0):
        f4 = np.float32
        n = len(obs.game)
        unseen = remembered_unseen(obs, recall)
        q = unseen / np.maximum(unseen.sum(axis=1, keepdims=True), f4(1))
        m = obs.pile_by[:, 1:].astype(f4)                   # [n, O] cards of each other player
        said = obs.said_k[:, 1:].astype(np.int64)          # [n, O] the kind each claimed last
        if trust and m.shape[1]:
            backs = _backs(obs)                            # [K, T] animal of kind k or wild
            qs = unseen[:, None, :] * backs[np.maximum(said, 0)]
            tot = qs.sum(axis=2, keepdims=True)
            use = (said >= 0)[:, :, None] & (tot > 0)      # a claim, and unseen cards to back it
            # the mixture (1 - trust) q + trust qs / tot, scaled per player rather than per card
            keep = np.where(use, 1 - f4(trust), f4(1))
            lean = np.where(use, f4(trust) / np.maximum(tot, f4(1e-9)), f4(0))
            qo = keep * q[:, None, :] + lean * qs
        else:
            qo = np.broadcast_to(q[:, None, :], (n, m.shape[1], q.shape[1]))
        qo = qo.astype(f4, copy=False)

        def absent(t):  # chance that no card of type t is among the others' pile cards
            return np.prod((1 - qo[:, :, t]) ** m, axis=1)

        p_one = np.where(obs.my_pile[:, _type_of(obs, COUNT_ONE)] > 0, f4(1),
                         1 - absent(_type_of(obs, COUNT_ONE)))
        p_eq = np.where(obs.my_pile[:, _type_of(obs, ALL_EQUAL)] > 0, f4(1),
                        1 - absent(_type_of(obs, ALL_EQUAL)))
        s = _type_of(obs, STOP)
        odd_unk = (1 - np.prod((1 - 2 * qo[:, :, s]) ** m, axis=1)) / 2
        # an odd number of stop cards cancels the action cards
        p_even = np.where(obs.my_pile[:, s] % 2 == 1, odd_unk, 1 - odd_unk)
        w = np.empty((n, 4), f4)
        w[:, 3] = p_one * p_eq * p_even
        w[:, 2] = p_one * (1 - p_eq) * p_even
        w[:, 1] = (1 - p_one) * p_eq * p_even
        w[:, 0] = 1 - w[:, 1:].sum(axis=1)
        cards = np.einsum("no,not->nt", m, qo)             # expected others' cards by type
        mean = moments(obs, obs.my_pile.astype(f4) + cards, 1)
        mu_o = moments(obs, np.ascontiguousarray(qo.reshape(-1, qo.shape[2])), 1)
        mu_o = mu_o.reshape(n, m.shape[1], 4, obs.n_kinds)
        var = moments(obs, cards, 2) - np.einsum("no,nosk->nsk", m, mu_o * mu_o)
        self.weights = w
        # odds() needs z = (mean + extra + 0.5 - count) / sd
        self.inv_sd = 1 / np.sqrt(np.maximum(var, f4(1e-6)))
        self.z0 = (mean + f4(0.5)) * self.inv_sd

    def odds(self, count: np.ndarray, extra: np.ndarray | float = 0.0) -> np.ndarray:
        """float[n, K]: chance that the pile holds at least ``count[:, k]`` animals of kind k,
        believing in ``extra[:, k]`` more animals than the cards say."""
        d = np.asarray(extra, np.float32) - np.asarray(count, np.float32)
        p = normal_cdf(self.z0 + d[:, None, :] * self.inv_sd)
        return np.einsum("ns,nsk->nk", self.weights, p)

    def odds_of(self, kind: np.ndarray, count: np.ndarray, extra: np.ndarray | float = 0.0
                ) -> np.ndarray:
        """float[n]: ``odds`` for one kind per row."""
        rows = np.arange(len(kind))
        inv = self.inv_sd[rows, :, kind]
        d = np.asarray(extra, np.float32) - np.asarray(count, np.float32)
        p = normal_cdf(self.z0[rows, :, kind] + d[:, None] * inv)
        return (self.weights * p).sum(axis=1)


def current_claim_odds(obs: Obs, model: PileModel) -> np.ndarray:
    """float[n]: chance that the last claim is true (1 where there is none)."""
    kind = np.maximum(obs.claim_k, 0).astype(np.int64)
    p = model.odds_of(kind, obs.claim_n)
    return np.where(obs.claim_n > 0, p, 1.0)


def best_hand_support(obs: Obs) -> np.ndarray:
    """float[n, K]: the most animals of each kind one hand card shows (what placing it adds:
    its own kind's animals, or a wild card's)."""
    k = obs.n_kinds
    nv = int((obs.t_cls == ANIMAL).sum()) // k
    animal = obs.hand[:, :k * nv].reshape(-1, k, nv)
    best = np.zeros(animal.shape[:2], np.float32)
    for v in range(nv):  # a few values: plain maxima beat a reduction over a short axis
        best = np.maximum(best, (animal[:, :, v] > 0) * np.float32(obs.t_val[v]))
    for t in np.flatnonzero(obs.t_cls == WILD):
        best = np.maximum(best, ((obs.hand[:, t] > 0) * np.float32(obs.t_val[t]))[:, None])
    return best


def safest_raise(obs: Obs, model: PileModel, extra: np.ndarray | float = 0.0
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(count, kind, odds): the smallest legal claim of the kind most likely to be true."""
    low = obs.min_raise()
    odds = model.odds(low, extra)
    odds = np.where(low > obs.max_claim, -1.0, odds)
    kind = np.argmax(odds, axis=1)
    rows = np.arange(len(kind))
    return low[rows, kind], kind, odds[rows, kind]


def highest_believed(obs: Obs, model: PileModel, belief: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(count, kind, found): the highest legal claim (in the game's order: more animals, then a
    bigger animal) that is true with chance ``belief`` or more; ``found`` False where none is."""
    low = obs.min_raise().astype(np.int64)                # [n, K]; cap + 1: kind closed
    cap = obs.max_claim
    ok = (low <= cap) & (model.odds(np.minimum(low, cap)) >= belief)
    # the round's first claim names exactly first_claim animals
    lo, hi = low.copy(), np.where(obs.claims[:, None] == 0, low, cap)
    # odds fall as the count rises: bisect for the last count still believed, every kind at once
    while True:
        open_ = ok & (lo < hi)
        if not open_.any():
            break
        mid = (lo + hi + 1) // 2
        good = model.odds(mid) >= belief
        lo = np.where(open_ & good, mid, lo)
        hi = np.where(open_ & ~good, mid - 1, hi)
    best = np.where(ok, lo, -1)
    # the highest claim: most animals, and of those the biggest animal
    kind = obs.n_kinds - 1 - np.argmax(best[:, ::-1], axis=1)
    rows = np.arange(len(kind))
    return best[rows, kind], kind, ok.any(axis=1)


def supporting_card(obs: Obs, legal: np.ndarray, kind: np.ndarray, junk: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(action, support): the hand card showing the most animals of ``kind`` (wild cards fit any
    claim), or with ``junk`` the one showing the fewest; support -inf where the hand is empty."""
    support = face_value(obs)[kind]                       # [n, T]
    support = support + (obs.t_cls == WILD) * 0.5         # keep options open: wild fits any claim
    ok = legal[:, HAND0:HAND0 + len(obs.t_cls)]
    score = np.where(ok, -support if junk else support, -np.inf)
    t = np.argmax(score, axis=1)
    rows = np.arange(len(t))
    return HAND0 + t, np.where(ok[rows, t], support[rows, t], -np.inf)


class _BluffStrategy(Strategy):
    """Dispatches each decision kind to ``respond``, ``source``, ``claim`` (the number) and
    ``name`` (the animal).

    The shipped ones also have a compiled twin (``policy``: its number and knobs for
    strategies/_bluff_in_zoo_compiled.py), so a table of them plays whole games in one kernel;
    a subclass that overrides ``act`` or a method the twin was written from (``twin_methods``)
    is played through ``act`` unless it also overrides ``policy``."""

    game = "bluff_in_zoo"

    twin_methods = ("model", "must_doubt", "doubts", "respond", "source", "claim", "name_kind")

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def _knobs(self) -> tuple[float, ...]:
        p = self.params
        return p.doubt_at, p.trust, p.recall, p.draw_rate

    def act(self, obs, legal, rng):
        out = np.empty(len(obs.game), np.int64)
        # every draw of this decision at once: one row per observed game, as SeatRandom wants
        u = rng.random((len(out), 2))
        for kind, fn in ((RESPOND, self.respond), (SOURCE, self.source), (COUNT, self.claim),
                         (KIND, self.name_kind)):
            idx = np.flatnonzero(obs.kind == kind)
            if idx.size:
                sub = obs if idx.size == len(out) else obs.take(idx)
                out[idx] = fn(sub, legal[idx], u[idx], self.model(sub))
        return out

    def model(self, obs):
        return PileModel(obs, self.params.trust, self.params.recall)

    @staticmethod
    def must_doubt(legal, doubt):
        """Doubt where asked to, and where no bigger claim is left to make."""
        return np.where(doubt | ~legal[:, CONTINUE], DOUBT, CONTINUE)

    def doubts(self, obs, model):
        """Where the chance that the last claim is false passes ``doubt_at``."""
        false = 1.0 - current_claim_odds(obs, model)
        return false > self.params.doubt_at

    def respond(self, obs, legal, u, model):
        """Doubt exactly the claims it thinks false (``doubt_at``), or when nothing is left to
        claim; go on otherwise."""
        return self.must_doubt(legal, self.doubts(obs, model))

    def source(self, obs, legal, u, model, junk=False, skip_rate=0.0):
        """Place the hand card that best supports the claim it means to make (or, with ``junk``,
        the least useful one); draw unseen instead with chance ``draw_rate`` or where no hand card
        helps; no card with chance ``skip_rate`` (never on the round's first move)."""
        n = len(obs.game)
        _, kind, _ = safest_raise(obs, model, best_hand_support(obs))
        card, support = supporting_card(obs, legal, kind, junk)
        if junk:  # the junk is placed on purpose: the bluff is in the claim, not the card
            support = np.where(np.isfinite(support), 1.0, support)
        can_draw = legal[:, obs.draw_action]
        has_card = np.isfinite(support)
        draw = can_draw & ((u[:, 0] < self.params.draw_rate) | ~has_card | (support <= 0))
        a = np.where(draw, obs.draw_action, card)
        a = np.where(~draw & ~has_card, obs.no_card_action, a)
        skip = legal[:, obs.no_card_action] & (u[:, 1] < skip_rate)
        return np.where(skip, obs.no_card_action, a)

    def claim(self, obs, legal, u, model):
        """The smallest raise, of the kind most likely to be there."""
        count, _, _ = safest_raise(obs, model)
        return obs.count_action(count)

    @staticmethod
    def name_kind(obs, legal, u, model):
        """The animal most likely to be there in the number just named."""
        count = np.repeat(obs.pending[:, None], obs.n_kinds, axis=1)
        odds = model.odds(count)
        ok = legal[:, obs.kind0:obs.kind0 + obs.n_kinds]
        return obs.kind0 + np.argmax(np.where(ok, odds, -1.0), axis=1)


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

    def policy(self):
        return K_HONEST, self._knobs() + (self.params.belief,)

    def claim(self, obs, legal, u, model):
        count, _, found = highest_believed(obs, model, self.params.belief)
        low, _, _ = safest_raise(obs, model)
        return obs.count_action(np.where(found, count, low))


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

    def policy(self):
        return K_BLUFFER, self._knobs() + (self.params.bluff_rate, self.params.bluff_raise)

    def source(self, obs, legal, u, model):
        return super().source(obs, legal, u, model, junk=True)

    def claim(self, obs, legal, u, model):
        count, _, _ = safest_raise(obs, model)
        bluff = (u[:, 0] < self.params.bluff_rate) & (obs.claims > 0)
        count = np.where(bluff, np.minimum(count + self.params.bluff_raise, obs.max_claim), count)
        return obs.count_action(count)


class Doubter(_BluffStrategy):
    name = "doubter"
    summary = ("doubts every claim it thinks false with chance over `doubt_at` 0.3 (more than "
               "`honest`, at 0.5); otherwise the smallest raise, with chance `skip_rate` placing "
               "no card")

    class Params(_Common):
        doubt_at: float = _doubt_at(0.3)
        skip_rate: float = Field(0.25, ge=0, le=1, description=(
            "chance of claiming without placing a card (when allowed): keeps the pile small"))

    def policy(self):
        return K_DOUBTER, self._knobs() + (self.params.skip_rate,)

    def source(self, obs, legal, u, model):
        return super().source(obs, legal, u, model, skip_rate=self.params.skip_rate)


K_HONEST, K_BLUFFER, K_DOUBTER = range(3)


@lru_cache(maxsize=None)
def _compiled():
    from . import _bluff_in_zoo_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Honest, Bluffer, Doubter]
BENCHMARK = {"strategy": "doubter", "params": {}}

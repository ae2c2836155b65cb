"""Animal Hunt strategies: how people play a memory game, and how much they remember.

Every strategy has ``recall``: 1 is a perfect memory (it uses all the public history the
observation holds); below 1 each remembered fact (the kind seen at a place of the hunting ground,
a player seen not to hold a kind: asked for it in vain, or asking for it) is forgotten with
probability 1 - recall after each turn, drawn from the seat's own stream. The memory lives in per-game arrays (one row per game and seat) made in
``reset``. A card face up now, the player's own hand, the pairs made and the duckies are in plain
sight and never forgotten.

Observations are rotated: index 0 is the player, index o the player o seats to the left (the ask
actions name the same offsets). Places of the hunting ground are shuffled at the deal, so "the
lowest-numbered card never seen" is as good as a random unknown card.
"""

from __future__ import annotations

import functools

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.animal_hunt import FLIP, Obs

from .base import Strategy


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


RECALL = Field(1.0, ge=0, le=1, description=(
    "memory: 1 remembers everything seen; below 1 each remembered fact is forgotten with "
    "probability 1 - recall after each turn"))


class Memory:
    """What each seat remembers, per (game, seat) row: the kind seen at each place and who is
    known to lack which kind, with the turn of the last update."""

    def __init__(self, recall: float):
        self.recall = float(recall)
        # chance that a fact survives a turns: recall ** a (a table: cheaper than a power per fact)
        self.survive = self.recall ** np.arange(1 << 15, dtype=np.float64)
        self.batch = self.players = 0
        self.facts = self.turn = None

    def reset(self, batch: int, n_players: int) -> None:
        self.batch, self.players = batch, n_players
        self.facts = self.turn = None  # sized at the first observation

    def recall_now(self, obs: Obs, rng) -> tuple[np.ndarray, np.ndarray]:
        """(known int8[n, G], lacks bool[n, P, K]) as this seat remembers them now; ``lacks``:
        the player was seen not to hold the kind (``obs.not_holding``)."""
        if self.recall >= 1.0:
            return obs.known, obs.not_holding >= 0
        n, g = obs.known.shape
        p, k = obs.lack.shape[1:]
        if self.facts is None:
            # per (game, seat): whether each fact (places, then who lacks what) is remembered
            self.facts = np.zeros((self.batch * self.players, g + p * k), np.bool_)
            self.turn = np.zeros(self.batch * self.players, np.int32)
        rows = obs.game * self.players + obs.seat
        # the turn each fact was last learned (-1 never): a fact learned since the last update
        # is remembered from that turn on, one already remembered survives each turn since with
        # probability recall; a place whose card is gone is forgotten
        learned = np.concatenate((obs.seen, obs.not_holding.reshape(n, -1)), axis=1)
        t1 = obs.turn.astype(np.int32)[:, None]
        t0 = self.turn[rows][:, None]
        fresh = learned >= t0
        age = np.where(fresh, t1 - learned, t1 - t0)
        had = self.facts[rows]
        had[:, :g] &= obs.down
        keep = (fresh | had) & (rng.random((n, g + p * k)) < self.survive[age])
        self.facts[rows] = keep
        self.turn[rows] = t1[:, 0]
        return np.where(keep[:, :g], obs.known, -1).astype(np.int8), keep[:, g:].reshape(n, p, k)


def kind_counts(known: np.ndarray, kinds: int) -> np.ndarray:
    """int[n, K]: remembered face-down places of each kind (one bincount, -1 in its own bin)."""
    n = known.shape[0]
    flat = known.astype(np.int64) + (np.arange(1, n * (kinds + 1), kinds + 1))[:, None]
    return np.bincount(flat.ravel(), minlength=n * (kinds + 1)).reshape(n, kinds + 1)[:, 1:]


def row_take(table: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """table[i, idx[i, j]] for every row i (a gather in the flattened table; idx >= 0)."""
    n, k = table.shape
    flat = idx.astype(np.intp)
    flat += (np.arange(n, dtype=np.intp) * k)[:, None]
    return table.reshape(-1)[flat]


def candidates(obs: Obs, counts: np.ndarray) -> np.ndarray:
    """bool[n, K]: kinds that may be in an opponent's hand: not paired yet, not in this hand,
    not remembered at two places of the hunting ground."""
    return (obs.scored < 0) & ~obs.hand & (counts < 2)


def _rates(obs: Obs, size: np.ndarray) -> np.ndarray:
    """float32[n, P]: the chance that an opponent holds any one kind it may hold, when ``size``
    candidate kinds may be in its hand: its hand size over that (0 for the player itself)."""
    h = obs.hand_size.astype(np.float32)
    rate = h / np.maximum(np.maximum(size, h), 1).astype(np.float32)
    rate[:, 0] = 0.0
    return rate


def holder_best(obs: Obs, lacks: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """float32[n, K]: the chance that the likeliest opponent holds each kind, from what is
    remembered (``counts``: ``kind_counts`` of the remembered places): a kind not paired, not in
    this hand and not remembered twice in the hunting ground is in some hand or still twice in
    the ground; each opponent holds each kind it was not seen not to hold alike, as many as its
    hand size; the chances of one kind add up to 1 at most."""
    cand = candidates(obs, counts)
    pool = cand[:, None, :] & ~lacks                                     # [n, P, K]
    rate = _rates(obs, np.count_nonzero(pool, axis=2))
    best = np.zeros(cand.shape, np.float32)
    total = np.zeros(cand.shape, np.float32)
    for o in range(1, pool.shape[1]):  # a few opponents: [n, K] at a time
        w = pool[:, o, :] * rate[:, o:o + 1]
        np.maximum(best, w, out=best)
        total += w
    return best / np.maximum(total, np.float32(1.0))


def ask_chance(obs: Obs, lacks: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """float32[n, P]: the chance that each player holds the kind flipped this turn (the model of
    ``holder_best``, for one kind)."""
    cand = candidates(obs, counts)
    n = len(cand)
    size = np.count_nonzero(cand, axis=1)[:, None] - np.count_nonzero(cand[:, None, :] & lacks,
                                                                      axis=2)
    k1 = np.maximum(obs.first_kind, 0).astype(np.int64)
    w = (cand[np.arange(n), k1][:, None] & ~lacks[np.arange(n), :, k1]) * _rates(obs, size)
    return w / np.maximum(w.sum(axis=1, keepdims=True), np.float32(1.0))


def first_true(mask: np.ndarray, u: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(index of the first True in each row, whether there is one); with uniforms ``u`` (same
    shape) a True chosen at random instead."""
    if u is not None:
        return np.argmax(np.where(mask, u + 1.0, 0.0), axis=1), mask.any(axis=1)
    return np.argmax(mask, axis=1), mask.any(axis=1)


def first_unknown(obs: Obs, known: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
    """A face-down card not remembered (else any face-down card): the first one, or with
    uniforms ``u`` [n, G] one at random. The first is as good as any for a perfect memory (no one
    has seen those places, which were shuffled), not for a forgetful one: the first place it
    forgot is most likely one everybody else remembers."""
    unk, has_unk = first_true(obs.down & (known < 0), u)
    return np.where(has_unk, unk, first_true(obs.down, u)[0])


def pair_flip_or(obs: Obs, known: np.ndarray, counts: np.ndarray,
                 otherwise: np.ndarray) -> np.ndarray:
    """The first card of a turn when a sure pair is remembered: the match of a card in the hand,
    else one of a remembered twin (a kind remembered at two places); else ``otherwise``."""
    # 2: a kind in the hand (its match lies in the ground), 1: a kind remembered twice
    want = np.where(obs.hand, np.int8(2), (counts >= 2).astype(np.int8))
    at = np.where(known >= 0, row_take(want, np.maximum(known, 0)), np.int8(0))
    best = np.argmax(at, axis=1)
    return np.where(at[np.arange(len(best)), best] > 0, best, otherwise)


def show_twin_or(obs: Obs, known: np.ndarray, otherwise: np.ndarray) -> np.ndarray:
    """Once a card is face up: show its match when it is in the hand (A), else flip its
    remembered twin (C); else ``otherwise``."""
    twin, has_twin = twin_of_first(obs, known)
    held = obs.hand[np.arange(len(obs.game)), np.maximum(obs.first_kind, 0)]
    return np.where(held, obs.show_action(), np.where(has_twin, twin, otherwise))


def twin_of_first(obs: Obs, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The remembered other place of the kind flipped this turn (and whether there is one)."""
    g = known.shape[1]
    other = (known == obs.first_kind[:, None]) & (np.arange(g)[None, :] != obs.first[:, None])
    return first_true(other & obs.down)


def other_unknown(obs: Obs, known: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
    """Like ``first_unknown``, other than the card flipped this turn."""
    g = known.shape[1]
    other = obs.down & (np.arange(g)[None, :] != obs.first[:, None])
    unk, has = first_true(other & (known < 0), u)
    anyo, _ = first_true(other, u)
    return np.where(has, unk, anyo)


def best_asked(chance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(offset of the opponent most likely to hold the flipped kind, that chance), from
    ``ask_chance``."""
    o = 1 + np.argmax(chance[:, 1:], axis=1)
    return o, chance[np.arange(len(o)), o]


class HuntStrategy(Strategy):
    """Two decisions, two methods: ``flip`` (the first card of a turn) and ``choose`` (A, B or
    C once a card is face up), each on its rows with what the seat remembers.

    The shipped ones also have a compiled twin (``policy()``: its number, knobs and memory for
    ``strategies/_animal_hunt_compiled.py``), so a table of them plays whole games in one
    kernel; a subclass that overrides ``act`` or one of ``twin_methods`` is played through
    ``act`` unless it also overrides ``policy``."""

    game = "animal_hunt"

    twin_methods = ("flip", "choose", "draws", "pick", "counts", "reset")

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def __init__(self, **params):
        super().__init__(**params)
        self.memory = Memory(self.params.recall)

    def reset(self, batch: int, n_players: int) -> None:
        self.memory.reset(batch, n_players)

    def counts(self, obs: Obs, known: np.ndarray) -> np.ndarray:
        """int[n, K]: remembered face-down places of each kind (with a perfect memory, the
        observation's own summary)."""
        return obs.known_count if self.memory.recall >= 1.0 else kind_counts(known, obs.kinds)

    def draws(self, obs: Obs) -> int:
        """Uniform numbers this strategy needs per game and decision (drawn once, for every
        row alike, so that a game's stream never depends on the other games of the batch):
        a forgetful player picks the card it does not remember at random (``pick``)."""
        return obs.places if self.params.recall < 1 else 0

    def pick(self, obs: Obs, u: np.ndarray | None) -> np.ndarray | None:
        """The uniforms for a random choice among places (None: the first place will do)."""
        return None if u is None else u[:, :obs.places]

    def act(self, obs, legal, rng):
        known, lacks = self.memory.recall_now(obs, rng)
        d = self.draws(obs)
        u = rng.random((len(obs.game), d)) if d else None
        f = obs.kind == FLIP
        if f.all():
            return self.flip(obs, known, lacks, u)
        if not f.any():
            return self.choose(obs, known, lacks, u)
        out = np.empty(len(obs.game), np.int64)
        for mask, method in ((f, self.flip), (~f, self.choose)):
            rows = np.flatnonzero(mask)
            out[rows] = method(obs.take(rows), known[rows], lacks[rows],
                               None if u is None else u[rows])
        return out

    def flip(self, obs, known, lacks, u) -> np.ndarray:
        """The first card of a turn: a place of the hunting ground."""
        raise NotImplementedError

    def choose(self, obs, known, lacks, u) -> np.ndarray:
        """Once a card is face up: show (A), ask (B) or flip another place (C)."""
        raise NotImplementedError


class Rememberer(HuntStrategy):
    name = "rememberer"
    summary = ("flips a remembered match of its hand first, then a remembered twin, else an "
               "unknown card; shows, takes the remembered twin, or asks the opponent most likely "
               "to hold the match (flips an unknown card when nobody is likely enough)")

    class Params(_Params):
        recall: float = RECALL
        ask_min: float = Field(0.05, ge=0, le=1, description=(
            "ask when the likeliest opponent holds the match with at least this chance; "
            "otherwise flip an unknown card"))

    def flip(self, obs, known, lacks, u):
        return pair_flip_or(obs, known, self.counts(obs, known),
                            first_unknown(obs, known, self.pick(obs, u)))

    def choose(self, obs, known, lacks, u):
        o, p = best_asked(ask_chance(obs, lacks, self.counts(obs, known)))
        ask = np.where(p >= self.params.ask_min, obs.ask_action(o),
                       other_unknown(obs, known, self.pick(obs, u)))
        return show_twin_or(obs, known, ask)

    def policy(self):
        return K_REMEMBERER, (self.params.recall, self.params.ask_min), self.memory


class Prober(HuntStrategy):
    name = "prober"
    summary = ("asks to learn: flips a remembered match, a remembered twin, or a remembered card "
               "an opponent likely holds (to ask for it), else an unknown card; then shows, takes "
               "the remembered twin, or always asks the likeliest opponent")

    class Params(_Params):
        recall: float = RECALL
        probe_min: float = Field(0.7, ge=0, le=1, description=(
            "flip a remembered card to ask for its match when an opponent holds it with at "
            "least this chance"))

    def flip(self, obs, known, lacks, u):
        counts = self.counts(obs, known)
        chance = holder_best(obs, lacks, counts)                         # [n, K]
        at = np.where(known >= 0, row_take(chance, np.maximum(known, 0)), -1.0)
        probe = np.argmax(at, axis=1)
        has_p = at[np.arange(len(probe)), probe] >= max(self.params.probe_min, 1e-9)
        unknown = first_unknown(obs, known, self.pick(obs, u))
        return pair_flip_or(obs, known, counts, np.where(has_p, probe, unknown))

    def choose(self, obs, known, lacks, u):
        o, _ = best_asked(ask_chance(obs, lacks, self.counts(obs, known)))
        return show_twin_or(obs, known, obs.ask_action(o))

    def policy(self):
        return K_PROBER, (self.params.recall, self.params.probe_min), self.memory


class Guesser(HuntStrategy):
    name = "guesser"
    summary = ("flips a random card; shows the match when it holds it, takes a remembered twin, "
               "else asks a random opponent (with chance `ask`) or flips another random card")

    class Params(_Params):
        recall: float = RECALL
        ask: float = Field(0.5, ge=0, le=1, description=(
            "chance of asking a random opponent (rather than flipping a random card) when it "
            "does not know where the match is"))

    def draws(self, obs):
        return obs.places + 2

    def flip(self, obs, known, lacks, u):
        return first_true(obs.down, self.pick(obs, u))[0]

    def choose(self, obs, known, lacks, u):
        g = obs.places
        p = obs.hand_size.shape[1]
        other = obs.down & (np.arange(g)[None, :] != obs.first[:, None])
        flip = first_true(other, self.pick(obs, u))[0]
        o = 1 + np.minimum((u[:, g] * (p - 1)).astype(np.int64), p - 2)
        guess = np.where(u[:, g + 1] < self.params.ask, obs.ask_action(o), flip)
        return show_twin_or(obs, known, guess)

    def policy(self):
        return K_GUESSER, (self.params.recall, self.params.ask), self.memory


K_REMEMBERER, K_PROBER, K_GUESSER = range(3)


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _animal_hunt_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Rememberer, Prober, Guesser]
BENCHMARK = {"strategy": "rememberer", "params": {"recall": 1.0}, "players": 3}

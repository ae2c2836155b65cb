"""Animal Hunt strategies: how people play a memory game, and how much they remember.

Every strategy has ``recall``: 1 is a perfect memory (it uses all the public history the
observation holds); below 1 each remembered fact (the kind seen at a place of the hunting ground,
a player known to lack a kind) is forgotten with probability 1 - recall after each turn, drawn from
the seat's own stream. The memory lives in per-game arrays (one row per game and seat) made in
``reset``. A card face up now, the player's own hand, the pairs made and the duckies are in plain
sight and never forgotten.

Observations are rotated: index 0 is the player, index o the player o seats to the left (the ask
actions name the same offsets). Places of the hunting ground are shuffled at the deal, so "the
lowest-numbered card never seen" is as good as a random unknown card.
"""

from __future__ import annotations

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
        self.batch = self.players = 0
        self.known = self.lacks = self.turn = None

    def reset(self, batch: int, n_players: int) -> None:
        self.batch, self.players = batch, n_players
        self.known = self.lacks = self.turn = None  # sized at the first observation

    def recall_now(self, obs: Obs, rng) -> tuple[np.ndarray, np.ndarray]:
        """(known int8[n, G], lacks bool[n, P, K]) as this seat remembers them now."""
        if self.recall >= 1.0:
            return obs.known, obs.lacks
        n, g = obs.known.shape
        p, k = obs.lack.shape[1:]
        if self.known is None:
            rows = self.batch * self.players
            self.known = np.full((rows, g), -1, np.int8)
            self.lacks = np.zeros((rows, p, k), np.bool_)
            self.turn = np.zeros(rows, np.int64)
        rows = obs.game * self.players + obs.seat
        t1 = obs.turn.astype(np.int64)[:, None]
        t0 = self.turn[rows][:, None]
        u = rng.random((n, g + p * k))
        # places: a card seen since the last update is remembered from that turn on; one already
        # remembered survives each turn since with probability recall
        seen = obs.seen.astype(np.int64)
        fresh = seen >= t0
        had = (self.known[rows] >= 0) & obs.down
        age = np.where(fresh, t1 - seen, t1 - t0)
        keep = (fresh | had) & (u[:, :g] < self.recall ** age)
        known = np.where(keep, obs.known, -1).astype(np.int8)
        lack = obs.lack.reshape(n, -1).astype(np.int64)
        fresh = lack >= t0
        had = self.lacks[rows].reshape(n, -1)
        age = np.where(fresh, t1 - lack, t1 - t0)
        lacks = ((fresh | had) & (u[:, g:] < self.recall ** age)).reshape(n, p, k)
        self.known[rows] = known
        self.lacks[rows] = lacks
        self.turn[rows] = t1[:, 0]
        return known, lacks


def kind_counts(known: np.ndarray, kinds: int) -> np.ndarray:
    """int[n, K]: remembered face-down places of each kind."""
    n = known.shape[0]
    rows, cols = np.nonzero(known >= 0)
    flat = rows * kinds + known[rows, cols]
    return np.bincount(flat, minlength=n * kinds).reshape(n, kinds)


def holder_chance(obs: Obs, known: np.ndarray, lacks: np.ndarray,
                  counts: np.ndarray | None = None) -> np.ndarray:
    """float[n, P, K]: the chance that the player at each offset (index 0, this player: 0) holds
    each kind, from what is remembered: a kind not yet paired, not in this hand and not seen twice
    in the hunting ground is in some hand or still twice in the ground; an opponent holds each of
    the kinds it is not known to lack alike, as many as its hand size."""
    counts = kind_counts(known, obs.kinds) if counts is None else counts
    cand = (obs.scored < 0) & ~obs.hand & (counts < 2)             # [n, K]
    pool = cand[:, None, :] & ~lacks                                 # [n, P, K]
    pool[:, 0, :] = False
    size = pool.sum(axis=2)                                          # [n, P]
    h = obs.hand_size.astype(np.float64)
    w = pool * (h / np.maximum(np.maximum(size, h), 1))[:, :, None]
    total = w.sum(axis=1, keepdims=True)
    return w / np.maximum(total, 1.0)


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
    safe = np.maximum(known, 0)
    seen_k = known >= 0
    m, has_m = first_true(seen_k & np.take_along_axis(obs.hand, safe, axis=1))
    t, has_t = first_true(seen_k & (np.take_along_axis(counts, safe.astype(np.int64), axis=1) >= 2))
    return np.where(has_m, m, np.where(has_t, t, otherwise))


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


def best_asked(obs: Obs, chance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(offset of the opponent most likely to hold the flipped kind, that chance)."""
    n = chance.shape[0]
    ck = chance[np.arange(n), :, np.maximum(obs.first_kind, 0)]      # [n, P]
    o = 1 + np.argmax(ck[:, 1:], axis=1)
    return o, ck[np.arange(n), o]


class HuntStrategy(Strategy):
    """Two decisions, two methods: ``flip`` (the first card of a turn) and ``choose`` (A, B or
    C once a card is face up), each on its rows with what the seat remembers."""

    game = "animal_hunt"

    def __init__(self, **params):
        super().__init__(**params)
        self.memory = Memory(self.params.recall)

    def reset(self, batch: int, n_players: int) -> None:
        self.memory.reset(batch, n_players)

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
        return pair_flip_or(obs, known, kind_counts(known, obs.kinds),
                            first_unknown(obs, known, self.pick(obs, u)))

    def choose(self, obs, known, lacks, u):
        o, p = best_asked(obs, holder_chance(obs, known, lacks))
        ask = np.where(p >= self.params.ask_min, obs.ask_action(o),
                       other_unknown(obs, known, self.pick(obs, u)))
        return show_twin_or(obs, known, ask)


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
        counts = kind_counts(known, obs.kinds)
        chance = holder_chance(obs, known, lacks, counts).max(axis=1)     # [n, K]
        at = np.where(known >= 0, np.take_along_axis(chance, np.maximum(known, 0).astype(np.int64),
                                                     axis=1), -1.0)
        probe = np.argmax(at, axis=1)
        has_p = at[np.arange(len(probe)), probe] >= max(self.params.probe_min, 1e-9)
        unknown = first_unknown(obs, known, self.pick(obs, u))
        return pair_flip_or(obs, known, counts, np.where(has_p, probe, unknown))

    def choose(self, obs, known, lacks, u):
        o, _ = best_asked(obs, holder_chance(obs, known, lacks))
        return show_twin_or(obs, known, obs.ask_action(o))


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


STRATEGIES = [Rememberer, Prober, Guesser]
BENCHMARK = {"strategy": "rememberer", "params": {"recall": 1.0}, "players": 3}

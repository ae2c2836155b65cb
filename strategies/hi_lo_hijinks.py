"""Hi-Lo Hijinks strategies: how people actually play it.

Three decisions: which card to play (and, for an explorer card, on which stack), whether to
reverse a stack after an exact match, and which card to give away after one (and to whom).
Observations are rotated: index 0 is the player, index o the player o seats to the left.

Every card in a hand must be played some day, and a card a stack does not want takes the whole
stack; cards of a type in which a player has the most are discarded at the end. The strategies
weigh a play by how close it is to the stack's top (a card far from the top leaves room for the
next player), a take by what it would add to the player's own count (majorities included), and
a card in hand by how far it is from being wanted (the worst ones are the ones to get rid of).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.hi_lo_hijinks import GIVE, PLAY, REVERSE, Obs

from .base import Strategy


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Take costs are looked up clipped to [-COST0, NCOST - COST0 - 1]: beyond that range (a take of
# more than 40 cards) every take is as bad as the next.
NCOST, COST0 = 64, 16


# A dump scores DUMP (an explorer card) or 2 * DUMP (an animal card) plus at most +-500 for its
# distance and its clipped take cost: animal dumps come first, then explorer dumps, then every
# other play (wanted plays score a few steps around 0, takes -100 - 10 * cost).
DUMP = 1000.0


# Pile counts are looked up clipped to MAXC - 1 (no type has more cards with the rules' limits).
MAXC = 37


@functools.lru_cache(maxsize=None)
def _take_delta(tie_discards: bool) -> np.ndarray:
    """int16[MAXC, MAXC, MAXC]: by (the player's cards of a type, the most any other player
    has, cards of that type taken), how much the take adds to the player's count once the
    majority of the type is discarded."""
    m = np.arange(MAXC)[:, None, None]
    best = np.arange(MAXC)[None, :, None]
    s = np.arange(MAXC)[None, None, :]

    def counted(x):
        lead = (x >= best) if tie_discards else (x > best)
        return np.where(lead & (x > 0), 0, x)

    out = (counted(np.minimum(m + s, MAXC - 1)) - counted(m)).astype(np.int16)
    out.flags.writeable = False
    return out


def take_costs(obs: Obs, majority: bool) -> np.ndarray:
    """int[n, S]: what taking each stack adds to the player's own count: its cards, or with
    ``majority`` the change in the count once majorities are discarded (against the others'
    piles as they are)."""
    if not majority:
        return obs.stack_len.astype(np.int32)
    st = obs.stack_types
    ntypes = obs.animals + (1 if obs.explorer_own_type else 0)
    piles = np.minimum(obs.piles, MAXC - 1).astype(np.int32)
    best = piles[:, 1, :].copy()  # the most any other player has (slices: no short-axis max)
    for q in range(2, piles.shape[1]):
        np.maximum(best, piles[:, q, :], out=best)
    base = (piles[:, 0, :] * MAXC + best) * MAXC                              # [n, T]
    delta = np.take(_take_delta(obs.tie_discards), base[:, None, :ntypes] + st[:, :, :ntypes])
    cost = delta[:, :, 0].astype(np.int32)
    for t in range(1, ntypes):  # a sum over a short last axis, as slices: several times faster
        cost += delta[:, :, t]
    if ntypes < st.shape[2]:  # explorer cards of no type always count
        cost += st[:, :, ntypes]
    return cost


def stack_codes(obs: Obs) -> np.ndarray:
    """int32[n, S]: each stack's state as one number, higher * values + top - 1."""
    return obs.higher.astype(np.int32) * obs.values + obs.top - 1


@functools.lru_cache(maxsize=None)
def _miss(values: int) -> np.ndarray:
    """int8[2 * values, values]: how far number v + 1 is from being wanted by a stack in state c."""
    c = np.arange(2 * values)[:, None]
    top, hi = c % values + 1, c >= values
    num = np.arange(1, values + 1)[None, :]
    out = np.where(hi, np.maximum(top - num, 0), np.maximum(num - top, 0)).astype(np.int8)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=None)
def _play_table(animals: int, values: int, match_bonus: float, explorer_cost: float,
                dump_from: float, dump_explorers: bool, spoil: float) -> np.ndarray:
    """float32[2, 2, NCOST, 2 * values, 2, values]: the score of a play, by (the player lacks
    the ducky, the stack may be dumped on, take cost + COST0, stack state, explorer card, number).

    A wanted card scores ``-distance to the top - spoil * numbers the stack wants after it``
    (+ ``match_bonus`` on a match: with ``spoil`` 0 a match, at distance 0, comes first anyway;
    a positive ``spoil`` plays the card that leaves the next player least room); a card not
    wanted ``-100 - 10 * cost - distance``; on a stack that may be dumped on, a card at least
    ``dump_from`` from being wanted scores ``2 * DUMP + distance - 10 * cost`` instead, above every
    other play (an explorer card only with ``dump_explorers``, and ``DUMP`` less: after every
    animal card that can be dumped, whatever the takes cost); an explorer card
    costs ``explorer_cost`` more when the player lacks the ducky."""
    c = np.arange(2 * values)
    top = (c % values + 1)[:, None, None]
    hi = (c >= values)[:, None, None]
    num = np.arange(1, values + 1)[None, None, :]
    expl = np.array([0, 1])[None, :, None]
    wanted = np.where(hi, num >= top, num <= top)
    dist = np.abs(num - top).astype(np.float64)
    room = np.where(hi, values - num + 1, num)                     # numbers wanted after it
    base = -dist + match_bonus * (num == top) - spoil * room        # [2V, 2, V]
    cost = (np.arange(NCOST) - COST0)[:, None, None, None]
    take = -100.0 - 10.0 * cost - dist                               # [NCOST, 2V, 2, V]
    dumps = (dist >= dump_from) & ((expl == 0) | dump_explorers)
    dump = np.where(dumps, DUMP * (2 - expl) + dist - 10.0 * cost, take)
    out = np.empty((2, 2, NCOST, 2 * values, 2, values), np.float32)
    for lacks in (0, 1):
        for dumpable, t in ((0, take), (1, dump)):
            out[lacks, dumpable] = np.where(wanted, base, t) - lacks * explorer_cost * expl
    out.flags.writeable = False
    return out


def play_scores(obs: Obs, match_bonus: float, explorer_cost: float, cost: np.ndarray,
                dumpable: np.ndarray | None = None, dump_from: float = 0.0,
                dump_explorers: bool = False, spoil: float = 0.0) -> np.ndarray:
    """float32[n, A_play]: the score of every play action (see ``_play_table``) from one look-up
    per stack: the take costs ``cost`` [n, S] and where dumping is on, ``dumpable`` [n, S]."""
    table = _play_table(obs.animals, obs.values, float(match_bonus), float(explorer_cost),
                        float(dump_from), bool(dump_explorers), float(spoil))
    v2 = 2 * obs.values
    key = np.clip(cost, -COST0, NCOST - COST0 - 1) + COST0
    key = key * v2 + stack_codes(obs)
    key += np.where(obs.holder != 0, 2 * NCOST * v2, 0)[:, None]
    if dumpable is not None:
        key += dumpable * (NCOST * v2)
    # one row per stack: its own numbers then the explorer numbers, which is the action order
    return np.take(table.reshape(-1, 2 * obs.values), key, axis=0).reshape(len(key), -1)


def card_badness(obs: Obs) -> np.ndarray:
    """int8[n, K]: how far each kind is from being wanted now (0: some stack wants it); an
    explorer card counts its nearest stack (usually 0)."""
    miss = np.take(_miss(obs.values), stack_codes(obs), axis=0)     # [n, S, V]
    return np.concatenate([miss.reshape(len(miss), -1), miss.min(axis=1)], axis=1)


def leader_offset(obs: Obs) -> np.ndarray:
    """Offset (1..P-1) of the opponent best placed now (lowest standing); the nearest to the
    left on ties."""
    return 1 + np.argmin(obs.standing[:, 1:], axis=1)


def pick(score: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The legal action (of the first score.shape[1]) with the highest score; the lowest on ties."""
    return np.argmax(np.where(legal[:, :score.shape[1]], score, score.dtype.type(-np.inf)), axis=1)


class HiLoStrategy(Strategy):
    """Three decisions, three methods, each on the rows of its kind: ``play``, ``reverse``
    (True to reverse the matched stack) and ``give`` (an action).

    The shipped ones also have a compiled twin (``policy``: its kind and knobs for
    ``_hi_lo_hijinks_compiled.policy``), so a table of them plays whole games in one kernel
    (``play_compiled``); a subclass that overrides ``act`` or one of ``twin_methods`` is played
    through ``act`` unless it also overrides ``policy``."""

    game = "hi_lo_hijinks"

    twin_methods = ("play", "reverse", "give", "_reverse")

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def act(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        # most decisions are plays: score them on every row (a row of another kind has no
        # legal play) and answer the few matches on their own rows
        out = self.play(obs, legal, rng)
        if (obs.kind == PLAY).all():
            return out
        for kind, fn in ((REVERSE, self._reverse), (GIVE, self.give)):
            rows = np.flatnonzero(obs.kind == kind)
            if rows.size:
                out[rows] = fn(obs.take(rows), np.take(legal, rows, axis=0), rng)
        return out

    def _reverse(self, obs, legal, rng):
        keep = 2 * obs.nak
        return np.where(self.reverse(obs), keep + 1, keep)

    # defaults: the safe player's
    def play(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        raise NotImplementedError

    def reverse(self, obs: Obs) -> np.ndarray:
        return narrower(obs)

    def give(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        return give_worst(obs, legal, np.ones(len(obs.game), np.int64), explorer_first=True)


def narrower(obs: Obs) -> np.ndarray:
    """Whether reversing the matched stack leaves fewer numbers it wants (a harder stack for the
    next player)."""
    rows = np.arange(len(obs.game))
    s = np.maximum(obs.match_stack.astype(np.int64), 0)
    top = obs.top[rows, s].astype(np.int64)
    hi = obs.higher[rows, s] == 1
    now = np.where(hi, obs.values - top + 1, top)
    return (obs.values + 1 - now) < now


def give_worst(obs: Obs, legal: np.ndarray, offset: np.ndarray, explorer_first: bool,
               at_least: float = 0.0) -> np.ndarray:
    """Give the worst card in hand (farthest from being wanted; an explorer card first if
    ``explorer_first``) to the player at ``offset``; give nothing when the worst is nearer than
    ``at_least``."""
    bad = card_badness(obs).astype(np.float64)
    if explorer_first:
        bad[:, obs.nak:] += obs.values + 1
    bad = np.where(obs.hand > 0, bad, -np.inf)
    k = np.argmax(bad, axis=1)
    best = bad[np.arange(len(k)), k]
    a = obs.give_action(k, offset)
    return np.where(best >= at_least, a, 2 * obs.nak + 2)


def scored_play(obs: Obs, legal: np.ndarray, match_bonus: float, explorer_cost: float,
                majority: bool, dumpable: np.ndarray | None = None,
                dump_from: float = 0.0, dump_explorers: bool = False,
                spoil: float = 0.0) -> np.ndarray:
    """The play with the best score (``_play_table``): the wanted card closest to the top
    (matches worth ``match_bonus`` steps, an explorer card ``explorer_cost`` steps when it would
    take the ducky), else the take that adds least to the player's count (``majority``: counted
    with majorities); on ``dumpable`` stacks a card at least ``dump_from`` off is dumped first;
    ``spoil`` weighs the room a play leaves the next player."""
    score = play_scores(obs, match_bonus, explorer_cost, take_costs(obs, majority), dumpable,
                        dump_from, dump_explorers, spoil)
    return pick(score, legal)


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

    def play(self, obs, legal, rng):
        p = self.params
        return scored_play(obs, legal, p.match_bonus, p.explorer_cost, p.majority, spoil=p.spoil)

    def reverse(self, obs):
        return narrower(obs) & self.params.reverse

    def give(self, obs, legal, rng):
        if not self.params.give:
            return np.full(len(obs.game), 2 * obs.nak + 2)
        return give_worst(obs, legal, np.ones(len(obs.game), np.int64), explorer_first=True)

    def policy(self):
        p = self.params
        return _twin(K_SAFE, (p.match_bonus, p.explorer_cost, p.spoil, p.majority, p.reverse,
                              p.give))


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

    def play(self, obs, legal, rng):
        p = self.params
        early = obs.deck_left >= p.until_deck
        dumpable = ((obs.stack_len <= p.max_stack) & early[:, None]).astype(np.int32)
        return scored_play(obs, legal, p.match_bonus, p.explorer_cost, True, dumpable,
                           p.worst_at_least, p.dump_explorers, p.spoil)

    def policy(self):
        p = self.params
        return _twin(K_DUMPER, (p.max_stack, p.until_deck, p.worst_at_least, p.match_bonus,
                                p.explorer_cost, p.dump_explorers, p.spoil))


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

    twin_methods = HiLoStrategy.twin_methods + ("_target",)

    def play(self, obs, legal, rng):
        p = self.params
        return scored_play(obs, legal, p.match_bonus, p.explorer_cost, True, spoil=p.spoil)

    def _target(self, obs):
        if self.params.target == "next":
            return np.ones(len(obs.game), np.int64)
        return leader_offset(obs)

    def reverse(self, obs):
        return narrower(obs) & (self._target(obs) == 1)

    def give(self, obs, legal, rng):
        p = self.params
        return give_worst(obs, legal, self._target(obs), p.explorer_first, p.at_least)

    def policy(self):
        p = self.params
        return _twin(K_GIVER, (p.match_bonus, p.explorer_cost, p.spoil, p.explorer_first,
                               p.at_least, p.target == "leader"))


# compiled twins (strategies/_hi_lo_hijinks_compiled.py): the kind of each shipped heuristic
K_SAFE, K_DUMPER, K_GIVER = range(3)


def _twin(kind: int, knobs: tuple):
    """(kind, knobs as floats); None (no twin: the lockstep path) when a knob is infinite or
    NaN, which the compiled scores do not follow the numpy ones through."""
    knobs = tuple(float(x) for x in knobs)
    if not all(math.isfinite(x) for x in knobs):
        return None
    return kind, knobs


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _hi_lo_hijinks_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Safe, Dumper, Giver]

BENCHMARK = {"strategy": "safe", "params": {}}

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

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.hi_lo_hijinks import GIVE, PLAY, REVERSE, Obs

from .base import Strategy


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


@functools.lru_cache(maxsize=None)
def _plays(animals: int, values: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kind, stack, number) of each play action 0 .. 2 * animals * values - 1."""
    nak = animals * values
    a = np.arange(2 * nak)
    kind = np.where(a < nak, a, nak + (a - nak) % values)
    stack = np.where(a < nak, a // values, (a - nak) // values)
    number = np.where(a < nak, a % values, (a - nak) % values) + 1
    out = (kind, stack, number)
    for x in out:
        x.flags.writeable = False
    return out


def own_count(mine: np.ndarray, others: np.ndarray, tie_discards: bool) -> np.ndarray:
    """What a pile ``mine`` [n, T] counts at the end against the others' piles [n, P-1, T]
    (explorer points left out): the types in which it has the most are discarded."""
    best_other = others.max(axis=1)
    lead = (mine >= best_other) if tie_discards else (mine > best_other)
    return (mine * ~(lead & (mine > 0))).sum(axis=1)


def take_costs(obs: Obs, majority: bool) -> np.ndarray:
    """float[n, S]: what taking each stack adds to the player's own count: its cards, or with
    ``majority`` the change in the count once majorities are discarded."""
    ntypes = obs.animals + (1 if obs.explorer_own_type else 0)
    st = obs.stack_types.astype(np.int32)
    if not majority:
        return st.sum(axis=2).astype(np.float64)
    mine = obs.piles[:, 0, :ntypes].astype(np.int32)
    others = obs.piles[:, 1:, :ntypes].astype(np.int32)
    extra = st[:, :, ntypes:].sum(axis=2)  # explorer cards when they are of no type
    now = own_count(mine, others, obs.tie_discards)
    cost = np.empty(st.shape[:2], np.float64)
    for s in range(st.shape[1]):
        cost[:, s] = own_count(mine + st[:, s, :ntypes], others, obs.tie_discards) - now + extra[:, s]
    return cost


def play_features(obs: Obs) -> dict[str, np.ndarray]:
    """For every play action [n, A_play]: whether the stack wants it, whether it matches, how far
    its number is from the top, the stack it goes on, and whether it is an explorer card."""
    kind, stack, number = _plays(obs.animals, obs.values)
    top = np.take(obs.top, stack, axis=1).astype(np.int16)
    hi = np.take(obs.higher, stack, axis=1) == 1
    num = number[None, :]
    wanted = np.where(hi, num >= top, num <= top)
    return {"wanted": wanted, "match": num == top, "dist": np.abs(num - top), "stack": stack,
            "explorer": (kind >= obs.nak)[None, :], "kind": kind}


def card_badness(obs: Obs) -> np.ndarray:
    """float[n, K]: how far each kind is from being wanted now (0: some stack wants it); an
    explorer card is as bad as it is far from every stack (usually 0)."""
    values = obs.values
    k = np.arange((obs.animals + 1) * values)
    num = (k % values + 1)[None, :, None]
    top = obs.top[:, None, :].astype(np.int16)
    hi = obs.higher[:, None, :] == 1
    miss = np.where(hi, np.maximum(top - num, 0), np.maximum(num - top, 0))  # [n, K, S]
    t = k // values
    own = np.take_along_axis(miss, np.minimum(t, obs.animals - 1)[None, :, None]
                             .repeat(len(miss), 0), axis=2)[:, :, 0]
    return np.where(t[None, :] < obs.animals, own, miss.min(axis=2)).astype(np.float64)


def leader_offset(obs: Obs) -> np.ndarray:
    """Offset (1..P-1) of the opponent best placed now (lowest standing); the nearest to the
    left on ties."""
    st = obs.standing[:, 1:].astype(np.float64)
    return 1 + np.argmin(st, axis=1)


def pick(score: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The legal action (of the first score.shape[1]) with the highest score; the lowest on ties."""
    return np.argmax(np.where(legal[:, :score.shape[1]], score, -np.inf), axis=1)


class HiLoStrategy(Strategy):
    """Three decisions, three methods, each on the rows of its kind: ``play``, ``reverse``
    (True to reverse the matched stack) and ``give`` (an action)."""

    game = "hi_lo_hijinks"

    def act(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        out = np.zeros(len(obs.game), np.int64)
        play = obs.kind == PLAY
        if play.all():
            return self.play(obs, legal, rng)
        for kind, fn in ((PLAY, self.play), (REVERSE, self._reverse), (GIVE, self.give)):
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
    ``explorer_first``) to the player at ``offset``; give nothing when the worst is better than
    ``at_least``."""
    bad = card_badness(obs)
    if explorer_first:
        bad[:, obs.nak:] += obs.values + 1
    bad = np.where(obs.hand > 0, bad, -np.inf)
    k = np.argmax(bad, axis=1)
    best = bad[np.arange(len(k)), k]
    a = obs.give_action(k, offset)
    return np.where(best >= at_least, a, 2 * obs.nak + 2)


def scored_play(obs: Obs, legal: np.ndarray, match_bonus: float, explorer_cost: float,
                majority: bool, dump: np.ndarray | None = None) -> np.ndarray:
    """The play with the best score: a wanted card scores ``-distance`` to the top (plus
    ``match_bonus`` on a match); a card not wanted scores ``-100 - 10 * cost of the take - its
    own distance`` (the take that adds least); an explorer card costs ``explorer_cost`` unless
    the player already holds the ducky. ``dump`` [n, S] adds a bonus to taking those stacks."""
    f = play_features(obs)
    dist = f["dist"].astype(np.float64)
    cost = np.take(take_costs(obs, majority), f["stack"], axis=1)
    if dump is not None:
        cost = cost - np.take(dump, f["stack"], axis=1)
    score = np.where(f["wanted"], -dist + match_bonus * f["match"], -100.0 - 10.0 * cost - dist)
    score = score - np.where(f["explorer"] & (obs.holder[:, None] != 0), explorer_cost, 0.0)
    return pick(score, legal)


class Safe(HiLoStrategy):
    name = "safe"
    summary = ("plays a card the stack wants, closest to its top, matches first; when nothing "
               "fits takes the smallest stack; after a match narrows the stack and gives its "
               "worst card to the next player")

    class Params(_Params):
        match_bonus: float = Field(3.0, description="how many steps of distance a match is worth")
        explorer_cost: float = Field(
            2.0, description="steps of distance an explorer card costs (it takes the ducky)")
        majority: bool = Field(False, description=(
            "count a take's cost with majorities (cards of a type it would lead cost nothing)"))
        reverse: bool = Field(True, description="after a match reverse when it narrows the stack")
        give: bool = Field(True, description="after a match give away the worst card in hand")

    def play(self, obs, legal, rng):
        p = self.params
        return scored_play(obs, legal, p.match_bonus, p.explorer_cost, p.majority)

    def reverse(self, obs):
        return narrower(obs) & self.params.reverse

    def give(self, obs, legal, rng):
        if not self.params.give:
            return np.full(len(obs.game), 2 * obs.nak + 2)
        return give_worst(obs, legal, np.ones(len(obs.game), np.int64), explorer_first=True)


class Dumper(HiLoStrategy):
    name = "dumper"
    summary = ("early on takes small stacks on purpose with its worst card, keeping the good "
               "ones; later plays safe; counts takes with majorities")

    class Params(_Params):
        max_stack: int = Field(4, ge=1, description="a stack of at most this many cards is small")
        until_deck: int = Field(1, ge=0, description=(
            "dump while the draw deck holds at least this many cards (0: all game)"))
        worst_at_least: float = Field(1.0, ge=0, description=(
            "dump only a card at least this far from being wanted"))
        match_bonus: float = Field(3.0, description="how many steps of distance a match is worth")
        explorer_cost: float = Field(2.0, description="steps of distance an explorer card costs")

    def play(self, obs, legal, rng):
        p = self.params
        f = play_features(obs)
        early = obs.deck_left >= p.until_deck
        small = obs.stack_len <= p.max_stack
        cost = take_costs(obs, True)
        # a dump: an unwanted card at least `worst_at_least` off, onto a small stack, cheap take
        off = np.where(f["wanted"], 0, f["dist"]).astype(np.float64)
        ok = (~f["wanted"] & (off >= p.worst_at_least)
              & np.take(small, f["stack"], axis=1) & early[:, None] & legal[:, :off.shape[1]])
        dump_score = off - 10.0 * np.take(cost, f["stack"], axis=1) - 50.0 * f["explorer"]
        dump_score = np.where(ok, dump_score, -np.inf)
        dump = np.argmax(dump_score, axis=1)
        safe = scored_play(obs, legal, p.match_bonus, p.explorer_cost, True)
        return np.where(ok.any(axis=1), dump, safe)


class Giver(HiLoStrategy):
    name = "giver"
    summary = ("hunts exact matches and uses them to pass its worst card (explorer cards first) "
               "to the leader, reversing the stack when the leader plays next")

    class Params(_Params):
        match_bonus: float = Field(6.0, description="how many steps of distance a match is worth")
        explorer_cost: float = Field(2.0, description="steps of distance an explorer card costs")
        explorer_first: bool = Field(True, description="give explorer cards before any other")
        at_least: float = Field(0.0, ge=0, description=(
            "give only a card at least this far from being wanted (0: always give)"))
        target: str = Field("leader", pattern="^(leader|next)$", description=(
            "who gets the card: 'leader' (best standing now) or 'next' (the player to the left)"))

    def play(self, obs, legal, rng):
        p = self.params
        return scored_play(obs, legal, p.match_bonus, p.explorer_cost, True)

    def _target(self, obs):
        if self.params.target == "next":
            return np.ones(len(obs.game), np.int64)
        return leader_offset(obs)

    def reverse(self, obs):
        return narrower(obs) & (self._target(obs) == 1)

    def give(self, obs, legal, rng):
        p = self.params
        return give_worst(obs, legal, self._target(obs), p.explorer_first, p.at_least)


STRATEGIES = [Safe, Dumper, Giver]

BENCHMARK = {"strategy": "safe", "params": {}}

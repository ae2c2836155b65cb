"""Jungle Thrills strategies: players who remember, forget and guess.

The observation carries everything a perfect memory could hold. Each strategy keeps its own
memory of it (per game and seat, allocated in ``reset``): a fact it has remembered is forgotten
with probability 1 - ``recall`` after each turn (the game's clock counts cards turned up and
demands made), so a fact that happened d turns ago is still known with probability recall**d.
Forgetting draws from the strategy's own stream. Three kinds of fact are remembered:

- who holds each set (first version): a set's slot, animal and holder;
- who refused which animal (first version): "P2 has no lions";
- the animal of each pair in the centre (second version, where pairs lie face down).

Decisions: which animal to name and whom to ask (first version), whether and which pair to hunt
(second). Observations are rotated: offset 0 is the player, o the player o seats to the left.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.jungle_thrills import HUNT0, PASS, Obs

from .base import Strategy


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def recall_knob(default: float, what: str = "remembered fact"):
    return Field(default, ge=0, le=1, description=(
        f"chance of keeping each {what} through a turn (1 = perfect memory)"))


def decline_knob(default: float):
    return Field(default, ge=0, le=1, description=(
        "with rules.may_decline: chance of not using a Hunter's (or a refusal's) right to demand "
        "when it remembers no set held by another player and holds a set itself"))


def bold_knob(default: float, when: str = "when none is known"):
    return Field(default, ge=0, le=1, description=(
        f"second version: chance of hunting a pair it cannot remember {when}"))


class Memory:
    """What one strategy remembers, per game and seat: bool arrays indexed [game, seat, ...]."""

    def __init__(self, batch: int, n_players: int):
        self.batch, self.n_players = batch, n_players
        self.last = np.full((batch, n_players), -1, np.int64)  # clock of the last update
        self.facts: dict[str, np.ndarray] = {}

    def known(self, name: str, obs: Obs, shape: tuple[int, ...]) -> np.ndarray:
        """bool[n, ...]: the facts ``name`` this player remembers now."""
        m = self.facts.get(name)
        if m is None:
            return np.zeros((len(obs.game),) + shape, bool)
        return m[obs.game, obs.seat]

    def track(self, name: str, obs: Obs, fact: np.ndarray, dated: np.ndarray,
              same: np.ndarray, recall: float, rng) -> None:
        """Update the memory of the facts ``name``: ``fact`` says which are true now, ``dated``
        when each was last seen, ``same`` whether a true fact is the one remembered at the last
        update (not a new fact in the same slot). A remembered fact is kept with probability
        recall**(turns since the last update); a sighting since then is learned with
        recall**(turns since the sighting)."""
        g, s = obs.game, obs.seat
        m = self.facts.get(name)
        if m is None:
            m = self.facts[name] = np.zeros((self.batch, self.n_players) + fact.shape[1:], bool)
        if recall >= 1.0:
            m[g, s] = fact
            return
        shape = (-1,) + (1,) * (fact.ndim - 1)
        last = self.last[g, s]
        now = obs.clock.astype(np.int64)
        u = rng.random((len(g), 2) + fact.shape[1:])
        p_keep = _power(recall, now - last).reshape(shape)
        keep = m[g, s] & fact & same & (u[:, 0] < p_keep)
        # the chance of each new sighting, worked out only where there is one
        new = fact & (dated > last.reshape(shape))
        at = np.flatnonzero(new)
        age = now[at // max(new[0].size, 1)] - dated.reshape(-1)[at]
        new.reshape(-1)[at] = u[:, 1].reshape(-1)[at] < _power(recall, age)
        m[g, s] = keep | new

    def tick(self, obs: Obs) -> None:
        self.last[obs.game, obs.seat] = obs.clock


NPOW = 512      # powers kept in a table (the compiled twin keeps as many)


@functools.lru_cache(maxsize=64)
def _powers(recall: float) -> np.ndarray:
    table = np.array([math.pow(recall, d) for d in range(NPOW)])
    table.flags.writeable = False       # shared by every call: never written
    return table


def _power(recall: float, d: np.ndarray) -> np.ndarray:
    """recall ** d, each by the C library's scalar pow (as the compiled twin computes it):
    numpy's array power takes SIMD code on some machines (AVX-512) that differs in the last
    bit, and the twin must play the same games everywhere."""
    d = np.asarray(d, np.int64)
    table = _powers(float(recall))
    inside = (d >= 0) & (d < table.size)
    if inside.all():
        return table[d]
    return np.where(inside, table[np.clip(d, 0, table.size - 1)],
                    np.vectorize(math.pow, otypes=[np.float64])(recall, d.astype(np.float64)))


def _pick(score: np.ndarray, rng) -> np.ndarray:
    """Row-wise argmax of ``score`` with ties broken at random (-inf: not a candidate)."""
    return np.argmax(score + rng.random(score.shape) * 1e-3, axis=1)


class JungleStrategy(Strategy):
    """Remembers the facts named in ``remember`` (with its ``recall``), then ``demand`` decides
    the first version's demands and ``hunt`` the second version's hunting."""

    game = "jungle_thrills"
    remember: tuple[str, ...] = ("sets", "refused", "pairs")

    # The shipped strategies have compiled twins (strategies/_jungle_thrills_compiled.py): the
    # same memory, the same draws from the seat streams, the same actions, for whole games in
    # one kernel. A subclass that changes any of these methods (or ``remember``) without a
    # ``policy`` of its own is played through ``act``.
    twin_methods = ("reset", "observe", "demand", "hunt", "guess", "demand_known",
                    "known_sets", "known_pairs", "bold")

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def _twin(self, kind: int, chase: float = 0.0):
        """(kind, knobs, memory) for the twin, or None where ``remember`` was changed."""
        if tuple(self.remember) != _REMEMBER[kind]:
            return None
        p = self.params
        return kind, (p.recall, p.bold, p.decline, chase), getattr(self, "mem", None)

    def reset(self, batch, n_players):
        self.mem = Memory(batch, n_players)

    def act(self, obs, legal, rng):
        self.observe(obs, rng)
        self.mem.tick(obs)
        if obs.version == 2:
            return self.hunt(obs, legal, rng)
        nd = (obs.held_count.shape[1] - 1) * obs.animals
        if legal.shape[1] == nd:
            return self.demand(obs, legal, rng)
        # rules.may_decline: the last action declines; a blind guess would hand the refused
        # player a demand (perhaps of one's own sets)
        a = self.demand(obs, legal[:, :nd], rng)
        blind = ~self.known_sets(obs).any(axis=1) & (obs.held_count[:, 0] > 0)
        no = legal[:, nd] & blind & (rng.random(len(a)) < self.params.decline)
        return np.where(no, nd, a)

    def observe(self, obs: Obs, rng) -> None:
        """Update the memory from this observation (every fact a perfect memory would hold)."""
        recall, last = self.params.recall, self.mem.last[obs.game, obs.seat][:, None]
        if obs.version == 1:
            if "sets" in self.remember:
                self.mem.track("sets", obs, obs.set_holder >= 0, obs.set_since,
                               obs.set_since <= last, recall, rng)
            if "refused" in self.remember:
                self.mem.track("refused", obs, obs.refused >= 0, obs.refused,
                               np.ones(obs.refused.shape, bool), recall, rng)
        elif "pairs" in self.remember:
            self.mem.track("pairs", obs, obs.pair_animal >= 0, obs.pair_seen,
                           obs.pair_formed <= last, recall, rng)

    # -- first version
    def known_sets(self, obs: Obs) -> np.ndarray:
        """bool[n, S]: sets this player remembers held by another player."""
        return self.mem.known("sets", obs, obs.set_holder.shape[1:]) & (obs.set_holder > 0)

    def guess(self, obs: Obs, legal: np.ndarray, rng, target_score: np.ndarray) -> np.ndarray:
        """A guess: the target by ``target_score`` (offsets 0..P-1; only those with a legal
        demand), then an animal not remembered refused by that target."""
        n, p = obs.held_count.shape
        lg = legal.reshape(n, p - 1, obs.animals)
        ts = np.where(lg.any(axis=2), target_score[:, 1:].astype(np.float64), -np.inf)
        o = _pick(ts, rng)
        rows = np.arange(n)
        ok = lg[rows, o]
        fresh = ok & ~self.mem.known("refused", obs, obs.refused.shape[1:])[rows, o + 1]
        ok = np.where(fresh.any(axis=1)[:, None], fresh, ok)
        x = _pick(np.where(ok, 0.0, -np.inf), rng)
        return obs.demand_action(o + 1, x)

    def demand_known(self, obs: Obs, legal, rng, set_score, target_score) -> np.ndarray:
        """Demand the remembered set with the best ``set_score``; guess (by ``target_score``)
        where no set held by another player is remembered."""
        known = self.known_sets(obs)
        s = _pick(np.where(known, set_score, -np.inf), rng)
        rows = np.arange(len(obs.game))
        a = obs.demand_action(np.maximum(obs.set_holder[rows, s], 1), obs.set_animal[rows, s])
        return np.where(known[rows, s], a, self.guess(obs, legal, rng, target_score))

    def demand(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        return self.guess(obs, legal, rng, obs.held_count)

    # -- second version
    def known_pairs(self, obs: Obs) -> np.ndarray:
        return self.mem.known("pairs", obs, obs.pair_animal.shape[1:])

    def hunt(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        """Hunt a pair remembered to be of the card's animal; else, with probability ``bold``,
        a pair not remembered to be another animal; else do not go hunting."""
        n = len(obs.game)
        known = self.known_pairs(obs)
        present = obs.pair_animal >= 0
        match = known & present & (obs.pair_animal == obs.card_animal_now[:, None])
        unknown = present & ~known
        j = _pick(np.where(match, 1.0, np.where(unknown, 0.0, -np.inf)), rng)
        rows = np.arange(n)
        maybe = unknown[rows, j] & (rng.random(n) < self.bold(obs))
        a = np.where(match[rows, j] | maybe, HUNT0 + j, PASS)
        return np.where(legal[rows, a], a, PASS)

    def bold(self, obs: Obs) -> np.ndarray:
        return np.full(len(obs.game), self.params.bold)


class Rememberer(JungleStrategy):
    name = "rememberer"
    summary = ("tries to remember everything (`recall`): demands the most valuable set it "
               "remembers, else guesses at the biggest holder; hunts a remembered pair, or an "
               "unknown one with probability `bold`")

    class Params(_Params):
        recall: float = recall_knob(0.95)
        bold: float = bold_knob(0.3)
        decline: float = decline_knob(0.0)

    def demand(self, obs, legal, rng):
        return self.demand_known(obs, legal, rng, obs.set_points.astype(np.float64),
                                 obs.held_count)

    def policy(self):
        return self._twin(K_REMEMBERER)


class Leader(JungleStrategy):
    name = "leader_hunter"
    summary = ("goes after the leader: demands a remembered set from the opponent with most "
               "points (won plus remembered held), else guesses at the leader; hunting grows "
               "bolder the further behind it is")

    class Params(_Params):
        recall: float = recall_knob(0.8)
        bold: float = bold_knob(0.3, "when level on points")
        decline: float = decline_knob(0.5)
        chase: float = Field(0.02, ge=0, description=(
            "extra boldness per point behind the best opponent (less when ahead)"))

    def standing(self, obs):
        """float[n, P]: points each player has won (this match) or is believed to hold."""
        p = obs.held_count.shape[1]
        pts = np.where(self.known_sets(obs), obs.set_points, 0)
        at = obs.set_holder[:, :, None] == np.arange(p)[None, None, :]
        held = np.einsum("ns,nsp->np", pts, at)
        return obs.won_points + obs.total + held + 0.5 * obs.held_count

    def demand(self, obs, legal, rng):
        stand = self.standing(obs)
        rows = np.arange(len(obs.game))
        holder = stand[rows[:, None], np.maximum(obs.set_holder, 0)]
        return self.demand_known(obs, legal, rng, holder * 100 + obs.set_points, stand)

    def bold(self, obs):
        pts = obs.won_points.astype(np.float64) + obs.total
        gap = pts[:, 1:].max(axis=1) - pts[:, 0]
        return np.clip(self.params.bold + self.params.chase * gap, 0.0, 1.0)

    twin_methods = JungleStrategy.twin_methods + ("standing",)

    def policy(self):
        return self._twin(K_LEADER, self.params.chase)


class Guesser(JungleStrategy):
    name = "guesser"
    summary = ("does not track who holds what: asks whoever holds most sets for an animal it "
               "does not remember him refusing; in the second version knows only pairs it saw "
               "turned up in a wrong hunt, else hunts any pair with probability `bold`")
    remember = ("refused",)

    class Params(_Params):
        recall: float = recall_knob(0.8, "remembered refusal or revealed pair")
        bold: float = bold_knob(0.5)
        decline: float = decline_knob(0.0)

    def observe(self, obs, rng):
        super().observe(obs, rng)
        if obs.version == 2:
            # it does not watch pairs being made: only a pair turned up again in a wrong hunt
            # is a fact for it
            last = self.mem.last[obs.game, obs.seat][:, None]
            again = (obs.pair_animal >= 0) & (obs.pair_seen > obs.pair_formed)
            self.mem.track("pairs", obs, again, obs.pair_seen, obs.pair_formed <= last,
                           self.params.recall, rng)

    def policy(self):
        return self._twin(K_GUESSER)


K_REMEMBERER, K_LEADER, K_GUESSER = range(3)
# what each twin remembers (a subclass that changes ``remember`` has no twin)
_REMEMBER = {K_REMEMBERER: JungleStrategy.remember, K_LEADER: JungleStrategy.remember,
             K_GUESSER: ("refused",)}


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _jungle_thrills_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Rememberer, Leader, Guesser]
# the 3-player baseline's table (experiments/jungle_thrills-3p.yaml), first version
BENCHMARK = {"strategy": "rememberer", "params": {"recall": 0.9}, "players": 3,
             "mix": [("rememberer", {"recall": 0.95}), ("leader_hunter", {"recall": 0.8}),
                     ("guesser", {"recall": 0.8})]}

"""A game with known truths, for the sensitivity and skill tests (registered for a test only).

"Coin race": every player makes ``length`` decisions (0 or 1), then the winner is drawn from the
game's own stream. Seat 0's weight is 1 + ``bonus`` / 2 against 1 for every other seat, so
``bonus`` moves the first seat's edge and nothing else; ``length`` moves the game's length (turns
= length x players) and nothing else; ``decoy`` and ``colour`` change nothing at all. With
``skill`` > 0 a seat that chose 1 at every decision wins outright with probability ``skill`` (the
first such seat from a random start), so a strategy that always plays 1 beats one that plays at
random by a known amount. ``redraw`` deals other games with the same chances (it throws draws
away first): a field whose effect on every measure is known to be nothing, though it changes
every game.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from safari_sim.engine import chance
from safari_sim.engine.protocol import Game, Observation, Outcome, RulesError, rule
from strategies.base import Strategy

ID = "coin_race_test"


@dataclass(frozen=True)
class Rules:
    bonus: int = rule(1, "seat 0's extra weight, in halves", search=range(0, 4))
    decoy: int = rule(2, "changes nothing", search=range(0, 5))
    length: int = rule(3, "decisions per player", search=range(1, 6))
    colour: str = rule("red", "changes nothing", search=["red", "green", "blue"])
    skill: float = rule(0.0, "chance that a player who always chose 1 wins outright", search=(0.0, 1.0))
    redraw: int = rule(0, "draws thrown away first: other games, the same chances", search=range(0, 3))

    def validate(self):
        if self.length < 1:
            raise RulesError("length", "at least 1")
        if not 0 <= self.skill <= 1:
            raise RulesError("skill", "between 0 and 1")


@dataclass
class State:
    rs: np.ndarray
    players: int
    rules: Rules
    turn: np.ndarray
    ones: np.ndarray


@dataclass
class Obs(Observation):
    game: np.ndarray
    seat: np.ndarray
    kind: np.ndarray


class CoinRace(Game):
    id = ID
    name = "Coin Race (test)"
    min_players = 2
    max_players = 4
    Rules = Rules

    def n_actions(self, rules, n_players):
        return 2

    def init(self, rules, n_players, keys, log=False):
        b = len(keys)
        return State(np.asarray(keys, np.uint64).copy(), n_players, rules, np.zeros(b, np.int64),
                     np.ones((b, n_players), bool))

    def to_move(self, state):
        total = state.rules.length * state.players
        return np.where(state.turn < total, state.turn % state.players, -1)

    def legal(self, state):
        live = self.to_move(state) >= 0
        return np.repeat(live[:, None], 2, axis=1)

    def observe(self, state, games):
        games = np.asarray(games)
        return Obs(games.copy(), (state.turn[games] % state.players).copy(), np.zeros(len(games), np.int8))

    def step(self, state, actions):
        live = np.flatnonzero(self.to_move(state) >= 0)
        seat = state.turn[live] % state.players
        state.ones[live, seat] &= actions[live] == 1
        state.turn[live] += 1

    def outcome(self, state):
        b, p = state.ones.shape
        r = state.rules
        win = np.zeros((b, p))
        for g in range(b):
            for _ in range(r.redraw):
                chance.uniform(state.rs, g)
            u = chance.uniform(state.rs, g)
            skilled = np.flatnonzero(state.ones[g])
            if r.skill > 0 and len(skilled) and chance.uniform(state.rs, g) < r.skill:
                win[g, skilled[chance.below(state.rs, g, len(skilled))]] = 1
                continue
            w = np.ones(p)
            w[0] += r.bonus / 2
            win[g, min(int(np.searchsorted(np.cumsum(w) / w.sum(), u, side="right")), p - 1)] = 1
        rank = np.where(win == 1, 1, 2).astype(np.int16)
        lead = (np.floor(np.asarray([chance.uniform(state.rs, g) for g in range(b)]) * 3)).astype(np.int32)
        return Outcome(win.copy(), rank, win, np.full(b, r.length * p, np.int32),
                       {"lead_changes": lead, "margin": np.ones(b)})

    def describe(self, state, i):
        return f"game {i}"


GAME = CoinRace()


class Ones(Strategy):
    name = "ones"
    summary = "always 1"

    def act(self, obs, legal, rng):
        return np.ones(len(obs), np.int64)


@contextlib.contextmanager
def registered():
    """The game known to safari_sim.games (and its strategy to strategies) while inside."""
    import strategies as registry
    from safari_sim import games

    games._LOADED[ID] = GAME
    registry._CACHE[ID] = {**registry.strategies_for("__none__"), "ones": Ones}
    Ones.game = ID
    try:
        yield GAME
    finally:
        games._LOADED.pop(ID, None)
        registry._CACHE.pop(ID, None)
        registry._CACHE.pop("__none__", None)

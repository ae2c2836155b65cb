"""Worlds for search players: plausible states of the games a strategy observes.

A strategy class that sets ``wants_worlds = True`` is called as ``act(obs, legal, rng, worlds)``
by the play loop. ``worlds`` knows the game, its rules and player count, and deals, for any of
the observed games, a new state in which everything the seat to move cannot see is dealt again
(``Game.determinize``): ``worlds.deal(rows, keys)``, rows indexing the observation's games (they
may repeat), keys uint64 chance streams the strategy drew from its own stream (``world_keys``).
The real state is never handed out: every dealt state is new, and dealing leaves the real game
(its cards and its chance stream) untouched.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .chance import mix
from .protocol import Game, sealed

_M2 = np.uint64(0x94D049BB133111EB)


def has_worlds(game: Game) -> bool:
    """Whether ``game`` deals worlds (overrides ``Game.determinize``)."""
    return type(game).determinize is not Game.determinize


class Worlds:
    """Deals worlds of the games of one observation (see the module docstring)."""

    __slots__ = ("game", "rules", "n_players", "seat", "row_bytes", "_deal", "_decide")

    def __init__(self, game: Game, rules: Any, n_players: int, state: Any, games: np.ndarray,
                 seats: np.ndarray):
        self.game = game
        self.rules = rules
        self.n_players = n_players
        # bytes of one dealt world (a size, the same whatever the cards): a search deals at
        # most a memory budget of them at once
        self.row_bytes = game.row_bytes(state)
        # int64[n]: the seat to move in each observed game, sealed: the deal below reads the same
        # array, and a seat written into it would deal worlds seen from another seat's hand
        seats = self.seat = sealed(seats, copy=True)
        games = sealed(games, copy=True)

        def deal(rows: np.ndarray, keys: np.ndarray) -> Any:
            rows = np.asarray(rows, np.int64)
            return game.determinize(state, np.take(games, rows), np.take(seats, rows),
                                    np.ascontiguousarray(keys, np.uint64))

        def decide(strategy: Any, rows: np.ndarray, rng: Any, legal: np.ndarray) -> np.ndarray:
            return strategy.decide(state, np.take(games, np.asarray(rows, np.int64)), rng, legal)

        self._deal = deal  # the real state stays inside the closures
        self._decide = decide

    def __len__(self) -> int:
        return len(self.seat)

    def take(self, rows: np.ndarray) -> "Worlds":
        """The worlds of a subset of the observed games (as ``Observation.take``)."""
        rows = np.asarray(rows, np.int64)
        sub = object.__new__(Worlds)
        sub.game, sub.rules, sub.n_players = self.game, self.rules, self.n_players
        sub.row_bytes = self.row_bytes
        sub.seat = sealed(np.take(self.seat, rows))
        deal = self._deal
        sub._deal = lambda r, keys: deal(np.take(rows, np.asarray(r, np.int64)), keys)
        decide = self._decide
        sub._decide = lambda st, r, rng, legal: decide(st, np.take(rows, np.asarray(r, np.int64)),
                                                       rng, legal)
        return sub

    def decide(self, strategy: Any, rng: Any, legal: np.ndarray) -> np.ndarray:
        """A compiled heuristic's (``Heuristic``) action in each observed game, in the real
        game, for the seat to move (what a search asks its prior): the heuristic is held to that
        seat's knowledge by its game's tests, so the state it reads tells it nothing more."""
        return self._decide(strategy, np.arange(len(self.seat)), rng, legal)

    @property
    def available(self) -> bool:
        return has_worlds(self.game)

    def deal(self, rows: np.ndarray, keys: np.ndarray) -> Any:
        """A new state of ``len(rows)`` worlds: world i of observed game ``rows[i]``, for the seat
        to move there, its hidden cards dealt again from ``keys[i]`` (also its chance stream)."""
        if not self.available:
            raise NotImplementedError(f"{self.game.id} cannot deal worlds for search yet "
                                      f"(it has no determinize)")
        rows = np.asarray(rows, np.int64)
        if len(keys) != len(rows):
            raise ValueError(f"{len(keys)} keys for {len(rows)} worlds")
        return self._deal(rows, keys)


@njit(cache=True, _nrt=False)
def _derive(base, numbers, domain, out):
    for i in range(out.shape[0]):
        b = mix(base[i] ^ mix(np.uint64(domain) * _M2 + np.uint64(1)))
        for j in range(out.shape[1]):
            out[i, j] = mix(b ^ mix(np.uint64(numbers[i, j]) + _M2))


def seed_keys(rng: Any) -> np.ndarray:
    """uint64[n]: one key per observed game, from two draws of its seat stream (``rng``)."""
    u = rng.random((len(rng), 2))
    hi = (u[:, 0] * 2.0 ** 53).astype(np.uint64)
    lo = (u[:, 1] * 2.0 ** 53).astype(np.uint64)
    return hi ^ (lo << np.uint64(11))


def world_keys(base: np.ndarray, numbers: np.ndarray, domain: int) -> np.ndarray:
    """uint64 keys derived from ``base[i]`` (``seed_keys``) and ``numbers[i, j]`` (int64 [n, m]):
    a stream per (observed game, number) for each ``domain`` (e.g. 1 the world's deal and
    chance, 2 + s its seat s), the same whatever else is in the batch."""
    numbers = np.ascontiguousarray(numbers, np.int64)
    out = np.empty(numbers.shape, np.uint64)
    _derive(np.ascontiguousarray(base, np.uint64), numbers, domain, out)
    return out

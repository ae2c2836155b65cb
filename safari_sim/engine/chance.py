"""Chance: every game its own random stream, and every seat's strategy a stream of its own.

A stream is counter-based (splitmix64: the n-th draw is ``mix(key + n * GOLDEN)``), so its draws
depend only on its key, never on which batch, chunk, worker or process plays the game. Keys are
hashed from (experiment seed, variant, game or deal number, domain), so

- a game's deal and every chance draw (die rolls, steals, reshuffles) are the same whatever the
  batch size, chunk size or number of workers, and one game can be replayed alone from its row;
- the strategies' streams (domain ``SEAT``) are independent of the game's (domain ``DEAL``): a
  strategy that copies its own stream learns nothing about the deck or the dice.

Kernels hold the game's stream state as ``uint64[B]`` (one counter per game) and draw with
``below(rs, b, n)``, ``uniform(rs, b)`` and ``shuffle_row(row, n, rs, b)``. Strategies receive a
``SeatRandom``: a numpy-Generator-like object whose draws come one row per observed game from
that game's seat stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import warnings

import numpy as np
from numba import config, njit

if config.DISABLE_JIT:  # plain Python: numpy warns on the wrap-around the hash relies on
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, __name__)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32, _S11 = (np.uint64(s) for s in (30, 27, 31, 32, 11))
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53

# key domains: what a stream is for
DEAL, SEAT = 1, 2


@njit(cache=True, inline="always", _nrt=False)
def mix(z):
    """splitmix64's finaliser: a bijection on uint64 whose outputs pass BigCrush."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always", _nrt=False)
def next_u64(rs, b):
    """The next 64 random bits of stream ``b`` (advances ``rs[b]``)."""
    s = rs[b] + _GOLDEN
    rs[b] = s
    return mix(s)


@njit(cache=True, inline="always", _nrt=False)
def below(rs, b, n):
    """A uniform integer in [0, n) from stream ``b`` (n < 2**32): one multiply and a shift
    (Lemire), several times cheaper than numba's randint, which redraws until a value fits;
    the bias is below n / 2**32."""
    return np.int64(((next_u64(rs, b) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always", _nrt=False)
def uniform(rs, b):
    """A uniform float in [0, 1) from stream ``b``."""
    return np.float64(next_u64(rs, b) >> _S11) * _TO_UNIT


@njit(cache=True, inline="always", _nrt=False)
def shuffle_row(row, n, rs, b):
    """Fisher-Yates shuffle of ``row[:n]`` in place, from stream ``b``."""
    for i in range(n - 1, 0, -1):
        j = below(rs, b, i + 1)
        t = row[i]
        row[i] = row[j]
        row[j] = t


@njit(cache=True, _nrt=False)
def shuffle_rows(decks, n, rs):
    """Shuffle the first ``n`` entries of every row b of ``decks`` from stream b."""
    for b in range(decks.shape[0]):
        shuffle_row(decks[b], n, rs, b)


@njit(cache=True)
def _keys(seed, variant, numbers, domain, out):
    base = mix(mix(np.uint64(seed) + _GOLDEN) ^ (np.uint64(variant) * _M1 + np.uint64(domain)))
    for i in range(numbers.shape[0]):
        out[i] = mix(base ^ mix(np.uint64(numbers[i]) + _M2))


def stream_keys(seed: int, variant: int, numbers: np.ndarray, domain: int) -> np.ndarray:
    """uint64 keys of the streams numbered ``numbers`` (game or deal numbers)."""
    numbers = np.ascontiguousarray(numbers, dtype=np.int64)
    out = np.empty(numbers.shape[0], np.uint64)
    _keys(np.uint64(seed % 2**64), np.uint64(variant), numbers, np.uint64(domain), out)
    return out


@dataclass(frozen=True)
class Keys:
    """The streams of a batch of games: ``deal[b]`` keys game b's chance (shared by the
    rotations of one duplicate deal), ``seat[b, s]`` the strategy sitting in seat s."""

    deal: np.ndarray  # uint64[B]
    seat: np.ndarray  # uint64[B, P]

    def __len__(self) -> int:
        return len(self.deal)

    def take(self, rows) -> "Keys":
        return Keys(self.deal[rows], self.seat[rows])


def game_keys(seed: int, n_players: int, games: np.ndarray | int, variant: int = 0,
              deals: np.ndarray | None = None) -> Keys:
    """Keys of the games numbered ``games`` (an int n means games 0 .. n-1) of one variant.
    ``deals`` (default: the game numbers) names each game's deal, for duplicate seating."""
    games = np.arange(games) if np.isscalar(games) else np.asarray(games, np.int64)
    deals = games if deals is None else np.asarray(deals, np.int64)
    seat_numbers = (games[:, None] * n_players + np.arange(n_players)[None, :]).reshape(-1)
    return Keys(stream_keys(seed, variant, deals, DEAL),
                stream_keys(seed, variant, seat_numbers, SEAT).reshape(len(games), n_players))


@njit(cache=True, _nrt=False)
def _uniforms(rs, rows, out):
    k = out.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        for j in range(k):
            out[i, j] = uniform(rs, r)


class SeatRandom:
    """What a strategy draws from: for each observed game, the stream of the seat to move.

    The numpy Generator methods strategies use (``random``, ``integers``, ``uniform``), where
    ``size`` is the number of observed games or a shape whose first axis is: row i of every draw
    comes from game i's seat stream, so a game's strategy draws do not depend on which other games
    share its batch. Nothing here reaches the game's own stream, and the play loop hands each
    strategy a SeatRandom over a copy of its own seats' stream states (written back when it has
    answered), so no strategy can read or move another seat's draws.
    """

    __slots__ = ("_rs", "_rows")

    def __init__(self, rs: np.ndarray, rows: np.ndarray):
        self._rs = rs      # uint64[] seat-stream states
        self._rows = rows  # int64[n] row of each observed game's mover in _rs

    def __len__(self) -> int:
        return len(self._rows)

    def take(self, rows: np.ndarray) -> "SeatRandom":
        """The streams of some of the observed games (rows index them), drawing on the same
        states: what a strategy that decides for a subset of its games draws from."""
        return SeatRandom(self._rs, self._rows[np.asarray(rows, np.int64)])

    def _shape(self, size) -> tuple[int, ...]:
        n = len(self._rows)
        if size is None:
            size = n
        shape = (size,) if np.isscalar(size) else tuple(size)
        if not shape or shape[0] != n:
            raise ValueError(f"a strategy draws one row per observed game: size must be {n} "
                             f"or a shape ({n}, ...), not {size!r}")
        return shape

    def random(self, size=None) -> np.ndarray:
        shape = self._shape(size)
        out = np.empty((shape[0], int(np.prod(shape[1:], dtype=np.int64))), np.float64)
        _uniforms(self._rs, self._rows, out)
        return out.reshape(shape)

    def uniform(self, low=0.0, high=1.0, size=None) -> np.ndarray:
        return low + (np.asarray(high) - low) * self.random(size)

    def integers(self, low, high=None, size=None) -> np.ndarray:
        if high is None:
            low, high = 0, low
        u = self.random(size)
        return (np.asarray(low) + np.floor(u * (np.asarray(high) - low))).astype(np.int64)

    def states(self) -> np.ndarray:
        """uint64[n]: a copy of each observed game's stream state (for a compiled policy that
        draws in a kernel; ``advance`` writes back where it left them)."""
        return self._rs[self._rows].copy()

    def advance(self, states: np.ndarray) -> None:
        """Each observed game's stream goes on from ``states[i]`` (``states`` after drawing)."""
        self._rs[self._rows] = states

    def game(self, i: int) -> "GameRandom":
        """The stream of observed game i alone (a strategy written for one game at a time), on a
        copy of its state: ``settle(i, g)`` writes what it drew back, so that game i's next
        draws follow on."""
        return GameRandom(self._rs[self._rows[i:i + 1]].copy())

    def settle(self, i: int, g: "GameRandom") -> None:
        """Game i's stream goes on from where ``g`` (its ``game(i)``) left it."""
        self._rs[self._rows[i]] = g._rs[0]


_ROW0 = np.zeros(1, np.int64)


class GameRandom:
    """One game's seat stream, drawn a number at a time: the draws ``SeatRandom`` gives that
    game's row (``random()`` is its ``random(n)[i]``), so a per-game strategy and a numpy one
    drawing alike see the same numbers. It holds that one stream's state and nothing else."""

    __slots__ = ("_rs", "_out")

    def __init__(self, rs: np.ndarray):
        self._rs, self._out = rs, np.empty((1, 1), np.float64)

    def random(self) -> float:
        _uniforms(self._rs, _ROW0, self._out)
        return float(self._out[0, 0])

    def uniform(self, low: float = 0.0, high: float = 1.0) -> float:
        return low + (high - low) * self.random()

    def integers(self, low: int, high: int | None = None) -> int:
        """An int in [low, high) (``integers(n)``: in [0, n))."""
        if high is None:
            low, high = 0, low
        return int(low + np.floor(self.random() * (high - low)))

    def choice(self, options: Any) -> Any:
        """One of ``options`` (a sequence or an array), each as likely."""
        return options[self.integers(len(options))]


def deal_keys(n: int, seed: int = 0) -> np.ndarray:
    """The chance keys of games 0 .. n-1 (for tests and positions set up by hand)."""
    return game_keys(seed, 1, n).deal

"""No strategy can cheat, in any game: observations are read-only snapshots, the legal mask a
strategy gets is its own copy, strategies draw from their own streams (never the game's), and
every game is the same whatever batch it is played in.

Each test runs over every game in the registry, so a new game is held to it from its first day.
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import game_ids, get_game
from strategies import get_strategy
from strategies.base import Strategy, random_legal

GAMES = game_ids()


def _players(game):
    return min(max(3, game.min_players), game.max_players)


def _rules(game):
    # short games where the game allows it: these tests are about the protocol, not the rules
    r = game.make_rules()
    for name, value in (("rounds", 1), ("target_wins", 1), ("races", 1)):
        if hasattr(r, name):
            try:
                r = game.make_rules({name: value})
            except Exception:
                pass
    return r


def _arrays(obs):
    """Every array an observation holds, by name (fields, extras and arrays inside tuples)."""
    out = {}
    for name, v in vars(obs).items():
        if isinstance(v, np.ndarray):
            out[name] = v
        elif isinstance(v, tuple):
            for i, x in enumerate(v):
                if isinstance(x, np.ndarray):
                    out[f"{name}[{i}]"] = x
    return out


def _derived(obs):
    """The values an observation works out on demand (properties and cached properties)."""
    out = {}
    for name in dir(type(obs)):
        attr = getattr(type(obs), name, None)
        if isinstance(attr, (property, functools.cached_property)) and not name.startswith("_"):
            v = getattr(obs, name)
            if isinstance(v, np.ndarray):
                out[name] = v
    return out


def _play(game, strategies, batch, seed=5, first=0):
    players = _players(game)
    seating = (np.arange(players)[None, :] + np.arange(first, first + batch)[:, None]) % len(strategies) \
        if len(strategies) > 1 else np.zeros((batch, players), np.int64)
    keys = game_keys(seed, players, np.arange(first, first + batch))
    return play_batch(game, _rules(game), players, strategies, seating, keys)


class Vandal(Strategy):
    """Plays at random, but first tries to write into every array it is given, keeps every
    observation (and a deep copy of it) to check later that none has changed."""

    name = "vandal"

    def __init__(self):
        super().__init__()
        self.kept = []
        self.writes_refused = 0

    def act(self, obs, legal, rng):
        derived = _derived(obs)
        self.kept.append((obs, copy.deepcopy(_arrays(obs)), copy.deepcopy(derived)))
        for name, arr in list(_arrays(obs).items()) + list(derived.items()) + [("legal", legal)]:
            if arr.size == 0:
                continue
            try:
                arr.reshape(-1)[0] = arr.reshape(-1)[0]  # the gentlest write there is
            except ValueError:
                self.writes_refused += 1
            else:  # pragma: no cover - the failure this test exists for
                raise AssertionError(f"{type(obs).__name__}.{name} is writable")
        return random_legal(legal, rng)


@pytest.mark.parametrize("game_id", GAMES)
def test_observations_are_read_only_snapshots(game_id):
    game = get_game(game_id)
    vandal = Vandal()
    res = _play(game, [vandal], 24)
    assert vandal.writes_refused > 0
    for obs, arrays, derived in vandal.kept:
        now = _arrays(obs)
        assert now.keys() == arrays.keys()
        for name, before in arrays.items():
            assert np.array_equal(now[name], before), f"{name} changed after later steps"
        for name, before in derived.items():
            assert np.array_equal(getattr(obs, name), before), f"{name} changed after later steps"
    # and the games are exactly those of a plain random player (nothing was written)
    plain = _play(game, [get_strategy(game_id, "random")()], 24)
    assert np.array_equal(res.outcome.score, plain.outcome.score)
    assert np.array_equal(res.outcome.turns, plain.outcome.turns)


class Greedy(Strategy):
    """first_legal, drawing ``extra`` numbers from its stream at every decision."""

    name = "greedy_drawer"

    def __init__(self, extra):
        super().__init__()
        self.extra = extra

    def act(self, obs, legal, rng):
        if self.extra:
            rng.random((len(legal), self.extra))
        return np.argmax(legal, axis=1)


@pytest.mark.parametrize("game_id", GAMES)
def test_strategy_draws_do_not_touch_the_games_chance(game_id):
    """The same decisions with and without strategy draws: identical games (the dice, the deals
    and every shuffle come from the game's stream alone)."""
    game = get_game(game_id)
    a = _play(game, [Greedy(0)], 32)
    b = _play(game, [Greedy(7)], 32)
    assert np.array_equal(a.outcome.score, b.outcome.score)
    assert np.array_equal(a.outcome.turns, b.outcome.turns)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_game_is_the_same_in_any_batch(game_id):
    """Games 0..N played in batches of 1, 7 and N (random players, so seat streams matter too)."""
    game = get_game(game_id)
    strat = [get_strategy(game_id, "random")(), get_strategy(game_id, "first_legal")()]
    n = 21
    whole = _play(game, strat, n)
    for size in (1, 7):
        parts = [_play(game, strat, min(size, n - f), first=f) for f in range(0, n, size)]
        score = np.concatenate([p.outcome.score for p in parts])
        turns = np.concatenate([p.outcome.turns for p in parts])
        assert np.array_equal(score, whole.outcome.score), f"batch of {size}"
        assert np.array_equal(turns, whole.outcome.turns), f"batch of {size}"


@pytest.mark.parametrize("compiled", [False, True], ids=["lockstep", "compiled"])
@pytest.mark.parametrize("game_id", GAMES)
def test_shipped_strategies_play_a_game_the_same_in_any_batch(game_id, compiled):
    """The game's own strategies, seated in rotation: a strategy may draw only for the games it
    decides in (drawing a block for every observed game when one of them needs it would make a
    game's result depend on the rest of its batch, and ``parallel.batch`` change the results)."""
    import importlib

    game = get_game(game_id)
    mod = importlib.import_module(f"strategies.{game_id}")
    strat = [cls() for cls in mod.STRATEGIES if not getattr(cls, "wants_worlds", False)]
    players = _players(game)
    n = 24
    keys = game_keys(11, players, np.arange(n))
    seating = (np.arange(players)[None, :] + np.arange(n)[:, None]) % len(strat)
    whole = play_batch(game, _rules(game), players, strat, seating, keys, compiled=compiled)
    for size in (1, 5):
        parts = [play_batch(game, _rules(game), players, strat, seating[f:f + size],
                            keys.take(np.arange(f, min(f + size, n))), compiled=compiled)
                 for f in range(0, n, size)]
        score = np.concatenate([p.outcome.score for p in parts])
        turns = np.concatenate([p.outcome.turns for p in parts])
        assert np.array_equal(score, whole.outcome.score), f"batch of {size}"
        assert np.array_equal(turns, whole.outcome.turns), f"batch of {size}"


def test_seat_streams_are_not_the_game_stream():
    """A strategy's draws are not the game's: the keys of the two domains differ for every game,
    and a seat's draws do not depend on other games in the batch."""
    keys = game_keys(3, 4, 1000)
    assert len(set(keys.deal.tolist()) & set(keys.seat.reshape(-1).tolist())) == 0
    rs = keys.seat.reshape(-1).copy()
    alone = SeatRandom(rs.copy(), np.array([9])).random(1)
    together = SeatRandom(rs.copy(), np.array([2, 9, 17])).random(3)
    assert together[1] == alone[0]
    with pytest.raises(ValueError, match="one row per observed game"):
        SeatRandom(rs, np.array([1, 2])).random(5)


def test_stream_draws_are_uniform():
    """below(n) over many keys: each value about 1/n of the time (chi-square, alpha 1e-3)."""
    from scipy import stats

    from safari_sim.engine.chance import stream_keys

    rs = stream_keys(1, 0, np.arange(60_000), 1)
    draws = np.floor(SeatRandom(rs, np.arange(60_000)).random(60_000) * 6).astype(int)
    counts = np.bincount(draws, minlength=6)
    assert stats.chisquare(counts).pvalue > 1e-3

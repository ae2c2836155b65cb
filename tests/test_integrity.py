"""No strategy can cheat, in any game: observations are read-only snapshots, the legal mask a
strategy gets is its own copy, strategies draw from their own streams (never the game's), and
every game is the same whatever batch it is played in.

Each test runs over every game in the registry, so a new game is held to it from its first day.
"""

from __future__ import annotations

import copy
import re
import functools

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import game_ids, get_game
from strategies import get_strategy
from strategies.base import GameView, PerGame, Strategy, per_game, random_legal

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
    _play(game, [vandal], 8, seed=6)   # observations kept across games, too
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


# --- An attacker's tries (issue 29): flags, .base, private attributes, the handed streams ----

def _bases(x):
    """x and every array its ``.base`` leads to."""
    out = []
    while isinstance(x, np.ndarray):
        out.append(x)
        x = x.base
    return out


def _flip(arr):
    """Try to make ``arr`` or anything its ``.base`` leads to writable: how many gave way."""
    gave = 0
    for a in _bases(arr):
        try:
            a.flags.writeable = True
        except ValueError:
            continue
        gave += 1
    return gave


class Flipper(Strategy):
    """Plays at random, after trying to set ``flags.writeable`` back on every array it is
    handed (fields, arrays in tuples, derived values, the legal mask) and on their bases."""

    name = "flipper"

    def __init__(self):
        super().__init__()
        self.tried = self.gave = 0

    def act(self, obs, legal, rng):
        for arr in list(_arrays(obs).values()) + list(_derived(obs).values()) + [legal]:
            self.tried += 1
            self.gave += _flip(arr)
        return random_legal(legal, rng)


def _old_freeze(self):
    """Observation.freeze as it was: read-only views, whose flag a strategy could set back."""
    from safari_sim.engine.protocol import read_only as _ro  # noqa: F401 - documents the change
    for name, v in list(vars(self).items()):
        if isinstance(v, np.ndarray) and v.flags.writeable:
            v = v.view()
            v.flags.writeable = False
            object.__setattr__(self, name, v)
    return self


@pytest.mark.parametrize("game_id", GAMES)
def test_no_flag_or_base_of_what_a_strategy_gets_can_be_made_writable(game_id):
    game = get_game(game_id)
    flipper = Flipper()
    res = _play(game, [flipper], 16)
    assert flipper.tried > 0 and flipper.gave == 0
    plain = _play(game, [get_strategy(game_id, "random")()], 16)
    assert np.array_equal(res.outcome.score, plain.outcome.score)
    assert np.array_equal(res.outcome.turns, plain.outcome.turns)


def test_the_flag_test_catches_read_only_views(monkeypatch):
    """The positive control: with freeze() handing out plain read-only views (as before issue
    29), the test above finds arrays it can make writable, in every game."""
    from safari_sim.engine.protocol import Observation

    monkeypatch.setattr(Observation, "freeze", _old_freeze)
    for game_id in ("duck_duck_bruce", "jungle_thrills", "safari_sprint"):
        flipper = Flipper()
        _play(get_game(game_id), [flipper], 4)
        assert flipper.gave > 0, game_id


class Scribbler(Strategy):
    """first_legal, which then overwrites every stream state its rng holds."""

    name = "scribbler"

    def __init__(self, scribble):
        super().__init__()
        self.scribble = scribble
        self.sizes = []

    def act(self, obs, legal, rng):
        rs = object.__getattribute__(rng, "_rs")
        self.sizes.append((len(rs), len(legal)))
        if self.scribble:
            rs[:] = np.uint64(12345)
        return np.argmax(legal, axis=1)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_strategy_reaches_its_own_seats_streams_alone(game_id):
    """A strategy that overwrites every stream state its rng holds cannot move its opponents'
    draws (the random players beside it play the same games), and holds one state per game it
    decides in, never the other seats'."""
    game = get_game(game_id)
    rand = get_strategy(game_id, "random")
    quiet, loud = Scribbler(False), Scribbler(True)
    a = _play(game, [quiet, rand()], 8)
    b = _play(game, [loud, rand()], 8)
    assert np.array_equal(a.outcome.score, b.outcome.score)
    assert np.array_equal(a.outcome.turns, b.outcome.turns)
    assert loud.sizes and all(n == m for n, m in loud.sizes)


def _walk(*roots):
    """Every object reachable from ``roots`` through what a strategy can name: attributes
    (private ones and ``__slots__`` included), ``.base``, and the items of lists, tuples and
    dicts. Not dunder introspection (closures, frames, gc): docs/architecture.md says that is
    not guarded."""
    import types

    seen, stack = {}, list(roots)
    while stack:
        x = stack.pop()
        if id(x) in seen or x is None or isinstance(x, (bool, int, float, str, bytes, np.generic,
                                                         type, types.ModuleType,
                                                         types.FunctionType,
                                                         types.BuiltinFunctionType,
                                                         types.MethodType)):
            continue
        seen[id(x)] = x
        if isinstance(x, np.ndarray):
            stack.append(x.base)
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        else:
            stack.extend(getattr(x, "__dict__", {}).values())
            for cls in type(x).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    try:
                        stack.append(object.__getattribute__(x, slot))
                    except AttributeError:
                        pass
    return list(seen.values())


class Prober(PerGame):
    """A per-game strategy that, at every decision, follows everything its view, legal actions
    and stream lead to, tries to make every array it finds writable, and records what it
    reached; it also keeps the batch's observation (as the play loop handed it) to compare."""

    name = "prober"

    def __init__(self, view_type=None):
        super().__init__()
        self.view_type = view_type
        self.reached, self.batches, self.kept, self.gave = [], [], [], 0

    def act(self, obs, legal, rng):
        self.batches.append((obs, legal))
        if self.view_type is not None:   # the positive control's leaky view
            import strategies.base as base
            real = base.GameView
            base.GameView = self.view_type
            try:
                return super().act(obs, legal, rng)
            finally:
                base.GameView = real
        return super().act(obs, legal, rng)

    def choose(self, view, legal, rng):
        if len(self.reached) >= 120:   # enough decisions probed: play on
            return int(rng.choice(legal))
        values = [getattr(view, n) for n in dir(view)]
        found = _walk(view, legal, *values)
        for x in found:
            if isinstance(x, np.ndarray):
                self.gave += _flip(x)
        streams = _walk(rng)    # its own stream's state alone: one number
        assert all(x.size == 1 for x in streams if isinstance(x, np.ndarray)), streams
        self.kept.append(found + streams)   # alive to the end, so no id is reused
        self.reached.append({id(x) for x in found + streams})
        return int(rng.choice(legal))


def _batch_ids(obs, legal):
    """The ids of a batch's observation, its per-game arrays and their bases, and its legal
    mask: what no one game's view may reach (shared values are the same for every game)."""
    ids = {id(obs), id(legal)} | {id(b) for b in _bases(legal)}
    for name, v in vars(obs).items():
        if name in obs.shared:
            continue
        for arr in (v if isinstance(v, tuple) else (v,)):
            if isinstance(arr, np.ndarray) and arr.ndim and len(arr) == len(obs):
                ids |= {id(b) for b in _bases(arr)}
    return ids


def _probe(game, prober):
    res = _play(game, [prober], 6)
    batch = set().union(*(_batch_ids(o, lg) for o, lg in prober.batches if len(o) > 1))
    return res, batch, set().union(*prober.reached)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_per_game_function_reaches_its_own_game_alone(game_id):
    game = get_game(game_id)
    prober = Prober()
    res, batch, reached = _probe(game, prober)
    assert batch and reached and not (batch & reached)
    assert prober.gave == 0
    plain = _play(game, [per_game(_random_pick, "pick")()], 6)
    assert np.array_equal(res.outcome.score, plain.outcome.score)


def _random_pick(view, legal, rng):
    return int(rng.choice(legal))


def test_the_probe_catches_a_view_that_keeps_the_batch():
    """The positive control: a view that keeps the batch's observation in a private attribute
    (as GameView's ``_cols`` did before issue 29) is found."""

    class Leaky(GameView):
        __slots__ = ("_obs",)

        def __init__(self, obs, i, cols=None):
            super().__init__(obs, i, cols)
            object.__setattr__(self, "_obs", obs)

    prober = Prober(view_type=Leaky)
    _, batch, reached = _probe(get_game("duck_duck_bruce"), prober)
    assert batch & reached


class Answer(Strategy):
    """Answers every decision with ``value`` (and the first legal action where it is None)."""

    name = "answer"

    def __init__(self, value):
        super().__init__()
        self.value = value

    def act(self, obs, legal, rng):
        first = np.argmax(legal, axis=1)
        return [self.value] + first[1:].tolist() if self.value is not None else first


@pytest.mark.parametrize("value", [0.5, "1", True, None, float("nan")])
def test_an_action_that_is_not_a_whole_number_is_refused(value):
    from safari_sim.engine.play import IllegalActionError

    game = get_game("duck_duck_bruce")
    if value is None:   # a list holding None
        strat = Answer(0)
        strat.act = lambda obs, legal, rng: [None] * len(legal)
    else:
        strat = Answer(value)
    with pytest.raises(IllegalActionError) as e:
        _play(game, [strat], 4)
    msg = str(e.value)
    assert "strategy 'answer' chose" in msg and "duck_duck_bruce game 0" in msg
    assert repr(value) in msg and "which is not a whole action number" in msg
    # whole numbers of any type are actions: 1.0, numpy integers
    ok = Answer(0)
    ok.act = lambda obs, legal, rng: np.argmax(legal, axis=1).astype(float)
    assert _play(game, [ok], 4).decisions > 0


@pytest.mark.parametrize("value", [0.5, "1"])
def test_a_per_game_function_answering_a_fraction_is_refused(value):
    from safari_sim.engine.play import IllegalActionError

    strat = per_game(lambda view, legal, rng: value, "fraction")()
    with pytest.raises(IllegalActionError, match=rf"'fraction' chose {re.escape(repr(value))}"):
        _play(get_game("duck_duck_bruce"), [strat], 3)


class WorldsFlipper(Strategy):
    """A search-style strategy (``wants_worlds``) that tries to make every array its Worlds
    leads to writable (a seat written there would deal worlds seen from another seat's hand)."""

    name = "worlds_flipper"
    wants_worlds = True

    def __init__(self):
        super().__init__()
        self.tried = self.gave = 0

    def act(self, obs, legal, rng, worlds):
        for x in _walk(worlds, worlds.take(np.arange(len(worlds)))):
            if isinstance(x, np.ndarray):
                self.tried += 1
                self.gave += _flip(x)
        return random_legal(legal, rng)


@pytest.mark.parametrize("game_id", ["duck_duck_bruce", "bluff_in_zoo"])
def test_a_worlds_seats_cannot_be_made_writable(game_id):
    flipper = WorldsFlipper()
    _play(get_game(game_id), [flipper], 6)
    assert flipper.tried > 0 and flipper.gave == 0

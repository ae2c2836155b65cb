"""Jungle Thrills' compiled twins (strategies/_jungle_thrills_compiled.py) against the numpy
strategies they were written from: the same games, the same memory, the same seat-stream draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys, uniform
from safari_sim.engine.play import _compiled_play, play_batch, play_on
from safari_sim.games import get_game
from strategies import get_strategy
from strategies import _jungle_thrills_compiled as compiled
from strategies.jungle_thrills import Guesser, Leader, Rememberer

G = get_game("jungle_thrills")

# the three shipped heuristics with their knobs moved (perfect and no memory among them)
SPECS = [("rememberer", {"recall": 0.9, "bold": 0.45, "decline": 0.3}),
         ("leader_hunter", {"recall": 0.7, "bold": 0.2, "decline": 0.8, "chase": 0.1}),
         ("guesser", {"recall": 0.85, "bold": 0.6, "decline": 0.5}),
         ("rememberer", {"recall": 1.0}),
         ("guesser", {"recall": 0.0, "bold": 0.9})]

RULES = [{}, {"version": 2}, {"may_decline": True, "next_turn": "asker",
          "asking_ends": "no_demand", "set_handed_over": "first"},
         {"version": 2, "hunt_first": False, "rounds": 2},
         {"held_count_at_end": True, "asking_ends": "sole_holder", "missed_calls": 0.1},
         {"animals": 5, "animal_values": [1, 2, 3], "hunter_cards": 3, "rounds": None,
          "target": 40}]


def _strats(specs=SPECS):
    return [get_strategy(G.id, n)(**p) for n, p in specs]


def _seating(players, n, k):
    return (np.arange(players)[None, :] + np.arange(n)[:, None]) % k


def _both(rules, players, specs=SPECS, n=160, seed=3, prefix=0):
    """Play the same games compiled and through the lockstep loop (after ``prefix`` lockstep
    steps for both); returns, per path, the state, decisions, strategies and seat streams."""
    r = G.make_rules(rules)
    keys = game_keys(seed, players, n)
    seating = _seating(players, n, len(specs))
    out = []
    for fast in (True, False):
        st = G.init(r, players, keys.deal)
        strats = _strats(specs)
        for s in strats:
            s.reset(n, players)
        rs = keys.seat.reshape(-1).copy()
        if prefix:
            with pytest.raises(RuntimeError, match="still running"):  # stopped part-way
                play_on(G, st, strats, seating, rs, max_steps=prefix, compiled=False)
            assert (st.mover >= 0).any()
        d = play_on(G, st, strats, seating, rs, compiled=fast)
        out.append((st, d, strats, rs))
    return out


def _same_games(fast, slow):
    (fs, fd, fstr, frs), (ss, sd, sstr, srs) = fast, slow
    assert fd == sd
    assert (fs.mover < 0).all() and (ss.mover < 0).all()
    fo, so = G.outcome(fs), G.outcome(ss)
    assert np.array_equal(fo.score, so.score)
    assert np.array_equal(fo.turns, so.turns)
    assert set(fo.stats) == set(so.stats)
    for k in so.stats:
        assert np.array_equal(fo.stats[k], so.stats[k], equal_nan=True), k
    assert np.array_equal(fs.dr, ss.dr)
    # the same draws from every seat's stream, to the last one
    assert np.array_equal(frs, srs)
    # and the same memory left in every strategy
    for a, b in zip(fstr, sstr):
        assert np.array_equal(a.mem.last, b.mem.last)
        for name in set(a.mem.facts) | set(b.mem.facts):
            x = a.mem.facts.get(name, np.zeros_like(b.mem.facts.get(name)))
            y = b.mem.facts.get(name, np.zeros_like(x))
            assert np.array_equal(x, y), name


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_compiled_twins_play_the_same_games_as_the_numpy_strategies(players, rules):
    fast, slow = _both(rules, players)
    _same_games(fast, slow)
    st, decisions = slow[0], slow[1]
    assert decisions > 0
    o = G.outcome(st)
    if G.make_rules(rules).version == 1:
        assert o.stats["demands"].sum() > 0
    else:
        assert o.stats["hunts_won"].sum() > 0


@pytest.mark.parametrize("rules", [{}, {"version": 2}])
def test_compiled_play_goes_on_from_a_game_the_loop_began(rules):
    """Part-played by the lockstep loop, finished by the kernel: the memory the numpy
    strategies built is the one the twins go on with."""
    fast, slow = _both(rules, 3, prefix=4)
    _same_games(fast, slow)


def test_play_batch_takes_the_compiled_path_for_the_shipped_table():
    strats = _strats()
    assert _compiled_play(strats) is not None
    r = G.make_rules()
    seating = _seating(3, 64, len(strats))
    a = play_batch(G, r, 3, strats, seating, game_keys(8, 3, 64))
    b = play_batch(G, r, 3, _strats(), seating, game_keys(8, 3, 64), compiled=False)
    assert a.times["observe"] == 0.0 and b.times["observe"] > 0.0   # the kernel played a
    assert a.decisions == b.decisions
    assert np.array_equal(a.outcome.score, b.outcome.score)


def test_a_changed_strategy_is_not_played_by_its_compiled_twin():
    class Forgetful(Rememberer):
        def observe(self, obs, rng):
            pass

    class Bolder(Leader):
        def bold(self, obs):
            return np.ones(len(obs.game))

    class Tracker(Guesser):
        remember = ("refused", "sets")

    class OwnAct(Guesser):
        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

    class Twin(Rememberer):  # a subclass that changes nothing keeps its twin
        pass

    for cls in (Forgetful, Bolder, Tracker, OwnAct):
        assert cls().compiled_policy() is None, cls.__name__
    assert Twin().compiled_policy() is not None
    assert _compiled_play([Rememberer(), Forgetful()]) is None
    assert _compiled_play([Rememberer(), get_strategy(G.id, "random")()]) is None
    assert _compiled_play([Rememberer(), Leader(), Guesser()]) is not None


def test_reading_a_stream_ahead_gives_its_next_draws():
    rs = np.array([5, 77, 2**63 + 9], np.uint64)
    ahead = [compiled._u(rs, 1, i) for i in range(1, 9)]
    copy = rs.copy()
    drawn = [uniform(copy, 1) for _ in range(8)]
    assert ahead == drawn
    compiled._skip(rs, 1, 8)
    assert np.array_equal(rs, copy)


def test_the_powers_table_is_the_power_numpy_takes():
    recall = np.array([0.95, 0.8, 0.123456789])
    pw = compiled._powers(recall)
    d = np.arange(compiled.NPOW, dtype=np.float64)
    for k, x in enumerate(recall):
        assert np.array_equal(pw[k], [math.pow(x, v) for v in d])   # the C library's pow
        assert compiled._pow(pw[k], x, 3 * compiled.NPOW) == x ** float(3 * compiled.NPOW)

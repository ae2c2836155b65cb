"""Animal Hunt's compiled twins (strategies/_animal_hunt_compiled.py): the whole-game kernel and
the lockstep loop play the same games, bit for bit, with the same memories and the same draws
from the seat streams; a changed strategy is not played by a twin."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch, play_on
from safari_sim.games import get_game
from safari_sim.games.animal_hunt import P_GROUND, P_KINDS
from compiled_check import assert_same_games
from strategies import get_strategy
from strategies.animal_hunt import Guesser, Prober, Rememberer

G = get_game("animal_hunt")

# the three shipped heuristics, forgetful and with their knobs moved, and each at its defaults
FORGETFUL = [("rememberer", {"recall": 0.8, "ask_min": 0.1}),
             ("prober", {"recall": 0.9, "probe_min": 0.5}),
             ("guesser", {"recall": 0.7, "ask": 0.3})]
# ask_min 0.7: float32(0.7) < 0.7, and a chance of 7/10 lands on it (numpy compares in float32)
PERFECT = [("rememberer", {"ask_min": 0.7}), ("prober", {}), ("guesser", {})]
SPECS = FORGETFUL + PERFECT


def strategies(specs=SPECS):
    return [get_strategy(G.id, n)(**p) for n, p in specs]


def seating_of(players, games, n):
    return (np.arange(players)[None, :] + np.arange(games)[:, None]) % n


def both_ways(players, rules, specs=SPECS, games=200, seed=9, log=False):
    r = G.make_rules(rules)
    keys = game_keys(seed, players, games)
    out = []
    for compiled in (True, False):
        strats = strategies(specs)
        out.append(play_batch(G, r, players, strats, seating_of(players, games, len(strats)),
                              keys, log=log, compiled=compiled))
    return out


def assert_same(fast, slow):
    assert_same_games(fast, slow, ("g", "pp", "hand", "ground", "known", "seen", "lack", "asked",
                                   "scored", "ducky", "rs"))


@pytest.mark.parametrize("players,rules", [
    (2, {}),
    (3, {}),
    (4, {}),
    (3, {"pair_turns_again": False, "empty_hand_ends": "turn", "ducky_points": 3}),
    (4, {"animals": 4, "numbers": 5, "hand_sizes": [8, 6, 4], "last_pair_takes_ducky": False}),
])
def test_compiled_twins_play_the_same_games_as_the_numpy_strategies(players, rules):
    assert _compiled_play(strategies()) is not None     # the whole-game kernel is taken
    fast, slow = both_ways(players, rules)
    assert fast.times["observe"] == 0.0 and fast.times["strategies"] == 0.0
    assert slow.times["strategies"] > 0.0
    assert_same(fast, slow)
    stats = slow.outcome.stats
    for k in ("pairs_shown", "pairs_asked", "pairs_flipped", "asks_failed"):
        assert stats[k].sum() > 0, k


@pytest.mark.parametrize("name", ["rememberer", "prober", "guesser"])
def test_each_heuristic_alone_forgetful_and_perfect_at_every_count(name):
    for players in (2, 3, 4):
        for recall in (1.0, 0.5):
            fast, slow = both_ways(players, {}, specs=[(name, {"recall": recall})], games=60,
                                   seed=players)
            assert_same(fast, slow)


@pytest.mark.parametrize("players", [3, 4])
def test_memories_and_seat_streams_end_the_same(players):
    """The twins keep the strategies' own memory arrays and draw from the seat streams as the
    numpy strategies do: 30 steps in lockstep (the memories filled), then the rest of the batch
    compiled, against all of it in lockstep: the games, the memories and the streams end the
    same (the way a search plays its worlds out, from the middle of games)."""
    r = G.make_rules()
    games = 48
    keys = game_keys(5, players, games)
    ends = []
    for compiled in (True, False):
        st = G.init(r, players, keys.deal)
        strats = strategies(FORGETFUL)
        for s in strats:
            s.reset(games, players)
        seat_rs = keys.seat.reshape(-1).copy()
        seating = seating_of(players, games, len(strats))
        with pytest.raises(RuntimeError, match="still running"):
            play_on(G, st, strats, seating, seat_rs, compiled=False, max_steps=30)
        assert all(s.memory.facts.any() for s in strats)
        n = play_on(G, st, strats, seating, seat_rs, compiled=compiled)
        ends.append((n, st, seat_rs, [(s.memory.facts.copy(), s.memory.turn.copy())
                                      for s in strats]))
    (n1, a, rs1, m1), (n2, b, rs2, m2) = ends
    assert n1 == n2 > 0
    for name in ("g", "pp", "hand", "ground", "known", "lack", "asked", "dr"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(rs1, rs2)
    for (f1, t1), (f2, t2) in zip(m1, m2):
        assert np.array_equal(f1, f2) and np.array_equal(t1, t2)


def test_the_fused_kernel_writes_the_same_log():
    fast, slow = both_ways(3, {}, games=6, log=True)
    assert_same(fast, slow)
    for b in range(6):
        assert G.describe(fast.state, b) == G.describe(slow.state, b)


def test_a_changed_strategy_is_not_played_by_its_compiled_twin():
    class Bold(Rememberer):
        def choose(self, obs, known, lacks, u):
            return np.full(len(obs.game), obs.show_action())

    class Picky(Prober):
        def draws(self, obs):
            return 3

    class Actor(Guesser):
        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

    class Tuned(Guesser):   # knobs only: still the twin
        pass

    for s in (Rememberer(), Prober(recall=0.5), Guesser(), Tuned(ask=0.9)):
        assert s.compiled_policy() is not None
    for s in (Bold(), Picky(), Actor()):
        assert s.compiled_policy() is None
    assert _compiled_play([Rememberer(), Bold()]) is None
    assert _compiled_play([Rememberer(), get_strategy(G.id, "random")()]) is None


def _play_in_batches(players, specs, size, compiled, games=24, seed=11):
    """Games 0..games-1 played with ``play_on`` in batches of ``size`` (each batch dealt from
    ``keys.take``, its strategies reset for it): every state array, the seat streams and the
    strategies' memories, joined in game order (a memory row is b * P + seat, so the rows of
    consecutive batches join into the rows of the whole batch)."""
    r = G.make_rules()
    keys = game_keys(seed, players, np.arange(games))
    parts = []
    for f in range(0, games, size):
        idx = np.arange(f, min(f + size, games))
        part = keys.take(idx)
        st = G.init(r, players, part.deal)
        strats = strategies(specs)
        for s in strats:
            s.reset(len(idx), players)
        seat_rs = part.seat.reshape(-1).copy()
        seating = (np.arange(players)[None, :] + idx[:, None]) % len(strats)
        play_on(G, st, strats, seating, seat_rs, compiled=compiled)
        arrays = {name: getattr(st, name) for name in ("g", "pp", "hand", "ground", "known",
                                                       "seen", "lack", "asked", "scored",
                                                       "ducky", "dr", "rs")}
        arrays["seat_rs"] = seat_rs
        nf = int(st.params[P_GROUND]) + players * int(st.params[P_KINDS])
        for i, s in enumerate(strats):
            if s.memory.recall < 1.0:   # not sized when the strategy never sat in this batch
                none = s.memory.facts is None
                arrays[f"facts{i}"] = np.zeros((len(idx) * players, nf), bool) if none \
                    else s.memory.facts
                arrays[f"turn{i}"] = np.zeros(len(idx) * players, np.int32) if none \
                    else s.memory.turn
        parts.append((arrays, G.outcome(st)))
    joined = {k: np.concatenate([a[k] for a, _ in parts]) for k in parts[0][0]}
    for name in ("score", "turns"):
        joined[name] = np.concatenate([getattr(o, name) for _, o in parts])
    return joined


@pytest.mark.parametrize("players", [3, 4])
def test_compiled_twins_play_each_game_the_same_in_any_batch(players):
    """The twins, forgetful and perfect, seated in rotation: games 0..23 in batches of 1, 5 and
    24, compiled, end exactly as the whole batch played in lockstep: the games, the scores, the
    seat streams and every seat's memory row (a memory or stream indexed by anything but the
    batch row and seat, or scratch left over from another game, would show here)."""
    ref = _play_in_batches(players, SPECS, 24, compiled=False)
    assert any(k.startswith("facts") and ref[k].any() for k in ref)   # memories were used
    for compiled, size in ((True, 24), (True, 5), (True, 1), (False, 5), (False, 1)):
        got = _play_in_batches(players, SPECS, size, compiled=compiled)
        assert set(got) == set(ref)
        for k in ref:
            assert np.array_equal(got[k], ref[k]), (compiled, size, k)


def test_one_strategy_seated_under_two_indices_keeps_one_memory():
    """The same forgetful instance at two seating indices (one Memory): the kernel keeps a copy
    per index, and the memory it leaves is every seat's, as the lockstep loop leaves it."""
    players, n = 3, 10
    keys = game_keys(3, players, np.arange(n))
    out = []
    for compiled in (True, False):
        s = Rememberer(recall=0.8)
        s.reset(n, players)
        st = G.init(G.make_rules(), players, keys.deal)
        seat_rs = keys.seat.reshape(-1).copy()
        play_on(G, st, [s, s], seating_of(players, n, 2), seat_rs, compiled=compiled)
        out.append((G.outcome(st).score, seat_rs, s.memory.facts.copy(), s.memory.turn.copy()))
    (a, rs1, f1, t1), (b, rs2, f2, t2) = out
    assert f2.any()
    assert np.array_equal(a, b) and np.array_equal(rs1, rs2)
    assert np.array_equal(f1, f2) and np.array_equal(t1, t2)

"""Hi-Lo Hijinks' shipped heuristics, each one compiled policy
(strategies/_hi_lo_hijinks_compiled.py): the whole-game kernel and the lockstep loop (each
heuristic's ``decide`` for its rows) play the same games, decision for decision, to the last
statistic; a user's strategy built on one is played through its own ``act``. (That each acts only
on what its seat may know: tests/test_hi_lo_hijinks.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from tests.compiled_check import assert_same_games
from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch
from safari_sim.games import get_game
from safari_sim.games import hi_lo_hijinks as hl
from strategies import get_strategy
from strategies.hi_lo_hijinks import Dumper, Giver, Safe

from heuristics import choose

G = get_game("hi_lo_hijinks")

# the three shipped heuristics at their defaults and with every knob moved off it
SPECS = [("safe", {}), ("dumper", {}), ("giver", {}),
         ("safe", {"majority": True, "spoil": 0.5, "explorer_cost": 0.5, "reverse": False}),
         ("dumper", {"max_stack": 7, "until_deck": 10, "worst_at_least": 2.0,
                     "dump_explorers": False, "spoil": 0.25, "match_bonus": 1.0,
                     "explorer_cost": 4.0}),
         ("giver", {"target": "next", "at_least": 0.0, "explorer_first": False,
                    "match_bonus": 2.0, "spoil": 1.0, "explorer_cost": 0.0}),
         ("safe", {"give": False, "match_bonus": 1.0, "spoil": 2.0}),
         ("giver", {"at_least": 1.0, "spoil": 0.5})]


def both_ways(rules, players, strats, seating, keys):
    """The same games played by the whole-game kernel and by the lockstep loop; asserts every
    outcome column and the decision count equal, returns (compiled, lockstep) results."""
    fast = play_batch(G, rules, players, strats, seating, keys)
    slow = play_batch(G, rules, players, strats, seating, keys, compiled=False)
    assert fast.times["strategies"] == 0.0 and slow.times["strategies"] > 0.0  # the two paths
    assert_same_games(fast, slow)
    return fast, slow


@pytest.mark.parametrize("players,rules", [
    (2, {}),
    (3, {}),
    (4, {}),
    (3, {"majority_tie": "discard", "explorer_own_type": False, "explorer_points": 6}),
    (4, {"younger": True, "hand_size": 3}),
    (2, {"values": 8, "copies": 3, "higher_up_to": 4, "draw_per_turn": 2}),
    (3, {"reverse_on_match": False, "animals": 4, "values": 5}),
])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(players, rules):
    """Mixed tables of the shipped heuristics with their knobs moved: the whole-game kernel
    and the lockstep loop give the same games, every outcome column, the drama and the
    decision count; the state they leave is the same too."""
    strats = [get_strategy(G.id, n)(**p) for n, p in SPECS]
    assert _compiled_play(strats) is not None
    B = 240
    # every strategy meets every other, in every seat
    seating = (np.arange(players)[None, :] * (1 + np.arange(B)[:, None] // len(SPECS))
               + np.arange(B)[:, None]) % len(SPECS)
    r = G.make_rules(rules)
    keys = game_keys(21, players, B)
    fast, slow = both_ways(r, players, strats, seating, keys)
    for f in ("g", "pp", "hand", "pile", "ptype", "slen", "higher", "stype", "known", "dr"):
        assert np.array_equal(getattr(fast.state, f), getattr(slow.state, f)), f
    assert np.array_equal(fast.state.view.mover, slow.state.view.mover)
    assert (fast.state.view.mover == -1).all()
    # the games went through every decision the policies answer
    st = slow.outcome.stats
    assert st["matches"].sum() > 0 and st["stacks_taken"].sum() > 0
    assert st["explorer_plays"].sum() > 0 or r.younger
    if r.reverse_on_match:
        assert st["reversals"].sum() > 0
    if r.give_on_match and not r.younger:
        assert st["cards_given"].sum() > 0


def test_each_heuristic_alone_plays_the_same_games():
    """One heuristic in every seat (the bench's `same` row), each of the three."""
    for name, params in SPECS[:6]:
        strats = [get_strategy(G.id, name)(**params)]
        seating = np.zeros((120, 3), np.int64)
        keys = game_keys(4, 3, 120)
        both_ways(G.make_rules(), 3, strats, seating, keys)


def test_a_user_strategy_built_on_a_heuristic_is_played_through_its_act():
    """A subclass that writes its own ``act`` is a numpy strategy like any user's: never played
    by the whole-game kernel, and its act is what plays."""
    class FirstLegal(Safe):
        reads_state = False

        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

        def compiled_policy(self):
            return None

    for cls in (Safe, Dumper, Giver):
        assert cls().compiled_policy() is not None
    assert _compiled_play([Safe(), FirstLegal()]) is None
    assert _compiled_play([Safe(), get_strategy(G.id, "random")()]) is None
    seating = np.array([[0, 1]] * 40)
    mine = play_batch(G, G.make_rules(), 2, [FirstLegal(), Safe()], seating, game_keys(3, 2, 40))
    theirs = play_batch(G, G.make_rules(), 2, [Safe(), Safe()], seating, game_keys(3, 2, 40))
    assert not np.array_equal(mine.outcome.score, theirs.outcome.score)
    with pytest.raises(TypeError, match="compiled heuristic"):
        Safe().act(None, None, None)


def test_a_part_played_batch_is_played_on_by_the_kernel():
    """play_on from a state the lockstep loop has already advanced (as search's play-outs
    start): the whole-game kernel takes every game on from where it stands."""
    from safari_sim.engine.play import play_on

    strats = [get_strategy(G.id, n)(**p) for n, p in SPECS[:3]]
    B, P = 90, 3
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 3
    r = G.make_rules()
    keys = game_keys(8, P, B)
    ref = play_batch(G, r, P, strats, seating, keys, compiled=False)
    st = G.init(r, P, keys.deal)
    seat_rs = np.ascontiguousarray(keys.seat, dtype=np.uint64).reshape(-1).copy()
    n = 0
    for _ in range(17):  # 17 lockstep steps by hand (play_on raises past max_steps)
        mover = G.to_move(st)
        obs_rows = np.flatnonzero(mover >= 0)
        acts = np.zeros(B, np.int64)
        who = seating[obs_rows, mover[obs_rows]]
        for k, s in enumerate(strats):
            idx = obs_rows[who == k]
            if idx.size:
                acts[idx] = choose(s, G, st, idx, seat_rs, P)
        n += obs_rows.size
        G.step(st, acts)
    n += play_on(G, st, strats, seating, seat_rs)
    out = G.outcome(st)
    assert n == ref.decisions
    assert np.array_equal(out.score, ref.outcome.score)
    assert np.array_equal(out.turns, ref.outcome.turns)
    assert hl.OVER == 3 and (st.g[:, hl.PHASE] == hl.OVER).all()


def test_an_observation_handed_out_before_a_compiled_play_is_unchanged():
    """The kernel writes the view as it plays: an observation made before (of the whole batch,
    which holds the view's own arrays) still says what it said."""
    from safari_sim.engine.play import play_on

    strats = [get_strategy(G.id, n)(**p) for n, p in SPECS[:3]]
    B, P = 64, 3
    keys = game_keys(4, P, B)
    st = G.init(G.make_rules(), P, keys.deal)
    obs = G.observe(st, st.all_games).freeze()
    legal = G.legal(st)
    before = {k: np.array(v) for k, v in vars(obs).items() if isinstance(v, np.ndarray)}
    legal_before = legal.copy()
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 3
    assert play_on(G, st, strats, seating, keys.seat.reshape(-1).copy()) > 0
    assert (G.to_move(st) < 0).all()
    for k, v in before.items():
        assert np.array_equal(getattr(obs, k), v), k
    assert np.array_equal(legal, legal_before)

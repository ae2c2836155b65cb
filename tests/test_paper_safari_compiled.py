"""Paper Safari's compiled heuristics (strategies/_paper_safari_compiled.py): the whole-match
kernel and the lockstep loop (each heuristic's ``decide`` for its rows) play the same matches,
bit for bit, and a user strategy built on a heuristic is played through its own ``act``."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch, play_on
from safari_sim.games import get_game
from compiled_check import assert_same_games
from strategies import get_strategy
from strategies.base import random_legal
from strategies.paper_safari import Closer, ThresholdReplacer

G = get_game("paper_safari")

# the three shipped heuristics with their knobs moved off the defaults (a safari_worth off the
# multiples of 2**-20 too: 0.3), and one at its defaults
SPECS = [("threshold", {"keep_below": 5.0, "patience": 3.0, "safari_worth": 0.5}),
         ("column_matcher", {"match_bonus": 2.0, "keep_below": 3.5, "patience": 9.0,
                             "safari_worth": 0.3}),
         ("closer", {"margin": 1.0, "rush": 1.5, "keep_below": 3.0}),
         ("closer", {"margin": -2.0, "safari_worth": 2.25}),
         ("threshold", {})]


def strategies(specs=SPECS):
    return [get_strategy(G.id, n)(**p) for n, p in specs]


def both_ways(players, rules, specs=SPECS, games=240, seed=9, log=False):
    strats = strategies(specs)
    seating = (np.arange(players)[None, :] + np.arange(games)[:, None]) % len(strats)
    r = G.make_rules(rules)
    keys = game_keys(seed, players, games)
    fast = play_batch(G, r, players, strats, seating, keys, log=log)
    slow = play_batch(G, r, players, strats, seating, keys, log=log, compiled=False)
    return fast, slow


def assert_same(fast, slow):
    assert_same_games(fast, slow, ("g", "pp", "grid", "up", "known", "disc", "rs"))


@pytest.mark.parametrize("players,rules", [
    (2, {}),
    (3, {"equal_negatives_zero": False, "chain_face_up": False, "initial_face_up": 2}),
    (4, {"rows": 3, "cols": 2, "tie_break_all_cards": False, "wins_needed": 2}),
    (5, {"elephant_look": True, "tarzan_value": 4, "high_card_tie_break": False}),
    (3, {"rows": 1, "cols": 4, "initial_face_up": 0, "elephant_look": False,
         "equal_column_zero": False}),
])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_match_kernel_does(players, rules):
    strats = strategies()
    assert _compiled_play(strats) is not None     # the whole-match kernel is taken
    fast, slow = both_ways(players, rules)
    assert fast.times["observe"] == 0.0 and fast.times["strategies"] == 0.0
    assert slow.times["strategies"] > 0.0
    assert_same(fast, slow)
    # the matches are varied enough to mean something
    stats = slow.outcome.stats
    assert stats["discards_taken"].sum() > 0 and stats["tarzan_chains"].sum() > 0
    if G.make_rules(rules).elephant_look:
        assert stats["elephant_looks"].sum() > 0


def test_the_fused_kernel_writes_the_same_log():
    fast, slow = both_ways(3, {}, games=6, log=True)
    assert_same(fast, slow)
    for b in range(6):
        assert G.describe(fast.state, b) == G.describe(slow.state, b)


def test_a_part_played_batch_is_played_on_the_same_way():
    """play_on from the middle of the matches (the way a search plays its worlds out)."""
    strats = strategies()
    r = G.make_rules()
    games, players = 64, 4
    seating = (np.arange(players)[None, :] + np.arange(games)[:, None]) % len(strats)
    keys = game_keys(3, players, games)
    states = []
    for compiled in (True, False):
        st = G.init(r, players, keys.deal)
        for s in strats:
            s.reset(games, players)
        seat_rs = keys.seat.reshape(-1).copy()
        rng = np.random.default_rng(0)
        for _ in range(40):   # random legal moves, the same both times
            G.step(st, random_legal(G.legal(st), rng))
        assert (G.to_move(st) >= 0).all()
        n = play_on(G, st, strats, seating, seat_rs, compiled=compiled)
        states.append((n, st))
    (n1, a), (n2, b) = states
    assert n1 == n2 > 0
    assert np.array_equal(a.pp, b.pp) and np.array_equal(a.g, b.g)


def test_a_user_strategy_built_on_a_heuristic_is_played_through_its_act():
    """A subclass that writes its own ``act`` is a numpy strategy like any user's: never
    played by the whole-match kernel, and its act is what plays; moving a knob keeps the
    compiled policy, whatever the knob's value (a safari_worth of 0.3 included)."""
    class Reckless(ThresholdReplacer):
        reads_state = False

        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

        def compiled_policy(self):
            return None

    assert ThresholdReplacer().compiled_policy() is not None
    assert Closer(safari_worth=0.3).compiled_policy() is not None
    assert _compiled_play([ThresholdReplacer(), Closer(safari_worth=1.0 + 2.0 ** -21)]) is not None
    assert _compiled_play([ThresholdReplacer(), Reckless()]) is None
    assert _compiled_play([ThresholdReplacer(), get_strategy(G.id, "random")()]) is None
    seating = np.array([[0, 1], [1, 0]] * 4)
    mine = play_batch(G, G.make_rules(wins_needed=1), 2, [Reckless(), ThresholdReplacer()],
                      seating, game_keys(1, 2, 8))
    assert mine.times["strategies"] > 0
    assert (mine.outcome.win * (seating == 0)).sum() < 2   # the first legal action loses
    with pytest.raises(TypeError, match="compiled heuristic"):
        ThresholdReplacer().act(None, None, None)

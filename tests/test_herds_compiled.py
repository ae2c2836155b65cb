"""Herds' shipped heuristics, each one compiled policy (strategies/_herds_compiled.py): the
whole-game kernel and the lockstep loop (each heuristic's ``decide`` for its rows) play the same
games, bit for bit, at every player count, with knobs moved off their defaults and rules changed;
a user's strategy built on one is played through its own ``act``. (That each acts only on what
its seat may know: tests/test_herds.py, next to the permutation of hidden cards.)"""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch
from safari_sim.games import get_game
from safari_sim.games import herds as H
from strategies import get_strategy
from strategies.herds import Blocker, Collector, Sprinter

G = get_game("herds")

# the three shipped heuristics, knobs moved off their defaults, and at their defaults
SPECS = [("collector", {"take_at": 1.0, "trade_at": 2.0, "lay_deck": 30, "lay_min_hand": 6,
                        "wild_grow": True}),
         ("blocker", {"block": 2.5, "take_at": 3.0, "trade_at": 3.5, "lay_min_hand": 5}),
         ("sprinter", {"focus_bonus": 1.5, "take_at": 2.0, "trade_at": 5.0, "lay_deck": 40,
                       "wild_grow": False}),
         ("blocker", {}), ("sprinter", {}), ("collector", {})]


def _both(players, rules, specs=SPECS, B=100, seed=9, log=False):
    strats = [get_strategy(G.id, n)(**p) for n, p in specs]
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(strats)
    r = G.make_rules(rules)
    assert _compiled_play(strats) is not None
    fast = play_batch(G, r, players, strats, seating, game_keys(seed, players, B), log=log)
    slow = play_batch(G, r, players, strats, seating, game_keys(seed, players, B), log=log,
                      compiled=False)
    return fast, slow


def _same(fast, slow):
    assert fast.decisions == slow.decisions
    assert np.array_equal(fast.outcome.score, slow.outcome.score)
    assert np.array_equal(fast.outcome.rank, slow.outcome.rank)
    assert np.array_equal(fast.outcome.win, slow.outcome.win)
    assert np.array_equal(fast.outcome.turns, slow.outcome.turns)
    assert set(fast.outcome.stats) == set(slow.outcome.stats)
    for k in slow.outcome.stats:
        assert np.array_equal(fast.outcome.stats[k], slow.outcome.stats[k], equal_nan=True), k
    for f in ("g", "pp", "team_total", "zone", "hsuit", "hown", "hlo", "hhi", "hcard", "cherd",
              "rs", "poss", "dr", "legal_", "ev"):
        assert np.array_equal(getattr(fast.state, f), getattr(slow.state, f)), f


@pytest.mark.parametrize("players,rules", [
    (3, {"target_score": 40}),
    (2, {"trade_explorer": "any", "target_score": 30}),
    (4, {"swap_in_opponents_herds": True, "grass_draw_explorer_kept": False, "target_score": 30}),
    (4, {"teams_at_four": False, "flip_last_ends": False, "grassland": 6, "target_score": 30}),
    (4, {"partners": "beside", "end_tie": "play_on", "trade_explorer": "grows",
         "target_score": 30}),
])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(players, rules):
    """Mixed tables of the three heuristics, knobs moved: the whole-game kernel and the lockstep
    loop give the same games, to the last statistic, drama number and state array."""
    fast, slow = _both(players, rules)
    _same(fast, slow)
    st = slow.outcome.stats
    # the positions the policies' branches answer all came up
    assert st["trades"].sum() > 0 and st["swaps"].sum() > 0 and st["grows"].sum() > 0
    assert st["lead_changes"].sum() > 0


def test_the_two_paths_keep_the_same_event_log():
    fast, slow = _both(3, {"target_score": 30}, B=30, seed=3, log=True)
    _same(fast, slow)
    assert fast.state.g[:, H.NEV].min() > 100


def test_one_heuristic_in_every_seat_is_played_compiled_too():
    """(at the printed rules)"""
    for name in ("collector", "blocker", "sprinter"):
        fast, slow = _both(3, {}, specs=[(name, {})], B=30, seed=5)
        _same(fast, slow)


def test_a_user_strategy_built_on_a_heuristic_is_played_through_its_act():
    """A subclass that writes its own ``act`` is a numpy strategy like any user's: never played
    by the whole-game kernel, and its act is what plays."""
    class FirstLegal(Collector):
        reads_state = False

        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

        def compiled_policy(self):
            return None

    for cls in (Collector, Blocker, Sprinter):
        assert cls().compiled_policy() is not None
    assert _compiled_play([Collector(), FirstLegal()]) is None
    assert _compiled_play([Collector(), get_strategy(G.id, "random")()]) is None
    seating = np.array([[0, 1]] * 20)
    r = G.make_rules(target_score=20)
    mine = play_batch(G, r, 2, [FirstLegal(), Collector()], seating, game_keys(3, 2, 20))
    theirs = play_batch(G, r, 2, [Collector(), Collector()], seating, game_keys(3, 2, 20))
    assert not np.array_equal(mine.outcome.score, theirs.outcome.score)
    with pytest.raises(TypeError, match="compiled heuristic"):
        Collector().act(None, None, None)


def test_the_blockers_receiver_follows_the_leader_at_three_players():
    """The blocker passes to the leading opponent: with a leader other than the left
    neighbour, the two paths' receivers agree (the games above check it as a whole; this checks
    that such passes happen)."""
    fast, slow = _both(3, {}, specs=[("blocker", {"block": 0.5})], B=30, seed=21, log=True)
    _same(fast, slow)
    ev = slow.state.ev
    passes = ev[..., 0] == H.E_PASS
    seat, to = ev[..., 1][passes], ev[..., 3][passes]
    assert ((to - seat) % 3 == 2).any() and ((to - seat) % 3 == 1).any()


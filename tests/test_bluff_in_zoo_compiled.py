"""Bluff in Zoo's compiled twins (strategies/_bluff_in_zoo_compiled.py): the whole-game kernel
plays the same games as the numpy strategies through the lockstep loop, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch
from safari_sim.games import get_game
from strategies import bluff_in_zoo as sbz
from strategies import get_strategy
from mixed_play import assert_same_play

G = get_game("bluff_in_zoo")

# every shipped heuristic, knobs at their defaults and moved (trust 0 and 1, recall 0 and 1 take
# other branches of the pile model)
SPECS = [("honest", {}), ("bluffer", {}), ("doubter", {}),
         ("honest", {"belief": 0.6, "trust": 0.0, "recall": 0.3, "doubt_at": 0.55}),
         ("bluffer", {"bluff_rate": 0.6, "bluff_raise": 3, "draw_rate": 0.4, "recall": 1.0}),
         ("doubter", {"doubt_at": 0.2, "skip_rate": 0.5, "trust": 1.0, "recall": 0.0})]


def _same_games(players, rules, specs, games, seed):
    strats = [get_strategy(G.id, n)(**p) for n, p in specs]
    seating = (np.arange(players)[None, :] * 2 + np.arange(games)[:, None]) % len(strats)
    r = G.make_rules(rules)
    fast = play_batch(G, r, players, strats, seating, game_keys(seed, players, games))
    slow = play_batch(G, r, players, strats, seating, game_keys(seed, players, games),
                      compiled=False)
    assert_same_play(fast, slow)
    return slow


@pytest.mark.parametrize("players, rules", [
    (2, {}), (3, {"hand_size": 6}), (4, {"max_claim": 40, "next_starter": "loser"}),
    (5, {"point_limit": 20}), (6, {})])
def test_compiled_twins_play_the_same_games_as_the_numpy_strategies(players, rules):
    """The three shipped heuristics mixed at one table, with their knobs moved off their
    defaults: the whole-game kernel and the lockstep loop give the same games, to the last
    statistic and the same number of decisions."""
    slow = _same_games(players, rules, SPECS, 48, 9)
    stats = slow.outcome.stats
    # the games used every branch the twins have: doubts, no-card claims, draws, capped claims
    assert stats["doubts"].sum() > 0 and stats["claims_without_card"].sum() > 0
    assert stats["cards_drawn"].sum() > 0 and stats["false_claims"].sum() > 0


def test_compiled_twins_with_the_printed_knobs_and_a_changed_deck():
    """The benchmark's table (defaults) on a deck with other action cards and a low cap."""
    specs = SPECS[:3]
    slow = _same_games(3, {"stop_cards": 3, "count_one_cards": 2, "max_claim": 20}, specs, 64, 4)
    assert slow.outcome.stats["claims_at_cap"].sum() > 0


def test_a_changed_strategy_is_not_played_by_its_compiled_twin():
    class Sure(sbz.Honest):
        def doubts(self, obs, model):
            return np.ones(len(obs.game), bool)

    class Quiet(sbz.Doubter):
        def act(self, obs, legal, rng):
            return super().act(obs, legal, rng)

    class Tuned(sbz.Bluffer):   # a new policy of its own: its author answers for the twin
        def claim(self, obs, legal, u, model):
            return super().claim(obs, legal, u, model)

        def policy(self):
            return super().policy()

    for cls in (sbz.Honest, sbz.Bluffer, sbz.Doubter, Tuned):
        assert cls().compiled_policy() is not None, cls
    assert Sure().compiled_policy() is None
    assert Quiet().compiled_policy() is None
    assert _compiled_play([sbz.Honest(), Sure()]) is None
    assert _compiled_play([sbz.Honest(), get_strategy(G.id, "random")()]) is None
    assert _compiled_play([sbz.Honest(), sbz.Bluffer(), sbz.Doubter()]) is not None


def test_numpys_tanh_ported_bit_for_bit():
    """The twins' tanh is numpy's float32 tanh to the last bit (the odds compare against
    thresholds: one ulp can change a doubt)."""
    from numba import njit

    from strategies._bluff_in_zoo_compiled import _TANH_LUT, normal_cdf, tanh32

    @njit
    def both(xs, lut, t_out, c_out):
        for i in range(xs.shape[0]):
            t_out[i] = tanh32(xs[i], lut)
            c_out[i] = normal_cdf(xs[i], lut)

    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, 2_000_000, dtype=np.uint64).astype(np.uint32)
    xs = np.concatenate([bits.view(np.float32), rng.uniform(-12, 12, 2_000_000)
                         .astype(np.float32), np.float32([0.0, -0.0, np.inf, -np.inf])])
    xs = xs[~np.isnan(xs)]
    t, c = np.empty_like(xs), np.empty_like(xs)
    both(xs, _TANH_LUT, t, c)
    assert np.array_equal(t.view(np.uint32), np.tanh(xs).view(np.uint32))
    with np.errstate(over="ignore", invalid="ignore"):
        ref = sbz.normal_cdf(xs)
    assert np.array_equal(c.view(np.uint32), ref.view(np.uint32), equal_nan=False) or \
        np.array_equal(c, ref, equal_nan=True)

"""Bluff in Zoo's compiled heuristics (strategies/_bluff_in_zoo_compiled.py): the lockstep loop
(each heuristic's ``decide`` for its rows) plays the same games as the whole-game kernel, bit for
bit; the kernels' float32 tanh is numpy's; a user strategy built on a heuristic plays through
its own ``act``."""

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


@pytest.mark.parametrize("players, rules, specs, games, seed", [
    (2, {}, SPECS, 48, 9), (3, {"hand_size": 6}, SPECS, 48, 9),
    (4, {"max_claim": 40, "next_starter": "loser"}, SPECS, 48, 9),
    (5, {"point_limit": 20}, SPECS, 48, 9), (6, {}, SPECS, 48, 9),
    # the benchmark's table (defaults) on a deck with other action cards and a low cap
    (3, {"stop_cards": 3, "count_one_cards": 2, "max_claim": 20}, SPECS[:3], 64, 4)])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(
        players, rules, specs, games, seed):
    """The three shipped heuristics mixed at one table, with their knobs moved off their
    defaults: the whole-game kernel and the lockstep loop give the same games, to the last
    statistic and the same number of decisions."""
    slow = _same_games(players, rules, specs, games, seed)
    stats = slow.outcome.stats
    # the games used every branch the policies have: doubts, no-card claims, draws, capped
    assert stats["doubts"].sum() > 0 and stats["claims_without_card"].sum() > 0
    assert stats["cards_drawn"].sum() > 0 and stats["false_claims"].sum() > 0
    if rules.get("max_claim") == 20:
        assert stats["claims_at_cap"].sum() > 0


def test_a_user_strategy_built_on_a_heuristic_is_played_through_its_act():
    """A subclass that writes its own ``act`` is a numpy strategy like any user's: never
    played by the whole-game kernel, and its act is what plays."""
    from safari_sim.games import bluff_in_zoo as bz

    class Sure(sbz.Honest):   # doubts whenever it may
        reads_state = False

        def act(self, obs, legal, rng):
            return np.where(legal[:, bz.DOUBT], bz.DOUBT, np.argmax(legal, axis=1))

        def compiled_policy(self):
            return None

    for cls in (sbz.Honest, sbz.Bluffer, sbz.Doubter):
        assert cls().compiled_policy() is not None, cls
    assert _compiled_play([sbz.Honest(), Sure()]) is None
    assert _compiled_play([sbz.Honest(), get_strategy(G.id, "random")()]) is None
    assert _compiled_play([sbz.Honest(), sbz.Bluffer(), sbz.Doubter()]) is not None
    seating = np.array([[0, 1]] * 20)
    r = G.make_rules()
    mine = play_batch(G, r, 2, [Sure(), sbz.Honest()], seating, game_keys(3, 2, 20))
    theirs = play_batch(G, r, 2, [sbz.Honest(), sbz.Honest()], seating, game_keys(3, 2, 20))
    assert mine.outcome.stats["doubts"][:, 0].sum() > theirs.outcome.stats["doubts"][:, 0].sum()
    with pytest.raises(TypeError, match="compiled heuristic"):
        sbz.Honest().act(None, None, None)


def test_numpys_tanh_ported_bit_for_bit():
    """The policies' tanh is numpy's float32 tanh to the last bit (the odds compare against
    thresholds: one ulp can change a doubt), and their normal_cdf its tanh form."""
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
        z = xs
        ref = 0.5 + 0.5 * np.tanh(np.float32(0.7978846) * (z + np.float32(0.044715) * z * z * z))
    assert np.array_equal(c.view(np.uint32), ref.view(np.uint32), equal_nan=False) or \
        np.array_equal(c, ref, equal_nan=True)

"""Safari Sprint's shipped heuristics, each one compiled policy
(strategies/_safari_sprint_compiled.py): the whole-game kernel and the lockstep loop (each
heuristic's ``decide`` for its rows) play the same games, bit for bit; a user's strategy built on
one is played through its own ``act``. (That each acts only on what its seat may know:
tests/test_safari_sprint.py, next to the permutation of hidden cards.)"""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch
from safari_sim.games import get_game
from strategies import _safari_sprint_compiled as compiled
from strategies import get_strategy
from strategies.safari_sprint import Backer, Projector, Spoiler
from compiled_check import assert_same_games

G = get_game("safari_sprint")

# every knob moved off its default somewhere, each strategy both with and without expect_later
SPECS = [
    ("backer", {}),
    ("spoiler", {}),
    ("projector", {}),
    ("backer", {"claim": "leader", "expect_later": False, "rival_weight": 0.9,
                "explorer_weight": 0.1, "thrift": 0.0}),
    ("spoiler", {"expect_later": True, "save_six": 2, "hold": False, "claim": "space",
                 "leader_weight": 0.7, "own_weight": 0.8}),
    ("projector", {"late_only": 3, "expect_later": True, "margin_weight": 0.5, "hand_weight": 2.5}),
    ("spoiler", {"push_bonus": 0.0, "claim": "leader"}),
    ("backer", {"claim": "space", "thrift": 2.5, "hand_weight": 0.0}),
]


def strategies(specs=SPECS):
    return [get_strategy(G.id, n)(**p) for n, p in specs]


def play_both_ways(players, rules, specs=SPECS, B=160, seed=9):
    strats = strategies(specs)
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(strats)
    r = G.make_rules(rules)
    assert _compiled_play(strats) is not None
    fast = play_batch(G, r, players, strats, seating, game_keys(seed, players, B))
    slow = play_batch(G, r, players, strats, seating, game_keys(seed, players, B),
                      compiled=False)
    assert fast.times["observe"] == 0.0 and fast.times["strategies"] == 0.0   # the kernel ran
    assert_same_games(fast, slow, ("g", "pp", "rpts", "pos", "hand", "pile"))
    assert (fast.state.view.mover < 0).all()
    return slow


@pytest.mark.parametrize("players,rules", [
    (3, {}),
    (4, {}),
    (5, {}),
    (4, {"tie_order": "earlier_ahead", "races": 2, "steals": False}),
    (3, {"reset_deal": "keep"}),
    (3, {"track_end": "stop", "below_one": "ahead", "explorer_start": 9, "extra_card": 0,
         "rounds": 9}),
    (5, {"explorer_lead_dealer": "left", "race_points": (9, 5, 3, 2, 1, 0),
         "animals": ("lion", "monkey", "tiger", "zebra", "elephant")}),
])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(players, rules):
    slow = play_both_ways(players, rules)
    assert slow.outcome.stats["steals"].sum() > 0 or rules.get("steals") is False
    assert slow.outcome.stats["lead_changes"].sum() > 0


def test_the_benchmark_table_plays_the_same_games():
    from strategies.safari_sprint import BENCHMARK
    play_both_ways(BENCHMARK["players"], {}, [(n, p) for n, p in BENCHMARK["mix"]], B=120)


def test_power_tables_are_numpys_powers():
    powq, pow1q = compiled.pow_tables(40)
    num, den, j = 7, 13, 3
    q = np.array([num / den])
    assert powq[num, den, j] == (q ** np.array([j]))[0]
    assert pow1q[num, den, j] == ((1 - q) ** np.array([j]))[0]
    assert powq[0, 0, 0] == 1.0 and pow1q[5, 5, 2] == 0.0
    # the reason for the tables: a compiled q ** 2 may be q * q, which is not numpy's power
    q = np.arange(200)[:, None] / np.maximum(np.arange(200), 1)[None, :]
    assert not np.array_equal(q ** np.full(q.shape, 2), q * q)


def test_a_user_strategy_built_on_a_heuristic_is_played_through_its_act():
    """A subclass that writes its own ``act`` is a numpy strategy like any user's: never played
    by the whole-game kernel, and its act is what plays."""
    class FirstLegal(Backer):
        reads_state = False

        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

        def compiled_policy(self):
            return None

    for s in (Backer(), Spoiler(), Projector()):
        assert s.compiled_policy() is not None
    assert _compiled_play([Backer(), FirstLegal()]) is None
    assert _compiled_play([Backer(), get_strategy(G.id, "random")()]) is None
    assert _compiled_play([Backer(), Spoiler(), Projector()]) is not None
    seating = np.array([[0, 1, 1]] * 20)
    r = G.make_rules()
    mine = play_batch(G, r, 3, [FirstLegal(), Backer()], seating, game_keys(3, 3, 20))
    theirs = play_batch(G, r, 3, [Backer(), Backer()], seating, game_keys(3, 3, 20))
    assert not np.array_equal(mine.outcome.score, theirs.outcome.score)
    with pytest.raises(TypeError, match="compiled heuristic"):
        Backer().act(None, None, None)


def test_a_changed_whole_game_policy_changes_the_games():
    """The comparison can fail: a heuristic whose whole-game policy has one knob moved (the
    policy its ``decide`` plays in the lockstep loop left as it is) plays other games."""
    strats = strategies(SPECS[:3])

    class Off(Spoiler):
        def compiled_policy(self):
            kind, knobs = self.policy()
            return kind, knobs[:3] + (knobs[3] + 0.8,) + knobs[4:]

    strats[1] = Off()
    B, players = 120, 4
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 3
    r = G.make_rules()
    fast = play_batch(G, r, players, strats, seating, game_keys(3, players, B))
    slow = play_batch(G, r, players, strats, seating, game_keys(3, players, B), compiled=False)
    assert not np.array_equal(fast.outcome.score, slow.outcome.score)


def test_an_observation_handed_out_before_a_compiled_play_is_unchanged():
    from safari_sim.engine.play import play_on

    strats = strategies(SPECS[:3])
    B, players = 64, 3
    keys = game_keys(4, players, B)
    st = G.init(G.make_rules(), players, keys.deal)
    obs = G.observe(st, st.all_games).freeze()       # the whole batch: the view's own arrays
    before = {k: np.array(v) for k, v in vars(obs).items() if isinstance(v, np.ndarray)}
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 3
    assert play_on(G, st, strats, seating, keys.seat.reshape(-1).copy()) > 0
    assert (G.to_move(st) < 0).all()
    for k, v in before.items():
        assert np.array_equal(getattr(obs, k), v), k

"""Safari Sprint's compiled twins (strategies/_safari_sprint_compiled.py): the same games as the
numpy strategies, bit for bit, whole games and decision by decision."""

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
from mixed_play import mixed_actions

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
def test_compiled_twins_play_the_same_games_as_the_numpy_strategies(players, rules):
    slow = play_both_ways(players, rules)
    assert slow.outcome.stats["steals"].sum() > 0 or rules.get("steals") is False
    assert slow.outcome.stats["lead_changes"].sum() > 0


def test_the_benchmark_table_plays_the_same_games():
    from strategies.safari_sprint import BENCHMARK
    play_both_ways(BENCHMARK["players"], {}, [(n, p) for n, p in BENCHMARK["mix"]], B=120)


def _positions(players, rules, seed, B=160, steps=(0, 2, 5, 9, 17, 30, 47, 70, 101)):
    """States of random mixed play (the numpy strategies and random) at several step counts."""
    r = G.make_rules(rules)
    strats = strategies() + [get_strategy(G.id, "random")()]
    keys = game_keys(seed, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(r, players, keys.deal)
    for step in range(max(steps) + 1):
        live = np.flatnonzero(G.to_move(st) >= 0)
        if live.size == 0:
            return
        if step in steps:
            yield st, live
        G.step(st, mixed_actions(G, st, strats, seat_rs, players))


@pytest.mark.parametrize("players,rules", [(3, {}), (4, {"tie_order": "earlier_ahead"}),
                                           (5, {"extra_card": 0, "track_end": "stop"})])
def test_each_twin_decides_as_its_numpy_strategy(players, rules):
    """Decision by decision, on all the observed games and on subsets of them (a numpy strategy
    sees only the games where its seat moves; its shortcuts, e.g. no player still to play in any
    of them, must not change an answer)."""
    strats = strategies()
    rng = np.random.default_rng(players)
    checked = 0
    for st, live in _positions(players, rules, seed=players):
        legal = G.legal(st)
        subsets = [live, live[rng.random(live.size) < 0.2], live[:1],
                   live[G.observe(st, live).to_play == 0]]
        for idx in subsets:
            if idx.size == 0:
                continue
            obs = G.observe(st, idx).freeze()
            for s in strats:
                want = s.act(obs, legal[idx], None)
                got = compiled.decide(st, idx, s.compiled_policy())
                bad = np.flatnonzero(want != got)
                assert bad.size == 0, (s.label, s.params, idx[bad[:5]], want[bad[:5]],
                                       got[bad[:5]])
                checked += idx.size
    assert checked > 10_000


def test_numpy_sums_a_short_last_axis_in_order():
    """The twins add the five terms of each expected move in order: numpy's own order for these
    shapes (a numpy that summed pairwise here would change the last bit: this test says so)."""
    rng = np.random.default_rng(0)
    for n in (1, 3, 64, 4096):
        x = rng.random((n, 6, 5))
        seq = (((x[..., 0] + x[..., 1]) + x[..., 2]) + x[..., 3]) + x[..., 4]
        assert np.array_equal(x.sum(axis=2), seq)


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


def test_a_changed_strategy_is_not_played_by_its_compiled_twin():
    class Louder(Backer):
        def play(self, obs, legal, rng):
            return super().play(obs, legal, rng)

    class Rescored(Spoiler):
        def score(self, obs, legal, rng):
            return -super().score(obs, legal, rng)

    class Acting(Projector):
        def act(self, obs, legal, rng):
            return super().act(obs, legal, rng)

    class OwnTwin(Rescored):
        def policy(self):
            return Spoiler.policy(self)

    for s in (Backer(), Spoiler(), Projector(), OwnTwin()):
        assert s.compiled_policy() is not None
    for s in (Louder(), Rescored(), Acting()):
        assert s.compiled_policy() is None
    assert _compiled_play([Backer(), Rescored()]) is None
    assert _compiled_play([Backer(), get_strategy(G.id, "random")()]) is None
    assert _compiled_play([Backer(), Spoiler(), Projector()]) is not None


def test_a_changed_twin_changes_the_games():
    """The comparison can fail: a twin with one knob moved (the numpy strategy's left as it is)
    plays other games."""
    strats = strategies(SPECS[:3])

    class Off(Spoiler):
        def policy(self):
            kind, knobs = super().policy()
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

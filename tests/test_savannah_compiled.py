"""Savannah's compiled heuristics (strategies/_savannah_compiled.py): the whole-game kernel and
the lockstep loop (each heuristic's ``decide`` for its rows) play the same games, bit for bit;
each knob matters; a user strategy built on a heuristic is played through its own ``act``."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch
from safari_sim.games import get_game
from strategies import get_strategy

from heuristics import ask

G = get_game("savannah")

SPECS = [("greedy", {}), ("cautious", {"caution": 0.9}), ("space_maker", {"space_value": 2.5}),
         ("cautious", {}), ("space_maker", {"space_value": 0.4}), ("cautious", {"caution": 3.0}),
         ("greedy", {"noise": 0.3}), ("cautious", {"caution": 1.2, "noise": 0.05}),
         ("space_maker", {"noise": 0.15})]


@pytest.mark.parametrize("players,rules", [
    (2, {}), (3, {}),
    (2, {"buried_on_table": "own", "max_claims": 1}),
    (3, {"touch_face_down": False, "opening_draw": True, "line_point": 2,
         "buried_on_table": "all"}),
    (3, {"explorer_cards": False, "hand_size": 4, "all_different_less": 0, "removal_point": 2}),
])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(players, rules):
    """The three shipped heuristics, mixed at one table with their knobs moved (noise too: two
    seat draws at every decision, a draw out of step would change the games): the whole-game
    kernel and the lockstep loop give the same games, to the last statistic and board."""
    strats = [get_strategy(G.id, n)(**p) for n, p in SPECS]
    B = 120
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(strats)
    r = G.make_rules(rules)
    assert _compiled_play(strats) is not None
    fast = play_batch(G, r, players, strats, seating, game_keys(5, players, B))
    assert fast.times["observe"] == 0.0 and fast.times["strategies"] == 0.0   # the kernel ran
    slow = play_batch(G, r, players, strats, seating, game_keys(5, players, B), compiled=False)
    assert fast.decisions == slow.decisions
    assert np.array_equal(fast.outcome.score, slow.outcome.score)
    assert np.array_equal(fast.outcome.turns, slow.outcome.turns)
    assert set(fast.outcome.stats) == set(slow.outcome.stats)
    for k in slow.outcome.stats:
        assert np.array_equal(fast.outcome.stats[k], slow.outcome.stats[k], equal_nan=True), k
    assert np.array_equal(fast.state.dr, slow.state.dr)
    assert np.array_equal(fast.state.board, slow.state.board)
    assert slow.outcome.stats["unplayable_found"].sum() > 0
    assert slow.outcome.stats["lead_changes"].sum() > 0


def test_noise_changes_the_games():
    noisy = [get_strategy(G.id, n)(**p) for n, p in SPECS[6:]]
    quiet = [get_strategy(G.id, n)() for n, _ in SPECS[6:]]
    B, P = 60, 3
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 3
    a, b = (play_batch(G, G.make_rules(), P, s, seating, game_keys(8, P, B)).outcome.score
            for s in (noisy, quiet))
    assert not np.array_equal(a, b)


def test_the_heuristics_choose_differently_from_each_other():
    """Each heuristic's knob matters (one that ignored it would still match a table of
    defaults), and a knob at 0 is greedy."""
    B, P = 60, 3
    r = G.make_rules()
    scores = {}
    for name, knob, values in (("cautious", "caution", (0.0, 0.6, 3.0)),
                               ("space_maker", "space_value", (0.0, 1.5, 6.0))):
        for v in values:
            s = [get_strategy(G.id, name)(**{knob: v})]
            res = play_batch(G, r, P, s, np.zeros((B, P), int), game_keys(3, P, B))
            scores[name, v] = res.outcome.score
    greedy = play_batch(G, r, P, [get_strategy(G.id, "greedy")()], np.zeros((B, P), int),
                        game_keys(3, P, B)).outcome.score
    assert np.array_equal(scores["cautious", 0.0], greedy)
    assert np.array_equal(scores["space_maker", 0.0], greedy)
    for name, a, b in (("cautious", 0.6, 3.0), ("space_maker", 1.5, 6.0)):
        assert not np.array_equal(scores[name, a], greedy)
        assert not np.array_equal(scores[name, a], scores[name, b])


def test_a_user_strategy_built_on_a_heuristic_is_played_through_its_act():
    """A subclass that writes its own ``act`` is a numpy strategy like any user's: never
    played by the whole-game kernel, and its act is what plays."""
    from strategies.savannah import Cautious, Greedy

    class Lazy(Greedy):
        reads_state = False

        def act(self, obs, legal, rng):
            return np.zeros(len(obs.game), np.int64)

        def compiled_policy(self):
            return None

    assert Greedy().compiled_policy() is not None
    assert _compiled_play([Greedy(), Lazy()]) is None
    assert _compiled_play([Greedy(), get_strategy(G.id, "random")()]) is None
    assert Greedy(noise=0.1).compiled_policy() is not None
    assert _compiled_play([Greedy(), Cautious(noise=0.2)]) is not None
    B, P = 30, 2
    seating = np.tile([0, 1], (B, 1))
    res = play_batch(G, G.make_rules(), P, [Lazy(), Greedy()], seating, game_keys(1, P, B))
    assert res.times["strategies"] > 0          # played through act
    ref = play_batch(G, G.make_rules(), P, [Greedy(), Greedy()], seating, game_keys(1, P, B))
    assert not np.array_equal(res.outcome.score, ref.outcome.score)
    with pytest.raises(TypeError, match="compiled heuristic"):
        Greedy().act(None, None, None)


def test_a_policy_chooses_among_the_legal_mask_it_is_handed():
    """A search asks its prior again with the actions already chosen taken out of the mask:
    greedy, space_maker and cautious then take the best of those left, and a noisy move is
    one of them."""
    from safari_sim.games.savannah import turn as T

    P, B = 3, 16
    st = G.init(G.make_rules(), P, game_keys(4, P, B).deal)
    rng = np.random.default_rng(0)
    for _ in range(9):
        G.step(st, (rng.random(B) * np.maximum(st.g[:, T.N_CAND], 1)).astype(np.int64))
    games = np.flatnonzero((G.to_move(st) >= 0) & (st.g[:, T.N_CAND] > 2))
    assert games.size > 5
    legal = np.take(G.legal(st), games, axis=0)
    rs = game_keys(4, P, B).seat.reshape(-1).copy()
    greedy = get_strategy(G.id, "greedy")()
    first = ask(greedy, G, st, games, rs, P)
    narrowed = legal.copy()
    narrowed[np.arange(len(games)), first] = False
    second = ask(greedy, G, st, games, rs, P, legal=narrowed)
    pts = np.take(st.cand_pts, games, axis=0)[:, :legal.shape[1]].astype(np.int64)
    assert narrowed[np.arange(len(games)), second].all()
    assert (pts[np.arange(len(games)), second] == np.where(narrowed, pts, -1).max(axis=1)).all()
    # the lookahead policies too: their next choice is among the actions left, and with the
    # whole mask they choose as in play (the first choice)
    for name in ("space_maker", "cautious"):
        s = get_strategy(G.id, name)()
        top = ask(s, G, st, games, rs, P)
        assert (ask(s, G, st, games, rs, P, legal=legal) == top).all()
        left = legal.copy()
        left[np.arange(len(games)), top] = False
        nxt = ask(s, G, st, games, rs, P, legal=left)
        assert left[np.arange(len(games)), nxt].all(), name
        # taking out a candidate it would not choose changes nothing
        other = legal.copy()
        for i, (a, b) in enumerate(zip(top, nxt)):
            spare = [j for j in np.flatnonzero(legal[i]) if j not in (a, b)]
            other[i, spare[:1]] = False
        assert (ask(s, G, st, games, rs, P, legal=other) == top).all(), name
    wild = get_strategy(G.id, "cautious")(noise=1.0)
    only = np.zeros_like(legal)
    only[:, 1] = True
    assert (ask(wild, G, st, games, rs, P, legal=only) == 1).all()


@pytest.mark.parametrize("players,rules", [(2, {}), (3, {}), (3, {"touch_face_down": False}),
                                           (2, {"buried_on_table": "all", "hand_size": 7})])
def test_the_cached_lines_of_the_open_spaces_equal_a_fresh_scan(players, rules):
    """The rules kernel keeps each open space's lines and allowed types up to date as cards come
    and go (turn._refresh, _block, _refresh_removed) instead of scanning every space after every
    play: after every step of random games they equal a scan of the space from scratch."""
    from safari_sim.engine.chance import deal_keys
    from safari_sim.games.savannah import turn as T

    r = G.make_rules(rules)
    B = 40
    st = G.init(r, players, deal_keys(B, 9))
    rng = np.random.default_rng(4)
    checked = removals = 0
    for _ in range(400):
        live = st.g[:, T.PHASE] != T.OVER
        if not live.any():
            break
        n = np.maximum(st.g[:, T.N_CAND], 1)
        box0 = st.g[:, T.N_BOX].copy()
        G.step(st, (rng.random(B) * n).astype(np.int64))
        removals += int((st.g[:, T.N_BOX] > box0).sum())
        F = st.sc.shape[1] >> 1
        for b in np.flatnonzero(st.g[:, T.FR_OK]):
            nf = int(st.g[b, T.N_FR])
            g2, sc2 = st.g.copy(), st.sc.copy()
            g2[b, T.FR_OK] = 0
            T._spaces(b, g2, st.board, st.fr, sc2, st.S)
            assert np.array_equal(st.sc[b, :nf], sc2[b, :nf])
            assert np.array_equal(st.sc[b, F:F + nf], sc2[b, F:F + nf])
            checked += 1
    assert not (st.g[:, T.PHASE] != T.OVER).any()
    assert checked > 1000 and removals > 50


def _mid_game(players, steps, n=8, seed=5):
    """A batch of n games, ``steps`` decisions in (greedy everywhere), and its seat streams."""
    from safari_sim.engine.play import play_on

    game = get_game("savannah")
    keys = game_keys(seed, players, n)
    st = game.init(game.make_rules(), players, keys.deal)
    rs = keys.seat.reshape(-1).copy()
    g = get_strategy("savannah", "greedy")()
    g.reset(n, players)
    if steps:
        play_on(game, st, [g], np.zeros((n, players), np.int64), rs, steps=steps)
    return game, st, rs


@pytest.mark.parametrize("players", [2, 3])
def test_steps_in_the_kernel_play_as_the_lockstep_loop_stopped(players):
    """``play_on(..., steps=d)`` with compiled heuristics (a search's depth) plays each game d
    more decisions inside the whole-game kernel: the same states as the lockstep loop stopped
    after d steps; a game that ends sooner ends."""
    from safari_sim.engine.play import play_on

    n = 8
    tables = [get_strategy("savannah", k)() for k in ("greedy", "space_maker", "cautious")]
    seating = (np.arange(players)[None, :] + np.arange(n)[:, None]) % 3
    for start, d in ((0, 1), (10, 7), (30, 200)):
        game, a, ra = _mid_game(players, start)
        _, b, rb = _mid_game(players, start)
        for s in tables:
            s.reset(n, players)
        made = play_on(game, a, tables, seating, ra, steps=d)
        made_b = play_on(game, b, tables, seating, rb, steps=d, compiled=False)
        assert made == made_b
        for k in ("g", "board", "hand", "score", "pile1", "pile2", "fd_card", "rs"):
            assert np.array_equal(getattr(a, k), getattr(b, k)), k
        assert (made < d * n) == (d == 200)     # the longest runs every game to its end
        if d == 200:
            assert (game.to_move(a) < 0).all()


def test_step_kinds_count_only_placements_and_play_a_turns_claims():
    """With ``step_kinds=[0]`` a depth counts placements only: each game makes d of them, plays
    the claims of the last one's turn, and stops before the next placement; the lockstep loop
    cannot stop games one by one and says so."""
    from safari_sim.engine.play import play_on
    from safari_sim.games.savannah import turn as T

    n, players, d = 12, 3, 9
    game, st, rs = _mid_game(players, 6, n=n)
    before = st.g[:, T.TURNS].copy()
    g = get_strategy("savannah", "greedy")()
    s = get_strategy("savannah", "greedy")()
    s.reset(n, players)
    play_on(game, st, [s], np.zeros((n, players), np.int64), rs, steps=d, step_kinds=[0])
    # the same game by game, one decision at a time, counting the placements
    _, ref, rr = _mid_game(players, 6, n=n)
    placed = np.zeros(n, np.int64)
    kept = 0
    for b in range(n):
        while ref.g[b, T.PHASE] != T.OVER:
            if ref.g[b, T.KIND] == T.PLACE:
                if placed[b] == d:
                    break
                placed[b] += 1
            else:
                kept += 1
            one = game.clone(ref, np.array([b]))
            one_rs = rr[b * players:(b + 1) * players].copy()
            g.reset(1, players)
            play_on(game, one, [g], np.zeros((1, players), np.int64), one_rs, steps=1)
            for f in ("g", "board", "up_pos", "up_count", "hand", "hand_n", "pile1", "pile2",
                      "fd_pos", "fd_card", "fd_owner", "box", "score", "claims", "rs", "dr"):
                getattr(ref, f)[b] = getattr(one, f)[0]
            for f in ("unpl", "fr", "sc", "cand_slot", "cand_card", "cand_cell", "cand_pts",
                      "legal_mask"):
                getattr(ref, f)[b] = getattr(one, f)[0]
            rr[b * players:(b + 1) * players] = one_rs
    assert kept > 0                                      # some turns made claims
    assert (placed == d).all()
    for k in ("g", "board", "hand", "score", "pile1", "pile2", "rs"):
        assert np.array_equal(getattr(st, k), getattr(ref, k)), k
    live = game.to_move(st) >= 0
    assert (st.g[live, T.KIND] == T.PLACE).all()         # stopped before a placement
    assert (st.g[:, T.TURNS] > before).all()
    with pytest.raises(NotImplementedError, match="kinds"):
        play_on(game, st, [s], np.zeros((n, players), np.int64), rs, steps=2, step_kinds=[0],
                compiled=False)

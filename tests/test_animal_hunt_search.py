"""Animal Hunt's search (docs/search.md, "Animal Hunt"): the sure pairs a player passes (public,
``passed``), the worlds that read them as a model of the players, and the search's own candidate
actions (``strategies.animal_hunt.search_candidates``, the ``candidates`` knob)."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import animal_hunt as ah
from safari_sim.games import get_game
from strategies import get_strategy
from strategies.animal_hunt import search_candidates
from strategies.search import Search
import heuristics

G = get_game("animal_hunt")
K = 30
ELEPHANT, LION, MONKEY, TIGER, ZEBRA = range(5)


def kind(animal, number):
    return animal * 6 + number - 1


def twin(k):
    return K + k


def position(hands, ground, players=3, cur=0, **kw):
    st = G.init(G.make_rules(), players, deal_keys(1, 0), log=True)
    G.position(st, 0, hands, ground, cur=cur, **kw)
    return st


def act(st, action):
    assert G.legal(st)[0, action], f"action {action} should be legal"
    G.step(st, np.array([action]))


def _start():
    """P0 holds the elephant 1 and the lion 1, P1 the tiger 4, P2 the monkey 2. Place 0 holds the
    tiger 4's twin, seen in turn 1; places 1-4 were never seen: the elephant 1's twin, a zebra 5,
    the monkey 2's twin and the zebra 5's twin."""
    return position({0: [kind(ELEPHANT, 1), kind(LION, 1)], 1: [kind(TIGER, 4)],
                     2: [kind(MONKEY, 2)]},
                    [twin(kind(TIGER, 4)), twin(kind(ELEPHANT, 1)), kind(ZEBRA, 5),
                     twin(kind(MONKEY, 2)), twin(kind(ZEBRA, 5))],
                    cur=0, turns=2, known={0: 1})


def test_a_player_passes_the_sure_pairs_the_table_shows():
    st = _start()
    assert (st.passed[0] < 0).all()
    act(st, 2)                      # P0 flips a card never seen (the zebra 5) ...
    # ... while the tiger 4 lay seen: P0 does not hold it; the zebra 5 was not seen before
    assert st.passed[0, 0, kind(TIGER, 4)] == 2 and st.passed[0, 0, kind(ZEBRA, 5)] < 0
    act(st, ah.ground_size(st.rules, 3) + 1)   # asks P1 for it in vain: no show of it either
    assert st.passed[0, 0, kind(ZEBRA, 5)] == 2
    assert (st.passed[0, 1:] < 0).all()
    # P1 flips its remembered match and shows it: a sure pair taken, nothing passed
    assert G.to_move(st)[0] == 1
    act(st, 0)
    act(st, ah.ground_size(st.rules, 3))
    assert (st.passed[0, 1] < 0).all()
    # the observation carries it, rotated like ``lack``: P0 is two seats left of P2
    st2 = _start()
    act(st2, 2)
    act(st2, ah.ground_size(st2.rules, 3) + 1)
    obs = G.observe(st2, np.array([0]))          # P1 to move: P0 is 2 seats to its left
    assert obs.passed[0, 2, kind(TIGER, 4)] == 2 and obs.passed[0, 0, kind(TIGER, 4)] < 0


def test_perfect_memories_never_pass_a_pair_they_hold():
    """The model the worlds read holds for the shipped heuristics with a perfect memory: no
    player ever holds a kind it passed."""
    P, B = 3, 60
    for name in ("rememberer", "prober"):
        keys = game_keys(5, P, np.arange(B))
        st = G.init(G.make_rules(), P, keys.deal)
        s = get_strategy(G.id, name)()
        s.reset(B, P)
        seat_rs = keys.seat.reshape(-1).copy()
        passes = 0
        while True:
            live = np.flatnonzero(G.to_move(st) >= 0)
            if live.size == 0:
                break
            a = np.zeros(B, np.int64)
            a[live] = heuristics.ask(s, G, st, live, seat_rs, P)
            G.step(st, a)
            assert not ((st.passed >= 0) & st.hand).any()
            passes += int((st.passed >= 0).sum())
        assert passes > 0


def _played(steps, B=24, seed=7):
    keys = game_keys(seed, 3, np.arange(B))
    st = G.init(G.make_rules(), 3, keys.deal)
    s = get_strategy(G.id, "rememberer")()
    s.reset(B, 3)
    seat_rs = keys.seat.reshape(-1).copy()
    for _ in range(steps):
        live = np.flatnonzero(G.to_move(st) >= 0)
        a = np.zeros(B, np.int64)
        a[live] = heuristics.ask(s, G, st, live, seat_rs, 3)
        G.step(st, a)
    return st


def test_worlds_never_deal_a_player_a_kind_it_passed_unless_told_not_to_model():
    st = _played(30)
    games = np.flatnonzero(G.to_move(st) >= 0)
    seat = G.to_move(st)[games]
    rows = np.repeat(games, 20)
    seats = np.repeat(seat, 20)
    keys = deal_keys(len(rows), 3)
    w = G.determinize(st, rows, seats, keys)
    other = np.arange(3)[None, :] != seats[:, None]
    passed = st.passed[rows] >= 0
    assert not (w.hand & passed & other[:, :, None]).any()
    # the refusals alone (the fair deal's posterior) do deal them: the model changes the worlds
    plain = G.determinize(st, rows, seats, keys, model=False)
    assert (plain.hand & passed & other[:, :, None]).any()
    # what the seat holds and has seen is kept either way
    for x in (w, plain):
        assert np.array_equal(x.hand[np.arange(len(rows)), seats], st.hand[rows, seats])
        assert np.array_equal(x.known, st.known[rows])


def test_worlds_fall_back_to_the_refusals_where_a_player_passed_a_pair_it_holds():
    """Five kinds, one card each: P1 (the seat) holds kind 3; kinds 0 and 1 each lie seen once,
    and their other cards are in P0's and P2's hands (no place is left unseen). P0 passed both,
    so no deal agrees with the model: the worlds read the refusals alone (and do not raise)."""
    st = G.init(G.make_rules(animals=1, numbers=5, hand_sizes=[2, 1, 1]), 3, deal_keys(1, 0))
    G.position(st, 0, {0: [0], 1: [3], 2: [1]}, [5 + 0, 5 + 1, 5 + 3], cur=1, turns=4,
               known={0: 2, 1: 3, 2: 3}, scored={2: 0, 4: 2})
    st.passed[0, 0, [0, 1]] = 3
    n = 200
    w = G.determinize(st, np.zeros(n, np.int64), np.ones(n, np.int64), deal_keys(n, 1))
    held = w.hand[:, 0, :2]
    assert held.sum(axis=1).tolist() == [1] * n and held.any(axis=0).all()


def _cands(st):
    obs = G.observe(st, np.array([0]))
    return set(np.flatnonzero(search_candidates(obs, G.legal(st)[:1])[0]).tolist())


def test_candidates_a_sure_pair_alone_else_the_kinds_of_move():
    ng = None
    # a sure pair at the start of a turn: the seen match of the hand, alone
    st = position({0: [kind(ELEPHANT, 1), kind(TIGER, 4)], 1: [kind(LION, 2)],
                   2: [kind(MONKEY, 2)]},
                  [twin(kind(TIGER, 4)), twin(kind(ELEPHANT, 1)), twin(kind(LION, 2)),
                   twin(kind(MONKEY, 2))], cur=0, turns=2, known={0: 1})
    ng = ah.ground_size(st.rules, 3)
    assert _cands(st) == {0}
    # no sure pair: a card never seen (the first) and the seen card an opponent may hold
    st = position({0: [kind(ELEPHANT, 1)], 1: [kind(LION, 2)], 2: [kind(MONKEY, 2)]},
                  [twin(kind(ELEPHANT, 1)), twin(kind(LION, 2)), twin(kind(MONKEY, 2))],
                  cur=0, turns=2, known={1: 1})
    assert _cands(st) == {0, 1}
    # once it is passed by both opponents it is no probe
    st.passed[0, 1:, kind(LION, 2)] = 1
    assert _cands(st) == {0}
    # a card face up with nothing known of its match: ask each opponent, a card never seen, a
    # seen card of another kind
    st = position({0: [kind(ELEPHANT, 1), kind(TIGER, 1)], 1: [kind(LION, 2)],
                   2: [kind(MONKEY, 2)]},
                  [twin(kind(ELEPHANT, 1)), twin(kind(LION, 2)), twin(kind(MONKEY, 2)),
                   twin(kind(TIGER, 1))], cur=0, turns=2, known={3: 1})
    act(st, 1)
    assert _cands(st) == {ng + 1, ng + 2, 0, 3}
    # the match in the hand: the show alone, but where it empties the hand, the others too
    st = position({0: [kind(ELEPHANT, 1), kind(TIGER, 1)], 1: [kind(LION, 2)],
                   2: [kind(MONKEY, 2)]},
                  [twin(kind(ELEPHANT, 1)), twin(kind(LION, 2)), twin(kind(MONKEY, 2))],
                  cur=0, turns=2)
    act(st, 0)
    assert _cands(st) == {ng}
    st = position({0: [kind(ELEPHANT, 1)], 1: [kind(LION, 2)], 2: [kind(MONKEY, 2)]},
                  [twin(kind(ELEPHANT, 1)), twin(kind(LION, 2)), twin(kind(MONKEY, 2))],
                  cur=0, turns=2)
    act(st, 0)
    assert _cands(st) == {ng, ng + 1, ng + 2, 1}


def test_the_search_plays_only_the_games_candidates():
    """With ``candidates`` the search compares the game's candidate actions only: a sure pair
    is played without a world dealt; an unknown function is named."""
    with pytest.raises(Exception, match="no_such_function"):
        P = 3
        me = Search(candidates="no_such_function")
        play_batch(G, G.make_rules(), P, [me, get_strategy(G.id, "rememberer")()],
                   np.array([[0, 1, 1]]), game_keys(1, P, np.arange(1)))
    rules = G.make_rules()
    me = Search(candidates="search_candidates", rollouts=2, depth=2)
    seating = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    out = play_batch(G, rules, 3, [me, get_strategy(G.id, "rememberer")()], seating,
                     game_keys(2, 3, np.arange(3)))
    assert (np.asarray(out.outcome.turns) > 0).all()


def test_worlds_dealt_in_runs_of_one_game_are_the_worlds_dealt_one_by_one():
    """The dynamic programme of the worlds is made once per run of rows cloned from one game for
    one seat (``_determinize``'s ``src``) and reused: the same worlds as each row dealt alone,
    where a run's game or seat changes (the same game for another seat, the game before again)
    and where a row falls back to the refusals alone."""
    st = _played(30)
    games = np.flatnonzero(G.to_move(st) >= 0)[:6]
    seat = G.to_move(st)[games]
    rows = np.concatenate([np.repeat(games, 5), games[:1], games[:1], games[::-1]])
    seats = np.concatenate([np.repeat(seat, 5), seat[:1], (seat[:1] + 1) % 3, seat[::-1]])
    keys = deal_keys(len(rows), 9)
    w = G.determinize(st, rows, seats, keys)
    hands, grounds = [], []
    for i in range(len(rows)):
        one = G.determinize(st, rows[i:i + 1], seats[i:i + 1], keys[i:i + 1])
        hands.append(one.hand[0])
        grounds.append(one.ground[0])
    assert np.array_equal(w.hand, np.stack(hands))
    assert np.array_equal(w.ground, np.stack(grounds))
    # the worlds do differ from row to row (the draws are the row's own)
    assert len({h.tobytes() for h in w.hand[:5]}) > 1
    # a row that falls back (no deal agrees with the passes) between two that do not
    fb = G.init(G.make_rules(animals=1, numbers=5, hand_sizes=[2, 1, 1]), 3, deal_keys(2, 0))
    for b in range(2):
        G.position(fb, b, {0: [0], 1: [3], 2: [1]}, [5 + 0, 5 + 1, 5 + 3], cur=1, turns=4,
                   known={0: 2, 1: 3, 2: 3}, scored={2: 0, 4: 2})
    fb.passed[0, 0, [0, 1]] = 3
    rows = np.array([1, 0, 0, 1, 1])
    keys = deal_keys(5, 4)
    w = G.determinize(fb, rows, np.ones(5, np.int64), keys)
    for i in range(5):
        one = G.determinize(fb, rows[i:i + 1], np.ones(1, np.int64), keys[i:i + 1])
        assert np.array_equal(w.hand[i], one.hand[0]) and np.array_equal(w.ground[i], one.ground[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_steps_in_the_kernel_play_as_the_lockstep_loop_stopped(players):
    """``play_on(..., steps=d)`` with compiled heuristics (the search's depth) plays each game d
    more decisions inside the whole-game kernel (``play_compiled``'s ``steps``): the same states,
    streams and memories as the lockstep loop stopped after d steps; a game that ends sooner
    ends, and the longest depth plays every game to its end."""
    import dataclasses

    from safari_sim.engine.play import play_on

    n = 12
    knobs = [("rememberer", {}), ("prober", {"recall": 0.8}), ("guesser", {"recall": 0.9})]

    def mid(start):
        keys = game_keys(3, players, np.arange(n))
        st = G.init(G.make_rules(), players, keys.deal)
        tabs = [get_strategy(G.id, k)(**kw) for k, kw in knobs]
        for s in tabs:
            s.reset(n, players)
        rs = keys.seat.reshape(-1).copy()
        seating = (np.arange(players)[None, :] + np.arange(n)[:, None]) % 3
        if start:
            play_on(G, st, tabs, seating, rs, steps=start, compiled=False)
        return st, tabs, seating, rs

    for start, d in ((0, 1), (6, 8), (20, 5), (3, 3000)):
        a, ta, seating, ra = mid(start)
        b, tb, _, rb = mid(start)
        made = play_on(G, a, ta, seating, ra, steps=d)
        made_b = play_on(G, b, tb, seating, rb, steps=d, compiled=False)
        assert made == made_b
        assert np.array_equal(ra, rb)
        for f in dataclasses.fields(a):
            x = getattr(a, f.name)
            if isinstance(x, np.ndarray):
                assert np.array_equal(x, getattr(b, f.name)), f.name
        for s, t in zip(ta, tb):
            if s.memory.facts is not None:
                assert np.array_equal(s.memory.facts, t.memory.facts)
                assert np.array_equal(s.memory.turn, t.memory.turn)
        assert (made < d * n) == (d == 3000)
        if d == 3000:
            assert (G.to_move(a) < 0).all()
        else:
            assert (G.to_move(a) >= 0).any()

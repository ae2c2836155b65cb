"""Deducktion's compiled twins (strategies/_deducktion_compiled.py): the same games as the numpy
strategies through the lockstep loop, to the last statistic and the last seat draw; the deducer's
card sets and chances equal to the numpy ``track`` and ``estimate`` bit for bit; a changed
strategy keeps the lockstep path."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch
from safari_sim.games import deducktion as dk
from safari_sim.games import get_game
from strategies import get_strategy
from strategies import _deducktion_compiled as cc
from strategies.deducktion import Collector, Deducer, Naive, estimate, place_sizes, track

G = get_game("deducktion")

SPECS = [("naive", {"max_unseen": 3}), ("collector", {"meld_at": 4, "max_unseen": 4}),
         ("deducer", {"guess_at": 0.3, "meld_weight": 1.5, "meld_at": 4, "draw_weight": 2.5}),
         ("deducer", {}),
         ("collector", {}), ("naive", {})]


def _both(players, rules, specs, B, seed):
    strats = [get_strategy(G.id, n)(**p) for n, p in specs]
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(strats)
    r = G.make_rules(rules)
    keys = game_keys(seed, players, B)
    assert _compiled_play(strats) is not None
    fast = play_batch(G, r, players, strats, seating, keys)
    slow = play_batch(G, r, players, strats, seating, keys, compiled=False)
    return fast, slow


@pytest.mark.parametrize("players,rules", [
    (2, {}), (2, {"two_player_reserve": "aside", "guess_wrong": -1}),
    (2, {"two_player_reserve": "draw_when_empty"}),
    (3, {"add_to_meld": True, "final_meld": True}), (4, {}),
    (4, {"question_decks": 2, "guesses_seen": True}), (5, {"hand_sizes": (7, 5, 4)})])
def test_compiled_twins_play_the_same_games_as_the_numpy_strategies(players, rules):
    """The three shipped heuristics, mixed at one table with knobs moved off their defaults:
    the whole-game kernel and the lockstep loop give the same games: every outcome column,
    the drama, the decisions, and the seat streams left where the numpy draws left them."""
    B = 120 if players < 4 else 80
    fast, slow = _both(players, rules, SPECS, B, seed=players)
    assert fast.decisions == slow.decisions
    assert np.array_equal(fast.outcome.score, slow.outcome.score)
    assert np.array_equal(fast.outcome.rank, slow.outcome.rank)
    assert np.array_equal(fast.outcome.win, slow.outcome.win)
    assert np.array_equal(fast.outcome.turns, slow.outcome.turns)
    for k in slow.outcome.stats:
        assert np.array_equal(fast.outcome.stats[k], slow.outcome.stats[k], equal_nan=True), k
    assert np.array_equal(fast.state.drama, slow.state.drama)
    assert np.array_equal(fast.state.guess, slow.state.guess)
    assert np.array_equal(fast.state.hist, slow.state.hist)
    # the tables were played for real: asks, melds and guesses of both kinds
    st = slow.outcome.stats
    assert st["asks"].sum() > 0 and st["melds"].sum() > 0
    assert st["guesses_right"].sum() > 0 and st["guesses_wrong"].sum() > 0


def test_the_seat_streams_advance_as_the_numpy_strategies_advance_them():
    """Each game's seat streams end where the numpy strategies' draws leave them (the kernel
    plays each game on its own, the lockstep loop all of them a decision at a time)."""
    players, B = 4, 60
    strats = [get_strategy(G.id, n)(**p) for n, p in SPECS[:3]]
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(strats)
    r = G.make_rules()
    keys = game_keys(5, players, B)
    ends = []
    for compiled in (True, False):
        st = G.init(r, players, keys.deal)
        seat_rs = np.ascontiguousarray(keys.seat, dtype=np.uint64).reshape(-1).copy()
        from safari_sim.engine.play import play_on

        for s in strats:
            s.reset(B, players)
        play_on(G, st, strats, seating, seat_rs, rules=r, compiled=compiled)
        ends.append(seat_rs)
    assert np.array_equal(ends[0], ends[1])
    assert not np.array_equal(ends[0], keys.seat.reshape(-1))


def test_ask_width_is_the_most_questions_three_flipped_cards_allow():
    """The deducer draws ASK_WIDTH per opponent at TARGET and QUESTION, whatever its game's
    flipped cards allow: no three question cards (repeats included) allow more, some allow
    exactly that many (three explorers)."""
    import itertools

    from strategies.deducktion import ASK_WIDTH

    t = np.array(list(itertools.combinations_with_replacement(range(dk.NQC), 3)))
    counts = dk.allowed_questions(t).sum(axis=1)
    assert counts.max() == ASK_WIDTH
    assert cc.QMAX >= ASK_WIDTH


_INV_GOLDEN = pow(0x9E3779B97F4A7C15, -1, 2 ** 64)


def _draws(before, after):
    """How many values each seat stream gave up (a draw adds GOLDEN to the stream's state)."""
    d = (after.astype(object) - before.astype(object)) % 2 ** 64
    return np.array([int(x) * _INV_GOLDEN % 2 ** 64 for x in d], np.int64)


@pytest.mark.parametrize("players", [2, 4])
def test_a_game_draws_the_same_at_a_decision_whatever_the_other_observed_games(players):
    """Each heuristic, handed all the live games of a part-played batch at once and then each
    game alone: the same action, and the game's seat stream moves by the same number of draws,
    one (random_legal) plus the block of its decision kind and nothing for the other games'
    kinds: naive 6 at GUESS; collector P - 1 at TARGET, 336 at QUESTION, 30 at PASS / GIVE, 6 at
    GUESS; deducer 30 at PASS / GIVE, (P - 1) x 30 at TARGET and QUESTION."""
    from safari_sim.engine.chance import SeatRandom

    P = players
    block = {
        "naive": {dk.GUESS: 6},
        "collector": {dk.TARGET: P - 1, dk.QUESTION: 336, dk.PASS: 30, dk.GIVE: 30,
                      dk.GUESS: 6},
        "deducer": {dk.PASS: 30, dk.GIVE: 30, dk.TARGET: (P - 1) * 30,
                    dk.QUESTION: (P - 1) * 30},
    }
    strats = [get_strategy(G.id, n)() for n in block]
    B = 40
    keys = game_keys(17, P, B)
    st = G.init(G.make_rules(), P, keys.deal)
    seat_rs = np.ascontiguousarray(keys.seat, dtype=np.uint64).reshape(-1).copy()
    seen = {n: set() for n in block}
    for step in range(300):
        live = np.flatnonzero(st.mover >= 0)
        if live.size == 0:
            break
        rows = live * P + st.mover[live]
        obs = G.observe(st, live).freeze()
        kinds = obs.kind.astype(np.int64)
        legal = st.legal_[live]
        for name, s in zip(block, strats):
            rs = seat_rs.copy()
            together = s.act(obs, legal, SeatRandom(rs, rows))
            moved = _draws(seat_rs[rows], rs[rows])
            want = 1 + np.array([block[name].get(int(k), 0) for k in kinds])
            assert np.array_equal(moved, want), (name, step)
            for i in range(0, live.size, 7):
                rs1 = seat_rs.copy()
                alone = s.act(G.observe(st, live[i:i + 1]).freeze(), legal[i:i + 1],
                              SeatRandom(rs1, rows[i:i + 1]))
                assert alone[0] == together[i], (name, step, i)
                assert rs1[rows[i]] == rs[rows[i]]
            seen[name] |= set(kinds.tolist())
        who = live % 3          # play on with one strategy per game
        actions = np.zeros(B, np.int64)
        for k, s in enumerate(strats):
            sel = live[who == k]
            if sel.size:
                actions[sel] = s.act(G.observe(st, sel).freeze(), st.legal_[sel],
                                     SeatRandom(seat_rs, sel * P + st.mover[sel]))
        G.step(st, actions)
    kinds = {dk.MELD, dk.QUESTION, dk.PASS, dk.GUESS} | ({dk.TARGET} if P > 2 else set())
    for name in block:   # the decision kinds were met (at two players no one chooses a target;
        # GIVE, the whole-hand case, is rare)
        assert kinds <= seen[name], (name, seen[name])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_deducer_twin_tracks_and_estimates_bit_for_bit(players):
    """track_one / estimate_one against the numpy track / estimate on the observations of games
    played part way (every decision kind the deducer estimates at)."""
    B = 60
    strats = [Naive(), Collector()]
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 2
    r = G.make_rules()
    keys = game_keys(11, players, B)
    st = G.init(r, players, keys.deal)
    seat_rs = np.ascontiguousarray(keys.seat, dtype=np.uint64).reshape(-1).copy()
    from safari_sim.engine.chance import SeatRandom

    checked = 0
    P = players
    X = P + 2 if P == 2 else P + 1
    size = np.zeros(8, np.int64)
    poss = np.zeros(dk.NC, np.int64)
    w = np.zeros((dk.NC, 8))
    col = np.zeros(8)
    for step in range(400):
        live = np.flatnonzero(st.mover >= 0)
        if live.size == 0:
            break
        ph = st.g[live, dk.PHASE]
        idx = live[(ph == dk.TARGET) | (ph == dk.QUESTION) | (ph == dk.GUESS)]
        if idx.size and step % 3 == 0:
            obs = G.observe(st, idx).freeze()
            ref_poss = track(obs)
            ref_w = estimate(obs, ref_poss)
            sizes = place_sizes(obs)
            for i, b in enumerate(idx):
                p = int(st.mover[b])
                cc._sizes(b, p, P, st.pp, st.loc, size)
                assert np.array_equal(size[:X], sizes[i, :X])
                cc.track_one(b, p, P, st.g, st.loc, st.hist, st.start, dk.QMASK, size, poss,
                             np.zeros(8, np.int64))
                assert np.array_equal(poss, ref_poss[i].astype(np.int64)), (step, b)
                cc.estimate_one(poss, size, X, P, w, col)
                assert np.array_equal(w[:, :X], ref_w[i]), (step, b)   # exactly, not close
                checked += 1
        actions = np.zeros(B, np.int64)
        who = seating[live, st.mover[live]]
        for k, s in enumerate(strats):
            sel = live[who == k]
            if sel.size:
                rng = SeatRandom(seat_rs, sel * P + st.mover[sel])
                actions[sel] = s.act(G.observe(st, sel).freeze(), st.legal_[sel], rng)
        G.step(st, actions)
    assert checked > 100


def test_a_changed_strategy_is_not_played_by_its_compiled_twin():
    class Asker(Naive):
        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

    class Curious(Deducer):
        def _scores(self, obs, w):
            qs, s = super()._scores(obs, w)
            return qs, -s

    class Tuned(Collector):
        def policy(self):   # a subclass that brings its own twin keeps the fast path
            return super().policy()

    for s in (Naive(), Collector(meld_at=5), Deducer(guess_at=0.9)):
        assert s.compiled_policy() is not None
    assert Asker().compiled_policy() is None
    assert Curious().compiled_policy() is None
    assert Tuned().compiled_policy() is not None
    assert _compiled_play([Naive(), Asker()]) is None
    assert _compiled_play([Deducer(), Curious()]) is None
    assert _compiled_play([Naive(), get_strategy(G.id, "random")()]) is None
    assert _compiled_play([Naive(), Collector(), Deducer()]) is not None


def test_search_rollouts_through_the_twins_choose_as_through_the_loop(monkeypatch):
    """The search player plays its worlds on with a heuristic in every seat: through the twins
    (on dealt worlds, part-played) it makes the same choices as through the lockstep loop."""
    import strategies.search as search
    from safari_sim.engine import play

    outs = []
    for lockstep in (False, True):
        if lockstep:
            monkeypatch.setattr(search, "play_on",
                                lambda *a, **k: play.play_on(*a, **dict(k, compiled=False)))
        s = get_strategy(G.id, "search")(rollouts=1, rollout="deducer", top_k=2)
        strats = [s, Naive(), Collector()]
        res = play_batch(G, G.make_rules(), 3, strats, np.tile(np.arange(3), (2, 1)),
                         game_keys(2, 3, 2))
        outs.append(res)
    assert outs[0].decisions == outs[1].decisions
    assert np.array_equal(outs[0].outcome.score, outs[1].outcome.score)
    assert np.array_equal(outs[0].state.hist, outs[1].state.hist)

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
         ("deducer", {"guess_at": 0.3, "meld_weight": 1.5, "meld_at": 4}), ("deducer", {}),
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
    """Some numpy blocks of draws are made for every observed game as soon as one of them is
    at that decision: the kernel keeps the lockstep order, so the seat streams end equal."""
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
                cc.track_one(b, p, P, st.g, st.loc, st.hist, st.start, dk.QMASK, size, poss)
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

"""Deducktion's compiled heuristics (strategies/_deducktion_compiled.py): the lockstep loop (each
heuristic's ``decide`` for its rows) plays the same games as the whole-game kernel, to the last
statistic; each decision's draws depend on its game alone; a user strategy built on a heuristic
plays through its own ``act``; a search's rollouts choose alike through either path."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import _compiled_play, play_batch
from safari_sim.games import deducktion as dk
from safari_sim.games import get_game
from strategies import get_strategy
from strategies import _deducktion_compiled as cc
from strategies.deducktion import Collector, Deducer, Naive

from heuristics import ask

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
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(players, rules):
    """The three shipped heuristics, mixed at one table with knobs moved off their defaults:
    the whole-game kernel and the lockstep loop give the same games: every outcome column,
    the drama, the decisions."""
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


def test_ask_width_is_the_most_questions_three_flipped_cards_allow():
    """The deducer draws ASK_WIDTH per opponent at TARGET and QUESTION, whatever its game's
    flipped cards allow: no three question cards (repeats included) allow more, some allow
    exactly that many (three explorers)."""
    import itertools

    from strategies._deducktion_compiled import ASK_WIDTH

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
    """Each heuristic, asked in all the live games of a part-played batch at once and then in
    each game alone: the same action, and the game's seat stream moves by the same number of draws,
    one (random_legal) plus the block of its decision kind and nothing for the other games'
    kinds: naive 6 at GUESS; collector P - 1 at TARGET, 336 at QUESTION, 30 at PASS / GIVE, 6 at
    GUESS; deducer 30 at PASS / GIVE, (P - 1) x 30 at TARGET and QUESTION."""
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
        kinds = G.observe(st, live).kind.astype(np.int64)
        for name, s in zip(block, strats):
            rs = seat_rs.copy()
            together = ask(s, G, st, live, rs, P)
            moved = _draws(seat_rs[rows], rs[rows])
            want = 1 + np.array([block[name].get(int(k), 0) for k in kinds])
            assert np.array_equal(moved, want), (name, step)
            for i in range(0, live.size, 7):
                rs1 = seat_rs.copy()
                alone = ask(s, G, st, live[i:i + 1], rs1, P)
                assert alone[0] == together[i], (name, step, i)
                assert rs1[rows[i]] == rs[rows[i]]
            seen[name] |= set(kinds.tolist())
        who = live % 3          # play on with one strategy per game
        actions = np.zeros(B, np.int64)
        for k, s in enumerate(strats):
            sel = live[who == k]
            if sel.size:
                actions[sel] = ask(s, G, st, sel, seat_rs, P)
        G.step(st, actions)
    kinds = {dk.MELD, dk.QUESTION, dk.PASS, dk.GUESS} | ({dk.TARGET} if P > 2 else set())
    for name in block:   # the decision kinds were met (at two players no one chooses a target;
        # GIVE, the whole-hand case, is rare)
        assert kinds <= seen[name], (name, seen[name])


def test_a_user_strategy_built_on_a_heuristic_is_played_through_its_act():
    """A subclass that writes its own ``act`` is a numpy strategy like any user's: never
    played by the whole-game kernel, and its act is what plays."""
    class Asker(Naive):   # the first legal action, always
        reads_state = False

        def act(self, obs, legal, rng):
            return np.argmax(legal, axis=1)

        def compiled_policy(self):
            return None

    for s in (Naive(), Collector(meld_at=5), Deducer(guess_at=0.9)):
        assert s.compiled_policy() is not None
    assert _compiled_play([Naive(), Asker()]) is None
    assert _compiled_play([Naive(), get_strategy(G.id, "random")()]) is None
    assert _compiled_play([Naive(), Collector(), Deducer()]) is not None
    seating = np.array([[0, 1, 1]] * 12)
    r = G.make_rules()
    mine = play_batch(G, r, 3, [Asker(), Naive()], seating, game_keys(3, 3, 12))
    theirs = play_batch(G, r, 3, [Naive(), Naive()], seating, game_keys(3, 3, 12))
    assert not np.array_equal(mine.state.hist, theirs.state.hist)
    with pytest.raises(TypeError, match="compiled heuristic"):
        Naive().act(None, None, None)


def test_search_rollouts_through_the_kernel_choose_as_through_the_loop(monkeypatch):
    """The search player plays its worlds on with a heuristic in every seat: through the
    whole-game kernel (on dealt worlds, part-played) it makes the same choices as through the
    lockstep loop."""
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

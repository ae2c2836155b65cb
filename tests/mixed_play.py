"""Test helpers shared by games: a table of strategies seated round the games (random positions),
and the drama numbers of one game recounted in plain Python (the oracle of a game's drama test,
never calling engine/drama.py)."""

from __future__ import annotations

import numpy as np

from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import search_space

from safari_sim.engine.chance import SeatRandom, game_keys
from strategies import get_strategy

from heuristics import choose


def mixed_actions(game, st, strats, seat_rs, players):
    """One action for every game of ``st``: in game b the mover p plays strategy
    ``strats[(b + p) % len(strats)]`` (0 where the game is over)."""
    mover = game.to_move(st)
    live = np.flatnonzero(mover >= 0)
    legal = game.legal(st)
    a = np.zeros(len(mover), np.int64)
    for k, s in enumerate(strats):
        idx = live[(live + mover[live]) % len(strats) == k]
        if idx.size:
            a[idx] = choose(s, game, st, idx, seat_rs, players)
    return a


def play_mixed(game, rules, players, names, batch, seed, steps):
    """``batch`` games dealt from ``seed``, played ``steps`` decisions by the strategies ``names``
    seated round (``mixed_actions``); the state."""
    keys = game_keys(seed, players, batch)
    seat_rs = keys.seat.reshape(-1).copy()
    strats = [get_strategy(game.id, n)() for n in names]
    st = game.init(rules, players, keys.deal)
    for _ in range(steps):
        game.step(st, mixed_actions(game, st, strats, seat_rs, players))
    return st


def ref_drama(history, final, lower_wins=True):
    """The four drama numbers of one game, in plain Python, from its running scores (one row a
    turn) and its final scores: sole leader changes (ties keep the last sole leader), the share of
    updates before the winner led for good, the largest deficit it overcame, its winning margin."""
    sign = -1 if lower_wins else 1
    key = lambda row: [sign * x for x in row]  # noqa: E731
    best = max(key(final))
    winners = [p for p, x in enumerate(key(final)) if x == best]
    changes, last = 0, None
    for row in history:
        k = key(row)
        top = max(k)
        lead = [p for p, x in enumerate(k) if x == top]
        if len(lead) == 1:
            if last is not None and lead[0] != last:
                changes += 1
            last = lead[0]
    if len(winners) > 1:
        return changes, None, None, None
    w = winners[0]
    not_lead = [i + 1 for i, row in enumerate(history)
                if not (key(row)[w] == max(key(row)) and key(row).count(max(key(row))) == 1)]
    lead_from = (not_lead[-1] if not_lead else 0) / max(len(history), 1)
    comeback = max([0] + [max(key(row)) - key(row)[w] for row in history])
    margin = key(final)[w] - max(x for p, x in enumerate(key(final)) if p != w)
    return changes, lead_from, comeback, margin


def assert_drama(out, b, history, lower_wins):
    """Game b's drama columns in ``out`` equal ``ref_drama`` of its running-score history;
    returns the lead changes."""
    ch, lf, cb, mg = ref_drama(history, out.score[b].tolist(), lower_wins)
    assert out.stats["lead_changes"][b] == ch
    for col, v in (("lead_from", lf), ("comeback", cb), ("margin", mg)):
        got = out.stats[col][b]
        assert (np.isnan(got) if v is None else np.isclose(got, v)), (b, col, got, v)
    return ch


def check_search_space(game, player_counts, left_out=()):
    """Every field but ``left_out`` declares a search; each declared value alone (the others
    printed) passes ``check`` at each player count and a small batch of random play ends at the
    last (the most players: the deck's tightest)."""
    import dataclasses
    space = search_space(game.Rules)
    assert set(space) == {f.name for f in dataclasses.fields(game.Rules)} - set(left_out)
    printed = game.make_rules()
    rnd = get_strategy(game.id, "random")()
    for name, values in space.items():
        values = list(values)
        assert getattr(printed, name) in values, f"{name}: the printed value is among the searched"
        for v in values:
            r = game.make_rules({name: v})
            for players in player_counts:
                game.check(r, players)
            out = play_batch(game, r, players, [rnd], np.zeros((3, players), np.int64),
                             game_keys(5, players, 3)).outcome
            assert np.allclose(out.win.sum(axis=1), 1), (name, v)
            assert (out.turns > 0).all(), (name, v)


def _play_first_legal(game, st):
    while (game.to_move(st) >= 0).any():
        legal = np.asarray(game.legal(st))
        game.step(st, np.where(legal.any(axis=1), legal.argmax(axis=1), 0))


def check_clone_plays_the_same(game, st):
    """Games of ``st`` cloned (rows reversed and repeated) and played to the end by the first
    legal action end as the original games do, every outcome column equal (the drama too);
    playing the clone first leaves the original to play the same."""
    n = len(game.to_move(st))
    rows = np.concatenate([np.arange(n)[::-1], np.arange(0, n, 2)])
    clone = game.clone(st, rows)
    assert np.array_equal(game.to_move(clone), game.to_move(st)[rows])
    _play_first_legal(game, clone)
    _play_first_legal(game, st)
    a, b = game.outcome(clone), game.outcome(st)
    for name in ("score", "rank", "win", "turns"):
        assert np.array_equal(getattr(a, name), getattr(b, name)[rows]), name
    assert a.stats.keys() == b.stats.keys()
    for k in a.stats:
        assert np.array_equal(a.stats[k], b.stats[k][rows], equal_nan=True), k



def assert_same_play(fast, slow):
    """Two ``play_batch`` results of the same games agree (``compiled_check.assert_same_games``,
    the one copy of that comparison)."""
    from compiled_check import assert_same_games

    assert_same_games(fast, slow)

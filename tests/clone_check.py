"""A shared check of a game's ``clone``: cloned rows play on exactly as the games they copy."""

from __future__ import annotations

import numpy as np

from worlds_check import _arrays, assert_same_obs


def check_clone_plays_on(game, make, rows, seed=2):
    """``make()`` builds the same mid-game state each time. Rows of one (repeated, out of order)
    cloned and stepped beside another, with the same random legal moves: who moves, what is
    legal, what is observed (all but the batch index) and the outcome with every statistic
    (drama included) are the copied games', and the state cloned from is untouched."""
    st, real = make(), make()
    rows = np.asarray(rows, np.int64)
    w = game.clone(st, rows)
    rng = np.random.default_rng(seed)
    while (game.to_move(w) >= 0).any():
        assert np.array_equal(game.to_move(w), game.to_move(real)[rows])
        assert np.array_equal(game.legal(w), game.legal(real)[rows])
        live = np.flatnonzero(game.to_move(w) >= 0)
        assert_same_obs(game.observe(w, live), game.observe(real, rows[live]))
        a = np.zeros(len(game.to_move(real)), np.int64)
        for b in np.flatnonzero(game.to_move(real) >= 0):
            a[b] = rng.choice(np.flatnonzero(game.legal(real)[b]))
        game.step(real, a)
        game.step(w, a[rows])
    for k, v in _arrays(make()).items():
        assert np.array_equal(_arrays(st)[k], v), f"stepping a clone changed the state's {k}"
    ow, orl = game.outcome(w), game.outcome(real)
    assert np.array_equal(ow.score, orl.score[rows])
    assert np.array_equal(ow.turns, orl.turns[rows])
    for col, v in orl.stats.items():
        assert np.array_equal(ow.stats[col], v[rows], equal_nan=True), col

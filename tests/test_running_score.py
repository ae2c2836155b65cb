"""Every game's running score (``Game.running_score``, issue 16: what a depth-limited search
scores its worlds by): over random games at every player count, once a game is over it equals
``outcome(state).score`` exactly; at every step before that it is a finite float[B, P] and
reading it changes nothing in the state.

Worked mid-game positions, recounted from the rulebooks, are in the games' own tests (and below
for Duck Duck Bruce, Paper Safari, Bluff in Zoo, Herds and Savannah)."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys
from safari_sim.games import game_ids, get_game
from strategies.base import random_legal

GAMES = game_ids()
GAMES_AT = [(g, p) for g in GAMES
            for p in range(get_game(g).min_players, get_game(g).max_players + 1)]
# random games per (game, player count): a few hundred per game over its player counts
PER_GAME = 300
SLOW = {"savannah": 60, "herds": 120}  # long games: fewer (still every player count)


def _snapshot(obj, depth=0):
    """Every array the state holds (fields, and arrays inside caches and tuples), copied."""
    out = {}
    for name, v in vars(obj).items():
        if isinstance(v, np.ndarray):
            out[name] = v.copy()
        elif isinstance(v, (tuple, list)):
            for i, x in enumerate(v):
                if isinstance(x, np.ndarray):
                    out[f"{name}[{i}]"] = x.copy()
        elif depth < 2 and hasattr(v, "__dict__") and not isinstance(v, type) \
                and type(v).__module__.startswith("safari_sim"):
            for k, x in _snapshot(v, depth + 1).items():  # a cache object (a view, a buffer)
                out[f"{name}.{k}"] = x
    return out


def _same(before, after):
    assert before.keys() == after.keys()
    for k in before:
        a, b = before[k], after[k]
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True), \
            f"running_score changed state.{k}"


def _running(game, st, n_players):
    try:
        return game.running_score(st)
    except NotImplementedError as e:
        pytest.fail(f"{game.id}: {e}")


@pytest.mark.parametrize("game_id,players", GAMES_AT)
def test_running_score_is_a_read_and_ends_as_the_outcome(game_id, players):
    game = get_game(game_id)
    counts = range(game.min_players, game.max_players + 1)
    batch = max(8, SLOW.get(game_id, PER_GAME) // len(counts))
    rules = game.make_rules()
    keys = deal_keys(batch, 1600 + players)
    st = game.init(rules, players, keys)
    seat_rs = deal_keys(batch * players, 7 + players)
    steps = 0
    ended = np.zeros(batch, bool)
    while True:
        mover = game.to_move(st)
        before = _snapshot(st)
        rs = _running(game, st, players)
        _same(before, _snapshot(st))
        assert isinstance(rs, np.ndarray) and rs.dtype == np.float64, type(rs)
        assert rs.shape == (batch, players)
        assert np.isfinite(rs).all(), f"not finite at step {steps}"
        over = mover < 0
        if over.any():
            # a finished game: exactly its outcome's score (the same units, the same number)
            score = np.asarray(game.outcome(st).score, np.float64)
            np.testing.assert_array_equal(rs[over], score[over])
            ended |= over
        live = np.flatnonzero(~over)
        if live.size == 0:
            break
        legal = game.legal(st)
        rng = SeatRandom(seat_rs, live * players + mover[live])
        actions = np.zeros(batch, np.int64)
        actions[live] = random_legal(legal[live], rng)
        game.step(st, actions)
        steps += 1
        assert steps < 200_000
    assert ended.all()
    assert steps > 1

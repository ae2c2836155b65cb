"""Each game's decisions (issue 30: play time based on decisions): the play loop and every
whole-game kernel count them per game, the runner writes them to the dataset's ``decisions``
column, and the report's play time counts them.

The oracle is a plain loop written here from the protocol alone (who is to move, the legal mask,
the step): a game's decisions are the steps at which it had someone to move."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from safari_sim.cli import app
from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import game_ids, get_game
from strategies.base import Strategy
from heuristics import shipped

B = 40


def _players(game) -> int:
    return min(max(3, game.min_players), game.max_players)


class _FirstLegal(Strategy):
    """A user's numpy strategy: the lowest legal action (the oracle below plays the same)."""
    name = "first_legal"

    def act(self, obs, legal, rng):
        return np.argmax(legal, axis=1)


@pytest.mark.parametrize("game_id", game_ids())
def test_the_loop_counts_each_games_decisions_as_a_plain_recount(game_id):
    game = get_game(game_id)
    rules, p = game.make_rules({}), _players(game)
    res = play_batch(game, rules, p, [_FirstLegal()], np.zeros((B, p), np.int64),
                     game_keys(7, p, B))
    state = game.init(rules, p, game_keys(7, p, B).deal)
    count = [0] * B
    while True:
        mover = game.to_move(state)
        if (mover < 0).all():
            break
        legal = game.legal(state)
        actions = np.zeros(B, np.int64)
        for b in range(B):
            if mover[b] >= 0:
                count[b] += 1
                actions[b] = int(np.flatnonzero(legal[b])[0])
        game.step(state, actions)
    assert res.per_game.tolist() == count
    assert res.decisions == sum(count)


@pytest.mark.parametrize("game_id", game_ids())
def test_the_whole_game_kernel_counts_what_the_loop_counts(game_id):
    """Shipped heuristics at one table play whole games in the game's kernel: its per-game count
    is the lockstep loop's, game by game."""
    game = get_game(game_id)
    rules, p = game.make_rules({}), _players(game)
    strats = [cls() for cls in shipped(game_id)[:2]]
    seating = (np.arange(p)[None, :] + np.arange(B)[:, None]) % len(strats)
    fast, slow = (play_batch(game, rules, p, strats, seating, game_keys(9, p, B), compiled=c)
                  for c in (True, False))
    assert fast.per_game.tolist() == slow.per_game.tolist()
    assert fast.per_game.sum() == fast.decisions and (fast.per_game > 0).all()


def test_the_dataset_has_each_games_decisions_and_the_report_counts_them(tmp_path):
    (tmp_path / "e.yaml").write_text(
        "game: deducktion\nplayers: 3\ngames: 300\nseed: 4\n"
        "strategies:\n  - {name: a, use: deducer}\n  - {name: b, use: naive}\n"
        "  - {name: c, use: collector}\n")
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["run", str(tmp_path / "e.yaml"), "--output", str(out), "--quiet",
                                 "--jobs", "1"])
    assert r.exit_code == 0, r.output
    df = pl.read_parquet(out / "chunks" / "**" / "*.parquet")
    per = df.group_by("game").agg(pl.col("decisions").n_unique().alias("k"),
                                  pl.col("decisions").first(), pl.col("turns").first())
    assert (per["k"] == 1).all()        # one value a game, on each of its rows
    # Deducktion: 12 turns, each at least one decision (a question and a guess are two), so the
    # decisions vary where the turns do not
    assert (per["turns"] == 12).all() and (per["decisions"] >= 12).all()
    assert per["decisions"].n_unique() > 1
    r = CliRunner().invoke(app, ["report", str(out), "--format", "html"])
    assert r.exit_code == 0, r.output
    html = (out / "report.html").read_text()
    assert "counting every decision a player makes" in html
    assert "counting each turn as one decision" not in html

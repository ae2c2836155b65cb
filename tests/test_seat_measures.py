"""Per-seat measures (one number per player: Paper Safari's ``rounds_closed_won``, a designer's
function that returns a list) are declared and read per strategy everywhere a measure is used
(compare, sensitivity, tune, the report); a per-game one is read once a game. On the coin race of
tests/synthetic_game.py, whose ``bonus`` moves the first seat's edge and nothing a strategy owns
under rotation."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from synthetic_game import registered  # noqa: E402

from safari_sim.cli import app  # noqa: E402

MEASURES = """
def won(game):
    return list(game.win)

def never(game):
    return [0.0] * game.players

def length(game):
    return float(game.turns)

def first_won(game):
    return float(game.win[0])
"""


def experiment(tmp: Path, games: int = 600, rules: dict | None = None, name: str = "coin.yaml") -> Path:
    (tmp / "m.py").write_text(MEASURES)
    raw = {"name": "coin", "game": "coin_race_test", "players": 2, "games": games, "seed": 3,
           "rules": rules or {}, "strategies": [{"name": "a", "use": "random"},
                                                {"name": "b", "use": "first_legal"}],
           "measures": ["m.py:won", "m.py:never", "m.py:length", "m.py:first_won"],
           "parallel": {"jobs": 1}}
    path = tmp / name
    path.write_text(json.dumps(raw))
    return path


def invoke(*args):
    with registered():
        return CliRunner().invoke(app, [str(a) for a in args])


def rows(folder: Path) -> pl.DataFrame:
    return pl.read_parquet(folder / "chunks" / "**" / "*.parquet")


def test_the_kind_of_each_measure_is_recorded_not_guessed(tmp_path):
    """A designer's measure that returns a list is per seat even when it is 0 at every seat of
    every game (no sample of games can tell it from a per-game number); one that returns a
    number is per game; the game's own are as Game.seat_measures declares."""
    from safari_sim.games import get_game
    from safari_sim.stats import load_experiment, scan
    from safari_sim.stats.dataset import seat_measures

    assert invoke("run", experiment(tmp_path, games=200), "--output", tmp_path / "r", "--quiet").exit_code == 0
    with registered():
        exp = load_experiment(tmp_path / "r")
        assert sorted(seat_measures(exp, scan(tmp_path / "r"))) == ["never", "won"]
    paper = get_game("paper_safari")
    assert set(paper.seat_measures) <= set(paper.measures) and "rounds_closed_won" in paper.seat_measures
    from safari_sim.games import game_ids

    for gid in game_ids():  # a per-seat measure is a measure of the game
        g = get_game(gid)
        assert set(g.seat_measures) <= set(g.measures), gid


def test_compare_reads_a_per_seat_measure_per_strategy_and_a_per_game_one_once_a_game(tmp_path):
    """compare: "mean won per player: a" is strategy a's players' own (its win rate), one line per
    strategy; "mean length per game" is read on one row a game, so its interval is a game's
    (the seats' copies of one number are not four independent ones)."""
    from safari_sim.stats.compare import moved

    a = experiment(tmp_path, games=600)
    b = experiment(tmp_path, games=600, rules={"length": 4}, name="b.yaml")
    assert invoke("run", a, "--output", tmp_path / "ra", "--quiet").exit_code == 0
    assert invoke("run", b, "--output", tmp_path / "rb", "--quiet").exit_code == 0
    with registered():
        _, changes = moved(tmp_path / "ra", tmp_path / "rb")
    names = set(changes["measure"].to_list())
    assert {"mean won per player: a", "mean won per player: b", "mean length per game"} <= names
    assert not {"mean won", "mean length"} & names
    ra = rows(tmp_path / "ra")
    won_a = changes.filter(pl.col("measure") == "mean won per player: a").row(0, named=True)
    assert np.isclose(won_a["before"], ra.filter(pl.col("strategy") == "a")["win"].mean())
    wins = changes.filter(pl.col("measure") == "win rate: a").row(0, named=True)
    assert np.isclose(won_a["before"], wins["before"]) and np.isclose(won_a["after"], wins["after"])
    length = changes.filter(pl.col("measure") == "mean length per game").row(0, named=True)
    assert (length["before"], length["after"]) == (6.0, 8.0)
    # a game's one number, not P: the interval of its change is that of the games' means
    first = changes.filter(pl.col("measure") == "mean first_won per game").row(0, named=True)
    x = [rows(tmp_path / f).filter(pl.col("seat") == 0)["first_won"] for f in ("ra", "rb")]
    se = np.sqrt(sum(v.var() / len(v) for v in x))
    assert first["hi"] - first["lo"] == pytest.approx(2 * 1.959964 * se, rel=0.02)
    r = invoke("compare", tmp_path / "ra", tmp_path / "rb")
    assert "mean won per player: a" in " ".join(r.output.split())


def test_sensitivity_reads_a_per_seat_measure_per_strategy_not_from_seat_0(tmp_path):
    """bonus moves the first seat's wins; under rotation each strategy sits there half the time,
    so "won per player of a" is a's win rate (which bonus does not move), never seat 0's row
    (about 60% at bonus 1)."""
    path = experiment(tmp_path, games=600)
    r = invoke("sensitivity", path, "--fields", "bonus", "--output", tmp_path / "s")
    assert r.exit_code == 0, r.output
    effects = pl.read_csv(tmp_path / "s" / "effects.csv")
    measures = set(effects["measure"].to_list())
    assert {"won of a", "won of b", "length"} <= measures and "won" not in measures
    base = rows(tmp_path / "s" / "points" / "base")
    a = effects.filter(pl.col("measure") == "won of a").row(0, named=True)
    assert np.isclose(a["at_base"], base.filter(pl.col("strategy") == "a")["win"].mean())
    html = (tmp_path / "s" / "sensitivity.html").read_text()
    assert "Won per player of a" in html and 'id="m-won-of-a"' in html
    assert "length per game" in html


def test_a_tune_column_says_whose_and_refuses_a_strategy_of_a_per_game_column(tmp_path):
    """tune: a per-seat column of a strategy is "mean won per player of a"; without a strategy,
    every player's; a per-game column is "per game", and with a strategy it is refused."""
    from safari_sim.tune.config import TuneError, load_tune

    experiment(tmp_path)
    text = ("name: t\nexperiment: coin.yaml\nsearch:\n  rules.bonus:\nobjectives:\n  - OBJ\n"
            "budget: 600\nrungs: [300]\nconfirm: {top: 1, games: 300}\noutput: out\n")

    def tune(obj):
        (tmp_path / "t.yaml").write_text(text.replace("OBJ", obj))
        with registered():
            return load_tune(tmp_path / "t.yaml").objectives[0]

    assert tune("{kind: column, column: won, strategy: a, direction: maximize}").noun() == "mean won per player of a"
    assert tune("{kind: column, column: won, direction: maximize}").noun() == "mean won per player (every player)"
    assert tune("{kind: column, column: length, direction: maximize}").noun() == "mean length per game"
    with pytest.raises(TuneError, match="one number a game"):
        tune("{kind: column, column: length, strategy: a, direction: maximize}")


def test_the_report_shows_a_per_seat_measure_per_strategy_even_when_it_never_varies(tmp_path):
    """The report's per-game table holds the per-game measures; a per-seat one is a column of the
    strategies' table, even one that is 0 at every seat (which the first games would have
    passed off as one number a game)."""
    from reports.compute import compute_tables
    from safari_sim.stats import load_experiment, scan

    assert invoke("run", experiment(tmp_path, games=200), "--output", tmp_path / "r", "--quiet").exit_code == 0
    with registered():
        t = compute_tables(scan(tmp_path / "r"), load_experiment(tmp_path / "r"))
    per_game = set(t["length"]["statistic"].to_list())
    assert "length" in per_game and not {"won", "never"} & per_game
    assert {"won", "never"} <= set(t["seat_stats"].columns)

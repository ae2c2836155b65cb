"""`safari-sim bench --against DIR`: both trees run in turn, each row the median of its rounds."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from safari_sim import bench_against
from safari_sim.cli import app


def _tree(tmp_path: Path, name: str) -> Path:
    (tmp_path / name / "safari_sim").mkdir(parents=True)
    (tmp_path / name / "safari_sim" / "cli.py").write_text("")
    return tmp_path / name


def test_rounds_alternate_and_rows_are_medians(tmp_path, monkeypatch):
    old, new = _tree(tmp_path, "old"), _tree(tmp_path, "new")
    calls = []
    speed = {old: [100.0, 300.0, 200.0], new: [90.0, 150.0, 120.0]}  # per round

    def fake(tree, game, seconds, batch):
        n = sum(1 for t, _ in calls if t == tree)
        calls.append((tree, game))
        g = speed[tree][n]
        return [{"game": game, "seats": "same", "strategy": "same: x", "games_per_s": g,
                 "decisions_per_s": 10 * g},
                {"game": game, "workers_speedup": 1.9}]  # a row without games/s is skipped

    monkeypatch.setattr(bench_against, "_bench_once", fake)
    (row,) = bench_against.paired_rows(old, ["g"], rounds=3, here=new)
    # old first, then new first, then old first: a drift of the machine falls on both
    assert [t for t, _ in calls] == [old, new, new, old, old, new]
    assert row["old_games_per_s"] == 200.0 and row["new_games_per_s"] == 120.0
    assert row["new_decisions_per_s"] == 1200.0
    assert abs(row["ratio"] - 0.6) < 1e-12


def test_against_a_folder_that_is_not_a_checkout_is_a_clear_error(tmp_path):
    r = CliRunner().invoke(app, ["bench", "--against", str(tmp_path), "--game", "hi_lo_hijinks"])
    assert r.exit_code == 2
    assert "is not a safari-sim checkout" in r.output

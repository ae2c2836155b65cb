"""experiments/search-measure.py at other player counts (issue 32): the seats of a team game
(the measured seat, its partner, the opponents), the fair share of a row, and old rows read as
3 players."""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

from safari_sim.games import get_game

EXP = Path(__file__).resolve().parents[1] / "experiments"


def _script():
    sys.path.insert(0, str(EXP))  # its `measuring` helper
    try:
        spec = importlib.util.spec_from_file_location("search_measure", EXP / "search-measure.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(EXP))
    return mod


def test_team_seats_put_the_partner_opposite_and_the_fair_share_per_side():
    sm = _script()
    game = get_game("herds")
    nums = np.arange(4)
    seating, fair = sm.seating_of(game, game.make_rules(), 4, nums)
    # game b: the measured seat b mod 4, its partner across (b + 2) mod 4, the opponents 1
    assert seating.tolist() == [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]]
    assert fair == 0.5
    seating, fair = sm.seating_of(game, game.make_rules({"teams_at_four": False}), 4, nums)
    assert seating.tolist() == (1 - np.eye(4, dtype=int)).tolist() and fair == 0.25
    seating, fair = sm.seating_of(game, game.make_rules(), 3, np.arange(3))
    assert seating.tolist() == (1 - np.eye(3, dtype=int)).tolist() and abs(fair - 1 / 3) < 1e-12


def test_summary_reads_each_rows_fair_share_and_old_rows_as_three_players(tmp_path, capsys):
    sm = _script()
    base = dict(game="herds", opponent="collector", opponent_params={}, mode="search", budget=4,
                objective="win", top_k=0, prior=None, rollout="defaults", rollout_params={},
                decisions=10, search_cpu=1.0, cpu=1.0)
    old = {**base, "players": 3, "first": 0, "last": 4, "wins": [0.0, 0.0, 1.0, 1.0]}
    team = {**base, "players": 4, "rules": {}, "partner": "collector", "player": "search",
            "fair": 0.5, "first": 0, "last": 4, "wins": [1.0, 0.5, 0.5, 0.5]}
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (old, team)) + "\n")
    sm.summary([str(path)])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| herds")]
    assert len(rows) == 2  # the two counts are two rows, not one
    three = next(r for r in rows if r.startswith("| herds | 3 |"))
    four = next(r for r in rows if r.startswith("| herds | 4 |"))
    assert "| 0.50 ±" in three and four.split("|")[4].strip() == "collector"
    # 0.62 ± 0.25: level with a team's fair 1/2 (it would be ahead of 1/4, one over the seats)
    assert four.rstrip(" |").endswith("heuristic matches")

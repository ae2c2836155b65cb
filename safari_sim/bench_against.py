"""`safari-sim bench --against DIR`: this checkout's benchmark paired with another checkout's.

A figure of one day's machine says little about a change: machines here differ by 20-40% from
day to day. So both trees run the same `safari-sim bench --game G --no-workers` in turn, in
child processes (each tree on its own import path and numba cache), for a few rounds in
alternating order (old, new, new, old, ...) so that a drift of the machine's load falls on both
alike; each row's figure is the median of its rounds, and the ratio new / old is what moved.
Figures are the bench's own: games per CPU second of one process.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent.parent  # this checkout


def _checkout(path: Path) -> Path:
    path = path.resolve()
    if not (path / "safari_sim" / "cli.py").is_file():
        raise ValueError(f"{path} is not a safari-sim checkout (no safari_sim/cli.py in it)")
    return path


def _bench_once(tree: Path, game: str, seconds: float, batch: int) -> list[dict[str, Any]]:
    """One child `bench` of one game in ``tree``: its rows (JSON)."""
    with tempfile.TemporaryDirectory(prefix="safari-against-") as tmp:
        out = Path(tmp) / "rows.json"
        env = dict(os.environ, PYTHONPATH=str(tree))
        cmd = [sys.executable, "-m", "safari_sim.cli", "bench", "--game", game, "--no-workers",
               "--seconds", str(seconds), "--batch", str(batch), "--json", str(out)]
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"bench of {game} in {tree} failed:\n{done.stdout}\n{done.stderr}")
        return json.loads(out.read_text())["rows"]


def _key(row: dict[str, Any]) -> tuple[str, str]:
    return row["game"], row["seats"]


def paired_rows(other: Path, games: list[str], rounds: int = 3, seconds: float = 0.5,
                batch: int = 4096, here: Path = HERE) -> list[dict[str, Any]]:
    """Per (game, seats): median games/s and decisions/s of each tree over ``rounds`` runs taken
    in turn, and new / old."""
    old_tree, new_tree = _checkout(other), _checkout(here)
    out: list[dict[str, Any]] = []
    for game in games:
        runs: dict[str, dict[tuple[str, str], list[dict[str, Any]]]] = {"old": {}, "new": {}}
        for r in range(rounds):
            order = [("old", old_tree), ("new", new_tree)]
            for name, tree in (order if r % 2 == 0 else order[::-1]):
                for row in _bench_once(tree, game, seconds, batch):
                    if "games_per_s" in row:
                        runs[name].setdefault(_key(row), []).append(row)
        for key, new_rows in runs["new"].items():
            old_rows = runs["old"].get(key)
            if not old_rows:
                continue  # a row only one tree measures
            med = {n: {f: statistics.median(x[f] for x in rows)
                       for f in ("games_per_s", "decisions_per_s")}
                   for n, rows in (("old", old_rows), ("new", new_rows))}
            out.append({"game": key[0], "seats": key[1], "strategy": new_rows[0]["strategy"],
                        "rounds": rounds,
                        "old_games_per_s": med["old"]["games_per_s"],
                        "new_games_per_s": med["new"]["games_per_s"],
                        "old_decisions_per_s": med["old"]["decisions_per_s"],
                        "new_decisions_per_s": med["new"]["decisions_per_s"],
                        "ratio": med["new"]["games_per_s"] / med["old"]["games_per_s"]})
    return out


def against_table(console: Console, other: Path, only: str | None = None, rounds: int = 3,
                  seconds: float = 0.5, batch: int = 4096) -> list[dict[str, Any]]:
    from .bench import bench_games

    games = [gid for gid, *_ in bench_games(only)]
    rows = paired_rows(other, games, rounds=rounds, seconds=seconds, batch=batch)
    table = Table("game", "seats", f"games/s {other.name}", "games/s here", "here / there",
                  title=f"the benchmark, this checkout against {other.resolve()} "
                        f"(median of {rounds} runs each, taken in turn; one core, CPU time)")
    for r in rows:
        table.add_row(r["game"], r["strategy"] if r["seats"] != "run" else "safari-sim run",
                      f"{r['old_games_per_s']:,.0f}", f"{r['new_games_per_s']:,.0f}",
                      f"{r['ratio']:.2f}x")
    console.print(table)
    if rows:
        worst = min(rows, key=lambda r: r["ratio"])
        console.print(f"slowest against {other.name}: {worst['game']} {worst['seats']} at "
                      f"{worst['ratio']:.2f}x", highlight=False)
    return rows

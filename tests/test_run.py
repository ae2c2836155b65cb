"""Experiments end to end: validation, the dataset, determinism across workers, resume, the CLI."""

from __future__ import annotations

import dataclasses
import json
import re
import textwrap
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from safari_sim.cli import app
from safari_sim.run.config import ExperimentError, load_experiment
from safari_sim.run.runner import plan, prepare_output, run_tasks, seating_plan

runner = CliRunner()

BASE = """
game: duck_duck_bruce
players: 3
games: 1500
seed: 5
rules: {rounds: 1}
strategies:
  - {name: cautious, use: stop_at, params: {cards: 2}}
  - {name: bold, use: stop_at, params: {cards: 4}}
  - {name: counter, use: card_counter, params: {risk: 0.3}}
sweep: {rules.bruce_cards: [0, 6]}
parallel: {jobs: 1, batch: 256, chunk: 512}
"""


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def run_cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def files_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.parquet"))}


def test_cli_run_writes_the_dataset(tmp_path):
    exp = write(tmp_path, BASE)
    out = tmp_path / "res"
    r = run_cli("run", exp, "--output", out, "--quiet")
    assert r.exit_code == 0, r.output
    df = pl.scan_parquet(str(out) + "/**/*.parquet").collect()
    assert df.height == 2 * 1500 * 3
    for col in ("variant", "game", "seat", "strategy", "score", "rank", "win", "players", "turns",
                "rounds", "bruce_tried", "bruce_won"):
        assert col in df.columns
    per_game = df.group_by("variant", "game").agg(pl.col("win").sum(), pl.len(),
                                                 (pl.col("rank") == 1).sum().alias("firsts"))
    assert per_game.height == 2 * 1500
    assert np.allclose(per_game["win"].to_numpy(), 1.0)
    assert (per_game["len"] == 3).all()
    # rotation: every strategy sits in every seat equally often
    seats = df.group_by("strategy", "seat").len()
    assert seats.height == 9 and (seats["len"] == 2 * 500).all()
    # no Bruce cards, no Bruce steals
    assert df.filter(pl.col("variant") == "rules.bruce_cards=0")["bruce_tried"].sum() == 0
    assert df.filter(pl.col("variant") == "rules.bruce_cards=6")["bruce_tried"].sum() > 0
    meta = json.loads((out / "experiment.json").read_text())
    assert meta["seed"] == 5 and meta["players"] == 3 and meta["finished"] is True
    assert [v["rules"]["bruce_cards"] for v in meta["variants"]] == [0, 6]
    assert meta["variants"][0]["rules"]["rounds"] == 1
    assert "numpy" in meta["versions"] and meta["experiment"]["game"] == "duck_duck_bruce"


def test_same_dataset_with_one_or_two_workers(tmp_path):
    exp = write(tmp_path, BASE)
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_cli("run", exp, "--output", a, "--jobs", 1, "--quiet").exit_code == 0
    assert run_cli("run", exp, "--output", b, "--jobs", 2, "--quiet").exit_code == 0
    fa, fb = files_bytes(a), files_bytes(b)
    assert len(fa) == 6 and fa == fb


def test_stopped_run_resumes_and_loses_nothing(tmp_path):
    exp = write(tmp_path, BASE)
    full, part = tmp_path / "full", tmp_path / "part"
    assert run_cli("run", exp, "--output", full, "--quiet").exit_code == 0

    e = load_experiment(exp, output=str(part))
    prepare_output(e, {})
    tasks = plan(e)
    seen = []

    def stop_after_two(task, result):
        seen.append(task)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tasks(tasks, 1, stop_after_two)
    done = files_bytes(part)
    assert len(done) == 2  # the finished chunks are on disk, nothing half-written
    assert not list(part.rglob("*.tmp"))
    r = run_cli("run", exp, "--output", part, "--quiet")
    assert r.exit_code == 0 and "resuming" in r.output
    assert files_bytes(part) == files_bytes(full)


def test_output_of_another_experiment_is_refused(tmp_path):
    exp = write(tmp_path, BASE)
    out = tmp_path / "res"
    assert run_cli("run", exp, "--output", out, "--quiet").exit_code == 0
    other = write(tmp_path, BASE.replace("seed: 5", "seed: 6"), "other.yaml")
    before = files_bytes(out)
    r = run_cli("run", other, "--output", out, "--quiet")
    assert r.exit_code == 2 and "different experiment" in r.output
    r = run_cli("run", exp, "--output", out, "--games", 100, "--quiet")
    assert r.exit_code == 2 and "already holds 1,500 games per variant" in r.output
    assert "--replace" in r.output
    assert files_bytes(out) == before
    # --replace keeps the old results beside the new ones
    r = run_cli("run", other, "--output", out, "--quiet", "--replace")
    assert r.exit_code == 0 and "were moved to" in r.output
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("res.previous-")]
    assert len(aside) == 1 and files_bytes(aside[0]) == before
    import re
    from datetime import date
    assert re.fullmatch(rf"res\.previous-{date.today():%Y-%m-%d}-\d{{6}}", aside[0].name)
    assert json.loads((out / "experiment.json").read_text())["seed"] == 6
    assert "replaced" not in json.loads((out / "experiment.json").read_text())


def test_a_run_extended_with_more_games_plays_only_the_new_ones(tmp_path):
    exp = write(tmp_path, BASE)
    grown, fresh = tmp_path / "grown", tmp_path / "fresh"
    assert run_cli("run", exp, "--output", grown, "--quiet").exit_code == 0
    first = files_bytes(grown)
    r = run_cli("run", exp, "--output", grown, "--games", 2500, "--quiet")
    assert r.exit_code == 0 and "resuming: 3,000 games already on disk" in r.output
    assert "(2,000 played now" in " ".join(r.output.split())  # the part-filled chunk stays
    assert run_cli("run", exp, "--output", fresh, "--games", 2500, "--quiet").exit_code == 0
    # the same dataset as a run asked for 2500 games from the start; full chunks were kept
    assert files_bytes(grown) == files_bytes(fresh)
    kept = [k for k in first if k.endswith(("c000000.parquet", "c000001.parquet"))]
    assert kept and all(files_bytes(grown)[k] == first[k] for k in kept)
    df = pl.read_parquet(str(grown) + "/**/*.parquet")
    assert df.height == 2 * 2500 * 3
    assert json.loads((grown / "experiment.json").read_text())["games_per_variant"] == 2500


def test_seating_plan():
    rot = seating_plan("rotate", 3, 0, 6)
    assert rot.tolist() == [[0, 1, 2], [1, 2, 0], [2, 0, 1]] * 2
    assert seating_plan("fixed", 3, 7, 2).tolist() == [[0, 1, 2], [0, 1, 2]]


def test_user_strategy_from_a_file(tmp_path):
    (tmp_path / "bots.py").write_text(textwrap.dedent("""
        import numpy as np
        from strategies.base import Strategy
        from pydantic import BaseModel

        class Greedy(Strategy):
            name = "greedy"
            class Params(BaseModel):
                cards: int = 5
            def act(self, obs, legal, rng):
                a = np.where(obs.row_len >= self.params.cards, 1, 0)
                return np.where(legal[np.arange(len(a)), a], a, np.argmax(legal, axis=1))
    """))
    exp = write(tmp_path, BASE.replace("use: card_counter, params: {risk: 0.3}",
                                       "use: bots.py:Greedy, params: {cards: 5}"))
    out = tmp_path / "res"
    r = run_cli("run", exp, "--output", out, "--quiet", "--games", 300)
    assert r.exit_code == 0, r.output
    df = pl.read_parquet(str(out) + "/**/*.parquet")
    assert set(df["strategy"].unique()) == {"cautious", "bold", "counter"}


# ---- bad input: one clear message naming the key, exit 2, nothing written -----------------------

BAD = [
    ("game: duck_duck_bruc", "game: duck_duck_bruce", "did you mean 'duck_duck_bruce'"),
    ("players: 3", "players: 9", "players: duck_duck_bruce is for 2 to 6 players"),
    ("players: 3", "players: 2", "strategies: 3 listed for 2 players"),
    ("rules: {rounds: 1}", "rules: {round: 1}", "rules.round: no such rules field; did you mean 'rounds'"),
    ("rules: {rounds: 1}", "rules: {rounds: many}", "rules.rounds"),
    ("rules: {rounds: 1}", "rules: {max_steal: 0}", "rules.max_steal: must be at least 1"),
    ("use: stop_at, params: {cards: 2}", "use: stop_att, params: {cards: 2}", "did you mean 'stop_at'"),
    ("params: {cards: 2}", "params: {cards: two}", "strategies[0].params.cards"),
    ("params: {cards: 2}", "params: {card: 2}", "strategies[0].params.card"),
    ("games: 1500", "games: -4", "games"),
    ("games: 1500", "gmes: 1500", "gmes: unknown key"),
    ("seed: 5", "seed: 5\nseating: shuffled", "seating"),
    ("sweep: {rules.bruce_cards: [0, 6]}", "sweep: {rules.bruce_card: [0, 6]}", "did you mean 'rules.bruce_cards'"),
    ("sweep: {rules.bruce_cards: [0, 6]}", "sweep: {rules.bruce_cards: [0, -6]}", "rules.bruce_cards: must be 0 or more"),
    ("sweep: {rules.bruce_cards: [0, 6]}", "sweep: {strategies.bold.params.risk: [1]}", "'bold' has no parameter 'risk'"),
    ("sweep: {rules.bruce_cards: [0, 6]}", "sweep: {strategies.nobody.params.cards: [1]}", "no strategy named 'nobody'"),
    ("name: x", "name: x", None),
]


@pytest.mark.parametrize("old,new,message", [b for b in BAD if b[2]])
def test_bad_input_is_one_clear_message(tmp_path, old, new, message):
    text = BASE.replace(old, new)
    assert text != BASE
    exp = write(tmp_path, text)
    out = tmp_path / "res"
    r = run_cli("run", exp, "--output", out, "--quiet")
    assert r.exit_code == 2, r.output
    assert message in r.output, r.output
    assert "Traceback" not in r.output
    assert not out.exists()


def test_duplicate_names_and_missing_file_and_bad_yaml(tmp_path):
    r = run_cli("run", tmp_path / "nope.yaml")
    assert r.exit_code == 2 and "no such file" in r.output
    exp = write(tmp_path, BASE.replace("name: bold", "name: cautious"))
    r = run_cli("run", exp, "--output", tmp_path / "o")
    assert r.exit_code == 2 and "used twice" in r.output
    exp = write(tmp_path, "game: [unclosed\n")
    r = run_cli("run", exp)
    assert r.exit_code == 2 and "not valid YAML" in r.output
    exp = write(tmp_path, BASE.replace("use: stop_at, params: {cards: 2}", "use: nothere.py:Bot"))
    r = run_cli("run", exp, "--output", tmp_path / "o")
    assert r.exit_code == 2 and "nothere.py" in r.output


def test_experiment_errors_in_the_library():
    with pytest.raises(ExperimentError, match="no such file"):
        load_experiment("does-not-exist.yaml")


# ---- the other commands -----------------------------------------------------------------------

def test_games_rules_strategies_commands():
    r = run_cli("games")
    assert r.exit_code == 0 and "duck_duck_bruce" in r.output and "2-6" in r.output
    r = run_cli("rules", "duck_duck_bruce")
    assert r.exit_code == 0
    for field in ("suits", "suit_values", "bruce_cards", "die_faces", "max_steal", "target_score",
                  "rounds"):
        assert field in r.output
    r = run_cli("strategies", "duck_duck_bruce")
    assert r.exit_code == 0
    for s in ("random", "stop_at", "card_counter", "scoreboard", "value_hunter"):
        assert s in r.output
    r = run_cli("rules", "duck_duck_bruse")
    assert r.exit_code == 2 and "did you mean 'duck_duck_bruce'" in r.output


def test_strategies_lists_the_search_with_the_games_own_defaults():
    """The search's knobs as the game plays them (its SEARCH, and a player count's own row),
    not the generic defaults a designer would never get in that game."""
    r = runner.invoke(app, ["strategies", "safari_sprint"], env={"COLUMNS": "1200"})
    assert r.exit_code == 0
    row = next(line for line in r.output.splitlines() if "│ search" in line)
    assert "rollouts=4, top_k=3, prior=backer" in row and "elsewhere=backer" in row
    assert "at 4 players: top_k=2" in row and "rollout=random" not in row
    r = runner.invoke(app, ["strategies", "duck_duck_bruce"], env={"COLUMNS": "1200"})
    row = next(line for line in r.output.splitlines() if "│ search" in line)
    assert "rollouts=48" in row and "depth=4" in row and " players: " not in row.split("│")[2]


def test_strategies_actions_lists_every_action_number_and_meaning():
    from safari_sim.games import game_ids, get_game

    for gid in game_ids():
        g = get_game(gid)
        n = min(max(3, g.min_players), g.max_players)
        r = run_cli("strategies", gid, "--actions")
        assert r.exit_code == 0, r.output
        count = g.n_actions(g.make_rules(), n)
        assert f"│ {count - 1} " in r.output and f"│ {count} " not in r.output, gid
    r = run_cli("strategies", "duck_duck_bruce", "--actions", "--players", "2")
    assert "│ 1      │ bank the row" in r.output
    r = run_cli("strategies", "herds", "--actions", "--players", "7")
    assert r.exit_code == 2 and "2 to 4 players" in r.output


def test_rules_never_cuts_a_field_name_at_80_columns(monkeypatch):
    import dataclasses

    from safari_sim.games import game_ids, get_game

    monkeypatch.setenv("COLUMNS", "80")
    for gid in game_ids():
        r = run_cli("rules", gid)
        assert r.exit_code == 0
        names = {line.split("│")[1].strip() for line in r.output.splitlines()
                 if line.startswith("│") and line.split("│")[1].strip()}
        for f in dataclasses.fields(get_game(gid).Rules):
            assert f.name in names, (gid, f.name)


def test_trace_command():
    r = run_cli("trace", "duck_duck_bruce", "--seed", 3, "--strategies", "stop_at,random,card_counter")
    assert r.exit_code == 0, r.output
    assert "-- Round 1: P0 starts --" in r.output and "turns over" in r.output
    assert "Game over" in r.output and "(winner)" in r.output
    r2 = run_cli("trace", "duck_duck_bruce", "--seed", 3, "--strategies", "stop_at,random,card_counter")
    assert r2.output == r.output
    r = run_cli("trace", "duck_duck_bruce", "--strategies", "stop_at")
    assert r.exit_code == 2 and "2 to 6 players" in r.output
    r = run_cli("trace", "duck_duck_bruce", "--strategies", "stop_at,nope")
    assert r.exit_code == 2 and "unknown strategy 'nope'" in r.output
    r = run_cli("trace", "duck_duck_bruce", "--strategies", "stop_at,random", "--rule", "rounds=1")
    assert r.exit_code == 0 and "after 1 round(s)" in r.output


def test_bench_reports_each_measure():
    from rich.console import Console

    from safari_sim.bench import PHASES, run_bench

    rows = run_bench(Console(file=open("/dev/null", "w")), batch=64, seconds=0.05,
                     only="duck_duck_bruce", workers=True)
    plays = [r for r in rows if "seats" in r]
    assert [r["seats"] for r in plays] == ["same", "mixed", "random", "run"]
    for r in plays:
        assert r["games_per_s"] > 0 and r["decisions_per_s"] > r["games_per_s"]
        assert r["play_over_deal"] > 1  # playing a game costs more than dealing it
    mixed = plays[1]
    assert mixed["compiled"] and not plays[2]["compiled"]  # random has no compiled twin
    assert set(mixed["phases_us_per_game"]) == set(PHASES)
    assert mixed["phases_us_per_game"]["writing"] > 0
    assert [r for r in rows if "workers_speedup" in r][0]["workers_speedup"] > 0


@pytest.mark.slow  # a pool of every Duck Duck Bruce strategy: minutes of CPU
def test_bench_seatings_measures_every_seating():
    from rich.console import Console

    from safari_sim.bench import seating_table

    (row,) = seating_table(Console(file=open("/dev/null", "w")), batch=63, only="duck_duck_bruce",
                           seconds=0.02)
    for k in ("rotate", "duplicate", "pool", "pool, rotated"):
        assert row[f"{k}_games_per_s"] > 0


def test_bench_cold_runs_each_first_run_on_a_new_empty_cache(monkeypatch):
    """The cold measure runs `safari-sim run` twice per game on one new numba cache (empty for
    the first run, the second loads what the first wrote) and warms all ten on another; each
    command really runs (here a stand-in that checks the cache folder and counts)."""
    import os

    from rich.console import Console

    import safari_sim.bench as bench

    calls = []

    def fake(cmd, env, cwd):
        cache = Path(env["NUMBA_CACHE_DIR"])
        calls.append((cmd, cache, cache.exists() and any(cache.iterdir())))
        cache.mkdir(exist_ok=True)
        (cache / "kernel.nbc").write_text("compiled")
        return 2.0 if len(calls) % 2 else 1.0, 3.0

    monkeypatch.setattr(bench, "_child_seconds", fake)
    rows = bench.cold_table(Console(file=open(os.devnull, "w")))
    games = [r for r in rows if r["warm_cpu_s"] is not None]
    assert {r["game"] for r in games} == set(bench.game_ids())
    assert all(r["cold_cpu_s"] == 2.0 and r["warm_cpu_s"] == 1.0 for r in games)
    runs, warm = calls[:-1], calls[-1]
    assert [filled for _, _, filled in runs] == [False, True] * len(games)
    assert len({cache for _, cache, _ in runs}) == len(games)   # a new cache per game
    assert all("run" in cmd and "--jobs" in cmd for cmd, _, _ in runs)
    assert warm[1] not in {cache for _, cache, _ in runs} and not warm[2]
    assert warm[0][-1] == "safari_sim.warm"


def test_pure_python_mode_plays_the_same_game():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python (for debugging and coverage): the
    game must come out exactly as compiled, since both draw from the same Mersenne Twister."""
    import os
    import subprocess
    import sys

    args = [sys.executable, "-m", "safari_sim.cli", "trace", "duck_duck_bruce", "--seed", "4",
            "--strategies", "stop_at,card_counter,scoreboard", "--rule", "rounds=1"]
    jit = subprocess.run(args, capture_output=True, text=True, check=True)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    assert "Game over" in jit.stdout
    assert py.stdout == jit.stdout


def _is_tune_file(path: Path) -> bool:
    import yaml

    return "experiment" in (yaml.safe_load(path.read_text()) or {})


SHIPPED = sorted(Path(__file__).parent.parent.glob("experiments/*.yaml"))


@pytest.mark.parametrize("path", [p for p in SHIPPED if not _is_tune_file(p)], ids=lambda p: p.name)
def test_shipped_experiments_are_valid(path):
    exp = load_experiment(path)
    # baseline studies play thousands of games; a search player's study costs thousands of
    # play-outs a decision, so its files play what one machine allows (tens of games a table)
    assert exp.variants and exp.spec.games >= (10 if path.stem.endswith("search") else 1000)
    assert exp.game.min_players <= exp.players <= exp.game.max_players
    # results land in the project's results/ folder, as the README says (output is relative to
    # the experiment file)
    assert exp.output.resolve().parent == (path.parent.parent / "results").resolve()


@pytest.mark.parametrize("path", [p for p in SHIPPED if _is_tune_file(p)], ids=lambda p: p.name)
def test_shipped_tune_files_are_valid(path):
    from safari_sim.tune.config import load_tune

    t = load_tune(path, probe=False)
    assert Path(t.output).resolve().parent == (path.parent.parent / "results").resolve()


def test_an_illegal_action_names_the_strategy_the_game_and_the_seed(tmp_path):
    (tmp_path / "bots.py").write_text(textwrap.dedent("""
        import numpy as np
        from strategies.base import Strategy

        class AlwaysBank(Strategy):
            name = "always_bank"
            def act(self, obs, legal, rng):
                return np.ones(len(legal), dtype=np.int64)  # illegal after a Bruce
    """))
    exp = write(tmp_path, BASE.replace("use: card_counter, params: {risk: 0.3}",
                                       "use: bots.py:AlwaysBank"))
    r = run_cli("run", exp, "--output", tmp_path / "res", "--quiet", "--games", 300)
    assert r.exit_code == 2   # a strategy's mistake is the user's: 2, like bad input
    assert "strategy 'counter' chose illegal action 1" in r.output
    assert "1 (bank the row) is not legal there; the legal actions were" in r.output
    assert "duck_duck_bruce" in r.output and "seed 5" in r.output
    assert "Traceback" not in r.output
    finished = sorted((tmp_path / "res").glob("chunks/*/*.parquet"))
    assert finished   # the variant without Bruce cards finished its chunk before the error
    # the strategy fixed (its file edited), the same command runs; the failed run's results are
    # moved aside, kept, never mixed with the fixed strategy's games
    (tmp_path / "bots.py").write_text(textwrap.dedent("""
        import numpy as np
        from strategies.base import Strategy

        class AlwaysBank(Strategy):
            name = "always_bank"
            def act(self, obs, legal, rng):
                return np.where(legal[:, 1], 1, np.argmax(legal, axis=1))
    """))
    import sys   # a new command is a new process: here, forget the module as it was loaded
    for name in [m for m in sys.modules if m.startswith("_safari_user_")]:
        del sys.modules[name]
    r = run_cli("run", exp, "--output", tmp_path / "res", "--games", 300)
    assert r.exit_code == 0, r.output
    assert "run, which stopped on a strategy's error, were moved to" in " ".join(r.output.split())
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("res.previous-")]
    assert len(aside) == 1 and len(list(aside[0].glob("chunks/*/*.parquet"))) == len(finished)
    # a folder of a run that finished is still protected: the file edited again is another
    # experiment (its games were played by what the file said then)
    (tmp_path / "bots.py").write_text((tmp_path / "bots.py").read_text() + "\n# edited\n")
    r = run_cli("run", exp, "--output", tmp_path / "res", "--quiet", "--games", 300)
    assert r.exit_code == 2 and "different experiment" in r.output


def test_compare_two_runs_says_what_moved(tmp_path):
    from safari_sim.stats.compare import moved

    a = write(tmp_path, BASE.replace("sweep: {rules.bruce_cards: [0, 6]}", ""), "a.yaml")
    b = write(tmp_path, BASE.replace("sweep: {rules.bruce_cards: [0, 6]}", "")
              .replace("rules: {rounds: 1}", "rules: {rounds: 1, bruce_cards: 0}"), "b.yaml")
    out = tmp_path / "res"
    assert run_cli("run", a, "--output", out, "--quiet", "--games", 3000).exit_code == 0
    r = run_cli("run", b, "--output", out, "--quiet", "--games", 3000, "--replace")
    assert r.exit_code == 0, r.output
    assert "what moved" in r.output and "rules.bruce_cards" in r.output
    before = next(p for p in tmp_path.iterdir() if p.name.startswith("res.previous-"))
    diff, changes = moved(before, out)
    assert diff.rows() == [("base", "rules.bruce_cards", "6", "0")]
    # each number equals a plain recount from the two datasets
    for folder, col in ((before, "before"), (out, "after")):
        df = pl.read_parquet(str(folder) + "/**/*.parquet")
        for s in ("cautious", "bold", "counter"):
            row = changes.filter(pl.col("measure") == f"win rate: {s}").row(0, named=True)
            assert row[col] == pytest.approx(df.filter(pl.col("strategy") == s)["win"].mean())
        row = changes.filter(pl.col("measure") == "first seat's win rate").row(0, named=True)
        assert row[col] == pytest.approx(df.filter(pl.col("seat") == 0)["win"].mean())
    cautious = changes.filter(pl.col("measure") == "win rate: cautious").row(0, named=True)
    assert cautious["change"] == pytest.approx(cautious["after"] - cautious["before"])
    assert cautious["lo"] < cautious["change"] < cautious["hi"]
    # the same run against itself: nothing moved
    diff, same = moved(out, out)
    assert diff.height == 0 and not same["real"].any() and (same["change"] == 0).all()
    r = run_cli("compare", before, tmp_path / "nowhere")
    assert r.exit_code == 2 and "no experiment.json" in r.output


@pytest.mark.parametrize("game_id", ["duck_duck_bruce", "paper_safari", "bluff_in_zoo", "savannah"])
def test_new_writes_a_valid_starter_experiment(tmp_path, game_id):
    from safari_sim.games import get_game

    g = get_game(game_id)
    for n in (g.min_players, g.max_players):
        path = tmp_path / f"{game_id}-{n}.yaml"
        r = run_cli("new", game_id, "--players", n, "--file", path)
        assert r.exit_code == 0, r.output
        exp = load_experiment(path)
        assert exp.players == n and len(exp.spec.strategies) == n
        text = path.read_text()
        for f in dataclasses.fields(g.Rules):  # every field is there, with its meaning
            assert f"# {f.name}: " in text
    r = run_cli("new", game_id, "--players", g.max_players + 1)
    assert r.exit_code == 2 and "players" in r.output
    r = run_cli("new", game_id, "--file", path)
    assert r.exit_code == 2 and "exists" in r.output


def test_written_files_are_readable_by_others(tmp_path):
    import os
    import stat

    from safari_sim.files import atomic_write_bytes

    old = os.umask(0o022)
    try:
        atomic_write_bytes(tmp_path / "x" / "f.bin", b"abc")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "x" / "f.bin").stat().st_mode)
    assert mode == 0o644 and (tmp_path / "x" / "f.bin").read_bytes() == b"abc"
    assert [p.name for p in (tmp_path / "x").iterdir()] == ["f.bin"]


def test_a_failing_user_strategy_names_itself_and_keeps_finished_chunks(tmp_path):
    (tmp_path / "bots.py").write_text(textwrap.dedent("""
        import numpy as np
        from strategies.base import Strategy

        class Fragile(Strategy):
            name = "fragile"
            batches = 0
            def reset(self, batch, n_players):
                if batch > 1:  # not the one game the run plays first, to compile
                    Fragile.batches += 1  # the class lives on across the chunks of one worker
            def act(self, obs, legal, rng):
                if Fragile.batches > 1:
                    return helper_that_breaks(obs)
                return np.argmax(legal, axis=1)

        def helper_that_breaks(obs):
            raise ZeroDivisionError("my own bug")
    """))
    out = tmp_path / "res"
    # chunks of one batch: the first chunk finishes, the second fails
    text = BASE.replace("batch: 256, chunk: 512", "batch: 200, chunk: 200")
    exp = write(tmp_path, text.replace("use: card_counter, params: {risk: 0.3}",
                                       "use: bots.py:Fragile"))
    r = runner.invoke(app, ["run", str(exp), "--output", str(out), "--quiet", "--games", 600])
    assert r.exit_code == 2
    first, _, rest = r.output.partition("Traceback")
    assert "strategy 'counter' failed in duck_duck_bruce: ZeroDivisionError: my own bug" in first
    assert "variant 'rules.bruce_cards=0', chunk 1" in first and "seed 5" in first
    assert "helper_that_breaks" in rest and "bots.py" in rest  # the user's own traceback
    kept = files_bytes(out)
    assert list(kept) == ["chunks/v000/c000000.parquet"]


def test_the_dataset_is_the_same_whatever_the_batch(tmp_path):
    """Every game has its own streams: batch sizes of 100, 256 and 512 give the same bytes."""
    sets = []
    for batch in (100, 256, 512):
        exp = write(tmp_path, BASE.replace("batch: 256", f"batch: {batch}"), f"b{batch}.yaml")
        out = tmp_path / f"out{batch}"
        assert run_cli("run", exp, "--output", out, "--quiet").exit_code == 0
        sets.append(files_bytes(out))
    assert sets[0] == sets[1] == sets[2]


def test_trace_replays_a_game_of_the_dataset(tmp_path):
    exp = write(tmp_path, BASE)
    out = tmp_path / "res"
    assert run_cli("run", exp, "--output", out, "--quiet").exit_code == 0
    df = pl.read_parquet(str(out) + "/**/*.parquet")
    for variant, game in (("rules.bruce_cards=6", 1234), ("rules.bruce_cards=0", 7)):
        rows = df.filter((pl.col("variant") == variant) & (pl.col("game") == game)).sort("seat")
        r = run_cli("trace", "--from", out, "--variant", variant, "--game", game)
        assert r.exit_code == 0, r.output
        for seat, strategy, score in rows.select("seat", "strategy", "score").iter_rows():
            assert f"P{seat} {strategy}: points {score:g}," in r.output
    r = run_cli("trace", "--from", out, "--variant", "nope", "--game", 1)
    assert r.exit_code == 2 and "no variant 'nope'" in r.output
    r = run_cli("trace", "--from", out, "--game", 99999)
    assert r.exit_code == 2 and "games 0 to 1499" in r.output


def test_duplicate_seating_plays_each_deal_once_per_rotation(tmp_path):
    exp = write(tmp_path, BASE.replace("parallel:", "seating: duplicate\nparallel:")
                .replace("chunk: 512", "chunk: 510").replace("sweep: {rules.bruce_cards: [0, 6]}", ""))
    out = tmp_path / "res"
    assert run_cli("run", exp, "--output", out, "--quiet", "--games", 600).exit_code == 0
    df = pl.read_parquet(str(out) + "/**/*.parquet")
    assert (df["deal"] == df["game"] // 3).all()
    # each deal: three games, each strategy in each seat once
    per_deal = df.group_by("deal", "strategy").agg(pl.col("seat").n_unique())
    assert (per_deal["seat"] == 3).all()
    # the same deal: with the die and steals played the same way, the first card revealed is
    # the same in every rotation (the trace of each game starts with the same card)
    heads = set()
    for g in range(3):
        r = run_cli("trace", "--from", out, "--game", 30 + g)
        heads.add(next(line for line in r.output.splitlines() if "turns over" in line)
                  .split("turns over")[1])
    assert len(heads) == 1


def test_a_dask_cluster_writes_the_same_bytes_as_loky(tmp_path):
    """parallel: {backend: dask, address: local}: a LocalCluster of two worker processes, one of
    which dies in the middle of its first chunk; that chunk is played again elsewhere and the
    dataset is byte for byte the one loky writes."""
    pytest.importorskip("distributed")
    (tmp_path / "bots.py").write_text(textwrap.dedent(f"""
        import os
        from pathlib import Path
        from strategies.duck_duck_bruce import CardCounter

        class DiesOnce(CardCounter):
            name = "dies_once"
            def reset(self, batch, n_players):
                from distributed import get_worker
                try:
                    get_worker()
                except ValueError:  # not in a Dask worker (the run's own compile game)
                    return
                marker = Path({str(tmp_path / "died")!r})
                if not marker.exists():
                    marker.write_text("x")
                    os._exit(1)  # the worker process is lost mid-chunk
    """))
    text = BASE.replace("use: card_counter, params: {risk: 0.3}", "use: bots.py:DiesOnce")
    dask_exp = write(tmp_path, text.replace("parallel: {jobs: 1,", "parallel: {backend: dask, "
                                            "address: local, jobs: 2,"), "dask.yaml")
    a, b = tmp_path / "loky", tmp_path / "dask"
    r = run_cli("run", dask_exp, "--output", b, "--quiet")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "died").exists()
    exp = write(tmp_path, text)
    assert run_cli("run", exp, "--output", a, "--jobs", 2, "--quiet").exit_code == 0
    assert files_bytes(a) == files_bytes(b) and len(files_bytes(a)) == 6
    bad = write(tmp_path, BASE.replace("parallel: {jobs: 1,", "parallel: {backend: dask,"), "bad.yaml")
    r = run_cli("run", bad, "--output", tmp_path / "bad", "--quiet")
    assert r.exit_code == 2 and "backend dask needs an address" in r.output


def test_permute_seating_changes_neighbours():
    perm = seating_plan("permute", 3, 0, 6)
    assert sorted(map(tuple, perm.tolist())) == sorted(__import__("itertools").permutations(range(3)))
    # over P! games: each strategy in each seat, and each ordered pair of neighbours, equally often
    plan4 = seating_plan("permute", 4, 5, 24)
    for s in range(4):
        assert sorted(plan4[:, s].tolist()) == sorted(list(range(4)) * 6)
    left = {(a, b): 0 for a in range(4) for b in range(4) if a != b}
    for row in plan4.tolist():
        for i in range(4):
            left[(row[i], row[(i + 1) % 4])] += 1
    assert len(set(left.values())) == 1
    rot = seating_plan("rotate", 4, 0, 24)
    assert len({(r[0], r[1]) for r in rot.tolist()}) == 4  # rotation: always the same neighbours


def test_zip_and_lineup_sweeps(tmp_path):
    exp = write(tmp_path, """
        game: duck_duck_bruce
        players: 3
        games: 300
        seed: 2
        rules: {rounds: 1}
        strategies:
          - {name: cautious, use: stop_at, params: {cards: 2}}
          - {name: bold, use: stop_at, params: {cards: 4}}
          - {name: counter, use: card_counter}
          - {name: wild, use: random}
        sweep:
          zip: {rules.bruce_cards: [0, 6], rules.max_steal: [2, 3]}
          lineup: [[cautious, bold, counter], [bold, counter, wild]]
        parallel: {jobs: 1, batch: 100}
    """)
    e = load_experiment(exp)
    assert [v.label for v in e.variants] == [
        "rules.bruce_cards=0, rules.max_steal=2, cautious + bold + counter",
        "rules.bruce_cards=0, rules.max_steal=2, bold + counter + wild",
        "rules.bruce_cards=6, rules.max_steal=3, cautious + bold + counter",
        "rules.bruce_cards=6, rules.max_steal=3, bold + counter + wild"]
    assert [(v.rules.bruce_cards, v.rules.max_steal) for v in e.variants] == [(0, 2), (0, 2), (6, 3), (6, 3)]
    assert [s.name for s in e.variants[1].strategies] == ["bold", "counter", "wild"]
    out = tmp_path / "res"
    assert run_cli("run", exp, "--output", out, "--quiet").exit_code == 0
    df = pl.read_parquet(str(out) + "/**/*.parquet")
    by = df.group_by("variant_id").agg(pl.col("strategy").unique().sort()).sort("variant_id")
    assert by["strategy"].to_list()[1] == ["bold", "counter", "wild"]
    meta = json.loads((out / "experiment.json").read_text())
    assert meta["sweep_keys"] == ["rules.bruce_cards", "rules.max_steal", "lineup"]
    for bad, message in (
        ("zip: {rules.bruce_cards: [0, 6], rules.max_steal: [2]}", "all of the same length"),
        ("lineup: [[cautious, bold]]", "each table lists 3 names"),
        ("lineup: [[cautious, bold, countr]]", "did you mean 'counter'"),
        ("lineup: [[cautious, bold, bold]]", "names a strategy twice"),
    ):
        bad_exp = write(tmp_path, f"""
            game: duck_duck_bruce
            players: 3
            games: 300
            strategies:
              - {{name: cautious, use: stop_at}}
              - {{name: bold, use: stop_at}}
              - {{name: counter, use: card_counter}}
            sweep:
              {bad}
        """, "bad.yaml")
        r = run_cli("run", bad_exp, "--output", tmp_path / "bad", "--quiet")
        assert r.exit_code == 2 and message in r.output, (bad, r.output)


def test_a_pool_plays_every_table(tmp_path):
    exp = write(tmp_path, """
        game: duck_duck_bruce
        table: 3
        games: 120
        seed: 4
        rules: {rounds: 1}
        pool:
          - {name: s2, use: stop_at, params: {cards: 2}}
          - {name: s3, use: stop_at, params: {cards: 3}}
          - {name: s4, use: stop_at, params: {cards: 4}}
          - {name: counter, use: card_counter}
          - {name: wild, use: random}
        seating: permute
        parallel: {jobs: 1, batch: 60}
    """)
    e = load_experiment(exp)
    assert e.players == 3 and len(e.variants) == 10  # C(5, 3) tables
    assert {tuple(s.name for s in v.strategies) for v in e.variants} == set(
        __import__("itertools").combinations(["s2", "s3", "s4", "counter", "wild"], 3))
    sampled = load_experiment(write(tmp_path, exp.read_text().replace("games: 120", "games: 120\ntables: 4"), "s.yaml"))
    assert len(sampled.variants) == 4
    assert [v.label for v in sampled.variants] == [v.label for v in load_experiment(
        write(tmp_path, exp.read_text().replace("games: 120", "games: 120\ntables: 4"), "s2.yaml")).variants]
    out = tmp_path / "res"
    assert run_cli("run", exp, "--output", out, "--quiet").exit_code == 0
    df = pl.read_parquet(str(out) + "/**/*.parquet")
    assert df["variant_id"].n_unique() == 10 and df.height == 10 * 120 * 3
    # every pool member plays C(4, 2) = 6 of the 10 tables
    tables = df.group_by("strategy").agg(pl.col("variant_id").n_unique())
    assert (tables["variant_id"] == 6).all()


def test_a_sequential_comparison_holds_its_error_rate():
    """Synthetic strategies of known strength: deals whose win difference has mean 0 (400 runs
    looked at after every 200 deals up to 20,000) decide wrongly at most alpha of the time; a
    real gap of 5 points is found, on the right side, long before the budget."""
    from safari_sim.stats import sequential

    rng = np.random.default_rng(0)
    alpha, budget, look = 0.05, 20_000, 200
    rho = sequential.tuned_rho(budget)

    def run(p_a, p_b):
        # each deal: A wins, B wins, or a third player wins
        u = rng.random(budget)
        d = np.where(u < p_a, 1.0, np.where(u < p_a + p_b, -1.0, 0.0))
        for n in range(look, budget + 1, look):
            side, _, _ = sequential.compare(d[:n], alpha, rho)
            if side:
                return side, n
        return None, budget

    null = [run(1 / 3, 1 / 3)[0] for _ in range(400)]
    wrong = sum(s is not None for s in null) / len(null)
    assert wrong <= alpha + 0.015  # 5% +- 1.5%: in fact far below, the sequence is conservative
    found = [run(0.36, 0.31) for _ in range(100)]
    assert all(side == "A" for side, _ in found)
    assert np.median([n for _, n in found]) < budget / 2


def test_until_stops_when_the_answer_is_clear(tmp_path):
    text = BASE.replace("sweep: {rules.bruce_cards: [0, 6]}", "") \
        .replace("parallel: {jobs: 1, batch: 256, chunk: 512}", "parallel: {jobs: 2, batch: 256, chunk: 256}")
    exp = write(tmp_path, text + "until: {compare: [cautious, counter]}\n")
    out = tmp_path / "res"
    r = run_cli("run", exp, "--output", out, "--games", 20_000, "--quiet")
    assert r.exit_code == 0, r.output
    meta = json.loads((out / "experiment.json").read_text())
    st = meta["stopped"]
    assert st["early"] and st["games_per_variant"] < 20_000
    assert "counter wins more than cautious" in st["reason"] and "stopped after" in r.output
    df = pl.read_parquet(str(out) + "/**/*.parquet")
    assert df["game"].max() + 1 == st["games_per_variant"]  # exactly chunks 0 .. c
    # the same stop with one worker, and on a resumed run
    one = tmp_path / "one"
    assert run_cli("run", exp, "--output", one, "--games", 20_000, "--jobs", 1, "--quiet").exit_code == 0
    assert files_bytes(one) == files_bytes(out)
    r = run_cli("run", exp, "--output", out, "--games", 20_000, "--quiet")
    assert r.exit_code == 0 and files_bytes(one) == files_bytes(out)
    # an interval target
    exp2 = write(tmp_path, text + "until: {interval: 0.03}\n", "i.yaml")
    r = run_cli("run", exp2, "--output", tmp_path / "i", "--games", 20_000, "--quiet")
    st = json.loads((tmp_path / "i" / "experiment.json").read_text())["stopped"]
    assert st["early"] and "within +-3.0 percentage points" in st["reason"]
    bad = write(tmp_path, text + "until: {interval: 0.03, compare: [a, b]}\n", "b.yaml")
    r = run_cli("run", bad, "--output", tmp_path / "b", "--quiet")
    assert r.exit_code == 2 and "exactly one of interval or compare" in r.output


def test_until_says_percentage_points_not_percent(tmp_path):
    # a difference of two shares is in percentage points ("4.1 +- 1.2 percentage points"), as
    # the rest of the project writes it, never "4.10% +- 1.20%"
    from types import SimpleNamespace

    from report_data import frame
    from safari_sim.run.until import check

    path = tmp_path / "g.parquet"
    frame(players=3, games=6000, strategies=["a", "b", "c"], strengths=[1.6, 1, 1], rng=4).write_parquet(path)
    spec = SimpleNamespace(until=SimpleNamespace(interval=0.03, compare=None, alpha=0.05))
    why = check(spec, [path], 6000, 1)
    assert why.startswith("every win-rate interval is within +-3.0 percentage points (the widest +-")
    assert "%" not in why
    spec = SimpleNamespace(until=SimpleNamespace(interval=None, compare=["a", "b"], alpha=0.05))
    why = check(spec, [path], 6000, 1)
    assert why.startswith("a wins more than b by ") and " percentage points (6,000 deals)" in why
    assert "%" not in why.split("(always-valid")[0]


def test_until_names_the_widest_interval_and_its_variant(tmp_path):
    from types import SimpleNamespace

    from report_data import frame
    from safari_sim.run.until import check

    path = tmp_path / "g.parquet"
    pl.concat([frame(players=3, games=g, strategies=["a", "b", "c"], rng=4, variant_id=k, label=f"v{k}")
               for k, g in enumerate((6000, 3000))]).write_parquet(path)
    spec = SimpleNamespace(until=SimpleNamespace(interval=0.03, compare=None, alpha=0.05))
    why = check(spec, [path], 6000, 2)
    assert re.search(r"\(the widest \+-\d\.\d+ percentage points: [abc] in v1\)$", why), why
    spec.pool = [{"name": "a"}]   # a pool's variants are its tables
    assert check(spec, [path], 6000, 2).endswith(" at the table v1)")


def test_errors_a_designer_hit(tmp_path):
    """A misspelled knob in a sweep experiment, a misspelled class, a YAML error on line 7."""
    exp = write(tmp_path, BASE.replace("params: {risk: 0.3}", "params: {risc: 0.3}"))
    r = run_cli("run", exp, "--output", tmp_path / "o", "--quiet")
    msg = " ".join(r.output.split())
    assert r.exit_code == 2 and "strategies[2].params.risc: unknown key; did you mean 'risk'?" in msg
    assert "sweep point" not in msg  # the knob is not swept: no unrelated sweep point in front
    (tmp_path / "bots.py").write_text(textwrap.dedent("""
        import numpy as np
        from strategies.base import Strategy
        class Banker(Strategy):
            name = "banker"
        class Drawer(Strategy):
            name = "drawer"
    """))
    exp = write(tmp_path, BASE.replace("use: stop_at, params: {cards: 2}", "use: bots.py:Banke"))
    r = run_cli("run", exp, "--output", tmp_path / "o", "--quiet")
    msg = " ".join(r.output.split())
    assert r.exit_code == 2 and "did you mean 'Banker'?" in msg and "its strategies: Banker, Drawer" in msg
    text = BASE.replace("rules: {rounds: 1}", "rules: {rounds: 1")  # line 6 of the file opens it
    exp = write(tmp_path, text)
    r = run_cli("run", exp, "--output", tmp_path / "o", "--quiet")
    line = next(i for i, s in enumerate(textwrap.dedent(text).splitlines(), 1) if "rules:" in s)
    msg = " ".join(r.output.split())
    assert r.exit_code == 2 and "not valid YAML" in msg
    # the line the fault is on (where the brace opens), not the later line the parser noticed it
    assert f"YAML, line {line}: a flow mapping that opens there is not closed" in msg, msg
    # a fault the parser sees where it is: that line and column
    text = BASE.replace("rules: {rounds: 1}", "rules:\n  rounds: 1\n   target_score: 3")
    exp = write(tmp_path, text)
    r = run_cli("run", exp, "--output", tmp_path / "o", "--quiet")
    bad = next(i for i, s in enumerate(textwrap.dedent(text).splitlines(), 1) if "target_score" in s)
    msg = " ".join(r.output.split())
    assert r.exit_code == 2 and f"YAML, line {bad}, column" in msg, msg


def test_output_is_relative_to_the_experiment_file(tmp_path, monkeypatch):
    sub = tmp_path / "studies"
    sub.mkdir()
    exp = write(sub, BASE + "output: ../results/mine\n")
    monkeypatch.chdir(tmp_path / "studies")
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    r = run_cli("run", exp, "--quiet", "--games", 300)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "results" / "mine" / "experiment.json").exists()
    assert not (other / "results").exists()
    # --output on the command line is the shell's path, from the current folder
    r = run_cli("run", exp, "--quiet", "--games", 300, "--output", "here")
    assert r.exit_code == 0 and (other / "here" / "experiment.json").exists()


def test_the_run_says_how_many_games_hit_a_safety_stop(tmp_path):
    exp = write(tmp_path, BASE.replace("rules: {rounds: 1}", "rules: {max_rounds: 1}")
                .replace("sweep: {rules.bruce_cards: [0, 6]}", ""))
    r = run_cli("run", exp, "--output", tmp_path / "o", "--games", 300)
    text = " ".join(r.output.split())
    assert r.exit_code == 0 and "300 of 300 games were ended by the safety stop" in text
    r = run_cli("run", write(tmp_path, BASE, "b.yaml"), "--output", tmp_path / "b", "--games", 300)
    assert "no game or round hit a safety stop (600 games)" in " ".join(r.output.split())


def test_duplicate_seating_needs_whole_deals(tmp_path):
    exp = write(tmp_path, BASE.replace("parallel:", "seating: duplicate\nparallel:")
                .replace("chunk: 512", "chunk: 510"))  # 1500 = 500 x 3
    assert run_cli("run", exp, "--output", tmp_path / "a", "--quiet", "--games", 1501).exit_code == 2
    r = run_cli("run", exp, "--output", tmp_path / "a", "--quiet", "--games", 1501)
    assert "games must be a multiple of 3 (e.g. 1,503)" in " ".join(r.output.split())
    e = load_experiment(write(tmp_path, BASE.replace("parallel: {jobs: 1, batch: 256, chunk: 512}",
                                                     "seating: duplicate"), "d.yaml"), games=60000)
    assert all(t.first_game % 3 == 0 for t in plan(e))


def test_trace_takes_knobs_and_an_experiment_file(tmp_path):
    r = run_cli("trace", "duck_duck_bruce", "--seed", 3, "--strategies",
                "stop_at:cards=1,card_counter:risk=0.9", "--rule", "rounds=1")
    assert r.exit_code == 0, r.output
    assert "P0 stop_at:cards=1" in r.output
    # cards=1 banks every first duck: every turn of P0 that draws is one card long
    r = run_cli("trace", "duck_duck_bruce", "--strategies", "stop_at:cardz=1,random")
    assert r.exit_code == 2 and "cardz" in r.output
    exp = write(tmp_path, BASE)
    out = tmp_path / "res"
    assert run_cli("run", exp, "--output", out, "--quiet").exit_code == 0
    a = run_cli("trace", "--experiment", exp, "--variant", "rules.bruce_cards=6", "--game", 77)
    b = run_cli("trace", "--from", out, "--variant", "rules.bruce_cards=6", "--game", 77)
    assert a.exit_code == 0 and b.exit_code == 0
    game = lambda r: r.output[r.output.index("-- Round"):]  # noqa: E731 (after the header)
    assert game(a) == game(b)  # the same game, move by move


def test_a_designers_measures_become_columns_and_bad_ones_are_refused(tmp_path):
    """measures: [FILE.py:FUNCTION]: a function of one finished game, its column named after it;
    a per-seat one gives a number per row; mistakes get one message and exit 2."""
    (tmp_path / "m.py").write_text(textwrap.dedent("""
        def twice_turns(game):
            return 2 * game.turns

        def my_score(game):
            return [s + 1 for s in game.score]

        def nest_cards(game):
            # the final position, everything revealed: the cards in each nest
            return int((game.position.nest >= 0).sum()) if game.position.nest.dtype.kind == "i" \\
                else int(game.position.nest.sum())

        def two_args(game, other):
            return 0

        def broken(game):
            return game.nothing
    """))
    text = BASE.replace("parallel:", "measures: [m.py:twice_turns, m.py:my_score, m.py:nest_cards]\nparallel:")
    exp = write(tmp_path, text)
    r = run_cli("run", exp, "--output", tmp_path / "o", "--quiet", "--games", 600)
    assert r.exit_code == 0, r.output
    df = pl.read_parquet(list((tmp_path / "o").glob("chunks/*/*.parquet")))
    assert (df["twice_turns"] == 2 * df["turns"]).all()
    assert (df["my_score"] == df["score"] + 1).all()
    assert df["nest_cards"].min() >= 0 and df["nest_cards"].max() > 0
    import json
    assert json.loads((tmp_path / "o" / "experiment.json").read_text())["measures"] == [
        "twice_turns", "my_score", "nest_cards"]
    for bad, message in [("m.py:twice_turn", "did you mean 'twice_turns'?"),
                         ("m.py:two_args", "should take one argument"),
                         ("nope.py:f", "measure file 'nope.py' not found"),
                         ("m.py:twice_turns, m.py:twice_turns", "two functions named")]:
        exp = write(tmp_path, BASE.replace("parallel:", f"measures: [{bad}]\nparallel:"))
        r = run_cli("run", exp, "--output", tmp_path / "bad", "--quiet", "--games", 300)
        assert r.exit_code == 2 and "measures" in r.output and message in " ".join(r.output.split()), r.output
        assert not (tmp_path / "bad").exists()
    exp = write(tmp_path, BASE.replace("parallel:", "measures: [m.py:broken]\nparallel:"))
    r = run_cli("run", exp, "--output", tmp_path / "b2", "--quiet", "--games", 300)
    assert r.exit_code == 2 and "a measure failed: AttributeError" in r.output
    assert "game.nothing" in r.output  # the designer's own traceback


def _compare_rescaled(tmp_path, text, change, before, after):
    """Runs ``text`` as it is and with ``rules: {change}``: compare must say the points
    available move from ``before`` to ``after`` and show each strategy's score as a share of
    them. Returns the table of changes."""
    a = write(tmp_path, text, "a.yaml")
    b = write(tmp_path, text.replace("rules: {}", f"rules: {{{change}}}"), "b.yaml")
    assert run_cli("run", a, "--output", tmp_path / "ra", "--quiet").exit_code == 0
    assert run_cli("run", b, "--output", tmp_path / "rb", "--quiet").exit_code == 0
    from safari_sim.stats.compare import moved

    diff, changes = moved(tmp_path / "ra", tmp_path / "rb")
    row = diff.filter(pl.col("what").str.starts_with("points available")).row(0, named=True)
    assert (row["before"], row["after"]) == (str(before), str(after))
    share = changes.filter(pl.col("measure").str.starts_with("score as a share")).sort("measure")
    score = changes.filter(pl.col("measure").str.starts_with("mean score")).sort("measure")
    assert share.height == 3
    assert np.allclose(share["before"], score["before"] / before)
    assert np.allclose(share["after"], score["after"] / after)
    r = run_cli("compare", tmp_path / "ra", tmp_path / "rb")
    assert (f"the rules change the points a game shares out ({before} -> {after}"
            in " ".join(r.output.split()))
    return changes


def test_compare_shows_measures_and_a_score_rescaled_by_the_rules(tmp_path):
    """Jungle Thrills with fewer animals shares out fewer points: compare says so and shows
    each score as a share of the points available; a measure of both runs is a line."""
    (tmp_path / "m.py").write_text("def length(game):\n    return game.turns\n")
    text = """
        game: jungle_thrills
        players: 3
        games: 600
        seed: 3
        rules: {}
        strategies: [{name: a, use: rememberer}, {name: b, use: leader_hunter}, {name: c, use: guesser}]
        measures: [m.py:length]
        parallel: {jobs: 1, batch: 300}
    """
    changes = _compare_rescaled(tmp_path, text, "animals: 5", 84, 60)
    length = changes.filter(pl.col("measure") == "mean length per game").row(0, named=True)
    turns = changes.filter(pl.col("measure") == "mean turns per game").row(0, named=True)
    assert np.isclose(length["before"], turns["before"]) and np.isclose(length["after"], turns["after"])


def test_compare_shows_safari_sprint_scores_as_a_share_when_the_series_is_shorter(tmp_path):
    """Two races instead of three share out 30 points instead of 45 at three players (every
    place's points, the explorer's included): compare says so and shows each score as a share."""
    text = """
        game: safari_sprint
        players: 3
        games: 300
        seed: 5
        rules: {}
        strategies: [{name: a, use: backer}, {name: b, use: spoiler}, {name: c, use: projector}]
        parallel: {jobs: 1, batch: 300}
    """
    _compare_rescaled(tmp_path, text, "races: 2", 45, 30)


def test_compare_shows_the_games_own_measures_inside_the_correction(tmp_path):
    """Jungle Thrills' own measures (Game.measures, docs/rules "Measures") are lines of compare
    like a designer's: in the second version, with `hunt_first: false` more games end with pairs
    nothing can complete,
    and that line is among the numbers Holm corrects for."""
    text = """
        game: jungle_thrills
        players: 3
        games: 600
        seed: 3
        rules: {version: 2}
        strategies: [{name: a, use: rememberer}, {name: b, use: leader_hunter}, {name: c, use: guesser}]
        parallel: {jobs: 1, batch: 300}
    """
    a = write(tmp_path, text, "a.yaml")
    b = write(tmp_path, text.replace("{version: 2}", "{version: 2, hunt_first: false}"), "b.yaml")
    assert run_cli("run", a, "--output", tmp_path / "ra", "--quiet").exit_code == 0
    assert run_cli("run", b, "--output", tmp_path / "rb", "--quiet").exit_code == 0
    from safari_sim.stats.compare import moved
    from safari_sim.stats.design import holm

    _, changes = moved(tmp_path / "ra", tmp_path / "rb")
    assert {"mean pairs_stranded per game", "mean points_unwon per game"} <= set(changes["measure"].to_list())
    stranded = changes.filter(pl.col("measure") == "mean pairs_stranded per game").row(0, named=True)
    ra = pl.read_parquet(tmp_path / "ra" / "**" / "*.parquet").filter(pl.col("seat") == 0)
    assert np.isclose(stranded["before"], ra["pairs_stranded"].mean())
    assert stranded["change"] > 0 and stranded["real"]
    assert np.allclose(changes["p_holm"], holm(changes["p_value"].to_numpy()))
    r = run_cli("compare", tmp_path / "ra", tmp_path / "rb")
    text = " ".join(r.output.split())
    assert r.exit_code == 0 and "pairs_stranded" in text and f"{changes.height} numbers compared" in text

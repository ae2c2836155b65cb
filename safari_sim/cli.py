"""`safari-sim`: run experiments, list games, rules and strategies, trace a game, report, bench."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Monte Carlo strategy analysis for animal card games.")


class _Console(Console):
    """A rich Console where COLUMNS, when set, says the width (rich asks the terminal first,
    which gives 80 in a pipe that still has one, e.g. under pytest-xdist)."""

    @property
    def size(self):
        s = super().size
        cols = os.environ.get("COLUMNS", "")
        return type(s)(int(cols), s.height) if cols.isdigit() else s

    @size.setter
    def size(self, new):
        Console.size.fset(self, new)


out = _Console()
err = _Console(stderr=True)


def fail(message: str, code: int = 2) -> None:
    """One clear message, no traceback, exit code 2 for bad input."""
    from rich.markup import escape

    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@app.command()
def run(
    file: Path = typer.Argument(..., help="experiment file (YAML)"),
    games: Optional[int] = typer.Option(None, "--games", min=1, help="games per variant (overrides the file)"),
    jobs: Optional[int] = typer.Option(None, "--jobs", help="parallel workers (-1: one per core)"),
    output: Optional[str] = typer.Option(None, "--output", help="results folder (overrides the file)"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
    replace: bool = typer.Option(False, "--replace", help=(
        "if the output folder holds another experiment's results, move them aside "
        "(to OUTPUT.previous-DATE, kept) and start afresh")),
) -> None:
    """Run an experiment: play every variant's games, write Parquet chunks and experiment.json.

    Running the same file again resumes (or, with more --games, extends) the run in place."""
    import yaml
    from rich.progress import (BarColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    from .run.config import ExperimentError, load_experiment
    from .run.runner import RunError, games_on_disk, plan, prepare_output, run_tasks

    try:
        exp = load_experiment(file, games=games, output=output, jobs=jobs)
        raw = yaml.safe_load(exp.source_text)
        record = prepare_output(exp, raw, replace=replace)
    except ExperimentError as e:
        fail(str(e))
    tasks = plan(exp)
    total = exp.spec.games * len(exp.variants)
    done_before = sum(games_on_disk(t) for t in tasks)
    jobs_n = exp.spec.parallel.jobs
    out.print(f"[bold]{exp.name}[/]: {exp.game.name}, {exp.players} players, "
              f"{len(exp.variants)} variant(s) x {exp.spec.games:,} games, "
              f"{len(tasks)} chunk(s), jobs={jobs_n} -> {exp.output}", highlight=False)
    replaced = record.pop("replaced", None)
    if replaced:
        why = ("the results of the earlier run, which stopped on a strategy's error," if
               record.pop("replaced_failed", False) else "the earlier results (another experiment)")
        out.print(f"{why} were moved to {replaced}", highlight=False)
    if done_before:
        out.print(f"resuming: {done_before:,} games already on disk", highlight=False)
    if total > done_before:
        _compile_first(exp, quiet)
    t0 = time.perf_counter()
    played = 0
    stopped: dict = {}
    progress = Progress(
        TextColumn("[bold blue]{task.description}"), BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} games"),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("left"),
        TimeRemainingColumn(), console=out, disable=quiet, transient=False)
    try:
        with progress:
            bar = progress.add_task("playing", total=total, completed=done_before, rate="")

            def on_done(task, result):
                nonlocal played
                played += result[0]
                rate = played / max(time.perf_counter() - t0, 1e-9)
                progress.update(bar, advance=result[0], rate=f"{rate:,.0f} games/s")

            run_tasks(tasks, jobs_n, on_done, exp.spec.parallel.backend, exp.spec.parallel.address,
                      after_round=_stopping_rule(exp, tasks, stopped) if exp.spec.until else None)
    except RunError as e:
        from .run import store

        # the next run of a fixed strategy moves these results aside by itself (kept)
        record["failed"] = str(e)
        store.write_json(exp.output / "experiment.json", record)
        if e.detail:  # the message first, then the user's own traceback
            from rich.markup import escape

            err.print(f"[bold red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
            err.print(e.detail.rstrip(), highlight=False, markup=False, soft_wrap=True)
            raise typer.Exit(2)
        fail(str(e))   # a strategy's error is a user's error: exit 2, like every other
    except KeyboardInterrupt:
        err.print("stopped: finished chunks are kept; run the same command again to resume")
        raise typer.Exit(130)
    elapsed = time.perf_counter() - t0
    from .run import store

    record["finished"] = True
    record["run"] = {"seconds": round(elapsed, 3), "games_played_now": played,
                     "games_per_second": round(played / elapsed, 1) if played else None}
    if exp.spec.until:
        record["stopped"] = stopped or {"reason": f"the budget of {exp.spec.games:,} games per "
                                                  "variant was reached before the answer was clear",
                                        "games_per_variant": exp.spec.games, "early": False}
        out.print(f"stopped after {record['stopped']['games_per_variant']:,} games per variant: "
                  f"{record['stopped']['reason']}", highlight=False)
    store.write_json(exp.output / "experiment.json", record)
    rate = f", {played / elapsed:,.0f} games/s" if played else ""
    per_variant = record.get("stopped", {}).get("games_per_variant", exp.spec.games)
    out.print(f"done: {len(exp.variants)} variant(s) x {per_variant:,} games in {exp.output} "
              f"({played:,} played now in {elapsed:.1f} s{rate})", highlight=False)
    _print_safety_stops(exp.output)
    if exp.spec.report:
        _report(exp.output, exp.spec.report, None)
    if replaced:
        _print_moved(Path(replaced), exp.output)


def _print_safety_stops(results: Path) -> None:
    import polars as pl

    from .stats import caps

    files = list((results / "chunks").glob("*/*.parquet"))
    if files:
        line = caps.sentence(caps.safety_stops(pl.scan_parquet([str(f) for f in files])))
        if line:
            out.print(line, highlight=False)


def _compile_first(exp, quiet: bool) -> None:
    """Play one game of every variant here first: numba compiles the kernels (or loads them from
    its cache) before the clock starts, and the workers then load them from the cache."""
    from .engine.chance import game_keys
    from .engine.play import play_batch
    from .compiling import first_notice, watch
    from .run.runner import build_strategies

    status, compiled = None, None
    if not quiet and out.is_terminal:
        # loading cached kernels is quick and says nothing; compiling says what and how long
        status = out.status(f"preparing {exp.game.name}")
        status.start()
    if status is not None:
        watching = watch(status.update, exp.game.id, exp.game.name)
    elif not quiet:  # a log, not a terminal (no live status line): one line at the first kernel
        watching = first_notice(lambda text: out.print(text, highlight=False), exp.game.id, exp.game.name)
    else:
        watching = watch(lambda text: None, exp.game.id, exp.game.name)
    try:
        with watching as compiled:
            for v in exp.variants[:1] + exp.variants[-1:]:
                strats = build_strategies(exp.game.id, [s.model_dump() for s in v.strategies],
                                          str(exp.base_dir))
                seating = np.arange(exp.players)[None, :] % len(strats)
                play_batch(exp.game, v.rules, exp.players, strats, seating,
                           game_keys(0, exp.players, 1))
    except Exception:  # the run itself will say what is wrong, with its chunk and seed
        pass
    finally:
        if status is not None:
            status.stop()
    if compiled is not None and compiled.kernels and not quiet:
        out.print(f"compiled {compiled.kernels} kernel{'s' if compiled.kernels != 1 else ''} of {exp.game.name} in "
                  f"{compiled.seconds:.1f} s (numba keeps them for the next runs)",
                  highlight=False)


def _stopping_rule(exp, tasks, stopped: dict):
    """after_round for run_tasks: the experiment's `until:`, recording why it stopped."""
    from .run import until

    def after_round(c, done):
        reason = until.check(exp.spec, [Path(t.path) for t in done], until.budget_deals(exp.spec),
                             len(exp.variants))
        if reason is None:
            return False
        games = sum(t.n_games for t in done if t.variant_id == exp.variants[0].id)
        stopped.update(reason=reason, after_chunk=c, games_per_variant=games,
                       early=games < exp.spec.games)
        return True

    return after_round


def _report(results: Path, formats: list[str], out_dir: Optional[Path],
            seconds_per_decision: Optional[float] = None) -> None:
    try:
        from reports import ReportError, build_report
    except ImportError as e:  # the report layer is optional at import time
        fail(f"the report builder is not available: {e}", code=1)
    try:
        paths = build_report(results, formats=formats, out=out_dir, seconds_per_decision=seconds_per_decision)
    except ReportError as e:
        fail(str(e))
    for p in paths:
        out.print(f"report: {p}", highlight=False)


def _formats(text: str) -> list[str]:
    """--format of the commands that write reports: html, pdf, both (or html,pdf)."""
    formats = [f.strip() for f in text.split(",") if f.strip()]
    formats = list(dict.fromkeys(x for f in formats for x in (("html", "pdf") if f == "both" else (f,))))
    if not formats or any(f not in ("html", "pdf") for f in formats):
        fail(f"--format: expected html, pdf or both (or html,pdf), got {text!r}")
    return formats


@app.command()
def report(
    results: Path = typer.Argument(..., help="a results folder written by `safari-sim run`"),
    format: str = typer.Option("html,pdf", "--format", help="html, pdf or both (or html,pdf)"),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="where to write (default: the results folder)"),
    seconds_per_decision: float = typer.Option(10.0, "--seconds-per-decision",
                                               help="seconds a player takes for one decision at the table, "
                                                    "for the report's play-time estimate"),
) -> None:
    """Write the report (HTML and/or PDF) of a finished or partial run."""
    formats = _formats(format)
    if not seconds_per_decision > 0:
        fail(f"--seconds-per-decision: expected a number above 0, got {seconds_per_decision}")
    _report(results, formats, out_dir, seconds_per_decision)


def _print_moved(before: Path, after: Path) -> None:
    from .stats import DatasetError
    from .stats.compare import IncomparableRuns, moved, unlike_teams

    try:
        diff, changes = moved(before, after)
    except (DatasetError, IncomparableRuns) as e:
        fail(str(e))
    if diff.height:
        t = Table("variant", "what changed", "before", "after", title="what differs")
        for r in diff.iter_rows():
            t.add_row(*r)
        out.print(t)
    else:
        out.print("the two runs have the same rules, strategies and settings", highlight=False)
    for label in unlike_teams(diff):
        out.print(f"{label}: one run plays in teams and the other does not, so its win rates and scores "
                  f"(of pairs of partners in one, of players in the other) are not compared; its game "
                  f"length and measures are", highlight=False)
    rescaled = [r for r in diff.iter_rows(named=True) if r["what"].startswith("points available")]
    for r in rescaled:
        out.print(f"the rules change the points a game shares out ({r['before']} -> {r['after']}, "
                  f"{r['variant']}): a mean score moves with them, so each is also shown as a "
                  f"share of the points available", highlight=False)
    if changes.height == 0:
        out.print("no variants in common to compare (variants are paired by label: see what "
                  "differs above)", highlight=False)
        return

    from .stats.words import decimals, digits_for

    def fmt(kind, v, signed=False, width=None):
        # the decimals the change's interval needs, as the report's tables and sentences
        if kind == "share":  # win rates in percent, their changes in percentage points
            d = digits_for(width) if width is not None else 1
            return f"{v * 100:+.{d}f}" if signed else f"{v * 100:.{d}f}%"
        d = decimals(width, 2, 4) if width is not None else 2
        return f"{v:+.{d}f}" if signed else f"{v:.{d}f}"

    def unit(r):
        if r["kind"] == "share":
            return " percentage points"
        if r["measure"].startswith("mean score"):
            return " game points"
        return " turns" if r["measure"] == "mean turns per game" else ""  # a measure's own unit

    def p_text(p):
        return "<0.0001" if p < 1e-4 else f"{p:.2g}"

    m = changes.height
    t = Table("variant", "measure", "before", "after", "change (95% interval)", "p", "p (Holm)", "",
              title=f"what moved: {before} -> {after}")
    for r in changes.iter_rows(named=True):
        k, w = r["kind"], r["hi"] - r["lo"]
        t.add_row(r["variant"], r["measure"], fmt(k, r["before"], width=w), fmt(k, r["after"], width=w),
                  f"{fmt(k, r['change'], True, w)} ({fmt(k, r['lo'], True, w)} to "
                  f"{fmt(k, r['hi'], True, w)}){unit(r)}",
                  p_text(r["p_value"]), p_text(r["p_holm"]),
                  "[bold]real[/]" if r["real"] else "noise", style=None if r["real"] else "dim")
    Console(width=max(out.width, 120)).print(t)
    n_real = int(changes["real"].sum())
    out.print(f"{n_real} of {m} numbers moved beyond chance, judged with Holm's correction for the {m} "
              f"numbers compared (p (Holm) below 0.05), so the chance that any unchanged number is "
              f"called real is at most 1 in 20; games of one deal count together. Changes of win "
              f"rates are in percentage points, of mean scores in game points.", highlight=False)


@app.command()
def compare(
    before: Path = typer.Argument(..., help="results folder of the earlier run"),
    after: Path = typer.Argument(..., help="results folder of the later run"),
) -> None:
    """What moved between two runs: the rules that differ, and each win rate, the first seat's
    edge, mean scores and game length before and after, with the change's 95% interval."""
    _print_moved(before, after)


@app.command()
def games() -> None:
    """List the games: id, name, player counts."""
    from .games import all_games

    t = Table("id", "name", "players", "score")
    for g in all_games().values():
        t.add_row(g.id, g.name, f"{g.min_players}-{g.max_players}",
                  g.score_name + (" (lower wins)" if g.lower_score_wins else ""))
    out.print(t)


def _game_or_fail(game_id: str):
    from .games import get_game

    try:
        return get_game(game_id)
    except KeyError as e:
        fail(e.args[0])


@app.command()
def rules(game: str = typer.Argument(..., help="game id (see `safari-sim games`)")) -> None:
    """Every rules field of a game: name, default (the printed rules), the values worth
    searching (its declared `search`, used by `safari-sim tune`), meaning."""
    from .tune.space import declared_text

    g = _game_or_fail(game)
    t = Table("field", "default", "search", "meaning", title=f"{g.name} rules", show_lines=False)
    t.columns[0].no_wrap = True   # a field's name is what the user types: never cut
    t.columns[0].overflow = "fold"
    t.columns[3].overflow = "fold"
    t.columns[0].min_width = max(len(f.name) for f in dataclasses.fields(g.Rules))
    for f in dataclasses.fields(g.Rules):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        if isinstance(default, tuple):
            default = list(default)
        t.add_row(f.name, "null" if default is None else str(default),
                  declared_text(f.metadata.get("search")), f.metadata.get("doc", ""))
    out.print(t)


@app.command()
def strategies(
    game: str = typer.Argument(..., help="game id"),
    observation: bool = typer.Option(False, "--observation",
                                     help="print what a strategy sees: the game's observation, field by field"),
    actions: bool = typer.Option(False, "--actions",
                                 help="print every action's number and meaning (what act returns)"),
    players: Optional[int] = typer.Option(None, "--players",
                                          help="with --actions: the player count (default 3, or "
                                               "the nearest the game allows)"),
) -> None:
    """The strategies that can play a game, with their knobs (--observation: what they see;
    --actions: the numbers a strategy answers with)."""
    from strategies import strategies_for

    g = _game_or_fail(game)
    if actions:
        from .engine.protocol import RulesError

        n = players if players is not None else min(max(3, g.min_players), g.max_players)
        rules = g.make_rules()
        try:
            g.check(rules, n)
        except RulesError as e:
            fail(f"players: {e}")
        t = Table("action", "meaning", title=f"{g.name} actions, {n} players, the printed rules")
        for a in range(g.n_actions(rules, n)):
            t.add_row(str(a), g.action_name(rules, n, a))
        out.print(t)
        out.print("A strategy answers with these numbers; `legal` says which are allowed at each "
                  "decision. Some rules fields change the list: it is the same for every "
                  "decision kind, and a kind uses its own part of it.", highlight=False)
        return
    if observation:
        from .observation_docs import describe, helpers, observation_class

        doc, rows = describe(g)
        cls = observation_class(g)
        out.print(f"[bold]{g.name}[/]: what a strategy sees ({cls.__module__}.{cls.__qualname__}; "
                  f"docs/observations.md has every game)", highlight=False)
        if doc:
            out.print(doc, highlight=False, markup=False)
        t = Table("field", "type", "what it holds", title=f"{g.name} observation")
        from rich.markup import escape

        for f in rows:
            t.add_row(escape(f.name), escape(f.type or "-"), escape(("(on demand) " if f.on_demand else "")
                                                                  + (f.doc or "(not described in the source)")))
        out.print(t)
        helps = helpers(cls)
        if helps:
            h = Table("helper", "the action", title=f"{g.name} action helpers (what a strategy "
                      "returns, built from its meaning)")
            for x in helps:
                h.add_row(escape(x.call), escape(x.doc))
            out.print(h)
        return
    t = Table("name", "knobs (default)", "what it does", title=f"strategies for {g.name}")
    for name, cls in strategies_for(g.id).items():
        if hasattr(cls, "knobs_text"):   # the search: the game's own defaults fill its knobs
            knobs = cls.knobs_text(g.id)
        else:
            knobs = ", ".join(f"{k}={v.default}" for k, v in cls.Params.model_fields.items()) or "-"
        t.add_row(name, knobs, cls.summary)
    out.print(t)
    out.print("Your own: `use: FILE.py:NAME` in an experiment, a function of one game "
              "fn(view, legal, rng, KNOB=DEFAULT) (see experiments/bots/) or a "
              "strategies.base.Strategy subclass; --observation lists what `view` holds.",
              highlight=False, markup=False)


def starter_experiment(game, players: int) -> str:
    """A commented experiment file for ``game``: every rules field with its printed default and
    meaning (commented out), and one heuristic per seat."""
    import json

    from strategies import strategies_for

    known = list(strategies_for(game.id).items())
    own = [(n, c) for n, c in known if c.game == game.id] or known
    seats = [own[i % len(own)] for i in range(players)]
    lines = [f"# {game.name}: a starter experiment (safari-sim new {game.id}).",
             "# Run it with `safari-sim run FILE`; see README.md for every key.",
             f"name: {game.id}-{players}p",
             f"game: {game.id}",
             f"players: {players}",
             "games: 10000                 # per variant",
             "seed: 1",
             "rules:                       # uncomment a field to change the printed rule"]
    for f in dataclasses.fields(game.Rules):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        value = json.dumps(list(default) if isinstance(default, tuple) else default)
        lines.append(f"  # {f.name}: {value}    # {f.metadata.get('doc', '')}")
    lines.append("strategies:                  # one per seat; `name` labels it in the results")
    used: dict[str, int] = {}
    for name, cls in seats:
        used[name] = used.get(name, 0) + 1
        label = name if used[name] == 1 else f"{name}_{used[name]}"
        params = {k: v.default for k, v in cls.Params.model_fields.items()}
        lines.append(f"  - {{name: {label}, use: {name}, params: {json.dumps(params)}}}"
                     f"    # {cls.summary}")
    lines.append("  # your own: {name: mine, use: bots.py:my_function}, a Python function of one "
                 "game, my_function(view, legal, rng, KNOB=DEFAULT) -> action (experiments/bots/)")
    lines += ["seating: rotate              # each strategy sits in each seat equally often",
              "# sweep: {rules.FIELD: [a, b]}   # a grid over rules.* and strategies.NAME.params.*",
              "parallel: {jobs: -1, batch: 4096}",
              f"output: results/{game.id}-{players}p",
              "report: [html, pdf]", ""]
    return "\n".join(lines)


@app.command()
def new(
    game: str = typer.Argument(..., help="game id (see `safari-sim games`)"),
    players: Optional[int] = typer.Option(None, "--players", help="number of players (default: the fewest the game allows, at least 3)"),
    file: Optional[Path] = typer.Option(None, "--file", help="write here instead of printing"),
) -> None:
    """Print (or write) a starter experiment file: every rules field, its default and meaning."""
    g = _game_or_fail(game)
    n = players if players is not None else max(g.min_players, min(3, g.max_players))
    if not g.min_players <= n <= g.max_players:
        fail(f"--players: {g.id} is for {g.min_players} to {g.max_players} players, not {n}")
    text = starter_experiment(g, n)
    if file is None:
        print(text, end="")
        return
    if file.exists():
        fail(f"--file: {file} exists; choose another name")
    from .files import atomic_write_bytes

    atomic_write_bytes(file, text.encode())
    out.print(f"wrote {file}", highlight=False)


@app.command()
def trace(
    game: Optional[str] = typer.Argument(None, help="game id (not needed with --from)"),
    seed: int = typer.Option(0, "--seed", help="seed of the game"),
    strategies_: Optional[str] = typer.Option(None, "--strategies", help="one per seat, comma-separated, knobs after colons, e.g. stop_at:cards=2,random,card_counter:risk=0.4 (your own: bots.py:NAME:KNOB=VALUE)"),
    rule: list[str] = typer.Option([], "--rule", help="a rules override FIELD=VALUE (YAML value); repeatable"),
    from_: Optional[Path] = typer.Option(None, "--from", help="a results folder: replay one of its games"),
    experiment: Optional[Path] = typer.Option(None, "--experiment", help="an experiment file: play one of its games (as a run of it would)"),
    variant: Optional[str] = typer.Option(None, "--variant", help="with --from: the variant (its label or number; default the first)"),
    game_no: int = typer.Option(0, "--game", min=0, help="with --from: the game's number (the dataset's `game` column)"),
) -> None:
    """Play one game and print it move by move: a new one (GAME --strategies ...), one game of
    a results folder exactly as it was played (--from RESULTS --variant V --game G), or one game
    of an experiment file exactly as a run of it plays it (--experiment FILE --variant V --game G)."""
    import yaml

    from .engine.chance import game_keys
    from .engine.play import play_batch
    from .engine.protocol import RulesError
    from .run.runner import batch_keys, build_strategies, seating_plan

    from strategies import StrategyNotFound

    if from_ is not None or experiment is not None:
        if experiment is not None:
            from .run import store
            from .run.config import ExperimentError, load_experiment

            try:
                rec = store.experiment_record(load_experiment(experiment), {})
            except ExperimentError as e:
                fail(str(e))
            from_ = experiment
        else:
            meta = from_ / "experiment.json"
            if not meta.is_file():
                fail(f"--from: '{from_}' is not a safari-sim results folder (no experiment.json)")
            rec = json.loads(meta.read_text())
        g = _game_or_fail(rec["game"])
        vs = rec["variants"]
        pick = [v for v in vs if variant is None or v["label"] == variant or str(v["id"]) == variant]
        if not pick:
            fail(f"--variant: no variant '{variant}' in {from_} (known: "
                 + ", ".join(f"{v['id']} = {v['label']}" for v in vs) + ")")
        v = pick[0]
        if game_no >= rec["games_per_variant"]:
            fail(f"--game: {from_} holds games 0 to {rec['games_per_variant'] - 1}")
        players = rec["players"]
        try:
            rules_ = g.make_rules(v["rules"])
            strats = build_strategies(g.id, v["strategies"], rec.get("base_dir"))
        except (RulesError, StrategyNotFound) as e:
            fail(str(e))
        seating = seating_plan(rec["seating"], players, game_no, 1)
        keys = batch_keys(rec["seed"], v["id"], rec["seating"], players, game_no, 1)
        names = [v["strategies"][i]["name"] for i in seating[0]]
        head = f"{g.name}, {from_} variant {v['label']}, game {game_no}: "
    else:
        if game is None or strategies_ is None:
            fail("trace: give GAME and --strategies, or --from RESULTS")
        g = _game_or_fail(game)
        names = [s.strip() for s in strategies_.split(",") if s.strip()]
        if not g.min_players <= len(names) <= g.max_players:
            fail(f"--strategies: {g.id} is for {g.min_players} to {g.max_players} players, "
                 f"got {len(names)} strategies")
        def key_values(items, what):
            """FIELD=VALUE pairs (YAML values) as a dict, or one clear error."""
            out_ = {}
            for kv in items:
                if "=" not in kv:
                    fail(f"{what}: expected KEY=VALUE, got {kv!r}")
                k, v_ = kv.split("=", 1)
                out_[k.strip()] = yaml.safe_load(v_)
            return out_

        overrides = key_values(rule, "--rule")
        specs = []
        for n in names:
            use, *knobs = [part.strip() for part in n.split(":")]
            if use.endswith(".py") and knobs:  # a file of your own: FILE.py:NAME[:KNOB=VALUE]
                use = f"{use}:{knobs.pop(0)}"
            specs.append({"name": n, "use": use, "params": key_values(knobs, "--strategies")})
        from pydantic import ValidationError

        try:
            rules_ = g.make_rules(overrides)
            g.check(rules_, len(names))
            strats = []
            for spec in specs:
                try:
                    strats += build_strategies(g.id, [spec], str(Path.cwd()))
                except ValidationError as e:
                    err0 = e.errors()[0]
                    fail(f"--strategies: {spec['use']}: {'.'.join(map(str, err0['loc']))}: "
                         f"{err0['msg']}")
        except RulesError as e:
            fail(str(e))
        except StrategyNotFound as e:
            fail(f"--strategies: {e}")
        players = len(names)
        seating = np.arange(players)[None, :]
        keys = game_keys(seed, players, np.array([0]))
        head = f"{g.name}, seed {seed}: "
    res = play_batch(g, rules_, players, strats, seating, keys, log=True)
    out.print(head + ", ".join(f"P{i} {n}" for i, n in enumerate(names)), highlight=False)
    out.print(g.describe(res.state, 0), highlight=False, markup=False)
    o = res.outcome
    for s in range(players):
        out.print(f"P{s} {names[s]}: {g.score_name} {o.score[0, s]:g}, rank {o.rank[0, s]}"
                  + (" (winner)" if o.win[0, s] > 0 else ""), highlight=False)


@app.command()
def bench(
    batch: int = typer.Option(4096, "--batch", min=1, help="games per vectorised step"),
    seconds: float = typer.Option(2.0, "--seconds", min=0.1, help="time spent on each measurement"),
    game: Optional[str] = typer.Option(None, "--game", help="only this game"),
    workers: bool = typer.Option(True, "--workers/--no-workers", help="also measure 2 workers against 1"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="also write the figures to this JSON file"),
    seatings: bool = typer.Option(False, "--seatings", help="instead: what duplicate deals and "
                                  "tournaments cost per game against rotation (CPU time, run path)"),
    cold: bool = typer.Option(False, "--cold", help="instead: what a first run costs on an empty "
                              "numba cache (CPU and wall seconds per game, and warming all ten)"),
    against: Optional[Path] = typer.Option(None, "--against", help="instead: this checkout's "
                                           "figures paired with another checkout's (a folder "
                                           "holding safari-sim), run in turn, and new / old"),
    rounds: int = typer.Option(3, "--rounds", min=1, help="with --against: runs of each tree"),
) -> None:
    """Games/s and decisions/s per core against the cost of dealing, and the 2-worker speed-up."""
    import json
    import os
    import platform

    from .bench import cold_table, run_bench, seating_table

    if game is not None:
        _game_or_fail(game)
    wide = Console(width=max(out.width, 110))
    if against is not None:
        from .bench_against import against_table

        try:
            rows = against_table(wide, against, only=game, rounds=rounds, seconds=seconds,
                                 batch=batch)
        except ValueError as e:
            fail(str(e))
    elif cold:
        rows = cold_table(wide, only=game)
    elif seatings:
        rows = seating_table(wide, batch=batch, only=game, seconds=seconds)
    else:
        rows = run_bench(wide, batch=batch, seconds=seconds, only=game, workers=workers)
    if json_out is not None:
        from .files import atomic_write_bytes
        from .run.store import versions

        record = {"batch": batch, "seconds_per_measure": seconds, "cpus": os.cpu_count(),
                  "machine": platform.machine(), "versions": versions(), "rows": rows}
        atomic_write_bytes(json_out, (json.dumps(record, indent=2) + "\n").encode())
        out.print(f"figures written to {json_out}", highlight=False)


@app.command()
def tune(
    file: Path = typer.Argument(..., help="tune file (YAML): the experiment, what to search, the objectives, a budget"),
    budget: Optional[int] = typer.Option(None, "--budget", min=1, help="games for the search's trials (overrides the file)"),
    output: Optional[str] = typer.Option(None, "--output", help="results folder (overrides the file)"),
    replace: bool = typer.Option(False, "--replace", help=(
        "if the output folder holds another tune, move it aside (to OUTPUT.previous-DATE, kept)")),
    quiet: bool = typer.Option(False, "--quiet", help="no line per trial"),
    report: bool = typer.Option(True, "--report/--no-report", help="write the report at the end"),
) -> None:
    """Search the rules (or a strategy's knobs) for the values that meet the file's objectives
    (Optuna, in rungs of games, hopeless candidates pruned), confirm the best on fresh deals with
    intervals, and write the report. Running the same file again resumes the search."""
    from .tune.config import TuneError, load_tune
    from .tune.runner import run_tune

    try:
        t = load_tune(file, budget=budget, output=output)
    except TuneError as e:
        fail(str(e))
    say = (lambda s: None) if quiet else (lambda s: out.print(s, highlight=False, markup=False))
    obj = "; ".join(o.text() for o in t.objectives)
    out.print(f"[bold]{t.name}[/]: {t.experiment.game.name}, {t.players} players; searching "
              f"{', '.join(p.key for p in t.params)} for {obj}; budget {t.spec.budget:,} games in "
              f"rungs of {', '.join(f'{r:,}' for r in t.spec.rungs)} -> {t.output}", highlight=False)
    from .run.runner import RunError

    try:
        record = run_tune(t, say=say, replace=replace, report=report)
    except TuneError as e:
        fail(str(e))
    except RunError as e:  # a strategy that failed: its traceback, as `run` prints it
        if e.detail:
            err.print(e.detail.rstrip(), highlight=False, markup=False, soft_wrap=True)
        fail(str(e))
    except KeyboardInterrupt:
        err.print("stopped: finished trials are kept; run the same command again to resume")
        raise typer.Exit(130)
    from .tune.text import cli_summary

    for line in cli_summary(record):
        out.print(line, highlight=False, markup=False)
    for p in record.get("report", []):
        out.print(f"report: {p}", highlight=False)


@app.command()
def sensitivity(
    experiment: Path = typer.Argument(..., help="experiment file (YAML) of one table, no sweep"),
    fields: Optional[str] = typer.Option(None, "--fields", help="comma-separated rules fields "
                                         "(default: every field that declares search values)"),
    games: Optional[int] = typer.Option(None, "--games", min=1, help="games at each rules point "
                                        "(default: the file's games)"),
    method: str = typer.Option("auto", "--method", help="oat (one at a time), morris, or auto "
                               "(Morris beyond 8 fields)"),
    trajectories: int = typer.Option(10, "--trajectories", min=2, help="Morris trajectories"),
    output: Optional[Path] = typer.Option(None, "--output", help="folder (default: "
                                          "results/NAME-sensitivity)"),
    jobs: Optional[int] = typer.Option(None, "--jobs", help="parallel workers per point"),
    format: str = typer.Option("html", "--format", help="report formats: html, pdf or both"),
    replace: bool = typer.Option(False, "--replace", help="a point whose folder holds another "
                                 "experiment's results (the game changed since): move them aside "
                                 "(kept) and play it afresh"),
) -> None:
    """Which rules matter: each rules field moved one step either way (or a Morris screening),
    and its effect on the first seat's edge, game length, the strategies' spread and drama (a
    game played in teams: the first team's edge, the pairs of partners' spread), with
    intervals; a tornado chart in sensitivity.html. Every rules point is a normal, resumable
    dataset: running the same command again plays only what is missing."""
    from reports.sensitivity import build_sensitivity_report
    from .stats.sensitivity import SensitivityError, screen

    formats = _formats(format)
    names = [f.strip() for f in fields.split(",") if f.strip()] if fields else None
    try:
        res = screen(experiment, names, games, method, trajectories, output, jobs,
                     on_point=lambda label, i, n: out.print(f"[{i + 1}/{n}] {label}", highlight=False),
                     replace=replace)
    except SensitivityError as e:
        fail(str(e))
    for line in res.sentences:  # plain text: a value or a name in brackets is not markup
        out.print("- " + line, highlight=False, markup=False)
    for line in res.skipped:
        out.print(f"not played (rejected by the game): {line}", highlight=False, markup=False)
    for p in build_sensitivity_report(res, formats):
        out.print(f"report: {p}", highlight=False)


@app.command()
def skill(
    games_: list[str] = typer.Argument(None, metavar="[GAME ...]", help="game ids (default: every game)"),
    games: int = typer.Option(4000, "--games", min=10, help="games per measured table"),
    epsilon: float = typer.Option(0.25, "--epsilon", min=0.0, max=1.0,
                                  help="the weakened copy's chance of a random move per decision"),
    players: Optional[int] = typer.Option(None, "--players", help="player count (default: each "
                                          "game's baseline)"),
    seed: int = typer.Option(0, "--seed"),
    output: Path = typer.Option(Path("results/skill"), "--output", help="results folder"),
    jobs: int = typer.Option(1, "--jobs", help="parallel workers per table"),
    format: str = typer.Option("html", "--format", help="report formats: html, pdf or both"),
    replace: bool = typer.Option(False, "--replace", help="a table whose folder holds another "
                                 "experiment's results (the game or the table changed since): move "
                                 "them aside (kept) and play it afresh"),
    best: str = typer.Option("auto", "--best", help="the best player: auto (the search with the "
                             "game's defaults where docs/search.md measures it ahead of every "
                             "heuristic, slower; else the heuristic best against random) or "
                             "heuristic (always the heuristic)"),
) -> None:
    """Skill and luck per game: the best player against random and against a copy of itself
    that blunders (restricted play), one line per game, a plot across games. The best player is
    the search where it is measured the stronger (each line says which player and why), else
    the best shipped heuristic. A game played in teams is a team of copies of the best against
    teams of the weaker."""
    from reports.sensitivity import build_skill_report
    from .games import game_ids
    from .stats import skill as sk

    formats = _formats(format)
    ids = games_ or game_ids()
    for g in ids:
        _game_or_fail(g)
    if best not in sk.BEST:
        fail(f"--best: '{best}' is not one of {', '.join(sk.BEST)}")
    results, failed = [], []
    for g in ids:
        try:
            r = sk.measure_game(g, games=games, epsilon=epsilon, seed=seed, output=output, jobs=jobs,
                                players=players, on_step=lambda m: out.print(m, highlight=False),
                                replace=replace, best=best)
        except Exception as e:  # one game's failure names the game; the others are still measured
            from rich.markup import escape

            err.print(f"[bold red]error:[/] {escape(f'{g}: {type(e).__name__}: {e}')}", highlight=False)
            failed.append(g)
            continue
        out.print(r.line, highlight=False)
        results.append(r)
    if not results:
        fail("no game could be measured", code=1)
    stem = output / ("skill" if not games_ else "skill-" + "-".join(ids))
    plots = sk.plot(results, stem)
    for p in [*plots, *build_skill_report(results, output, plots, formats, stem.name)]:
        out.print(f"written: {p}", highlight=False)
    if failed:
        fail(f"not measured: {', '.join(failed)} (see the errors above)", code=1)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())

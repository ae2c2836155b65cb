"""Opening a results directory: the Parquet dataset (lazily) and experiment.json.

The dataset has one row per player per game. The columns every game writes are in ``CORE``;
every other numeric column is a game statistic: per game (the same value on every row of a
game, like ``rounds``) or per seat (like ``bruce_tried``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

CORE = ("variant", "variant_id", "game", "seat", "strategy", "score", "rank", "win", "players", "turns")
# Columns that identify rather than measure (a deal id shared by duplicated deals, a team).
IDENTIFIERS = ("deal", "team")
GAME_KEY = ["variant_id", "game"]


class DatasetError(ValueError):
    """A results directory without a dataset or an experiment.json."""


def collect_all(frames: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    """``pl.collect_all`` with flat memory: left to itself it runs the in-memory engine and
    caches a scan the queries share (every column they read, of every row: 1 GB a 10 M-game
    dataset); streamed and uncached, each query holds only its own result."""
    return pl.collect_all(frames, engine="streaming",
                          optimizations=pl.QueryOptFlags(comm_subplan_elim=False))


def chunk_files(results: str | Path) -> list[Path]:
    return sorted(Path(results).glob("chunks/**/*.parquet"))


def scan(results: str | Path) -> pl.LazyFrame:
    """The whole dataset of a results directory as one lazy table."""
    results = Path(results)
    if not chunk_files(results):
        raise DatasetError(f"{results}: no dataset (expected chunks/v*/c*.parquet); run the experiment first")
    lf = pl.scan_parquet(str(results / "chunks" / "**" / "*.parquet"))
    # The runner stores labels dictionary-encoded (read as Categorical): plain text is simpler to
    # join and compare in a notebook, and the cast is lazy (only for the columns a query uses).
    cats = [c for c, t in lf.collect_schema().items() if isinstance(t, (pl.Categorical, pl.Enum))]
    return lf.with_columns(pl.col(cats).cast(pl.String)) if cats else lf


def load_experiment(results: str | Path) -> dict[str, Any]:
    """experiment.json of a results directory, with ``seat_columns`` (the dataset's per-seat
    statistics, as its chunks record them: ``seat_columns_of``) when its chunks say."""
    path = Path(results) / "experiment.json"
    if not path.is_file():
        raise DatasetError(f"{Path(results)}: no experiment.json; is this a results directory?")
    try:
        experiment = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise DatasetError(f"{path}: not valid JSON ({e})") from None
    seat = seat_columns_of(results)
    if seat is not None:
        experiment["seat_columns"] = seat
    return experiment


def seat_columns_of(results: str | Path) -> list[str] | None:
    """The per-seat statistics (``Outcome.stats`` of shape [B, P], a designer's measure that gave
    one number per seat) that a results directory's chunks record (``safari_sim.seat_columns``
    in their Parquet metadata), or None for a dataset written before they did (or none yet)."""
    import pyarrow.parquet as pq

    files = chunk_files(results)
    if not files:
        return None
    meta = pq.read_schema(files[0]).metadata or {}
    raw = meta.get(b"safari_sim.seat_columns")
    return None if raw is None else list(json.loads(raw))


def measure_columns(experiment: dict[str, Any], lf: pl.LazyFrame) -> list[str]:
    """The run's measures that its dataset holds: the game's own (``Game.measures``, the
    "Measures" of its rules notes), then the designer's (``measures:`` in the experiment file).
    The one list ``compare`` and ``sensitivity`` read, so both kinds are treated alike."""
    from safari_sim.games import get_game

    try:
        own = list(get_game(experiment["game"]).measures)
    except KeyError:  # a game this version no longer ships: its designer's measures still count
        own = []
    schema = lf.collect_schema()
    return [m for m in dict.fromkeys(own + list(experiment.get("measures") or [])) if m in schema]


def seat_measures(experiment: dict[str, Any], lf: pl.LazyFrame, measures: list[str] | None = None) -> list[str]:
    """Which of the run's measures (``measure_columns``, or ``measures``) are per seat: one number
    for each player of a game (Paper Safari's ``rounds_closed_won``, a designer's function that
    returns a list), read per strategy; the others are one number a game, read once a game.

    Declared, never guessed from a few games (a per-seat count that is 0 in every seat of the
    first games looks like a per-game one): the game's own from ``Game.seat_measures``, the
    designer's from what the chunks record (``seat_columns``: each function's answer, a number
    or a list); a dataset written before the chunks recorded it falls back to its values."""
    from safari_sim.games import get_game

    measures = measure_columns(experiment, lf) if measures is None else list(measures)
    try:
        game = get_game(experiment["game"])
        own, declared = set(game.measures), set(game.seat_measures)
    except KeyError:
        own, declared = set(), set()
    recorded = experiment.get("seat_columns")
    unknown = [m for m in measures if m not in own and recorded is None]
    seen = set(unknown) - set(per_game_columns(lf, unknown)) if unknown else set()
    return [m for m in measures
            if (m in declared if m in own else m in recorded if recorded is not None else m in seen)]


def seat_columns(experiment: dict[str, Any] | None, lf: pl.LazyFrame) -> list[str]:
    """The dataset's per-seat statistics (one number per player): what its chunks record
    (``seat_columns``, ``load_experiment``), else the ones that differ between the seats of a
    game in the first games (``per_game_columns``) and the declared per-seat measures
    (``seat_measures``), which no sample of games can hide."""
    stats = stat_columns(lf)
    recorded = (experiment or {}).get("seat_columns")
    if recorded is not None:
        return [c for c in stats if c in recorded]
    declared = set(seat_measures(experiment, lf)) if experiment and "game" in experiment else set()
    per_game = set(per_game_columns(lf, stats)) - declared
    return [c for c in stats if c not in per_game]


def measure_words(name: str, per_seat: bool, strategy: str | None = None) -> str:
    """A measure as a line says it: "pairs_stranded per game", "rounds_closed_won per player",
    "rounds_closed_won per player of closer" (that strategy's players' own, averaged)."""
    text = f"{name} {'per player' if per_seat else 'per game'}"
    return f"{text} of {strategy}" if strategy is not None else text


def stat_columns(lf: pl.LazyFrame) -> list[str]:
    """The game's own statistics: numeric columns beyond the ones every game writes."""
    schema = lf.collect_schema()
    return [c for c, t in schema.items()  # a leading "_" marks a helper column (stats.with_design)
            if c not in CORE and c not in IDENTIFIERS and not c.startswith("_")
            and (t.is_numeric() or t == pl.Boolean)]


def per_game_columns(lf: pl.LazyFrame, columns: list[str] | None = None, sample_games: int = 2000) -> list[str]:
    """Which of ``columns`` (default: the statistics, plus turns) hold one value per game.

    Being per game is a property of the game, so a sample of games is enough to tell.
    """
    cols = ["turns", *stat_columns(lf)] if columns is None else list(columns)
    if not cols:
        return []
    # the first games of every variant; a plain filter (no window over every row), which the
    # Parquet reader pushes down to the first chunks
    first = lf.group_by("variant_id").agg(pl.col("game").min()).collect()
    sample = lf.filter(pl.any_horizontal([(pl.col("variant_id") == v) & (pl.col("game") < g + sample_games)
                                          for v, g in first.iter_rows()]))
    spread = (sample.group_by(GAME_KEY)
              .agg([(pl.col(c).max() - pl.col(c).min()).alias(c) for c in cols])
              .select([pl.col(c).max() for c in cols]).collect())
    return [c for c in cols if spread[c][0] in (0, None) or spread[c][0] == 0]


def variants(lf: pl.LazyFrame) -> pl.DataFrame:
    """variant_id, variant, players, games, in variant order."""
    return (lf.group_by("variant_id")
            .agg(pl.col("variant").first(), pl.col("players").first().cast(pl.Int64),
                 (pl.col("seat") == 0).sum().alias("games"))  # one starting seat per game: no set of games
            .sort("variant_id").collect())

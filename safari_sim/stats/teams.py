"""Teams: partners who win, score and lose together.

A game that plays in teams says who is partnered (``Game.teams``); the runner writes each seat's
team in the dataset's ``team`` column (Herds at four players: seats 0+2 and 1+3, or 0+1 and 2+3
with ``partners: beside``). Partners share their team's result: in the player rows the two
winners of a team game each hold half a win and tie for first, which read as players is "every
game a tie for first" and "a fair share of 25%".

``team_frame`` turns each team variant into one row per team per game, in the dataset's own
shape, so that every statistic reads teams with no change of its own:

- ``seat`` is the team's place in the turn order: 0 for the team of seat 0 (which starts), 1 for
  the team of the next seat not yet in a team, ...;
- ``strategy`` names the partners, ``"blocker + patient"`` (sorted, so a pair has one name
  whoever of the two sits first);
- ``win`` is the partners' shares together (1 for the winning team, 1/k for each of k teams tied
  for first), ``score`` the team's score (the mean of its partners': the same number in Herds),
  ``rank`` the team's rank among the teams (1 = best, ties share);
- ``players`` is the number of teams, so the fair share is one over the number of teams (50% for
  two), and a game's per-game columns (turns, hands, drama) are kept.

So ``win_rates`` of the frame is which partners win, ``seat_advantage`` the test of the team that
plays first (the seat test: a cluster-robust score test by deal, the partners accounted for),
``head_to_head`` and ``ratings`` pairs against pairs, ``winning_margin`` the margin between the
winning team and the next, and its ties are ties between teams. Variants without teams (a game
without them, or ``teams_at_four: false``) keep their player rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from . import slices
from .dataset import GAME_KEY, per_game_columns

JOIN = " + "  # between partners' names in a pair's name


def with_teams(lf: pl.LazyFrame, experiment: dict[str, Any] | None = None) -> pl.LazyFrame:
    """``lf`` with a ``team`` column where the experiment plays in teams: the dataset's own, or
    for a run made before the runner wrote it, each variant's ``teams`` from experiment.json
    (or the game's ``Game.teams`` of the variant's resolved rules). Unchanged otherwise, and
    without asking the game when experiment.json says ``"teams": false`` (every run since the
    column)."""
    if "team" in lf.collect_schema() or not experiment or experiment.get("teams") is False:
        return lf  # (a run that records "teams": false plays none: no need to ask the game)
    players = int(experiment.get("players") or 0)
    rows = []
    for v in experiment.get("variants") or []:
        teams = v.get("teams")
        if teams is None:
            teams = _game_teams(experiment.get("game"), v.get("rules") or {}, players)
        if teams is not None:
            rows += [(int(v["id"]), s, int(t)) for s, t in enumerate(teams)]
    if not rows:
        return lf
    table = pl.DataFrame(rows, schema={"variant_id": pl.Int16, "seat": pl.Int8, "team": pl.Int8}, orient="row")
    schema = lf.collect_schema()
    table = table.with_columns(pl.col("variant_id").cast(schema["variant_id"]), pl.col("seat").cast(schema["seat"]))
    return (lf.join(table.lazy(), on=["variant_id", "seat"], how="left", maintain_order="left")
            .with_columns(pl.col("team").fill_null(pl.col("seat").cast(pl.Int8))))


def _game_teams(game_id: str | None, rules: dict[str, Any], players: int) -> list[int] | None:
    """``Game.teams`` of a variant's resolved rules, or None (no such game, or rules it refuses)."""
    if not game_id or not players:
        return None
    try:
        from ..games import get_game

        game = get_game(game_id)
        teams = game.teams(game.make_rules(rules), players)
    except Exception:  # a game this installation does not know, or an old rules field
        return None
    return None if teams is None else [int(t) for t in teams]


LAYOUT_SCHEMA = {"variant_id": pl.Int16, "players": pl.Int64, "teams": pl.Int64, "members": pl.List(pl.List(pl.Int64))}


def layout(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per variant that plays in teams (fewer teams than players): ``players``, ``teams`` (how
    many) and ``members``: the seats of each team in turn order (team 0 holds seat 0). Empty
    when the dataset has no ``team`` column or no variant plays in teams."""
    if "team" not in lf.collect_schema():
        return pl.DataFrame(schema=LAYOUT_SCHEMA)
    seats = (lf.group_by("variant_id", "seat").agg(pl.col("team").first(), pl.col("players").first())
             .sort("variant_id", "seat").collect())
    rows = []
    for (vid,), g in seats.group_by(["variant_id"], maintain_order=True):
        team = g["team"].to_list()
        seat = g["seat"].to_list()
        order = list(dict.fromkeys(team))  # teams by their first seat
        members = [[int(s) for s, t in zip(seat, team) if t == k] for k in order]
        if len(members) < int(g["players"].max()):
            rows.append({"variant_id": vid, "players": int(g["players"].max()), "teams": len(members),
                         "members": members})
    return pl.DataFrame(rows, schema=LAYOUT_SCHEMA)


def team_variants(lay: pl.DataFrame) -> set[int]:
    return set(lay["variant_id"].to_list())


def team_frame(lf: pl.LazyFrame, lay: pl.DataFrame | None = None,
               seat_columns: list[str] | None = None) -> pl.LazyFrame:
    """One row per team per game for every variant of ``layout`` (see the module's doc), the
    other variants' rows as they are; ``lf`` itself when no variant plays in teams. The ``team``
    column is dropped (a team row's ``seat`` is its team's place in the turn order), and so are
    per-seat statistics (a team has no one value of them: read them from the player rows;
    ``seat_columns``: which they are, ``dataset.seat_columns``, else guessed from the first games).

    A dataset that fits in one slice (``slices.ROWS_PER_SLICE`` rows) is collected once, so the
    statistics do not group it again each; a bigger one stays lazy."""
    lay = layout(lf) if lay is None else lay
    if not len(lay):
        return lf.drop("team", strict=False)
    schema = lf.collect_schema()
    vids = lay["variant_id"].to_list()
    # each seat's team position (0 = the team of seat 0) and each variant's number of teams
    place = pl.DataFrame([(vid, s, k, n) for vid, n, members in lay.select("variant_id", "teams", "members").iter_rows()
                          for k, seats in enumerate(members) for s in seats],
                         schema={"variant_id": schema["variant_id"], "seat": schema["seat"], "_pos": pl.Int8,
                                 "_teams": pl.Int8}, orient="row")
    mine = lf.filter(pl.col("variant_id").is_in(vids))
    keep = [c for c in per_game_columns(mine) if c in schema and c not in (seat_columns or ())]
    per_game = [pl.col(c).first() for c in keep]
    deal = [pl.col("deal").first()] if "deal" in schema else []
    teams = (mine.join(place.lazy(), on=["variant_id", "seat"], how="inner")
             .group_by(*GAME_KEY, "_pos")
             .agg(pl.col("variant").first(), *deal,
                  pl.col("strategy").cast(pl.String).sort().str.join(JOIN).alias("strategy"),
                  pl.col("score").cast(pl.Float64).mean().alias("score"), pl.col("rank").min().alias("_r"),
                  pl.col("win").cast(pl.Float64).sum().alias("win"), pl.col("_teams").first(), *per_game)
             .with_columns(pl.col("_pos").cast(schema["seat"]).alias("seat"),
                           pl.col("_r").rank("min").over(GAME_KEY).cast(schema["rank"]).alias("rank"),
                           pl.col("_teams").cast(schema["players"]).alias("players"))
             .select(*[c for c in schema if c in ("variant", "variant_id", "game", "deal", "seat", "strategy",
                                                   "score", "rank", "win", "players", *keep)])
             .sort(*GAME_KEY, "seat"))
    n = lf.select(pl.len()).collect().item()
    if n <= slices.ROWS_PER_SLICE:
        teams = teams.collect().lazy()
    others = lf.filter(~pl.col("variant_id").is_in(vids)).drop("team", strict=False)
    if len(vids) == lf.select(pl.col("variant_id").n_unique()).collect().item():
        return teams
    return pl.concat([others, teams], how="diagonal_relaxed")


def team_of_seats(members: list[list[int]]) -> np.ndarray:
    """int[P]: each seat's team position, from ``layout``'s members."""
    out = np.zeros(sum(len(m) for m in members), np.int64)
    for k, seats in enumerate(members):
        out[seats] = k
    return out


def read_as_teams(lf: pl.LazyFrame, experiment: dict[str, Any] | None = None) -> tuple[pl.LazyFrame, pl.DataFrame]:
    """(the dataset as the report reads it, its ``layout``): ``team_frame`` where some variant
    plays in teams, the player rows otherwise. The one entry point of the commands that compare
    win rates (until, tune, sensitivity, the tournament), so that each reads teams as the report
    does."""
    from .dataset import seat_columns

    lf = with_teams(lf, experiment)
    lay = layout(lf)
    return team_frame(lf, lay, seat_columns(experiment, lf) if len(lay) else None), lay


def team_wins(lf: pl.LazyFrame, lay: pl.DataFrame | None = None) -> pl.LazyFrame:
    """The player rows with each player's ``win`` its team's (the partners' shares together: 1
    when its team wins) and ``players`` the number of teams, for the variants of ``layout``;
    the other variants' rows as they are. So a strategy's win rate is how often the team it
    plays in wins, against a fair share of one over the teams (50% for two): a strategy of a
    team game read on its own (tune's best response, until's comparison, skill's best). The
    ``team`` column is kept (who is whose partner)."""
    lay = layout(lf) if lay is None else lay
    if not len(lay):
        return lf
    schema = lf.collect_schema()
    place = pl.DataFrame([(vid, s, k, n) for vid, n, members in lay.select("variant_id", "teams", "members").iter_rows()
                          for k, seats in enumerate(members) for s in seats],
                         schema={"variant_id": schema["variant_id"], "seat": schema["seat"], "_pos": pl.Int8,
                                 "_teams": pl.Int8}, orient="row")
    return (lf.join(place.lazy(), on=["variant_id", "seat"], how="left", maintain_order="left")
            .with_columns(pl.when(pl.col("_pos").is_null()).then(pl.col("win").cast(pl.Float64))
                          .otherwise(pl.col("win").cast(pl.Float64).sum().over(*GAME_KEY, "_pos")).alias("win"),
                          pl.col("_teams").cast(schema["players"]).fill_null(pl.col("players")).alias("players"))
            .drop("_pos", "_teams"))


def plays_in_teams(lf: pl.LazyFrame) -> bool:
    """Whether any variant of the dataset plays in teams."""
    return bool(len(layout(lf)))

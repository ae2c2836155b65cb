"""Team games are games of teams (issue 30): the dataset says who is partnered, and the statistics
and the report read teams, not players who tied.

Synthetic team games with a known truth (``team_games``: two teams of two, each team's finishing
order drawn from a Plackett-Luce model of its partners' strengths times its place in the turn
order, partners sharing their team's score), so the first team's test must hold its level on fair
orders and find a planted edge; then Herds at four players end to end.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from safari_sim import stats
from safari_sim.stats import teams

ROOT = Path(__file__).resolve().parents[1]
ACROSS = (0, 1, 0, 1)
BESIDE = (0, 0, 1, 1)


def team_games(games: int, *, strengths=(1.0, 1.0, 1.0, 1.0), first_factor: float = 1.0,
               partners=ACROSS, seating: str = "rotate", integer_scores: bool = False, luck: float = 0.0,
               rng=1, names=("a", "b", "c", "d"), team_column: bool = True) -> pl.DataFrame:
    """Player rows of ``games`` games of four players in two teams (``partners``: each seat's
    team), in the runner's shape. A team's weight is the product of its partners' strengths,
    times ``first_factor`` for the team of seat 0; the winner is drawn by the Gumbel trick, so
    with continuous scores the first team of equal partners wins exactly f / (1 + f). Both
    partners get the team's score; ranks and wins are the players' (partners tie, as the
    runner writes them). ``luck``: under ``duplicate`` seating the rotations of a deal share
    each team place's luck."""
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    p = 4
    g = np.arange(games)
    seats = np.arange(p)
    if seating in ("rotate", "duplicate"):
        strat = (seats[None, :] + g[:, None]) % p
    else:
        strat = np.broadcast_to(seats, (games, p))
    deals = g // p if seating == "duplicate" else g
    team = np.asarray(partners)
    logw = np.log(np.asarray(strengths, float))[strat]
    tw = np.stack([logw[:, team == k].sum(axis=1) for k in (0, 1)], axis=1)
    tw[:, 0] += np.log(first_factor)
    key = tw + rng.gumbel(size=(games, 2))
    if luck:
        _, inv = np.unique(deals, return_inverse=True)
        key = key + luck * rng.standard_normal((inv.max() + 1, 2))[inv]
    tscore = 20.0 + 4.0 * key
    if integer_scores:
        tscore = np.round(tscore)
    score = tscore[:, team]
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    first = rank == 1
    win = first / first.sum(axis=1, keepdims=True)
    turns = rng.integers(20, 60, size=games)
    cols = {
        "variant": ["base"] * (games * p), "variant_id": np.zeros(games * p, np.int16),
        "game": np.repeat(g, p), "deal": np.repeat(deals, p), "seat": np.tile(seats, games).astype(np.int8),
    }
    if team_column:
        cols["team"] = np.tile(team, games).astype(np.int8)
    cols.update({
        "strategy": np.array(names, dtype=object)[strat.reshape(-1)].tolist(),
        "score": score.reshape(-1), "rank": rank.reshape(-1).astype(np.int16), "win": win.reshape(-1),
        "players": np.full(games * p, p, np.int8), "turns": np.repeat(turns, p).astype(np.int32),
        "grows": rng.poisson(3.0, games * p).astype(np.int32),
    })
    return pl.DataFrame(cols)


def first_team_truth(strengths, first_factor: float, partners=ACROSS) -> float:
    """The first team's exact win rate under rotation with continuous scores: the mean over the
    four rotations of its weight over both teams'."""
    team = np.asarray(partners)
    out = []
    for g in range(4):
        w = np.asarray(strengths, float)[(np.arange(4) + g) % 4]
        w0, w1 = w[team == 0].prod() * first_factor, w[team == 1].prod()
        out.append(w0 / (w0 + w1))
    return float(np.mean(out))


def first_team(df: pl.DataFrame) -> dict:
    tf = teams.team_frame(df.lazy())
    lay = teams.layout(df.lazy())
    return stats.seat_advantage(tf, teams=lay).row(0, named=True)


# ---- the frame ---------------------------------------------------------------------------

def test_team_frame_by_hand():
    """Two games written out: partners' wins add up, the pair is named once whoever sits first,
    the team of seat 0 is team 0, and a tie between teams is the only tie."""
    df = pl.DataFrame({
        "variant": ["v"] * 8, "variant_id": pl.Series([0] * 8, dtype=pl.Int16),
        "game": [0] * 4 + [1] * 4, "deal": [0] * 4 + [1] * 4,
        "seat": pl.Series([0, 1, 2, 3] * 2, dtype=pl.Int8), "team": pl.Series([0, 1, 0, 1] * 2, dtype=pl.Int8),
        "strategy": ["x", "y", "z", "w", "z", "w", "x", "y"],
        "score": [10.0, 7, 10, 7, 5, 5, 5, 5], "rank": pl.Series([1, 3, 1, 3, 1, 1, 1, 1], dtype=pl.Int16),
        "win": [0.5, 0, 0.5, 0, 0.25, 0.25, 0.25, 0.25], "players": pl.Series([4] * 8, dtype=pl.Int8),
        "turns": [30] * 4 + [40] * 4,
    })
    lay = teams.layout(df.lazy())
    assert lay["members"].to_list() == [[[0, 2], [1, 3]]]
    tf = teams.team_frame(df.lazy(), lay).collect().sort("game", "seat")
    assert tf["strategy"].to_list() == ["x + z", "w + y", "x + z", "w + y"]
    assert tf["win"].to_list() == [1.0, 0.0, 0.5, 0.5]
    assert tf["rank"].to_list() == [1, 2, 1, 1]
    assert tf["players"].to_list() == [2] * 4
    assert tf["turns"].to_list() == [30, 30, 40, 40]
    assert "team" not in tf.columns and "grows" not in tf.columns
    margin = stats.winning_margin(tf.lazy()).collect().sort("game")
    assert margin["margin"].to_list() == [3.0, 0.0] and margin["tied"].to_list() == [False, True]


def test_games_without_teams_are_left_as_they_are():
    df = team_games(40, team_column=False)
    assert teams.team_frame(df.lazy()).collect().equals(df)
    singles = df.with_columns(pl.col("seat").alias("team"))  # a team column, every seat its own team
    assert not len(teams.layout(singles.lazy()))
    assert teams.team_frame(singles.lazy()).collect().equals(df)


def test_first_team_rate_is_seat_zero_doubled():
    """What the designer did by hand: with two partners sharing each win, the first team's rate
    is twice seat 0's."""
    df = team_games(2000, strengths=(2, 1, 1, 0.5), first_factor=1.2, integer_scores=True, rng=3)
    seat0 = stats.seat_win_rates(df.lazy()).filter(pl.col("seat") == 0)["rate"][0]
    r = first_team(df)
    assert r["first_rate"] == pytest.approx(2 * seat0)
    assert r["fair"] == 0.5 and r["unit"] == "team"


def test_ties_between_teams_not_partners():
    df = team_games(3000, integer_scores=True, rng=4)
    tf = teams.team_frame(df.lazy())
    tied = stats.winning_margin(tf).collect()["tied"].mean()
    per_game = df.group_by("game").agg(pl.col("score").n_unique().alias("n"))
    assert tied == pytest.approx((per_game["n"] == 1).mean())
    assert 0 < tied < 0.2
    assert stats.winning_margin(df.lazy()).collect()["tied"].all()  # as players: every game a tie


def test_partners_win_rates_and_head_to_head():
    """Under rotation with partners across, a and c always play together against b and d: two
    pairs, whose rates are their teams' (truth: 2 * 1 / (2 * 1 + 1 * 1) = 2/3 for a + c)."""
    df = team_games(6000, strengths=(2, 1, 1, 1), rng=5)
    tf = stats.with_design(teams.team_frame(df.lazy()))
    rates = stats.win_rates(tf)
    assert rates["strategy"].to_list() == ["a + c", "b + d"]
    assert set(rates["fair"].to_list()) == {0.5}
    ac = rates.row(0, named=True)
    assert ac["lo"] < 2 / 3 < ac["hi"]
    h2h = stats.head_to_head(tf)
    assert h2h.filter(pl.col("strategy") == "a + c")["rate"][0] == pytest.approx(ac["rate"])


# ---- the first team's test: its level and its power ---------------------------------------

def _rejections(reps: int, games: int, seed: int, **kw) -> float:
    rng = np.random.default_rng(seed)
    return float(np.mean([first_team(team_games(games, rng=rng, **kw))["p_value"] < 0.05 for _ in range(reps)]))


# Each case costs about 150 s of CPU: the quick suite keeps the one whose line-ups change from
# game to game (the strata the test must allow for); all four run at 2,000 replicates in the
# slow test below.
@pytest.mark.parametrize("kw", [
    dict(strengths=(3, 1, 1, 0.5), partners=BESIDE),                  # pairs change: line-ups
    pytest.param(dict(strengths=(3, 1, 1, 0.5)), marks=pytest.mark.slow),  # partners far apart, across
    pytest.param(dict(strengths=(2, 1, 1, 1), seating="duplicate", luck=1.0),  # rotations share luck
                 marks=pytest.mark.slow),
])
def test_first_team_test_holds_its_level(kw):
    """Fair turn order: the test fires about 5% of the time (300 replicates of 200 games: the
    band is 5% +- 3 standard errors)."""
    rate = _rejections(300, 200, 11, **kw)
    assert 0.012 <= rate <= 0.088, rate


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(strengths=(3, 1, 1, 0.5)), dict(strengths=(3, 1, 1, 0.5), partners=BESIDE),
                                dict(strengths=(2, 1, 1, 1), seating="duplicate", luck=1.0),
                                dict(strengths=(1, 1, 1, 1), integer_scores=True)])
def test_first_team_test_level_slow(kw):
    rate = _rejections(2000, 400, 12, **kw)
    assert 0.035 <= rate <= 0.065, rate


def test_first_team_edge_is_found_and_covered():
    """A planted edge (the first team's weight 1.25: with these partners it wins 53.6% over the
    rotations) is found in nearly every run of 2,000 games, and the first team's interval covers
    the truth about 95% of the time (100 runs: the band is 95% +- 2 standard errors)."""
    rng = np.random.default_rng(21)
    truth = first_team_truth((2, 1, 1, 0.5), 1.25)
    assert truth == pytest.approx(0.5357, abs=1e-4)
    found, covered = [], []
    for _ in range(100):
        r = first_team(team_games(2000, strengths=(2, 1, 1, 0.5), first_factor=1.25, rng=rng))
        found.append(r["p_value"] < 0.05 and r["edge"] > 0)
        covered.append(r["first_lo"] <= truth <= r["first_hi"])
    assert np.mean(found) >= 0.9, np.mean(found)
    assert 0.906 <= np.mean(covered) <= 0.994, np.mean(covered)
    assert r["verdict"].startswith("the team that plays first (1st and 3rd seats) ")


def test_team_verdict_wording():
    r = first_team(team_games(4000, first_factor=1.5, rng=2))
    assert r["outcome"] == "differ"
    assert re.match(r"the team that plays first \(1st and 3rd seats\) has an edge: it wins \d+\.\d% "
                    r"\(interval \d+\.\d% to \d+\.\d%\) of its games against a fair 50\.0%, \d+\.\d percentage "
                    r"points more$", r["verdict"]), r["verdict"]
    r = first_team(team_games(4000, first_factor=1 / 1.5, rng=2, partners=BESIDE))
    assert r["verdict"].startswith("the team that plays first (1st and 2nd seats) is at a disadvantage")
    r = first_team(team_games(400, rng=2))
    if r["outcome"] == "no evidence":
        assert "has no edge that these games can show: it wins" in r["verdict"]


# ---- the report on a synthetic team dataset ----------------------------------------------

def write_results(out: Path, df: pl.DataFrame, name: str = "teams-synthetic", seating: str = "rotate") -> Path:
    (out / "chunks" / "v000").mkdir(parents=True)
    df.write_parquet(out / "chunks" / "v000" / "c000000.parquet")
    strategies = [{"name": s, "use": s, "params": {}} for s in ("a", "b", "c", "d")]
    meta = {"name": name, "game": "herds", "game_name": "Herds", "players": 4,
            "games_per_variant": int(df["game"].n_unique()), "seed": 1, "seating": seating,
            "score_name": "points", "lower_score_wins": False, "experiment": {}, "experiment_text": "",
            "strategies": strategies, "sweep_keys": [],
            "variants": [{"id": 0, "label": "base", "sweep": {}, "rules": {}, "strategies": strategies}],
            "versions": {}, "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    (out / "experiment.json").write_text(json.dumps(meta))
    return out


def page_text(html: str) -> str:
    text = re.sub(r"<(style|script)[^>]*>.*?</\1>", " ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", text.replace("&#39;", "'").replace("&amp;", "&"))


def summary_bullets(html: str) -> list[str]:
    summary = html.split('id="summary"')[1].split("</ul>")[0]
    return [page_text(li) .strip() for li in re.findall(r"<li>(.*?)</li>", summary, flags=re.S)]


def test_report_reads_teams(tmp_path):
    from reports import build_report

    out = write_results(tmp_path / "res", team_games(1200, strengths=(2, 1, 1, 1), first_factor=1.3,
                                                     integer_scores=True, rng=8))
    html = Path(build_report(out, formats=("html",))[0]).read_text()
    bullets = summary_bullets(html)
    assert bullets[0].startswith("The team that plays first (1st and 3rd seats) has an edge: it wins ")
    assert "against a fair 50.0%" in bullets[0]
    text = page_text(html)
    assert "fair share of 50.0% with 2 teams" in text
    assert "25.0%" not in text
    assert "of games end in a tie between teams" in text and "end in a tie for first" not in text
    assert "1st team (1st and 3rd seats; starts)" in text and "2nd team (2nd and 4th seats)" in text
    assert "a + c" in text and "b + d" in text
    assert "4 players in 2 teams of 2" in text
    tied = float(re.search(r'data-key="margin" data-value="[^"]+" data-tied="([^"]+)"', html).group(1))
    assert 0 < tied < 0.2
    # the per-player statistics stay per strategy
    assert re.search(r"<td>a</td><td class=\"num\">[\d.]+</td>", html)


def test_report_of_a_run_made_before_the_team_column(tmp_path):
    """An older Herds run has no team column: the partners come from the game's rules (the
    experiment's resolved rules, Herds' Game.teams), and the report reads teams all the same."""
    from reports import build_report

    out = write_results(tmp_path / "res", team_games(400, rng=9, team_column=False))
    html = Path(build_report(out, formats=("html",))[0]).read_text()
    assert summary_bullets(html)[0].startswith("The team that plays first (1st and 3rd seats) ")


# ---- Herds at four players, end to end ------------------------------------------------------

def test_herds_teams_hook():
    from safari_sim.games import get_game

    herds = get_game("herds")
    assert list(herds.teams(herds.make_rules(), 4)) == [0, 1, 0, 1]
    assert list(herds.teams(herds.make_rules({"partners": "beside"}), 4)) == [0, 0, 1, 1]
    assert herds.teams(herds.make_rules({"teams_at_four": False}), 4) is None
    assert herds.teams(herds.make_rules(), 3) is None
    assert get_game("duck_duck_bruce").teams(get_game("duck_duck_bruce").make_rules(), 4) is None


def run(tmp_path: Path, *args) -> None:
    from safari_sim.cli import app

    r = CliRunner().invoke(app, [str(a) for a in args])
    assert r.exit_code == 0, r.output


def test_herds_four_players_report_reads_teams(tmp_path):
    out = tmp_path / "herds-4p"
    run(tmp_path, "run", ROOT / "experiments" / "herds-4p.yaml", "--games", 300, "--jobs", 1, "--output", out,
        "--quiet")
    df = pl.read_parquet(out / "chunks" / "v000" / "*.parquet")
    assert df.filter(pl.col("game") == 0).sort("seat")["team"].to_list() == [0, 1, 0, 1]
    record = json.loads((out / "experiment.json").read_text())
    assert record["variants"][0]["teams"] == [0, 1, 0, 1] and record["teams"] is True
    html = (out / "report.html").read_text()
    bullets = summary_bullets(html)
    assert re.match(r"The team that plays first \(1st and 3rd seats\) (has no edge that these games can show|"
                    r"has an edge|is at a disadvantage): it wins \d+\.\d% \(interval \d+\.\d% to \d+\.\d%\) of "
                    r"its games against a fair 50\.0%", bullets[0]), bullets[0]
    text = page_text(html)
    assert "fair share of 50.0% with 2 teams" in text and "fair share of 25.0%" not in text
    assert "100.0% of games end in a tie" not in text and "end in a tie for first" not in text
    assert "blocker + patient" in text and "collector + sprinter" in text
    margin = float(re.search(r'data-key="margin" data-value="([^"]+)"', html).group(1))
    assert margin > 1  # between teams, not 0.00 between partners
    # the drama section reads teams too: its table's rows, its note, and the margin's sentence
    # (two teams: "the other team"; over the games with a sole winning team, which is why it is
    # not "How games go"'s margin, where a tie counts 0)
    assert "the winning team leads for good from" in text and "the winning team's final lead" in text
    assert "winner leads for good" not in text and "winner's final lead" not in text
    assert "have no winning team and are left out" in text
    drama_margin = re.search(r'data-statistic="margin" data-mean="[^"]+">([^<]+)<', html).group(1)
    assert "ahead of the other team" in drama_margin and "best other" not in drama_margin
    assert "games with a sole winning team" in drama_margin or "The winning team finishes" in drama_margin
    assert "A strategy (or a pair of partners) is called above or below its fair share" in text
    assert (out / "report.pdf").stat().st_size > 10_000


def test_herds_sweep_with_and_without_teams(tmp_path):
    """One run, variants with partners beside and with four singles: every chunk has the team
    column (singles: each seat its own team), and the report reads the first as teams, the
    second as players."""
    exp = tmp_path / "exp.yaml"
    exp.write_text(f"""
name: herds-sweep
game: herds
players: 4
games: 120
seed: 3
rules: {{partners: beside}}
strategies:
  - {{name: collector, use: collector}}
  - {{name: blocker, use: blocker}}
  - {{name: sprinter, use: sprinter}}
  - {{name: patient, use: collector, params: {{lay_deck: 10, lay_min_hand: 9}}}}
sweep: {{rules.teams_at_four: [true, false]}}
seating: rotate
parallel: {{jobs: 1, batch: 120}}
output: {tmp_path / 'res'}
report: [html]
""")
    run(tmp_path, "run", exp, "--quiet")
    df = pl.scan_parquet(str(tmp_path / "res" / "chunks" / "**" / "*.parquet")).collect()
    by = df.filter(pl.col("game") == 0).sort("variant_id", "seat")
    assert by["team"].to_list() == [0, 0, 1, 1, 0, 1, 2, 3]
    html = (tmp_path / "res" / "report.html").read_text()
    sections = html.split('<section class="variant"')[1:]
    assert "fair share of 50.0% with 2 teams" in page_text(sections[0])
    assert "1st team (1st and 2nd seats; starts)" in page_text(sections[0])
    assert "fair share of 25.0%" in page_text(sections[1]) and "end in a tie for first" in page_text(sections[1])
    assert "first seat or team wins" in page_text(html)

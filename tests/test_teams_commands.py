"""Team games are games of teams (issue 30) in every command that reads win rates: the tournament
over a pool, the neighbour test, ``until:``, ``tune``, ``sensitivity`` and ``skill``.

Synthetic team games with a known truth (four players in two teams, partners across: seats 0+2
and 1+3), and Herds at four players run as a user runs it, with few games.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from safari_sim.stats import teams

ROOT = Path(__file__).resolve().parents[1]
TEAM = np.array([0, 1, 0, 1])


def permuted_team_games(games: int, strengths: dict[str, float], rng: int = 1,
                        right: tuple[str, str, float] | None = None) -> pl.DataFrame:
    """Player rows of ``games`` games of four strategies in two teams (partners across), seated
    by a random permutation each game; a team wins with odds the product of its partners'
    strengths (partners tie for first: each holds half a win, as the runner writes them).
    ``right = (x, y, f)``: x's team's odds times f when y sits on x's right (the seat before)."""
    rng = np.random.default_rng(rng)
    names = list(strengths)
    p = 4
    strat = np.argsort(rng.random((games, p)), axis=1)
    logw = np.log(np.array([strengths[n] for n in names]))[strat]
    if right is not None:
        x, y, f = names.index(right[0]), names.index(right[1]), right[2]
        at = (strat == x).argmax(axis=1)
        hit = strat[np.arange(games), (at - 1) % p] == y
        logw[np.flatnonzero(hit), at[hit]] += np.log(f)
    key = np.stack([logw[:, TEAM == k].sum(axis=1) for k in (0, 1)], axis=1) + rng.gumbel(size=(games, 2))
    score = (20.0 + 4.0 * key)[:, TEAM]
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    first = rank == 1
    win = first / first.sum(axis=1, keepdims=True)
    g = np.arange(games)
    return pl.DataFrame({
        "variant": ["base"] * (games * p), "variant_id": np.zeros(games * p, np.int16),
        "game": np.repeat(g, p), "deal": np.repeat(g, p), "seat": np.tile(np.arange(p), games).astype(np.int8),
        "team": np.tile(TEAM, games).astype(np.int8),
        "strategy": np.array(names, dtype=object)[strat.reshape(-1)].tolist(),
        "score": score.reshape(-1), "rank": rank.reshape(-1).astype(np.int16), "win": win.reshape(-1),
        "players": np.full(games * p, p, np.int8), "turns": np.full(games * p, 30, np.int32),
    })


def test_team_wins_are_the_partners_together():
    df = permuted_team_games(200, {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0})
    tw = teams.team_wins(df.lazy()).collect()
    assert set(tw["win"].unique().to_list()) == {0.0, 1.0}  # a team wins or loses, partners alike
    assert tw["players"].unique().to_list() == [2]
    assert tw.group_by("game").agg(pl.col("win").sum())["win"].unique().to_list() == [2.0]


def test_tournament_rates_pairs_of_partners():
    """A strong strategy makes its partners' team win: the tournament's unit is the pair of
    partners, and the best pair holds the strong one."""
    from reports.tournament import design_view

    df = permuted_team_games(1200, {"a": 4.0, "b": 1.0, "c": 1.0, "d": 1.0})
    experiment = {"pool": [{"name": n} for n in "abcd"], "seating": "permute", "players": 4}
    t = design_view(df.lazy(), experiment)["tournament"]
    assert t["partners"] is True
    assert all(" + " in n for n in t["names"]) and len(t["names"]) == 6  # every pair of the four
    assert "a" in t["best"]["strategy"].split(" + ")
    verdict = "".join(p if isinstance(p, str) else p["strong"] for p in t["verdict"])
    assert " are the best partners across the 1 table " in verdict, verdict
    assert "they rate best in " in verdict and "it rates" not in verdict and "so it is" not in verdict


def test_a_team_tournament_verdict_reads_as_pairs():
    """Tied pairs of partners: "their lead", "they rate best", signs with a real minus (the
    table's lead interval too, which printed "-32 to 242")."""
    import importlib

    tournament = importlib.import_module("safari_sim.stats.tournament")
    r = pl.DataFrame({"strategy": ["a + b", "c + d"], "rating": [45.0, -45.0], "lead": [0.0, 90.0],
                      "lead_lo": [0.0, -32.0], "lead_hi": [0.0, 242.0]})
    t = {"ratings": r, "best": {"strategy": "a + b", "share": 0.91, "tied": ["c + d"], "tables": 5,
                                "resamples": 400}}
    text = "".join(x if isinstance(x, str) else x["strong"] for x in tournament.best_sentence(t, teams=True))
    assert "a + b are the best partners across the 5 tables" in text
    assert "their lead over c + d is 90 Elo points (interval \u221232 to +242, which reaches 0)" in text
    assert "they rate best in 91.0% of 400 resamples" in text and "its lead" not in text


def test_neighbours_in_a_team_game_account_for_partners():
    """Strategies of unequal strength and no neighbour effect: who partners whom decides the
    opponents, which read by right-hand neighbours alone looked like "neighbours matter"
    (p < 1e-10 here). With the partner accounted for the test finds nothing, and holds its level;
    a planted neighbour effect is found and named."""
    from safari_sim.stats.neighbours import neighbour_sentence, neighbour_test

    strengths = {"a": 2.0, "b": 1.0, "c": 1.0, "d": 0.7}
    ps = [neighbour_test(permuted_team_games(600, strengths, rng=100 + r).lazy())["p_value"] for r in range(40)]
    assert np.mean(np.array(ps) < 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 40) and np.mean(ps) > 0.35
    n = neighbour_test(permuted_team_games(1200, strengths, rng=3).lazy())
    assert n["partners"] and n["testable"]
    assert neighbour_sentence(n).startswith("There is no evidence that who sits next to whom matters once partners "
                                            "are accounted for"), neighbour_sentence(n)
    n = neighbour_test(permuted_team_games(2400, strengths, rng=4, right=("b", "c", 3.0)).lazy())
    # c on b's right is, seen from b's partner (a or d), the fourth strategy on the partner's right
    assert n["p_value"] < 1e-4 and (n["strategy"], n["right"]) in {("b", "c"), ("a", "d"), ("d", "a")}
    assert neighbour_sentence(n).startswith("Neighbours matter beyond partners: "), neighbour_sentence(n)


def test_until_reads_teams(tmp_path):
    """``until: {interval}`` holds the pairs of partners' intervals; ``until: {compare: [a, b]}``
    compares the teams a and b play in, on the games where they are opponents, by the teams'
    win rates (a's team wins 60% against b's here, a difference of 20 points, not 10)."""
    import re
    from types import SimpleNamespace

    from safari_sim.run.until import check
    from safari_sim.stats.wins import win_rates

    df = permuted_team_games(3000, {"a": 1.5, "b": 1.0, "c": 1.0, "d": 1.0}, rng=7)
    path = tmp_path / "g.parquet"
    df.write_parquet(path)
    widest = win_rates(teams.team_frame(df.lazy())).select((pl.col("hi") - pl.col("lo")) / 2).max().item()
    spec = SimpleNamespace(until=SimpleNamespace(interval=0.05, compare=None, alpha=0.05))
    why = check(spec, [path], 3000, 1)
    # the widest interval is named: its pair of partners
    assert re.fullmatch(f"every win-rate interval of a pair of partners is within \\+-5.0 percentage points "
                        f"\\(the widest \\+-{100 * widest:.1f} percentage points: [a-d] \\+ [a-d]\\)", why), why
    spec = SimpleNamespace(until=SimpleNamespace(interval=None, compare=["a", "b"], alpha=0.05))
    why = check(spec, [path], 3000, 1)
    opponents = (df.filter(pl.col("strategy").is_in(["a", "b"])).group_by("game")
                 .agg(pl.col("team").n_unique().alias("k")).filter(pl.col("k") == 2).height)
    m = re.match(r"the team a plays in wins more than the team b plays in, by (\d+\.\d) \+- \d+\.\d percentage "
                 r"points \(([\d,]+) deals where they were opponents\)", why)
    assert m, why
    assert int(m.group(2).replace(",", "")) == opponents < 3000
    assert abs(float(m.group(1)) - 20) < 7


def test_tune_objectives_read_teams():
    """The first team's edge (the first team of equal partners wins 2/3: an edge of +16.7 points
    over a fair 50%, not seat 0's half-wins against 25%), the win rate of a strategy's team, and
    the spread between pairs of partners."""
    from tests.test_teams import team_games
    from safari_sim.tune.objectives import Measurer, Objective

    df = team_games(8000, first_factor=2.0, strengths=(2.0, 1.0, 1.0, 1.0), rng=3)
    m = Measurer(df.lazy())
    edge = m.measure(Objective("e", "seat_edge", "minimize"))  # the dataset says it plays in teams
    truth = 0.5 * (2 * 2 / (2 * 2 + 1) + 2 * 1 / (2 * 1 + 2))  # rotation: a with the first team half the time
    assert edge.lo < truth - 0.5 < edge.hi and edge.extra["unit"] == "team"
    # the tune's headline says against what the first team's edge is taken: a fair 50%
    from safari_sim.tune.text import _measure_text

    said = _measure_text(edge.to_json(), {"kind": "seat_edge", "share": True})
    assert "[the first team's win rate minus a fair 50.0%: +" in said, said
    win = m.measure(Objective("w", "win_rate", "maximize", strategy="a"))
    a_truth = 0.5 * (2 * 2 / (2 * 2 + 1) + 2 / (2 + 2))  # a's team: the first team, or the second
    assert win.lo < a_truth < win.hi and win.extra["fair"] == 0.5
    spread = m.measure(Objective("s", "spread", "minimize"))
    pairs = m.rates()["strategy"].to_list()
    assert sorted(pairs) == ["a + c", "b + d"] and spread.value > 0.1
    assert Objective("e", "seat_edge", "minimize", teams=True).text() == "the first team's edge towards 0"
    assert Objective("w", "win_rate", "maximize", strategy="a", teams=True).noun() == "the win rate of a's team"


def test_dominant_verdict_in_a_team_game():
    from tests.test_teams import team_games
    from safari_sim.tune.verdict import dominant_verdict

    tuned = [({"strategies.a.params.k": 1}, team_games(6000, strengths=(1.6, 1.0, 1.0, 1.0), rng=5).lazy())]
    v = dominant_verdict("a", tuned, team_games(6000, rng=6).lazy())
    assert v["answer"] == "yes" and v["best"]["fair"] == 0.5
    assert "a with k=1 is in the winning team in " in v["sentence"] and "against a fair 50.0% for one of 2 teams" \
        in v["sentence"], v["sentence"]
    assert "With its default knobs its team wins " in v["sentence"]


def test_a_tune_of_herds_at_four_reads_teams(tmp_path):
    from safari_sim.tune.config import load_tune

    exp = tmp_path / "h.yaml"
    exp.write_text((ROOT / "experiments" / "herds-4p.yaml").read_text().replace("games: 20000", "games: 200"))
    path = tmp_path / "t.yaml"
    path.write_text("experiment: h.yaml\nsearch: {rules.target_score: [50, 60]}\n"
                    "objectives: [{kind: seat_edge}, {kind: win_rate, strategy: blocker}]\nbudget: 400\nrungs: [200]\n")
    t = load_tune(path, probe=False)
    assert [o.text() for o in t.objectives] == ["the first team's edge towards 0", "the win rate of blocker's team up"]


def _results(folder: Path, df: pl.DataFrame) -> Path:
    import json

    (folder / "chunks" / "v000").mkdir(parents=True)
    df.write_parquet(folder / "chunks" / "v000" / "c00000.parquet")
    (folder / "experiment.json").write_text(json.dumps({"game": "synthetic", "players": 4, "teams": True,
                                                        "variants": [{"id": 0, "teams": [0, 1, 0, 1]}]}))
    return folder


def test_sensitivity_reads_teams(tmp_path):
    """Two rules points of the same deals, the second giving the team that plays first odds of
    2 to 1: the first team's edge moves from 0 to +16.7 points (seat 0's half-wins against 25%
    would move by half that), and the words name the first team and the pairs of partners."""
    from tests.test_teams import team_games
    from safari_sim.stats import sensitivity as sens

    fair = _results(tmp_path / "a", team_games(6000, rng=2))
    edged = _results(tmp_path / "b", team_games(6000, first_factor=2.0, rng=2))
    est = sens.estimates([fair, edged])
    d, se = sens._diff(est, "edge", 0, 1)
    assert abs(d - 1 / 6) < 3 * se and se < 0.03
    assert est.teams is True
    assert sens.words_of("edge", est.teams) == "first team's edge"
    assert sens.words_of("spread", est.teams).startswith("spread between pairs of partners")


def test_skill_of_a_team_game_is_teams_against_teams():
    """A team of two copies of a (strength 2 each: odds 4 to 1) against two of b: a's team wins
    80%, so skill decides (0.8 - 1/2) / (1 - 1/2) = 60% of games (not a single player's half-wins
    against 25%)."""
    from tests.test_teams import team_games
    from safari_sim.stats import skill as sk

    df = team_games(6000, strengths=(2.0, 1.0, 2.0, 1.0), names=("a", "b", "a_2", "b_2"), rng=2)
    p = sk.pairing(df.lazy(), "a", "b")
    assert p.skill_lo < 0.6 < p.skill_hi and p.lo < 0.8 < p.hi
    assert p.teams == 2 and p.strong_seats == 2
    line = sk.line("Synthetic", p, p, 0.25)
    assert line.startswith("Synthetic (4 players in 2 teams): skill decides ") and "a team of a partners" in line
    assert "luck: the weakened team wins " in line and "(50% under pure luck)" in line


def test_skill_seats_a_team_of_copies_and_replaces_a_blocked_folder(tmp_path):
    import json

    from typer.testing import CliRunner

    from safari_sim.cli import app
    from safari_sim.games import get_game
    from safari_sim.stats import skill as sk

    herds = get_game("herds")
    assert sk.strong_team(herds, herds.make_rules({}), 4) == [0, 2]
    assert sk.strong_team(herds, herds.make_rules({"partners": "beside"}), 4) == [0]  # rotation splits them
    assert sk.strong_team(herds, herds.make_rules({}), 3) == [0]
    # the heuristic as the best player (at 4 the search is: SEARCH_AHEAD; slow for a test of seating)
    args = ["skill", "herds", "--players", "4", "--games", "40", "--best", "heuristic",
            "--output", str(tmp_path)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "Herds (4 players in 2 teams): skill decides" in " ".join(r.output.split())
    record = tmp_path / "herds-4p" / "random" / "experiment.json"
    old = json.loads(record.read_text())
    assert [s["name"] for s in old["experiment"]["strategies"]] == ["collector", "random_1", "collector_2", "random_2"]
    record.write_text(json.dumps({**old, "fingerprint": "another table"}))  # as if played before
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1 and "--replace" in r.output
    r = CliRunner().invoke(app, [*args, "--replace"])
    assert r.exit_code == 0, r.output
    assert list((tmp_path / "herds-4p").glob("random.previous*"))  # the blocked results kept aside


def test_until_refuses_to_compare_partners(tmp_path):
    """Herds at four, seats rotated: collector and sprinter are partners in every game, so
    comparing them could never stop: one clear message, exit code 2, before anything is played.
    A misspelled name gets a did-you-mean."""
    from safari_sim.run.config import ExperimentError, load_experiment

    text = (ROOT / "experiments" / "herds-4p.yaml").read_text().replace("games: 20000", "games: 200")
    exp = tmp_path / "h.yaml"
    exp.write_text(text + "until: {compare: [collector, sprinter]}\n")
    try:
        load_experiment(exp)
        raise AssertionError("accepted")
    except ExperimentError as e:
        assert "until.compare: collector and sprinter are partners in every game (seating: rotate)" in str(e)
    exp.write_text(text + "until: {compare: [colector, blocker]}\n")
    try:
        load_experiment(exp)
        raise AssertionError("accepted")
    except ExperimentError as e:
        assert "until.compare: no strategy named 'colector'; did you mean 'collector'?" in str(e)
    exp.write_text(text + "until: {compare: [collector, blocker]}\n")  # opponents: fine
    load_experiment(exp)
    exp.write_text(text.replace("seating: rotate", "seating: permute") + "until: {compare: [collector, sprinter]}\n")
    load_experiment(exp)


def test_a_team_tournament_says_when_pairs_never_met():
    """Under rotate a table's partners never change: tables a b c d and a e b d seat a + c
    against b + d and a + b against d + e, two groups of pairs that never played each other,
    whose ratings cannot be compared; the verdict says so."""
    from tests.test_teams import team_games
    from reports.tournament import design_view

    one = team_games(400, names=("a", "b", "c", "d"), rng=1)
    two = team_games(400, names=("a", "e", "b", "d"), rng=2).with_columns(pl.lit(1, pl.Int16).alias("variant_id"),
                                                                           pl.lit("t2").alias("variant"))
    experiment = {"pool": [{"name": n} for n in "abcde"], "seating": "rotate", "players": 4}
    t = design_view(pl.concat([one, two]).lazy(), experiment)["tournament"]
    assert t["best"]["groups"] == 2 and sorted(t["names"]) == ["a + b", "a + c", "b + d", "d + e"]
    verdict = "".join(p if isinstance(p, str) else p["strong"] for p in t["verdict"])
    assert "the 4 pairs fall into 2 groups that never played each other" in verdict, verdict


def mixed_permuted_games(games: int, rng: int = 11) -> pl.DataFrame:
    """Variant 0 "teams": four strategies of unequal strength in two teams (partners across);
    variant 1 "singles": the same four, each for themselves (the dataset's team column gives each
    seat its own team, as the runner writes a variant without teams in a team experiment). Both
    seated by permutation, neither with a neighbour effect."""
    from tests.test_tournament import pool_frame

    strengths = {"a": 2.0, "b": 1.0, "c": 1.0, "d": 0.7}
    together = permuted_team_games(games, strengths, rng=rng).with_columns(pl.lit("teams").alias("variant"))
    alone = pool_frame({k: float(np.log(v)) for k, v in strengths.items()}, table=4, games=games, rng=rng)
    alone = alone.with_columns(pl.lit(1, pl.Int16).alias("variant_id"), pl.lit("singles").alias("variant"),
                               pl.col("seat").alias("team"), pl.col("deal").cast(pl.Int64),
                               pl.col("game").cast(pl.Int64))
    return pl.concat([together, alone.select(together.columns)], how="vertical_relaxed")


def test_neighbours_of_a_mixed_experiment_are_worded_per_variant():
    """A mixed experiment (one variant in teams, one without): the team variant gets the team
    test and its wording (partners accounted for), the other the players' test and theirs, each
    naming its variants; before, one test over both said "once partners are accounted for" of
    the variant where no one has a partner."""
    from reports.render import render_html
    from reports.tournament import design_view
    from reports.view import build_view
    from safari_sim.stats.neighbours import neighbour_test

    df = mixed_permuted_games(1200)
    experiment = {"seating": "permute", "players": 4, "teams": True,
                  "variants": [{"id": 0, "label": "teams"}, {"id": 1, "label": "singles"}]}
    view = design_view(df.lazy(), experiment)
    said = [b[0] for b in view["bullets"]]  # the summary's sentences
    assert len(said) == 2, said
    assert said[0].startswith("In the variant teams (played in teams): "), said[0]
    assert "once partners are accounted for" in said[0] or "beyond partners" in said[0]
    assert said[1].startswith("In the variant singles (played without teams, each player for themselves): "), said[1]
    assert "partner" not in said[1].split(": ", 1)[1]
    tests = view["neighbours"]
    assert [t["partners"] for t in tests] == [True, False]
    # each the test that fits its variant: the same numbers as the test of that variant alone
    alone = neighbour_test(df.filter(pl.col("variant_id") == 1).lazy())
    assert tests[1]["statistic"] == alone["statistic"] and tests[1]["df"] == alone["df"]
    html = render_html(build_view(df.lazy(), {**experiment, "game": "synthetic", "name": "mixed", "seed": 0,
                                              "games_per_variant": 1200, "created": "now", "versions": {}}))
    assert html.count('data-key="neighbours"') == 2
    assert 'data-partners="True"' in html and 'data-partners="False"' in html


def test_until_words_each_variant_of_a_mixed_experiment_as_it_is_played(tmp_path):
    """``until:`` on a mixed experiment: the stop reason compares the teams a and b play in where
    the variant plays in teams, and a and b themselves where it does not (it said "the team a
    plays in" of both); ``interval`` says which intervals are pairs'."""
    from types import SimpleNamespace

    from safari_sim.run.until import check

    path = tmp_path / "g.parquet"
    mixed_permuted_games(3000).write_parquet(path)
    spec = SimpleNamespace(until=SimpleNamespace(interval=None, compare=["a", "b"], alpha=0.05))
    why = check(spec, [path], 3000, 2)
    assert why is not None
    teams_part, singles_part = why.split("; ")
    assert teams_part.startswith("the team a plays in wins more than the team b plays in, by ") \
        and teams_part.endswith("deals where they were opponents, teams)"), why
    assert singles_part.startswith("a wins more than b by ") and ", singles)" in singles_part, why
    spec = SimpleNamespace(until=SimpleNamespace(interval=0.2, compare=None, alpha=0.05))
    assert check(spec, [path], 3000, 2).startswith(
        "every win-rate interval (of a pair of partners in the variants played in teams, of a strategy in the "
        "others) is within +-20.0 percentage points")


def test_report_of_a_mixed_experiment_names_each_variant_unit():
    """The summary of a mixed experiment: the spread of a team variant is between pairs of
    partners and the other's between strategies, and the sentences say whose (they said
    "Strategies are closest together" of both); the headline table marks which variants play in
    teams."""
    from reports.render import render_html
    from reports.view import build_view

    df = mixed_permuted_games(1200)
    experiment = {"seating": "permute", "players": 4, "teams": True, "game": "synthetic", "name": "mixed", "seed": 0,
                  "games_per_variant": 1200, "created": "now", "versions": {}, "sweep_keys": ["rules.teams"],
                  "variants": [{"id": 0, "label": "teams"}, {"id": 1, "label": "singles"}]}
    view = build_view(df.lazy(), experiment)
    said = ["".join(p if isinstance(p, str) else p["strong"] for p in b) for b in view.context["summary"]]
    spread = next(s for s in said if "closest together" in s)
    assert spread.startswith("Win rates are closest together in "), spread
    assert "(pairs of partners, " in spread and "(strategies, " in spread, spread
    assert any(s.startswith("The strategy (in teams, the pair of partners) that wins most often") for s in said), said
    balanced = next(s for s in said if s.startswith("Most balanced"))
    mine = "first team's" if "Most balanced seats (or teams): teams" in balanced else "first seat's"
    assert f"where the {mine} edge is" in balanced, balanced
    html = render_html(view)
    assert '<td data-unit="team">teams <span class="pm">(in teams)</span>' in html
    assert '<td data-unit="seat">singles <span class="pm">(no teams)</span>' in html


def test_compare_says_when_one_run_plays_in_teams_and_the_other_not(tmp_path):
    """Two runs of one table, partners in the first, each for themselves in the second: their
    win rates (pairs against players) are not paired, and compare says so, with the teams as a
    line of what differs (before, the lines were left out without a word)."""
    import json

    from typer.testing import CliRunner

    from safari_sim.cli import app

    mixed = mixed_permuted_games(600)
    for name, vid, teams_ in (("a", 0, [0, 1, 0, 1]), ("b", 1, None)):
        part = mixed.filter(pl.col("variant_id") == vid).with_columns(pl.lit("base").alias("variant"),
                                                                     pl.lit(0, pl.Int16).alias("variant_id"))
        if teams_ is None:
            part = part.drop("team")
        (tmp_path / name / "chunks" / "v000").mkdir(parents=True)
        part.write_parquet(tmp_path / name / "chunks" / "v000" / "c000000.parquet")
        variant = {"id": 0, "label": "base", "rules": {}, "strategies": [], **({"teams": teams_} if teams_ else {})}
        (tmp_path / name / "experiment.json").write_text(json.dumps(
            {"game": "synthetic", "players": 4, "seating": "permute", "teams": teams_ is not None,
             "variants": [variant], "strategies": []}))
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b")], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "base: one run plays in teams and the other does not, so its win rates and scores (of pairs of " \
           "partners in one, of players in the other) are not compared" in text, text
    assert "1st and 3rd seats against 2nd and 4th seats" in text and "none (each player for themselves)" in text


def test_until_compares_two_pairs_of_partners(tmp_path):
    """``until: {compare: ["a + b", "c + d"]}``: the team of a and b against the team of c and d,
    on the games where they meet (a third of the permutations: a + b against c + d); a is three
    times as strong, so that team wins 75% of those games, a difference of 50 points."""
    import re
    from types import SimpleNamespace

    from safari_sim.run.until import check

    df = permuted_team_games(2400, {"a": 3.0, "b": 1.0, "c": 1.0, "d": 1.0}, rng=8)
    path = tmp_path / "g.parquet"
    df.write_parquet(path)
    spec = SimpleNamespace(until=SimpleNamespace(interval=None, compare=["d + c", "a+b"], alpha=0.05))
    why = check(spec, [path], 2400, 1)
    met = (df.filter(pl.col("strategy").is_in(["a", "b"])).group_by("game")
           .agg(pl.col("team").n_unique().alias("k")).filter(pl.col("k") == 1).height)
    m = re.match(r"the team of a \+ b wins more than the team of d \+ c, by (\d+\.\d) \+- \d+\.\d percentage "
                 r"points \(([\d,]+) deals where they were opponents\)", why or "")
    assert m, why
    assert int(m.group(2).replace(",", "")) == met and 600 < met < 1000
    assert abs(float(m.group(1)) - 50) < 12


def _herds_until(tmp_path: Path, compare: str, seating: str = "rotate", players: int = 4) -> str | None:
    """The message ``load_experiment`` gives Herds (experiments/herds-4p.yaml, few games) with
    ``until: {compare: COMPARE}``, or None when it is accepted."""
    from safari_sim.run.config import ExperimentError, load_experiment

    text = (ROOT / "experiments" / "herds-4p.yaml").read_text().replace("games: 20000", "games: 200")
    text = text.replace("seating: rotate", f"seating: {seating}")
    if players == 3:
        text = text.replace("players: 4", "players: 3").replace(
            "  - {name: patient, use: collector, params: {lay_deck: 10, lay_min_hand: 9}}\n", "")
    exp = tmp_path / "h.yaml"
    exp.write_text(text + f"until: {{compare: {compare}}}\n")
    try:
        load_experiment(exp)
    except ExperimentError as e:
        return str(e).split("h.yaml: ", 1)[-1]  # after the file's name
    return None


def test_until_pairs_are_checked_before_the_run(tmp_path):
    """Herds at four, rotated: collector + sprinter play blocker + patient in every game (the
    pairs may be written in either order); collector + patient never sit as partners (one clear
    message naming the pairs that do; under permute they do); a misspelled name gets a
    did-you-mean; a pair that names one strategy twice, two pairs sharing one, and a pair at
    three players (no teams) are refused."""
    assert _herds_until(tmp_path, '["collector + sprinter", "blocker + patient"]') is None
    assert _herds_until(tmp_path, '["patient + blocker", "sprinter+collector"]') is None
    assert _herds_until(tmp_path, '["collector + patient", "blocker + sprinter"]') == (
        "until.compare: collector + patient are never partners (seating: rotate), so no game has them in one "
        "team; the pairs of partners that play: blocker + patient, collector + sprinter")
    assert _herds_until(tmp_path, '["collector + patient", "blocker + sprinter"]', seating="permute") is None
    assert _herds_until(tmp_path, '["collector + patinet", "blocker + sprinter"]') == (
        "until.compare: no strategy named 'patinet' (in 'collector + patinet'); did you mean 'patient'?")
    assert _herds_until(tmp_path, '["blocker + blocker", "collector + sprinter"]') == (
        "until.compare: 'blocker + blocker' names blocker twice: a pair of partners is two strategies of the "
        "experiment, each seated once at a table")
    assert _herds_until(tmp_path, '["collector + sprinter", "collector + blocker"]', seating="permute") == (
        "until.compare: 'collector + sprinter' and 'collector + blocker' share collector, so they never play "
        "against each other")
    assert _herds_until(tmp_path, '["collector + sprinter", "blocker"]', players=3) == (
        "until.compare: 'collector + sprinter' is a pair of partners, but Herds at 3 players is not played in "
        "teams here; compare two strategies")
    assert _herds_until(tmp_path, '["collector + ", "blocker"]') == (
        "until.compare: 'collector + ' is not a strategy or a pair of partners: write a name, or two joined by "
        "+, as 'collector + patient'")


def test_a_bad_pair_stops_the_run_before_any_game(tmp_path):
    from typer.testing import CliRunner

    from safari_sim.cli import app

    text = (ROOT / "experiments" / "herds-4p.yaml").read_text().replace("games: 20000", "games: 200")
    exp = tmp_path / "h.yaml"
    exp.write_text(text.replace("output: ../results/herds-4p", f"output: {tmp_path / 'out'}")
                   + 'until: {compare: ["collector + patient", "blocker + sprinter"]}\n')
    r = CliRunner().invoke(app, ["run", str(exp), "--jobs", "1", "--quiet"])
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert said.startswith("error: ") and "h.yaml: until.compare: collector + patient are never partners " \
        "(seating: rotate)" in said, said
    assert not (tmp_path / "out").exists()


def test_sensitivity_words_each_field_as_its_points_are_played():
    """A screening whose points are some in teams and some not (Herds' teams_at_four), and one
    field (partners: beside under rotation) that seats other pairs: each field's sentence is
    worded as the two points it compares are played (the team words for partners, "(or winning
    team)" for teams_at_four), and a spread between other pairs says it is not the same pairs'."""
    from safari_sim.stats import sensitivity as sens

    rng = np.random.default_rng(3)
    reps = 200
    # points: 0 base (teams, across), 1 beside (teams, other pairs), 2 no teams (players)
    shift = {"edge": [0.0, 0.0, 0.0], "spread": [0.05, 0.5, 0.3], "margin": [8.0, 11.0, 13.0],
             "turns": [70.0, 70.0, 140.0]}
    value = {m: np.array(v) for m, v in shift.items()}
    noise = {m: v[:, None] + 0.001 * rng.standard_normal((3, reps)) for m, v in value.items()}
    est = sens.Estimates(list(shift), value, noise, 400, "mixed")
    est.point_teams = [True, True, False]
    est.units = [["a + c", "b + d"], ["a + b", "a + d", "b + c", "c + d"], ["a", "b", "c", "d"]]
    design = [{"field": "partners", "direction": "up", "base": "across", "value": "beside",
               "point": sens.Point({"partners": "beside"}, "beside")},
              {"field": "teams_at_four", "direction": "down", "base": True, "value": False,
               "point": sens.Point({"teams_at_four": False}, "off")}]
    effects = sens.oat_effects(design, {"base": 0, "beside": 1, "off": 2}, est)
    text = {s.split(" (from")[0]: s for s in sens.oat_sentences(effects, [], "game points", est.teams)}
    partners, off = text["partners"], text["teams_at_four"]
    assert "spread between pairs of partners" in partners and "winning team's final lead" in partners
    assert "between other pairs of partners" in partners and "first team's edge" in partners
    assert "(or pairs of partners" not in partners and "winner's final lead" not in partners
    assert "winner's (or winning team's) final lead" in off and "first seat's (or team's) edge" in off
    assert "between other pairs" not in off
    # a measure that is a clause takes no article: "change of when the winning team takes ..."
    assert sens.the(sens.words_of("lead_from", True)).startswith("when the winning team takes")
    assert sens.the(sens.words_of("turns")) == "the game length"


def test_the_skill_page_of_a_team_game_says_the_weaker_team():
    """The skill table's last column is "the weaker team wins" when every row is a team game
    ("a weaker player wins" read as a single player's share)."""
    from reports.render import environment

    row = {"game": "herds", "game_name": "Herds", "players": 4, "teams": 2, "best": "collector",
           "weak": "random", "against": "random", "games": 300, "rate": 0.8, "lo": 0.75, "hi": 0.84, "skill": 0.6,
           "skill_lo": 0.5, "skill_hi": 0.68, "upset": 0.2, "rate_text": "80.0%", "rate_interval": "75.0% to 84.0%",
           "skill_text": "60.0%", "skill_interval": "50.0% to 68.0%", "upset_text": "20.0%"}
    page = lambda rows: environment().get_template("skill.html.j2").render(  # noqa: E731
        results=[], table=rows, plot="", plot_paths=[], generated="now").split('<table class="skill">')[1]
    assert "the weaker team wins" in page([row]) and "a weaker player wins" not in page([row])
    assert "a weaker player (or team) wins" in page([row, {**row, "teams": 0, "players": 3}])
    assert "a weaker player wins" in page([{**row, "teams": 0, "players": 3}])

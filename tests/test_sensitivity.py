"""Which rules matter (safari_sim/stats/sensitivity.py, `safari-sim sensitivity`) and drama in
the report (safari_sim/stats/drama.py), on a game whose truths are known (tests/synthetic_game.py:
``bonus`` moves the first seat's edge and nothing else, ``length`` the game's length and nothing
else, ``decoy`` and ``colour`` nothing at all)."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from synthetic_game import Rules, registered  # noqa: E402
import report_data  # noqa: E402

from safari_sim.cli import app  # noqa: E402
from safari_sim.stats import drama, sensitivity as sens  # noqa: E402


def experiment(tmp: Path, games: int = 1000, rules: dict | None = None, **extra) -> Path:
    raw = {"name": "coin", "game": "coin_race_test", "players": 2, "games": games, "seed": 3,
           "rules": rules or {}, "strategies": [{"name": "a", "use": "random"},
                                                {"name": "b", "use": "first_legal"}],
           "parallel": {"jobs": 1}, **extra}
    path = tmp / "coin.yaml"
    path.write_text(json.dumps(raw))
    return path


def invoke(*args):
    with registered():
        r = CliRunner().invoke(app, [str(a) for a in args])
    return r


def rows(html: str, measure: str) -> list[dict]:
    """The effect rows of one measure's table, as the page prints them."""
    out = []
    for m in re.finditer(r'<tr data-field="([^"]+)" data-measure="%s"[^>]*data-effect="([^"]+)" '
                         r'data-detectable="(true|false)"' % measure, html):
        out.append({"field": m[1], "effect": float(m[2]), "detectable": m[3] == "true"})
    return out


@pytest.fixture(scope="module")
def oat(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("oat")
    path = experiment(tmp, games=600)
    r = invoke("sensitivity", path, "--fields", "bonus,decoy,length,colour", "--output", tmp / "out")
    assert r.exit_code == 0, r.output
    return tmp, path, r.output, (tmp / "out" / "sensitivity.html").read_text()


def test_the_present_effect_is_found_and_the_absent_ones_said_plainly(oat):
    _, _, output, html = oat
    edge = rows(html, "edge")
    assert edge[0]["field"] == "bonus"  # the tornado's table: largest effect first
    bonus = [r for r in edge if r["field"] == "bonus"]
    assert len(bonus) == 2 and all(r["detectable"] for r in bonus)
    # the truth: seat 0's weight 1 + bonus/2 against 1, so 1.5/2.5 at 1, 1/2 at 0, 2/3 at 2
    down, up = sorted(bonus, key=lambda r: r["effect"])
    assert down["effect"] == pytest.approx(0.5 - 0.6, abs=0.03)
    assert up["effect"] == pytest.approx(2 / 3 - 0.6, abs=0.03)
    assert not any(r["detectable"] for r in edge if r["field"] != "bonus")
    turns = rows(html, "turns")
    assert {r["field"] for r in turns if r["detectable"]} == {"length"}
    assert sorted(r["effect"] for r in turns if r["field"] == "length") == [-2.0, 2.0]  # 2 seats x 1 step
    for m in ("spread", "lead_changes", "margin"):
        assert not any(r["detectable"] for r in rows(html, m)), m
    assert "decoy (from 2 to 1 and to 3): no detectable effect on any measure." in html
    assert "colour (from red to green): no detectable effect on any measure." in html
    assert re.search(r"bonus \(from 1 to 0 and to 2\): first seat&#39;s edge −\d+\.\d percentage points at 0",
                     html)
    assert "no detectable effect on game length" in html.split("bonus (from")[1].split("</li>")[0]
    assert "decoy (from 2 to 1 and to 3): no detectable effect on any measure." in " ".join(output.split())
    assert html.count("<img") == 5  # one tornado per measure: edge, turns, spread, 2 drama columns


def test_points_are_normal_datasets_and_a_second_run_plays_nothing_again(oat):
    tmp, path, _, _ = oat
    points = tmp / "out" / "points"
    assert sorted(p.name for p in points.iterdir()) == sorted(
        ["base", "bonus=0", "bonus=2", "decoy=1", "decoy=3", "length=2", "length=4", "colour=green"])
    rec = json.loads((points / "bonus=2" / "experiment.json").read_text())
    assert rec["finished"] and rec["variants"][0]["rules"]["bonus"] == 2
    assert rec["variants"][0]["rules"]["decoy"] == 2  # every other field at the experiment's value
    before = {f: f.stat().st_mtime_ns for f in points.glob("*/chunks/*/*.parquet")}
    r = invoke("sensitivity", path, "--fields", "bonus,decoy,length,colour,skill", "--output", tmp / "out")
    assert r.exit_code == 0, r.output
    after = {f: f.stat().st_mtime_ns for f in points.glob("*/chunks/*/*.parquet")}
    assert {f: after[f] for f in before} == before  # finished points not played again
    assert sorted(set(after) - set(before)) == sorted(points.glob("skill=0.1/chunks/*/*.parquet"))


def test_paired_standard_error_is_the_paired_difference_s(oat):
    """bonus 1 -> 0 plays the same games: the edge changes exactly in the games whose winner moves
    off seat 0, so its standard error is that of a mean of 0/-1 values over the games."""
    tmp, _, _, _ = oat
    points = tmp / "out" / "points"
    est = sens.estimates([points / "base", points / "bonus=0"], seed=3)
    d, se = sens._diff(est, "edge", 0, 1)
    a = pl.read_parquet(points / "base" / "chunks" / "**" / "*.parquet").filter(pl.col("seat") == 0).sort("game")
    b = pl.read_parquet(points / "bonus=0" / "chunks" / "**" / "*.parquet").filter(pl.col("seat") == 0).sort("game")
    diff = b["win"].to_numpy() - a["win"].to_numpy()
    assert d == pytest.approx(diff.mean())
    assert se == pytest.approx(diff.std(ddof=1) / np.sqrt(len(diff)), rel=0.15)


def test_morris_screening_separates_the_fields(tmp_path):
    path = experiment(tmp_path, games=300)
    with registered():
        res = sens.screen(path, ["bonus", "decoy", "length", "colour"], method="morris", trajectories=5,
                          output=tmp_path / "m")
    e = res.effects
    def verdicts(field):
        return dict(e.filter(pl.col("field") == field).select("measure", "detectable").iter_rows())
    assert verdicts("bonus")["edge"] and verdicts("length")["turns"]
    assert not any(verdicts("decoy").values()) and not any(verdicts("colour").values())
    lengths = e.filter((pl.col("field") == "length") & (pl.col("measure") == "turns")).row(0, named=True)
    assert lengths["mu_star"] == pytest.approx(8.0)  # length 1 -> 5 is 2 x 4 more turns over the range
    assert "decoy: no detectable effect on any measure." in res.sentences
    assert res.method == "morris" and (tmp_path / "m" / "effects.csv").exists()


def test_steps_of_every_kind_of_field():
    r = Rules()
    f = {s.name: s for s in sens.screened_fields(Rules, r)}
    assert f["bonus"].neighbours() == [("down", 0), ("up", 2)]
    assert f["colour"].neighbours() == [("up", "green")]
    assert f["skill"].kind == "continuous" and f["skill"].neighbours() == [("up", pytest.approx(0.1))]
    edge = sens.screened_fields(Rules, Rules(length=5), ["length"])[0]
    assert edge.neighbours() == [("down", 4)]
    made = sens._made_up("x", True, bool)
    assert made.neighbours() == [("down", False)] and not made.declared
    assert sens._made_up("n", 7, int).neighbours() == [("down", 6), ("up", 8)]
    with pytest.raises(sens.SensitivityError, match="did you mean 'bonus'"):
        sens.screened_fields(Rules, r, ["bonsu"])
    with pytest.raises(sens.SensitivityError, match="not a number"):
        sens._made_up("s", "text", str)
    from dataclasses import dataclass

    from safari_sim.engine.protocol import rule

    @dataclass(frozen=True)
    class Bare:
        n: int = rule(3, "no search declared")

    with pytest.raises(sens.SensitivityError, match="name the fields to screen with --fields"):
        sens.screened_fields(Bare, Bare())
    assert sens.screened_fields(Bare, Bare(), ["n"])[0].neighbours() == [("down", 2), ("up", 4)]


def test_steps_stop_at_the_declared_range_and_bad_input_is_refused(tmp_path):
    path = experiment(tmp_path, games=200, rules={"length": 1})
    # length's declared search starts at 1: one step down from 1 does not exist, so only up
    with registered():
        res = sens.screen(path, ["length", "skill"], output=tmp_path / "o")
    assert set(res.effects.filter(pl.col("field") == "length")["value"].to_list()) == {"2"}
    r = invoke("sensitivity", path, "--fields", "length", "--output", tmp_path / "o2", "--method", "sobol")
    assert r.exit_code == 2 and "--method" in r.output
    r = invoke("sensitivity", experiment(tmp_path, sweep={"rules.bonus": [0, 1]}), "--output", tmp_path / "o3")
    assert r.exit_code == 2 and "sweep" in r.output


def test_rejected_rules_values_are_reported(tmp_path, monkeypatch):
    import synthetic_game

    monkeypatch.setattr(synthetic_game.CoinRace, "check", lambda self, rules, n: (
        (_ for _ in ()).throw(sens.RulesError("decoy", "3 is not allowed")) if rules.decoy == 3 else None))
    path = experiment(tmp_path, games=200)
    with registered():
        res = sens.screen(path, ["decoy"], output=tmp_path / "o")
    assert res.skipped == ["decoy=3: rules.decoy: 3 is not allowed"]
    assert res.effects["value"].unique().to_list() == ["1"]


# ---- drama in the standard report ----------------------------------------------------------------

def with_drama(out: Path) -> pl.DataFrame:
    """Add drama columns with known values to a synthetic dataset (the same value on every row
    of a game, as the runner writes per-game statistics)."""
    frames = []
    for f in sorted(out.glob("chunks/*/*.parquet")):
        df = pl.read_parquet(f)
        g = df["game"].to_numpy()
        df = df.with_columns(pl.Series("lead_changes", (g % 4).astype(np.int32)),
                             pl.Series("lead_from", np.where(g % 5 == 0, np.nan, (g % 7) / 7)),
                             pl.Series("comeback", np.where(g % 5 == 0, np.nan, (g % 3).astype(float))),
                             pl.Series("margin", np.where(g % 5 == 0, np.nan, 1.0 + g % 2)))
        df.write_parquet(f)
        frames.append(df)
    return pl.concat(frames)


def test_drama_distributions_and_sentences_in_the_report(tmp_path):
    from reports import build_report

    out = report_data.write_dataset(tmp_path / "d", games=300, sweep={"rules.bruce_cards": [0, 6]})
    df = with_drama(out)
    html = build_report(out, ["html"])[0].read_text()
    games = df.filter(pl.col("seat") == 0)
    for vid in (0, 1):
        g = games.filter(pl.col("variant_id") == vid)
        lc = g["lead_changes"].to_numpy()
        section = html.split(f'id="v{vid}"')[1].split("</section>")[0]
        m = re.search(r'data-statistic="lead_changes" data-mean="([^"]+)">The lead changes hands ([\d.]+) times',
                      section)
        assert float(m[1]) == pytest.approx(lc.mean()) and m[2] == f"{lc.mean():.2f}"
        assert f"in {100 * (lc == 0).mean():.1f}% of games it never changes" in section
        lf = g["lead_from"].to_numpy()
        lf = lf[~np.isnan(lf)]
        assert f"{100 * (lf == 0).mean():.1f}% of winners lead from the first score on" in section
        cb = g["comeback"].drop_nans().to_numpy()
        assert f"{100 * (cb > 0).mean():.1f}% of winners were behind at some point" in section
        mg = g["margin"].drop_nans().to_numpy()
        assert f"finishes {mg.mean():.2f} game points ahead of the best other player" in section
        n_row = re.search(r'data-statistic="margin"><td>[^<]+</td><td class="num">([\d,]+)</td>', section)
        assert int(n_row[1].replace(",", "")) == len(mg)  # tied games (NaN) left out
    t = drama.table(pl.scan_parquet(str(out / "chunks" / "**" / "*.parquet")))
    assert set(t["statistic"]) == set(drama.COLUMNS) and t["all_games"].to_list() == [300] * 8
    row = t.filter(pl.col("statistic") == "lead_from").row(0, named=True)
    assert "no winner leads from the first score on" in drama.sentence({**row, "zero": 0.0})


def test_no_drama_table_without_the_columns(tmp_path):
    from reports import compute_tables, open_results

    out = report_data.write_dataset(tmp_path / "d", games=300)
    lf, exp = open_results(out)
    t = compute_tables(lf, exp)
    assert drama.columns(lf) == [] and t["drama"].is_empty()  # the template shows the section only with rows


def test_a_relative_output_is_taken_from_the_current_folder(tmp_path, monkeypatch):
    """As for `safari-sim run --output`: the shell's folder, not the experiment file's."""
    elsewhere = tmp_path / "experiments"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)
    raw = json.loads(experiment(elsewhere, games=50).read_text())
    with registered():
        out = sens.run_point(raw, elsewhere, Path("rel") / "p")
    assert out == tmp_path / "rel" / "p" and (out / "experiment.json").exists()
    assert not (elsewhere / "rel").exists()


def test_the_morris_noise_test_holds_its_level_with_shared_and_repeated_steps():
    """Steps that share a rules point are correlated and a step may recur in two trajectories:
    counting them as independent would call noise real far more often than 1 in 20."""
    rng = np.random.default_rng(4)
    reps = 400
    mix = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 1, 1], [0, 1, 1]], float)  # the last three: one pair
    k = len(mix)
    p, naive = [], []
    for _ in range(600):
        noise = rng.standard_normal((3, reps + 1))
        d_all = mix @ noise
        diff, r = d_all[:, 0], d_all[:, 1:]
        p.append(sens.noise_test(diff, r))
        from scipy.stats import chi2
        naive.append(chi2.sf(float((diff ** 2 / r.var(axis=1)).sum()), k))
    p, naive = np.array(p), np.array(naive)
    assert 0.02 <= (p < 0.05).mean() <= 0.08
    assert (naive < 0.05).mean() > 0.08  # about twice the level: what the test guards against
    assert sens.noise_test(np.array([1.0, 0.0]), np.zeros((2, 50))) == 0.0  # deterministic change
    assert sens.noise_test(np.array([0.0]), np.zeros((1, 50))) == 1.0


def test_duplicate_deals_are_the_unit_of_the_paired_bootstrap(tmp_path):
    """Under seating: duplicate the P rotations of a deal share its chance: resampled together."""
    path = experiment(tmp_path, games=600, seating="duplicate")
    with registered():
        res = sens.screen(path, ["bonus"], output=tmp_path / "o")
    edge = res.effects.filter(pl.col("measure") == "edge")
    assert edge["detectable"].all()
    points = tmp_path / "o" / "points"
    deals, cols, _, _ = sens._per_deal(sens_scan(points / "base"), None)
    assert len(deals) == 300 and (cols["g"] == 2).all()
    # the seat-0 wins of one deal's two rotations are one unit: the edge's standard error is that
    # of the per-deal differences
    est = sens.estimates([points / "base", points / "bonus=2"], seed=3)
    d, se = sens._diff(est, "edge", 0, 1)
    a, b = (pl.read_parquet(points / p / "chunks" / "**" / "*.parquet").filter(pl.col("seat") == 0)
            .group_by("deal").agg(pl.col("win").sum()).sort("deal")["win"].to_numpy() for p in ("base", "bonus=2"))
    per_deal = (b - a) / 2
    assert d == pytest.approx(per_deal.mean())
    assert se == pytest.approx(per_deal.std(ddof=1) / np.sqrt(len(per_deal)), rel=0.15)


def sens_scan(folder):
    from safari_sim.stats import scan

    return scan(folder)


def test_a_point_of_another_experiment_is_kept_aside_only_with_replace(tmp_path):
    out = tmp_path / "o"
    assert invoke("sensitivity", experiment(tmp_path, games=100), "--fields", "decoy", "--output", out).exit_code == 0
    changed = experiment(tmp_path, games=100, seed=4)  # the same points, other games
    r = invoke("sensitivity", changed, "--fields", "decoy", "--output", out)
    assert r.exit_code == 2 and "--replace" in r.output
    r = invoke("sensitivity", changed, "--fields", "decoy", "--output", out, "--replace")
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in (out / "points").iterdir())
    assert [n for n in names if ".previous-" not in n] == ["base", "decoy=1", "decoy=3"]
    assert sorted(n.split(".previous-")[0] for n in names if ".previous-" in n) == ["base", "decoy=1", "decoy=3"]
    assert json.loads((out / "points" / "base" / "experiment.json").read_text())["seed"] == 4


def test_a_designers_measure_is_screened_like_the_others(tmp_path):
    """measures: [FILE.py:FUNCTION] in the experiment: its column is a measure of the screening,
    with effects, sentences and a table in the report (here twice the game length, so its
    effects are twice the length's)."""
    (tmp_path / "m.py").write_text("def double_length(game):\n    return 2 * game.turns\n")
    path = experiment(tmp_path, games=600, measures=["m.py:double_length"])
    r = invoke("sensitivity", path, "--fields", "length,decoy", "--output", tmp_path / "out")
    assert r.exit_code == 0, r.output
    html = (tmp_path / "out" / "sensitivity.html").read_text()
    mine, turns = rows(html, "double_length"), rows(html, "turns")
    assert mine and len(mine) == len(turns)
    by = {(t["field"], round(t["effect"], 6)) for t in turns}
    assert {(m["field"], round(m["effect"] / 2, 6)) for m in mine} == by
    assert any(m["detectable"] for m in mine if m["field"].startswith("length"))
    assert "double_length" in " ".join(r.output.split())
    # the sentences print as plain text: brackets in them are not taken for markup and dropped
    sentences = json.loads((tmp_path / "out" / "sensitivity.json").read_text())["sentences"]
    assert all(" ".join(s.split()) in " ".join(r.output.split()) for s in sentences)


def test_a_games_own_measure_is_screened_like_a_designers(tmp_path, monkeypatch):
    """A statistic the game names among its measures (Game.measures) is screened as a designer's
    is: here the game reports twice its length, so its effects are twice the length's."""
    from synthetic_game import CoinRace

    plain = CoinRace.outcome

    def outcome(self, state):
        o = plain(self, state)
        return dataclasses.replace(o, stats={**o.stats, "double_turns": 2.0 * o.turns})

    monkeypatch.setattr(CoinRace, "outcome", outcome)
    monkeypatch.setattr(CoinRace, "measures", ("double_turns",), raising=False)
    path = experiment(tmp_path, games=600)
    r = invoke("sensitivity", path, "--fields", "length,decoy", "--output", tmp_path / "out")
    assert r.exit_code == 0, r.output
    html = (tmp_path / "out" / "sensitivity.html").read_text()
    own, turns = rows(html, "double_turns"), rows(html, "turns")
    assert own and len(own) == len(turns)
    by = {(t["field"], round(t["effect"], 6)) for t in turns}
    assert {(m["field"], round(m["effect"] / 2, 6)) for m in own} == by
    assert "double_turns" in " ".join(r.output.split())


def test_format_both_is_html_and_pdf(tmp_path):
    """`--format both`, as the help of sensitivity and skill offers it, writes both (it was
    refused by sensitivity and written by skill as a file named '.both')."""
    from safari_sim.cli import _formats

    assert _formats("both") == ["html", "pdf"] and _formats("html,pdf") == ["html", "pdf"]
    assert _formats("pdf") == ["pdf"]
    r = invoke("sensitivity", experiment(tmp_path, games=100), "--fields", "decoy", "--output",
               tmp_path / "o", "--format", "both")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o" / "sensitivity.html").is_file() and (tmp_path / "o" / "sensitivity.pdf").is_file()
    r = invoke("skill", "coin_race_test", "--format", "htm", "--output", tmp_path / "s")
    assert r.exit_code == 2 and "expected html, pdf or both" in r.output


def _crafted_screening(tmp: Path, widths: list[float]):
    """A screening of made-up effects on the first seat's edge, one field a row, each whisker
    ``width`` wide (a share) and reaching far both ways."""
    rows = []
    for i, w in enumerate(widths):
        for direction, value, eff in (("down", 1, -0.01 * (i + 1)), ("up", 3, 0.012 * (i + 1))):
            rows.append({"field": f"field_{i}", "direction": direction, "base": "2", "value": str(value),
                         "measure": "edge", "at_base": 0.02, "at_value": 0.02 + eff, "effect": eff,
                         "se": w / 4, "lo": eff - w / 2, "hi": eff + w / 2, "teams": "players",
                         "other_pairs": False, "p_value": 0.5, "p_holm": 1.0, "detectable": False})
    effects = pl.DataFrame(rows)
    return sens.Screening("crafted", "coin_race_test", "Coin race", 2, 100, "oat", [], effects, [], [],
                          tmp, "points", 2 * len(widths) + 1)


def test_the_tornado_legend_covers_no_whisker(tmp_path):
    """The legend stood inside the axes (lower right), over the whiskers of the bottom rows."""
    from reports.sensitivity import tornado_figure

    res = _crafted_screening(tmp_path, [0.16] * 6)  # every whisker spans most of the axis
    fig = tornado_figure(res.effects, "edge", "points")
    fig.canvas.draw()
    ax = fig.axes[0]
    box = ax.get_legend().get_window_extent()
    for coll in ax.collections:  # the whiskers (errorbar line collections)
        for seg in coll.get_segments():
            (x0, y0), (x1, y1) = ax.transData.transform(seg)
            crosses = (min(x0, x1) <= box.x1 and max(x0, x1) >= box.x0
                       and min(y0, y1) <= box.y1 and max(y0, y1) >= box.y0)
            assert not crosses, (seg, box)
    assert not box.overlaps(ax.get_window_extent()), "the legend sits outside the axes"
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_a_column_of_the_effects_table_has_one_number_of_decimals(tmp_path):
    """Decimals were chosen per row: a row whose interval is 0.045 points wide printed 0.453, the
    next row's (4.5 points wide) 0.45, in the same column. Now the column takes the decimals of
    its narrowest interval."""
    from reports.sensitivity import build_sensitivity_report

    res = _crafted_screening(tmp_path, [0.045, 0.00045, 0.08])  # 4.5, 0.045 and 8 percentage points
    html = build_sensitivity_report(res)[0].read_text()
    cells = re.findall(r'data-measure="edge"[^>]*>(?:<td>[^<]*</td>){3}'
                       r'<td class="num">([^<]+)</td><td class="num">([^<]+)</td><td class="num">([^<]+)</td>'
                       r'<td class="num pm">([^<]+) to ([^<]+)</td>', html)
    assert len(cells) == 6
    for column in zip(*cells):
        places = {len(c.split(".")[1]) if "." in c else 0 for c in column}
        assert places == {3}, column  # the 0.045-point interval needs three

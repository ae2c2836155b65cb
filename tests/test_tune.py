"""The tuner (rules and knobs): the search finds a known optimum, the tune file's errors are clear, a tiny
real tune runs and resumes through the CLI, and the dominant-strategy verdict is honest."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import optuna
import polars as pl
import pytest
from typer.testing import CliRunner

from report_data import frame
from safari_sim.cli import app
from safari_sim.stats import words
from safari_sim.tune.objectives import Measure, Measurer, Objective
from safari_sim.tune.search import NoisePruner, candidates, games_used, open_study, search
from safari_sim.tune.space import Param, declared_text, from_declared
from safari_sim.tune.verdict import dominant_verdict

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "experiments" / "duck_duck_bruce-3p.yaml"


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


# ---- the search, on a synthetic objective of known optimum --------------------------------

def noisy(f, sigma=0.3):
    """An evaluation: f(values) plus noise of sd sigma / sqrt(games), the same for the same
    trial and rung (as games are), with its standard error."""
    def evaluate(number, values, games):
        rng = np.random.default_rng([number, games])
        se = sigma / math.sqrt(games)
        out = {}
        for name, v in f(values).items():
            x = v + rng.normal(0, se)
            out[name] = Measure(x, x - 1.96 * se, x + 1.96 * se, se, games)
        return out
    return evaluate


SPACE = [Param("rules.x", "float", 0.0, 1.0), Param("rules.kind", "choice", choices=("a", "b", "c"))]


def bowl(v):
    return {"loss": (v["rules.x"] - 0.3) ** 2 + (0.0 if v["rules.kind"] == "b" else 0.2)}


def test_search_finds_a_known_optimum_and_prunes_the_hopeless():
    objectives = [Objective("loss", "column", "minimize", column="loss")]
    study = open_study(None, "bowl", objectives, seed=3)
    ran = search(study, SPACE, objectives, noisy(bowl), rungs=[100, 1600], budget=1600 * 30)
    assert ran == len(study.trials) and games_used(study) >= 1600 * 30
    best = candidates(study, objectives, 3)
    assert best[0].params["rules.kind"] == "b"
    assert abs(best[0].params["rules.x"] - 0.3) < 0.08
    states = [t.state.name for t in study.trials]
    assert "PRUNED" in states  # hopeless ones stopped at the first rung...
    pruned = [t for t in study.trials if t.state.name == "PRUNED"]
    assert all(t.user_attrs["games"] == 100 for t in pruned)
    # ...and only clearly worse ones: each pruned trial's true loss is above the optimum's 0
    assert all(bowl(t.params)["loss"] > 0.02 for t in pruned)
    # candidates are distinct and in order of their values
    vals = [t.value for t in best]
    assert vals == sorted(vals) and len({tuple(sorted(t.params.items())) for t in best}) == len(best)


def test_pareto_front_of_two_objectives():
    objectives = [Objective("near_left", "column", "minimize", column="a"),
                  Objective("near_right", "column", "minimize", column="b")]

    def f(v):
        pen = 0.0 if v["rules.kind"] == "a" else 0.5
        return {"near_left": (v["rules.x"] - 0.2) ** 2 + pen, "near_right": (v["rules.x"] - 0.8) ** 2 + pen}

    study = open_study(None, "front", objectives, seed=1)
    search(study, SPACE, objectives, noisy(f, 0.05), rungs=[100, 400], budget=400 * 30)
    front = candidates(study, objectives, 5)
    assert front and all(t.params["rules.kind"] == "a" for t in front)
    assert all(0.1 < t.params["rules.x"] < 0.9 for t in front)
    # the best on each objective comes first
    assert front[0].values[0] == min(t.values[0] for t in front)


def test_a_small_budget_still_covers_the_range():
    # the first trials are a space-filling (scrambled Sobol) design, not TPE's random start:
    # five trials over [0, 1] reach both ends (random points miss an end in 44% of searches)
    objectives = [Objective("loss", "column", "minimize", column="loss")]
    space = [Param("rules.x", "float", 0.0, 1.0)]

    def xs(seed, budget=500, over=space):
        study = open_study(None, "small", objectives, seed=seed)
        search(study, over, objectives, noisy(lambda v: {"loss": (v["rules.x"] - 0.5) ** 2}),
               rungs=[100], budget=budget)
        return [t.params["rules.x"] for t in study.trials], study

    for seed in range(10):
        x, _ = xs(seed)
        assert len(x) == 5 and min(x) < 0.25 and max(x) > 0.75, (seed, x)
    assert xs(3)[0] == xs(3)[0]  # reproducible for a seed
    # eight trials of two keys: each quarter of x holds two, every choice is tried
    x, study = xs(1, budget=800, over=SPACE)
    assert sorted(int(v * 4) for v in x) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert {t.params["rules.kind"] for t in study.trials} == {"a", "b", "c"}


def test_noise_pruner_prunes_only_beyond_noise():
    objectives = [Objective("loss", "column", "minimize", column="loss")]
    study = open_study(None, "p", objectives)
    for v in (1.0, 1.2):
        study.add_trial(optuna.trial.create_trial(value=v, user_attrs={"se": 0.05}))

    def at(value, se):
        t = optuna.trial.create_trial(state=optuna.trial.TrialState.RUNNING,
                                      intermediate_values={100: value}, user_attrs={"step100.se": se})
        return t

    pruner = NoisePruner()
    assert pruner.prune(study, at(1.5, 0.1))        # 1.5 - 0.2 > 1.0 + 0.1: hopeless
    assert not pruner.prune(study, at(1.25, 0.1))   # intervals overlap: go on
    assert not pruner.prune(study, at(3.0, 1.0))    # bad but very noisy: go on


# ---- the search space and the objectives' measures -----------------------------------------

def test_declared_search_values():
    assert declared_text(range(20, 121, 5)) == "20 to 120 step 5"
    assert declared_text((0.5, 2.0)) == "0.5 to 2"
    assert declared_text(("between", "row")) == "one of between, row"
    p = from_declared("rules.t", range(20, 121, 5))
    assert (p.kind, p.low, p.high, p.step) == ("int", 20, 120, 5) and p.corners() == [20, 120]
    assert from_declared("rules.f", (0.5, 2.0)).kind == "float"
    assert from_declared("rules.c", ("between", "row")).choices == ("between", "row")


def test_choices_that_are_lists_travel_through_optuna():
    faces = ((-1, 1, 1, 2, 3, 3), (1, 1, 2, 2, 3, 3))
    p = from_declared("rules.die_faces", faces)
    study = optuna.create_study()
    trial = study.ask()
    v = p.suggest(trial)
    assert v in faces and isinstance(trial.params["rules.die_faces"], str)
    assert p.decode(trial.params["rules.die_faces"]) == v


def test_rules_command_shows_the_search_column():
    r = cli("rules", "duck_duck_bruce")
    assert r.exit_code == 0 and "search" in r.output


def test_objectives_measure_a_known_dataset():
    # strengths (2, 1, 1): the first strategy wins exactly 50%; seat factors (1.2, 1, 1): the
    # first seat 37.5%, an edge of 37.5% - 33.3% = 4.2 points
    df = frame(players=3, games=20000, strategies=["a", "b", "c"], strengths=[2, 1, 1],
               seat_factors=[1.2, 1, 1], rng=5)
    m = Measurer(df.lazy())
    edge = m.measure(Objective("e", "seat_edge", "minimize"))
    assert edge.lo < 0.375 - 1 / 3 < edge.hi and edge.lo > 0
    win = m.measure(Objective("w", "win_rate", "maximize", strategy="a"))
    assert win.lo < 0.5 < win.hi
    spread = m.measure(Objective("s", "spread", "minimize"))
    assert spread.lo > 0.1  # 50% against 25%
    turns = df.filter(pl.col("seat") == 0)["turns"].mean()  # turns are 20..59, mean 39.5
    band = m.measure(Objective("l", "length", "minimize", band=(45.0, 60.0), column="turns"))
    assert band.value == pytest.approx(45 - turns) and band.lo < 45 - 39.5 < band.hi
    inside = m.measure(Objective("l", "length", "minimize", band=(30.0, 50.0), column="turns"))
    assert inside.value == 0 and inside.lo == 0


# ---- the dominant-strategy verdict -----------------------------------------------------------

def test_verdict_says_no_when_the_best_response_is_the_field_itself():
    # the best response plays exactly as the field does: all strengths equal
    tuned = [({"strategies.br.params.k": k}, frame(players=3, games=6000, strategies=["br", "f1", "f2"],
                                                   rng=10 + k).lazy()) for k in range(3)]
    v = dominant_verdict("br", tuned, frame(players=3, games=6000, strategies=["br", "f1", "f2"], rng=99).lazy())
    assert v["answer"] == "no" and not v["dominant"]
    assert v["sentence"].startswith("No:") and "within noise" in v["sentence"]
    assert all(c["p_holm"] >= 0.05 for c in v["candidates"])


def test_verdict_says_yes_when_the_best_response_beats_the_field():
    tuned = [({"strategies.br.params.k": 1}, frame(players=3, games=6000, strategies=["br", "f1", "f2"],
                                                  strengths=[1.5, 1, 1], rng=3).lazy())]
    v = dominant_verdict("br", tuned)
    assert v["answer"] == "yes" and "k=1" in v["sentence"]
    assert v["best"]["lo"] > 1 / 3


def test_verdict_says_below_fair_when_even_the_best_response_loses():
    # the designer's case: the best response found wins 21.3% against a fair 33.3% (strength
    # 0.54 against 1, 1: 0.54 / 2.54 = 21.3%). The one-sided test of dominance has p near 1; the
    # sentence must not call that "within noise of its fair share": it is far below it
    tuned = [({"strategies.br.params.k": k}, frame(players=3, games=6000, strategies=["br", "f1", "f2"],
                                                   strengths=[0.54 - 0.02 * k, 1, 1], rng=20 + k).lazy())
             for k in range(3)]
    default = frame(players=3, games=6000, strategies=["br", "f1", "f2"], strengths=[0.5, 1, 1], rng=30).lazy()
    v = dominant_verdict("br", tuned, default)
    best = v["best"]
    assert v["answer"] == "no" and best["values"] == {"strategies.br.params.k": 0}
    assert 0.20 < best["rate"] < 0.227 and best["hi"] < 1 / 3
    s = v["sentence"]
    assert "within noise" not in s.split(". ")[0] and "p = 1.000" not in s, s
    assert s.startswith("No: even the best response found, br with k=0, wins 21.")
    # its interval, and the distance from fair in points with its interval, match the numbers
    gap = f"{words.points(1 / 3 - best['rate'])} percentage points"
    assert (f"({words.interval(best['lo'], best['hi'])}) against the field, whose fair share is 33.3%: "
            f"below its fair share beyond noise, by {gap} ({words.signed_points(best['lo'] - 1 / 3)} to "
            f"{words.signed_points(best['hi'] - 1 / 3)}; two-sided p = ") in s
    assert "clustered by deal" in s and best["p_fair"] < 1e-6


@pytest.mark.parametrize("n", [40, pytest.param(1000, marks=pytest.mark.slow)])
def test_verdict_below_fair_holds_its_level(n):
    # a best response exactly at its fair share: "below its fair share beyond noise" is said in
    # at most 2.5% of studies (the lower tail of the two-sided 5% test), and "yes" in at most 5%
    below = yes = 0
    for i in range(n):
        lf = frame(players=3, games=300, strategies=["br", "f1", "f2"], rng=1000 + i).lazy()
        v = dominant_verdict("br", [({"strategies.br.params.k": 1}, lf)])
        below += "below its fair share beyond noise" in v["sentence"]
        yes += v["dominant"]
    assert below / n <= 0.025 + 3 * math.sqrt(0.025 * 0.975 / n)
    assert yes / n <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n)


def test_verdict_above_fair_but_not_beyond_noise_says_so():
    tuned = [({"strategies.br.params.k": 1}, frame(players=3, games=900, strategies=["br", "f1", "f2"],
                                                  strengths=[1.04, 1, 1], rng=40).lazy())]
    v = dominant_verdict("br", tuned)
    assert v["best"]["rate"] > 1 / 3 and v["best"]["p_holm"] >= 0.05  # this draw: above, within noise
    assert v["answer"] == "no" and ": above its fair share by " in v["sentence"]
    assert "but not beyond noise (one-sided p = " in v["sentence"]


def test_the_search_is_a_candidate_best_response_where_it_is_the_stronger_player():
    """Where the game's SEARCH_AHEAD holds at the tune's player count, the tuned seat played by
    the search is one more candidate: named in the sentence when it is the best, else its rate
    is given after the verdict."""
    from types import SimpleNamespace

    from safari_sim.tune.runner import search_seat
    from safari_sim.tune.verdict import SEARCHED

    def tune(game, players):
        raw = {"game": game, "players": players, "strategies": [
            {"name": "br", "use": "x", "params": {"k": 1}}, {"name": "f", "use": "y"}]}
        return SimpleNamespace(experiment=SimpleNamespace(game=SimpleNamespace(id=game)),
                               players=players, experiment_raw=raw)

    t = tune("hi_lo_hijinks", 3)
    raw = search_seat(t, "br")
    assert raw["strategies"][0] == {"name": "br", "use": "search", "params": {}}
    assert raw["strategies"][1] == {"name": "f", "use": "y"} and t.experiment_raw["strategies"][0]["use"] == "x"
    assert search_seat(tune("hi_lo_hijinks", 4), "br") is None   # measured at 3 players only
    assert search_seat(tune("animal_hunt", 3), "br") is None     # the search is not ahead there
    assert search_seat(tune("hi_lo_hijinks", 3), "nobody") is None

    tuned = [({"strategies.br.params.k": 1}, frame(players=3, games=6000, strategies=["br", "f1", "f2"],
                                                  rng=50).lazy())]
    strong = frame(players=3, games=6000, strategies=["br", "f1", "f2"], strengths=[1.5, 1, 1], rng=51).lazy()
    v = dominant_verdict("br", tuned, search=strong)
    assert v["answer"] == "yes" and v["best"]["search"] and v["best"]["knobs"] == SEARCHED
    assert v["sentence"].startswith(f"Yes: br's seat {SEARCHED} wins ")
    assert [c["search"] for c in v["candidates"]] == [False, True]
    level = frame(players=3, games=6000, strategies=["br", "f1", "f2"], strengths=[0.8, 1, 1], rng=52).lazy()
    v = dominant_verdict("br", tuned, search=level)
    assert not v["best"]["search"] and "br with k=1 wins " in v["sentence"]
    assert f" The same seat {SEARCHED} wins " in v["sentence"]
    assert "search" not in dominant_verdict("br", tuned)["sentence"]


# ---- the words: knob tuning and rules tuning, numbers as their interval allows ---------------

def test_numbers_have_the_decimals_their_interval_allows():
    from safari_sim.tune.text import difference_text, measure, number, plus_minus

    assert plus_minus(0.19721, 0.018 / 1.96) == "0.197 (± 0.018)"   # not "0.1972 (± 0.018)"
    assert plus_minus(53.0, 0.04 / 1.96) == "53.00 (± 0.04)"
    assert plus_minus(97.43, 2.4 / 1.96) == "97.4 (± 2.4)"
    assert plus_minus(0.2134, 0.01 / 1.96, share=True) == "21.3% (± 1.0 percentage points)"
    assert measure({"value": 0.19721, "lo": 0.17921, "hi": 0.21521}) == "0.197 (0.179 to 0.215)"
    assert measure({"value": 0.3334, "lo": 0.33323, "hi": 0.33356}, share=True) == "33.340% (33.323% to 33.356%)"
    assert number(52.9612, 0.5) == "53.0"
    assert difference_text({"value": 0.014, "lo": 0.001, "hi": 0.028}, True) == \
        "+1.4 percentage points (+0.1 to +2.8)"


WIN_RATE = {"name": "win_rate", "kind": "win_rate", "direction": "maximize", "text": "counter's win rate",
            "noun": "counter's win rate", "share": True}


def _record(keys, values, default, measure_best, measure_default, verdicts=(), o=WIN_RATE, search=0.51234):
    n = o["name"]
    runs = [{"label": "x", "trial": None, "values": default, "folder": "confirm/a", "games": 30000, "seed": 1,
             "measures": {n: measure_default}, "search": {}},
            {"label": "trial 4", "trial": 4, "values": values, "folder": "confirm/b", "games": 30000, "seed": 1,
             "measures": {n: measure_best}, "search": {n: {"value": search, "se": 0.0061}}}]
    return {"name": "t", "game_name": "Duck Duck Bruce", "players": 3, "fingerprint": "f",
            "params": [{"key": k, "kind": "float", "range": "0 to 1", "source": "knob bounds"} for k in keys],
            "objectives": [o], "budget": 1000, "rungs": [100], "confirm": {"top": 1, "games": 30000},
            "pruner": "noise", "sampler": "tpe", "trials": 5, "games_used": 1000,
            "results": {"confirm_seed": 1, "runs": runs, "verdicts": list(verdicts), "best": runs[1]}}


def test_a_knob_study_is_worded_as_one(tmp_path):
    from reports.tune import build_tune_report
    from safari_sim.tune.runner import storage_url
    from safari_sim.tune.text import cli_summary, headline

    key = "strategies.counter.params.risk"
    best = {"value": 0.512, "lo": 0.506, "hi": 0.518, "se": 0.003}
    default = {"value": 0.492, "lo": 0.486, "hi": 0.498, "se": 0.003}
    tuned = [({key: 0.35}, frame(players=3, games=3000, strategies=["counter", "f1", "f2"], rng=2).lazy())]
    rec = _record([key], {key: 0.35}, {key: 0.5}, best, default, [dominant_verdict("counter", tuned)])
    head = headline(rec)[0]
    assert head.startswith("Best value of counter.risk: 0.35, where counter's win rate is 51.2% (50.6% to "
                           "51.8%), against the default 0.5, where it is 49.2% (48.6% to 49.8%): by +2.0 "
                           "percentage points (+1.2 to +2.8), better than the default beyond noise.")
    assert "printed" not in " ".join(cli_summary(rec))
    assert cli_summary(rec)[0].startswith("default: 0.5: win_rate 49.2% (48.6% to 49.8%) at 30,000 games")
    # several objectives: each candidate of the front against the default, in the same words
    multi = json.loads(json.dumps(rec))
    multi["objectives"].append({**WIN_RATE, "name": "w2"})
    for r in multi["results"]["runs"]:
        r["measures"]["w2"] = dict(default)
    lines = headline(multi)
    assert lines[0].startswith("1 candidate from the Pareto front of ") and "and the default (0.5) too" in lines[0]
    assert lines[1] == ("0.35: win_rate 51.2% (50.6% to 51.8%), better than the default beyond noise: +2.0 "
                        "percentage points (+1.2 to +2.8); w2 49.2% (48.6% to 49.8%), within noise of the "
                        "default: 0.0 percentage points (−0.8 to +0.8).")
    # the page: titled as knob tuning, numbers with their interval's decimals
    (tmp_path / "tune.json").write_text(json.dumps(rec))
    optuna.create_study(storage=storage_url(tmp_path), study_name="t")
    html = build_tune_report(tmp_path, ["html"])[0].read_text()
    assert "Duck Duck Bruce knob tuning</title>" in html and "rules tuner" not in html
    assert "printed" not in html.split('id="landscape"')[0]
    assert "Best value of counter.risk: 0.35" in html
    assert ">51.2%<" in html and ">51.23%<" not in html  # the search's value at its interval's decimals
    # a rules study: the baseline is the printed rule
    rules = _record(["rules.target_score"], {"rules.target_score": 36}, {"rules.target_score": 77}, best, default)
    assert headline(rules)[0].startswith("Best value of target_score: 36, where ")
    assert "against the printed 77, where it is " in headline(rules)[0]
    assert "better than the printed rules beyond noise" in headline(rules)[0]
    from safari_sim.tune.text import title

    assert title(["rules.target_score"]) == "rules tuning" and title([key]) == "knob tuning"
    assert title(["rules.target_score", key]) == "rules and knob tuning"
    # a measure that is not a share, on the page: "0.197" (its interval's decimals), not "0.1972"
    lead = {"name": "lead_changes", "kind": "column", "direction": "maximize", "text": "mean lead_changes",
            "noun": "mean lead_changes", "share": False}
    rec = _record(["rules.target_score"], {"rules.target_score": 36}, {"rules.target_score": 77},
                  {"value": 0.19721, "lo": 0.17921, "hi": 0.21521, "se": 0.0092},
                  {"value": 0.15012, "lo": 0.13212, "hi": 0.16812, "se": 0.0092}, o=lead, search=0.20113)
    (tmp_path / "tune.json").write_text(json.dumps(rec))
    html = build_tune_report(tmp_path, ["html"])[0].read_text()
    assert ">0.197<" in html and ">0.179 – 0.215<" in html and ">0.201<" in html and "0.1972" not in html
    assert "rules tuning</title>" in html


def test_the_trial_line_has_the_decimals_its_interval_allows():
    from types import SimpleNamespace

    from safari_sim.tune.runner import _trial_line

    t = optuna.trial.create_trial(params={"rules.x": 0.5}, distributions={"rules.x": optuna.distributions.
                                  FloatDistribution(0, 1)}, value=0.19721,
                                  user_attrs={"games": 600, "lf": 0.19721, "lf.se": 0.018 / 1.96})
    tune = SimpleNamespace(objectives=[Objective("lf", "column", "maximize", column="lead_from")])
    assert _trial_line(t, tune).endswith(": x=0.5: lf 0.197 (± 0.018) at 600 games (done)")


# ---- the tune file's errors ----------------------------------------------------------------

GOOD = {
    "experiment": str(EXPERIMENT),
    "search": {"rules.target_score": {"low": 20, "high": 90}},
    "objectives": [{"kind": "seat_edge"}],
    "budget": 600, "rungs": [60, 150], "confirm": {"top": 1, "games": 300},
}


def _write(tmp_path: Path, changes: dict, drop: tuple = ()) -> Path:
    import yaml

    d = {**GOOD, **changes}
    for k in drop:
        d.pop(k)
    d["output"] = str(tmp_path / "out")
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(d))
    return p


@pytest.mark.parametrize("changes, drop, says", [
    ({"objectivs": []}, (), "objectivs: unknown key; did you mean 'objectives'?"),
    ({}, ("budget",), "budget: required key is missing"),
    ({"search": {"rules.target_scor": None}}, (), "search.rules.target_scor: no such rules field in "
                                                  "duck_duck_bruce; did you mean 'rules.target_score'?"),
    ({"search": {"rules.target_score": {"low": 0, "high": 50}}}, (),
     "search.rules.target_score: the value 0 cannot be played: rules.target_score: must be at least 1"),
    ({"search": {"rules.target_score": {"low": 50, "high": 20}}}, (), "search.rules.target_score: low (50)"),
    ({"search": {"rules.target_score": {"low": 20.5, "high": 50}}}, (), "search.rules.target_score.low: "
                                                                        "the value is a whole number"),
    ({"search": {"strategies.counterr.params.risk": None}}, (), "no strategy named 'counterr' in the "
                                                                "experiment; did you mean 'counter'?"),
    ({"search": {"strategies.counter.params.rsk": None}}, (), "'counter' has no parameter 'rsk'; did you "
                                                              "mean 'risk'?"),
    ({"search": {"strategies.cautious.params.cards": None}}, (), "search.strategies.cautious.params.cards: "
                                                                "the knob has no upper and lower bound"),
    ({"objectives": [{"kind": "column", "column": "lead_chnges", "direction": "maximize"}]}, (),
     "objectives[0].column: the dataset has no column 'lead_chnges'"),
    ({"objectives": [{"kind": "column", "column": "turns"}]}, (), "objectives[0].direction: minimize or "
                                                                  "maximize"),
    ({"objectives": [{"kind": "win_rate"}]}, (), "objectives[0].strategy: required key is missing"),
    ({"objectives": [{"kind": "win_rate", "strategy": "conter"}]}, (), "objectives[0].strategy: no "
                                                                       "strategy named 'conter'"),
    ({"objectives": [{"kind": "length", "band": [80, 40]}]}, (), "objectives[0].band: give [low, high]"),
    ({"objectives": [{"kind": "seat_edge"}, {"kind": "seat_edge"}]}, (), "two objectives are named 'seat_edge'"),
    ({"rungs": [150, 60]}, (), "rungs: "),
    ({"budget": 10}, (), "budget: 10 games cannot pay for one trial of 60"),
    ({"rungs": [60, 151]}, (), ""),  # fine under rotation (no error expected): checked below
    ({"experiment": str(ROOT / "experiments" / "quickstart.yaml")}, (), "has a sweep: but the tuner chooses"),
    ({"experiment": "nowhere.yaml"}, (), "experiment: "),
    ({"overrides": {"players": 9}}, (), "overrides: players: duck_duck_bruce is for 2 to 6 players, not 9"),
])
def test_tune_file_errors_are_clear(tmp_path, changes, drop, says):
    path = _write(tmp_path, changes, drop)
    from safari_sim.tune.config import TuneError, load_tune

    if not says:
        load_tune(path)  # valid
        return
    with pytest.raises(TuneError) as e:
        load_tune(path)
    assert says in str(e.value), str(e.value)
    r = cli("tune", path)
    assert r.exit_code == 2 and "error:" in r.output
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_a_field_without_declared_values_needs_them_in_the_file(tmp_path):
    import dataclasses

    from safari_sim.engine.protocol import search_space
    from safari_sim.games import get_game
    from safari_sim.tune.config import TuneError, load_tune

    rules = get_game("duck_duck_bruce").Rules
    bare = [f.name for f in dataclasses.fields(rules) if f.name not in search_space(rules)]
    if not bare:
        pytest.skip("every field declares its search values")
    path = _write(tmp_path, {"search": {f"rules.{bare[0]}": None}})
    with pytest.raises(TuneError, match=rf"search.rules.{bare[0]}: the field declares no search values"):
        load_tune(path, probe=False)


def test_duplicate_rungs_must_be_whole_deals(tmp_path):
    from safari_sim.tune.config import TuneError, load_tune

    path = _write(tmp_path, {"overrides": {"seating": "duplicate"}, "rungs": [60, 100]})
    with pytest.raises(TuneError, match=r"rungs\[1\]: under seating: duplicate .* multiple of 3"):
        load_tune(path)


# ---- a tiny real tune, end to end, and its resumption ---------------------------------------

def test_tiny_real_tune_runs_and_resumes(tmp_path):
    path = _write(tmp_path, {
        "search": {"rules.target_score": {"low": 20, "high": 90},
                   "strategies.counter.params.risk": None},        # the knob's own bounds 0..1
        "objectives": [{"kind": "seat_edge"}, {"kind": "win_rate", "strategy": "counter"}],
        "budget": 450, "report": ["html"], "overrides": {"parallel": {"jobs": 1}}})
    out = tmp_path / "out"
    r = cli("tune", path, "--quiet")
    assert r.exit_code == 0, r.output
    rec = json.loads((out / "tune.json").read_text())
    assert rec["games_used"] >= 450 and rec["trials"] == 3
    runs = rec["results"]["runs"]
    assert runs[0]["label"] == "printed rules, default knobs" and runs[0]["values"]["rules.target_score"] == 77
    for run in runs:  # every confirmation is a normal dataset, with each objective's interval
        from safari_sim import stats

        lf = stats.scan(out / run["folder"])
        assert stats.variants(lf)["games"][0] == 300
        for m in run["measures"].values():
            assert m["lo"] <= m["value"] <= m["hi"]
    v = rec["results"]["verdicts"][0]
    assert v["strategy"] == "counter" and v["answer"] in ("yes", "no")
    html = (out / "report.html").read_text()
    assert "Is there a dominant strategy?" in html and "data:image/svg+xml" in html
    hist = pl.read_csv(out / "history.csv")
    assert hist.height == 3 and {"rules.target_score", "strategies.counter.params.risk",
                                 "rung0.seat_edge"} <= set(hist.columns)
    chunks = {p: p.stat().st_mtime_ns for p in (out / "trials").glob("*/chunks/*/*.parquet")}
    assert len(chunks) >= 3
    # again with a larger budget: the three finished trials stay, new ones follow
    r = cli("tune", path, "--budget", 750, "--no-report")
    assert r.exit_code == 0, r.output
    assert "resuming: 3 trial(s), 450 of the 750 games already played" in r.output
    hist2 = pl.read_csv(out / "history.csv")
    assert hist2.height >= 5 and hist2.head(3).select("number", "started").equals(hist.select("number", "started"))
    for p, mtime in chunks.items():  # their games were not played again
        assert p.stat().st_mtime_ns == mtime
    # and once more with the same budget: nothing left to search
    r = cli("tune", path, "--budget", 750, "--quiet", "--no-report")
    assert r.exit_code == 0 and pl.read_csv(out / "history.csv").height == hist2.height


# ---- resumption after a stop mid-trial, declared search values, any column ------------------

def test_a_trial_left_running_is_asked_again():
    from safari_sim.tune.search import recover

    objectives = [Objective("loss", "column", "minimize", column="loss")]
    study = open_study(None, "r", objectives, seed=2)
    search(study, SPACE, objectives, noisy(bowl), rungs=[100], budget=300)
    stopped = study.ask()  # a search killed here leaves this trial running
    values = {p.key: p.suggest(stopped) for p in SPACE}
    assert recover(study) == [stopped.number]
    assert study.trials[stopped.number].state.name == "FAIL"
    search(study, SPACE, objectives, noisy(bowl), rungs=[100], budget=400)
    again = study.trials[stopped.number + 1]
    assert again.params == values and again.state.name == "COMPLETE"  # the same candidate, first
    assert again.user_attrs["again"] == stopped.number and len(study.trials) == stopped.number + 2


def test_declared_search_values_feed_a_tune_file(tmp_path):
    import dataclasses

    import yaml

    from safari_sim.engine.protocol import search_space
    from safari_sim.games import all_games
    from safari_sim.tune.config import load_tune

    games = [g for g in all_games().values() if search_space(g.Rules)]
    if not games:
        pytest.skip("no game declares search values yet")
    g = games[0]
    field, declared = next(iter(search_space(g.Rules).items()))
    exp = ROOT / "experiments" / f"{g.id}-{max(g.min_players, 3)}p.yaml"
    if not exp.exists():
        exp = next((ROOT / "experiments").glob(f"{g.id}-*p.yaml"))
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump({"experiment": str(exp), "overrides": {"sweep": None},
                                 "search": {f"rules.{field}": None},
                                 "objectives": [{"kind": "seat_edge"}], "budget": 1000,
                                 "rungs": [yaml.safe_load(exp.read_text())["players"] * 20],
                                 "output": str(tmp_path / "o")}))
    t = load_tune(p, probe=False)
    assert t.params[0].source == "declared"
    assert set(map(repr, t.params[0].corners())) <= set(map(repr, (
        list(declared) if not isinstance(declared, range) else [declared[0], declared[-1]])))
    # and `safari-sim rules` shows them beside the field
    r = cli("rules", g.id)
    assert r.exit_code == 0
    row = next(line for line in r.output.splitlines() if line.startswith(f"│ {field} "))
    assert declared_text(declared).split()[0] in row
    del dataclasses


def test_column_objectives_skip_nan_and_weighted_sums_combine():
    df = frame(players=2, games=4000, strategies=["a", "b"], rng=8)
    # a per-game drama-like column: NaN in tied games (here every 4th game)
    g = df["game"].to_numpy()
    df = df.with_columns(pl.Series("lead_from", np.where(g % 4 == 0, np.nan, (g % 10) / 10.0)))
    m = Measurer(df.lazy())
    lead = m.measure(Objective("lf", "column", "maximize", column="lead_from"))
    games = df.filter(pl.col("seat") == 0)["lead_from"].to_numpy()
    assert lead.value == pytest.approx(np.nanmean(games)) and lead.lo < lead.value < lead.hi
    terms = (Objective("e", "seat_edge", "minimize", weight=2.0),
             Objective("lf", "column", "maximize", column="lead_from", weight=0.5))
    w = m.measure(Objective("w", "weighted", "minimize", terms=terms))
    e = m.measure(terms[0])
    assert w.value == pytest.approx(2.0 * e.value - 0.5 * lead.value)
    assert w.se == pytest.approx(math.hypot(2.0 * e.se, 0.5 * lead.se))


def test_a_designers_measure_is_an_objective(tmp_path):
    """A column of the experiment's own measures (measures: [FILE.py:FUNCTION]) is a column the
    tuner accepts and maximises; a misspelled one is refused with the measure among the columns."""
    from safari_sim.tune.config import TuneError, load_tune

    (tmp_path / "m.py").write_text("def long_game(game):\n    return game.turns\n")
    (tmp_path / "exp.yaml").write_text(
        "game: duck_duck_bruce\nplayers: 3\ngames: 300\nseed: 2\nrules: {rounds: 1}\n"
        "strategies: [{name: a, use: stop_at}, {name: b, use: card_counter}]\n"
        "measures: [m.py:long_game]\nparallel: {jobs: 1, batch: 300}\n"
        "sweep: {}\n".replace("players: 3", "players: 2"))
    text = ("name: t\nexperiment: exp.yaml\nsearch:\n  rules.bruce_cards:\nobjectives:\n"
            "  - {kind: column, column: COL, direction: maximize}\nbudget: 600\nrungs: [300]\n"
            "confirm: {top: 1, games: 300}\noutput: out\n")
    (tmp_path / "t.yaml").write_text(text.replace("COL", "long_game"))
    t = load_tune(tmp_path / "t.yaml")
    assert t.objectives[0].column == "long_game"
    (tmp_path / "t2.yaml").write_text(text.replace("COL", "long_gam"))
    with pytest.raises(TuneError, match="did you mean 'long_game'"):
        load_tune(tmp_path / "t2.yaml")


def test_the_size_of_an_edge_is_in_percentage_points_like_its_difference(tmp_path):
    """The size of the first seat's edge is a difference of two shares: it read "1.6% (0.0% to
    3.1%)" beside "by −0.1 percentage points"; now both are percentage points (the page's table and
    the trial line too), and an interval's end that rounds to zero has no sign ("−0.0")."""
    from types import SimpleNamespace

    from reports.tune import build_tune_report
    from safari_sim.tune.runner import _trial_line, storage_url
    from safari_sim.tune.text import cli_summary, headline

    edge = {"name": "seat_edge", "kind": "seat_edge", "direction": "minimize",
            "text": "the first seat's edge towards 0", "noun": "the size of the first seat's edge",
            "share": True}  # a record written before "points" was kept: read from the kind
    best = {"value": 0.016, "lo": 0.0003, "hi": 0.031, "se": 0.0078, "edge": -0.016, "edge_lo": -0.031,
            "edge_hi": -0.0003, "fair": 1 / 3}
    printed = {"value": 0.017, "lo": 0.001, "hi": 0.032, "se": 0.0079, "edge": -0.017, "edge_lo": -0.032,
               "edge_hi": -0.001, "fair": 1 / 3}
    rec = _record(["rules.target_score"], {"rules.target_score": 66}, {"rules.target_score": 77}, best, printed,
                  o=edge, search=0.003)
    head = headline(rec)[0]
    assert head.startswith("Best value of target_score: 66, where the size of the first seat's edge is 1.6 "
                           "percentage points (0.0 to 3.1) [the starter's win rate minus a fair 33.3%: −1.6 "
                           "percentage points (−3.1 to 0.0)], against the printed 77, where it is 1.7 percentage "
                           "points (0.1 to 3.2)"), head
    assert "%" not in head.replace("33.3%", "")
    assert "printed: 77: seat_edge 1.7 percentage points (0.1 to 3.2) at 30,000 games" in cli_summary(rec)
    (tmp_path / "tune.json").write_text(json.dumps(rec))
    optuna.create_study(storage=storage_url(tmp_path), study_name="t")
    html = build_tune_report(tmp_path, ["html"])[0].read_text()
    assert "seat_edge (confirmed, percentage points)</th>" in html
    assert ">1.6<" in html and ">0.0 – 3.1<" in html and ">1.6%<" not in html
    t = optuna.trial.create_trial(params={"rules.x": 0.5}, distributions={"rules.x": optuna.distributions.
                                  FloatDistribution(0, 1)}, value=0.008,
                                  user_attrs={"games": 1000, "seat_edge": 0.008, "seat_edge.se": 0.026 / 1.96})
    tune = SimpleNamespace(objectives=[Objective("seat_edge", "seat_edge", "minimize")])
    assert _trial_line(t, tune).endswith(": x=0.5: seat_edge 0.8 percentage points (± 2.6) at 1,000 games (done)")

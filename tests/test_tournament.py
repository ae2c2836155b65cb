"""Tournaments over a pool, the neighbour test under permuted seating, and why an until: run
stopped: on synthetic pools with a known truth.

Finishing orders are Plackett-Luce (sorted log-strength + Gumbel noise), so the chance that A
finishes ahead of B at any table is exactly 1 / (1 + exp(theta_B - theta_A)): the pooled
Bradley-Terry rating's truth is theta on the Elo scale, centred.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import polars as pl
import pytest

from reports.render import render_html
from reports.tournament import stopped_sentence
from reports.view import build_view
from safari_sim import stats
from safari_sim.stats.neighbours import neighbour_sentence, neighbour_test
from safari_sim.stats.pairs import ELO
from safari_sim.stats.tournament import is_tournament, tournament


def pool_frame(theta: dict[str, float], table: int = 3, games: int = 300, seat: tuple = (), neighbour=None,
               rng: int | np.random.Generator = 0) -> pl.DataFrame:
    """Every table of ``table`` strategies from the pool as a variant, seated in every ordering in
    turn (as ``seating: permute``). ``seat``: a bonus to each seat's log-strength; ``neighbour``:
    (A, B, bonus): A's log-strength rises by bonus when B sits on its right (the seat before)."""
    rng = np.random.default_rng(rng)
    names = list(theta)
    th = np.array([theta[s] for s in names])
    bonus = np.zeros(table)
    bonus[:len(seat)] = seat
    frames = []
    for vid, combo in enumerate(itertools.combinations(range(len(names)), table)):
        orders = np.array(list(itertools.permutations(combo)))
        g = np.arange(games)
        strat = orders[g % len(orders)]
        key = th[strat] + bonus[None, :] + rng.gumbel(size=strat.shape)
        if neighbour:
            a, b, d = names.index(neighbour[0]), names.index(neighbour[1]), neighbour[2]
            key = key + d * ((strat == a) & (np.roll(strat, 1, axis=1) == b))
        rank = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)
        n = games * table
        frames.append(pl.DataFrame({
            "variant": [" + ".join(names[k] for k in combo)] * n, "variant_id": np.full(n, vid, np.int16),
            "game": np.repeat(g, table), "deal": np.repeat(g, table), "seat": np.tile(np.arange(table), games).astype(np.int8),
            "strategy": [names[k] for k in strat.reshape(-1)], "score": key.reshape(-1),
            "rank": rank.reshape(-1).astype(np.int16), "win": (rank == 1).reshape(-1).astype(float),
            "players": np.full(n, table, np.int8), "turns": np.full(n, 30, np.int32)}))
    return pl.concat(frames)


THETA = {"ace": 0.8, "bold": 0.4, "calm": 0.0, "dull": -0.4, "eel": -0.8}


def test_the_pool_is_found_from_the_experiment():
    assert is_tournament({"pool": [{"name": "a"}]})
    assert is_tournament({"variants": [{"sweep": {"lineup": ["a", "b"]}}]})
    assert not is_tournament({"pool": [], "variants": [{"sweep": {"rules.x": 1}}]})


def test_ratings_recover_the_order_and_their_intervals_cover_the_truth():
    truth = ELO * (np.array(list(THETA.values())) - np.mean(list(THETA.values())))
    covered, total, orders = 0, 0, 0
    reps = 12
    for rep in range(reps):
        t = tournament(pool_frame(THETA, games=240, rng=rep).lazy(), resamples=200, seed=rep)
        r = t["ratings"]
        orders += r["strategy"].to_list() == list(THETA)
        true = np.array([truth[list(THETA).index(s)] for s in r["strategy"]])
        covered += int(((r["rating_lo"].to_numpy() <= true) & (true <= r["rating_hi"].to_numpy())).sum())
        total += len(r)
        assert t["best"]["strategy"] == "ace"
    assert orders >= reps - 2  # the whole order, almost always, at 2,400 games
    assert covered / total >= 0.88  # 95% intervals: 60 of them, a few may miss


def test_a_clear_best_is_called_and_equal_bests_are_tied():
    t = tournament(pool_frame({"ace": 1.2, **{k: v for k, v in THETA.items() if k != "ace"}}, games=300).lazy(),
                   resamples=150)
    assert t["best"]["strategy"] == "ace" and t["best"]["tied"] == [] and t["best"]["share"] > 0.95
    # the matrix: ace ahead of bold over every table both sat at, as the model says
    m = t["matrix"].filter((pl.col("strategy") == "ace") & (pl.col("opponent") == "bold")).row(0, named=True)
    assert m["games"] == 300 * 3 and m["lo"] < 1 / (1 + np.exp(-0.8)) < m["hi"]
    twins = {"ace": 0.6, "bold": 0.6, "calm": 0.0, "dull": -0.4}
    t = tournament(pool_frame(twins, games=300, rng=3).lazy(), resamples=150)
    assert t["best"]["strategy"] in ("ace", "bold")
    assert t["best"]["tied"] == [{"ace": "bold", "bold": "ace"}[t["best"]["strategy"]]]
    assert t["best"]["share"] < 0.975  # a lead interval reaching 0 leaves at least 2.5% of resamples


def test_a_planted_neighbour_effect_is_found():
    df = pool_frame({"ant": 0.2, "bee": 0.0, "cat": 0.0, "dog": -0.2}, games=1200, seat=(0.3,),
                    neighbour=("bee", "cat", 0.5), rng=5)
    t = neighbour_test(df.lazy())
    assert t["testable"] and t["p_value"] < 1e-4
    assert (t["strategy"], t["right"]) == ("bee", "cat") and t["rate"] > t["rate_other"]
    assert neighbour_sentence(t).startswith("Neighbours matter")


@pytest.mark.parametrize("table, pool, reps", [(3, 4, 120), (4, 5, 40)])
def test_no_neighbour_effect_is_found_at_its_nominal_level(table, pool, reps):
    theta = dict(zip("abcde"[:pool], [0.5, 0.2, 0.0, -0.3, -0.5]))
    p = np.array([neighbour_test(pool_frame(theta, table=table, games=240, seat=(0.4, 0.1), rng=100 + r).lazy())["p_value"]
                  for r in range(reps)])
    assert 0.35 < p.mean() < 0.65  # uniform under the null: neither liberal nor conservative
    assert (p < 0.05).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
    t = neighbour_test(pool_frame(theta, table=table, games=240, rng=1).lazy())
    assert neighbour_sentence(t).startswith("There is no evidence") or t["p_value"] < 0.05


def test_two_players_have_no_neighbour_question():
    t = neighbour_test(pool_frame({"a": 0.0, "b": 0.0, "c": 0.0}, table=2, games=60).lazy())
    assert not t["testable"] and "cannot be tested" in neighbour_sentence(t)


def test_the_stopped_record_is_said():
    s = stopped_sentence({"games_per_variant": 12000, "stopped": {
        "reason": "every win-rate interval is within +-1.00% (the widest +-0.98%)", "after_chunk": 2,
        "games_per_variant": 3000, "early": True}})
    assert s.startswith("The run stopped early, after 3,000 of its budget of 12,000 games per variant")
    assert "chunk 2" in s and "within +-1.00%" in s
    full = stopped_sentence({"games_per_variant": 500, "stopped": {"reason": "the budget was reached",
                                                                  "games_per_variant": 500, "early": False}})
    assert "whole budget of 500" in full
    assert stopped_sentence({"games_per_variant": 500}) is None


def test_the_report_has_the_tournament_the_neighbours_and_the_stop(tmp_path):
    names = ["ace", "bold", "calm", "eel"]
    df = pool_frame({k: THETA[k] for k in names}, games=120, rng=9)
    variants = []
    for vid, combo in enumerate(itertools.combinations(names, 3)):
        (tmp_path / "chunks" / f"v{vid:03d}").mkdir(parents=True)
        df.filter(pl.col("variant_id") == vid).write_parquet(tmp_path / "chunks" / f"v{vid:03d}" / "c000000.parquet")
        variants.append({"id": vid, "label": " + ".join(combo), "sweep": {"lineup": list(combo)}, "rules": {},
                         "strategies": [{"name": s, "use": s, "params": {}} for s in combo]})
    pool = [{"name": s, "use": s, "params": {}} for s in names]
    experiment = {"name": "pool", "game": "duck_duck_bruce", "game_name": "Duck Duck Bruce", "players": 3,
                  "games_per_variant": 480, "seed": 1, "seating": "permute", "score_name": "points",
                  "lower_score_wins": False, "experiment": {}, "experiment_text": "pool", "strategies": [],
                  "sweep_keys": ["lineup"], "pool": pool, "variants": variants, "versions": {}, "created": "now",
                  "stopped": {"reason": "ace wins more than bold", "after_chunk": 0, "games_per_variant": 120,
                              "early": True}}
    (tmp_path / "experiment.json").write_text(json.dumps(experiment))
    report = build_view(stats.scan(tmp_path), stats.load_experiment(tmp_path))
    html = render_html(report)
    for anchor in ('id="tournament"', 'id="neighbours"', 'id="stopped"', 'data-key="tournament-best" data-value="ace"',
                   'data-strategy="ace" data-opponent="eel"'):
        assert anchor in html
    first = report.context["summary"][0][0]
    assert first.startswith("The run stopped early, after 120 of its budget of 480")
    assert any(b[0] == "Tournament: " for b in report.context["summary"])
    # the line-ups are too long for the sweep figure's axis (rotated, they squeezed its panels
    # to nothing): numbered there, and listed in the caption as the variants are named
    fig = report.context["sweep_figures"][0]
    assert fig["key"] == "lineup" and fig["numbered"][0] == "ace + bold + calm" and len(fig["numbered"]) == 4
    assert "On the axis, 1 = ace + bold + calm; 2 = " in html

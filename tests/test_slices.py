"""A big dataset is read a slice of games at a time (stats/slices.py): every statistic that sums
per-deal values over slices must equal the same statistic over the whole table."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from safari_sim import stats
from safari_sim.stats import slices
from tests.report_data import write_dataset


@pytest.fixture(scope="module", params=["rotate", "duplicate"])
def dataset(request, tmp_path_factory):
    seating = request.param
    players = 3 if seating == "rotate" else 4
    out = write_dataset(tmp_path_factory.mktemp(seating), players=players, games=6000,
                        seating=seating, deal_luck=0.8, strengths=[1.6, 1.0, 1.0, 0.8][:players],
                        seat_factors=[1.15, 1.0, 1.0, 0.95][:players],
                        sweep={"rules.x": [1, 2]}, chunk_games=1000, seed=3)
    return stats.with_design(stats.scan(out)), seating


def _everything(lf):
    names = stats.strategies(lf)
    games = stats.pairs.rank_tables(lf, names)
    h2h = stats.head_to_head(lf, names, games)
    return {"seat": stats.seat_test(lf), "h2h": h2h, "ratings": stats.ratings(lf, names, h2h, games),
            "margin": stats.scores.margin_counts(lf), "variants": stats.variants(lf),
            "slices": len(games)}


def test_slices_hold_whole_deals_and_every_game(dataset):
    lf, _ = dataset
    parts = slices.game_slices(lf, rows=5000)
    assert len(parts) > 3
    seen = pl.concat([p.select("variant_id", "game", "_deal", "seat").with_columns(pl.lit(i).alias("part"))
                      .collect() for i, p in enumerate(parts)])
    assert seen.height == lf.select(pl.len()).collect().item()  # every row once
    assert seen.group_by("variant_id", "_deal").agg(pl.col("part").n_unique())["part"].max() == 1


def test_statistics_by_slices_equal_the_whole_table(dataset, monkeypatch):
    lf, seating = dataset
    whole = _everything(lf)
    monkeypatch.setattr(slices, "ROWS_PER_SLICE", 7000)
    cut = _everything(lf)
    assert whole["slices"] == 1 and cut["slices"] > 3
    for key in ("seat", "h2h", "ratings", "margin", "variants"):
        a, b = whole[key], cut[key]
        assert a.columns == b.columns and a.height == b.height, key
        for c in a.columns:
            if a[c].dtype.is_float():
                np.testing.assert_allclose(a[c].to_numpy(), b[c].to_numpy(), rtol=1e-9, atol=1e-12,
                                           err_msg=f"{key}.{c} ({seating})")
            elif c == "games_to_halve":  # a ceiling of a float: a sum in another order may cross it
                assert np.abs(a[c].to_numpy() - b[c].to_numpy()).max() <= 1, key
            else:
                assert a[c].to_list() == b[c].to_list(), f"{key}.{c} ({seating})"
    # the seat edge is real here and the test finds it either way
    assert (whole["seat"]["p_value"] < 1e-3).all()


def test_margin_summaries_from_counts_equal_the_per_game_table(dataset):
    lf, _ = dataset
    per_game = stats.winning_margin(lf).collect()
    counts = stats.scores.margin_counts(lf).lazy()
    want = stats.distribution(per_game.lazy(), "margin", by=None)
    got = stats.distribution(counts, "margin", by=None, weight="count")
    for c in want.columns:
        np.testing.assert_allclose(want[c].to_numpy().astype(float), got[c].to_numpy().astype(float), rtol=1e-12)
    bins = stats.scores.bins_for(per_game.lazy(), "margin")
    assert bins == stats.scores.bins_for(counts, "margin")
    assert stats.histogram(per_game.lazy(), "margin", None, bins).equals(
        stats.histogram(counts, "margin", None, bins, weight="count"))

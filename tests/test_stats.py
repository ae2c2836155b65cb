"""The statistics layer against known truths and against plain polars + scipy recomputations.

Datasets come from tests/report_data.py: finishing orders drawn from a Plackett-Luce model, so
win chances and pairwise chances are known exactly (see that module).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy.stats import binomtest, chisquare

from report_data import write_dataset
from safari_sim import stats
from safari_sim.stats.intervals import z_value
from safari_sim.stats.words import first_seat_verdict

BIG = 30_000


@pytest.fixture(scope="module")
def fair_seats(tmp_path_factory):
    """3 players, 30k games, 'strong' wins exactly 50%, seats fair, continuous scores (no ties)."""
    return write_dataset(tmp_path_factory.mktemp("fair"), players=3, games=BIG,
                         strategies=["strong", "b", "c"], strengths=[2, 1, 1], integer_scores=False, seed=11)


@pytest.fixture(scope="module")
def seat_edge(tmp_path_factory):
    """Equal strategies, the first seat planted at 1.2 / 3.2 = 37.5%; integer scores (ties)."""
    return write_dataset(tmp_path_factory.mktemp("edge"), players=3, games=BIG, seat_factors=[1.2, 1, 1], seed=12)


@pytest.fixture(scope="module")
def two_player(tmp_path_factory):
    """Two players with ties, lowest score wins, a small first-seat edge."""
    return write_dataset(tmp_path_factory.mktemp("two"), players=2, games=5000, seat_factors=[1.1, 1.0],
                         lower_score_wins=True, seed=13)


def lazy(path):
    return stats.scan(path)


def plain(path) -> pl.DataFrame:
    return pl.read_parquet(f"{path}/chunks/**/*.parquet")


# ---- intervals ------------------------------------------------------------------------------

@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (37, 100), (500, 1000), (999, 1000), (1, 1)])
def test_wilson_matches_scipy(k, n):
    lo, hi = stats.wilson(k, n)
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize("p,n", [(0.5, 30_000), (0.37, 100), (0.0, 100), (0.02, 500)])
def test_games_to_halve_halves_the_interval(p, n):
    m = int(stats.games_to_halve(p, n))
    lo0, hi0 = stats.wilson(p * n, n)
    lo1, hi1 = stats.wilson(p * m, m)
    assert (hi1 - lo1) == pytest.approx((hi0 - lo0) / 2, rel=1e-3)
    if 0.1 < p < 0.9:
        assert 3.8 * n < m < 4.2 * n  # about four times the sample
    if p == 0:
        assert m == math.ceil(2 * n + z_value() ** 2)  # at the edge it is not 4x


# ---- win rates against a known truth ---------------------------------------------------------

def test_strategy_winning_half_the_games_is_covered(fair_seats):
    rates = stats.win_rates(lazy(fair_seats))
    strong = rates.filter(pl.col("strategy") == "strong").row(0, named=True)
    assert strong["games"] == BIG
    assert strong["lo"] < 0.5 < strong["hi"]
    assert strong["hi"] - strong["lo"] < 0.012
    for r in rates.filter(pl.col("strategy") != "strong").iter_rows(named=True):
        assert r["lo"] < 0.25 < r["hi"]
    assert rates["fair"].to_list() == pytest.approx([1 / 3] * 3)


def test_win_rates_equal_plain_polars(seat_edge):
    df = plain(seat_edge)
    rates = stats.win_rates(lazy(seat_edge))
    for r in rates.iter_rows(named=True):
        rows = df.filter(pl.col("strategy") == r["strategy"])
        assert r["games"] == len(rows)
        assert r["wins"] == pytest.approx(rows["win"].sum())
        assert r["rate"] == pytest.approx(rows["win"].mean())
    # ties are shared: shares of a game sum to one, so the rates sum to one over the strategies
    assert rates["wins"].sum() == pytest.approx(BIG)
    assert (df["win"].is_in([0.0, 1.0]).not_()).any(), "the dataset should contain ties for first"


# ---- seats ------------------------------------------------------------------------------------

def test_planted_seat_edge_is_detected(seat_edge):
    s = stats.seat_advantage(lazy(seat_edge)).row(0, named=True)
    assert s["test"] == "chi-square" and s["df"] == 2
    assert s["p_value"] < 1e-6
    assert s["first_lo"] > 1 / 3
    assert "a real edge of" in s["verdict"]
    assert s["verdict"].startswith("the first seat wins ")
    # the chi-square equals scipy on the shares per seat, recomputed with plain polars
    per_seat = plain(seat_edge).group_by("seat").agg(pl.col("win").sum()).sort("seat")["win"].to_numpy()
    ref = chisquare(per_seat, [BIG / 3] * 3)
    assert s["statistic"] == pytest.approx(ref.statistic) and s["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)


def test_fair_seats_say_no_detectable_edge(fair_seats):
    s = stats.seat_advantage(lazy(fair_seats)).row(0, named=True)
    assert s["first_lo"] < 1 / 3 < s["first_hi"]
    assert "no detectable edge at this sample size; the interval is" in s["verdict"]
    assert s["p_value"] > 0.01


def test_verdict_wording():
    assert first_seat_verdict(0.369, 0.362, 0.376, 1 / 3) == (
        "the first seat wins 36.9% ± 0.7% against a fair 33.3%: a real edge of 3.6 points")
    assert "a real disadvantage of 3.3 points" in first_seat_verdict(0.30, 0.29, 0.31, 1 / 3)
    assert first_seat_verdict(0.34, 0.32, 0.36, 1 / 3).endswith(
        "no detectable edge at this sample size; the interval is 32.0% to 36.0%, which contains the fair share")


def test_two_players_use_the_binomial_test_on_decisive_games(two_player):
    s = stats.seat_advantage(lazy(two_player)).row(0, named=True)
    df = plain(two_player)
    first = df.filter((pl.col("seat") == 0) & (pl.col("win") == 1)).height
    second = df.filter((pl.col("seat") == 1) & (pl.col("win") == 1)).height
    assert first + second < 5000, "some games should be tied"
    assert s["test"] == "binomial"
    assert s["p_value"] == pytest.approx(binomtest(first, first + second, 0.5).pvalue, rel=1e-12)
    assert s["first_rate"] == pytest.approx(df.filter(pl.col("seat") == 0)["win"].mean())


# ---- head to head and ratings -------------------------------------------------------------------

def pairs_plain(df: pl.DataFrame) -> pl.DataFrame:
    """A ahead of B from a self-join of the rows of each game."""
    a = df.select("variant_id", "game", pl.col("strategy").alias("a"), pl.col("rank").alias("ra"))
    b = df.select("variant_id", "game", pl.col("strategy").alias("b"), pl.col("rank").alias("rb"))
    j = a.join(b, on=["variant_id", "game"]).filter(pl.col("a") != pl.col("b"))
    return j.group_by("variant_id", "a", "b").agg(
        pl.len().alias("games"),
        ((pl.col("ra") < pl.col("rb")).cast(pl.Float64) + 0.5 * (pl.col("ra") == pl.col("rb"))).sum().alias("ahead"))


def test_head_to_head_equals_a_self_join(seat_edge):
    h = stats.head_to_head(lazy(seat_edge))
    ref = pairs_plain(plain(seat_edge))
    j = h.join(ref, left_on=["variant_id", "strategy", "opponent"], right_on=["variant_id", "a", "b"])
    assert len(j) == len(h) == len(ref) == 6
    assert (j["games"] == j["games_right"]).all()
    assert np.allclose(j["ahead"], j["ahead_right"])
    lo, hi = stats.wilson(j["ahead_right"].to_numpy(), j["games_right"].to_numpy())
    assert np.allclose(j["lo"], lo) and np.allclose(j["hi"], hi)
    # A over B and B over A share each game
    back = h.join(h, left_on=["variant_id", "strategy", "opponent"], right_on=["variant_id", "opponent", "strategy"])
    assert np.allclose(back["rate"] + back["rate_right"], 1.0)


def test_pairwise_truth_and_bradley_terry(fair_seats):
    """Plackett-Luce pairs follow Bradley-Terry: P(strong ahead of b) = 2 / 3 exactly."""
    h = stats.head_to_head(lazy(fair_seats))
    sb = h.filter((pl.col("strategy") == "strong") & (pl.col("opponent") == "b")).row(0, named=True)
    assert sb["lo"] < 2 / 3 < sb["hi"]
    r = stats.ratings(h2h=h)
    theta = dict(zip(r["strategy"], r["theta"]))
    assert theta["strong"] - theta["b"] == pytest.approx(math.log(2), abs=0.05)
    assert r["rating"].sum() == pytest.approx(0, abs=1e-6)
    assert r["strategy"][0] == "strong"


def test_bradley_terry_equals_an_independent_mm_fit(seat_edge):
    """Hunter's MM algorithm on plain-polars pair counts reaches the same ratings."""
    ref = pairs_plain(plain(seat_edge))
    names = sorted(ref["a"].unique().to_list())
    w = np.zeros((3, 3))
    for a, b, x in ref.select("a", "b", "ahead").iter_rows():
        w[names.index(a), names.index(b)] = x
    p = np.ones(3)
    for _ in range(2000):
        n = w + w.T
        p = w.sum(axis=1) / (n / (p[:, None] + p[None, :])).sum(axis=1)
        p /= np.exp(np.log(p).mean())
    r = stats.ratings(lazy(seat_edge))
    theta = dict(zip(r["strategy"], r["theta"]))
    assert [theta[s] for s in names] == pytest.approx(list(np.log(p)), abs=1e-4)


# ---- scores, margins, length --------------------------------------------------------------------

def test_score_distribution_equals_plain_polars(seat_edge):
    d = stats.distribution(lazy(seat_edge), "score", "seat")
    df = plain(seat_edge)
    for r in d.iter_rows(named=True):
        s = df.filter(pl.col("seat") == r["seat"])["score"]
        assert r["n"] == len(s)
        assert r["mean"] == pytest.approx(s.mean()) and r["sd"] == pytest.approx(s.std())
        assert r["q50"] == pytest.approx(s.median()) and r["q90"] == pytest.approx(s.quantile(0.9, "linear"))
        assert (r["min"], r["max"]) == (s.min(), s.max())


def test_winning_margin_respects_lower_score_wins(two_player):
    m = stats.winning_margin(lazy(two_player), lower_score_wins=True).collect().sort("game")
    df = plain(two_player).sort("game", "seat")
    s = df["score"].to_numpy().reshape(-1, 2)
    expected = np.abs(s[:, 0] - s[:, 1])  # two players: the gap, zero for a tie
    assert np.allclose(m["margin"].to_numpy(), expected)
    assert (m["margin"] >= 0).all()
    assert m["tied"].to_numpy().tolist() == (s[:, 0] == s[:, 1]).tolist()


def test_winning_margin_three_players(seat_edge):
    m = stats.winning_margin(lazy(seat_edge)).collect().sort("game")
    s = np.sort(plain(seat_edge).sort("game", "seat")["score"].to_numpy().reshape(-1, 3), axis=1)[:, ::-1]
    assert np.allclose(m["margin"].to_numpy(), s[:, 0] - s[:, 1])


def test_per_game_columns_and_length(seat_edge):
    lf = lazy(seat_edge)
    assert stats.stat_columns(lf) == ["rounds", "bruce_tried", "bruce_won"]
    assert stats.per_game_columns(lf) == ["turns", "rounds"]
    g = stats.game_length(lf)
    games = plain(seat_edge).filter(pl.col("seat") == 0)
    turns = g.filter(pl.col("statistic") == "turns").row(0, named=True)
    assert turns["n"] == BIG and turns["mean"] == pytest.approx(games["turns"].mean())
    ss = stats.seat_statistics(lf)
    assert ss.columns == ["variant_id", "strategy", "n", "bruce_tried", "bruce_won"]


def test_histogram_counts_every_row(seat_edge):
    h = stats.histogram(lazy(seat_edge), "score", "strategy")
    assert h["count"].sum() == 3 * BIG
    assert (h["width"] == 1.0).all()  # whole-number scores with a small range: one bin per value


# ---- sweeps ---------------------------------------------------------------------------------------

def test_most_balanced_variant(tmp_path):
    path = write_dataset(tmp_path, players=3, games=6000, sweep={"rules.bruce_cards": [0, 6, 12],
                                                                 "rules.die": [[1, 2], [3]]},
                         variant_effect=lambda v: ([1, 1, 1], [1 + abs(v["rules.bruce_cards"] - 6) / 10, 1, 1]))
    lf = lazy(path)
    exp = stats.load_experiment(path)
    sweep = stats.sweep_table(exp)
    assert sweep["rules.die"].to_list()[:2] == ["[1, 2]", "[3]"]
    assert sweep["rules.die#"].is_null().all() and sweep["rules.bruce_cards#"].to_list()[:2] == [0.0, 0.0]
    head = stats.headlines(stats.win_rates(lf), stats.seat_advantage(lf))
    bal = stats.most_balanced(head)
    assert len(bal) == 6
    assert set(bal["variant_id"][:2].to_list()) == {2, 3}  # bruce_cards = 6: no planted edge
    assert bal["seat_rank"].to_list() == list(range(1, 7))
    assert (bal["abs_edge"].diff().drop_nulls() >= 0).all()


def test_missing_dataset_is_a_clear_error(tmp_path):
    with pytest.raises(stats.DatasetError, match="no dataset"):
        stats.scan(tmp_path)
    with pytest.raises(stats.DatasetError, match="no experiment.json"):
        stats.load_experiment(tmp_path)


def test_wilson_interval_holds_the_rate_at_zero_and_one():
    from safari_sim.stats.intervals import wilson

    lo, hi = wilson(np.array([0.0, 7.0, 7.0]), np.array([7.0, 7.0, 10.0]))
    assert lo[0] == 0.0 and hi[1] == 1.0
    assert lo[2] < 0.7 < hi[2]

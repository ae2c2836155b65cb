"""Synthetic results datasets with a known truth, in exactly the runner's shape.

Finishing orders are drawn from a Plackett-Luce model: each player's weight is the strength of
its strategy times the factor of its seat, and the order is sorted by log(weight) + Gumbel noise
(the Gumbel trick samples Plackett-Luce exactly). So with no ties a player's chance to win is its
weight over the table's total weight: strengths (2, 1, 1) make the first strategy win exactly 50%
with three players, seat factors (1.2, 1, 1) give the first seat exactly 1.2 / 3.2 = 37.5%.

`write_dataset` writes ``chunks/v<id:03d>/c<chunk:06d>.parquet`` and ``experiment.json``, like
the runner, with a ``deal`` column (under ``seating="duplicate"`` the P rotations of a deal share
it and the deal's luck). Everything is vectorised so that a 10-million-row dataset takes seconds
to write. ``frame`` makes one variant in memory, for calibration loops; ``seat_test_oracle`` is the
seat test written again by least squares, to check the statistics against.
"""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import polars as pl


def _games(rng: np.random.Generator, n: int, strengths: np.ndarray, seat_factors: np.ndarray,
           seating: str, integer_scores: bool, start: int, deal_luck: float = 0.0) -> dict[str, np.ndarray]:
    """n games of P players as columns of n * P rows (game-major, seat-minor).

    ``deal_luck``: the sd of a luck term each deal gives each seat (the cards dealt there). Under
    ``duplicate`` seating the P rotations of deal d (games P*d .. P*d + P - 1) share it, so it
    cancels between strategies; otherwise every game has a deal of its own."""
    p = len(seat_factors)
    games = np.arange(start, start + n, dtype=np.int64)
    seats = np.arange(p)
    if seating in ("rotate", "duplicate"):
        strat = (seats[None, :] + games[:, None]) % p  # every strategy in every seat equally
    else:
        strat = np.broadcast_to(seats, (n, p))
    deals = games // p if seating == "duplicate" else games
    logw = np.log(strengths[strat] * seat_factors[None, :])
    key = logw + rng.gumbel(size=(n, p))
    if deal_luck:
        first, inverse = np.unique(deals, return_inverse=True)
        key = key + deal_luck * rng.standard_normal((len(first), p))[inverse]
    score = 20.0 + 4.0 * key
    if integer_scores:
        score = np.round(score)  # integer points: ties for first happen and are shared
    # rank = 1 + seats strictly better: ties share the better rank
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    first = rank == 1
    win = first / first.sum(axis=1, keepdims=True)
    turns = rng.integers(20, 60, size=n).astype(np.int32)
    rounds = (1 + turns // 15).astype(np.int32)
    tried = rng.poisson(2.0 + strat, size=(n, p)).astype(np.int32)
    won = rng.binomial(tried, 0.4).astype(np.int32)
    rep = lambda a: np.repeat(a, p)  # noqa: E731 - per-game value on every seat's row
    return {
        "game": rep(games), "deal": rep(deals), "seat": np.tile(seats, n).astype(np.int8),
        "strat": strat.reshape(-1), "score": score.reshape(-1), "rank": rank.reshape(-1).astype(np.int16),
        "win": win.reshape(-1).astype(np.float64), "turns": rep(turns), "rounds": rep(rounds),
        "bruce_tried": tried.reshape(-1), "bruce_won": won.reshape(-1),
    }


def frame(*, players: int = 3, games: int = 3000, strategies: Sequence[str] | None = None,
          strengths: Sequence[float] | None = None, seat_factors: Sequence[float] | None = None,
          seating: str = "rotate", integer_scores: bool = True, deal_luck: float = 0.0,
          rng: np.random.Generator | int = 1, variant_id: int = 0, label: str = "base") -> pl.DataFrame:
    """One variant's games in the dataset's shape, in memory (for calibration loops)."""
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    strategies = list(strategies or [f"bot{i}" for i in range(players)])
    g = _games(rng, games, np.asarray(strengths or [1.0] * players, dtype=float),
               np.asarray(seat_factors or [1.0] * players, dtype=float), seating, integer_scores, 0, deal_luck)
    return _table(g, games * players, players, strategies, variant_id, label, 1.0)


def _table(g: dict, rows: int, players: int, strategies: list[str], vid: int, label: str, sign: float) -> pl.DataFrame:
    return pl.DataFrame({
        "variant": pl.Series([label] * rows, dtype=pl.String),
        "variant_id": pl.Series(np.full(rows, vid, dtype=np.int16)),
        "game": g["game"], "deal": g["deal"], "seat": g["seat"],
        "strategy": pl.Series(np.array(strategies, dtype=object)[g["strat"]].tolist(), dtype=pl.String),
        "score": sign * g["score"], "rank": g["rank"], "win": g["win"],
        "players": pl.Series(np.full(rows, players, dtype=np.int8)),
        "turns": g["turns"], "rounds": g["rounds"],
        "bruce_tried": g["bruce_tried"], "bruce_won": g["bruce_won"],
    })


def write_dataset(
    out: str | Path,
    *,
    players: int = 3,
    games: int = 3000,
    strategies: Sequence[str] | None = None,
    strengths: Sequence[float] | None = None,
    seat_factors: Sequence[float] | None = None,
    sweep: dict[str, Sequence[Any]] | None = None,
    variant_effect: Any = None,
    seating: str = "rotate",
    integer_scores: bool = True,
    deal_luck: float = 0.0,
    lower_score_wins: bool = False,
    chunk_games: int = 200_000,
    seed: int = 1,
    name: str = "synthetic",
) -> Path:
    """Write a dataset to ``out`` and return it.

    ``sweep`` maps keys (``rules.x``) to value lists; variants are their grid in order.
    ``variant_effect(values: dict) -> (strengths, seat_factors)`` changes the truth per variant.
    ``lower_score_wins`` negates scores so that the lowest score still ranks first.
    """
    out = Path(out)
    strategies = list(strategies or [f"bot{i}" for i in range(players)])
    assert len(strategies) == players
    strengths = np.asarray(strengths or [1.0] * players, dtype=float)
    seat_factors = np.asarray(seat_factors or [1.0] * players, dtype=float)
    sweep = dict(sweep or {})
    keys = list(sweep)
    combos = list(itertools.product(*(sweep[k] for k in keys))) if keys else [()]
    rng = np.random.default_rng(seed)
    variants = []
    for vid, combo in enumerate(combos):
        values = dict(zip(keys, combo))
        label = ",".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}"
                         for k, v in values.items()) or "base"
        st, sf = (strengths, seat_factors)
        if variant_effect is not None:
            st, sf = (np.asarray(a, dtype=float) for a in variant_effect(values))
        vdir = out / "chunks" / f"v{vid:03d}"
        vdir.mkdir(parents=True, exist_ok=True)
        step = chunk_games - chunk_games % players  # a duplicate deal never straddles two chunks
        for c, start in enumerate(range(0, games, step)):
            n = min(step, games - start)
            g = _games(rng, n, st, sf, seating, integer_scores, start, deal_luck)
            df = _table(g, n * players, players, strategies, vid, label, -1.0 if lower_score_wins else 1.0)
            df.write_parquet(vdir / f"c{c:06d}.parquet")
        rules = {"bruce_cards": 6, "target": 77, "die": [-1, 1, 1, 2, 3, 3]}
        rules.update({k.split(".", 1)[1]: v for k, v in values.items() if k.startswith("rules.")})
        variants.append({
            "id": vid, "label": label, "sweep": values, "rules": rules,
            "strategies": [{"name": s, "use": "stop_at", "params": {"cards": i + 2}}
                           for i, s in enumerate(strategies)],
        })
    experiment = {
        "name": name, "game": "duck_duck_bruce", "players": players, "games": games,
        "seed": seed, "seating": seating,
        "strategies": [{"name": s, "use": "stop_at", "params": {"cards": i + 2}}
                       for i, s in enumerate(strategies)],
    }
    if sweep:
        experiment["sweep"] = {k: list(v) for k, v in sweep.items()}
    text = "# synthetic experiment <for tests> & co\n" + json.dumps(experiment, indent=2) + "\n"
    meta = {
        "name": name, "game": "duck_duck_bruce", "game_name": "Duck Duck Bruce",
        "players": players, "games_per_variant": games, "seed": seed, "seating": seating,
        "score_name": "points", "lower_score_wins": lower_score_wins,
        "experiment": experiment, "experiment_text": text,
        "strategies": experiment["strategies"], "sweep_keys": keys, "variants": variants,
        "versions": {"safari-sim": "0.1.0", "python": "3.11", "numpy": np.__version__,
                     "polars": pl.__version__},
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    (out / "experiment.json").write_text(json.dumps(meta, indent=2))
    return out


def seat_test_oracle(df: pl.DataFrame) -> tuple[float, int]:
    """The seat test written again another way: least squares. Regress the seat dummies (seats
    1..P-1) and the win on dummies of the strategy (one line-up here), take the residuals, and
    form the score U = X~' e with its covariance from the deals' sums (plain numpy)."""
    df = df.sort("game", "seat")
    deal = (df["deal"] if "deal" in df.columns else df["game"]).to_numpy()
    names = sorted(df["strategy"].unique().to_list())
    z = (df["strategy"].to_numpy()[:, None] == np.array(names)[None, :]).astype(float)
    p = int(df["seat"].max()) + 1
    x = (df["seat"].to_numpy()[:, None] == np.arange(1, p)[None, :]).astype(float)
    y = df["win"].to_numpy()
    proj = lambda m: m - z @ np.linalg.lstsq(z, m, rcond=None)[0]  # noqa: E731
    xt, e = proj(x), proj(y)
    _, inv = np.unique(deal, return_inverse=True)
    u = np.zeros((inv.max() + 1, p - 1))
    np.add.at(u, inv, xt * e[:, None])
    d = len(u)
    v = u.T @ u * d / (d - 1)
    total = u.sum(axis=0)
    return float(total @ np.linalg.solve(v, total)), p - 1

"""Synthetic results datasets with a known truth, in exactly the runner's shape.

Finishing orders are drawn from a Plackett-Luce model: each player's weight is the strength of
its strategy times the factor of its seat, and the order is sorted by log(weight) + Gumbel noise
(the Gumbel trick samples Plackett-Luce exactly). So with no ties a player's chance to win is its
weight over the table's total weight: strengths (2, 1, 1) make the first strategy win exactly 50%
with three players, seat factors (1.2, 1, 1) give the first seat exactly 1.2 / 3.2 = 37.5%.

`write_dataset` writes ``chunks/v<id:03d>/c<chunk:06d>.parquet`` and ``experiment.json``, like
the runner. Everything is vectorised so that a 10-million-row dataset takes seconds to write.
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
           seating: str, integer_scores: bool, start: int) -> dict[str, np.ndarray]:
    """n games of P players as columns of n * P rows (game-major, seat-minor)."""
    p = len(seat_factors)
    games = np.arange(start, start + n, dtype=np.int64)
    seats = np.arange(p)
    if seating == "rotate":
        strat = (seats[None, :] + games[:, None]) % p  # every strategy in every seat equally
    else:
        strat = np.broadcast_to(seats, (n, p))
    logw = np.log(strengths[strat] * seat_factors[None, :])
    key = logw + rng.gumbel(size=(n, p))
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
        "game": rep(games), "seat": np.tile(seats, n).astype(np.int8),
        "strat": strat.reshape(-1), "score": score.reshape(-1), "rank": rank.reshape(-1).astype(np.int16),
        "win": win.reshape(-1).astype(np.float64), "turns": rep(turns), "rounds": rep(rounds),
        "bruce_tried": tried.reshape(-1), "bruce_won": won.reshape(-1),
    }


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
        for c, start in enumerate(range(0, games, chunk_games)):
            n = min(chunk_games, games - start)
            g = _games(rng, n, st, sf, seating, integer_scores, start)
            rows = n * players
            sign = -1.0 if lower_score_wins else 1.0
            df = pl.DataFrame({
                "variant": pl.Series([label] * rows, dtype=pl.String),
                "variant_id": pl.Series(np.full(rows, vid, dtype=np.int16)),
                "game": g["game"], "seat": g["seat"],
                "strategy": pl.Series(np.array(strategies, dtype=object)[g["strat"]].tolist(), dtype=pl.String),
                "score": sign * g["score"], "rank": g["rank"], "win": g["win"],
                "players": pl.Series(np.full(rows, players, dtype=np.int8)),
                "turns": g["turns"], "rounds": g["rounds"],
                "bruce_tried": g["bruce_tried"], "bruce_won": g["bruce_won"],
            })
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

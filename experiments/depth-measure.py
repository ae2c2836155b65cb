"""The depth figures of docs/search.md ("How it decides", Depth): the flat search with
``depth`` d (every world played d steps of the loop after the candidate action, then scored by
the game's running score; 0: to the end) in one seat of three, the game's best heuristic in the
other two, seats rotated (game b: the searcher in seat b mod 3), seed 16, every game in one
batch; win share with its 95% half-width, and the searcher's own decisions per CPU second (its
``act`` calls, process time).

    nice -n 19 .venv/bin/python experiments/depth-measure.py GAME OPPONENT GAMES DEPTH...

Search: 16 rollouts per candidate, every legal action, rollouts by the game's BENCHMARK
heuristic, the margin objective. Duck Duck Bruce is played to one round (its BENCHMARK rules),
Paper Safari as printed.
"""

from __future__ import annotations

import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from strategies import get_strategy
from strategies.search import Search, rollout_spec

from measuring import timed  # experiments/measuring.py (this script's folder)

ROLLOUTS = 16


def main(game_id, opponent, n, depths):
    game = get_game(game_id)
    rules = game.make_rules(rounds=1) if game_id == "duck_duck_bruce" else game.make_rules()
    name, params = rollout_spec(game_id, "benchmark", {})
    seating = np.ones((n, 3), np.int64)
    seating[np.arange(n), np.arange(n) % 3] = 0
    for depth in depths:
        me, spent = timed(Search, rollouts=ROLLOUTS, objective="margin", rollout=name,
                          rollout_params=params, depth=depth)
        res = play_batch(game, rules, 3, [me, get_strategy(game_id, opponent)()], seating,
                         game_keys(16, 3, n))
        w = res.outcome.win[seating == 0]
        half = 1.96 * w.std(ddof=1) / np.sqrt(n)
        print(f"{game_id} depth {depth} vs {opponent} ({n} games, {ROLLOUTS} rollouts, {name} "
              f"rollouts, margin): win {w.mean():.3f} +- {half:.3f}, "
              f"{spent['d'] / spent['t']:.0f} decisions/s", flush=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], int(a[2]), [int(x) for x in a[3:]])

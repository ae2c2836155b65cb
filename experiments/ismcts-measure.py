"""The ISMCTS figures of docs/search.md: ismcts (or the flat search, for reference) in one seat of
three, a heuristic in the other two, seats rotated (game b: the searcher in seat b mod 3), seed
16, every game in one batch; win share with its 95% half-width, and the searcher's own decisions
per CPU second (its ``act`` calls, process time).

    .venv/bin/python experiments/ismcts-measure.py GAME OPPONENT BUDGET GAMES [OBJECTIVE] [MODE]

BUDGET is ``iterations`` for ismcts (MODE ismcts, the default; rollouts: the game's BENCHMARK) or
``rollouts`` for search (MODE search; rollouts: the game's BENCHMARK heuristic too). Duck Duck
Bruce is played to one round (its BENCHMARK rules), other games as printed.
"""

from __future__ import annotations

import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from strategies import get_strategy
from strategies.ismcts import Ismcts, rollout_spec
from strategies.search import Search

from measuring import timed  # experiments/measuring.py (this script's folder)


def main(game_id, opponent, budget, n, objective="win", mode="ismcts"):
    game = get_game(game_id)
    rules = game.make_rules(rounds=1) if game_id == "duck_duck_bruce" else game.make_rules()
    base = Ismcts if mode == "ismcts" else Search
    if mode == "ismcts":
        me, spent = timed(base, iterations=budget, objective=objective)
    else:
        name, params = rollout_spec(game_id, "benchmark", {})
        me, spent = timed(base, rollouts=budget, objective=objective, rollout=name,
                          rollout_params=params)
    seating = np.ones((n, 3), np.int64)
    seating[np.arange(n), np.arange(n) % 3] = 0
    res = play_batch(game, rules, 3, [me, get_strategy(game_id, opponent)()], seating,
                     game_keys(16, 3, n))
    w = res.outcome.win[seating == 0]
    half = 1.96 * np.sqrt(w.mean() * (1 - w.mean()) / n)
    print(f"{game_id} {mode} {budget} vs {opponent} ({objective}, {n} games): win "
          f"{w.mean():.3f} +- {half:.3f}, {spent['d'] / spent['t']:.0f} decisions/s")


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], int(a[2]), int(a[3]), *a[4:])

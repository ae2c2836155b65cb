"""How often Jungle Thrills' first-version readings of issue 29 change who wins (the figures in
docs/rules/jungle_thrills.md: "Both sets of one animal" and "The end of the asking phase").

Each reading is played against the default rules on the same deals (the same chance keys and
seat streams) by the baseline tables of experiments/jungle_thrills-{2..6}p.yaml (the memory
player at recall 0.95), seats rotated. A game's winner changes when the set of winners differs.
The strategies forget at random, so once two games part their draws part too: the figure is
the effect of the reading with the play it brings, not of the rule alone. Run:

    .venv/bin/python experiments/jungle_thrills-readings.py [games]
"""

from __future__ import annotations

import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from strategies import get_strategy

TABLE = [("memory", "rememberer", {"recall": 0.95}), ("leader", "leader_hunter", {"recall": 0.8}),
         ("guesser", "guesser", {"recall": 0.8}), ("forgetful", "rememberer", {"recall": 0.6}),
         ("random", "random", {}), ("sharp_leader", "leader_hunter", {"recall": 0.95})]
TABLES = {2: [0, 2], 3: [0, 1, 2], 4: [0, 1, 2, 3], 5: [0, 1, 2, 3, 4], 6: [0, 1, 2, 3, 4, 5]}
READINGS = [{"set_handed_over": "first"}, {"asking_ends": "no_demand"},
            {"asking_ends": "no_demand", "held_count_at_end": True},
            {"asking_ends": "sole_holder"}]


def play(game, players, rules, n, seed):
    seats = TABLES[players]
    strats = [get_strategy(game.id, TABLE[i][1])(**TABLE[i][2]) for i in seats]
    seating = (np.arange(players)[None, :] + np.arange(n)[:, None]) % players
    return play_batch(game, game.make_rules(rules), players, strats, seating,
                      game_keys(seed, players, n)).outcome, seating


def win_rates(out, seating):
    """Wins (shared wins split) of each strategy of the table, over the games."""
    players = seating.shape[1]
    share = out.win / np.maximum(out.win.sum(axis=1, keepdims=True), 1)
    return [float(share[seating == i].sum()) / len(seating) for i in range(players)]


def main(n: int = 3000) -> None:
    game = get_game("jungle_thrills")
    print(f"{n} games per table, seats rotated; the same deals under each reading")
    for players in range(2, 7):
        base, seating = play(game, players, {}, n, 290 + players)
        names = [TABLE[i][0] for i in TABLES[players]]
        rates = " / ".join(f"{r:.3f}" for r in win_rates(base, seating))
        print(f"{players}p  defaults: win rates {rates} ({', '.join(names)})")
        for reading in READINGS:
            out, _ = play(game, players, reading, n, 290 + players)
            changed = (out.win != base.win).any(axis=1).mean()
            se = np.sqrt(changed * (1 - changed) / n)
            rates = " / ".join(f"{r:.3f}" for r in win_rates(out, seating))
            held = out.stats["held_at_end"].sum(axis=1)
            print(f"    {reading}: winner changes in {changed:.1%} (+- {1.96 * se:.1%}), "
                  f"win rates {rates}, games ending with sets held {np.mean(held > 0):.1%}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))

"""Deducktion, two players: what the readings of the reserve (``two_player_reserve``) and the
deducer's ``draw_weight`` do, on the same deals (docs/rules/deducktion.md, "Two-Player Variant").

    python experiments/deducktion-readings.py [GAMES]     # from the checkout; default 4000

For each pairing (the two strategies alternate seats) and each reading: the first strategy's
win share (a shared win counts a half), the mean scores, the shared wins, and the games whose
winners differ from the printed reading's ('zero_answer') on the same deal and seat streams.
"""

from __future__ import annotations

import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from strategies import get_strategy

G = get_game("deducktion")
READINGS = ("zero_answer", "draw_when_empty", "aside")
PAIRINGS = [
    (("deducer", {}), ("naive", {})),
    (("deducer", {"draw_weight": 0.0}), ("naive", {})),
    (("deducer", {"guess_at": 1.0}), ("naive", {})),
    (("deducer", {"draw_weight": 0.0, "guess_at": 1.0}), ("naive", {})),
    (("deducer", {}), ("collector", {})),
    (("deducer", {}), ("deducer", {"draw_weight": 0.0})),
]


def play(a, b, reading, games, seed=2902):
    strats = [get_strategy(G.id, n)(**p) for n, p in (a, b)]
    seating = (np.arange(2)[None, :] + np.arange(games)[:, None]) % 2
    res = play_batch(G, G.make_rules(two_player_reserve=reading), 2, strats, seating,
                     game_keys(seed, 2, games))
    return res.outcome, seating


def main(games: int) -> None:
    for a, b in PAIRINGS:
        print(f"{a[0]} {a[1] or ''} against {b[0]} {b[1] or ''}, {games} games")
        base = None
        for reading in READINGS:
            o, seating = play(a, b, reading, games)
            first = seating == 0
            share = o.win                     # win shares: a shared win is a half
            winners = o.win > 0
            shared = (winners.sum(axis=1) > 1).mean()
            moved = "" if base is None else \
                f", winner changed {100 * (winners != base).any(axis=1).mean():.1f}%"
            base = winners if base is None else base
            print(f"  {reading:16s} {a[0]} {100 * share[first].mean():.1f}% "
                  f"(+-{100 * 1.96 * share[first].std() / np.sqrt(games):.1f}), scores "
                  f"{o.score[first].mean():.1f} / {o.score[~first].mean():.1f}, shared "
                  f"{100 * shared:.1f}%, draws {o.stats['draws'][first].mean():.2f} / "
                  f"{o.stats['draws'][~first].mean():.2f}{moved}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)

"""Fingerprints of the shipped heuristics' games: every game, every player count, tables of the
game's shipped strategies (defaults and moved knobs) with fixed seeds, played whole-game
compiled and through the lockstep loop. Issue 31 compares these before and after a change to
the strategies: `python scripts/heuristic_fingerprint.py > before.json`, then diff."""

from __future__ import annotations

import hashlib
import itertools
import json
import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import game_ids, get_game
from strategies import strategies_for


def shipped(game_id):
    return [cls for cls in strategies_for(game_id).values() if cls.game == game_id]


def fingerprint(game_id: str, games: int = 60) -> dict[str, str]:
    game = get_game(game_id)
    rules = game.Rules()
    out = {}
    classes = shipped(game_id)
    for players in range(game.min_players, min(game.max_players, 5) + 1):
        strats = [cls() for cls in classes]
        k = len(strats)
        seating = np.array([[(g + s) % k for s in range(players)] for g in range(games)])
        for compiled in (True, False):
            keys = game_keys(7, players, games)
            r = play_batch(game, rules, players, strats, seating, keys, compiled=compiled)
            h = hashlib.sha256()
            for a in (r.outcome.score, r.outcome.rank, r.outcome.win, r.outcome.turns):
                h.update(np.ascontiguousarray(a).tobytes())
            h.update(str(r.decisions).encode())
            out[f"{players}p {'compiled' if compiled else 'lockstep'}"] = h.hexdigest()[:16]
    return out


if __name__ == "__main__":
    ids = sys.argv[1:] or game_ids()
    json.dump({g: fingerprint(g) for g in ids}, sys.stdout, indent=1)

"""How fast Duck Duck Bruce could play on this machine: a yardstick for the speed issue.

A minimal fused kernel of the printed game (``tests/ddb_fused.py``; 3 players, one round, three
``stop_at`` players banking at 2, 4 and 3 cards and declaring 1): the deal and the whole game
inside one compiled loop, the game's state in locals and one game's scratch arrays, no event
log, no statistics, no view. It is timed in turn with safari-sim's whole-game kernel on the same table (the deal timed
apart), in one process, so the machine's swings hit both alike; its mean scores are printed
beside safari-sim's as a check that it plays the same game: it draws from the same streams in
the same order (the shuffle, then a die roll and each stolen card's pick after a Bruce), so
every game ends with the same scores.

    .venv/bin/python experiments/duck_duck_bruce-floor.py [repeats]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.games import get_game
from strategies import get_strategy
import strategies._duck_duck_bruce_compiled as compiled

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from ddb_fused import DIE, SUIT, VALUE, fused, scratch  # noqa: E402  (the reference kernel)


def main(repeats: int = 15, batch: int = 16384) -> None:
    stop, declare = np.array([2, 4, 3]), np.array([1, 1, 1])
    scratch_ = scratch()
    score = np.zeros((batch, 3), np.int64)
    game = get_game("duck_duck_bruce")
    rules = game.make_rules({"rounds": 1})
    policies = [get_strategy("duck_duck_bruce", "stop_at")(cards=int(c)).compiled_policy()
                for c in stop]
    seating = np.ascontiguousarray(np.broadcast_to(np.arange(3), (batch, 3)), np.int64)
    keys = game_keys(0, 3, np.arange(batch))
    fused(keys.deal[:8].astype(np.uint64), stop, declare, SUIT, VALUE, DIE, *scratch_, score[:8])
    times = {"fused: deal and play": [], "safari-sim: deal": [], "safari-sim: play": []}
    ours = []
    for _ in range(repeats):
        rs = keys.deal.astype(np.uint64)
        t0 = time.process_time()
        d_fused = fused(rs, stop, declare, SUIT, VALUE, DIE, *scratch_, score)
        t1 = time.process_time()
        state = game.init(rules, 3, keys.deal)
        t2 = time.process_time()
        d_ours = compiled.play_compiled(state, seating, policies, None)
        t3 = time.process_time()
        for k, t in zip(times, (t1 - t0, t2 - t1, t3 - t2)):
            times[k].append(t / batch * 1e6)
        ours.append(game.outcome(state).score)
    for k, v in times.items():
        print(f"{k:22s} fastest {min(v):.3f}  median {np.median(v):.3f} us a game")
    print(f"decisions a game: fused {d_fused / batch:.1f}, safari-sim {d_ours / batch:.1f}")
    print("mean scores by seat, fused:     ", np.round(score.mean(0), 3))
    print("mean scores by seat, safari-sim:", np.round(ours[-1].mean(0), 3))
    same = (score == ours[-1]).all(axis=1).mean()
    print(f"games with the same scores in every seat: {same:.2%}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)

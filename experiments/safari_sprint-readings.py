"""Safari Sprint: how the deal of races 2 and 3 (`reset_deal`) moves results
(docs/rules/safari_sprint.md, "Reset").

Usage: .venv/bin/python experiments/safari_sprint-readings.py GAMES [PLAYERS ...]
Plays the same deals under `reset_deal: setup` (the default) and `keep` with the baseline's four
strategies (experiments/safari_sprint-4p.yaml), seats rotated; prints each strategy's win share,
the explorer's race wins and how often the series' winners differ."""
import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from strategies import get_strategy

G = get_game("safari_sprint")
SPECS = [("backer", "backer", {"rival_weight": 0.6, "explorer_weight": 0.4, "thrift": 1.0,
                               "expect_later": True}),
         ("spoiler", "spoiler", {"leader_weight": 1.0, "own_weight": 0.5, "push_bonus": 2.0,
                                 "hold": True}),
         ("projector", "projector", {"margin_weight": 0.2}),
         ("thief", "backer", {"claim": "leader"})]
B = int(sys.argv[1])
for P in [int(x) for x in sys.argv[2:]] or [3, 4, 5]:
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % len(SPECS)
    keys = game_keys(29, P, B)
    res = {}
    for mode in ("setup", "keep"):
        S = [get_strategy(G.id, use)(**kw) for _, use, kw in SPECS]
        out = play_batch(G, G.make_rules(reset_deal=mode), P, S, seating, keys).outcome
        res[mode] = out
        share = {n: round(float(out.win[seating == k].sum() / (seating == k).any(1).sum()), 3)
                 for k, (n, _, _) in enumerate(SPECS)}
        print(P, mode, share, "explorer races won", round(float(
            out.stats["explorer_races_won"].mean() / 3), 4), "mean score",
            round(float(out.score.mean()), 2), flush=True)
    differ = (res["setup"].win != res["keep"].win).any(axis=1)
    se = np.sqrt(differ.mean() * (1 - differ.mean()) / B)
    print(P, "winners differ in", round(float(differ.mean()), 4), "+-", round(float(se), 4),
          f"of {B} series", flush=True)

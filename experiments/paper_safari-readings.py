"""How often two readings of Paper Safari change who wins (the figures in docs/rules/paper_safari.md).

Each reading is played against the printed default on the same deals (the same chance keys) by
the baseline tables of experiments/paper_safari-*p.yaml (seat s: strategy s; these heuristics
draw no random numbers, so the two runs differ only by the rule). A "round" is a match of
``wins_needed: 1``; the match figure plays the printed three wins. Run:

    .venv/bin/python experiments/paper_safari-readings.py [games]
"""

from __future__ import annotations

import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from strategies import get_strategy

TABLE = [("threshold", {"keep_below": 4}), ("column_matcher", {"keep_below": 3, "match_bonus": 3}),
         ("closer", {"keep_below": 4, "margin": 0, "rush": 0}), ("threshold", {"keep_below": 2}),
         ("threshold", {"keep_below": 6})]
READINGS = {"chain_face_up": False, "equal_negatives_zero": False}


def play(game, players, rules, n, seed):
    strats = [get_strategy("paper_safari", name)(**kw) for name, kw in TABLE[:players]]
    seating = np.tile(np.arange(players), (n, 1))
    return play_batch(game, game.make_rules(rules), players, strats, seating,
                      game_keys(seed, players, n))


def rescored_winner_changes(game, res, rules) -> float:
    """Share of rounds whose final grids, scored under ``rules``, have another lowest score (the
    same cards: the effect of the scoring alone, without the change of play)."""
    alt = game.make_rules(rules)
    changed = 0
    for b in range(len(res.seating)):
        s = np.array([game.field_score(alt, res.state.grid[b, p]) for p in range(res.state.n_players)])
        low = set(np.flatnonzero(s == s.min()))
        won = set(np.flatnonzero(res.outcome.win[b] > 0))
        changed += not won <= low or (len(low) == 1 and low != won)
    return changed / len(res.seating)


def main(n: int = 4000) -> None:
    game = get_game("paper_safari")
    print(f"{n} deals per table; rounds: matches of one round; shares of rounds (or matches)")
    print("players  reading                      played otherwise  round winner  same grids  "
          "match winner")
    for players in range(2, 6):
        base1 = play(game, players, {"wins_needed": 1}, n, players)
        base3 = play(game, players, {}, n, 100 + players).outcome
        o1 = base1.outcome
        chain = o1.stats["chain_closed_rounds"].sum() / o1.stats["rounds"].sum()
        print(f"{players:7d}  (printed rules: {chain:.1%} of rounds end by a Tarzan chain "
              "completing another grid)")
        for field, value in READINGS.items():
            a1 = play(game, players, {"wins_needed": 1, field: value}, n, players).outcome
            a3 = play(game, players, {field: value}, n, 100 + players).outcome
            other = ((o1.turns != a1.turns)
                     | (o1.stats["last_round_score"] != a1.stats["last_round_score"]).any(axis=1))
            r = (o1.win != a1.win).any(axis=1).mean()
            m = (base3.win != a3.win).any(axis=1).mean()
            same = (f"{rescored_winner_changes(game, base1, {field: value}):10.1%}"
                    if field == "equal_negatives_zero" else "         -")
            print(f"{players:7d}  {field + ': ' + str(value).lower():27s}  {other.mean():16.1%}  "
                  f"{r:12.1%}  {same}  {m:12.1%}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)

"""Savannah, `touch_face_down`: how often spaces touching only face-down cards arise, how often a
card goes there, and how often the reading changes who wins (docs/rules/savannah.md, Step A).
With a FIELD and two values, the same comparison for another rules field (e.g.
`buried_on_table none own`).

Both readings play the same deals. The shipped strategies' values are used, but ties are broken
by (card, row, column) rather than by the candidates' order, so that the two readings play the
very same game until a card goes where it touches only a face-down card: otherwise the extra
candidates reorder the list and change which of two equal plays is taken, for no reason of the
rules.

    .venv/bin/python scripts/savannah_touch_face_down.py [games [FIELD A B]]
"""

from __future__ import annotations

import sys

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from safari_sim.games.savannah import lookahead, turn as T
from strategies.base import Strategy

G = get_game("savannah")
NEAR = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx]


class Canonical(Strategy):
    """greedy, cautious (caution 0.6) or space_maker (space_value 1.5), ties broken by card and
    space."""

    name = "canonical"

    def __init__(self, kind: str):
        super().__init__()
        self.kind = self.label = kind

    def act(self, obs, legal, rng):
        v = obs.points.astype(np.float64)
        place = (obs.kind == 0)[:, None]
        if self.kind == "cautious":
            v = v - 0.6 * lookahead.threat(obs) * place
        elif self.kind == "space_maker":
            v = v + 1.5 * lookahead.new_unplayable(obs) * (place & (obs.phase == 1)[:, None])
        key = (obs.card.astype(np.int64) * 10**6 + (obs.y.astype(np.int64) + 500) * 1000
               + obs.x + 500)
        v = np.where(obs.valid, v, -np.inf)
        best = v == v.max(axis=1, keepdims=True)
        return np.argmin(np.where(best, key, np.iinfo(np.int64).max), axis=1)


def history(st, b):
    """(whether a space touched a face-down card and no face-up one, placements made into such
    a space) in phase one of game b, from its log."""
    up, down, arose, used = set(), set(), False, 0
    for t, _seat, a, y, x, _d, _e in st.ev[b, :st.g[b, T.NEV]]:
        if t == T.E_PLACE:
            sp = (int(y), int(x))
            used += bool(down) and not any((sp[0] + dy, sp[1] + dx) in up for dy, dx in NEAR)
            up.add(sp)
        elif t == T.E_CLAIM:
            down.add((int(a), int(y)))
        elif t == T.E_PHASE2:
            break
        arose = arose or any((fy + dy, fx + dx) not in up | down and not any(
            (fy + dy + ey, fx + dx + ex) in up for ey, ex in NEAR)
            for fy, fx in down for dy, dx in NEAR)
    return arose, used


TABLES = ((3, ["greedy"]), (3, ["greedy", "cautious", "space_maker"]),
          (2, ["greedy", "cautious"]), (2, ["greedy", "space_maker"]))


def play(players, strats, seating, n, rules):
    return play_batch(G, G.make_rules(rules), players, strats, seating, game_keys(7, players, n),
                      log=True)


def main(n: int) -> None:
    for players, names in TABLES:
        strats = [Canonical(k) for k in names]
        seating = (np.arange(players)[None, :] + np.arange(n)[:, None]) % len(strats)
        res = {t: play(players, strats, seating, n, {"touch_face_down": t}) for t in (True, False)}
        arose = np.array([history(res[False].state, b)[0] for b in range(n)])
        used = np.array([history(res[True].state, b)[1] for b in range(n)])
        changed = ~np.all(res[True].outcome.win == res[False].outcome.win, axis=1)
        share = {t: ", ".join(f"{nm} {(res[t].outcome.win * (seating == j)).sum() / n:.3f}"
                              for j, nm in enumerate(names)) for t in (True, False)}
        print(f"{players}p {'/'.join(names)}, {n} deals: such spaces arose in {arose.mean():.1%}; "
              f"a card went there in {np.mean(used > 0):.1%}; winner changed in "
              f"{changed.mean():.2%} (in games where none did: {changed[used == 0].mean():.2%}); "
              f"win shares, true: {share[True]}; false: {share[False]}", flush=True)


def compare(n: int, field: str, a, b) -> None:
    for players, names in TABLES:
        strats = [Canonical(k) for k in names]
        seating = (np.arange(players)[None, :] + np.arange(n)[:, None]) % len(strats)
        res = {v: play(players, strats, seating, n, {field: v}) for v in (a, b)}
        differ = ~np.all(res[a].outcome.score == res[b].outcome.score, axis=1)
        changed = ~np.all(res[a].outcome.win == res[b].outcome.win, axis=1)
        claims = {v: res[v].outcome.stats["unplayable_found"].sum(axis=1).mean() for v in (a, b)}
        share = {v: ", ".join(f"{nm} {(res[v].outcome.win * (seating == j)).sum() / n:.3f}"
                              for j, nm in enumerate(names)) for v in (a, b)}
        print(f"{players}p {'/'.join(names)}, {n} deals, {field} {a} vs {b}: games differ in "
              f"{differ.mean():.1%}, winner changed in {changed.mean():.2%}; claims a game "
              f"{claims[a]:.2f} vs {claims[b]:.2f}; win shares {a}: {share[a]}; {b}: {share[b]}",
              flush=True)


if __name__ == "__main__":
    import yaml

    if len(sys.argv) > 2:
        compare(int(sys.argv[1]), sys.argv[2], yaml.safe_load(sys.argv[3]),
                yaml.safe_load(sys.argv[4]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)

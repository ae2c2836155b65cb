"""Drama: how a game's lead moved, kept as a few numbers per game (no traces stored).

A game keeps one ``int32[B, drama_width(P)]`` array made by ``drama_new`` and calls
``drama_update(dr, b, score, lower_wins)`` from its kernels at each moment its running score can
change (after a turn, or after each round of a match: the game's rules notes say which). At the
end ``drama_stats`` turns it into per-game columns of the dataset:

- ``lead_changes``: times the sole leader changed from one seat to another (a tie keeps the last
  sole leader: leading, tied, leading again is no change);
- ``lead_from``: when the winner took the lead for good, as the share of the game's score updates
  before it (0: the winner led from the first update on; near 1: took the lead at the very end);
- ``comeback``: the largest deficit the winner overcame (points behind the best other seat);
- ``margin``: the winner's final lead over the best other seat, in the game's points.

Games with a tie for the win get NaN for ``lead_from``, ``comeback`` and ``margin`` (0 margin
would read as a close win).
"""

from __future__ import annotations

import numpy as np
from numba import njit

LAST = 0      # the last sole leader, -1 none yet
CHANGES = 1   # lead changes
UPDATES = 2   # score updates so far
BASE = 3      # then deficit[P] (largest so far), then lastnot[P] (last update not sole leader)

COLUMNS = ("lead_changes", "lead_from", "comeback", "margin")


def drama_width(n_players: int) -> int:
    return BASE + 2 * n_players


def drama_new(batch: int, n_players: int) -> np.ndarray:
    dr = np.zeros((batch, drama_width(n_players)), np.int32)
    dr[:, LAST] = -1
    return dr


@njit(cache=True, inline="always", _nrt=False)
def drama_update(dr, b, score, lower_wins):
    """Record game ``b``'s running ``score`` (one number per seat, any integer dtype)."""
    p = score.shape[0]
    sign = -1 if lower_wins else 1
    top = sign * score[0]
    for s in range(1, p):
        if sign * score[s] > top:
            top = sign * score[s]
    leader = -1
    for s in range(p):
        if sign * score[s] == top:
            leader = s if leader == -1 else -2
    k = dr[b, UPDATES] + 1
    dr[b, UPDATES] = k
    if leader >= 0:
        if dr[b, LAST] >= 0 and dr[b, LAST] != leader:
            dr[b, CHANGES] += 1
        dr[b, LAST] = leader
    for s in range(p):
        d = top - sign * score[s]
        if d > dr[b, BASE + s]:
            dr[b, BASE + s] = d
        if s != leader:
            dr[b, BASE + p + s] = k


def drama_stats(dr: np.ndarray, final_score: np.ndarray, win: np.ndarray,
                lower_wins: bool) -> dict[str, np.ndarray]:
    """The dataset columns (see the module docstring) from a finished batch's drama array, its
    final scores [B, P] and win shares [B, P]."""
    b, p = win.shape
    sole = win.max(axis=1) == 1.0
    w = np.argmax(win, axis=1)
    rows = np.arange(b)
    key = -final_score if lower_wins else final_score
    key = key.astype(np.float64)
    others = key.copy()
    others[rows, w] = -np.inf
    margin = key[rows, w] - others.max(axis=1)
    updates = np.maximum(dr[:, UPDATES], 1).astype(np.float64)
    lead_from = dr[rows, BASE + p + w] / updates
    comeback = dr[rows, BASE + w].astype(np.float64)
    nan = np.float64(np.nan)
    return {
        "lead_changes": dr[:, CHANGES].astype(np.int32),
        "lead_from": np.where(sole, lead_from, nan),
        "comeback": np.where(sole, comeback, nan),
        "margin": np.where(sole, margin, nan),
    }

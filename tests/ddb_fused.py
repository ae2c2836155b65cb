"""An independent Duck Duck Bruce for checking the game and timing it: the printed game for 3
players, one round, every seat a ``stop_at`` player (bank at ``stop[p]`` cards, declare
``declare[p]`` after a Bruce), written again from the rulebook as one compiled loop over whole
games, the state in locals and one game's scratch arrays. It calls nothing of the game module:
only the engine's stream (``chance.below``), so it draws the same numbers in the same order
(the shuffle; after a Bruce the die, then each stolen card's pick) and plays the same games.

Used by tests/test_duck_duck_bruce.py (every game's scores equal) and by
experiments/duck_duck_bruce-floor.py (how fast the game could play on this machine).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from safari_sim.engine.chance import below

SUIT = np.array([s for s in range(10) for _ in range(6)] + [-1] * 6, np.int64)
VALUE = np.array([1, 1, 2, 2, 3, 4] * 10 + [0] * 6, np.int64)
DIE = np.array([-1, 1, 1, 2, 3, 3], np.int64)


@njit(cache=True, _nrt=False)
def _nest(p, c, nest, nlen, best, suit, value):
    nest[p, nlen[p]] = c
    nlen[p] += 1
    if value[c] > best[p, suit[c]]:
        best[p, suit[c]] = value[c]


@njit(cache=True, _nrt=False)
def fused(rs, stop, declare, suit, value, die, deck, row, row_at, nest, nlen, best, score):
    """Play game b from stream rs[b] for every b; score[b, p]: the nest's highest card of each
    suit, added up. Returns the decisions made (take or bank, and steal or pass)."""
    C, P, S = 66, 3, 10
    decisions = 0
    for b in range(rs.shape[0]):
        for i in range(C):
            deck[i] = i
        for i in range(C - 1, 0, -1):
            j = below(rs, b, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        row_at[:] = -1
        nlen[:] = 0
        best[:, :] = 0
        pos, p, n = 0, 0, 0
        while pos < C:
            card = deck[pos]
            pos += 1
            s = suit[card]
            if s < 0:
                # Bruce: the row is lost; steal from the opponent with the most nest cards (the
                # lowest seat on ties), or pass when every other nest is empty
                for i in range(n):
                    row_at[suit[row[i]]] = -1
                n = 0
                target, most = -1, 0
                for q in range(P):
                    if q != p and nlen[q] > most:
                        target, most = q, nlen[q]
                decisions += 1
                if target >= 0:
                    face = die[below(rs, b, die.shape[0])]
                    src, dst, k = -1, -1, 0
                    if face >= declare[p]:
                        src, dst, k = target, p, declare[p]
                    elif face < 0:
                        src, dst, k = p, target, -face
                    if k > 0:
                        for _ in range(k):
                            m = nlen[src]
                            if m == 0:
                                break
                            j = below(rs, b, m)
                            c = nest[src, j]
                            nest[src, j] = nest[src, m - 1]
                            nlen[src] = m - 1
                            _nest(dst, c, nest, nlen, best, suit, value)
                        best[src, :] = 0
                        for i in range(nlen[src]):
                            c = nest[src, i]
                            if value[c] > best[src, suit[c]]:
                                best[src, suit[c]] = value[c]
                p = p + 1 if p < P - 1 else 0
                continue
            j = row_at[s]
            if j >= 0:
                # a double duck: the cards before the first match go to the nest, the rest are lost
                for i in range(n):
                    row_at[suit[row[i]]] = -1
                    if i < j:
                        _nest(p, row[i], nest, nlen, best, suit, value)
                n = 0
                p = p + 1 if p < P - 1 else 0
                continue
            row[n] = card
            row_at[s] = n
            n += 1
            bank = pos >= C          # the last card banks the row
            if not bank:
                decisions += 1
                bank = n >= stop[p]
            if bank:
                for i in range(n):
                    row_at[suit[row[i]]] = -1
                    _nest(p, row[i], nest, nlen, best, suit, value)
                n = 0
                p = p + 1 if p < P - 1 else 0
        for q in range(P):
            t = 0
            for s in range(S):
                t += best[q, s]
            score[b, q] = t
    return decisions


def play(keys_deal: np.ndarray, stop, declare) -> tuple[np.ndarray, int]:
    """(score int64[B, 3], decisions) of the games whose chance streams are ``keys_deal``."""
    batch = len(keys_deal)
    score = np.zeros((batch, 3), np.int64)
    d = fused(np.asarray(keys_deal, np.uint64).copy(), np.asarray(stop, np.int64),
              np.asarray(declare, np.int64), SUIT, VALUE, DIE, *scratch(), score)
    return score, d


def scratch():
    return (np.zeros(66, np.int64), np.zeros(66, np.int64), np.zeros(10, np.int64),
            np.zeros((3, 66), np.int64), np.zeros(3, np.int64), np.zeros((3, 10), np.int64))

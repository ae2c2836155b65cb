"""One play ahead, for strategies: what a placement opens for the next player, and which spaces
it makes unplayable. Uses only what the player to move knows (the face-up table, its own hand).

A placement changes what may go only at the ends of the row and the column it joins (a space
whose lines do not pass through it is unaffected), so both look at those at most four spaces.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .grid import BLOCKED, FULL, LOWBIT, POP, SPREAD, allowed, line_points, removed_count, scan
from .turn import P_LESS, P_LINE, P_REMOVAL, P_S

_BITS = np.int64(1) << np.arange(36, dtype=np.int64)


@njit(cache=True, _nrt=False)
def _line_end(board, b, q, d):
    e = q + d
    while board[b, e] > 0:
        e += d
    return e


@njit(cache=True, _nrt=False)
def _matching(n, am, nm):
    """Bits of the card types that would make this line a matching one (rule A or B)."""
    if n == 1:
        return (np.int64(63) << (6 * LOWBIT[am])) | (SPREAD[63] << LOWBIT[nm])
    if n >= 2 and (POP[am] == 1 or POP[nm] == 1):
        return FULL
    return np.int64(0)


@njit(cache=True, _nrt=False)
def _best_reply(nr, ar, mr, nc, ac, mc, possible, phase, prm):
    """The most any card of the types in ``possible`` scores in a space with these lines."""
    m = allowed(nr, ar, mr) & allowed(nc, ac, mc) & possible
    if m == 0:
        return 0
    mrow = _matching(nr, ar, mr)
    mcol = _matching(nc, ac, mc)
    best = 0
    for rm in range(2):
        for cm in range(2):
            sub = m & (mrow if rm else ~mrow) & (mcol if cm else ~mcol)
            if sub == 0:
                continue
            cr = 2 * (nr + 1) + rm if nr > 0 else 0
            cc = 2 * (nc + 1) + cm if nc > 0 else 0
            if phase == 2:
                pts = removed_count(cr, cc) * prm[P_REMOVAL]
            else:
                pts = (line_points(cr, prm[P_LINE], prm[P_LESS])
                       + line_points(cc, prm[P_LINE], prm[P_LESS]))
            if pts > best:
                best = pts
    return best


@njit(cache=True, _nrt=False)
def _lay(board, up_pos, up_card, fd_pos, i, on):
    """Write game i's table into the scratch grid row 0 (``on``) or clear it again."""
    for k in range(up_pos.shape[1]):
        if up_pos[i, k] < 0:
            break
        board[0, up_pos[i, k]] = up_card[i, k] + 1 if on else 0
    for k in range(fd_pos.shape[1]):
        if fd_pos[i, k] < 0:
            break
        board[0, fd_pos[i, k]] = BLOCKED if on else 0


@njit(cache=True, _nrt=False)
def _threat(board, up_pos, up_card, fd_pos, cand_cell, cand_card, n_cand, possible, phase, prm,
            out):
    S = prm[P_S]
    b = 0
    for i in range(n_cand.shape[0]):
        _lay(board, up_pos, up_card, fd_pos, i, True)
        for j in range(n_cand[i]):
            q = cand_cell[i, j]
            c = np.int64(cand_card[i, j])
            best = 0
            for d in (-1, 1, -S, S):
                e = _line_end(board, b, q, d)
                if board[b, e] == BLOCKED:
                    continue
                nr, ar, mr = scan(board, b, e, 1, q, c)
                nc, ac, mc = scan(board, b, e, S, q, c)
                pts = _best_reply(nr, ar, mr, nc, ac, mc, possible[i], phase[i], prm)
                if pts > best:
                    best = pts
            out[i, j] = best
        _lay(board, up_pos, up_card, fd_pos, i, False)


@njit(cache=True, _nrt=False)
def _new_unplayable(board, up_pos, up_card, fd_pos, cand_cell, cand_card, n_cand, avail,
                    last_copy, prm, out):
    S = prm[P_S]
    b = 0
    for i in range(n_cand.shape[0]):
        _lay(board, up_pos, up_card, fd_pos, i, True)
        for j in range(n_cand[i]):
            q = cand_cell[i, j]
            c = np.int64(cand_card[i, j])
            t = (c // 12) * 6 + c % 6
            after = avail[i]
            if last_copy[i, t]:
                after &= ~(np.int64(1) << t)
            k = 0
            for d in (-1, 1, -S, S):
                e = _line_end(board, b, q, d)
                if board[b, e] == BLOCKED:
                    continue
                nr, ar, mr = scan(board, b, e, 1, -1, -1)
                nc, ac, mc = scan(board, b, e, S, -1, -1)
                if (allowed(nr, ar, mr) & allowed(nc, ac, mc) & avail[i]) == 0:
                    continue        # unplayable already
                nr, ar, mr = scan(board, b, e, 1, q, c)
                nc, ac, mc = scan(board, b, e, S, q, c)
                if (allowed(nr, ar, mr) & allowed(nc, ac, mc) & after) == 0:
                    k += 1
            out[i, j] = k
        _lay(board, up_pos, up_card, fd_pos, i, False)


def _scratch(obs) -> np.ndarray:
    """One empty grid: each game's table is laid on it in turn, worked on, and cleared."""
    return np.zeros((1, obs.S * obs.S), np.int8)


def threat(obs) -> np.ndarray:
    """int16[n, W]: for each candidate, the most the next player could score at the ends of the
    lines it makes, with any card this player has not seen (not face up, not in its hand)."""
    out = np.zeros((len(obs.game), obs.width), np.int16)
    possible = ((obs.unseen > 0).astype(np.int64) * _BITS[None, :]).sum(axis=1)
    _threat(_scratch(obs), obs._up_pos, obs._up_card, obs._fd_pos, obs.cell, obs.card,
            obs.n_cand, possible, obs.phase.astype(np.int64), obs.prm, out)
    return out


def new_unplayable(obs) -> np.ndarray:
    """int16[n, W]: for each candidate, how many spaces at the ends of its lines it makes
    unplayable (by the rulebook's test: no card fits, or only cards all of whose copies are face
    up)."""
    out = np.zeros((len(obs.game), obs.width), np.int16)
    left = obs._copies[None, :].astype(np.int16) - obs._up_count
    avail = ((left > 0).astype(np.int64) * _BITS[None, :]).sum(axis=1)
    _new_unplayable(_scratch(obs), obs._up_pos, obs._up_card, obs._fd_pos, obs.cell, obs.card,
                    obs.n_cand, avail, left == 1, obs.prm, out)
    return out

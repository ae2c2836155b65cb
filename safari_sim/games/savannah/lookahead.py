"""One play ahead, for strategies: what a placement opens for the next player, and which spaces
it makes unplayable. Uses only what the player to move knows (the face-up table, where the
face-down cards lie, its own hand).

A space's options change only when a card in its row or column run comes or goes. A placement
puts a card at q, so in phase one the spaces it changes are the ends of q's row and column (at
most four); in phase two its removals also change every removed card's space and the ends of the
runs beside it. ``threat`` looks at exactly those spaces, on the board after the play's
removals. A space also becomes unplayable when the card played was the last copy (not face up)
of the only card type it could take: ``new_unplayable`` then looks at every space on the table.

Each game's table is laid on one scratch grid (the observation's lists of face-up cards and
face-down spaces), worked on and cleared again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .grid import (BLOCKED, FULL, LOWBIT, POP, SPREAD, allowed, line_code, line_points,
                   removed_count, scan)
from .turn import P_LESS, P_LINE, P_REMOVAL, P_S

_BITS = np.int64(1) << np.arange(36, dtype=np.int64)
_MAXW = 80      # spaces a phase-two play can change: 1 + 4 per removed card (at most 11 + 1)


@njit(cache=True, _nrt=False)
def _line_end(board, b, q, d):
    e = q + d
    while board[b, e] > 0:
        e += d
    return e


@njit(cache=True, _nrt=False)
def _touches(board, b, q, S):
    for dy in range(-S, S + 1, S):
        for dx in range(-1, 2):
            if (dy or dx) and board[b, q + dy + dx] > 0:
                return True
    return False


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
def _add(spaces, n, e):
    for k in range(n):
        if spaces[k] == e:
            return n
    spaces[n] = e
    return n + 1


@njit(cache=True, _nrt=False)
def _reply_after(board, q, c, phase, possible, prm, gone, was, spaces):
    """Play card c at q on the scratch grid (phase two: with its removals), the most the next
    player could score at a space the play changes, then put the grid back as it was."""
    S = prm[P_S]
    b = 0
    n_gone = 0
    cr = 0
    cc = 0
    if phase == 2:
        nr, ar, mr = scan(board, b, q, 1, -1, -1)
        nc, ac, mc = scan(board, b, q, S, -1, -1)
        cr = line_code(nr, ar, mr, c // 12, c % 6)
        cc = line_code(nc, ac, mc, c // 12, c % 6)
        for d, code in ((1, cr), (S, cc)):
            if code > 0:
                for sgn in (-1, 1):
                    r = q + sgn * d
                    while board[b, r] > 0:
                        gone[n_gone] = r
                        was[n_gone] = board[b, r]
                        n_gone += 1
                        r += sgn * d
    board[b, q] = c + 1
    keep = True
    if phase == 2 and n_gone > 0:
        if (cr > 0 and (cr & 1)) or (cc > 0 and (cc & 1)):
            keep = False                # a matching line: the played card goes too
            gone[n_gone] = q
            was[n_gone] = c + 1
            n_gone += 1
        for k in range(n_gone):
            board[b, gone[k]] = 0
    n = 0
    if keep:
        for d in (-1, 1, -S, S):
            n = _add(spaces, n, _line_end(board, b, q, d))
    for k in range(n_gone):
        r = gone[k]
        n = _add(spaces, n, r)
        if r == q:
            continue        # q was empty before the play: beside it only removals changed lines
        for d in (-1, 1, -S, S):
            n = _add(spaces, n, _line_end(board, b, r, d))
    best = 0
    for k in range(n):
        e = spaces[k]
        if board[b, e] != 0 or not _touches(board, b, e, S):
            continue                    # a card, a face-down card, or touching nothing now
        nr, ar, mr = scan(board, b, e, 1, -1, -1)
        nc, ac, mc = scan(board, b, e, S, -1, -1)
        pts = _best_reply(nr, ar, mr, nc, ac, mc, possible, phase, prm)
        if pts > best:
            best = pts
    for k in range(n_gone):
        board[b, gone[k]] = was[k]
    board[b, q] = 0
    return best


@njit(cache=True)
def _threat(board, up_pos, up_card, fd_pos, cand_cell, cand_card, n_cand, possible, phase, prm,
            out):
    gone = np.zeros(16, np.int64)
    was = np.zeros(16, np.int8)
    spaces = np.zeros(_MAXW, np.int64)
    for i in range(n_cand.shape[0]):
        _lay(board, up_pos, up_card, fd_pos, i, True)
        for j in range(n_cand[i]):
            out[i, j] = _reply_after(board, np.int64(cand_cell[i, j]), np.int64(cand_card[i, j]),
                                     phase[i], possible[i], prm, gone, was, spaces)
        _lay(board, up_pos, up_card, fd_pos, i, False)


@njit(cache=True, _nrt=False)
def _closed(board, e, vp, vc, avail, S):
    """Whether space e takes no card of the types in ``avail`` (with card vc at vp in thought)."""
    nr, ar, mr = scan(board, 0, e, 1, vp, vc)
    nc, ac, mc = scan(board, 0, e, S, vp, vc)
    return (allowed(nr, ar, mr) & allowed(nc, ac, mc) & avail) == 0


@njit(cache=True)
def _new_unplayable(board, up_pos, up_card, fd_pos, cand_cell, cand_card, n_cand, avail,
                    last_copy, prm, out):
    S = prm[P_S]
    b = 0
    opens = np.zeros(8 * up_pos.shape[1], np.int64)
    ends = np.zeros(4, np.int64)
    for i in range(n_cand.shape[0]):
        _lay(board, up_pos, up_card, fd_pos, i, True)
        # the open spaces: empty cells next to a face-up card (marked while listed)
        n_open = 0
        for k in range(up_pos.shape[1]):
            if up_pos[i, k] < 0:
                break
            for dy in range(-S, S + 1, S):
                for dx in range(-1, 2):
                    e = up_pos[i, k] + dy + dx
                    if board[b, e] == 0:
                        board[b, e] = -2
                        opens[n_open] = e
                        n_open += 1
        for k in range(n_open):
            board[b, opens[k]] = 0
        for j in range(n_cand[i]):
            q = np.int64(cand_cell[i, j])
            c = np.int64(cand_card[i, j])
            t = (c // 12) * 6 + c % 6
            after = avail[i]
            if last_copy[i, t]:
                after &= ~(np.int64(1) << t)    # every copy of it face up once it is played
            k = 0
            n_ends = 0
            for d in (-1, 1, -S, S):
                e = _line_end(board, b, q, d)
                if board[b, e] == BLOCKED:
                    continue
                ends[n_ends] = e
                n_ends += 1
                if not _closed(board, e, -1, -1, avail[i], S) and _closed(board, e, q, c, after, S):
                    k += 1
            if after != avail[i]:
                # its lines unchanged, a space may still have needed this very card type
                for m in range(n_open):
                    e = opens[m]
                    if e == q:
                        continue
                    skip = False
                    for z in range(n_ends):
                        if ends[z] == e:
                            skip = True
                    if skip:
                        continue
                    if not _closed(board, e, -1, -1, avail[i], S) and _closed(board, e, -1, -1,
                                                                               after, S):
                        k += 1
            out[i, j] = k
        _lay(board, up_pos, up_card, fd_pos, i, False)


def _scratch(obs) -> np.ndarray:
    """One empty grid: each game's table is laid on it in turn, worked on, and cleared."""
    return np.zeros((1, obs.S * obs.S), np.int8)


def threat(obs) -> np.ndarray:
    """int16[n, W]: for each candidate, the most the next player could score at a space the play
    changes (phase two: on the board after its removals), with any card this player has not
    seen (not face up, not in its hand)."""
    out = np.zeros((len(obs.game), obs.width), np.int16)
    possible = ((obs.unseen > 0).astype(np.int64) * _BITS[None, :]).sum(axis=1)
    _threat(_scratch(obs), obs._up_pos, obs._up_card, obs._fd_pos, obs.cell, obs.card,
            obs.n_cand, possible, obs.phase.astype(np.int64), obs.prm, out)
    return out


def new_unplayable(obs) -> np.ndarray:
    """int16[n, W]: for each candidate, how many spaces anywhere on the table it makes unplayable
    (by Step C's test on the face-up cards: no card fits, or only cards all of whose copies are
    face up): at the ends of its lines, and, when it is the last copy not face up of its type,
    wherever that type was the only one a space could take."""
    out = np.zeros((len(obs.game), obs.width), np.int16)
    left = obs._copies[None, :].astype(np.int16) - obs._up_count
    avail = ((left > 0).astype(np.int64) * _BITS[None, :]).sum(axis=1)
    _new_unplayable(_scratch(obs), obs._up_pos, obs._up_card, obs._fd_pos, obs.cell, obs.card,
                    obs.n_cand, avail, left == 1, obs.prm, out)
    return out

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

from ...engine.jit import KERNEL_HELPERS, refresh_cache
from .grid import (BLOCKED, FULL, LOWBIT, OPEN, POP, SPREAD, allowed, line_code, line_points,
                   removed_count, scan, unpack)
from . import grid as _grid
from . import turn as _turn
from .turn import P_LESS, P_LINE, P_REMOVAL, P_S

# these kernels call the sibling modules' kernels, whose code numba's cache keeps inside
# them: recompile when those change (engine/jit.py)
refresh_cache(__file__, KERNEL_HELPERS + (_grid.__file__, _turn.__file__))

_BITS = np.int64(1) << np.arange(36, dtype=np.int64)
_NO_POS = np.zeros(0, np.int32)      # new_unplayable_given without an open list
_NO_SC = np.zeros((1, 2), np.int64)
_MARK = -3      # an open space listed (new_unplayable_row), while it lists them
_MAXW = 80      # spaces a phase-two play can change, listed with repeats: 4, and 1 + 4 for
                # each of at most 11 cards removed


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
    return _best_reply_of(nr, allowed(nr, ar, mr), _matching(nr, ar, mr), nc,
                          allowed(nc, ac, mc), _matching(nc, ac, mc), possible, phase, prm)


@njit(cache=True, inline="always", _nrt=False)
def _best_reply_of(nr, alr, mrow, nc, alc, mcol, possible, phase, prm):
    """_best_reply from each line's length, the types it allows and those that match it."""
    m = alr & alc & possible
    if m == 0:
        return 0
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


@njit(cache=True, inline="always", _nrt=False)
def _empty(v):
    """An empty cell: 0 on the scratch grid, EMPTY or OPEN (grid.py) on a game's own grid."""
    return v == 0 or v == OPEN


NO_LIMIT = 1 << 30     # threat_one's ``limit`` when the exact threat is wanted


@njit(cache=True, _nrt=False)
def _reply_after(board, b, q, c, phase, possible, prm, gone, was, spaces, limit):
    """Play card c at q on grid row b (phase two: with its removals), the most the next
    player could score at a space the play changes, then put the grid back as it was. The
    spaces are looked at until one reply reaches ``limit``: a result below it is exact."""
    S = prm[P_S]
    n_gone = 0
    cr = 0
    cc = 0
    if phase == 2:
        nr, ar, mr = scan(board, b, q, np.int64(1), -1, -1)
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
    at_q = board[b, q]
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
            spaces[n] = _line_end(board, b, q, d)
            n += 1
    for k in range(n_gone):
        r = gone[k]
        spaces[n] = r
        n += 1
        if r == q:
            continue        # q was empty before the play: beside it only removals changed lines
        for d in (-1, 1, -S, S):
            spaces[n] = _line_end(board, b, r, d)
            n += 1
    best = 0
    for k in range(n):
        e = spaces[k]
        v = board[b, e]
        if not _empty(v) or not _touches(board, b, e, S):
            continue                    # a card, a face-down card, or touching nothing now
        nr, ar, mr = scan(board, b, e, np.int64(1), -1, -1)
        nc, ac, mc = scan(board, b, e, S, -1, -1)
        pts = _best_reply(nr, ar, mr, nc, ac, mc, possible, phase, prm)
        if pts > best:
            best = pts
        # looked at: marked (an empty cell still ends every line) so that it is looked at once
        board[b, e] = _MARK
        spaces[k] = -1 - (2 * e + (1 if v == OPEN else 0))
        if best >= limit:
            break       # the spaces not looked at are not marked: put back below as they are
    for k in range(n):
        if spaces[k] < 0:
            m = -1 - spaces[k]
            board[b, m >> 1] = OPEN if m & 1 else 0
    for k in range(n_gone):
        board[b, gone[k]] = was[k]
    board[b, q] = at_q
    return best


@njit(cache=True, inline="always", _nrt=False)
def _run(board, b, p, d):
    """The face-up cards from p + d on along d (p excluded): (count, animal bits, number bits,
    the first space past them)."""
    n = 0
    am = np.int64(0)
    nm = np.int64(0)
    r = p + d
    while board[b, r] > 0:
        v = np.int64(board[b, r]) - 1
        am |= np.int64(1) << (v // 12)
        nm |= np.int64(1) << (v % 6)
        n += 1
        r += d
    return n, am, nm, r


# q_lines(...) fills qd[k, :] for the 4 directions k (left, right, up, down) from an empty space q
Q_END, Q_OPEN, Q_NSIDE, Q_ALONG, Q_PERP, Q_BEFORE, Q_LISTED, Q_QLINE = 0, 1, 2, 3, 6, 9, 10, 11
Q_GONE = 14     # qd[0, Q_GONE]: threat_one of a phase-two play at q that clears q too, or -1
Q_PALLOW, Q_PMATCH = 15, 16     # the types e's other line allows, and those that match it
Q_WIDTH = 17
# what a caller of q_lines_listed reads besides the lines: Q_PMATCH (threat_one), Q_LISTED
# (unplayable_one); q_lines fills in both
NEED_MATCH, NEED_LISTED = 1, 2


@njit(cache=True, inline="always", _nrt=False)
def _put3(qd, k, col, n, am, nm):
    qd[k, col] = n
    qd[k, col + 1] = am
    qd[k, col + 2] = nm


@njit(cache=True, _nrt=False)
def q_lines(board, b, q, S, qd):
    """What a play at q changes, for each direction k: the end e of q's run that way (Q_END),
    whether e is empty (Q_OPEN; else a face-down card: no space), how many cards lie between q
    and e (Q_NSIDE), e's line along k now (Q_ALONG: n, animal bits, number bits; it stops at
    the empty q), e's other line (Q_PERP), the cards e may take now (Q_BEFORE) and whether e is
    an open space now, empty next to a face-up card (Q_LISTED); and q's own line along k
    (Q_QLINE). After a card c goes to q, e's line along k is ALONG + c + QLINE less the NSIDE
    cards both hold: the scan of ``_reply_after`` and ``_closed`` without walking it for every
    card."""
    qd[0, Q_GONE] = -1
    rn = cn = 0
    ra = rm = ca = cm = np.int64(0)
    for k in range(4):
        d = -1 if k == 0 else (1 if k == 1 else (-S if k == 2 else S))
        n, am, nm, e = _run(board, b, q, d)
        if k < 2:
            rn += n
            ra |= am
            rm |= nm
        else:
            cn += n
            ca |= am
            cm |= nm
        qd[k, Q_END] = e
        qd[k, Q_NSIDE] = n
        u = _empty(board[b, e])
        qd[k, Q_OPEN] = u
        if u:
            n2, a2, m2, _ = _run(board, b, e, d)
            _put3(qd, k, Q_ALONG, n + n2, am | a2, nm | m2)
            n3, a3, m3 = scan(board, b, e, S if k < 2 else 1, -1, -1)
            _put3(qd, k, Q_PERP, n3, a3, m3)
            qd[k, Q_PALLOW] = allowed(n3, a3, m3)
            qd[k, Q_PMATCH] = _matching(n3, a3, m3)
            qd[k, Q_BEFORE] = allowed(n + n2, am | a2, nm | m2) & qd[k, Q_PALLOW]
            qd[k, Q_LISTED] = _touches(board, b, e, S)
    for k in range(4):
        if k < 2:
            _put3(qd, k, Q_QLINE, rn, ra, rm)
        else:
            _put3(qd, k, Q_QLINE, cn, ca, cm)


@njit(cache=True, _nrt=False)
def q_lines_listed(board, b, q, S, qd, pos, sc, need):
    """``q_lines`` read from a game's open list: ``pos[e]`` is 1 + the index of space e in the
    list (0: not listed) and ``sc[b]`` holds each listed space's lines packed and the card
    types it may take (turn.py keeps them up to date): only the walks from q to its line ends
    are left to do. The same numbers as ``q_lines``, Q_PMATCH and Q_LISTED only as ``need``
    asks (NEED_MATCH, NEED_LISTED)."""
    iq = pos[q] - 1
    if iq < 0:
        q_lines(board, b, q, S, qd)
        return
    F = sc.shape[1] >> 1
    qd[0, Q_GONE] = -1
    nr, ar, mr, nc, ac, mc = unpack(sc[b, iq])
    for k in range(4):
        d = -1 if k == 0 else (1 if k == 1 else (-S if k == 2 else S))
        if k < 2:
            _put3(qd, k, Q_QLINE, nr, ar, mr)
        else:
            _put3(qd, k, Q_QLINE, nc, ac, mc)
        n, am, nm, e = _run(board, b, q, d)
        qd[k, Q_END] = e
        qd[k, Q_NSIDE] = n
        u = _empty(board[b, e])
        qd[k, Q_OPEN] = u
        if u:
            ie = pos[e] - 1
            if ie >= 0:
                er, ea, em, ec, eca, ecm = unpack(sc[b, ie])
                if k < 2:
                    _put3(qd, k, Q_ALONG, er, ea, em)
                    _put3(qd, k, Q_PERP, ec, eca, ecm)
                else:
                    _put3(qd, k, Q_ALONG, ec, eca, ecm)
                    _put3(qd, k, Q_PERP, er, ea, em)
                qd[k, Q_BEFORE] = sc[b, F + ie]
            else:
                n2, a2, m2, _ = _run(board, b, e, d)
                _put3(qd, k, Q_ALONG, n + n2, am | a2, nm | m2)
                n3, a3, m3 = scan(board, b, e, S if k < 2 else 1, -1, -1)
                _put3(qd, k, Q_PERP, n3, a3, m3)
                qd[k, Q_BEFORE] = (allowed(n + n2, am | a2, nm | m2) & allowed(n3, a3, m3))
            n3 = qd[k, Q_PERP]
            a3 = qd[k, Q_PERP + 1]
            m3 = qd[k, Q_PERP + 2]
            qd[k, Q_PALLOW] = allowed(n3, a3, m3)
            if need & NEED_MATCH:
                qd[k, Q_PMATCH] = _matching(n3, a3, m3)
            if need & NEED_LISTED:
                # next to the card before it, or next to q: then it touches what q touches
                qd[k, Q_LISTED] = True if n > 0 else _touches(board, b, e, S)


@njit(cache=True, inline="always", _nrt=False)
def _along_after(qd, k, a, ni):
    """e's line along direction k once card (a, ni) is at q (see ``q_lines``)."""
    n = qd[k, Q_ALONG] + qd[k, Q_QLINE] - qd[k, Q_NSIDE] + 1
    am = qd[k, Q_ALONG + 1] | qd[k, Q_QLINE + 1] | (np.int64(1) << a)
    nm = qd[k, Q_ALONG + 2] | qd[k, Q_QLINE + 2] | (np.int64(1) << ni)
    return n, am, nm


@njit(cache=True, inline="always", _nrt=False)
def threat_one(board, b, q, c, phase, possible, prm, qd, gone, was, spaces, limit):
    """``_reply_after`` for card c at q, with ``q_lines`` of q in qd: a play that removes
    nothing (phase one, or a phase-two play touching only on a corner) changes only the ends
    of q's lines, worked out from qd; a phase-two removal is played in thought on the grid.
    Once a reply reaches ``limit`` the rest are not looked at: a result below ``limit`` is the
    threat, one at or above it says only that the threat is that much or more (``NO_LIMIT``:
    always the threat)."""
    a = c // 12
    ni = c % 6
    if phase == 2:
        cr = line_code(qd[0, Q_QLINE], qd[0, Q_QLINE + 1], qd[0, Q_QLINE + 2], a, ni)
        cc = line_code(qd[2, Q_QLINE], qd[2, Q_QLINE + 1], qd[2, Q_QLINE + 2], a, ni)
        if cr > 0 or cc > 0:
            # a matching line clears q too: what is left does not depend on which card it was
            # (the runs beside q go whatever the card, as it may go there: cr, cc > 0)
            cleared = (cr > 0 and (cr & 1)) or (cc > 0 and (cc & 1))
            key = (cr > 0) * 2 + (cc > 0)
            if cleared and qd[0, Q_GONE] >= 0 and qd[1, Q_GONE] == key:
                return qd[0, Q_GONE]
            v = _reply_after(board, b, q, c, phase, possible, prm, gone, was, spaces, limit)
            if cleared and v < limit:
                qd[0, Q_GONE] = v
                qd[1, Q_GONE] = key
            return v
    best = 0
    for k in range(4):
        if not qd[k, Q_OPEN]:
            continue
        n, am, nm = _along_after(qd, k, a, ni)
        al = allowed(n, am, nm)
        if (al & qd[k, Q_PALLOW] & possible) == 0:
            continue            # no reply there (_best_reply_of's first test)
        mt = _matching(n, am, nm)
        # the row's line first, then the column's (one _best_reply_of site, inlined once)
        r0, r1, r2 = n, al, mt
        c0, c1, c2 = qd[k, Q_PERP], qd[k, Q_PALLOW], qd[k, Q_PMATCH]
        if k >= 2:
            r0, r1, r2, c0, c1, c2 = c0, c1, c2, r0, r1, r2
        pts = _best_reply_of(r0, r1, r2, c0, c1, c2, possible, phase, prm)
        if pts > best:
            best = pts
            if best >= limit:
                break
    return best


@njit(cache=True, inline="always", _nrt=False)
def threat_row(board, b, cells, cards, n_cand, possible, phase, prm, out, gone, was, spaces,
               qd):
    """out[j] for the first ``n_cand`` candidates (spaces ``cells``, cards ``cards``) of the
    table on grid row b: see ``threat``. The grid is left as it was."""
    S = prm[P_S]
    last = -1
    for j in range(n_cand):
        q = np.int64(cells[j])
        if q != last:
            q_lines(board, b, q, S, qd)
            last = q
        out[j] = threat_one(board, b, q, np.int64(cards[j]), phase, possible, prm, qd, gone,
                            was, spaces, NO_LIMIT)


@njit(cache=True)
def _threat(board, up_pos, up_card, fd_pos, cand_cell, cand_card, n_cand, possible, phase, prm,
            out):
    gone = np.zeros(16, np.int64)
    was = np.zeros(16, np.int8)
    spaces = np.zeros(_MAXW, np.int64)
    qd = np.zeros((4, Q_WIDTH), np.int64)
    for i in range(n_cand.shape[0]):
        _lay(board, up_pos, up_card, fd_pos, i, True)
        threat_row(board, np.int64(0), cand_cell[i], cand_card[i], n_cand[i], possible[i], phase[i], prm,
                   out[i], gone, was, spaces, qd)
        _lay(board, up_pos, up_card, fd_pos, i, False)


@njit(cache=True, _nrt=False)
def _closed(board, b, e, vp, vc, avail, S):
    """Whether space e takes no card of the types in ``avail`` (with card vc at vp in thought)."""
    nr, ar, mr = scan(board, b, e, np.int64(1), vp, vc)
    nc, ac, mc = scan(board, b, e, S, vp, vc)
    return (allowed(nr, ar, mr) & allowed(nc, ac, mc) & avail) == 0


@njit(cache=True, inline="always", _nrt=False)
def _single(x):
    """The type t if x is the one bit 1 << t, else -1."""
    if x == 0 or (x & (x - 1)) != 0:
        return -1
    t = 0
    while (x >> t) & 1 == 0:
        t += 1
    return t


@njit(cache=True, inline="always", _nrt=False)
def new_unplayable_row(board, b, ups, n_up, cells, cards, n_cand, avail, last_copy, prm, out,
                       opens, was, only, qd):
    """out[j] for the first ``n_cand`` candidates of the table on grid row b, whose face-up
    cards lie at ``ups[:n_up]``: see ``new_unplayable``. The grid is left as it was.

    A space closes at an end of the play's lines when its lines with the card no longer take
    an available card type (``q_lines``); elsewhere, when the card is the last copy of its type
    t not face up, wherever t was the only available type a space could take: ``only[t]``
    counts those open spaces once for every candidate (less q and the ends, counted above)."""
    S = prm[P_S]
    only_types(board, b, ups, n_up, avail, S, opens, was, only)
    new_unplayable_given(board, b, cells, cards, n_cand, avail, last_copy, S, out, only, qd,
                         _NO_POS, _NO_SC)


@njit(cache=True, inline="always", _nrt=False)
def only_types(board, b, ups, n_up, avail, S, opens, was, only):
    """only[t]: the open spaces (empty cells next to a face-up card) that may take no available
    card type but t."""
    # the open spaces: empty cells next to a face-up card (marked while listed)
    n_open = 0
    for k in range(n_up):
        for dy in range(-S, S + 1, S):
            for dx in range(-1, 2):
                e = ups[k] + dy + dx
                v = board[b, e]
                if _empty(v):
                    board[b, e] = _MARK
                    opens[n_open] = e
                    was[n_open] = v
                    n_open += 1
    for k in range(n_open):
        board[b, opens[k]] = was[k]
    for t in range(36):
        only[t] = 0
    for m in range(n_open):
        e = opens[m]
        t = _single(_allowed_now(board, b, e, S) & avail)
        if t >= 0:
            only[t] += 1


@njit(cache=True, inline="always", _nrt=False)
def new_unplayable_given(board, b, cells, cards, n_cand, avail, last_copy, S, out, only, qd, pos,
                         sc):
    """new_unplayable_row's candidates, with ``only`` (``only_types``) counted; ``pos``, ``sc``
    as ``q_lines_listed`` (an empty ``pos``: no open list, ``q_lines`` walks)."""
    last = -1
    q_only = -1
    for j in range(n_cand):
        q = np.int64(cells[j])
        if q != last:
            q_only = unplayable_at(board, b, q, avail, S, qd, pos, sc)
            last = q
        out[j] = unplayable_one(np.int64(cards[j]), avail, last_copy, only, qd, q_only)


@njit(cache=True, _nrt=False)
def unplayable_at(board, b, q, avail, S, qd, pos, sc):
    """What ``unplayable_one`` needs of a space q: its ``q_lines`` in qd, and the type it
    alone may take now if it is an open space (``_single``), returned (-1: none)."""
    if pos.shape[0]:
        q_lines_listed(board, b, q, S, qd, pos, sc, np.int64(NEED_LISTED))
    else:
        q_lines(board, b, q, S, qd)
    q_only = -1
    if _empty(board[b, q]) and _touches(board, b, q, S):
        q_only = _single(avail & allowed(qd[0, Q_QLINE], qd[0, Q_QLINE + 1], qd[0, Q_QLINE + 2])
                         & allowed(qd[2, Q_QLINE], qd[2, Q_QLINE + 1], qd[2, Q_QLINE + 2]))
    return q_only


@njit(cache=True, inline="always", _nrt=False)
def unplayable_one(c, avail, last_copy, only, qd, q_only):
    """How many spaces card c at q makes unplayable (qd, q_only: ``unplayable_at`` of q). At
    most 4 + only[t] (t its type) when it is the last copy not face up of t, else 4."""
    a = c // 12
    ni = c % 6
    t = a * 6 + ni
    after = avail
    if last_copy[t]:
        after &= ~(np.int64(1) << t)    # every copy of it face up once it is played
    k = 0
    for z in range(4):
        if not qd[z, Q_OPEN] or (qd[z, Q_BEFORE] & avail) == 0:
            continue
        n, am, nm = _along_after(qd, z, a, ni)
        if (allowed(n, am, nm) & qd[z, Q_PALLOW] & after) == 0:
            k += 1
    if after != avail:
        # its lines unchanged, a space may still have needed this very card type
        k += only[t]
        if q_only == t:
            k -= 1
        for z in range(4):
            if qd[z, Q_OPEN] and qd[z, Q_LISTED] and _single(qd[z, Q_BEFORE] & avail) == t:
                k -= 1
    return k


@njit(cache=True, inline="always", _nrt=False)
def _allowed_now(board, b, e, S):
    nr, ar, mr = scan(board, b, e, np.int64(1), -1, -1)
    nc, ac, mc = scan(board, b, e, S, -1, -1)
    return allowed(nr, ar, mr) & allowed(nc, ac, mc)


@njit(cache=True)
def _new_unplayable(board, up_pos, up_card, fd_pos, cand_cell, cand_card, n_cand, avail,
                    last_copy, prm, out):
    opens = np.zeros(8 * up_pos.shape[1], np.int64)
    was = np.zeros(8 * up_pos.shape[1], np.int8)
    only = np.zeros(36, np.int64)
    qd = np.zeros((4, Q_WIDTH), np.int64)
    for i in range(n_cand.shape[0]):
        _lay(board, up_pos, up_card, fd_pos, i, True)
        n_up = 0
        while n_up < up_pos.shape[1] and up_pos[i, n_up] >= 0:
            n_up += 1
        new_unplayable_row(board, np.int64(0), up_pos[i], n_up, cand_cell[i], cand_card[i], n_cand[i],
                           avail[i], last_copy[i], prm, out[i], opens, was, only, qd)
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

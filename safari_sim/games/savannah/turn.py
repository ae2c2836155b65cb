"""The turn, in the rulebook's order: Beginning the First Phase (opening placements), On Your
Turn (Step A play, Step B score, Step C unplayable spaces, Step D draw), Ending the First Phase,
the Second Phase (removals) and Ending the Second Phase.

Kernels loop over the batch with scalar logic. After every decision they resolve everything up to
the next one and list its candidates: each legal (hand slot, space) with the points it scores now
(phase one) or the cards it removes (phase two), packed at the front of ``cand_*[b]``; the action
is the index in that list. A claim's choice (which of the two drawn cards goes back on the 1st
pile) is a second decision kind with two candidates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import drama
from ...engine.chance import shuffle_row
from ...engine.events import log_event
from ...engine.jit import KERNEL_HELPERS, refresh_cache
from . import grid as _grid
from .grid import (BLOCKED, EMPTY, FULL, LOWBIT, OPEN, POP, SPREAD, allowed, corner_only_once,
                   line_code, line_points, pack, removed_count, scan, unpack)

# these kernels call the sibling modules' kernels, whose code numba's cache keeps inside
# them: recompile when those change (engine/jit.py)
refresh_cache(__file__, KERNEL_HELPERS + (_grid.__file__,))

# phases
OPENING, ONE, TWO, OVER = 0, 1, 2, 3
# decision kinds (obs.kind)
PLACE, KEEP = 0, 1

# per-game scalars g[b, ...]
(CUR, PHASE, KIND, N_UP, N1, N2, N_FD, N_BOX, N_CAND, N_UNPL, I_UNPL, CLAIMS_TURN, KEEP1,
 KEEP2, TURNS, TURNS1, NEV, CLEARED, ERR, N_FR, FR_OK, N_FD1, DRAWN2) = range(23)
NG = 23 + 2   # DRAWN2 .. DRAWN2 + 2: cards each seat drew in phase two
# N_FD1: face-down cards shuffled into the draw pile when phase one ended (fd_* keep them, for
# the worlds of a search player: a seat knows where the cards it buried went)

# params vector
(P_PLAYERS, P_HAND, P_CARDS, P_S, P_ORIGIN, P_LINE, P_LESS, P_CLAIM, P_MAXCLAIMS, P_REMOVAL,
 P_OPEN_DRAW, P_K, P_BURIED, P_TOUCH_FD) = range(14)
NP = 14
# P_TOUCH_FD: a card may go where it touches only a face-down card (Rules.touch_face_down)
# P_BURIED: which face-down cards count as "already on the table" in Step C (rules.BURIED)
BURIED_NONE, BURIED_OWN, BURIED_ALL = 0, 1, 2

# event log ev[b, i] = (type, seat, a, b, c, d, e)
E_PLACE, E_CLAIM, E_PHASE2, E_END = 1, 2, 3, 4
_STALE = -3     # an open space whose cached lines are being worked out again (_refresh_removed)
# error flags (g[b, ERR]); the proofs in grid.py say they never happen, the tests check it
ERR_EDGE, ERR_CANDS = 1, 2


@njit(cache=True, _nrt=False)
def _add_cand(b, g, cand_slot, cand_card, cand_cell, cand_pts, s, card, q, pts):
    k = g[b, N_CAND]
    if k >= cand_slot.shape[1]:
        g[b, ERR] |= ERR_CANDS
        return
    cand_slot[b, k] = s
    cand_card[b, k] = card
    cand_cell[b, k] = q
    cand_pts[b, k] = pts
    g[b, N_CAND] = k + 1


@njit(cache=True, inline="always", _nrt=False)
def _push(b, k, g, cand_slot, cand_card, cand_cell, cand_pts, s, card, q, pts):
    """``_add_cand`` with the count held in a local: returns the new count."""
    if k >= cand_slot.shape[1]:
        g[b, ERR] |= ERR_CANDS
        return k
    cand_slot[b, k] = s
    cand_card[b, k] = card
    cand_cell[b, k] = q
    cand_pts[b, k] = pts
    return k + 1


@njit(cache=True, _nrt=False)
def _set_legal(b, g, legal, old):
    """legal[b] is True exactly on the first N_CAND entries (it was on the first ``old``)."""
    k = g[b, N_CAND]
    for j in range(old, k):
        legal[b, j] = True
    for j in range(k, old):
        legal[b, j] = False


# ---- The open spaces: kept up to date as cards come and go ----------------------------------

@njit(cache=True, _nrt=False)
def _unlist(b, q, g, fr, sc):
    """Take space q off the open list (its cached lines move with the last entry)."""
    n = g[b, N_FR] - 1
    F = sc.shape[1] >> 1
    for i in range(n + 1):
        if fr[b, i] == q:
            fr[b, i] = fr[b, n]
            sc[b, i] = sc[b, n]
            sc[b, F + i] = sc[b, F + n]
            break
    g[b, N_FR] = n


@njit(cache=True, _nrt=False)
def _list(b, q, g, board, fr):
    board[b, q] = OPEN
    fr[b, g[b, N_FR]] = q
    g[b, N_FR] += 1


@njit(cache=True, _nrt=False)
def _scan_entry(b, i, board, fr, sc, S):
    q = np.int64(fr[b, i])
    nr, ar, mr = scan(board, b, q, np.int64(1), -1, -1)
    nc, ac, mc = scan(board, b, q, S, -1, -1)
    sc[b, i] = pack(nr, ar, mr, nc, ac, mc)
    sc[b, (sc.shape[1] >> 1) + i] = allowed(nr, ar, mr) & allowed(nc, ac, mc)


@njit(cache=True, _nrt=False)
def _refresh(b, q, n0, g, board, fr, sc, S):
    """Keep the cached lines right after a card went up at q: only the new open spaces (list
    entries from n0 on) and the spaces at the ends of q's row and column have new lines."""
    if not g[b, FR_OK]:
        return
    for i in range(n0, g[b, N_FR]):
        _scan_entry(b, i, board, fr, sc, S)
    for d in (-1, 1, -S, S):
        e = q + d
        while board[b, e] > 0:
            e += d
        if board[b, e] == OPEN:
            for i in range(n0):
                if fr[b, i] == e:
                    _scan_entry(b, i, board, fr, sc, S)
                    break


@njit(cache=True, inline="always", _nrt=False)
def _run_len(board, b, q, d):
    """How many face-up cards follow q along d."""
    n = 0
    e = q + d
    while board[b, e] > 0:
        n += 1
        e += d
    return n


@njit(cache=True, _nrt=False)
def _touches_up(board, b, q, S):
    for dy in range(-S, S + 1, S):
        for dx in range(-1, 2):
            if board[b, q + dy + dx] > 0:
                return True
    return False


@njit(cache=True, _nrt=False)
def _block(b, q, g, board, fr, sc, prm):
    """A face-down card fills the open space q (the other spaces' lines do not change: an empty
    space ends a line as a face-down card does). With ``touch_face_down`` it is a card on the
    table that a new card may touch: the empty spaces around it open."""
    if board[b, q] == OPEN:
        _unlist(b, q, g, fr, sc)
    board[b, q] = BLOCKED
    if prm[P_TOUCH_FD]:
        S = prm[P_S]
        n0 = g[b, N_FR]
        for dy in range(-S, S + 1, S):
            for dx in range(-1, 2):
                if board[b, q + dy + dx] == EMPTY:
                    _list(b, q + dy + dx, g, board, fr)
        if g[b, FR_OK]:
            for i in range(n0, g[b, N_FR]):
                _scan_entry(b, i, board, fr, sc, S)


@njit(cache=True, _nrt=False)
def _spaces(b, g, board, fr, sc, S):
    """The open spaces (fr[b]) with both lines through each (sc[b], packed). The lines are
    kept up to date as cards go up (``_refresh``), are filled in (``_block``) or come back into
    play; after phase two's removals they are all recomputed here."""
    nf = g[b, N_FR]
    if g[b, FR_OK]:
        return nf
    for i in range(nf):
        _scan_entry(b, i, board, fr, sc, S)
    g[b, FR_OK] = 1
    return nf


@njit(cache=True, _nrt=False)
def _fixed_points(n, am, nm, phase, prm):
    """Phase one: what a line scores whichever allowed card joins it (-1 if that depends on the
    card: a single card, or phase two where the lines' scores combine)."""
    if n == 0 and phase == ONE:
        return 0
    if n < 2 or phase != ONE:
        return -1
    return line_points(2 * (n + 1) + (1 if POP[am] == 1 or POP[nm] == 1 else 0), prm[P_LINE],
                       prm[P_LESS])


@njit(cache=True, inline="always", _nrt=False)
def _matching_bits(n, am, nm):
    """Bits of the card types that would make this line a matching one (rule A or B; 0 with
    no line); among the types the line allows, the others make it all-different (rule C)."""
    if n == 1:
        return (np.int64(63) << (6 * LOWBIT[am])) | (SPREAD[63] << LOWBIT[nm])
    if n >= 2 and (POP[am] == 1 or POP[nm] == 1):
        return FULL
    return np.int64(0)


@njit(cache=True, inline="always", _nrt=False)
def _slot_type(types, hand, b, p, s):
    """The type of hand slot s, from ``types`` (_gen_place) for the first 10 slots: read once
    per turn, not worked out again from the card at every space (the listing is 7% cheaper)."""
    if s < 10:
        return (types >> (6 * s)) & 63
    c = np.int64(hand[b, p, s])
    return (c // 12) * 6 + c % 6


@njit(cache=True, _nrt=False)
def _gen_place(b, g, board, up_pos, hand, hand_n, fr, sc, cand_slot, cand_card, cand_cell,
               cand_pts, legal, prm):
    """List every legal placement of the player to move with what it scores now."""
    old = g[b, N_CAND]
    g[b, N_CAND] = 0
    p = g[b, CUR]
    S = prm[P_S]
    nh = hand_n[b, p]
    phase = g[b, PHASE]
    k = 0           # candidates listed (g[N_CAND] once they are all in)
    if g[b, N_UP] == 0:
        # the dealer's first card: where it goes does not matter, the grid has no borders
        for s in range(nh):
            _add_cand(b, g, cand_slot, cand_card, cand_cell, cand_pts, np.int64(s),
                      np.int64(hand[b, p, s]), np.int64(prm[P_ORIGIN]), np.int64(0))
        k = g[b, N_CAND]
    else:
        nf = _spaces(b, g, board, fr, sc, S)
        F = sc.shape[1] >> 1
        held = np.int64(0)      # the card types in the hand
        types = np.int64(0)     # the first 10 slots' types, slot s in bits 6s .. 6s + 5
        for s in range(nh):
            c = np.int64(hand[b, p, s])
            t = (c // 12) * 6 + c % 6
            held |= np.int64(1) << t
            if s < 10:
                types |= t << (6 * s)
        line = prm[P_LINE]
        less = prm[P_LESS]
        removal = prm[P_REMOVAL]
        for i in range(nf):
            q = fr[b, i]
            if phase == OPENING:
                if corner_only_once(board, b, q, S):
                    for s in range(nh):
                        k = _push(b, k, g, cand_slot, cand_card, cand_cell, cand_pts, s,
                                  hand[b, p, s], q, 0)
                continue
            m = sc[b, F + i]
            if (m & held) == 0:
                continue        # no card of the hand may go here
            nr, ar, mr, nc, ac, mc = unpack(sc[b, i])
            # a line of two or more cards scores the same whichever allowed card joins it
            rfix = _fixed_points(nr, ar, mr, phase, prm)
            cfix = _fixed_points(nc, ac, mc, phase, prm)
            if rfix >= 0 and cfix >= 0:
                pts = rfix + cfix
                for s in range(nh):
                    if ((m >> _slot_type(types, hand, b, p, s)) & 1) != 0:
                        k = _push(b, k, g, cand_slot, cand_card, cand_cell, cand_pts, s,
                                  hand[b, p, s], q, pts)
                continue
            # an allowed card's line code is 2 * (length + 1), plus 1 if it makes the line a
            # matching one (``line_code``, 0 with no line): the same numbers, by bit tests
            br = 2 * (nr + 1) if nr > 0 else 0
            bc = 2 * (nc + 1) if nc > 0 else 0
            mrow = _matching_bits(nr, ar, mr)
            mcol = _matching_bits(nc, ac, mc)
            for s in range(nh):
                t = _slot_type(types, hand, b, p, s)
                if ((m >> t) & 1) == 0:
                    continue
                c = np.int64(hand[b, p, s])
                cr = br + ((mrow >> t) & 1)
                cc = bc + ((mcol >> t) & 1)
                if phase == ONE:
                    pts = line_points(cr, line, less) + line_points(cc, line, less)
                else:
                    pts = removed_count(cr, cc) * removal
                k = _push(b, k, g, cand_slot, cand_card, cand_cell, cand_pts, s, c, q, pts)
    g[b, N_CAND] = k
    _set_legal(b, g, legal, old)


@njit(cache=True, _nrt=False)
def best_points(b, g, board, up_pos, fr, sc, c, prm):
    """The most a card ``c`` could score now in phase one, anywhere (for the claim choice)."""
    nf = _spaces(b, g, board, fr, sc, prm[P_S])
    F = sc.shape[1] >> 1
    t = (c // 12) * 6 + c % 6
    best = 0
    for i in range(nf):
        if ((sc[b, F + i] >> t) & 1) == 0:
            continue        # it may not go here (allowed: both line codes >= 0)
        nr, ar, mr, nc, ac, mc = unpack(sc[b, i])
        cr = line_code(nr, ar, mr, c // 12, c % 6)
        cc = line_code(nc, ac, mc, c // 12, c % 6)
        pts = line_points(cr, prm[P_LINE], prm[P_LESS]) + line_points(cc, prm[P_LINE],
                                                                        prm[P_LESS])
        if pts > best:
            best = pts
    return best


@njit(cache=True, _nrt=False)
def _gen_keep(b, g, board, up_pos, unpl, fr, sc, cand_slot, cand_card, cand_cell, cand_pts,
              legal, prm):
    """The claim's choice: candidate 0 keeps the 1st pile's card (the other is buried face
    down), 1 keeps the 2nd pile's; each with the most that card could score now."""
    old = g[b, N_CAND]
    g[b, N_CAND] = 0
    q = np.int64(unpl[b, g[b, I_UNPL]])
    for j in range(2):
        c = np.int64(g[b, KEEP1 + j])
        pts = best_points(b, g, board, up_pos, fr, sc, c, prm)
        _add_cand(b, g, cand_slot, cand_card, cand_cell, cand_pts, j, c, q, pts)
    _set_legal(b, g, legal, old)


# ---- Step C: Find Unplayable Spaces -------------------------------------------------------

@njit(cache=True, _nrt=False)
def find_unplayable(b, g, board, up_pos, up_count, copies, fd_card, fd_owner, fr, sc, unpl,
                    prm):
    """List in unpl[b] every empty space touching a face-up card where no card can legally go,
    or only cards whose every copy is already on the table: face up, or (``buried_on_table``)
    face down where the finder (the player to move) buried it or anywhere; returns how many."""
    S = prm[P_S]
    mode = prm[P_BURIED]
    finder = g[b, CUR]
    # face-down cards that count, by type: one copy (bit in one) or two (bit in two)
    one = np.int64(0)
    two = np.int64(0)
    if mode != BURIED_NONE:
        for i in range(g[b, N_FD]):
            if mode == BURIED_ALL or fd_owner[b, i] == finder:
                c = np.int64(fd_card[b, i])
                bit = np.int64(1) << ((c // 12) * 6 + c % 6)
                if one & bit:
                    two |= bit
                else:
                    one |= bit
    avail = np.int64(0)
    for t in range(36):
        n = np.int64(up_count[b, t]) + ((one >> t) & 1) + ((two >> t) & 1)
        if n < copies[t]:
            avail |= np.int64(1) << t
    nf = _spaces(b, g, board, fr, sc, S)
    F = sc.shape[1] >> 1
    k = 0
    for i in range(nf):
        if (sc[b, F + i] & avail) == 0:
            unpl[b, k] = fr[b, i]
            k += 1
    return k


# ---- Step A / Step B, and the second phase's removals -------------------------------------

@njit(cache=True, _nrt=False)
def _put_up(b, q, c, g, board, up_pos, up_count, fr, sc, S):
    if board[b, q] == OPEN:
        _unlist(b, q, g, fr, sc)
    board[b, q] = c + 1
    up_pos[b, g[b, N_UP]] = q
    g[b, N_UP] += 1
    up_count[b, (c // 12) * 6 + c % 6] += 1
    n0 = g[b, N_FR]
    for dy in range(-S, S + 1, S):
        for dx in range(-1, 2):
            if board[b, q + dy + dx] == EMPTY:
                _list(b, q + dy + dx, g, board, fr)
    _refresh(b, q, n0, g, board, fr, sc, S)


@njit(cache=True, _nrt=False)
def _take_away(b, q, g, board, up_pos, up_count, box, fr, sc, S):
    """Phase two: the card at q goes back to the box."""
    c = board[b, q] - 1
    board[b, q] = EMPTY
    up_count[b, (c // 12) * 6 + c % 6] -= 1
    box[b, g[b, N_BOX]] = c
    g[b, N_BOX] += 1
    n = g[b, N_UP]
    for i in range(n):
        if up_pos[b, i] == q:
            up_pos[b, i] = up_pos[b, n - 1]
            break
    g[b, N_UP] = n - 1
    # the space itself, and its neighbours that touched no other face-up card
    if _touches_up(board, b, q, S):
        _list(b, q, g, board, fr)
    _close_around(b, q, g, board, fr, sc, S)


@njit(cache=True, _nrt=False)
def _close_around(b, q, g, board, fr, sc, S):
    """The open spaces around q that touch no face-up card any more are not spaces now."""
    for dy in range(-S, S + 1, S):
        for dx in range(-1, 2):
            r = q + dy + dx
            if board[b, r] == OPEN and not _touches_up(board, b, r, S):
                _unlist(b, r, g, fr, sc)
                board[b, r] = EMPTY


@njit(cache=True, _nrt=False)
def _mark_ends(b, r, board, S):
    """Mark (``_STALE``) the open spaces at the ends of r's four runs, and r itself if open."""
    if board[b, r] == OPEN:
        board[b, r] = _STALE
    for d in (-1, 1, -S, S):
        e = r + d
        while board[b, e] > 0:
            e += d
        if board[b, e] == OPEN:
            board[b, e] = _STALE


@njit(cache=True, _nrt=False)
def _refresh_removed(b, q, lo_r, hi_r, lo_c, hi_c, g, board, fr, sc, S):
    """Keep the cached lines right after phase two's removals around q: cells q + k (lo_r <= k
    <= hi_r) of its row and q + k * S (lo_c <= k <= hi_c) of its column were cleared (and q).
    A listed space's lines changed only if a cleared cell was in one of its runs; the cleared
    cell of that run nearest to it is then joined to it by face-up cards, so it is an end of
    one of that cell's four runs, or the cell itself (listed again): those are rescanned."""
    if not g[b, FR_OK]:
        return
    _mark_ends(b, q, board, S)
    for k in range(lo_r, hi_r + 1):
        _mark_ends(b, q + k, board, S)
    for k in range(lo_c, hi_c + 1):
        _mark_ends(b, q + k * S, board, S)
    for i in range(g[b, N_FR]):
        if board[b, fr[b, i]] == _STALE:
            board[b, fr[b, i]] = OPEN
            _scan_entry(b, i, board, fr, sc, S)


@njit(cache=True, _nrt=False)
def _remove_run(b, q, step, g, board, up_pos, up_count, box, fr, sc, S):
    n = 0
    for sgn in (-1, 1):
        r = q + sgn * step
        while board[b, r] > 0:
            _take_away(b, r, g, board, up_pos, up_count, box, fr, sc, S)
            n += 1
            r += sgn * step
    return n


@njit(cache=True, _nrt=False)
def _place(b, slot, q, g, board, up_pos, up_count, hand, hand_n, box, fr, sc, score, ev, prm):
    """Play hand[slot] to space q and score it (points in phase one, removals in phase two)."""
    S = prm[P_S]
    p = g[b, CUR]
    y = q // S
    x = q % S
    if y < 2 or x < 2 or y > S - 3 or x > S - 3:
        g[b, ERR] |= ERR_EDGE
    c = np.int64(hand[b, p, slot])
    n = hand_n[b, p] - 1
    hand[b, p, slot] = hand[b, p, n]
    hand[b, p, n] = -1
    hand_n[b, p] = n
    _put_up(b, q, c, g, board, up_pos, up_count, fr, sc, S)
    g[b, TURNS] += 1
    pts = 0
    removed = 0
    if g[b, PHASE] != OPENING:
        nr, ar, mr = scan(board, b, q, np.int64(1), -1, -1)
        nc, ac, mc = scan(board, b, q, S, -1, -1)
        cr = line_code(nr, ar, mr, c // 12, c % 6)
        cc = line_code(nc, ac, mc, c // 12, c % 6)
        if g[b, PHASE] == ONE:
            g[b, TURNS1] += 1
            pts = line_points(cr, prm[P_LINE], prm[P_LESS]) + line_points(cc, prm[P_LINE],
                                                                            prm[P_LESS])
        else:
            # the runs that go: cells q + k (row), q + k * S (column), k in [lo, hi], 0 excluded
            lo_r = hi_r = lo_c = hi_c = 0
            if cr > 0:
                lo_r = -_run_len(board, b, q, -1)
                hi_r = _run_len(board, b, q, 1)
                removed += _remove_run(b, q, np.int64(1), g, board, up_pos, up_count, box, fr, sc, S)
            if cc > 0:
                lo_c = -_run_len(board, b, q, -S)
                hi_c = _run_len(board, b, q, S)
                removed += _remove_run(b, q, S, g, board, up_pos, up_count, box, fr, sc, S)
            if (cr > 0 and (cr & 1)) or (cc > 0 and (cc & 1)):
                # a matching line: the played card goes too
                _take_away(b, q, g, board, up_pos, up_count, box, fr, sc, S)
                removed += 1
            if removed:
                _refresh_removed(b, q, lo_r, hi_r, lo_c, hi_c, g, board, fr, sc, S)
            pts = removed * prm[P_REMOVAL]
    score[b, p] += pts
    o = prm[P_ORIGIN]
    log_event(ev, g, NEV, b, E_PLACE, p, c, y - o // S, x - o % S, pts, removed)


# ---- Step D, Ending the First Phase, next player ------------------------------------------

@njit(cache=True, _nrt=False)
def _end_phase_one(b, g, board, pile1, pile2, fd_pos, fd_card, fr, sc, ev, rs, prm):
    """The face-down cards leave their spaces and are shuffled into the 2nd pile, which becomes
    the draw pile."""
    S = prm[P_S]
    n2 = g[b, N2]
    n0 = g[b, N_FR]
    for i in range(g[b, N_FD]):
        _list(b, np.int64(fd_pos[b, i]), g, board, fr)     # it touches the face-up cards it lay among
        pile2[b, n2] = fd_card[b, i]
        n2 += 1
    if prm[P_TOUCH_FD]:
        # the spaces open only because they touched a face-down card close again
        for i in range(g[b, N_FD]):
            _close_around(b, np.int64(fd_pos[b, i]), g, board, fr, sc, S)
        g[b, FR_OK] = 0
    elif g[b, FR_OK]:   # no face-up line changed: only the reopened spaces need their lines
        for i in range(n0, g[b, N_FR]):
            _scan_entry(b, i, board, fr, sc, S)
    reopened = g[b, N_FD]
    g[b, N_FD1] = reopened
    g[b, N_FD] = 0
    shuffle_row(pile2[b], n2, rs, b)     # "Shuffle these cards into the second deck"
    for i in range(n2):
        pile1[b, i] = pile2[b, i]
    g[b, N1] = n2
    g[b, N2] = 0
    g[b, PHASE] = TWO
    log_event(ev, g, NEV, b, E_PHASE2, -1, n2, reopened, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _draw(b, p, g, pile1, hand, hand_n):
    n1 = g[b, N1] - 1
    hand[b, p, hand_n[b, p]] = pile1[b, n1]
    hand_n[b, p] += 1
    g[b, N1] = n1


@njit(cache=True, _nrt=False)
def _advance(b, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2, fd_pos, fd_card,
             score, claims, unpl, fr, sc, cand_slot, cand_card, cand_cell, cand_pts, legal, ev,
             rs, prm, dr):
    """Resolve the rest of the turn after a decision, up to the next decision or the end.
    Drama: after each turn of the two phases (when the score can have changed) the running
    scores are recorded."""
    P = prm[P_PLAYERS]
    p = g[b, CUR]
    ph = g[b, PHASE]
    if ph == OPENING:
        if prm[P_OPEN_DRAW]:
            _draw(b, p, g, pile1, hand, hand_n)
        if p + 1 < P:
            g[b, CUR] = p + 1
        else:
            g[b, PHASE] = ONE       # "The game now begins with the dealer"
            g[b, CUR] = 0
    else:
        if ph == ONE:
            # Step C: one claim at a time, each waits for the player's choice of card
            while g[b, I_UNPL] < g[b, N_UNPL]:
                if prm[P_MAXCLAIMS] > 0 and g[b, CLAIMS_TURN] >= prm[P_MAXCLAIMS]:
                    break
                if g[b, N2] == 0:
                    break           # a claim needs a card from each pile
                score[b, p] += prm[P_CLAIM]
                claims[b, p] += 1
                g[b, CLAIMS_TURN] += 1
                g[b, KEEP1] = pile1[b, g[b, N1] - 1]
                g[b, KEEP2] = pile2[b, g[b, N2] - 1]
                g[b, N2] -= 1
                g[b, KIND] = KEEP
                _gen_keep(b, g, board, up_pos, unpl, fr, sc, cand_slot, cand_card, cand_cell,
                          cand_pts, legal, prm)
                return
            # Step D
            _draw(b, p, g, pile1, hand, hand_n)
        elif g[b, N1] > 0:
            _draw(b, p, g, pile1, hand, hand_n)
            g[b, DRAWN2 + p] += 1
        # (one drama_update site for both phases: it is inlined, and compiled at each site)
        drama.drama_update(dr, b, score[b], False)
        if ph == ONE:
            if g[b, N1] == 0:
                _end_phase_one(b, g, board, pile1, pile2, fd_pos, fd_card, fr, sc, ev, rs, prm)
            g[b, CUR] = (p + 1) % P
        elif g[b, N_UP] == 0:
            g[b, PHASE] = OVER
            g[b, CLEARED] = 1
        else:
            nxt = -1
            for i in range(1, P + 1):
                if hand_n[b, (p + i) % P] > 0:
                    nxt = (p + i) % P
                    break
            if nxt < 0:
                g[b, PHASE] = OVER
            else:
                g[b, CUR] = nxt
        if g[b, PHASE] == OVER:
            old = g[b, N_CAND]
            g[b, N_CAND] = 0
            _set_legal(b, g, legal, old)
            log_event(ev, g, NEV, b, E_END, -1, g[b, CLEARED], g[b, N_UP], 0, 0, 0)
            return
    g[b, KIND] = PLACE
    g[b, N_UNPL] = 0
    g[b, I_UNPL] = 0
    g[b, CLAIMS_TURN] = 0
    _gen_place(b, g, board, up_pos, hand, hand_n, fr, sc, cand_slot, cand_card, cand_cell,
               cand_pts, legal, prm)


@njit(cache=True, inline="always", _nrt=False)
def apply_action(b, a, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2, fd_pos,
                 fd_card, fd_owner, box, score, claims, unpl, fr, sc, cand_slot, cand_card,
                 cand_cell, cand_pts, legal, ev, rs, prm, dr):
    """Game b's player to move takes candidate ``a``; everything up to the next decision (or the
    end) is resolved and its candidates listed. The one copy of the rules: the batch step kernel
    and the compiled strategies' whole-game kernel both call it."""
    S = prm[P_S]
    p = g[b, CUR]
    if g[b, KIND] == PLACE:
        # spaces (int32 in the arrays) and steps are passed as int64 everywhere: numba compiles
        # a helper once per argument type (an int32, a literal 1), the grid's helpers twice
        q = np.int64(cand_cell[b, a])
        _place(b, cand_slot[b, a], q, g, board, up_pos, up_count, hand, hand_n, box, fr, sc,
               score, ev, prm)
        if g[b, PHASE] == ONE:
            g[b, N_UNPL] = find_unplayable(b, g, board, up_pos, up_count, copies, fd_card,
                                           fd_owner, fr, sc, unpl, prm)
            g[b, I_UNPL] = 0
    else:
        # the claim's choice: the kept card goes back on top of the 1st pile, the other
        # face down into the unplayable space
        q = np.int64(unpl[b, g[b, I_UNPL]])
        kept = g[b, KEEP1 + a]
        buried = g[b, KEEP2 - a]
        pile1[b, g[b, N1] - 1] = kept
        _block(b, q, g, board, fr, sc, prm)
        fd_pos[b, g[b, N_FD]] = q
        fd_card[b, g[b, N_FD]] = buried
        fd_owner[b, g[b, N_FD]] = p
        g[b, N_FD] += 1
        g[b, I_UNPL] += 1
        o = prm[P_ORIGIN]
        log_event(ev, g, NEV, b, E_CLAIM, p, q // S - o // S, q % S - o % S, kept, buried,
                  prm[P_CLAIM])
        if prm[P_BURIED] != BURIED_NONE:
            # the card just buried counts as on the table: look again (the spaces already
            # claimed are filled, so the list holds the ones still to claim)
            g[b, N_UNPL] = find_unplayable(b, g, board, up_pos, up_count, copies, fd_card,
                                           fd_owner, fr, sc, unpl, prm)
            g[b, I_UNPL] = 0
    _advance(b, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2, fd_pos,
             fd_card, score, claims, unpl, fr, sc, cand_slot, cand_card, cand_cell, cand_pts,
             legal, ev, rs, prm, dr)


@njit(cache=True, _nrt=False)
def step_kernel(actions, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2, fd_pos,
                fd_card, fd_owner, box, score, claims, unpl, fr, sc, cand_slot, cand_card,
                cand_cell, cand_pts, legal, ev, rs, prm, dr):
    for b in range(g.shape[0]):
        if g[b, PHASE] != OVER:
            apply_action(b, actions[b], g, board, up_pos, up_count, copies, hand, hand_n, pile1,
                         pile2, fd_pos, fd_card, fd_owner, box, score, claims, unpl, fr, sc,
                         cand_slot, cand_card, cand_cell, cand_pts, legal, ev, rs, prm, dr)


@njit(cache=True, _nrt=False)
def init_kernel(g, board, up_pos, hand, hand_n, fr, sc, cand_slot, cand_card, cand_cell,
                cand_pts, legal, prm):
    for b in range(g.shape[0]):
        g[b, PHASE] = OPENING
        g[b, CUR] = 0           # seat 0 is the dealer
        g[b, KIND] = PLACE
        _gen_place(b, g, board, up_pos, hand, hand_n, fr, sc, cand_slot, cand_card, cand_cell,
                   cand_pts, legal, prm)


@njit(cache=True, _nrt=False)
def regen_kernel(games, g, board, up_pos, hand, hand_n, fr, sc, cand_slot, cand_card, cand_cell,
                 cand_pts, legal, prm):
    """Relist the candidates of ``games`` (after a test or a tool edits a state by hand)."""
    for i in range(games.shape[0]):
        b = games[i]
        if g[b, PHASE] != OVER and g[b, KIND] == PLACE:
            g[b, FR_OK] = 0
            _gen_place(b, g, board, up_pos, hand, hand_n, fr, sc, cand_slot, cand_card,
                       cand_cell, cand_pts, legal, prm)

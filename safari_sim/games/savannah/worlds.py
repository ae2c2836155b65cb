"""Worlds for search players: Savannah dealt again for one seat (docs/rules/savannah.md,
"Worlds for search").

What a seat sees: the table (face-up cards, and where the face-down ones lie), its own hand, the
cards it buried itself, the box (phase two's removed cards went there face up), the two cards of
its own claim. Hidden from it: the other hands, both piles' order, the face-down cards others
buried. Those cards are one multiset the seat cannot tell apart; a world sorts them, shuffles them
from the world's own stream and deals them back into the same places.

One constraint from play is kept by construction: in phase two the seat knows that the cards it
buried went into the draw pile, so such a card can be in another player's hand only if that
player has drawn since (at most one per card drawn in phase two). A world puts those cards in a
uniformly chosen set of the places allowed to them, then deals the other cards uniformly into the
rest: every assignment that respects the constraint is equally likely.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.chance import below
from ...engine.jit import KERNEL_HELPERS, refresh_cache
from . import grid as _grid
from . import turn as T

# these kernels call the sibling modules' kernels, whose code numba's cache keeps inside
# them: recompile when those change (engine/jit.py)
refresh_cache(__file__, KERNEL_HELPERS + (T.__file__, _grid.__file__))

HAND, PILE1, PILE2, FACE_DOWN, KEPT2 = 0, 1, 2, 3, 4
CODE = 1 << 16


@njit(cache=True)
def redeal(seat, g, board, up_pos, hand, hand_n, pile1, pile2, fd_card, fd_owner, unpl, fr, sc,
           cand_slot, cand_card, cand_cell, cand_pts, legal, rs, prm):
    """Deal row i (a copy of a real game) again for ``seat[i]``, from stream i."""
    P = prm[T.P_PLAYERS]
    N = prm[T.P_CARDS]
    H = hand.shape[2]
    places = np.empty(N + 2, np.int64)
    free_place = np.empty(N + 2, np.bool_)
    cards = np.empty(N + 2, np.int64)
    constrained = np.empty(N + 2, np.int64)
    mine = np.zeros(N, np.bool_)
    order = np.empty(N + 2, np.int64)
    for i in range(g.shape[0]):
        ph = g[i, T.PHASE]
        if ph == T.OVER:
            continue
        s = seat[i]
        mover = g[i, T.CUR]
        claim = g[i, T.KIND] == T.KEEP
        n = 0
        # the places the seat cannot see, in a canonical order
        for q in range(P):
            if q != s:
                for k in range(hand_n[i, q]):
                    places[n] = HAND * CODE + q * H + k
                    n += 1
        n1 = g[i, T.N1]
        top_known = claim and mover == s      # the 1st pile's card of its own claim
        for j in range(n1 - 1 if top_known else n1):
            places[n] = PILE1 * CODE + j
            n += 1
        for j in range(g[i, T.N2]):
            places[n] = PILE2 * CODE + j
            n += 1
        for j in range(g[i, T.N_FD]):
            if fd_owner[i, j] != s:
                places[n] = FACE_DOWN * CODE + j
                n += 1
        if claim and mover != s:
            places[n] = KEPT2 * CODE
            n += 1
        # the cards there; in phase two, which of them the seat buried itself
        for k in range(N):
            mine[k] = False
        if ph == T.TWO:
            for j in range(g[i, T.N_FD1]):
                if fd_owner[i, j] == s:
                    mine[fd_card[i, j]] = True
                else:
                    fd_card[i, j] = -1     # who buried where is public, not which card
        nc = 0
        nf = 0
        for j in range(n):
            c = _card_at(i, places[j], hand, pile1, pile2, fd_card, g, H)
            if mine[c]:
                constrained[nc] = c
                nc += 1
            else:
                cards[nf] = c
                nf += 1
        constrained[:nc].sort()
        cards[:nf].sort()
        # the constrained cards first: a uniform choice among the places allowed to them
        na = 0
        for j in range(n):
            code = places[j]
            ok = True
            if code // CODE == HAND:
                q = (code % CODE) // H
                k = (code % CODE) % H
                ok = k >= hand_n[i, q] - min(hand_n[i, q], g[i, T.DRAWN2 + q])
            free_place[j] = True
            if ok and nc > 0:
                order[na] = j
                na += 1
        for j in range(nc):       # a partial Fisher-Yates shuffle of the allowed places
            r = j + below(rs, i, na - j)
            t = order[j]
            order[j] = order[r]
            order[r] = t
            _put(i, places[order[j]], constrained[j], hand, pile1, pile2, fd_card, g, H)
            free_place[order[j]] = False
        # then every other card, shuffled, into the places left, in order
        for j in range(nf - 1, 0, -1):
            r = below(rs, i, j + 1)
            t = cards[j]
            cards[j] = cards[r]
            cards[r] = t
        m = 0
        for j in range(n):
            if free_place[j]:
                _put(i, places[j], cards[m], hand, pile1, pile2, fd_card, g, H)
                m += 1
        # the piles past their tops hold nothing
        for j in range(n1, N):
            pile1[i, j] = -1
        for j in range(g[i, T.N2], N):
            pile2[i, j] = -1
        if claim:
            g[i, T.KEEP1] = pile1[i, n1 - 1]
        if mover != s:            # the mover's choices depend on its (new) hand or claim
            if claim:
                T._gen_keep(i, g, board, up_pos, unpl, fr, sc, cand_slot, cand_card, cand_cell,
                            cand_pts, legal, prm)
            else:
                g[i, T.FR_OK] = 0
                T._gen_place(i, g, board, up_pos, hand, hand_n, fr, sc, cand_slot, cand_card,
                             cand_cell, cand_pts, legal, prm)


@njit(cache=True)
def _card_at(i, code, hand, pile1, pile2, fd_card, g, H):
    z = code // CODE
    j = code % CODE
    if z == HAND:
        return np.int64(hand[i, j // H, j % H])
    if z == PILE1:
        return np.int64(pile1[i, j])
    if z == PILE2:
        return np.int64(pile2[i, j])
    if z == FACE_DOWN:
        return np.int64(fd_card[i, j])
    return np.int64(g[i, T.KEEP2])


@njit(cache=True)
def _put(i, code, c, hand, pile1, pile2, fd_card, g, H):
    z = code // CODE
    j = code % CODE
    if z == HAND:
        hand[i, j // H, j % H] = c
    elif z == PILE1:
        pile1[i, j] = c
    elif z == PILE2:
        pile2[i, j] = c
    elif z == FACE_DOWN:
        fd_card[i, j] = c
    else:
        g[i, T.KEEP2] = c


# the arrays ``copy_rows`` copies (the large ones: the grid, the open spaces, the candidates)
COPIED = ("board", "unpl", "fr", "sc", "cand_slot", "cand_card", "cand_cell", "cand_pts",
          "legal_mask")


@njit(cache=True)
def copy_rows(rows, g, board, unpl, fr, sc, cand_slot, cand_card, cand_cell, cand_pts, legal,
              w_board, w_unpl, w_fr, w_sc, w_slot, w_card, w_cell, w_pts, w_legal):
    """Row i of the ``w_`` arrays (left over from earlier worlds) becomes game ``rows[i]``'s:
    the grid (its cells from the first to the last that is not EMPTY copied, EMPTY elsewhere),
    the legal mask (True exactly on the candidates, as ``_set_legal`` keeps it), and the lists
    up to their lengths (this turn's unplayable spaces, N_UNPL; the open spaces and both halves
    of their cached lines, N_FR; the candidates, N_CAND), zeros past them (the real state keeps
    stale entries there that nothing reads; a world holds nothing it was not dealt, not even
    what an earlier world of another seat left in its buffer). Each entry is written once, by
    slices (numba compiles a slice's fill and copy as vectorized loops: about 2.5 times the
    speed of the same loops written by index, which it did not vectorize)."""
    F = sc.shape[1] >> 1
    S2 = board.shape[1]
    last = -1
    lo = 0
    hi = -1
    for i in range(rows.shape[0]):
        b = rows[i]
        if b != last:           # a world's rows repeat: the grid's span once per run
            last = b
            lo = 0
            while lo < S2 and board[b, lo] == 0:
                lo += 1
            hi = S2 - 1
            while hi >= lo and board[b, hi] == 0:
                hi -= 1
        w_board[i, :lo] = 0
        w_board[i, lo:hi + 1] = board[b, lo:hi + 1]
        w_board[i, hi + 1:] = 0
        n = np.int64(g[b, T.N_UNPL])
        w_unpl[i, :n] = unpl[b, :n]
        w_unpl[i, n:] = 0
        n = np.int64(g[b, T.N_FR])
        w_fr[i, :n] = fr[b, :n]
        w_fr[i, n:] = 0
        w_sc[i, :n] = sc[b, :n]
        w_sc[i, n:F] = 0
        w_sc[i, F:F + n] = sc[b, F:F + n]
        w_sc[i, F + n:] = 0
        n = np.int64(g[b, T.N_CAND])
        w_slot[i, :n] = cand_slot[b, :n]
        w_slot[i, n:] = 0
        w_card[i, :n] = cand_card[b, :n]
        w_card[i, n:] = 0
        w_cell[i, :n] = cand_cell[b, :n]
        w_cell[i, n:] = 0
        w_pts[i, :n] = cand_pts[b, :n]
        w_pts[i, n:] = 0
        w_legal[i, :n] = legal[b, :n]
        w_legal[i, n:] = False

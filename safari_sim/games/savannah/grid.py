"""The savannah: an unbounded grid of squares ("The Playing Space"), and what may go where
("Step A: Play a card").

Each game's grid is one flat int8 row of ``S * S`` cells: ``EMPTY`` (0: a fresh grid is all
zeros, as ``engine.buffers`` maps it or fills a reused one), ``OPEN`` (empty and touching a face-up
card: where a card may go; these spaces are also kept in a list), card id + 1 for a face-up card,
or ``BLOCKED`` (a face-down card marking an unplayable space; which card it is lives elsewhere,
so the grid itself is public). Cell ``y * S + x``; the first card goes to the centre.

Why an array of side ``S = 2 * (N + 2) + 1`` is as good as an unbounded grid (N = cards in the
deck): a card is placed face up at most once in a game (it stays until phase two sends it to the
box; face-down cards only return through the draw pile), and every card but the first touches a
face-up card (side or corner), i.e. lies at Chebyshev distance 1 from an earlier one. By induction
the k-th face-up card lies within k - 1 <= N - 1 of the centre; a space where a card could go, or
a face-down card, within N; and every read the kernels make (a space's eight neighbours, the
end of a line, a strategy's look one play ahead) within N + 2 -- inside the array. No legal
placement is ever clipped; tests/test_savannah.py plays the most spread-out layout possible (a
diagonal line of every card) to check it, and ``place`` flags any card nearer than 2 to an edge.

When a card may go where it touches only a face-down card (``touch_face_down``), a card can lie
two cells from every face-up card. Count placements instead: every card put on the table, face
up or face down, touches something already there (a face-down card goes into an open space, next
to a face-up card), so each lies within one cell of an earlier one and the k-th placement within
k - 1 of the centre. A card goes face up at most once (N) and a claim buries a card from the 2nd
pile (at most its size F2), so everything lies within N + F2 - 1; the spaces next to a face-down
card within N + F2, and every read within N + F2 + 3: the side is then ``2 * (N + F2 + 3) + 1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = 0
BLOCKED = -1
OPEN = -2
FULL = (1 << 36) - 1  # every card type

POP = np.array([bin(i).count("1") for i in range(64)], np.int64)
LOWBIT = np.array([(i & -i).bit_length() - 1 if i else 0 for i in range(64)], np.int64)
# SPREAD[a_bits]: bit 6a set for every animal a in a_bits; times 6 number bits = those numbers for
# each of those animals (the 36 card types are animal * 6 + number index)
SPREAD = np.array([sum(1 << (6 * a) for a in range(6) if i >> a & 1) for i in range(64)], np.int64)


def side(n_cards: int, face_down: int = 0) -> int:
    """The grid's side for N cards; ``face_down`` > 0 when a card may touch only a face-down
    card, as many as the claims can bury at most (the 2nd pile's size): see the module's text."""
    if face_down:
        return 2 * (n_cards + face_down + 3) + 1
    return 2 * (n_cards + 2) + 1


@njit(cache=True, _nrt=False)
def scan(board, b, p, step, vp, vc):
    """The face-up cards in line with space p along ``step`` (1: row, S: column), both ways,
    p excluded: (count, animal bits, number bits). Space ``vp`` is read as holding card ``vc``
    (a card played in thought; vp = -1 for none). A face-down card ends a line."""
    n = 0
    am = 0
    nm = 0
    for d in (-step, step):  # both ways along the line from p
        q = p + d
        while True:
            v = vc if q == vp else np.int64(board[b, q]) - 1
            if v < 0:
                break
            am |= np.int64(1) << (v // 12)
            nm |= np.int64(1) << (v % 6)
            n += 1
            q += d
    return n, am, nm


@njit(cache=True, _nrt=False)
def line_code(n, am, nm, a, ni):
    """Can a card of animal ``a`` and number index ``ni`` join the line of ``n`` cards with these
    animal/number bits? -1: no; 0: there is no line (n = 0); else 2 * length + matching, the
    length counting the new card and matching meaning rule A or B (not C)."""
    if n == 0:
        return 0
    pa = POP[am]
    pn = POP[nm]
    ina = (am >> a) & 1
    inn = (nm >> ni) & 1
    if inn == 0 and pn == n:
        if ina == 1 and pa == 1:
            return 2 * (n + 1) + 1      # A: same animal, different numbers
        if ina == 0 and pa == n:
            return 2 * (n + 1)          # C: different in every way
    if ina == 0 and pa == n and inn == 1 and pn == 1:
        return 2 * (n + 1) + 1          # B: same number, different animals
    return -1


@njit(cache=True, _nrt=False)
def allowed(n, am, nm):
    """Bits (over the 36 card types) of the cards that may join the line (FULL if no line)."""
    if n == 0:
        return FULL
    pa = POP[am]
    pn = POP[nm]
    fa = ~am & 63
    fn = ~nm & 63
    m = np.int64(0)
    if pn == n:
        if pa == 1:
            m |= fn << (6 * LOWBIT[am])          # A: that animal, a new number
        if pa == n:
            m |= SPREAD[fa] * fn                 # C: a new animal and a new number
    if pa == n and pn == 1:
        m |= SPREAD[fa] << LOWBIT[nm]            # B: that number, a new animal
    return m


@njit(cache=True, _nrt=False)
def line_points(code, line_point, less):
    """Phase one ("Step B"): a matching line scores its length, an all-different one less."""
    if code <= 0:
        return 0
    pts = (code >> 1) * line_point
    if (code & 1) == 0:
        pts -= less
    return pts


@njit(cache=True, _nrt=False)
def removed_count(cr, cc):
    """Phase two: cards removed when the played card makes row code cr and column code cc."""
    lr = cr >> 1 if cr > 0 else 0
    lc = cc >> 1 if cc > 0 else 0
    if lr > 0 and lc > 0:
        if (cr & 1) or (cc & 1):
            return lr + lc - 1          # a crossing with a matching line: both lines go
        return lr + lc - 2              # both all-different: all but the played card
    if lr > 0:
        return lr if (cr & 1) else lr - 1
    if lc > 0:
        return lc if (cc & 1) else lc - 1
    return 0                            # touching on a corner only


@njit(cache=True, _nrt=False)
def corner_only_once(board, b, q, S):
    """True if space q touches exactly one face-up card, and on a corner (the opening rule)."""
    if board[b, q - 1] > 0 or board[b, q + 1] > 0 or board[b, q - S] > 0 or board[b, q + S] > 0:
        return False
    n = 0
    for d in (-S - 1, -S + 1, S - 1, S + 1):
        if board[b, q + d] > 0:
            n += 1
    return n == 1


@njit(cache=True, _nrt=False)
def pack(nr, ar, mr, nc, ac, mc):
    """Both lines through a space in one int64 (counts fit 4 bits: two runs of at most 6)."""
    return (nr << 12 | ar << 6 | mr) | (nc << 12 | ac << 6 | mc) << 16


@njit(cache=True, _nrt=False)
def unpack(v):
    return ((v >> 12) & 15, (v >> 6) & 63, v & 63,
            (v >> 28) & 15, (v >> 22) & 63, (v >> 16) & 63)

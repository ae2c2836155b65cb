"""Savannah's shipped strategies as compiled scalar policies, and the kernel that plays whole
games with them.

Each policy is the numpy strategy of the same name (strategies/savannah.py) written again for one
game b, and returns the same action: tests/test_savannah_compiled.py plays the same games both
ways and compares them. A policy reads only what the mover's observation (``game.Obs``) holds,
from the state's arrays for speed:

- ``g[b, KIND]``, ``g[b, PHASE]``, ``g[b, N_CAND]``: ``obs.kind``, ``obs.phase``, ``obs.n_cand``;
- ``cand_pts[b]``, ``cand_cell[b]``, ``cand_card[b]`` (first N_CAND): ``obs.points``,
  ``obs.cell``, ``obs.card``;
- ``hand[b, CUR, :hand_n[b, CUR]]``: ``obs.hand`` (its own hand only);
- ``up_count[b]``, ``copies``: ``obs._up_count``, ``obs._copies``;
- ``board[b]`` (face-up cards, BLOCKED where a face-down card lies, never which card, and the open
  spaces, which follow from the face-up cards): ``obs.grid``; the open spaces' list ``fr[b]``
  and the card types each may take (``sc[b]``, kept with it): worked out from ``obs.grid`` by
  the numpy lookahead. The lookahead plays in thought on ``board[b]`` and puts it back as it
  was.

Never the other hands, the piles or the face-down cards' identities (``fd_card``). The lookahead
is the same code the numpy strategies run (``lookahead.threat_row``, ``new_unplayable_row``); the
rules are ``turn.apply_action``, the one copy the batch step kernel runs too.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from safari_sim.engine.chance import uniform
from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.games.savannah import grid as _grid
from safari_sim.games.savannah import lookahead as LA
from safari_sim.games.savannah import turn as T
from safari_sim.games.savannah.turn import P_S

from .savannah import K_CAUTIOUS, K_GREEDY, K_SPACE_MAKER

_TYPE = np.array([(c // 12) * 6 + c % 6 for c in range(128)], np.int64)   # a card id's type

# the kernel below inlines the game's rules and lookahead: recompile it when they change
refresh_cache(__file__, KERNEL_HELPERS + (T.__file__, _grid.__file__, LA.__file__,
                                          os.path.join(os.path.dirname(__file__), "savannah.py")))


@njit(cache=True, inline="always", _nrt=False)
def _first_best_int(pts, n):
    """greedy: argmax of where(legal, points, -1), the first on ties (-1: the numpy strategy
    would pick a padding entry, which only points below -1 everywhere can make)."""
    best = 0
    bv = np.int64(pts[0])
    for j in range(1, n):
        v = np.int64(pts[j])
        if v > bv:
            bv = v
            best = j
    return best if bv >= -1 else -1


@njit(cache=True, inline="always", _nrt=False)
def _first_best_plus(pts, extra, w, n):
    """best_of(points + w * extra): the first best-valued candidate, in float64 as numpy."""
    best = 0
    bv = np.float64(pts[0]) + w * np.float64(extra[0])
    for j in range(1, n):
        v = np.float64(pts[j]) + w * np.float64(extra[j])
        if v > bv:
            bv = v
            best = j
    return best


@njit(cache=True, inline="always", _nrt=False)
def _first_best_minus(pts, extra, w, n):
    """best_of(points - w * extra): the first best-valued candidate, in float64 as numpy."""
    best = 0
    bv = np.float64(pts[0]) - w * np.float64(extra[0])
    for j in range(1, n):
        v = np.float64(pts[j]) - w * np.float64(extra[j])
        if v > bv:
            bv = v
            best = j
    return best


@njit(cache=True, inline="always", _nrt=False)
def _beats(p, w, t, bv, tie):
    """Whether points p less w times threat t is chosen over the best value bv so far (``tie``:
    a candidate that ties it wins, coming first), in float64 as numpy."""
    v = np.float64(p) - w * np.float64(t)
    return v > bv or (v == bv and tie)


@njit(cache=True, inline="always", _nrt=False)
def _limit(p, w, bv, tie):
    """The least threat at which points p lose to bv (w > 0): a threat worked out only as far
    as this is enough to pass the candidate over."""
    if bv == -np.inf or (p - bv) / w > LA.NO_LIMIT:
        return LA.NO_LIMIT
    t = max(0, int(np.floor((p - bv) / w)) - 1)
    if _beats(p, w, t, bv, tie):
        while _beats(p, w, t, bv, tie):
            t += 1
    else:
        while t > 0 and not _beats(p, w, t - 1, bv, tie):
            t -= 1
    return t


@njit(cache=True, inline="always", _nrt=False)
def _cautious(board, b, cells, cards, pts, n, possible, phase, w, prm, gone, was, spaces, qd, pos,
              sc):
    """best_of(points - w * threat): the threat is never negative, so a candidate scores at
    most its points; candidates are looked at by points, the most first, and once the points
    left are below the best value found none can beat it (on a tie the first candidate wins, as
    numpy's argmax). Only the candidates that might win are worked out, and each threat only
    until it is large enough to lose (``_limit``): the same choice."""
    S = prm[P_S]
    top = np.int64(pts[0])
    low = top
    for j in range(1, n):
        v = np.int64(pts[j])
        if v > top:
            top = v
        if v < low:
            low = v
    bv = -np.inf
    best = n
    last = -1
    level = top
    while level >= low and level >= bv:
        for j in range(n):
            if pts[j] != level or (level == bv and j > best):
                continue
            q = np.int64(cells[j])
            if q != last:
                LA.q_lines_listed(board, b, q, S, qd, pos, sc, LA.NEED_MATCH)
                last = q
            p = np.int64(pts[j])
            th = LA.threat_one(board, b, q, np.int64(cards[j]), phase, possible, prm, qd, gone,
                               was, spaces, _limit(p, w, bv, j < best))
            if _beats(p, w, th, bv, j < best):
                bv = np.float64(p) - w * np.float64(th)
                best = j
        level -= 1
    return best


@njit(cache=True, inline="always", _nrt=False)
def _space_maker(board, b, cells, cards, pts, n, avail, last_copy, S, only, qd, pos, sc, w, hib):
    """best_of(points + w * new_unplayable), the first on ties, as ``_first_best_plus`` of
    ``lookahead.new_unplayable_given``'s numbers, working out only the candidates that might
    win: a card makes at most ``hi`` = 4 + only[t] spaces unplayable (4 when it is not the last
    copy of its type t), and fl(p + fl(w * k)) never falls as k grows (w >= 0: rounding is
    monotone), so a candidate whose points + w * hi are below the best value found (or equal,
    and it comes later) cannot be chosen. The candidate with the highest bound is worked out
    first, then the others in order. ``hib[t]``: w * hi of type t."""
    for t in range(36):
        hib[t] = w * np.float64(4 + (only[t] if last_copy[t] else 0))
    first = 0
    top = -np.inf
    for j in range(n):
        hi = np.float64(pts[j]) + hib[_TYPE[cards[j]]]
        if hi > top:
            top = hi
            first = j
    q = np.int64(cells[first])
    q_only = LA.unplayable_at(board, b, q, avail, S, qd, pos, sc)
    bv = np.float64(pts[first]) + w * np.float64(
        LA.unplayable_one(np.int64(cards[first]), avail, last_copy, only, qd, q_only))
    best = first
    last = q
    for j in range(n):
        if j == first:
            continue
        hi = np.float64(pts[j]) + hib[_TYPE[cards[j]]]
        if hi < bv or (hi == bv and j > best):
            continue
        q = np.int64(cells[j])
        if q != last:
            q_only = LA.unplayable_at(board, b, q, avail, S, qd, pos, sc)
            last = q
        v = np.float64(pts[j]) + w * np.float64(
            LA.unplayable_one(np.int64(cards[j]), avail, last_copy, only, qd, q_only))
        if v > bv or (v == bv and j < best):
            bv = v
            best = j
    return best


@njit(cache=True, inline="always", _nrt=False)
def policy(kind, knob, b, g, board, up_count, copies, hand, hand_n, fr, sc, cand_cell, cand_card,
           cand_pts, prm, buf, gone, was, spaces, owas, only, qd, pos, hib):
    """The action of policy ``kind`` with knob ``knob`` for game b's player to move."""
    n = g[b, T.N_CAND]
    pts = cand_pts[b]
    place = g[b, T.KIND] == T.PLACE
    phase = np.int64(g[b, T.PHASE])
    if kind == K_CAUTIOUS and place and knob > 0:
        # possible: the card types this player has not seen (obs.unseen > 0: not face up, not
        # in its own hand)
        p = g[b, T.CUR]
        possible = np.int64(0)
        for t in range(36):
            owas[t] = 0
        for s in range(hand_n[b, p]):
            c = np.int64(hand[b, p, s])
            owas[(c // 12) * 6 + c % 6] += 1
        for t in range(36):
            if np.int64(copies[t]) - up_count[b, t] - owas[t] > 0:
                possible |= np.int64(1) << t
        nf = T._spaces(b, g, board, fr, sc, prm[P_S])
        for i in range(nf):
            pos[fr[b, i]] = i + 1
        a = _cautious(board, b, cand_cell[b], cand_card[b], pts, n, possible, phase, knob, prm,
                      gone, was, spaces, qd, pos, sc)
        for i in range(nf):
            pos[fr[b, i]] = 0
        return a
    if kind == K_SPACE_MAKER and place and phase == T.ONE and knob > 0:
        avail = np.int64(0)
        for t in range(36):
            left = np.int64(copies[t]) - up_count[b, t]
            if left > 0:
                avail |= np.int64(1) << t
            owas[t] = left == 1          # last_copy
        # only[t]: the open spaces that may take no available type but t, from the open list
        # and its cached masks (the spaces next to a face-up card; with touch_face_down the list
        # also holds spaces next to face-down cards only, left out as the numpy strategy does)
        S = prm[P_S]
        nf = T._spaces(b, g, board, fr, sc, S)
        F = sc.shape[1] >> 1
        for t in range(36):
            only[t] = 0
        for i in range(nf):
            if LA._touches(board, b, fr[b, i], S):
                t = LA._single(sc[b, F + i] & avail)
                if t >= 0:
                    only[t] += 1
        for i in range(nf):
            pos[fr[b, i]] = i + 1
        a = _space_maker(board, b, cand_cell[b], cand_card[b], pts, n, avail, owas, S, only, qd,
                         pos, sc, knob, hib)
        for i in range(nf):
            pos[fr[b, i]] = 0
        return a
    if kind == K_GREEDY:
        return _first_best_int(pts, n)
    return _first_best_plus(pts, pts, 0.0, n)


@njit(cache=True, _nrt=False)
def _play(seating, kinds, knobs, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2,
          fd_pos, fd_card, fd_owner, box, score, claims, unpl, fr, sc, cand_slot, cand_card,
          cand_cell, cand_pts, legal, ev, rs, prm, dr, buf, gone, was, spaces, owas, only, qd, pos,
          hib, seat_rs, out):
    """Play every game of the batch to its end. out[0]: decisions; out[1]: 1 + the first game
    whose policy chose an illegal action (0: none). knobs[k] = (the policy's knob, noise)."""
    decisions = 0
    P = prm[T.P_PLAYERS]
    for b in range(g.shape[0]):
        while g[b, T.PHASE] != T.OVER:  # game b's candidates are listed (init or the last step)
            mover = g[b, T.CUR]
            k = seating[b, mover]
            a = policy(kinds[k], knobs[k, 0], b, g, board, up_count, copies, hand, hand_n, fr, sc,
                       cand_cell, cand_card, cand_pts, prm, buf, gone, was, spaces, owas, only,
                       qd, pos, hib)
            noise = knobs[k, 1]
            if noise > 0:
                # savannah.with_noise: rng.random(n) < noise, then random_legal's rng.random(n)
                # times the legal count (the first N_CAND entries), truncated: two draws from
                # the mover's stream at every decision, whether or not it goes wild
                row = b * P + mover
                u_wild = uniform(seat_rs, row)
                u_pick = uniform(seat_rs, row)
                if u_wild < noise:
                    a = np.int64(u_pick * np.float64(g[b, T.N_CAND]))
            if a < 0 or a >= g[b, T.N_CAND] or not legal[b, a]:
                out[1] = b + 1
                return
            T.apply_action(b, a, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2,
                           fd_pos, fd_card, fd_owner, box, score, claims, unpl, fr, sc,
                           cand_slot, cand_card, cand_cell, cand_pts, legal, ev, rs, prm, dr)
            decisions += 1
    out[0] = decisions


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` (the seats' streams, advanced in place) gives the
    draws of a strategy with ``noise``; the others draw nothing."""
    kinds = np.array([k for k, _ in policies], np.int64)
    knobs = np.array([(kn[0], kn[1]) for _, kn in policies], np.float64).reshape(-1, 2)
    buf = np.zeros(state.cand_pts.shape[1], np.int64)
    gone = np.zeros(16, np.int64)
    was = np.zeros(16, np.int8)
    spaces = np.zeros(LA._MAXW, np.int64)
    owas = np.zeros(36, np.int8)
    only = np.zeros(36, np.int64)
    qd = np.zeros((4, LA.Q_WIDTH), np.int64)
    pos = np.zeros(state.board.shape[1], np.int32)    # 1 + a space's index in the open list
    hib = np.zeros(36, np.float64)
    out = np.zeros(2, np.int64)
    _play(np.ascontiguousarray(seating, np.int64), kinds, knobs, *state.arrays(), buf, gone, was,
          spaces, owas, only, qd, pos, hib, seat_rs, out)
    if state.g[:, T.ERR].any():  # pragma: no cover - the bounds in grid.py / game.py
        raise RuntimeError("savannah: a game broke a proven bound: a bug, please report")
    if out[1]:
        raise RuntimeError(f"compiled policy chose an illegal action in game {out[1] - 1}")
    return int(out[0])

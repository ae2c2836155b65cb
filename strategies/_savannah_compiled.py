"""Savannah's shipped strategies as compiled scalar policies (``KINDS``: their names, by number),
and the kernels that play them: ``decide`` for the rows where one sits in the play loop,
``play_compiled`` (``_play``) for whole games when every seat holds one. Both call the one
``policy`` (and ``_noisy``), so both play the very same heuristic.

Every decision is a choice in the mover's candidate list (each legal placement with the points
it scores now; in a claim, which drawn card to keep, with the most that card could score now):
a policy scores the candidates and takes the best one, the first on ties. A policy reads only
what the mover may know, from the state's arrays (``tests/test_savannah.py`` deals what it cannot
see again at every decision and requires the same actions):

- ``g[b, KIND]``, ``g[b, PHASE]``, ``g[b, N_CAND]``: ``obs.kind``, ``obs.phase``, ``obs.n_cand``;
- ``cand_pts[b]``, ``cand_cell[b]``, ``cand_card[b]`` (first N_CAND): ``obs.points``,
  ``obs.cell``, ``obs.card``;
- ``hand[b, CUR, :hand_n[b, CUR]]``: ``obs.hand`` (its own hand only);
- ``up_count[b]``, ``copies``: ``obs._up_count``, ``obs._copies``;
- ``board[b]`` (face-up cards, BLOCKED where a face-down card lies, never which card, and the open
  spaces, which follow from the face-up cards): ``obs.grid``; the open spaces' list ``fr[b]``
  and the card types each may take (``sc[b]``, kept with it), which follow from ``obs.grid``.
  The lookahead plays in thought on ``board[b]`` and puts it back as it was;
- the legal mask it is handed (greedy's choice and a noisy move are among its actions: in the
  play loop the first N_CAND candidates, narrower where a search asks its prior).

Never the other hands, the piles or the face-down cards' identities (``fd_card``). The lookahead
is the game's (``lookahead.threat_one``, ``unplayable_one``, the code its ``threat`` and
``new_unplayable`` run for an observation); the rules are ``turn.apply_action``, the one copy the
batch step kernel runs too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from safari_sim.engine.chance import uniform
from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games.savannah import grid as _grid
from safari_sim.games.savannah import lookahead as LA
from safari_sim.games.savannah import turn as T
from safari_sim.games.savannah.turn import P_S

_TYPE = np.array([(c // 12) * 6 + c % 6 for c in range(128)], np.int64)   # a card id's type

# the kernels below inline the game's rules and lookahead: recompile them when they change
refresh_cache(__file__, KERNEL_HELPERS + (T.__file__, _grid.__file__, LA.__file__))

KINDS = ("greedy", "cautious", "space_maker")
K_GREEDY, K_CAUTIOUS, K_SPACE_MAKER = range(len(KINDS))


@njit(cache=True, inline="always", _nrt=False)
def _first_best_int(pts, n, lg):
    """greedy: the best of the points of the legal candidates (``lg``), -1 for the others, the
    first on ties (-1: points below -1 everywhere, where no candidate is taken)."""
    best = 0
    bv = np.int64(pts[0]) if lg[0] else np.int64(-1)
    for j in range(1, n):
        v = np.int64(pts[j]) if j < lg.shape[0] and lg[j] else np.int64(-1)
        if v > bv:
            bv = v
            best = j
    return best if bv >= -1 else -1


@njit(cache=True, inline="always", _nrt=False)
def _first_best_plus(pts, extra, w, n):
    """The first candidate of the best points + w * extra, in float64."""
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
    """The first candidate of the best points - w * extra, in float64."""
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
    a candidate that ties it wins, coming first), in float64. Inlined: called, `safari-sim run`
    slowed by 15% (it runs per candidate)."""
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


@njit(cache=True, _nrt=False)
def _cautious(board, b, cells, cards, pts, n, possible, phase, w, prm, gone, was, spaces, qd, pos,
              sc, lg):
    """The first candidate of the best points - w * threat (``lookahead.threat_one``: the most
    the next player could score, with a card this player has not seen, at the spaces this play
    changes). The threat is never negative, so a candidate scores at most its points;
    candidates are looked at by points, the most first, and once the points left are below the
    best value found none can beat it (on a tie the first candidate wins). Only the candidates
    that might win are worked out, and each threat only until it is large enough to lose
    (``_limit``): the same choice as working out every one. Only the candidates the legal mask
    ``lg`` allows are chosen from (a search asking its prior again narrows it)."""
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
            if pts[j] != level or (level == bv and j > best) or not lg[j]:
                continue
            q = np.int64(cells[j])
            if q != last:
                LA.q_lines_listed(board, b, q, S, qd, pos, sc, np.int64(LA.NEED_MATCH))
                last = q
            p = np.int64(pts[j])
            th = LA.threat_one(board, b, q, np.int64(cards[j]), phase, possible, prm, qd, gone,
                               was, spaces, _limit(p, w, bv, j < best))
            if _beats(p, w, th, bv, j < best):
                bv = np.float64(p) - w * np.float64(th)
                best = j
        level -= 1
    return best


@njit(cache=True, _nrt=False)
def _space_maker(board, b, cells, cards, pts, n, avail, last_copy, S, only, qd, pos, sc, w, hib,
                 lg):
    """The first candidate of the best points + w * new unplayable spaces (anywhere on the
    table, ``lookahead.unplayable_one``), as ``_first_best_plus`` of
    ``lookahead.new_unplayable_given``'s numbers, working out only the candidates that might
    win: a card makes at most ``hi`` = 4 + only[t] spaces unplayable (4 when it is not the last
    copy of its type t), and fl(p + fl(w * k)) never falls as k grows (w >= 0: rounding is
    monotone), so a candidate whose points + w * hi are below the best value found (or equal,
    and it comes later) cannot be chosen. The candidate with the highest bound is worked out
    first, then the others in order. ``hib[t]``: w * hi of type t. Only the candidates the
    legal mask ``lg`` allows are chosen from (a search asking its prior again narrows it; none
    allowed: candidate 0)."""
    for t in range(36):
        hib[t] = w * np.float64(4 + (only[t] if last_copy[t] else 0))
    first = 0
    top = -np.inf
    for j in range(n):
        if not lg[j]:
            continue
        hi = np.float64(pts[j]) + hib[_TYPE[cards[j]]]
        if hi > top:
            top = hi
            first = j
    # i = 0: the first, then i = 1 + j: the others (one unplayable_one site, inlined once)
    bv = -np.inf
    best = first
    last = -1
    q_only = -1
    for i in range(n + 1):
        j = first if i == 0 else i - 1
        if not lg[j]:
            continue
        if i > 0:
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
        if bv == -np.inf or v > bv or (v == bv and j < best):
            bv = v
            best = j
    return best


@njit(cache=True, inline="always", _nrt=False)
def policy(kind, knob, b, g, board, up_count, copies, hand, hand_n, fr, sc, cand_cell, cand_card,
           cand_pts, prm, buf, gone, was, spaces, owas, only, qd, pos, hib, lg):
    """The action of policy ``kind`` with knob ``knob`` for game b's player to move, among the
    actions ``lg`` (its legal mask) allows. greedy: the most points now. cautious: points now
    minus ``knob`` times the threat (a claim: greedy's value). space_maker: in phase one, points
    now plus ``knob`` for each space the play makes unplayable (phase two and claims: greedy's
    value)."""
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
                      gone, was, spaces, qd, pos, sc, lg)
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
        # also holds spaces next to face-down cards only, left out as ``only_types`` does)
        S = prm[P_S]
        nf = T._spaces(b, g, board, fr, sc, S)
        F = sc.shape[1] >> 1
        for t in range(36):
            only[t] = 0
        for i in range(nf):
            if LA._touches(board, b, np.int64(fr[b, i]), S):
                t = LA._single(sc[b, F + i] & avail)
                if t >= 0:
                    only[t] += 1
        for i in range(nf):
            pos[fr[b, i]] = i + 1
        a = _space_maker(board, b, cand_cell[b], cand_card[b], pts, n, avail, owas, S, only, qd,
                         pos, sc, knob, hib, lg)
        for i in range(nf):
            pos[fr[b, i]] = 0
        return a
    # greedy, and the others' greedy value (claims; space_maker's phase two; a knob of 0)
    return _first_best_int(pts, n, lg)


@njit(cache=True, inline="always", _nrt=False)
def _noisy(a, noise, seat_rs, row, lg):
    """With ``noise``, a random legal action (of ``lg``) instead of ``a`` with that chance: two
    draws from the mover's stream (``seat_rs[row]``) at every decision, whether or not it goes
    wild, so how many numbers a game's stream gives never depends on its batch. The pick is the
    int(u * count)-th legal action."""
    if noise <= 0:
        return a
    u_wild = uniform(seat_rs, row)
    u_pick = uniform(seat_rs, row)
    if u_wild < noise:
        count = 0
        for j in range(lg.shape[0]):
            count += lg[j]
        pick = np.int64(u_pick * np.float64(count))
        for j in range(lg.shape[0]):
            if lg[j]:
                if pick == 0:
                    return np.int64(j)
                pick -= 1
        return np.int64(lg.shape[0])
    return a


@njit(cache=True, _nrt=False)
def _play(seating, kinds, knobs, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2,
          fd_pos, fd_card, fd_owner, box, score, claims, unpl, fr, sc, cand_slot, cand_card,
          cand_cell, cand_pts, legal, ev, rs, prm, dr, buf, gone, was, spaces, owas, only, qd, pos,
          hib, seat_rs, limit, counted, games, mask, acts, out):
    """Play every game of the batch to its end, or where limit > 0 (a search's depth) until
    ``limit`` decisions of the kinds ``counted`` has a bit of (1 << kind) are made and the next
    one would be another. out[0]: decisions, out[2 + b] those of game b; out[1]: 1 + the first
    game whose policy chose an illegal action (0: none). knobs[k] = (the policy's knob,
    noise).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i], with ``mask[i]`` as the legal mask and ``seat_rs[i]`` as the
    mover's stream; nothing is played. One kernel for both, so the policy is compiled once."""
    deciding = games.shape[0] > 0
    decisions = 0
    P = prm[T.P_PLAYERS]
    for j in range(games.shape[0] if deciding else g.shape[0]):
        b = games[j] if deciding else j
        made = 0
        # game b's candidates are listed (init or the last step)
        while deciding or g[b, T.PHASE] != T.OVER:
            if limit > 0 and (counted >> np.int64(g[b, T.KIND])) & 1:
                if made == limit:
                    break
                made += 1
            mover = g[b, T.CUR]
            k = 0 if deciding else seating[b, mover]
            lg = mask[j] if deciding else legal[b]
            a = policy(kinds[k], knobs[k, 0], b, g, board, up_count, copies, hand, hand_n, fr, sc,
                       cand_cell, cand_card, cand_pts, prm, buf, gone, was, spaces, owas, only,
                       qd, pos, hib, lg)
            a = _noisy(a, knobs[k, 1], seat_rs, j if deciding else b * P + mover, lg)
            if deciding:
                acts[j] = a
                break
            if a < 0 or a >= g[b, T.N_CAND] or not legal[b, a]:
                out[1] = b + 1
                return
            T.apply_action(b, a, g, board, up_pos, up_count, copies, hand, hand_n, pile1, pile2,
                           fd_pos, fd_card, fd_owner, box, score, claims, unpl, fr, sc,
                           cand_slot, cand_card, cand_cell, cand_pts, legal, ev, rs, prm, dr)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


def _scratch(state):
    return (np.zeros(state.cand_pts.shape[1], np.int64), np.zeros(16, np.int64),
            np.zeros(16, np.int8), np.zeros(LA._MAXW, np.int64), np.zeros(36, np.int8),
            np.zeros(36, np.int64), np.zeros((4, LA.Q_WIDTH), np.int64),
            # pos: 1 + a space's index in the open list
            np.zeros(state.board.shape[1], np.int32), np.zeros(36, np.float64))


def _knobs(policies: list):
    kinds = np.array([k for k, _ in policies], np.int64)
    knobs = np.array([(kn[0], kn[1]) for _, kn in policies], np.float64).reshape(-1, 2)
    return kinds, knobs


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None, steps: int = 0,
                  step_kinds: tuple | None = None) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them),
    or ``steps`` more decisions of each game where steps > 0 (``engine.play.play_on``'s
    ``steps``; with ``step_kinds``, only decisions of those kinds count, and play stops before
    the next one of them); returns the decisions made. ``seat_rs`` (the seats' streams, flat:
    row b * P + seat, advanced in place) gives the draws of a strategy with ``noise``; the
    others draw nothing."""
    kinds, knobs = _knobs(policies)
    out = kernel_out(len(seating))
    counted = -1 if step_kinds is None else sum(1 << int(k) for k in step_kinds)
    _play(np.ascontiguousarray(seating, np.int64), kinds, knobs, *state.arrays(),
          *_scratch(state), seat_rs, np.int64(steps), np.int64(counted), np.zeros(0, np.int64),
          state.legal_mask, np.zeros(0, np.int64), out)
    if state.g[:, T.ERR].any():  # pragma: no cover - the bounds in grid.py / game.py
        raise RuntimeError("savannah: a game broke a proven bound: a bug, please report")
    return kernel_done(out, per_game)


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs`` (uint64[n],
    row i: game games[i]'s mover, advanced in place) gives a noisy policy's draws, ``legal``
    (bool[n, W]) what each may choose among."""
    kinds, knobs = _knobs([policy])
    games = np.ascontiguousarray(games, np.int64)
    out = np.zeros(len(games), np.int64)
    _play(np.zeros((1, 1), np.int64), kinds, knobs, *state.arrays(), *_scratch(state), seat_rs,
          np.int64(0), np.int64(-1), games, np.require(legal, np.bool_, "CW"), out,
          kernel_out(0))
    if state.g[:, T.ERR].any():  # pragma: no cover - the bounds in grid.py / game.py
        raise RuntimeError("savannah: a game broke a proven bound: a bug, please report")
    return out

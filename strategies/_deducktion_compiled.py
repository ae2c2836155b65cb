"""Deducktion's shipped strategies as compiled scalar policies (``KINDS``: their names, by
number), and the kernels that play them: ``decide`` for the rows where one sits in the play
loop, ``play_compiled`` for whole games when every seat holds one. Both call the same
``policy``: a naive asker, a meld collector, and a deducer that tracks where every card can be
(``track_one``) and spreads each card over its places (``estimate_one``).

Each reads only what the mover's observation (``deducktion.Obs``) holds: it reads those numbers
from the state arrays directly, and every read names the observation field it stands for. The
knowledge test (``tests/test_deducktion.py``) deals again what the mover cannot see at every
decision and requires the same actions and draws.

The seats' draws. A policy draws one value (a random legal action) at every decision, then a
block of a size fixed by the decision kind (the collector's 336 at QUESTION, the deducer's
(P - 1) x ASK_WIDTH at TARGET and QUESTION, ...), whether it reads all of it or not: how far a
game's seat stream moves at a decision depends on that game alone. The streams are
counter-based (``chance``: draw n of a stream is ``mix(key + n * GOLDEN)``), so a block's draws
that the decision does not read are skipped in one addition and the draws it reads are computed
where they are used.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from safari_sim.engine.chance import _GOLDEN, _S11, _TO_UNIT, mix
from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import deducktion as dk
from safari_sim.games.deducktion import (A_ASK, A_CARD, A_GUESS, A_MELD, A_NO_GUESS, A_QUESTION,
                                         A_TARGET, CUR, DECKS, DRAW_ZERO, DRAWPOS,
                                         FACEUP, GANIMAL, GIVE, GUESS,
                                         GUESSER, H_ASK, H_DRAW, H_MELD, HAND_N, MELD, MELD0, NA,
                                         NC, NH, NN, NQC, N_ACTIONS, N_QUESTIONS, P_DECKS,
                                         P_DRAW, P_HAND, P_PLAYERS, PASS, PHASE, QPOS,
                                         QUESTION, TARGET, TGT,
                                         TURNS, _on_table, _sizes, track_one)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (dk.__file__,))

KINDS = ("naive", "collector", "deducer")
K_NAIVE, K_COLLECTOR, K_DEDUCER = range(len(KINDS))
# the most questions three flipped cards allow (three explorers: 5 animals x 2 runs x 3 pairs;
# a test recounts it over every triple): the width of the deducer's ask draws, the same for every
# game whatever its own flipped cards or the other games allow
ASK_WIDTH = 30

QMAX = 64          # more than the questions three flipped cards can allow
_LO, _HI = 1e-9, 1 - 1e-9   # the clip of a card's chance before its entropy


# ---- the seat's stream -----------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _u(s0, j):
    """Draw j (0-based) of a seat stream whose state is ``s0``: chance.uniform, without
    advancing."""
    return np.float64(mix(s0 + np.uint64(j + 1) * _GOLDEN) >> _S11) * _TO_UNIT


# ---- what the observation holds, read from the state -------------------------------------------

# ``_on_table`` (obs.table >= 0) is the game's (games/deducktion.py)


@njit(cache=True, inline="always", _nrt=False)
def _rank_counts(b, p, loc, cnt):
    """_rank_counts(obs.hand): cards of each number in the hand (obs.hand: loc == seat)."""
    for n in range(NN):
        cnt[n] = 0
    for c in range(NC):
        if loc[b, c] == p:
            cnt[c % NN] += 1


@njit(cache=True, inline="always", _nrt=False)
def _seen(b, p, nplayers, g, loc, hist, start):
    """obs.seen as a 30-bit set: obs.start_hand, the hist column 6 this seat is shown (what it
    received as asker or target, melds, its own draws), obs.hand and the table."""
    bits = np.int64(start[b, p])
    for j in range(g[b, NH]):
        ty = hist[b, j, 0]
        who = hist[b, j, 1]
        if ty == H_ASK:
            if who == p:
                bits |= np.int64(hist[b, j, 6])
            elif hist[b, j, 2] == p:
                bits |= np.int64(hist[b, j, 7])
        elif ty == H_MELD or (ty == H_DRAW and who == p):
            bits |= np.int64(hist[b, j, 6])
    for c in range(NC):
        x = loc[b, c]
        if x == p or _on_table(x):
            bits |= np.int64(1) << c
    return bits


@njit(cache=True, inline="always", _nrt=False)
def _q_left(b, g, params):
    """obs.q_left."""
    return (NQC - g[b, QPOS]) + NQC * (params[P_DECKS] - 1 - g[b, DECKS])


@njit(cache=True, inline="always", _nrt=False)
def _random_legal(u, lr, legal):
    """base.random_legal for one game (its legal mask: row lr): the int(u * count)-th legal
    action."""
    n = 0
    for a in range(N_ACTIONS):
        if legal[lr, a]:
            n += 1
    pick = np.int64(u * n)
    for a in range(N_ACTIONS):
        if legal[lr, a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(cache=True, _nrt=False)
def _melds(b, p, nplayers, legal, lr, loc, g, params, meld_at, cnt):
    """The meldable number (legal row lr) with most cards held, when it has meld_at (or on the
    last turn, or adding to a meld); else stop melding."""
    _rank_counts(b, p, loc, cnt)
    last = _q_left(b, g, params) // 3 <= nplayers
    best, best_n = -1, -1
    for n in range(NN):
        if legal[lr, A_MELD + n] and (cnt[n] >= meld_at or last or cnt[n] < 3):
            if cnt[n] > best:
                best, best_n = cnt[n], n
    return A_MELD + best_n if best_n >= 0 else A_ASK


@njit(cache=True, _nrt=False)
def _fewest_rank_card(b, p, loc, cnt, s0, off):
    """The hand card whose number the hand holds fewest of, ties by draws
    off .. off + 29 (one per card; only the hand's are read)."""
    _rank_counts(b, p, loc, cnt)
    best, best_c = np.inf, 0
    for c in range(NC):
        if loc[b, c] == p:
            key = cnt[c % NN] + _u(s0, off + c) * 0.5
            if key < best:
                best, best_c = key, c
    return A_CARD + best_c


@njit(cache=True, _nrt=False)
def _unseen_guess(b, p, nplayers, g, loc, hist, start, max_unseen, s0, off):
    """One of the animal's (obs.animal) never-seen numbers, drawn (off ..
    off + 5), if at most max_unseen are left."""
    a = g[b, GANIMAL]
    seen = _seen(b, p, nplayers, g, loc, hist, start)
    k = 0
    best, pick = -1.0, 0
    for n in range(NN):
        if (seen >> (a * NN + n)) & 1 == 0:
            k += 1
            u = _u(s0, off + n)
            if u > best:
                best, pick = u, n
    return A_GUESS + pick if 1 <= k <= max_unseen else A_NO_GUESS


# ---- the deducer: track, propagate, estimate -------------------------------------------------------

# ``_sizes`` (place_sizes) and ``track_one`` (with its fixed point ``_fix_one``) are the game's
# (games/deducktion.py): the one account of the seat's knowledge that the deducer and the worlds
# for search (``determinize``) share


@njit(cache=True, inline="always", _nrt=False)
def _rows_to_one(w, poss, X):
    """w / max(w.sum(axis=2), 1e-12): each card's chances over its places sum to 1. A card's
    entries outside its places are 0 and stay 0 (0 / d, 0 * f), so only its places are summed
    (adding 0.0 changes no sum) and divided."""
    for c in range(NC):
        m = poss[c]
        if m == 0:
            continue
        s = 0.0
        for x in range(X):
            if (m >> x) & 1:
                s += w[c, x]
        d = max(s, 1e-12)
        for x in range(X):
            if (m >> x) & 1:
                w[c, x] = w[c, x] / d


@njit(cache=True, _nrt=False)
def estimate_one(poss, size, X, P, w, col):
    """w[c, x]: the chance card c is in place x, spread so that rows sum to 1, each hand to its
    size and the box to one card of each animal (four scaling rounds; the sums run in index
    order, skipping the entries that are 0)."""
    for c in range(NC):
        for x in range(X):
            w[c, x] = np.float64((poss[c] >> x) & 1)
    for _ in range(4):
        _rows_to_one(w, poss, X)
        for x in range(X):
            col[x] = 0.0
        for c in range(NC):
            m = poss[c]
            for x in range(X):
                if (m >> x) & 1:
                    col[x] += w[c, x]
        for x in range(X):
            col[x] = np.float64(size[x]) / max(col[x], 1e-12) if col[x] > 0 else 0.0
        for c in range(NC):
            m = poss[c]
            for x in range(X):
                if (m >> x) & 1:
                    w[c, x] = w[c, x] * col[x]
        bp = 1 << P
        for a in range(NA):
            s = 0.0
            for n in range(NN):
                if poss[a * NN + n] & bp:
                    s += w[a * NN + n, P]
            d = max(s, 1e-12)
            for n in range(NN):
                if poss[a * NN + n] & bp:
                    w[a * NN + n, P] = w[a * NN + n, P] / d
    _rows_to_one(w, poss, X)


@njit(cache=True, inline="always", _nrt=False)
def _allowed_list(c0, c1, c2, scratch, qs):
    """The questions three flipped cards allow (obs.allowed), ascending, into qs; their number."""
    for a in range(A_QUESTION, A_QUESTION + N_QUESTIONS):
        scratch[0, a] = False
    dk._legal_questions(np.int64(0), c0, c1, c2, scratch)
    n = 0
    for q in range(N_QUESTIONS):
        if scratch[0, A_QUESTION + q]:
            qs[n] = q
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _deduce(b, p, nplayers, ph, g, pp, loc, hist, start, qmask, params, kp, nq, qs, s0, off,
            size, poss, w, wkey, col, per, cnt, tsize):
    """The deducer's TARGET, QUESTION and GUESS decisions. The ask draws are off .. off +
    (P - 1) * ASK_WIDTH - 1, row-major over (opponent, question slot)."""
    P = nplayers
    X = P + 2 if P == 2 else P + 1
    # the chances are a function of what the seat has seen: the same from its TARGET to its
    # QUESTION decision and over its five guesses (nothing it sees moves in between), so the
    # game keeps the last ones it estimated (w), keyed by (turns, history rows, seat, guessing)
    key = ((np.int64(g[b, TURNS]) * 1024 + g[b, NH]) * 8 + p) * 2 + (1 if ph == GUESS else 0)
    if wkey[0] != key:
        _sizes(b, p, P, pp, loc, size)
        track_one(b, p, P, g, loc, hist, start, qmask, size, poss, tsize)
        estimate_one(poss, size, X, P, w, col)
        wkey[0] = key
    if ph == GUESS:
        a = g[b, GANIMAL]   # obs.animal
        best, bn = -1.0, 0
        for n in range(NN):
            v = w[a * NN + n, P]
            if v > best:
                best, bn = v, n
        return A_GUESS + bn if best >= kp[0] else A_NO_GUESS
    # _scores: the bits an answer removes plus meld_weight times the cards toward melds
    tsel = -1
    if ph == QUESTION:
        t = g[b, TGT] - p
        t = t + P if t < 0 else t     # obs.target
        tsel = min(max(t - 1, 0), P - 2)
    # the value of each card (only those an allowed question asks about, and at QUESTION only
    # for the player already chosen: the others are never read)
    union = 0
    for j in range(nq):
        union |= qmask[qs[j]]
    _rank_counts(b, p, loc, cnt)
    mw = kp[1]
    for c in range(NC):
        if (union >> c) & 1 == 0:
            continue
        m = mw * (min(np.float64(cnt[c % NN]), 2.0) / 2.0)
        for o in range(P - 1):
            if ph == QUESTION and o != tsel:
                continue
            pt = w[c, o + 1]
            q = min(max(pt, _LO), _HI)
            h = -(q * math.log2(q) + (1 - q) * math.log2(1 - q))
            per[c, o] = h + m * pt
    # two players, printed reserve rule: draw_weight times the chance of a zero answer (obs.
    # reserve_rule, obs.draw_left), multiplied in card order
    dw = kp[3]
    draws = (P == 2 and dw > 0 and params[P_DRAW] == DRAW_ZERO
             and params[P_HAND] - g[b, DRAWPOS] > 0)
    best, bo, bj = -np.inf, 0, 0
    for o in range(P - 1):
        if ph == QUESTION and o != tsel:
            continue
        for j in range(nq):
            qm = qmask[qs[j]]
            if P == 2:
                # the order of the sum that of the numpy deducer it was first written from
                # (an OpenBLAS gemv at two players): four lanes over cards 0..27, then the last
                # two
                l0 = l1 = l2 = l3 = 0.0
                for c in range(0, 28, 4):
                    if (qm >> c) & 1:
                        l0 += per[c, o]
                    if (qm >> (c + 1)) & 1:
                        l1 += per[c + 1, o]
                    if (qm >> (c + 2)) & 1:
                        l2 += per[c + 2, o]
                    if (qm >> (c + 3)) & 1:
                        l3 += per[c + 3, o]
                tail = 0.0
                for c in range(28, NC):
                    if (qm >> c) & 1:
                        tail += per[c, o]
                v = ((l0 + l2) + (l1 + l3)) + tail
            else:
                v = 0.0
                for c in range(NC):
                    if (qm >> c) & 1:
                        v += per[c, o]
            if draws:
                z = 1.0
                for c in range(NC):
                    if (qm >> c) & 1:
                        z = z * (1.0 - w[c, 1])
                v = v + dw * z
            v = v + _u(s0, off + o * ASK_WIDTH + j) * 1e-6
            if v > best:
                best, bo, bj = v, o, j
    if ph == TARGET:
        return A_TARGET + bo
    return A_QUESTION + qs[bj]


# ---- one decision ----------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def policy(kind, kp, b, p, nplayers, g, pp, loc, qdeck, hist, start, legal, lr, qmask,
           params, seat_rs, r, nq, qs, size, poss, w, wkey, col, per, cnt, tsize):
    """The action of policy ``kind`` (knobs ``kp``) for game b's mover p, among the actions of
    row lr of ``legal``, whose seat stream is row r of ``seat_rs`` (advanced by the draws of
    this decision: one, then the block of the decision's kind). ``nq``, ``qs``: the questions
    this turn's flipped cards allow (the deducer at TARGET and QUESTION)."""
    ph = g[b, PHASE]
    s0 = seat_rs[r]
    a = _random_legal(_u(s0, 0), lr, legal)    # every decision starts with one draw
    off = 1
    if kind == K_NAIVE:
        if ph == MELD:
            a = A_ASK
            for n in range(NN):
                if legal[lr, A_MELD + n]:
                    a = A_MELD + n
                    break
        if ph == GUESS:
            a = _unseen_guess(b, p, nplayers, g, loc, hist, start, np.int64(kp[0]), s0,
                              np.int64(off))
            off += NN
    elif kind == K_COLLECTOR:
        if ph == MELD:
            a = _melds(b, p, nplayers, legal, lr, loc, g, params, np.int64(kp[0]), cnt)
        if ph == TARGET:
            best, bo = -1.0, 0
            for o in range(nplayers - 1):
                s = p + o + 1
                s = s - nplayers if s >= nplayers else s
                v = pp[b, s, HAND_N] + _u(s0, off + o) * 0.5    # obs.hand_size[o + 1]
                if v > best:
                    best, bo = v, o
            a = A_TARGET + bo
            off += nplayers - 1
        elif ph == QUESTION:
            _rank_counts(b, p, loc, cnt)
            best, bq = -np.inf, 0
            for q in range(N_QUESTIONS):
                if legal[lr, A_QUESTION + q]:     # obs.allowed at QUESTION
                    qm = qmask[q]
                    v = 0.0
                    for c in range(NC):
                        # a card neither held nor on the table, by its number's count
                        if (qm >> c) & 1:
                            x = loc[b, c]
                            if x != p and not _on_table(x):
                                v += cnt[c % NN]
                    v = v + _u(s0, off + q) * 0.1
                    if v > best:
                        best, bq = v, q
            a = A_QUESTION + bq
            off += N_QUESTIONS
        elif ph == PASS or ph == GIVE:
            a = _fewest_rank_card(b, p, loc, cnt, s0, np.int64(off))
            off += NC
        elif ph == GUESS:
            a = _unseen_guess(b, p, nplayers, g, loc, hist, start, np.int64(kp[1]), s0,
                              np.int64(off))
            off += NN
    else:  # K_DEDUCER
        if ph == MELD:
            a = _melds(b, p, nplayers, legal, lr, loc, g, params, np.int64(kp[2]), cnt)
        if ph == PASS or ph == GIVE:
            a = _fewest_rank_card(b, p, loc, cnt, s0, np.int64(off))
            off += NC
        elif ph == TARGET or ph == QUESTION or ph == GUESS:
            a = _deduce(b, p, nplayers, ph, g, pp, loc, hist, start, qmask, params, kp,
                        np.int64(nq), qs, s0, np.int64(off), size, poss, w, wkey, col, per, cnt,
                        tsize)
            if ph != GUESS:
                off += (nplayers - 1) * ASK_WIDTH
    seat_rs[r] = s0 + np.uint64(off) * _GOLDEN
    return a


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, g, pp, loc, qdeck, pile, hist, guess, ev, rs, qmask, params, dr,
          mover, legal, start, seat_rs, qs, scratch, size, poss, w, wkey, col, per, cnt, tsize,
          games, mask, acts, out):
    """Play every game of the batch to its end, one game after the other (a game's decisions and
    draws depend on that game alone). out[0]: decisions, out[2 + b] those of game b; out[1]: 1 +
    the first game whose policy chose an illegal action (0: none).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i] for its mover, among ``mask[i]``, drawing from row i of
    ``seat_rs``; nothing is played. One kernel for both, so the policy is compiled once."""
    only = games.shape[0] > 0
    nplayers = params[P_PLAYERS]
    decisions = 0
    for j in range(games.shape[0] if only else g.shape[0]):
        b = games[j] if only else j
        wkey[0] = -1     # the deducer's kept chances are this game's only
        qturn = -1
        nq = 0
        while only or mover[b] >= 0:
            m = mover[b]
            k = 0 if only else seating[b, m]
            ph = g[b, PHASE]
            if kinds[k] == K_DEDUCER and (ph == TARGET or ph == QUESTION):
                # obs.allowed of this turn's three flipped cards (obs.flipped), once a turn
                if qturn != g[b, TURNS]:
                    i = g[b, QPOS]
                    nq = _allowed_list(np.int64(qdeck[b, i]), np.int64(qdeck[b, i + 1]),
                                      np.int64(qdeck[b, i + 2]), scratch, qs)
                    qturn = g[b, TURNS]
            lg = mask if only else legal
            a = policy(kinds[k], kp[k], b, m, nplayers, g, pp, loc, qdeck, hist, start, lg,
                       j if only else b, qmask, params, seat_rs, j if only else b * nplayers + m,
                       nq, qs, size, poss, w, wkey, col, per, cnt, tsize)
            if only:
                acts[j] = a
                break
            if a < 0 or a >= legal.shape[1] or not legal[b, a]:
                out[1] = b + 1
                out[0] = decisions
                return
            dk.apply_action(b, a, g, pp, loc, qdeck, pile, hist, guess, ev, rs, qmask, params,
                            dr)
            dk.write_view(b, g, pp, loc, qdeck, params, mover, legal)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


def _scratch():
    """The kernels' scratch: qs, a legal row, size, poss, w, wkey, col, per, cnt, tsize."""
    return (np.zeros(QMAX, np.int64), np.zeros((1, N_ACTIONS), np.bool_), np.zeros(8, np.int64),
            np.zeros(NC, np.int64), np.zeros((NC, 8), np.float64), np.full(1, -1, np.int64),
            np.zeros(8, np.float64), np.zeros((NC, 8), np.float64), np.zeros(NN, np.int64),
            np.zeros(8, np.int64))


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` (uint64[B * P], the seats' streams) is advanced in
    place by the policies' draws (the same as ``decide``'s)."""
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), 4), np.float64)
    for i, (_, knobs) in enumerate(policies):
        kp[i, :len(knobs)] = knobs
    out = kernel_out(len(seating))
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, state.g, state.pp, state.loc,
          state.qdeck, state.pile, state.hist, state.guess, state.ev, state.rs, dk.QMASK,
          state.params, state.drama, state.mover, state.legal_, state.start, seat_rs,
          *_scratch(), np.zeros(0, np.int64), state.legal_, np.zeros(0, np.int64), out)
    decisions = kernel_done(out, per_game)
    return decisions


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs``
    (uint64[n]: row i the stream of game games[i]'s mover) advanced by each decision's draws;
    ``legal`` (bool[n, W]) what each may choose among."""
    kp = np.zeros((1, 4), np.float64)
    kp[0, :len(policy[1])] = policy[1]
    out = np.zeros(len(games), np.int64)
    mask = np.require(legal, np.bool_, "CW")
    _play(np.zeros((1, 1), np.int64), np.array([policy[0]], np.int64), kp, state.g, state.pp,
          state.loc, state.qdeck, state.pile, state.hist, state.guess, state.ev, state.rs,
          dk.QMASK, state.params, state.drama, state.mover, mask, state.start, seat_rs,
          *_scratch(), np.ascontiguousarray(games, np.int64), mask, out, kernel_out(0))
    return out


@njit(cache=True, _nrt=False)
def _deductions(games, fallback, g, pp, loc, hist, start, mover, qmask, params, size, poss,
                tsize, w, col, sets, chances):
    P = params[P_PLAYERS]
    X = P + 2 if P == 2 else P + 1
    for i in range(games.shape[0]):
        b = games[i]
        p = mover[b]
        _sizes(b, p, P, pp, loc, size)
        track_one(b, p, P, g, loc, hist, start, qmask, size, poss, tsize, fallback)
        estimate_one(poss, size, X, P, w, col)
        for c in range(NC):
            sets[i, c] = poss[c]
            for x in range(X):
                chances[i, c, x] = w[c, x]


def deductions(state, games: np.ndarray, fallback: bool = True):
    """(sets int64[n, 30], chances float64[n, 30, X]): what the deducer works out for the mover
    of each game of ``games``: the places each card can be in (bits by offset, P the box,
    P + 1 the two-player reserve; ``fallback``: a contradiction read as anywhere but here) and
    its chance in each place (``estimate_one`` of the fallen-back sets), for tests and
    studies."""
    games = np.ascontiguousarray(games, np.int64)
    P = state.n_players
    X = P + 2 if P == 2 else P + 1
    sets = np.zeros((len(games), NC), np.int64)
    chances = np.zeros((len(games), NC, X), np.float64)
    for fb in ((True,) if fallback else (False, True)):
        _deductions(games, fb, state.g, state.pp, state.loc, state.hist, state.start,
                    state.mover, dk.QMASK, state.params, np.zeros(8, np.int64),
                    np.zeros(NC, np.int64), np.zeros(8, np.int64), np.zeros((NC, 8)),
                    np.zeros(8), sets if fb == fallback else np.zeros_like(sets), chances)
    return sets, chances

"""Paper Safari's shipped strategies as compiled scalar policies, and the kernel that plays whole
matches with them.

Each policy is the numpy strategy of the same name (``strategies/paper_safari.py``: ``View``,
``View.delta``, ``View.estimates``, ``decide`` and the three ``act``) written again for ONE game,
reading only what the mover's observation holds, and returns the same action:
``tests/test_paper_safari_compiled.py`` plays the same matches both ways and compares them. The
rules are not written again here: ``_play`` calls the game's own ``apply_action`` and
``write_legal``, the per-game functions its batch ``step`` and ``legal`` call.

What a twin reads from the state, and the observation field each read stands for (the mover is
seat p = ``g[b, CUR]``; it never reads another seat's face-down cards, its own unknown ones, the
held card of anyone else, or the deck):

- ``g[b, PHASE]`` (``obs.kind``), ``g[b, HELD]`` (``obs.held``: the mover's own drawn card),
  ``g[b, RTURNS]`` (``obs.round_turns``), ``g[b, DISC_N]`` and ``disc[b, :DISC_N]`` (the public
  discard pile: ``obs.discard_top`` and what ``obs.unseen`` leaves out);
- ``grid[b, q, k]`` only where ``up[b, q, k]`` (``obs.grid`` of every player, face-up cards), or,
  for q = p, where ``known[b, p, k]`` (``obs.grid[:, 0]``: the mover's own looked-at cards);
  ``up`` (``obs.up``);
- ``base`` (the box's cards: ``obs.unseen`` is the box less every card this player can locate),
  ``card_value`` (``obs.card_value``) and ``params`` (the rules: ``obs.rows``, ``obs.cols``,
  ``obs.pair_zero_min``, the table size);
- the legal mask of game b (``legal``), written by the game's ``write_legal``.

These policies draw nothing from the seat streams (nor do the numpy ones).

Floating point: the numpy ``View`` averages the unseen cards with a matrix product, whose order
of summation is BLAS's; here the sum is taken another way. The two agree to the bit when every
partial sum is exact, which holds for whole card values and a ``safari_worth`` that is a multiple
of 2**-20 (0.5, 1.25, ...): ``policy()`` gives no twin for any other ``safari_worth`` (0.3), and
such a strategy plays through ``act``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.games import paper_safari as ps
from safari_sim.games.paper_safari import (CUR, DECK, DISC_N, DISCARD, DRAW, HELD, NO_PEEK, OVER,
                                          P_CARDS, P_COLS, P_FLAGS, P_PLAYERS, P_ROWS, P_SLOTS,
                                          PEEK, PHASE, PLACE, REVEAL, RTURNS, SLOT0, TAKE)

from .paper_safari import K_CLOSER, K_COLUMN_MATCHER, K_THRESHOLD

# the kernel below inlines the game's rules: recompile it when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (ps.__file__, __file__.replace(
    "_paper_safari_compiled.py", "paper_safari.py")))

# knobs: kp[k, ...]
KB_KEEP, KB_SAFARI, KB_PATIENCE, KB_A, KB_B = range(5)   # A: match_bonus | margin; B: rush
NKNOBS = 5


@njit(cache=True, inline="always", _nrt=False)
def _first_slot(lg, nslots):
    """first_slot(legal): the first legal slot action."""
    for k in range(nslots):
        if lg[SLOT0 + k]:
            return SLOT0 + k
    return SLOT0


@njit(cache=True, inline="always", _nrt=False)
def _seen_sum(b, q, own, grid, up, known, card_value, rows, cols, eq, seen):
    """obs.seen_sum and obs.hidden of player q as the mover sees it (``own``: q is the mover):
    the seen cards added up (the game's ``seen_total``), and how many it has not seen."""
    hidden = 0
    for k in range(rows * cols):
        if up[b, q, k] or (own and known[b, q, k]):
            seen[k] = grid[b, q, k]
        else:
            seen[k] = -1
            hidden += 1
    # int16 in the observation (|total| <= 16 cards of at most 1000)
    total = ps.seen_total(seen, card_value, rows, cols, eq)
    return np.float64(np.int16(total)), np.float64(hidden)


@njit(cache=True, inline="always", _nrt=False)
def policy(kind, kp, tv, tv_total, b, g, grid, up, known, disc, card_value, params, partner, lg,
           val, kn, fd, score, match, seen):
    """The action of policy ``kind`` (knobs ``kp``, card values as it plans them ``tv``: the
    Safari at ``safari_worth``; ``tv_total``: the box's cards added up in ``tv``) for game b's
    player to move; ``lg`` holds game b's legal mask. The rest are scratch rows."""
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    phase = g[b, PHASE]
    if phase == REVEAL:
        return _first_slot(lg, nslots)
    p = g[b, CUR]
    rows = params[P_ROWS]
    cols = params[P_COLS]
    eq = ps._eq_mode(params[P_FLAGS])
    zmin = np.inf if eq == 0 else (-np.inf if eq == 2 else 0.0)
    # View: impatience, and the card being weighed (the discard top while drawing, else held)
    urge = np.float64(g[b, RTURNS]) / (np.float64(nplayers) * kp[KB_PATIENCE])
    keep_below = kp[KB_KEEP] + urge
    dn = g[b, DISC_N]
    top = disc[b, dn - 1] if dn > 0 else -1
    held = g[b, HELD]
    card = top if phase == DRAW else held
    cv = tv[max(card, 0)]
    # mean_unseen: the box less the held card, the discard pile and every card this player sees
    # (exact sums: see the module's docstring)
    cnt = params[P_CARDS] - dn
    tot = tv_total
    if held >= 0:
        cnt -= 1
        tot -= tv[held]
    for j in range(dn):
        tot -= tv[disc[b, j]]
    for o in range(nplayers):
        q = p + o
        q = q - nplayers if q >= nplayers else q
        for k in range(nslots):
            if up[b, q, k] or (o == 0 and known[b, q, k]):
                cnt -= 1
                tot -= tv[grid[b, q, k]]
    mean = tot / max(np.float64(cnt), 1.0)
    # the own grid as numbers: known values, else the mean unseen value
    nfd = 0
    for k in range(nslots):
        kn[k] = up[b, p, k] or known[b, p, k]
        val[k] = tv[grid[b, p, k]] if kn[k] else mean
        fd[k] = not up[b, p, k]
        if fd[k]:
            nfd += 1
    # View.delta(card value)
    any_match = False
    for k in range(nslots):
        x = val[k]
        xk = kn[k]
        if rows > 1:
            pv = val[partner[k]]
            pk = kn[partner[k]]
        else:
            pv = 0.0
            pk = False
        m = pk and cv == pv and pv >= zmin
        paired = xk and pk and x == pv and pv >= zmin
        old = 0.0 if paired else x + pv
        new = 0.0 if m else cv + pv
        score[k] = new - old - urge * (1.0 if fd[k] else 0.0)
        match[k] = m and not paired
        any_match = any_match or match[k]
    want = cv < keep_below
    if kind == K_COLUMN_MATCHER:
        bonus = kp[KB_A]
        for k in range(nslots):
            score[k] = score[k] - bonus * (1.0 if match[k] else 0.0)
        want = want or any_match
    elif kind == K_CLOSER:
        margin = kp[KB_A]
        # View.estimates: seen cards, and the mean unseen value for each card not seen
        ss, hid = _seen_sum(b, p, True, grid, up, known, card_value, rows, cols, eq, seen)
        est0 = ss + hid * mean
        best_other = np.inf
        for o in range(1, nplayers):
            q = p + o
            q = q - nplayers if q >= nplayers else q
            ss, hid = _seen_sum(b, q, False, grid, up, known, card_value, rows, cols, eq, seen)
            best_other = min(best_other, ss + hid * mean)
        ahead = est0 + margin < best_other
        rush = kp[KB_B] * (1.0 if ahead else 0.0)
        for k in range(nslots):
            f = 1.0 if fd[k] else 0.0
            d = score[k]
            finish = nfd == 1 and fd[k]
            wins = est0 + (d + urge * f) + margin < best_other
            score[k] = np.inf if finish and not wins else d - rush * f
        want = want or ahead
    # decide
    slot = 0
    best = score[0]
    for k in range(1, nslots):
        if score[k] < best:
            slot = k
            best = score[k]
    good = want and best < 0
    if phase == DRAW:
        return TAKE if (good and lg[TAKE]) or not lg[DECK] else DECK
    if phase == PEEK:
        look = np.inf
        for k in range(nslots):
            if kn[k]:
                look = min(look, score[k])
        return _first_slot(lg, nslots) if look <= 0 else NO_PEEK
    if phase == PLACE:
        return SLOT0 + slot if good or not lg[DISCARD] else DISCARD
    return _first_slot(lg, nslots)


@njit(cache=True)
def _play(seating, kinds, kp, tvs, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev,
          params, dr, nactions, out):
    """Play every match of the batch to its end. out[0]: decisions; out[1]: 1 + the first game
    whose policy chose an illegal action (0: none)."""
    nslots = params[P_SLOTS]
    rows = params[P_ROWS]
    cols = params[P_COLS]
    npol = kinds.shape[0]
    tv_total = np.zeros(npol, np.float64)
    for k in range(npol):
        for i in range(base.shape[0]):
            tv_total[k] += tvs[k, base[i]]
    partner = np.empty(nslots, np.int64)
    for k in range(nslots):
        partner[k] = ((k // cols + 1) % rows) * cols + k % cols
    lg = np.zeros(nactions, np.bool_)
    val = np.empty(nslots, np.float64)
    kn = np.empty(nslots, np.bool_)
    fd = np.empty(nslots, np.bool_)
    score = np.empty(nslots, np.float64)
    match = np.empty(nslots, np.bool_)
    seen = np.empty(nslots, np.int64)
    decisions = 0
    for b in range(g.shape[0]):
        while g[b, PHASE] != OVER:
            k = seating[b, g[b, CUR]]
            ps.write_legal(b, g, up, params, lg)
            a = policy(kinds[k], kp[k], tvs[k], tv_total[k], b, g, grid, up, known, disc,
                       card_value, params, partner, lg, val, kn, fd, score, match, seen)
            if a < 0 or a >= nactions or not lg[a]:
                out[1] = b + 1
                out[0] = decisions
                return
            ps.apply_action(b, a, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev,
                            params, dr)
            decisions += 1
    out[0] = decisions


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray) -> int:
    """Play a dealt (or part-played) batch to the end with ``policies`` [(kind, knobs)]
    (seating indexes them); returns the decisions made. ``seat_rs`` (the seats' streams) is
    unused: these policies draw nothing."""
    nt = len(state.card_value)
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), NKNOBS), np.float64)
    tvs = np.repeat(state.card_value.astype(np.float64)[None, :], len(policies), axis=0)
    for i, (_, knobs) in enumerate(policies):
        kp[i, :len(knobs)] = knobs
        tvs[i, nt - 1] = kp[i, KB_SAFARI]   # the Safari (the last type) as the policy plans it
    out = np.zeros(2, np.int64)
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, tvs, state.g, state.pp, state.grid,
          state.up, state.known, state.deck, state.disc, state.base, state.card_value, state.rs,
          state.ev, state.params, state.dr, ps.SLOT0 + int(state.params[P_SLOTS]), out)
    if out[1]:  # pragma: no cover - a compiled twin that disagrees with the rules
        raise RuntimeError(f"compiled policy chose an illegal action in game {out[1] - 1}")
    return int(out[0])

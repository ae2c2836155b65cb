"""Hi-Lo Hijinks' shipped strategies as compiled scalar policies, and the kernel that plays
whole games with them.

Each policy is the numpy strategy of the same name (``strategies/hi_lo_hijinks.py``) written
again for ONE game b, and returns the same action: ``tests/test_hi_lo_hijinks_compiled.py`` plays
the same games both ways and compares every outcome column. A play is scored from the very same
look-up tables the numpy strategies use (``_play_table``, ``_take_delta``), so the float32 scores
and their ties are the same numbers, not a re-derivation.

What a twin reads (straight from the state arrays, for speed), and the observation field each
read stands for; nothing else (never another hand, never the deck's order):

- ``g[b, CUR]`` (``obs.seat``), ``g[b, PHASE]`` (``obs.kind``), ``g[b, MSTACK]``
  (``obs.match_stack``), ``g[b, HOLDER]`` (``obs.holder``, as an offset from the mover),
  ``g[b, END] - g[b, POS]`` (``obs.deck_left``: the deck's size, not its cards);
- ``hand[b, mover]`` (``obs.hand``: the mover's own hand only);
- ``stack[b, s, slen[b, s] - 1]`` (``obs.top``: the top card's number), ``higher``
  (``obs.higher``), ``slen`` (``obs.stack_len``), ``stype`` (``obs.stack_types``);
- ``ptype[b, q]`` (``obs.piles``, rotated as the observation rotates them; ``obs.standing`` is
  counted from them);
- ``legal[b]``: the legal mask the lockstep loop hands the strategy (``game.legal``).

None of the three draws from its seat stream (the numpy ones never touch ``rng``), so
``play_compiled`` leaves ``seat_rs`` as it is, as the lockstep loop would; none keeps memory.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.games import hi_lo_hijinks as hl
from safari_sim.games.hi_lo_hijinks import (CUR, END, F_EXP_TYPE, F_TIE_DISCARD, GIVE, HOLDER,
                                            MSTACK, P_ANIMALS, P_EXPTS, P_FLAGS, P_GIVE0, P_K,
                                            P_KEEP, P_NAK, P_PLAYERS, P_VALUES, PHASE, PLAY, POS,
                                            REVERSE)

from .hi_lo_hijinks import (COST0, K_DUMPER, K_GIVER, K_SAFE, MAXC, NCOST, _play_table,
                            _take_delta)

# the kernel below inlines the game's rules: recompile it when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (hl.__file__, __file__.replace(
    "_hi_lo_hijinks_compiled.py", "hi_lo_hijinks.py")))

# knobs (kp[i, ...]) by kind, as each class's ``policy()`` gives them
# safe:   match_bonus, explorer_cost, spoil, majority, reverse, give
# dumper: max_stack, until_deck, worst_at_least, match_bonus, explorer_cost, dump_explorers, spoil
# giver:  match_bonus, explorer_cost, spoil, explorer_first, at_least, target is 'leader'
NKNOBS = 7


@njit(cache=True, inline="always", _nrt=False)
def _choose_play(b, p, kind, kp, tab, g, hand, stack, slen, higher, stype, ptype, tdelta, legal,
                 params, base):
    """``scored_play``: the legal play with the best score in ``tab`` (``play_scores``' table,
    rows of 2 * values), the lowest action on ties. ``base`` (int64[T]) is scratch."""
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    values = params[P_VALUES]
    v2 = 2 * values
    ntypes = nanimals + (1 if params[P_FLAGS] & F_EXP_TYPE else 0)
    majority = kind != K_SAFE or kp[3] != 0.0
    if majority:  # take_costs: obs.piles[0] (the mover's) and the most any other pile has
        for t in range(ntypes):
            mine = min(np.int64(ptype[b, p, t]), MAXC - 1)
            most = np.int64(0)
            for o in range(1, nplayers):
                q = p + o
                q = q - nplayers if q >= nplayers else q
                c = min(np.int64(ptype[b, q, t]), MAXC - 1)
                if o == 1 or c > most:
                    most = c
            base[t] = (mine * MAXC + most) * MAXC
    lacks = 1 if g[b, HOLDER] != p else 0          # obs.holder != 0
    early = kind == K_DUMPER and g[b, END] - g[b, POS] >= kp[1]  # obs.deck_left >= until_deck
    best = np.float32(-np.inf)
    best_a = 0
    for s in range(nanimals):
        n = np.int64(slen[b, s])                   # obs.stack_len
        if majority:
            cost = np.int64(0)
            for t in range(ntypes):
                cost += tdelta[base[t] + stype[b, s, t]]   # obs.stack_types
            if ntypes < nanimals + 1:  # explorer cards of no type always count
                cost += stype[b, s, ntypes]
        else:
            cost = n
        cost = min(max(cost, -COST0), NCOST - COST0 - 1) + COST0
        dumpable = 1 if early and n <= kp[0] else 0
        code = np.int64(higher[b, s]) * values + stack[b, s, n - 1] % values  # stack_codes
        row = ((lacks * 2 + dumpable) * NCOST + cost) * v2 + code
        a0 = s * v2
        for j in range(v2):
            if legal[b, a0 + j]:
                x = tab[row, j]
                if x > best:
                    best = x
                    best_a = a0 + j
    return best_a


@njit(cache=True, inline="always", _nrt=False)
def _leader(b, p, g, ptype, params):
    """``leader_offset``: the opponent with the lowest ``obs.standing``, the nearest on ties."""
    nplayers = params[P_PLAYERS]
    ntypes = params[P_ANIMALS] + (1 if params[P_FLAGS] & F_EXP_TYPE else 0)
    tie = params[P_FLAGS] & F_TIE_DISCARD
    best_o, best = 1, np.int64(1) << 60
    for o in range(1, nplayers):
        q = p + o
        q = q - nplayers if q >= nplayers else q
        sc = np.int64(0)
        for t in range(ptype.shape[2]):
            sc += ptype[b, q, t]
        for t in range(ntypes):
            mx = np.int64(0)
            at = 0
            for r in range(nplayers):
                c = np.int64(ptype[b, r, t])
                if c > mx:
                    mx, at = c, 1
                elif c == mx:
                    at += 1
            if mx > 0 and ptype[b, q, t] == mx and (tie or at == 1):
                sc -= mx
        if g[b, HOLDER] == q:
            sc += params[P_EXPTS]
        if sc < best:
            best_o, best = o, sc
    return best_o


@njit(cache=True, inline="always", _nrt=False)
def _narrower(b, g, stack, slen, higher, params):
    """``narrower``: reversing the matched stack leaves it fewer numbers it wants."""
    values = params[P_VALUES]
    s = max(g[b, MSTACK], 0)
    top = np.int64(stack[b, s, slen[b, s] - 1] % values + 1)
    now = values - top + 1 if higher[b, s] == 1 else top
    return (values + 1 - now) < now


@njit(cache=True, inline="always", _nrt=False)
def _give_worst(b, p, offset, explorer_first, at_least, hand, stack, slen, higher, params):
    """``give_worst``: the card farthest from being wanted (``card_badness``; explorer cards
    first when ``explorer_first``) to the player ``offset`` to the left, none if nearer than
    ``at_least``."""
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    values = params[P_VALUES]
    nak = params[P_NAK]
    best = -np.inf
    best_k = 0
    for k in range(params[P_K]):
        if hand[b, p, k] > 0:
            num = k % values + 1
            miss = np.int64(1) << 40
            for s in range(nanimals):
                if k < nak and s != k // values:
                    continue
                top = np.int64(stack[b, s, slen[b, s] - 1] % values + 1)
                m = max(top - num, 0) if higher[b, s] == 1 else max(num - top, 0)
                miss = min(miss, m)
            bad = np.float64(miss)
            if explorer_first and k >= nak:
                bad += values + 1
            if bad > best:
                best, best_k = bad, k
    if best >= at_least:
        return params[P_GIVE0] + best_k * (nplayers - 1) + offset - 1
    return params[P_KEEP] + 2


@njit(cache=True, inline="always", _nrt=False)
def policy(kind, kp, tab, b, g, hand, stack, slen, higher, stype, ptype, tdelta, legal, params,
           base):
    """The action of policy ``kind`` with knobs ``kp`` for game b's player to move."""
    p = g[b, CUR]
    ph = g[b, PHASE]
    if ph == PLAY:
        return _choose_play(b, p, kind, kp, tab, g, hand, stack, slen, higher, stype, ptype,
                            tdelta, legal, params, base)
    keep = params[P_KEEP]
    target = 1  # Giver._target: the leader, or the next player
    if kind == K_GIVER and kp[5] != 0.0:
        target = _leader(b, p, g, ptype, params)
    if ph == REVERSE:
        rev = _narrower(b, g, stack, slen, higher, params)
        if kind == K_SAFE:
            rev = rev and kp[4] != 0.0
        elif kind == K_GIVER:
            rev = rev and target == 1
        return keep + 1 if rev else keep
    # GIVE
    if kind == K_SAFE:
        if kp[5] == 0.0:
            return keep + 2
        return _give_worst(b, p, 1, True, 0.0, hand, stack, slen, higher, params)
    if kind == K_DUMPER:
        return _give_worst(b, p, 1, True, 0.0, hand, stack, slen, higher, params)
    return _give_worst(b, p, target, kp[3] != 0.0, kp[4], hand, stack, slen, higher, params)


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, tabs, tdelta, base, g, pp, deck, hand, stack, slen, higher, stype,
          pile, ptype, pub, known, dr, ev, kind_total, params, mover, legal, small, deck_left,
          vhand, board, stack_types, piles, hand_sizes, unseen, out):
    """Play every game of the batch to its end. out[0]: decisions; out[1]: 1 + the first game
    whose policy chose an illegal action (0: none)."""
    decisions = 0
    for b in range(g.shape[0]):
        if mover[b] < 0:
            continue
        while mover[b] >= 0:  # mover and legal of game b are current (init or the last action)
            k = seating[b, mover[b]]
            a = policy(kinds[k], kp[k], tabs[k], b, g, hand, stack, slen, higher, stype, ptype,
                       tdelta, legal, params, base)
            if a < 0 or a >= legal.shape[1] or not legal[b, a]:
                out[1] = b + 1
                return
            hl.apply_action(b, a, g, pp, deck, hand, stack, slen, higher, stype, pile, ptype,
                            pub, known, dr, ev, params)
            hl.write_legal(b, g, hand, params, mover, legal)
            decisions += 1
        # the whole view of the finished game, as the batch step leaves it
        hl._view(b, g, pp, hand, stack, slen, higher, stype, ptype, pub, kind_total, params,
                 mover, legal, small, deck_left, vhand, board, stack_types, piles, hand_sizes,
                 unseen)
    out[0] = decisions


def _table(rules, kind: int, knobs) -> np.ndarray:
    """float32[rows, 2 * values]: the numpy strategy's own play table for these knobs."""
    if kind == K_DUMPER:
        _, _, dump_from, mb, ec, dump_explorers, spoil = knobs
        args = (mb, ec, dump_from, bool(dump_explorers), spoil)
    else:
        mb, ec, spoil = knobs[:3]
        args = (mb, ec, 0.0, False, spoil)
    mb, ec, dump_from, dump_explorers, spoil = args
    t = _play_table(rules.animals, rules.values, float(mb), float(ec), float(dump_from),
                    bool(dump_explorers), float(spoil))
    return t.reshape(-1, 2 * rules.values)


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` is unused: these policies draw nothing."""
    r = state.rules
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), NKNOBS), np.float64)
    for i, (_, knobs) in enumerate(policies):
        kp[i, :len(knobs)] = knobs
    tabs = np.ascontiguousarray(np.stack([_table(r, k, kn) for k, kn in policies]))
    tdelta = _take_delta(r.majority_tie == "discard").reshape(-1)
    st = state
    # the kernel writes the view in place: a fresh one, so that an observation handed out
    # before (which may hold the old view's arrays) still says what it said
    v = st.view = dataclasses.replace(st.view, **{f.name: getattr(st.view, f.name).copy()
                                                  for f in dataclasses.fields(st.view)})
    out = np.zeros(2, np.int64)
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, tabs, tdelta,
          np.zeros(r.animals + 1, np.int64), st.g, st.pp, st.deck, st.hand, st.stack, st.slen,
          st.higher, st.stype, st.pile, st.ptype, st.pub, st.known, st.dr, st.ev, st.kind_total,
          st.params, v.mover, v.legal, v.small, v.deck_left, v.hand, v.board, v.stack_types,
          v.piles, v.hand_sizes, v.unseen, out)
    if out[1]:  # pragma: no cover - a compiled twin that disagrees with the rules
        raise RuntimeError(f"compiled policy chose an illegal action in game {out[1] - 1}")
    return int(out[0])


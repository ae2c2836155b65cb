"""Hi-Lo Hijinks' shipped strategies as compiled scalar policies (``KINDS``: their names, by
number), and the kernels that play them: ``decide`` for the rows where one sits in the play
loop, ``play_compiled`` for whole games when every seat holds one.

A play is scored from one look-up table per strategy (``_play_table``, built with numpy for its
knobs) by the take's cost (``_take_delta`` for the majority reading), the stack's state and the
card; the legal play with the best score is played, the lowest action on ties. After a match
the reversal (``_narrower``), the gift (``_give_worst``) and the giver's receiver (``_leader``)
follow the strategy's knobs.

What a policy reads (straight from the state arrays, for speed), and the observation field each
read stands for; nothing else (never another hand, never the deck's order):

- ``g[b, CUR]`` (``obs.seat``), ``g[b, PHASE]`` (``obs.kind``), ``g[b, MSTACK]``
  (``obs.match_stack``), ``g[b, HOLDER]`` (``obs.holder``, as an offset from the mover),
  ``g[b, END] - g[b, POS]`` (``obs.deck_left``: the deck's size, not its cards);
- ``hand[b, mover]`` (``obs.hand``: the mover's own hand only);
- ``stack[b, s, slen[b, s] - 1]`` (``obs.top``: the top card's number), ``higher``
  (``obs.higher``), ``slen`` (``obs.stack_len``), ``stype`` (``obs.stack_types``);
- ``ptype[b, q]`` (``obs.piles``, rotated as the observation rotates them; ``obs.standing`` is
  counted from them);
- ``legal[lb]``: the legal mask the strategy is given (``decide``: the one handed to it).

The knowledge test (``tests/test_hi_lo_hijinks.py``) deals the cards the mover cannot see again
at every decision and requires the same actions. None of the three draws from its seat stream,
so ``play_compiled`` and ``decide`` leave ``seat_rs`` as it is; none keeps memory.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from numba import njit

from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import hi_lo_hijinks as hl
from safari_sim.games.hi_lo_hijinks import (CUR, END, F_EXP_TYPE, F_TIE_DISCARD, GIVE, HOLDER,
                                            MSTACK, P_ANIMALS, P_EXPTS, P_FLAGS, P_GIVE0, P_K,
                                            P_KEEP, P_NAK, P_PLAYERS, P_VALUES, PHASE, PLAY, POS,
                                            REVERSE)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (hl.__file__,))

KINDS = ("safe", "dumper", "giver")
K_SAFE, K_DUMPER, K_GIVER = range(len(KINDS))

# Take costs are looked up clipped to [-COST0, NCOST - COST0 - 1]: beyond that range (a take of
# more than 40 cards) every take is as bad as the next.
NCOST, COST0 = 64, 16


# A dump scores DUMP (an explorer card) or 2 * DUMP (an animal card) plus at most +-500 for its
# distance and its clipped take cost: animal dumps come first, then explorer dumps, then every
# other play (wanted plays score a few steps around 0, takes -100 - 10 * cost).
DUMP = 1000.0


# Pile counts are looked up clipped to MAXC - 1 (no type has more cards with the rules' limits).
MAXC = 37


@functools.lru_cache(maxsize=None)
def _take_delta(tie_discards: bool) -> np.ndarray:
    """int16[MAXC, MAXC, MAXC]: by (the player's cards of a type, the most any other player
    has, cards of that type taken), how much the take adds to the player's count once the
    majority of the type is discarded."""
    m = np.arange(MAXC)[:, None, None]
    best = np.arange(MAXC)[None, :, None]
    s = np.arange(MAXC)[None, None, :]

    def counted(x):
        lead = (x >= best) if tie_discards else (x > best)
        return np.where(lead & (x > 0), 0, x)

    out = (counted(np.minimum(m + s, MAXC - 1)) - counted(m)).astype(np.int16)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=None)
def _play_table(animals: int, values: int, match_bonus: float, explorer_cost: float,
                dump_from: float, dump_explorers: bool, spoil: float) -> np.ndarray:
    """float32[2, 2, NCOST, 2 * values, 2, values]: the score of a play, by (the player lacks
    the ducky, the stack may be dumped on, take cost + COST0, stack state, explorer card, number).

    A wanted card scores ``-distance to the top - spoil * numbers the stack wants after it``
    (+ ``match_bonus`` on a match: with ``spoil`` 0 a match, at distance 0, comes first anyway;
    a positive ``spoil`` plays the card that leaves the next player least room); a card not
    wanted ``-100 - 10 * cost - distance``; on a stack that may be dumped on, a card at least
    ``dump_from`` from being wanted scores ``2 * DUMP + distance - 10 * cost`` instead, above every
    other play (an explorer card only with ``dump_explorers``, and ``DUMP`` less: after every
    animal card that can be dumped, whatever the takes cost); an explorer card
    costs ``explorer_cost`` more when the player lacks the ducky."""
    c = np.arange(2 * values)
    top = (c % values + 1)[:, None, None]
    hi = (c >= values)[:, None, None]
    num = np.arange(1, values + 1)[None, None, :]
    expl = np.array([0, 1])[None, :, None]
    wanted = np.where(hi, num >= top, num <= top)
    dist = np.abs(num - top).astype(np.float64)
    room = np.where(hi, values - num + 1, num)                     # numbers wanted after it
    base = -dist + match_bonus * (num == top) - spoil * room        # [2V, 2, V]
    cost = (np.arange(NCOST) - COST0)[:, None, None, None]
    take = -100.0 - 10.0 * cost - dist                               # [NCOST, 2V, 2, V]
    dumps = (dist >= dump_from) & ((expl == 0) | dump_explorers)
    dump = np.where(dumps, DUMP * (2 - expl) + dist - 10.0 * cost, take)
    out = np.empty((2, 2, NCOST, 2 * values, 2, values), np.float32)
    for lacks in (0, 1):
        for dumpable, t in ((0, take), (1, dump)):
            out[lacks, dumpable] = np.where(wanted, base, t) - lacks * explorer_cost * expl
    out.flags.writeable = False
    return out


# knobs (kp[i, ...]) by kind, as each class's ``knobs()`` gives them
# safe:   match_bonus, explorer_cost, spoil, majority, reverse, give
# dumper: max_stack, until_deck, worst_at_least, match_bonus, explorer_cost, dump_explorers, spoil
# giver:  match_bonus, explorer_cost, spoil, explorer_first, at_least, target is 'leader'
NKNOBS = 7


@njit(cache=True, inline="always", _nrt=False)
def _choose_play(b, p, kind, kp, tab, g, hand, stack, slen, higher, stype, ptype, tdelta, legal,
                 lb, params, base):
    """The play (legal in row ``lb`` of ``legal``) with the best score in ``tab``
    (``_play_table``, rows of 2 * values), the lowest action on ties: the wanted card closest
    to the top, else the take that adds least to the player's count (the majority reading for
    the dumper, the giver and a safe player with ``majority``). ``base`` (int64[T]) is
    scratch."""
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    values = params[P_VALUES]
    v2 = 2 * values
    ntypes = nanimals + (1 if params[P_FLAGS] & F_EXP_TYPE else 0)
    majority = kind != K_SAFE or kp[3] != 0.0
    if majority:  # the mover's pile of each type and the most any other pile has
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
        code = np.int64(higher[b, s]) * values + stack[b, s, n - 1] % values  # stack state
        row = ((lacks * 2 + dumpable) * NCOST + cost) * v2 + code
        a0 = s * v2
        for j in range(v2):
            if legal[lb, a0 + j]:
                x = tab[row, j]
                if x > best:
                    best = x
                    best_a = a0 + j
    return best_a


@njit(cache=True, inline="always", _nrt=False)
def _leader(b, p, g, ptype, params):
    """The offset of the opponent with the lowest ``obs.standing`` (best placed now), the
    nearest to the left on ties."""
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
    """Whether reversing the matched stack leaves it fewer numbers it wants (a harder stack for
    the next player)."""
    values = params[P_VALUES]
    s = max(g[b, MSTACK], 0)
    top = np.int64(stack[b, s, slen[b, s] - 1] % values + 1)
    now = values - top + 1 if higher[b, s] == 1 else top
    return (values + 1 - now) < now


@njit(cache=True, inline="always", _nrt=False)
def _give_worst(b, p, offset, explorer_first, at_least, hand, stack, slen, higher, params):
    """Give the card farthest from being wanted (an explorer card counts its nearest stack;
    explorer cards first when ``explorer_first``) to the player ``offset`` to the left, none if
    nearer than ``at_least``."""
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
def policy(kind, kp, tab, b, g, hand, stack, slen, higher, stype, ptype, tdelta, legal, lb,
           params, base):
    """The action of policy ``kind`` with knobs ``kp`` for game b's player to move (legal
    actions: row ``lb`` of ``legal``)."""
    p = g[b, CUR]
    ph = g[b, PHASE]
    if ph == PLAY:
        return _choose_play(b, p, kind, kp, tab, g, hand, stack, slen, higher, stype, ptype,
                            tdelta, legal, lb, params, base)
    keep = params[P_KEEP]
    target = 1  # the giver's receiver: the leader, or the next player
    if kind == K_GIVER and kp[5] != 0.0:
        target = _leader(b, p, g, ptype, params)
    if ph == REVERSE:
        rev = _narrower(b, g, stack, slen, higher, params)
        if kind == K_SAFE:
            rev = rev and kp[4] != 0.0
        elif kind == K_GIVER:
            rev = rev and target == 1
        return keep + 1 if rev else keep
    # GIVE (one call site: numba compiles an inlined helper again at each)
    if kind == K_SAFE and kp[5] == 0.0:
        return keep + 2
    offset, explorer_first, at_least = 1, True, 0.0
    if kind == K_GIVER:
        offset, explorer_first, at_least = target, kp[3] != 0.0, kp[4]
    return _give_worst(b, p, offset, explorer_first, at_least, hand, stack, slen, higher, params)


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, tabs, tdelta, base, g, pp, deck, hand, stack, slen, higher, stype,
          pile, ptype, pub, known, dr, ev, params, mover, legal, games, mask, acts, out):
    """Play every game of the batch to its end. out[0]: decisions, out[2 + b] those of game b;
    out[1]: 1 + the first game whose policy chose an illegal action (0: none). The rest of the
    finished games' view is written afterwards by the rules' own ``_views`` (compiled once, not
    again in here).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i], with row i of ``mask`` as its legal mask; nothing is played.
    One kernel for both, so the policy is compiled once."""
    only = games.shape[0] > 0
    decisions = 0
    for j in range(games.shape[0] if only else g.shape[0]):
        b = games[j] if only else j
        if not only and mover[b] < 0:
            continue
        # mover and legal of game b are current (init or the last action)
        while only or mover[b] >= 0:
            k = 0 if only else seating[b, mover[b]]
            lg = mask if only else legal
            a = policy(kinds[k], kp[k], tabs[k], b, g, hand, stack, slen, higher, stype, ptype,
                       tdelta, lg, j if only else b, params, base)
            if only:
                acts[j] = a
                break
            if a < 0 or a >= legal.shape[1] or not legal[b, a]:
                out[1] = b + 1
                return
            hl.apply_action(b, a, g, pp, deck, hand, stack, slen, higher, stype, pile, ptype,
                            pub, known, dr, ev, params)
            hl.write_legal(b, g, hand, params, mover, legal)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


def _knob_row(knobs) -> np.ndarray:
    row = np.zeros(NKNOBS, np.float64)
    row[:len(knobs)] = knobs
    return row


def _table(rules, kind: int, knobs) -> np.ndarray:
    """float32[rows, 2 * values]: the play table (``_play_table``) for these knobs."""
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


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` is unused: these policies draw nothing."""
    r = state.rules
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), NKNOBS), np.float64)
    for i, (_, knobs) in enumerate(policies):
        kp[i] = _knob_row(knobs)
    tabs = np.ascontiguousarray(np.stack([_table(r, k, kn) for k, kn in policies]))
    tabs.flags.writeable = False  # as ``decide``'s table (cached): one type, one compile
    tdelta = _take_delta(r.majority_tie == "discard").reshape(-1)
    st = state
    # the kernel writes the view in place: a fresh one, so that an observation handed out
    # before (which may hold the old view's arrays) still says what it said
    v = st.view = dataclasses.replace(st.view, **{f.name: getattr(st.view, f.name).copy()
                                                  for f in dataclasses.fields(st.view)})
    out = kernel_out(len(seating))
    played = np.flatnonzero(v.mover >= 0)
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, tabs, tdelta,
          np.zeros(r.animals + 1, np.int64), st.g, st.pp, st.deck, st.hand, st.stack, st.slen,
          st.higher, st.stype, st.pile, st.ptype, st.pub, st.known, st.dr, st.ev, st.params,
          v.mover, v.legal, np.zeros(0, np.int64), v.legal, np.zeros(0, np.int64), out)
    decisions = kernel_done(out, per_game)
    # the whole view of the finished games, as the batch step leaves it
    hl._views(played, st.g, st.pp, st.hand, st.stack, st.slen, st.higher, st.stype, st.ptype,
              st.pub, st.kind_total, st.params, v.mover, v.legal, v.small, v.deck_left, v.hand,
              v.board, v.stack_types, v.piles, v.hand_sizes, v.unseen)
    return decisions



def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs`` unused
    (these policies draw nothing), ``legal`` (bool[n, W]) what each may choose among."""
    r = state.rules
    kind, knobs = int(policy[0]), policy[1]
    st = state
    out = np.zeros(len(games), np.int64)
    tab = np.ascontiguousarray(_table(r, kind, knobs))
    mask = np.require(legal, np.bool_, "CW")
    _play(np.zeros((1, 1), np.int64), np.array([kind], np.int64), _knob_row(knobs)[None, :],
          tab.reshape((1,) + tab.shape), _take_delta(r.majority_tie == "discard").reshape(-1),
          np.zeros(r.animals + 1, np.int64), st.g, st.pp, st.deck, st.hand, st.stack, st.slen,
          st.higher, st.stype, st.pile, st.ptype, st.pub, st.known, st.dr, st.ev, st.params,
          st.view.mover, mask, np.ascontiguousarray(games, np.int64), mask, out, kernel_out(0))
    return out

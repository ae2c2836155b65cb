"""Safari Sprint's shipped strategies as compiled scalar policies (``KINDS``: their names, by
number), and the kernels that play them: ``decide`` for the rows where one sits in the play
loop, ``play_compiled`` for whole games when every seat holds one.

Two decisions: while choosing, the claim (``_claim``: each animal on its highest legal space,
scored by the ``claim`` knob); in a round, the card to play, scored with what the line gives
every ducky if it is played now (``line_effect``; with ``expect_later`` each card's spot is an
expectation over the players still to play, from the numbers of the cards not seen) by the
backer (``_backer``), the spoiler (``_spoiler``) or the projector (``_projector``).

A policy reads only the arrays the game's ``write_view`` fills for the player to move
(``safari_sprint.View``: the numbers the observation holds, never the state) and the rules'
public constants; the comment at each read names the observation field it is. The knowledge
test (``tests/test_safari_sprint.py``) deals what the mover cannot see again at every decision
and requires the same actions. None of these strategies draws from its stream or keeps memory.

Every sum of an expected move adds its five terms in order, and the powers of the card odds
come from tables numpy computes (``pow_tables``: ``np.power``; a compiled ``q ** 2`` may be
``q * q``, which differs in the last bit), as the strategies were measured with.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from numba import njit

from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import safari_sprint as ss
from safari_sim.games.safari_sprint import (CLAIM, CLAIM0, EXPLORER, F_EARLIER_AHEAD, NTYPES, NV,
                                            P_EXTRA, P_FLAGS, P_PLAYERS, P_ROUNDS, P_S, V_KIND,
                                            V_LINE_LEN, V_MINE, V_RCARD, V_ROUND, V_TO_PLAY)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (ss.__file__,))

KINDS = ("backer", "spoiler", "projector")
K_BACKER, K_SPOILER, K_PROJECTOR = range(len(KINDS))
CLAIM_MODES = ("hand", "space", "leader")  # the ``claim`` knob, by number
CLAIM_HAND, CLAIM_SPACE, CLAIM_LEADER = range(len(CLAIM_MODES))
NEG = -1e9
_COMB = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0],
                  [1, 4, 6, 4, 1]], np.float64)  # C(m, j), m players still to play (0-4)

# knobs kp[k, ...] of policy k (``knobs()`` in strategies/safari_sprint.py)
KN_CLAIM, KN_HAND_WEIGHT, KN_EXPECT = 0, 1, 2
KN_A, KN_B, KN_C, KN_D, KN_E = 3, 4, 5, 6, 7   # the strategy's own knobs, in Params order
NKNOBS = 8
FAR = -(1 << 30)


# ---- choosing -------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _claim(b, mode, hand_weight, legal, lb, vhand, vowner, vpos, params):
    """The claim for game b (legal actions: row ``lb`` of ``legal``): each animal on its highest
    legal space, scored by ``mode`` (``CLAIM_MODES``): 'hand' the animal whose cards the hand is
    strongest in (unclaimed first), 'space' the highest free space, 'leader' the claimed animal
    furthest ahead when one can be taken."""
    S = params[P_S]
    extra = params[P_EXTRA]          # obs.extra_card
    any_claimed_free = False
    for a in range(5):
        if vowner[b, a] >= 0:        # obs.owner
            for s in range(S):
                if legal[lb, CLAIM0 + a * S + s]:
                    any_claimed_free = True
    best_a, best_score, best_sp = 0, -np.inf, S
    for a in range(5):
        top = S                      # highest legal space (1-based); S where none
        free = False
        for s in range(S - 1, -1, -1):
            if legal[lb, CLAIM0 + a * S + s]:
                top = s + 1
                free = True
                break
        claimed = vowner[b, a] >= 0
        if mode == CLAIM_SPACE:
            score = np.float64(top) - (0.01 if claimed else 0.0)
        else:
            strength = 0.0           # obs.hand: the sum of this animal's numbers held
            for v in range(NV):
                strength += np.float64(vhand[b, a * NV + v]) * (v + 1)
            strength += extra
            score = (top + hand_weight * strength) - (1000.0 if claimed else 0.0)
            if mode == CLAIM_LEADER and any_claimed_free:
                score = vpos[b, a] + 1e6 if claimed and free else NEG   # obs.pos
        if not free:
            score = NEG
        if score > best_score:
            best_a, best_score, best_sp = a, score, top
    return CLAIM0 + best_a * S + best_sp - 1


# ---- a round: what the line gives each ducky ------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _sum5(x0, x1, x2, x3, x4):
    """The sum of five values, added in order (as the strategies were measured with)."""
    return (((x0 + x1) + x2) + x3) + x4


@njit(cache=True, inline="always", _nrt=False)
def _spread(pmf, w, sv, s):
    """sum over j of pmf[w, j] * sv[s + j] (a card numbered w + 1 at spot s, j players ahead)."""
    return _sum5(pmf[w, 0] * sv[s], pmf[w, 1] * sv[s + 1], pmf[w, 2] * sv[s + 2],
                 pmf[w, 3] * sv[s + 3], pmf[w, 4] * sv[s + 4])


@njit(cache=True, inline="always", _nrt=False)
def line_effect(b, expect, small, vhand, vplayed, vline, vif, deck_total, racing, params, powq,
                pow1q, own, other, pmf, sv, u):
    """What the line gives each ducky in game b: own[v] the move of a card numbered v + 1
    played now, other[v, d] what the cards already in the line then give ducky d."""
    m = np.int64(small[V_TO_PLAY, b])   # obs.to_play
    if not expect or m <= 0:
        for v in range(NV):
            own[v] = vif[b, v, 6]           # obs.ifplay
            for d in range(6):
                other[v, d] = vif[b, v, d]
        return
    # obs.unseen, by number: deck_total - hand - played - the line
    for v in range(NV + 1):
        u[v] = 0
    for t in range(NTYPES):
        u[t % NV] += np.int64(deck_total[t]) - vhand[b, t] - vplayed[b, t]  # obs.hand, .played
    L = small[V_LINE_LEN, b]                 # obs.line_len
    for i in range(L):
        u[vline[b, i] % NV] -= 1             # obs.line
    # u[v] := cards numbered v + 1 or more (ge); u[6] = 0
    for v in range(NV - 2, -1, -1):
        u[v] += u[v + 1]
    den = u[0]
    earlier = (params[P_FLAGS] & F_EARLIER_AHEAD) != 0   # obs.tie_order
    mc = min(max(m, 0), 4)
    for v in range(NV):
        num = u[v + 1] if earlier else u[v]
        for j in range(5):
            e = m - j if m - j > 0 else 0
            pmf[v, j] = (_COMB[mc, j] * powq[num, den, j]) * pow1q[num, den, e]
    rc = small[V_RCARD, b]                   # obs.rcard -> obs.spot_values
    for i in range(5):
        sv[i] = racing[rc, i]
        sv[i + 5] = 0.0
    for v in range(NV):
        k = vif[b, v, 7]
        own[v] = _spread(pmf, v, sv, k)
        for d in range(6):
            other[v, d] = 0.0
    for i in range(L):
        t = vline[b, i]
        w, suit = t % NV, t // NV
        e_at = _spread(pmf, w, sv, i)        # the card played now goes behind it
        e_behind = _spread(pmf, w, sv, i + 1)  # ... or ahead of it
        for v in range(NV):
            other[v, suit] += e_behind if i >= vif[b, v, 7] else e_at


# ---- a round: the three strategies ----------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _thrift(b, small, params, thrift):
    return thrift if small[V_ROUND, b] < params[P_ROUNDS] - 1 else 0.0   # obs.round, .rounds


@njit(cache=True, inline="always", _nrt=False)
def _backer(b, kp, small, legal, lb, params, own, other, sc):
    """The backer: the best of three choices by number (its own animal's card, a rival's, the
    explorer's), in that order on ties."""
    rw, ew = kp[KN_A], kp[KN_B]
    th = _thrift(b, small, params, kp[KN_C])
    mine = max(np.int64(small[V_MINE, b]), 0)
    for v in range(NV):
        to_animals = (((other[v, 0] + other[v, 1]) + other[v, 2]) + other[v, 3]) + other[v, 4]
        base = ((1 + rw) * other[v, mine] - rw * to_animals) - ew * other[v, EXPLORER]
        sc[v] = (base + own[v]) - th * (v + 1) if legal[lb, mine * NV + v] else NEG
        rival_ok = False
        for a in range(EXPLORER):
            if a != mine and legal[lb, a * NV + v]:
                rival_ok = True
        sc[NV + v] = base - rw * own[v] if rival_ok else NEG
        sc[2 * NV + v] = base - ew * own[v] if legal[lb, EXPLORER * NV + v] else NEG
    best, best_i = -np.inf, 0
    for i in range(3 * NV):
        if sc[i] > best:
            best, best_i = sc[i], i
    c, v = best_i // NV, best_i % NV
    if c == 0:
        return mine * NV + v
    if c == 2:
        return EXPLORER * NV + v
    for a in range(EXPLORER):  # a rival card of that number: the first rival suit holding one
        if a != mine and legal[lb, a * NV + v]:
            return a * NV + v
    return v


@njit(cache=True, inline="always", _nrt=False)
def _lead(b, mine, vpos, in_play):
    """The leading rival (the first one furthest ahead)."""
    lead, top = 0, np.int64(FAR)
    for d in range(6):
        x = np.int64(vpos[b, d]) if in_play[d] and d != EXPLORER and d != mine else FAR
        if x > top:
            lead, top = d, x
    return lead


@njit(cache=True, inline="always", _nrt=False)
def _spoiler(b, kp, small, legal, lb, vpos, vif, in_play, params, own, other, sc, sv):
    """The spoiler's score of every card type into sc: the leading rival held back, a ducky
    landed on it, its highest card held (``hold``), its own 6s saved (``save_six``)."""
    lw, ow, pb, hold, save_six = kp[KN_A], kp[KN_B], kp[KN_C], kp[KN_D], kp[KN_E]
    mine = max(np.int64(small[V_MINE, b]), 0)
    lead = _lead(b, mine, vpos, in_play)
    for v in range(NV):
        sv[v] = ow * other[v, mine] - lw * other[v, lead]   # base (sv: free here)
    for d in range(6):
        wd = ow if d == mine else (0.0 - lw if d == lead else 0.0)   # w (lead != mine)
        gap = vpos[b, lead] - vpos[b, d]
        for v in range(NV):
            x = wd * own[v] + sv[v]
            if pb != 0.0:
                hit = vif[b, v, 6] == gap and d != lead   # obs.ifplay's own move now
                x += pb * (1.0 if hit else 0.0)
            sc[d * NV + v] = x
    if hold != 0.0:
        top = NV - 1
        for v in range(NV - 1, -1, -1):
            if legal[lb, lead * NV + v]:
                top = v
                break
        n_legal = 0
        for t in range(NTYPES):
            n_legal += legal[lb, t]
        if legal[lb, lead * NV + top] and n_legal > 1:
            sc[lead * NV + top] -= 1e6
    if save_six != 0.0 and small[V_ROUND, b] < params[P_ROUNDS] - save_six:
        sc[mine * NV + NV - 1] -= 1e5


@njit(cache=True, inline="always", _nrt=False)
def _projector(b, kp, small, vpos, in_play, points, params, own, other, sc, P):
    """The projector's score of every card type into sc: the place (race points) the line so
    far gives its animal, then the margin; before the last ``late_only`` rounds the spaces
    gained over the rivals."""
    mw, late_only = kp[KN_A], kp[KN_B]
    mine = max(np.int64(small[V_MINE, b]), 0)
    top = points.shape[0] - 1                 # obs.race_points
    for v in range(NV):
        for d in range(6):
            P[v, d] = np.float64(vpos[b, d]) + other[v, d] if in_play[d] else np.float64(FAR)
        pm = P[v, mine]
        P[v, mine] = FAR
        ahead0 = 0
        best_other = P[v, 0]
        for d in range(6):
            ahead0 += P[v, d] > pm
            best_other = max(best_other, P[v, d])
        me = pm + own[v]
        n_ahead = 0
        for d in range(6):
            n_ahead += P[v, d] > me
        for s in range(6):
            if s == mine:
                sc[s * NV + v] = points[min(n_ahead, top)] + mw * (me - best_other)
            else:
                raised = P[v, s] + own[v]
                ahead = ahead0 + (raised > pm) - (P[v, s] > pm)
                sc[s * NV + v] = points[min(ahead, top)] + mw * (pm - max(best_other, raised))
    if late_only != 0.0 and not small[V_ROUND, b] >= params[P_ROUNDS] - late_only:
        n_riv = 0
        for d in range(6):
            n_riv += in_play[d] and d != EXPLORER and d != mine
        wr = -1.0 / max(n_riv, 1)
        for v in range(NV):
            base = 0.0
            for d in range(6):
                wd = 1.0 if d == mine else (wr if in_play[d] and d != EXPLORER else 0.0)
                base = other[v, d] * wd if d == 0 else base + other[v, d] * wd
            for s in range(6):
                ws = 1.0 if s == mine else (wr if in_play[s] and s != EXPLORER else 0.0)
                sc[s * NV + v] = base + ws * own[v]


@njit(cache=True, inline="always", _nrt=False)
def _pick(lb, sc, legal):
    """The best-scored legal card (row ``lb`` of ``legal``), the first on ties."""
    best, best_t = -np.inf, 0
    for t in range(NTYPES):
        x = sc[t] - (0.0 if legal[lb, t] else 1e9)
        if x > best:
            best, best_t = x, t
    return best_t


@njit(cache=True, inline="always", _nrt=False)
def policy(kind, kp, b, legal, lb, small, vhand, vplayed, vline, vpos, vowner, vif, deck_total,
           in_play, racing, points, params, powq, pow1q, own, other, pmf, sv, u, sc, P):
    """The action of policy ``kind`` with knobs ``kp`` for game b's player to move (legal
    actions: row ``lb`` of ``legal``)."""
    if small[V_KIND, b] == CLAIM:                                  # obs.kind
        return _claim(b, np.int64(kp[KN_CLAIM]), kp[KN_HAND_WEIGHT], legal, lb, vhand, vowner,
                      vpos, params)
    line_effect(b, kp[KN_EXPECT] != 0.0, small, vhand, vplayed, vline, vif, deck_total, racing,
                params, powq, pow1q, own, other, pmf, sv, u)
    if kind == K_BACKER:
        return _backer(b, kp, small, legal, lb, params, own, other, sc)
    if kind == K_SPOILER:
        _spoiler(b, kp, small, legal, lb, vpos, vif, in_play, params, own, other, sc, sv)
    else:
        _projector(b, kp, small, vpos, in_play, points, params, own, other, sc, P)
    return _pick(lb, sc, legal)


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, g, pp, rpts, pos, owner, hand, pile, seq, rdeck, deck, dr, ev, rs,
          active, deck_types, xtypes, racing, points, params, deck_total, in_play, powq, pow1q,
          mover, legal, small, vhand, vplayed, vline, vpos, vowner, vseen, vtotal, vif,
          own, other, pmf, sv, u, sc, P, games, mask, acts, out):
    """Play every game of the batch to its end. out[0]: decisions, out[2 + b] those of game b;
    out[1]: 1 + the first game whose policy chose an illegal action (0: none).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i] (from the view the game keeps current), with row i of ``mask``
    as its legal actions; nothing is played. One kernel for both, so the policy is compiled
    once."""
    only = games.shape[0] > 0
    decisions = 0
    for j in range(games.shape[0] if only else g.shape[0]):
        b = games[j] if only else j
        # the view of game b is current (init or the last action wrote it)
        while only or mover[b] >= 0:
            k = 0 if only else seating[b, mover[b]]
            lg = mask if only else legal
            a = policy(kinds[k], kp[k], b, lg, j if only else b, small, vhand, vplayed, vline,
                       vpos, vowner, vif, deck_total, in_play, racing, points, params, powq,
                       pow1q, own, other, pmf, sv, u, sc, P)
            if only:
                acts[j] = a
                break
            if a < 0 or a >= legal.shape[1] or not legal[b, a]:
                out[1] = b + 1
                return
            ss.apply_action(b, a, g, pp, rpts, pos, owner, hand, pile, seq, rdeck, deck, dr, ev,
                            rs, active, deck_types, xtypes, racing, points, params)
            ss.write_view(b, g, pp, pos, owner, hand, pile, seq, rdeck, active, racing, params,
                          mover, legal, small, vhand, vplayed, vline, vpos, vowner, vseen, vtotal,
                          vif)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


@functools.lru_cache(maxsize=None)
def pow_tables(cards: int) -> tuple[np.ndarray, np.ndarray]:
    """float64[cards + 1, cards + 1, 5] each: q ** j and (1 - q) ** j for q = num / max(den, 1),
    computed by numpy (np.power)."""
    num = np.arange(cards + 1, dtype=np.float64)
    q = num[:, None] / np.maximum(num, 1.0)[None, :]
    j = np.arange(5)
    powq = q[:, :, None] ** j
    pow1q = (1 - q[:, :, None]) ** j
    for x in (powq, pow1q):
        x.flags.writeable = False
    return powq, pow1q


def scratch():
    """One game's work arrays: own, other, pmf, sv, u, sc, P."""
    return (np.zeros(NV), np.zeros((NV, 6)), np.zeros((NV, 5)), np.zeros(10),
            np.zeros(NV + 1, np.int64), np.zeros(NTYPES), np.zeros((NV, 6)))


def knob_table(policies: list) -> tuple[np.ndarray, np.ndarray]:
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), NKNOBS), np.float64)
    for i, (_, knobs) in enumerate(policies):
        kp[i, :len(knobs)] = knobs
    return kinds, kp


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` (the seats' streams) is unused: these policies draw
    nothing."""
    kinds, kp = knob_table(policies)
    st = state
    # the kernel writes the view in place: a fresh one, so that an observation handed out
    # before (which may hold the old view's arrays) still says what it said
    v = st.view = dataclasses.replace(st.view, **{f.name: getattr(st.view, f.name).copy()
                                                  for f in dataclasses.fields(st.view)})
    deck_total = np.ascontiguousarray(st.deck_total_ro, np.int64)
    in_play = np.ascontiguousarray(st.in_play_ro)
    powq, pow1q = pow_tables(int(deck_total.sum()))
    out = kernel_out(len(seating))
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, st.g, st.pp, st.rpts, st.pos,
          st.owner, st.hand, st.pile, st.seq, st.rdeck, st.deck, st.dr, st.ev, st.rs, st.active,
          st.deck_types, st.xtypes, st.racing, st.points, st.params, deck_total, in_play, powq,
          pow1q, v.mover, v.legal, v.small, v.hand, v.played, v.line, v.pos, v.owner, v.seen,
          v.total, v.ifplay, *scratch(), np.zeros(0, np.int64), v.legal,
          np.zeros(0, np.int64), out)
    decisions = kernel_done(out, per_game)
    return decisions


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs`` unused
    (these policies draw nothing), ``legal`` (bool[n, W]) what each may choose among."""
    kinds, kp = knob_table([policy])
    st, v = state, state.view
    deck_total = np.ascontiguousarray(st.deck_total_ro, np.int64)
    powq, pow1q = pow_tables(int(deck_total.sum()))
    out = np.zeros(len(games), np.int64)
    _play(np.zeros((1, 1), np.int64), kinds, kp, st.g, st.pp, st.rpts, st.pos, st.owner,
          st.hand, st.pile, st.seq, st.rdeck, st.deck, st.dr, st.ev, st.rs, st.active,
          st.deck_types, st.xtypes, st.racing, st.points, st.params, deck_total,
          np.ascontiguousarray(st.in_play_ro), powq, pow1q, v.mover, v.legal, v.small, v.hand,
          v.played, v.line, v.pos, v.owner, v.seen, v.total, v.ifplay, *scratch(),
          np.ascontiguousarray(games, np.int64), np.require(legal, np.bool_, "CW"), out,
          kernel_out(0))
    return out

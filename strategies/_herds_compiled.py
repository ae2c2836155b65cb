"""Herds' shipped strategies as compiled scalar policies (``KINDS``: their names, by number),
and the kernels that play them: ``decide`` for the rows where one sits in the play loop,
``play_compiled`` for whole games when every seat holds one.

The strategies share one decision procedure (``policy``): every card valued for the player's
own hand (``_card_table``: it grows a herd of the side, or sits next to held cards of its
animal), a one-for-one trade planned at step two (the best grassland card for the held card of
the same number valued least), step three's swap, grow, lay and done, and step four's card and
receiver; they differ in their knobs, the sprinter's focus animal, the blocker's pass scores and
receiver. The rules are the game module's own ``apply_action`` (no second copy here).

What a policy reads. For speed it reads game b's state arrays directly, but only what the
mover's observation (``herds.Obs``, built by ``herds._observe``) holds:

- ``zone[b, c] == Z_HAND0 + p`` (p = g[b, CUR], the mover): the mover's own hand (``obs.hand``,
  ``obs.hand_table``, its count ``obs.hand_sizes[:, 0]``);
- ``zone[b, c] == Z_GRASS``: ``obs.grass`` (face up); ``zone[b, c] == Z_GIVE`` at the trade's
  take: the cards the mover itself gave;
- ``g[b, HN]``, ``hsuit``, ``hown``, ``hlo``, ``hhi`` for herds h < HN: ``obs.herd_suit``,
  ``obs.herd_side`` (hown == the mover's side), ``obs.herd_lo``/``herd_hi`` and ``obs.want``
  (the public herds);
- ``NCARDS - g[b, POS]``: ``obs.deck_left``; ``g[b, GSUM]``: ``obs.give_sum``;
  ``team_total[b, side]``: ``obs.totals``; ``g[b, PHASE]``: ``obs.kind``; ``params`` (players,
  teams): ``obs.n_players``, ``obs.teams``;
- ``legal[lb]``: the legal mask the strategy is given (``decide``: the one handed to it).

Never another seat's hand, the deck's order, ``poss`` or the give zone's owner: the knowledge
test (tests/test_herds.py) deals what the mover cannot see again at every decision and requires
the same actions; tests/test_herds_compiled.py plays the same games through ``decide`` in the
lockstep loop and through ``play_compiled``. These policies draw nothing from the seats' streams.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import herds as hg
from safari_sim.games.herds import (A_CARD0, A_DECK, A_DONE, A_GIVE_DONE, A_GROW0, A_NEW0,
                                    A_RECV0, A_SWAP0, A_TRADE, CUR, EXPLORER, HN, K_GIVE, K_HERD,
                                    GSUM, K_PASS, K_RECV, K_STEP2, K_TAKE, NCARDS, OVER,
                                    P_PLAYERS, PHASE, POS, Z_GIVE, Z_GRASS, Z_HAND0)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (hg.__file__,))

KINDS = ("collector", "blocker", "sprinter")
K_COLLECTOR, K_BLOCKER, K_SPRINTER = range(len(KINDS))
NEG = -1e9

# knob columns of kp[k] (strategies/herds.py, knobs())
KP_TAKE, KP_TRADE, KP_LAY_DECK, KP_LAY_HAND, KP_WILD, KP_EXTRA = range(6)
NKP = 6  # KP_EXTRA: the blocker's ``block``, the sprinter's ``focus_bonus``


@njit(cache=True, _nrt=False)
def _first_legal(lb, legal):
    """The first legal action of legal row ``lb``. Called, not inlined: it runs only when the
    chosen action is not legal, and inlined its four sites compiled it four times."""
    for a in range(legal.shape[1]):
        if legal[lb, a]:
            return a
    return 0


@njit(cache=True, _nrt=False)
def _hand_table(b, p, zone, ht):
    """ht[36] = obs.hand_table (the mover's own hand by suit * 6 + number - 1); returns
    obs.hand_sizes[0]."""
    for i in range(36):
        ht[i] = 0
    z = Z_HAND0 + p
    n = 0
    for c in range(NCARDS):
        if zone[b, c] == z:
            ht[(c // 12 if c < 60 else EXPLORER) * 6 + c % 6] += 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _want(b, team, g, hsuit, hown, hlo, hhi, want):
    """want[2, 36] = obs.want: the ends of the opponents' (0) and the mover's side's (1) herds,
    from the public herds."""
    for i in range(36):
        want[0, i] = False
        want[1, i] = False
    for h in range(g[b, HN]):
        side = 1 if hown[b, h] == team else 0
        s = hsuit[b, h]
        if hlo[b, h] > 0:
            want[side, s * 6 + hlo[b, h] - 1] = True
        if hhi[b, h] < 5:
            want[side, s * 6 + hhi[b, h] + 1] = True


@njit(cache=True, inline="always", _nrt=False)
def _held(ht, s, n):
    if n < 0 or n > 5:
        return 0.0
    return 1.0 if ht[s * 6 + n] > 0 else 0.0


@njit(cache=True, _nrt=False)
def _card_table(ht, want, table):
    """card_values(obs, rows) by suit * 6 + number - 1 into table[36] (row 5: the explorers)."""
    for s in range(5):
        for n in range(6):
            # 2 * (held n - 1, n + 1) + held n - 2, n + 2 (sums of 0s and 1s: exact in any
            # order); one _held site, inlined once
            near = 0.0
            for d in range(-2, 3):
                if d != 0:
                    near += (2.0 if d * d == 1 else 1.0) * _held(ht, s, n + d)
            table[s * 6 + n] = near + 3.0 * (1.0 if want[1, s * 6 + n] else 0.0)
    for n in range(6):
        wild = 0.0
        for s in range(5):
            if want[1, s * 6 + n]:
                wild = 1.0
        table[30 + n] = 2.0 + 2.0 * wild + 3.0 * (1.0 if want[1, 30 + n] else 0.0)


@njit(cache=True, inline="always", _nrt=False)
def _val(table, c, focus, bonus):
    """card_values(obs, rows, focus, focus_bonus)[c] (focus < 0: no focus)."""
    s = c // 12 if c < 60 else EXPLORER
    v = table[s * 6 + c % 6]
    if focus >= 0:
        v = v + bonus * (1.0 if s == focus else 0.0)
    return v


@njit(cache=True, _nrt=False)
def _sprint_focus(b, team, g, hsuit, hown, hlo, hhi, ht):
    """The sprinter's animal: the one with the most numbers held or in its side's herds (the
    first on ties)."""
    best, bn = 0, -1
    for s in range(5):
        cnt = 0
        for n in range(6):
            on = ht[s * 6 + n] > 0
            if not on:
                for h in range(g[b, HN]):
                    if hown[b, h] == team and hsuit[b, h] == s and hlo[b, h] <= n <= hhi[b, h]:
                        on = True
                        break
            if on:
                cnt += 1
        if cnt > bn:
            best, bn = s, cnt
    return best


@njit(cache=True, inline="always", _nrt=False)
def _score(mode, c, table, focus, bonus, want):
    """The score _pick maximises for card c: its value (mode 0), minus it (1), minus it less
    ``bonus`` (the blocker's ``block``) where it grows an opponent's herd (2: pass_scores)."""
    # one _val site (inlined once): mode 2 values the card without the focus
    v = _val(table, c, focus if mode != 2 else -1, bonus if mode != 2 else 0.0)
    if mode == 0:
        return v
    if mode == 1:
        return -v
    if c < 60:
        use = want[0, (c // 12) * 6 + c % 6]
    else:  # opponent_use: an explorer grows any opponent's herd ending next to its number
        use = False
        for s in range(6):
            if want[0, s * 6 + c - 60]:
                use = True
    return -v - bonus * (1.0 if use else 0.0)


@njit(cache=True, _nrt=False)
def _pick_cards(lb, legal, mode, table, focus, bonus, want):
    """A_CARD0 + the first legal card (of legal row ``lb``) with the best score (NEG where not
    legal)."""
    best, bv = 0, NEG
    for c in range(NCARDS):
        x = _score(mode, c, table, focus, bonus, want) if legal[lb, A_CARD0 + c] else NEG
        if c == 0 or x > bv:
            best, bv = c, x
    return A_CARD0 + best


@njit(cache=True, _nrt=False)
def _leader_offset(b, p, g, team_total, params):
    """leader_offset: the opponent whose side leads (nearest to the left on ties)."""
    nplayers = params[P_PLAYERS]
    team = hg._team(p, params)
    best, bv = 1, 0.0
    for o in range(1, nplayers):
        q = (p + o) % nplayers
        t = hg._team(q, params)
        if t == team:  # the partner
            key = NEG
        else:
            key = np.float64(team_total[b, t]) * 10 - o * 0.01
        if o == 1 or key > bv:
            best, bv = o, key
    return best


@njit(cache=True, _nrt=False)
def policy(kind, kp, b, g, zone, hsuit, hown, hlo, hhi, team_total, legal, lb, params, ht,
           want, table):
    """The action of policy ``kind`` (K_COLLECTOR, K_BLOCKER, K_SPRINTER) with knobs ``kp`` for
    game b's player to move, choosing among the actions of row ``lb`` of ``legal``."""
    p = g[b, CUR]
    ph = g[b, PHASE]
    nplayers = params[P_PLAYERS]
    team = hg._team(p, params)
    if ph == K_RECV:
        o = _leader_offset(b, p, g, team_total, params) if kind == K_BLOCKER else 1
        a = A_RECV0 + o - 1
        return a if legal[lb, a] else _first_legal(lb, legal)
    nhand = _hand_table(b, p, zone, ht)
    if ph == K_HERD:  # swap, then grow, then lay (when the holding knobs allow), then done
        for e in range(6):
            if legal[lb, A_SWAP0 + e]:
                return A_SWAP0 + e
        wild = kp[KP_WILD] != 0.0
        for h in range(g[b, HN]):
            s = hsuit[b, h]
            animal = s < 5
            lo = hlo[b, h] - 1
            hi = hhi[b, h] + 1
            if legal[lb, A_GROW0 + 2 * h]:
                if (animal and lo >= 0 and ht[s * 6 + lo] > 0) or s == EXPLORER or wild:
                    return A_GROW0 + 2 * h
            if legal[lb, A_GROW0 + 2 * h + 1]:
                if (animal and hi <= 5 and ht[s * 6 + hi] > 0) or s == EXPLORER or wild:
                    return A_GROW0 + 2 * h + 1
        if NCARDS - g[b, POS] <= kp[KP_LAY_DECK] or nhand >= kp[KP_LAY_HAND]:
            for a in range(A_NEW0, A_GROW0):
                if legal[lb, a]:
                    return a
        if legal[lb, A_DONE]:
            return A_DONE
        return _first_legal(lb, legal)
    # the card values (steps two and four, the trade)
    if ph == K_TAKE:  # valued with the hand of step two: the given cards back in it
        for c in range(NCARDS):
            if zone[b, c] == Z_GIVE:
                ht[(c // 12 if c < 60 else EXPLORER) * 6 + c % 6] += 1
    _want(b, team, g, hsuit, hown, hlo, hhi, want)
    _card_table(ht, want, table)
    focus, bonus = -1, 0.0
    if kind == K_SPRINTER:
        focus = _sprint_focus(b, team, g, hsuit, hown, hlo, hhi, ht)
        bonus = kp[KP_EXTRA]
    if ph == K_STEP2 or ph == K_GIVE:
        # _plan: a one-for-one trade for the best grassland card, giving the held card of the
        # same number valued least; an explorer only when it grows a herd of the side and
        # the hand holds another card
        z = Z_HAND0 + p
        best, bv = 0, NEG
        for c in range(NCARDS):
            x = _val(table, c, focus, bonus) if zone[b, c] == Z_GRASS else NEG
            if c == 0 or x > bv:
                best, bv = c, x
        cheap = np.inf
        give = 0
        for c in range(best % 6, NCARDS, 6):
            if zone[b, c] == z:
                v = _val(table, c, focus, bonus)
                if v < cheap:
                    cheap = v
                    give = c
        ok = cheap + 1.0 < bv
        if best >= 60:
            grows = False
            for s in range(6):
                if want[1, s * 6 + best % 6]:
                    grows = True
            ok = ok and grows and nhand >= 2
        if ph == K_GIVE:  # the planned card, then "trade these"
            if legal[lb, A_GIVE_DONE] and g[b, GSUM] > 0:
                return A_GIVE_DONE
            if legal[lb, A_CARD0 + give]:
                return A_CARD0 + give
            return _pick_cards(lb, legal, np.int64(1), table, focus, bonus, want)
        if legal[lb, A_TRADE] and ok and bv >= kp[KP_TRADE]:
            return A_TRADE
        a = A_CARD0 + best if bv >= kp[KP_TAKE] else A_DECK
        return a if legal[lb, a] else _first_legal(lb, legal)
    if ph == K_TAKE:  # the most valuable card that still completes the total
        return _pick_cards(lb, legal, np.int64(0), table, focus, bonus, want)
    if ph == K_PASS:
        if kind == K_BLOCKER:  # pass_scores: -val - block * opponent_use
            return _pick_cards(lb, legal, np.int64(2), table, focus, kp[KP_EXTRA], want)
        return _pick_cards(lb, legal, np.int64(1), table, focus, bonus, want)  # least_valued
    return _first_legal(lb, legal)


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard, cherd,
          hc, tmp3, legal, rs, ev, epts, apts, params, poss, dr, ht, want, table, out):
    """Play every game of the batch to its end. out[0]: decisions, out[2 + b] those of game b;
    out[1]: 1 + the first game whose policy chose an illegal action (0: none)."""
    decisions = 0
    nact = legal.shape[1]
    for b in range(g.shape[0]):
        while g[b, PHASE] != OVER:  # legal[b] is current (init or the last action wrote it)
            k = seating[b, g[b, CUR]]
            a = policy(kinds[k], kp[k], b, g, zone, hsuit, hown, hlo, hhi, team_total, legal, b,
                       params, ht, want, table)
            if a < 0 or a >= nact or not legal[b, a]:
                out[1] = b + 1
                out[0] = decisions
                return
            hg.apply_action(b, a, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard,
                            cherd, hc, tmp3, legal, rs, ev, epts, apts, params, poss, dr)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` (the seats' streams) is unused: these policies draw
    nothing."""
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), NKP), np.float64)
    for i, (_, knobs) in enumerate(policies):
        kp[i] = _knob_row(knobs)
    st = state
    out = kernel_out(len(seating))
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, st.g, st.pp, st.team_total, st.deck,
          st.zone, st.hsuit, st.hown, st.hlo, st.hhi, st.hcard, st.cherd, st.hc,
          np.zeros(3, np.int64), st.legal_, st.rs, st.ev, st.epts, st.apts, st.params, st.poss,
          st.dr, np.zeros(36, np.int64), np.zeros((2, 36), np.bool_), np.zeros(36, np.float64), out)
    decisions = kernel_done(out, per_game)
    return decisions


def _knob_row(knobs) -> np.ndarray:
    row = np.zeros(NKP, np.float64)
    row[:len(knobs)] = knobs
    return row


@njit(cache=True, _nrt=False)
def _decide(games, kind, kp, g, zone, hsuit, hown, hlo, hhi, team_total, legal, params, ht, want,
            table, out):
    """The policy's action in each game of ``games`` (what ``_play`` would choose there), with
    row i of ``legal`` (game games[i]) as its legal mask."""
    for i in range(games.shape[0]):
        out[i] = policy(kind, kp, games[i], g, zone, hsuit, hown, hlo, hhi, team_total, legal, i,
                        params, ht, want, table)


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs`` unused
    (these policies draw nothing), ``legal`` (bool[n, W]) what each may choose among."""
    st = state
    out = np.zeros(len(games), np.int64)
    _decide(np.ascontiguousarray(games, np.int64), np.int64(policy[0]), _knob_row(policy[1]),
            st.g, st.zone, st.hsuit, st.hown, st.hlo, st.hhi, st.team_total,
            np.require(legal, np.bool_, "CW"), st.params, np.zeros(36, np.int64),
            np.zeros((2, 36), np.bool_), np.zeros(36, np.float64), out)
    return out

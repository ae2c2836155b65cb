"""Duck Duck Bruce's shipped strategies as compiled scalar policies (``KINDS``: their names,
by number), and the kernels that play them: ``decide`` for the rows where one sits in the
play loop, ``play_compiled`` for whole games when every seat holds one.

Each policy reads only what the player to move may know. A take-or-bank decision reads its few
numbers straight from the state (``choose_policy`` names the observation field of each read:
the row, the pile's size, the public totals; never the draw pile's order); after a Bruce the
policy reads the view (``duck_duck_bruce.View``) the kernel writes for it. The knowledge test
(``tests/test_duck_duck_bruce.py``) scrambles what the mover cannot see and requires the same
actions. A table where every seat holds one of these plays each game from its first card to its
end inside ``_play``: no Python between decisions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import duck_duck_bruce as ddb
from safari_sim.games.duck_duck_bruce import (BANK, BRUCE, CHOOSE, CUR, DRAW, OVER, P_CARDS,
                                              P_MAXSTEAL, P_PLAYERS, P_ROUNDS, P_TARGET, PASS,
                                              PHASE, POS, ROUND_PTS, ROW_LEN, STEAL0, TOTAL,
                                              V_SEAT)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (ddb.__file__,))

KINDS = ("stop_at", "card_counter", "scoreboard", "value_hunter")
K_STOP_AT, K_CARD_COUNTER, K_SCOREBOARD, K_VALUE_HUNTER = range(len(KINDS))


@njit(cache=True, inline="always", _nrt=False)
def _most_cards(b, nests, small, nplayers):
    """Offset of the opponent with the most nest cards; the lowest seat on ties."""
    seat = small[V_SEAT, b]
    best, best_key = 1, -(1 << 40)
    for o in range(1, nplayers):
        q = seat + o
        q = q - nplayers if q >= nplayers else q
        key = np.int64(nests[0, b, o]) * (nplayers + 1) - q
        if key > best_key:
            best, best_key = o, key
    return best


@njit(cache=True, inline="always", _nrt=False)
def _leader(b, nests, total, small, nplayers):
    """Offset of the opponent with the best standing; more nest cards, then the lowest seat."""
    seat = small[V_SEAT, b]
    best, best_key = 1, -(1 << 60)
    for o in range(1, nplayers):
        q = seat + o
        q = q - nplayers if q >= nplayers else q
        standing = np.int64(total[b, o]) + nests[1, b, o]
        key = (standing * 1000 + nests[0, b, o]) * (nplayers + 1) - q
        if key > best_key:
            best, best_key = o, key
    return best


@njit(cache=True, inline="always", _nrt=False)
def _by_odds(b, offset, nests, die, maxsteal, legal, may_pass):
    """declare_by_odds + bruce_action: the declaration with the best expected card balance,
    or a pass where that balance is not positive and passing is allowed."""
    nf = die.shape[0]
    their = np.int64(nests[0, b, offset])
    mine = np.int64(nests[0, b, 0])
    lose_cards = 0
    for f in range(nf):
        if die[f] < 0:
            lose_cards += min(-np.int64(die[f]), mine)
    lose = lose_cards / nf
    best_k, best_gain = 1, -1e300
    for k in range(1, maxsteal + 1):
        wins = 0
        for f in range(nf):
            if die[f] >= k:
                wins += 1
        gain = min(k, their) * (wins / nf) - lose
        if gain > best_gain:
            best_k, best_gain = k, gain
    if best_gain <= 0 and may_pass and legal[b, PASS]:
        return PASS
    return STEAL0 + (offset - 1) * maxsteal + (best_k - 1)


@njit(cache=True, inline="always", _nrt=False)
def bruce_policy(kind, declare, b, small, nests, total, legal, die, params):
    """The steal (or pass) of policy ``kind`` after a Bruce, from the view of game b's player to
    move (its seat, the nests and totals rotated to it, the legal mask). ``declare``: stop_at's
    declaration."""
    nplayers = params[P_PLAYERS]
    maxsteal = params[P_MAXSTEAL]
    target = _most_cards(b, nests, small, nplayers)
    if kind == K_STOP_AT:
        if nests[0, b, target] == 0 and legal[b, PASS]:
            return PASS
        k = min(np.int64(declare), maxsteal)
        return STEAL0 + (target - 1) * maxsteal + (k - 1)
    # one call site of each helper: numba compiles an inlined helper again at each
    target = _leader(b, nests, total, small, nplayers) if kind == K_SCOREBOARD else target
    return _by_odds(b, target, nests, die, maxsteal, legal, True)


@njit(cache=True, inline="always", _nrt=False)
def choose_policy(kind, kp0, kp1, b, g, pp, row, best, seen, card_suit, card_value, suit_total,
                  params, nbruce):
    """Take another card or bank, for policy ``kind`` with knobs (kp0, kp1), read straight from
    game b's state (no view written): the row's length (obs.row_len); for the policies that weigh
    the risk, the points banking would add and the unseen cards that would bust (obs.row_gain,
    obs.bust_cards: ``duck_duck_bruce.row_sums``, what the view holds) and the draw pile's size
    (obs.deck_left); for scoreboard, every player's total and round points (obs.total,
    obs.round_pts: public)."""
    row_len = g[b, ROW_LEN]
    if kind == K_STOP_AT:
        return BANK if row_len >= kp0 else DRAW
    _, gain, bust, _ = ddb.row_sums(b, g, row, best, seen, card_suit, card_value, suit_total,
                                    params, nbruce)
    if kind == K_VALUE_HUNTER:
        stop = gain >= kp0 or row_len >= kp1
    else:
        risk = kp0
        if kind == K_SCOREBOARD:
            nplayers = params[P_PLAYERS]
            p = g[b, CUR]
            mine = np.float64(pp[b, p, TOTAL]) + pp[b, p, ROUND_PTS]
            lead = -1e300
            for o in range(1, nplayers):
                q = p + o
                q = q - nplayers if q >= nplayers else q
                lead = max(lead, np.float64(pp[b, q, TOTAL]) + pp[b, q, ROUND_PTS])
            scale = np.float64(params[P_TARGET]) if params[P_ROUNDS] == 0 else \
                max(1.0, 20.0 * params[P_ROUNDS])
            risk = min(max(kp0 + kp1 * (lead - mine) / scale, 0.02), 0.98)
        chance = bust / max(params[P_CARDS] - g[b, POS], 1)
        stop = chance >= risk and gain > 0
    return BANK if stop else DRAW


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, g, pp, deck, rs, row, row_at, nest, best, seen, ev, card_suit,
          card_value, die, suit_total, params, mover, legal, small, counts, nests, total,
          row_mask, dr, games, mask, acts, out):
    """Play every game of the batch to its end, one game at a time. A take-or-bank decision reads
    the few numbers its policy needs straight from the state (``choose_policy``); after a Bruce the
    kernel writes the view's seat, players and legal mask for ``bruce_policy``; the whole view
    (what the lockstep loop leaves) is written after it by the rules' ``_views``, compiled once
    rather than again in here. out[0]: decisions, out[2 + b] those of game b; out[1]: 1 + the first
    game whose policy chose an illegal action (0: none).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i]; after a Bruce it writes the view's seat and players as above
    and copies ``mask[i]`` into the view's legal row; nothing is played. One kernel for both, so
    each policy is compiled once."""
    only = games.shape[0] > 0
    nbruce = ddb.n_bruce(suit_total, params)
    n_actions = legal.shape[1]
    decisions = 0
    for j in range(games.shape[0] if only else g.shape[0]):
        b = games[j] if only else j
        while True:
            ph = g[b, PHASE]
            if ph == OVER and not only:
                break
            k = 0 if only else seating[b, g[b, CUR]]
            kind = kinds[k]
            if ph == BRUCE:
                small[V_SEAT, b] = g[b, CUR]
                ddb.view_players(b, g, pp, params, nests, total)
                if only:
                    for x in range(n_actions):
                        legal[b, x] = x < mask.shape[1] and mask[j, x]
                else:
                    ddb.view_legal(b, g, params, legal)
                a = bruce_policy(kind, kp[k, 1], b, small, nests, total, legal, die, params)
            else:
                a = choose_policy(kind, kp[k, 0], kp[k, 1], b, g, pp, row, best, seen,
                                  card_suit, card_value, suit_total, params, nbruce)
            if only:
                acts[j] = a
                break
            if not ddb.is_legal(ph, a, params, n_actions):
                out[1] = b + 1
                return
            ddb.apply_action(b, a, g, pp, deck, rs, row, row_at, nest, best, seen, ev,
                             card_suit, card_value, die, params, dr)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` (the seats' streams, advanced in place) is unused:
    these policies draw nothing."""
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), 2), np.float64)
    for i, (_, knobs) in enumerate(policies):
        kp[i, :len(knobs)] = knobs
    v = state.view
    out = kernel_out(len(seating))
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, state.g, state.pp, state.deck,
          state.rs, state.row, state.row_at, state.nest, state.best, state.seen, state.ev,
          state.card_suit, state.card_value, state.die, state.suit_total, state.params,
          v.mover, v.legal, v.small, v.counts, v.nests, v.total, v.row_mask, state.drama,
          np.zeros(0, np.int64), v.legal, np.zeros(0, np.int64), out)
    decisions = kernel_done(out, per_game)
    ddb._views(np.arange(len(state.g), dtype=np.int64), state.g, state.pp, state.row, state.best,
               state.seen, state.card_suit, state.card_value, state.suit_total, state.params,
               v.mover, v.legal, v.small, v.counts, v.nests, v.total, v.row_mask)
    return decisions


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs`` unused
    (these policies draw nothing), ``legal`` (bool[n, W]) what each may choose among."""
    knobs = tuple(policy[1]) + (0, 0)
    kp = np.array([knobs[:2]], np.float64)
    v = state.view
    out = np.zeros(len(games), np.int64)
    _play(np.zeros((1, 1), np.int64), np.array([policy[0]], np.int64), kp, state.g, state.pp,
          state.deck, state.rs, state.row, state.row_at, state.nest, state.best, state.seen,
          state.ev, state.card_suit, state.card_value, state.die, state.suit_total, state.params,
          v.mover, v.legal, v.small, v.counts, v.nests, v.total, v.row_mask, state.drama,
          np.ascontiguousarray(games, np.int64), np.require(legal, np.bool_, "CW"), out,
          kernel_out(0))
    return out

"""Paper Safari's shipped strategies as compiled scalar policies (``KINDS``: their names, by
number), and the kernels that play them: ``decide`` for the rows where one sits in the play
loop, ``play_compiled`` (``_play``) for whole matches when every seat holds one. Both call the
one ``policy``, so both play the very same heuristic.

All of them value a slot the same way: a known card at its value, a card never seen at the
average of the cards not yet seen, and a column whose two known cards are equal at 0. The rules
are not written again here: ``_play`` calls the game's own ``apply_action`` and
``write_legal``, the per-game functions its batch ``step`` and ``legal`` call.

What a policy reads from the state, and the observation field each read stands for (the mover
is seat p = ``g[b, CUR]``; it never reads another seat's face-down cards, its own unknown ones,
the held card of anyone else, or the deck; ``tests/test_paper_safari.py`` deals those again at
every decision and requires the same actions):

- ``g[b, PHASE]`` (``obs.kind``), ``g[b, HELD]`` (``obs.held``: the mover's own drawn card),
  ``g[b, RTURNS]`` (``obs.round_turns``), ``g[b, DISC_N]`` and ``disc[b, :DISC_N]`` (the public
  discard pile: ``obs.discard_top`` and what ``obs.unseen`` leaves out);
- ``grid[b, q, k]`` only where ``up[b, q, k]`` (``obs.grid`` of every player, face-up cards), or,
  for q = p, where ``known[b, p, k]`` (``obs.grid[:, 0]``: the mover's own looked-at cards);
  ``up`` (``obs.up``);
- ``base`` (the box's cards: ``obs.unseen`` is the box less every card this player can locate),
  ``card_value`` (``obs.card_value``) and ``params`` (the rules: ``obs.rows``, ``obs.cols``,
  ``obs.pair_zero_min``, the table size);
- the legal mask of game b (``lg``): ``write_legal``'s in ``_play``, the one handed to
  ``decide`` there.

These policies draw nothing from the seat streams.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import paper_safari as ps
from safari_sim.games.paper_safari import (CUR, DECK, DISC_N, DISCARD, DRAW, HELD, NO_PEEK, OVER,
                                          P_CARDS, P_COLS, P_FLAGS, P_PLAYERS, P_ROWS, P_SLOTS,
                                          PEEK, PHASE, PLACE, REVEAL, RTURNS, SLOT0, TAKE)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (ps.__file__,))

KINDS = ("threshold", "column_matcher", "closer")
K_THRESHOLD, K_COLUMN_MATCHER, K_CLOSER = range(len(KINDS))

# knobs: kp[k, ...]
KB_KEEP, KB_SAFARI, KB_PATIENCE, KB_A, KB_B = range(5)   # A: match_bonus | margin; B: rush
NKNOBS = 5


@njit(cache=True, inline="always", _nrt=False)
def _first_slot(lg, nslots):
    """The first legal slot action (turning up at setup, or the card to look at)."""
    for k in range(nslots):
        if lg[SLOT0 + k]:
            return SLOT0 + k
    return SLOT0


@njit(cache=True, inline="always", _nrt=False)
def _seen_sum(b, q, own, grid, up, known, card_value, rows, cols, eq, seen):
    """obs.seen_sum and obs.hidden of player q as the mover sees it (``own``: q is the mover):
    the seen cards added up (the game's ``seen_total``, as the observation does), and how many
    it has not seen."""
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
    player to move; ``lg`` holds game b's legal mask. The rest are scratch rows.

    The card weighed is the discard top while drawing, else the card in hand. ``score[k]`` is
    the change of the mover's score if it went into slot k (negative is good; a face-down slot
    gains the impatience bonus ``urge``: per ``patience`` laps of the round, 1 point, and
    keep_below rises by as much), ``match[k]`` whether that makes a new equal column. Then:
    draw: take the discard if wanted and some slot scores below 0; place: exchange with the best
    slot likewise, else discard (when allowed); Elephant: look only when the Elephant would not
    hurt in a known slot (looking forces the exchange)."""
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
    # impatience, and the card being weighed (the discard top while drawing, else held)
    urge = np.float64(g[b, RTURNS]) / (np.float64(nplayers) * kp[KB_PATIENCE])
    keep_below = kp[KB_KEEP] + urge
    dn = g[b, DISC_N]
    top = disc[b, dn - 1] if dn > 0 else -1
    held = g[b, HELD]
    card = top if phase == DRAW else held
    cv = tv[max(card, 0)]
    # the mean unseen value: the box less the held card, the discard pile and every card this
    # player sees
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
    # the score of each slot (a placement that swaps a card of an equal column for its twin, a
    # Tarzan for a Tarzan, makes no new one)
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
        # expected score of every grid: seen cards, and the mean unseen value for each not seen
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
        if look > 0:
            return NO_PEEK
    elif phase == PLACE:
        return SLOT0 + slot if good or not lg[DISCARD] else DISCARD
    return _first_slot(lg, nslots)  # the look (PEEK) too: one call site fewer to compile


@njit(cache=True, _nrt=False)
def _setup(kinds, tvs, base, params, tv_total, partner):
    """Each policy's box total in its planned card values, and each slot's column partner (the
    other row; 2 rows in the printed game)."""
    rows = params[P_ROWS]
    cols = params[P_COLS]
    for k in range(kinds.shape[0]):
        tv_total[k] = 0.0
        for i in range(base.shape[0]):
            tv_total[k] += tvs[k, base[i]]
    for k in range(params[P_SLOTS]):
        partner[k] = ((k // cols + 1) % rows) * cols + k % cols


@njit(cache=True)
def _play(seating, kinds, kp, tvs, tv_total, partner, g, pp, grid, up, known, deck, disc, base,
          card_value, rs, ev, params, dr, lg, val, kn, fd, score, match, seen, games, mask, acts,
          out):
    """Play every match of the batch to its end. out[0]: decisions, out[2 + b] those of game b;
    out[1]: 1 + the first game whose policy chose an illegal action (0: none).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i], with ``mask[i]`` as the legal mask; nothing is played. One
    kernel for both, so the policy is compiled once."""
    only = games.shape[0] > 0
    nactions = lg.shape[0]
    decisions = 0
    for j in range(games.shape[0] if only else g.shape[0]):
        b = games[j] if only else j
        while only or g[b, PHASE] != OVER:
            k = 0 if only else seating[b, g[b, CUR]]
            if only:
                for x in range(nactions):
                    lg[x] = x < mask.shape[1] and mask[j, x]
            else:
                ps.write_legal(b, g, up, params, lg)
            a = policy(kinds[k], kp[k], tvs[k], tv_total[k], b, g, grid, up, known, disc,
                       card_value, params, partner, lg, val, kn, fd, score, match, seen)
            if only:
                acts[j] = a
                break
            if a < 0 or a >= nactions or not lg[a]:
                out[1] = b + 1
                out[0] = decisions
                return
            ps.apply_action(b, a, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev,
                            params, dr)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


def _prepare(state, policies: list):
    """The arrays the kernels read for ``policies`` [(kind, knobs)]: kinds, knobs, planned card
    values (the Safari, the last type, at ``safari_worth``), box totals, partners, scratch."""
    nt = len(state.card_value)
    nslots = int(state.params[P_SLOTS])
    kinds = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), NKNOBS), np.float64)
    tvs = np.repeat(state.card_value.astype(np.float64)[None, :], len(policies), axis=0)
    for i, (_, knobs) in enumerate(policies):
        kp[i, :len(knobs)] = knobs
        tvs[i, nt - 1] = kp[i, KB_SAFARI]
    tv_total = np.zeros(len(policies), np.float64)
    partner = np.empty(nslots, np.int64)
    _setup(kinds, tvs, state.base, state.params, tv_total, partner)
    scratch = (np.zeros(ps.SLOT0 + nslots, np.bool_), np.empty(nslots, np.float64),
               np.empty(nslots, np.bool_), np.empty(nslots, np.bool_),
               np.empty(nslots, np.float64), np.empty(nslots, np.bool_),
               np.empty(nslots, np.int64))
    return kinds, kp, tvs, tv_total, partner, scratch


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt (or part-played) batch to the end with ``policies`` [(kind, knobs)]
    (seating indexes them); returns the decisions made. ``seat_rs`` (the seats' streams) is
    unused: these policies draw nothing."""
    kinds, kp, tvs, tv_total, partner, scratch = _prepare(state, policies)
    out = kernel_out(len(seating))
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, tvs, tv_total, partner, state.g,
          state.pp, state.grid, state.up, state.known, state.deck, state.disc, state.base,
          state.card_value, state.rs, state.ev, state.params, state.dr, *scratch,
          np.zeros(0, np.int64), np.zeros((0, 0), np.bool_), np.zeros(0, np.int64), out)
    decisions = kernel_done(out, per_game)
    return decisions


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs`` unused
    (these policies draw nothing), ``legal`` (bool[n, W]) what each may choose among."""
    kinds, kp, tvs, tv_total, partner, scratch = _prepare(state, [policy])
    games = np.ascontiguousarray(games, np.int64)
    out = np.zeros(len(games), np.int64)
    _play(np.zeros((1, 1), np.int64), kinds, kp, tvs, tv_total, partner, state.g, state.pp,
          state.grid, state.up, state.known, state.deck, state.disc, state.base,
          state.card_value, state.rs, state.ev, state.params, state.dr, *scratch, games,
          np.require(legal, np.bool_, "CW"), out, kernel_out(0))
    return out

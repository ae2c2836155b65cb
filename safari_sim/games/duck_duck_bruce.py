"""Duck Duck Bruce (Gamewright; the English edition of Kleine Fische), 2-6 players.

The module follows the rulebook (../shared/rules/duck-duck-bruce.txt) section by section:
Components, Setup, Game Play, Double Ducks, Bruce, End of the Round, End of the Game. Every
reading of a gap in the printed text is in docs/rules/duck_duck_bruce.md.

Cards are small integers: duck ``c < n_ducks`` has suit ``c // len(suit_values)`` and value
``suit_values[c % len(suit_values)]``; the Bruce cards come after the ducks.

Every card that reaches a nest was face up first (in the row, or shown when stolen), so each
nest's content is public knowledge to a player who remembers; only the order of the draw pile is
hidden. The observation therefore carries the nests' contents and the counts of unseen cards,
never the draw pile itself.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numba import njit

from ..engine import drama
from ..engine.chance import below, shuffle_row
from ..engine.events import log_event
from ..engine.protocol import action_helper
from ..engine.protocol import (Game, Observation, Outcome, RulesError, ranks_and_wins, read_only,
                               rule, winners_changed)


# ---- Components -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    suits: int = rule(10, "number of duck suits (colours)", search=range(5, 11))
    suit_values: tuple[int, ...] = rule((1, 1, 2, 2, 3, 4), "the duck cards of one suit, by number")
    bruce_cards: int = rule(6, "number of Bruce cards in the deck", search=range(0, 13, 2))
    die_faces: tuple[int, ...] = rule(
        (-1, 1, 1, 2, 3, 3),
        "faces of the die; a roll at least the declared number wins, a negative face -k lets "
        "the chosen opponent take k cards back",
        search=[(-1, 1, 1, 2, 3, 3), (1, 1, 2, 2, 3, 3), (-1, -1, 1, 2, 3, 3), (-2, 1, 1, 2, 3, 3),
                (-1, 1, 2, 2, 3, 4)])
    max_steal: int = rule(3, "most cards a player may declare after a Bruce (from 1 to this)",
                          search=range(1, 6))
    target_score: int = rule(77, "the game ends after the round in which someone reaches this total",
                             search=range(37, 118, 10))
    rounds: int | None = rule(None, "play exactly this many rounds (null: play to target_score)",
                              search=[None, 1, 2, 3, 4, 6, 8])
    double_loses: str = rule(
        "between",
        "on a double duck, 'between': lose the cards from the first matching card to the new "
        "one and nest the cards before it; 'row': lose the whole row", search=["between", "row"])
    last_card_banks: bool = rule(
        True, "the player who reveals the last card banks the row (unless a double duck or Bruce)",
        search=[True, False])
    bruce_may_pass: bool = rule(True, "after a Bruce the player may decline to steal",
                                search=[True, False])
    next_starter: str = rule(
        "round",
        "who begins the next round: 'round', the lowest score of the round just played (the "
        "sentence follows the round's scoring); 'total', the lowest running total",
        search=["round", "total"])
    max_rounds: int = rule(500, "safety stop: the game ends after this many rounds whatever the scores")

    def validate(self) -> None:
        if not 1 <= self.suits <= 62:
            raise RulesError("suits", "must be from 1 to 62")
        if not self.suit_values or min(self.suit_values) < 0:
            raise RulesError("suit_values", "must be a non-empty list of numbers >= 0")
        if self.bruce_cards < 0:
            raise RulesError("bruce_cards", "must be 0 or more")
        if not self.die_faces:
            raise RulesError("die_faces", "the die needs at least one face")
        if self.max_steal < 1:
            raise RulesError("max_steal", "must be at least 1")
        if self.target_score < 1:
            raise RulesError("target_score", "must be at least 1")
        if self.rounds is not None and self.rounds < 1:
            raise RulesError("rounds", "must be at least 1, or null to play to target_score")
        if self.double_loses not in ("between", "row"):
            raise RulesError("double_loses", f"must be 'between' or 'row', not {self.double_loses!r}")
        if self.next_starter not in ("round", "total"):
            raise RulesError("next_starter", f"must be 'round' or 'total', not {self.next_starter!r}")
        if self.max_rounds < 1:
            raise RulesError("max_rounds", "must be at least 1")


SUIT_NAMES = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "grey", "white")

# Decision kinds (obs.kind, state phase)
CHOOSE = 0    # a new duck was revealed: take another card or bank the row
BRUCE = 1     # a Bruce was revealed: choose an opponent and a number, or pass
OVER = 2

# Actions: 0 take another card, 1 bank the row, 2 pass on a Bruce,
# 3 + (o - 1) * max_steal + (k - 1): steal k cards from the player o seats to the left.
DRAW, BANK, PASS, STEAL0 = 0, 1, 2, 3

# Per-game scalar fields: g[b, ...]
CUR, POS, ROW_LEN, PHASE, ROUND, TURNS, STARTER, DISCARD, NEV = range(9)
NG = 9
# Per-player fields: pp[b, p, ...]
TOTAL, LAST, NEST_LEN, TRIED, WON, BACKFIRED, DOUBLES, BANKS, ROUND_PTS = range(9)
NPP = 9

# Event log (for describe): ev[b, i] = (type, seat, a, b, c, d)
E_ROUND, E_REVEAL, E_BANK, E_DOUBLE, E_BRUCE, E_STEAL, E_PASS, E_SCORE, E_GAME_END, E_TAKE = range(1, 11)


@dataclass
class State:
    n_players: int
    rules: Rules
    # constants
    card_suit: np.ndarray    # int16[C], -1 for Bruce
    card_value: np.ndarray   # int16[C], 0 for Bruce
    suit_total: np.ndarray   # int16[S]: cards of each suit in the deck
    die: np.ndarray          # int16[F]
    params: np.ndarray       # int64[8]: see _params
    # per game
    g: np.ndarray            # int32[B, NG]
    pp: np.ndarray           # int32[B, P, NPP]
    deck: np.ndarray         # int16[B, C]: the draw pile in order; deck[b, g[b, POS]] is next
    row: np.ndarray          # int16[B, C]
    row_at: np.ndarray       # int16[B, S]: position in the row of a duck of each suit, -1 none
    nest: np.ndarray         # int16[B, P, C]: nest cards, first pp[b, p, NEST_LEN] valid
    best: np.ndarray         # int16[B, P, S]: highest value of each suit in each nest (0 none)
    seen: np.ndarray         # int16[B, S + 1]: cards revealed this round by suit (last: Bruce)
    ev: np.ndarray           # int32[B, L, 6]; L = 0 unless logging
    rs: np.ndarray           # uint64[B]: each game's chance stream (engine.chance)
    drama: np.ndarray        # int32[B, drama_width(P)]: how the lead moved, round by round
    view: Any = None         # View: what every game's player to move sees now (see write_view)
    all_games: Any = None    # int64[B]: 0 .. B-1


# params vector layout (plain ints keep the kernel signatures short)
P_PLAYERS, P_CARDS, P_SUITS, P_MAXSTEAL, P_TARGET, P_ROUNDS, P_FLAGS, P_MAXROUNDS = range(8)
F_DOUBLE_ROW, F_LAST_BANKS, F_MAY_PASS, F_STARTER_TOTAL = 1, 2, 4, 8

# The race model of ``cut_value`` (a search's estimate of the final win share where it stops a
# world early), fitted by likelihood to the winners of 3,000 simulated 3-player games of the
# heuristics (the printed rules): how sharply the running scores decide, points a round the
# leader is counted to gain, and the rounds' worth of noise left at the very end. CUT_ROW: the
# share of what banking the mover's row would add that counts for it (0: the row at risk counts
# nothing, as in the running score; 0.5, 0.75 (the likelihood's best) and 1 measured no better
# in the search, docs/search.md).
CUT_SCALE, CUT_PACE, CUT_LEFT = 0.177, 12.9, 0.161
CUT_ROW = 0.0


# ---- Setup ------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _start_round(b, g, pp, deck, rs, row_at, best, seen, ev, params, starter):
    """Gather every card, shuffle, and give the first turn to ``starter``."""
    ncards = params[P_CARDS]
    for i in range(ncards):
        deck[b, i] = i
    shuffle_row(deck[b], ncards, rs, b)
    g[b, POS] = 0
    g[b, ROW_LEN] = 0
    g[b, CUR] = starter
    g[b, STARTER] = starter
    row_at[b, :] = -1
    best[b, :, :] = 0
    seen[b, :] = 0
    for p in range(params[P_PLAYERS]):
        pp[b, p, NEST_LEN] = 0
        pp[b, p, ROUND_PTS] = 0
    g[b, DISCARD] = 0
    log_event(ev, g, NEV, b, E_ROUND, starter, g[b, ROUND] + 1, 0, 0, 0)


# ---- Game Play --------------------------------------------------------------------------------

@njit(cache=True, inline='always', _nrt=False)
def _nest_add(b, p, card, pp, nest, best, card_suit, card_value):
    n = pp[b, p, NEST_LEN]
    nest[b, p, n] = card
    pp[b, p, NEST_LEN] = n + 1
    s = card_suit[card]
    if card_value[card] > best[b, p, s]:
        pp[b, p, ROUND_PTS] += card_value[card] - best[b, p, s]
        best[b, p, s] = card_value[card]


@njit(cache=True, inline='always', _nrt=False)
def _nest_score(b, p, best, nsuits):
    t = 0
    for s in range(nsuits):
        t += best[b, p, s]
    return t


@njit(cache=True, inline='always', _nrt=False)
def _row_gain(b, g, best, row, card_suit, card_value):
    """The points game b's row would add to the mover's nest if banked now (0 where no duck
    waits for a take-or-bank choice: after a Bruce the row is lost)."""
    if g[b, PHASE] != CHOOSE or g[b, CUR] < 0:
        return 0
    p = g[b, CUR]
    t = 0
    for i in range(g[b, ROW_LEN]):  # each suit once in the row (a second one is a double duck)
        c = row[b, i]
        s = card_suit[c]
        if s >= 0 and card_value[c] > best[b, p, s]:
            t += card_value[c] - best[b, p, s]
    return t


@njit(cache=True, _nrt=False)
def _row_gains(g, pp, row, best, card_suit, card_value, out):
    """out[b]: ``_row_gain`` of every game b."""
    for b in range(g.shape[0]):
        out[b] = _row_gain(b, g, best, row, card_suit, card_value)


@njit(cache=True, _nrt=False)
def _cut_shares(g, pp, row, best, card_suit, card_value, params, seat, scale, pace, left_c,
                row_w, out):
    """out[b]: ``DuckDuckBruce.cut_value``'s share of seat ``seat[b]`` in game b (the race
    model over the running scores, the mover's row counted ``row_w`` of what banking it adds;
    a finished game: the outcome's win share, ties split)."""
    nplayers = params[P_PLAYERS]
    ncards = max(params[P_CARDS], 1)
    for b in range(g.shape[0]):
        me = seat[b]
        if g[b, PHASE] == OVER:
            top = pp[b, 0, TOTAL]
            for p in range(1, nplayers):
                top = max(top, pp[b, p, TOTAL])
            ties = 0
            for p in range(nplayers):
                if pp[b, p, TOTAL] == top:
                    ties += 1
            out[b] = 1.0 / ties if pp[b, me, TOTAL] == top else 0.0
            continue
        extra = 0.0
        if row_w != 0.0:
            extra = row_w * _row_gain(b, g, best, row, card_suit, card_value)
        cur = g[b, CUR]
        top = -1e300
        for p in range(nplayers):
            sc = np.float64(pp[b, p, TOTAL] + pp[b, p, ROUND_PTS]) + (extra if p == cur else 0.0)
            top = max(top, sc)
        left = (params[P_CARDS] - g[b, POS]) / ncards
        if params[P_ROUNDS] > 0:
            rounds = left + max(params[P_ROUNDS] - g[b, ROUND] - 1, 0)
        else:
            rounds = left + max(params[P_TARGET] - top - pace * left, 0.0) / pace
        k = scale / np.sqrt(max(rounds + left_c, 0.03))
        tot = 0.0
        mine = 0.0
        for p in range(nplayers):
            sc = np.float64(pp[b, p, TOTAL] + pp[b, p, ROUND_PTS]) + (extra if p == cur else 0.0)
            z = np.exp(k * (sc - top))
            tot += z
            if p == me:
                mine = z
        out[b] = mine / tot


@njit(cache=True, inline='always', _nrt=False)
def _bank(b, first, last, g, pp, row, row_at, nest, best, card_suit, card_value):
    """Move row[first:last] into the current player's nest and clear the row."""
    p = g[b, CUR]
    for i in range(first, last):
        _nest_add(b, p, row[b, i], pp, nest, best, card_suit, card_value)
    for i in range(g[b, ROW_LEN]):
        s = card_suit[row[b, i]]
        if s >= 0:
            row_at[b, s] = -1
    g[b, ROW_LEN] = 0


@njit(cache=True, _nrt=False)
def _take_random(b, src, dst, k, g, pp, nest, best, ev, card_suit, card_value, nsuits, rs):
    """Move min(k, nest size) cards chosen at random from src's nest to dst's; returns how many."""
    taken = 0
    for _ in range(k):
        n = pp[b, src, NEST_LEN]
        if n == 0:
            break
        j = below(rs, b, n)
        card = nest[b, src, j]
        nest[b, src, j] = nest[b, src, n - 1]
        pp[b, src, NEST_LEN] = n - 1
        _nest_add(b, dst, card, pp, nest, best, card_suit, card_value)
        log_event(ev, g, NEV, b, E_TAKE, dst, card, src, 0, 0)  # shown to everyone
        taken += 1
    if taken > 0:  # the loser's best values may have gone: recount its nest
        for s in range(nsuits):
            best[b, src, s] = 0
        for i in range(pp[b, src, NEST_LEN]):
            c = nest[b, src, i]
            s = card_suit[c]
            if card_value[c] > best[b, src, s]:
                best[b, src, s] = card_value[c]
        pp[b, src, ROUND_PTS] = _nest_score(b, src, best, nsuits)
    return taken


# ---- End of the Round / End of the Game -------------------------------------------------------

@njit(cache=True, _nrt=False)
def _end_round(b, g, pp, deck, rs, row_at, best, seen, ev, params, dr):
    """Score the nests (highest card of each suit), then end the game or start the next round."""
    nplayers = params[P_PLAYERS]
    nsuits = params[P_SUITS]
    g[b, ROUND] += 1
    for p in range(nplayers):
        pts = _nest_score(b, p, best, nsuits)
        pp[b, p, LAST] = pts
        pp[b, p, TOTAL] += pts
        log_event(ev, g, NEV, b, E_SCORE, p, pts, pp[b, p, TOTAL], pp[b, p, NEST_LEN], 0)
    drama.drama_update(dr, b, pp[b, :, TOTAL], False)  # who is ahead: the totals, round by round
    over = False
    if params[P_ROUNDS] > 0:
        over = g[b, ROUND] >= params[P_ROUNDS]
    else:
        for p in range(nplayers):
            if pp[b, p, TOTAL] >= params[P_TARGET]:
                over = True
    if g[b, ROUND] >= params[P_MAXROUNDS]:
        over = True
    if over:
        g[b, PHASE] = OVER
        g[b, CUR] = -1
        log_event(ev, g, NEV, b, E_GAME_END, -1, g[b, ROUND], 0, 0, 0)
        return
    # The lowest scorer (of the round, or of the running totals) starts the next; on a tie, the
    # first of them in turn order from the player after the one who revealed the last card.
    by = TOTAL if params[P_FLAGS] & F_STARTER_TOTAL else LAST
    lowest = 1 << 30
    for p in range(nplayers):
        lowest = min(lowest, pp[b, p, by])
    starter = 0
    for i in range(1, nplayers + 1):
        p = (g[b, CUR] + i) % nplayers
        if pp[b, p, by] == lowest:
            starter = p
            break
    _start_round(b, g, pp, deck, rs, row_at, best, seen, ev, params, starter)


@njit(cache=True, inline='always', _nrt=False)
def _end_turn(b, g, pp, deck, rs, row_at, best, seen, ev, params, dr):
    g[b, TURNS] += 1
    if g[b, POS] >= params[P_CARDS]:
        _end_round(b, g, pp, deck, rs, row_at, best, seen, ev, params, dr)
    else:
        nxt = g[b, CUR] + 1  # to the left (no modulo: a division per turn shows in the timings)
        g[b, CUR] = 0 if nxt >= params[P_PLAYERS] else nxt


@njit(cache=True, inline='always', _nrt=False)
def _reveal(b, g, pp, deck, rs, row, row_at, nest, best, seen, ev, card_suit, card_value, params,
            dr):
    """Turn over cards until someone must decide or the game ends (Game Play, Double Ducks, Bruce).
    Inlined (called, the whole game played at half the speed), and each card's outcome banks and
    ends the turn at one call site: numba compiles an inlined helper again at each."""
    ncards = params[P_CARDS]
    nsuits = params[P_SUITS]
    while g[b, PHASE] != OVER:
        p = g[b, CUR]
        card = deck[b, g[b, POS]]
        g[b, POS] += 1
        last = g[b, POS] >= ncards
        s = card_suit[card]
        log_event(ev, g, NEV, b, E_REVEAL, p, card, g[b, ROW_LEN], 0, 0)
        bank_to = 0  # the row's cards up to this one go to the player's nest, the rest are lost
        if s < 0:
            # Bruce: the row and the Bruce go to the discard pile; the steal is the player's call
            seen[b, nsuits] += 1
            g[b, DISCARD] += g[b, ROW_LEN] + 1
            log_event(ev, g, NEV, b, E_BRUCE, p, g[b, ROW_LEN], 0, 0, 0)
        else:
            seen[b, s] += 1
            j = row_at[b, s]
            if j >= 0:
                # Double duck: lose the cards from the first match to the new one, nest the rest
                keep = j
                if params[P_FLAGS] & F_DOUBLE_ROW:
                    keep = 0
                lost = g[b, ROW_LEN] - keep + 1
                g[b, DISCARD] += lost
                pp[b, p, DOUBLES] += 1
                log_event(ev, g, NEV, b, E_DOUBLE, p, card, lost, keep, 0)
                bank_to = keep
            else:
                n = g[b, ROW_LEN]
                row[b, n] = card
                row_at[b, s] = n
                g[b, ROW_LEN] = n + 1
                if not last:
                    g[b, PHASE] = CHOOSE
                    return
                # The last card: whoever turned it over finishes the turn by banking the row
                if params[P_FLAGS] & F_LAST_BANKS:
                    pp[b, p, BANKS] += 1
                    log_event(ev, g, NEV, b, E_BANK, p, n + 1, 1, 0, 0)
                    bank_to = n + 1
                else:
                    g[b, DISCARD] += n + 1
        _bank(b, 0, bank_to, g, pp, row, row_at, nest, best, card_suit, card_value)
        if s < 0:
            g[b, PHASE] = BRUCE
            return
        _end_turn(b, g, pp, deck, rs, row_at, best, seen, ev, params, dr)


@njit(cache=True, _nrt=False)
def _init(g, pp, deck, rs, row_at, best, seen, ev, row, nest, card_suit, card_value, params, dr):
    for b in range(g.shape[0]):
        _start_round(b, g, pp, deck, rs, row_at, best, seen, ev, params,
                     np.int64(0))
        _reveal(b, g, pp, deck, rs, row, row_at, nest, best, seen, ev, card_suit, card_value, params,
                dr)


# ---- What the player to move sees ---------------------------------------------------------------
# The kernels write, for every game as it reaches its next decision (its data is in cache then),
# who moves, the legal actions and the observation's fields into per-step arrays (`View`), so
# that to_move, legal and observe cost a look-up or one gather instead of a pass over the batch.

# rows of View.small (int8) and View.counts (int16)
V_SEAT, V_KIND = range(2)
V_ROUND, V_ROW_LEN, V_ROW_GAIN, V_BUST, V_UNSEEN_BRUCE, V_DECK_LEFT = range(6)


@dataclass
class View:
    """The decision every game awaits, made fresh at each step (so an observation handed out
    earlier never changes)."""

    mover: np.ndarray    # int64[B]: seat to move, -1 when over
    legal: np.ndarray    # bool[B, A]
    small: np.ndarray    # int8[2, B]: V_SEAT, V_KIND
    counts: np.ndarray   # int16[6, B]: V_ROUND ... V_DECK_LEFT
    nests: np.ndarray    # int16[2, B, P]: nest sizes, round points (rotated: 0 = the mover)
    total: np.ndarray    # int32[B, P] (rotated)
    row_mask: np.ndarray  # int64[B]: bit s set when a duck of suit s is in the row

    @staticmethod
    def empty(batch: int, n_players: int, n_actions: int) -> "View":
        return View(np.empty(batch, np.int64), np.empty((batch, n_actions), np.bool_),
                    np.empty((2, batch), np.int8), np.empty((6, batch), np.int16),
                    np.empty((2, batch, n_players), np.int16),
                    np.empty((batch, n_players), np.int32), np.empty(batch, np.int64))


@njit(cache=True, inline='always', _nrt=False)
def is_legal(ph, a, params, n_actions):
    """Whether action ``a`` is legal in a game whose phase is ``ph``."""
    if ph == CHOOSE:
        return a == DRAW or a == BANK
    if ph == BRUCE:
        if a == PASS:
            return (params[P_FLAGS] & F_MAY_PASS) != 0
        return STEAL0 <= a < n_actions
    return False


@njit(cache=True, inline='always', _nrt=False)
def view_turn(b, g, params, mover, small, counts):
    """The view's who-moves part: the mover, the decision kind, the round, the row's length and
    the draw pile's."""
    ph = g[b, PHASE]
    p = g[b, CUR]
    mover[b] = -1 if ph == OVER else p
    small[V_SEAT, b] = p
    small[V_KIND, b] = ph
    counts[V_ROUND, b] = g[b, ROUND]
    counts[V_ROW_LEN, b] = g[b, ROW_LEN]
    counts[V_DECK_LEFT, b] = params[P_CARDS] - g[b, POS]


@njit(cache=True, inline='always', _nrt=False)
def view_legal(b, g, params, legal):
    ph = g[b, PHASE]
    for a in range(legal.shape[1]):
        legal[b, a] = is_legal(ph, a, params, legal.shape[1])


@njit(cache=True, inline='always', _nrt=False)
def row_sums(b, g, row, best, seen, card_suit, card_value, suit_total, params, nbruce):
    """What the row means to the player to move: (unseen Bruces, the points banking would add,
    the unseen cards that would bust, the bit mask of the row's suits)."""
    p = g[b, CUR]
    ub = nbruce - seen[b, params[P_SUITS]]
    gain = 0
    bust = ub
    mask = 0
    for j in range(g[b, ROW_LEN]):
        c = row[b, j]
        s = card_suit[c]
        bust += suit_total[s] - seen[b, s]
        gain += max(card_value[c] - best[b, p, s], 0)
        mask |= 1 << s
    return ub, gain, bust, mask


@njit(cache=True, inline='always', _nrt=False)
def view_row(b, g, row, best, seen, card_suit, card_value, suit_total, params, nbruce, counts,
             row_mask):
    """The view's row part: the points banking would add, the cards that would bust, the row's
    suits and the unseen Bruces."""
    ub, gain, bust, mask = row_sums(b, g, row, best, seen, card_suit, card_value, suit_total,
                                    params, nbruce)
    counts[V_UNSEEN_BRUCE, b] = ub
    row_mask[b] = mask
    counts[V_ROW_GAIN, b] = gain
    counts[V_BUST, b] = bust


@njit(cache=True, inline='always', _nrt=False)
def view_players(b, g, pp, params, nests, total):
    """The view's players part: nest sizes, round points and totals, rotated (0: the mover)."""
    nplayers = params[P_PLAYERS]
    p = g[b, CUR]
    for o in range(nplayers):
        q = p + o
        q = q - nplayers if q >= nplayers else q  # a select, not a branch: p varies by game
        nests[0, b, o] = pp[b, q, NEST_LEN]
        nests[1, b, o] = pp[b, q, ROUND_PTS]
        total[b, o] = pp[b, q, TOTAL]


@njit(cache=True, inline='always', _nrt=False)
def write_view(b, g, pp, row, best, seen, card_suit, card_value, suit_total, params, nbruce,
          mover, legal, small, counts, nests, total, row_mask):
    """Game b as its player to move sees it; per-player values rotated so index 0 is the mover
    and index o the player o seats to the left. (The parts are separate so that a whole-game
    kernel can write only what its policies read at a decision.)"""
    view_turn(b, g, params, mover, small, counts)
    view_legal(b, g, params, legal)
    view_row(b, g, row, best, seen, card_suit, card_value, suit_total, params, nbruce, counts,
             row_mask)
    view_players(b, g, pp, params, nests, total)


@njit(cache=True, _nrt=False)
def n_bruce(suit_total, params):
    t = params[P_CARDS]
    for s in range(params[P_SUITS]):
        t -= suit_total[s]
    return t


@njit(cache=True, _nrt=False)
def _views(games, g, pp, row, best, seen, card_suit, card_value, suit_total, params,
           mover, legal, small, counts, nests, total, row_mask):
    """Write the view of ``games`` (after init, or a position set up by hand)."""
    nbruce = n_bruce(suit_total, params)
    for b in games:
        write_view(b, g, pp, row, best, seen, card_suit, card_value, suit_total, params, nbruce,
              mover, legal, small, counts, nests, total, row_mask)


@njit(cache=True, inline='always', _nrt=False)
def apply_action(b, a, g, pp, deck, rs, row, row_at, nest, best, seen, ev, card_suit, card_value,
                 die, params, dr):
    """Game b's player to move takes action ``a``; then turn cards up to the next decision."""
    phase = g[b, PHASE]
    if phase == OVER:
        return
    nplayers = params[P_PLAYERS]
    maxsteal = params[P_MAXSTEAL]
    p = g[b, CUR]
    if phase == CHOOSE:
        if a == BANK:
            n = g[b, ROW_LEN]
            pp[b, p, BANKS] += 1
            log_event(ev, g, NEV, b, E_BANK, p, n, 0, 0, 0)
            _bank(b, 0, n, g, pp, row, row_at, nest, best, card_suit, card_value)
            _end_turn(b, g, pp, deck, rs, row_at, best, seen, ev, params, dr)
    else:  # BRUCE
        if a == PASS:
            log_event(ev, g, NEV, b, E_PASS, p, 0, 0, 0, 0)
        else:
            o = (a - STEAL0) // maxsteal + 1
            k = (a - STEAL0) % maxsteal + 1
            t = (p + o) % nplayers
            face = die[below(rs, b, die.shape[0])]
            pp[b, p, TRIED] += 1
            taken = 0
            if face >= k:
                pp[b, p, WON] += 1
                # int64 seats at both sites: one specialization of _take_random, not two
                taken = _take_random(b, t, np.int64(p), k, g, pp, nest, best, ev, card_suit,
                                     card_value, params[P_SUITS], rs)
            elif face < 0:
                pp[b, p, BACKFIRED] += 1
                taken = -_take_random(b, np.int64(p), t, -face, g, pp, nest, best, ev, card_suit,
                                      card_value, params[P_SUITS], rs)
            log_event(ev, g, NEV, b, E_STEAL, p, t, k, face, taken)
        _end_turn(b, g, pp, deck, rs, row_at, best, seen, ev, params, dr)
    _reveal(b, g, pp, deck, rs, row, row_at, nest, best, seen, ev, card_suit, card_value, params,
            dr)


@njit(cache=True, _nrt=False)
def _step(actions, g, pp, deck, rs, row, row_at, nest, best, seen, ev, card_suit, card_value, die,
          suit_total, params, mover, legal, small, counts, nests, total, row_mask, dr):
    nbruce = n_bruce(suit_total, params)
    for b in range(g.shape[0]):
        apply_action(b, actions[b], g, pp, deck, rs, row, row_at, nest, best, seen, ev,
                     card_suit, card_value, die, params, dr)
        write_view(b, g, pp, row, best, seen, card_suit, card_value, suit_total, params, nbruce,
             mover, legal, small, counts, nests, total, row_mask)


# ---- Worlds for search ------------------------------------------------------------------------
# Every card off the draw pile was shown face up (the row, the nests, stolen cards, the discard
# pile), so the only thing hidden from any seat is the order of the draw pile.

@njit(cache=True, _nrt=False)
def _redeal(deck, g, rs, ncards):
    """Deal each world's draw pile again: its cards in id order (the set every seat knows),
    shuffled from the world's own stream."""
    for i in range(deck.shape[0]):
        pos = g[i, POS]
        for j in range(pos + 1, ncards):  # insertion sort (at most a few dozen cards)
            c = deck[i, j]
            k = j - 1
            while k >= pos and deck[i, k] > c:
                deck[i, k + 1] = deck[i, k]
                k -= 1
            deck[i, k + 1] = c
        shuffle_row(deck[i, pos:], ncards - pos, rs, i)


@dataclass
class Obs(Observation):
    """What the player to move knows. Per-player arrays are rotated: index 0 is this player,
    index o the player o seats to the left (the steal action names the same offsets).

    Every field is a snapshot made for this decision (the View blocks are new at each step, the
    nests and revealed counts are copied), so an observation kept across steps never changes;
    ``unseen``, ``row_suits`` and ``nest_best`` are worked out from those copies on first use."""

    game: np.ndarray         # int[n] batch index (for strategies that keep memory)
    seat: np.ndarray         # int8[n] this player's seat (0 = the game's first player)
    kind: np.ndarray         # int8[n] CHOOSE (0) or BRUCE (1)
    round: np.ndarray        # int16[n] rounds finished
    row_len: np.ndarray      # int16[n] cards in the row
    row_gain: np.ndarray     # int16[n] points banking the row now would add to this player's nest
    bust_cards: np.ndarray   # int16[n] unseen cards that would end the turn badly: ducks of the
                             #   row's suits and Bruces
    unseen_bruce: np.ndarray  # int16[n] Bruce cards not yet revealed this round
    deck_left: np.ndarray    # int16[n] cards in the draw pile
    nest_size: np.ndarray    # int16[n, P]
    round_pts: np.ndarray    # int16[n, P] what each nest would score now
    total: np.ndarray        # int32[n, P] totals of the finished rounds
    row_mask: np.ndarray     # int64[n] bit s set when a duck of suit s is in the row
    seen: np.ndarray         # int16[n, S + 1] cards revealed this round by suit (last: Bruce)
    best: np.ndarray         # int16[n, P, S] highest value of each suit in each nest, by seat
    die: np.ndarray          # int16[F] the die's faces (public)
    suit_total: np.ndarray   # int16[S] ducks of each suit in the deck
    max_steal: int
    target_score: int
    rounds: int | None       # the round limit if the game has one

    shared = ("die", "suit_total")

    def take(self, rows: np.ndarray) -> "Obs":
        # Strategies call this at every step for the rows that drew a Bruce: gathering the
        # blocks the fields are rows of costs half of gathering the fields one by one
        # (and the generic take, dataclasses.replace with fancy indexing, twice that).
        blocks = self.__dict__.get("_blocks")
        if blocks is None:  # an Obs not made by observe()
            return super().take(rows)
        return _make_obs(np.take(self.game, rows), *(np.take(x, rows, axis=ax) for x, ax in
                                                      zip(blocks, _BLOCK_AXES)), self).freeze()

    def bust_chance(self) -> np.ndarray:
        """Chance that the next card ends the turn badly (a Bruce or a suit already in the row)."""
        return self.bust_cards / np.maximum(self.deck_left, 1)

    @cached_property
    def unseen(self) -> np.ndarray:
        """int16[n, S]: ducks of each suit not yet revealed this round."""
        return read_only(self.suit_total[None, :] - self.seen[:, :len(self.suit_total)])

    @cached_property
    def row_suits(self) -> np.ndarray:
        """bool[n, S]: suits in the row (a duck of one of these is a double duck)."""
        bits = np.int64(1) << np.arange(len(self.suit_total), dtype=np.int64)
        return read_only((self.row_mask[:, None] & bits[None, :]) != 0)

    def nest_best(self) -> np.ndarray:
        """int16[n, P, S]: highest value of each suit in each nest, rotated like the others."""
        p = self.best.shape[1]
        seats = (self.seat[:, None].astype(np.int64) + np.arange(p)[None, :]) % p
        return read_only(np.take_along_axis(self.best, seats[:, :, None], axis=1))

    @action_helper
    def draw_action(self) -> int:
        """The action: take another card into the row (CHOOSE)."""
        return DRAW

    @action_helper
    def bank_action(self) -> int:
        """The action: bank the row into the nest (CHOOSE)."""
        return BANK

    @action_helper
    def pass_action(self) -> int:
        """The action: pass on the Bruce (BRUCE, when the rules allow it)."""
        return PASS

    @action_helper
    def steal_action(self, offset: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Action index for stealing ``k`` cards from the player ``offset`` seats to the left."""
        return STEAL0 + (np.asarray(offset) - 1) * self.max_steal + (np.asarray(k) - 1)


# ---- End of the Game: the dataset's columns ----------------------------------------------------

@njit(cache=True, _nrt=False)
def _outcome(pp, g, dr, max_rounds, to_target, target, score, rank, win, per_seat, capped, lead):
    """One pass over the finished batch: what ``ranks_and_wins`` and ``drama_stats`` (higher
    wins) give from the totals, the per-seat counters and the safety-stop flag (the same
    numbers: ``outcome_numpy`` is the reference in the tests)."""
    nplayers = pp.shape[1]
    for b in range(pp.shape[0]):
        nfirst = 0
        top = -1 << 40
        for p in range(nplayers):
            t = pp[b, p, TOTAL]
            score[b, p] = t
            top = max(top, t)
            better = 0
            for q in range(nplayers):
                if pp[b, q, TOTAL] > t:
                    better += 1
            rank[b, p] = 1 + better
            if better == 0:
                nfirst += 1
            per_seat[0, b, p] = pp[b, p, LAST]
            per_seat[1, b, p] = pp[b, p, TRIED]
            per_seat[2, b, p] = pp[b, p, WON]
            per_seat[3, b, p] = pp[b, p, BACKFIRED]
            per_seat[4, b, p] = pp[b, p, DOUBLES]
            per_seat[5, b, p] = pp[b, p, BANKS]
        w = -1
        for p in range(nplayers):
            first = rank[b, p] == 1
            win[b, p] = 1.0 / nfirst if first else 0.0
            if first and w < 0:
                w = p
        capped[b] = 1 if g[b, ROUND] >= max_rounds and to_target and top < target else 0
        if nfirst == 1:
            other = -np.inf
            for p in range(nplayers):
                if p != w:
                    other = max(other, score[b, p])
            lead[0, b] = dr[b, drama.BASE + nplayers + w] / np.float64(max(dr[b, drama.UPDATES], 1))
            lead[1, b] = np.float64(dr[b, drama.BASE + w])
            lead[2, b] = score[b, w] - other
        else:
            lead[0, b] = np.nan
            lead[1, b] = np.nan
            lead[2, b] = np.nan


# axis of the games in each block of an observation: small, counts, nests, total, row_mask,
# seen, best
_BLOCK_AXES = (1, 1, 1, 0, 0, 0, 0)


def _make_obs(games, small, counts, nests, total, row_mask, seen, best, like) -> Obs:
    """The observation whose fields are rows of its blocks (already gathered for ``games``); the
    shared values come from ``like`` (a State or another Obs)."""
    if isinstance(like, State):
        r = like.rules
        max_steal, target, rounds = r.max_steal, r.target_score, r.rounds
    else:
        max_steal, target, rounds = like.max_steal, like.target_score, like.rounds
    obs = Obs(games, small[V_SEAT], small[V_KIND], counts[V_ROUND], counts[V_ROW_LEN],
              counts[V_ROW_GAIN], counts[V_BUST], counts[V_UNSEEN_BRUCE], counts[V_DECK_LEFT],
              nests[0], nests[1], total, row_mask, seen, best, die=like.die,
              suit_total=like.suit_total, max_steal=max_steal, target_score=target,
              rounds=rounds)
    obs._blocks = (small, counts, nests, total, row_mask, seen, best)  # not a field: for take
    return obs


# A batch's state is a few megabytes; fresh memory costs a page fault per 4 KB page when first
# written (about 500 a batch of 4096 games: 0.7 us a game, a tenth of a run, on this machine).
# So init takes its arrays from those of states nobody holds any more: an array in the pool whose
# only references are the pool's (a live state, or any view of its arrays, holds one more).
_POOL: list[np.ndarray] = []
_POOL_SIZE = 48  # arrays kept: four or five states' worth
_POOL_LOCK = threading.Lock()


def _reused(shape: tuple[int, ...], dtype, fill=None) -> np.ndarray:
    """An array of ``shape`` and ``dtype`` (uninitialised, or set to ``fill``), from the pool
    when one there is free."""
    dtype = np.dtype(dtype)
    out = None
    with _POOL_LOCK:
        for a in _POOL:
            # references: the pool's list, this loop's name, getrefcount's argument
            if a.shape == shape and a.dtype == dtype and sys.getrefcount(a) <= 3:
                out = a
                break
        if out is None:
            out = np.empty(shape, dtype)
            _POOL.append(out)
            if len(_POOL) > _POOL_SIZE:
                _POOL.pop(0)
    if fill is not None:
        out[...] = fill
    return out


class DuckDuckBruce(Game):
    id = "duck_duck_bruce"
    measures = ("last_round_decided", "target_overshoot")
    name = "Duck Duck Bruce"
    min_players = 2
    max_players = 6
    Rules = Rules
    score_name = "points"
    decision_kinds = ("take another card or bank the row", "Bruce: steal or pass")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return STEAL0 + (n_players - 1) * rules.max_steal

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        if action == DRAW:
            return "take another card"
        if action == BANK:
            return "bank the row"
        if action == PASS:
            return "pass on the Bruce"
        o = (action - STEAL0) // rules.max_steal + 1
        k = (action - STEAL0) % rules.max_steal + 1
        return f"declare {k} against the player {o} to the left"

    # -- setup
    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        batch = len(keys)
        nv = len(rules.suit_values)
        nducks = rules.suits * nv
        ncards = nducks + rules.bruce_cards
        card_suit = np.full(ncards, -1, np.int16)
        card_value = np.zeros(ncards, np.int16)
        card_suit[:nducks] = np.arange(nducks) // nv
        card_value[:nducks] = np.tile(np.asarray(rules.suit_values, np.int16), rules.suits)
        flags = ((F_DOUBLE_ROW if rules.double_loses == "row" else 0)
                 | (F_LAST_BANKS if rules.last_card_banks else 0)
                 | (F_MAY_PASS if rules.bruce_may_pass else 0)
                 | (F_STARTER_TOTAL if rules.next_starter == "total" else 0))
        params = np.array([n_players, ncards, rules.suits, rules.max_steal, rules.target_score,
                           rules.rounds or 0, flags, rules.max_rounds], np.int64)
        st = State(
            n_players=n_players, rules=rules, card_suit=card_suit, card_value=card_value,
            suit_total=np.full(rules.suits, nv, np.int16),
            die=np.asarray(rules.die_faces, np.int16), params=params,
            # from the pool of finished states' arrays (see _reused); deck, row, row_at, nest, best
            # and seen are written before they are read (_start_round gathers, clears and
            # shuffles; a row and a nest are read only up to their lengths)
            g=_reused((batch, NG), np.int32, 0), pp=_reused((batch, n_players, NPP), np.int32, 0),
            deck=_reused((batch, ncards), np.int16), row=_reused((batch, ncards), np.int16),
            row_at=_reused((batch, rules.suits), np.int16),
            nest=_reused((batch, n_players, ncards), np.int16),
            best=_reused((batch, n_players, rules.suits), np.int16),
            seen=_reused((batch, rules.suits + 1), np.int16),
            ev=np.zeros((batch, 20000 if log else 0, 6), np.int32),
            rs=np.array(keys, dtype=np.uint64),
            drama=_reused((batch, drama.drama_width(n_players)), np.int32,
                          drama.drama_new(1, n_players)),
        )
        _init(st.g, st.pp, st.deck, st.rs, st.row_at, st.best, st.seen, st.ev, st.row, st.nest,
              st.card_suit, st.card_value, st.params, st.drama)
        st.all_games = np.arange(batch)
        self._refresh(st, st.all_games)
        return st

    def _refresh(self, st: State, games: np.ndarray, fresh: bool = True) -> None:
        """Rewrite the view of ``games`` (in a new View unless ``fresh`` is False)."""
        if fresh or st.view is None:
            st.view = View.empty(len(st.g), st.n_players, self.n_actions(st.rules, st.n_players))
        v = st.view
        _views(np.asarray(games, np.int64), st.g, st.pp, st.row, st.best, st.seen, st.card_suit,
               st.card_value, st.suit_total, st.params, v.mover, v.legal, v.small, v.counts,
               v.nests, v.total, v.row_mask)

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        if rules.suits * len(rules.suit_values) + rules.bruce_cards < 1:
            raise RulesError("suits", "the deck has no cards")

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        return state.view.mover

    def legal(self, state: State) -> np.ndarray:
        return state.view.legal

    def observe(self, state: State, games: np.ndarray) -> Obs:
        games = np.asarray(games, dtype=np.int64)
        v = state.view
        if len(games) == len(v.mover) and np.array_equal(games, state.all_games):
            blocks = (v.small, v.counts, v.nests, v.total, v.row_mask)  # every game
        else:
            # np.take: several times faster than fancy indexing on these narrow arrays
            blocks = tuple(np.take(x, games, axis=ax) for x, ax in
                           zip((v.small, v.counts, v.nests, v.total, v.row_mask), _BLOCK_AXES))
        # the nests and revealed counts change at the next step: copies (np.take copies)
        return _make_obs(games, *blocks, np.take(state.seen, games, axis=0),
                         np.take(state.best, games, axis=0), state)

    def step(self, state: State, actions: np.ndarray) -> None:
        # a new View, so that observations and masks handed out before stay as they were
        v = state.view = View.empty(len(state.g), state.n_players, state.view.legal.shape[1])
        _step(np.asarray(actions, np.int64), state.g, state.pp, state.deck, state.rs, state.row,
              state.row_at, state.nest, state.best, state.seen, state.ev, state.card_suit,
              state.card_value, state.die, state.suit_total, state.params, v.mover, v.legal,
              v.small, v.counts, v.nests, v.total, v.row_mask, state.drama)

    def outcome(self, state: State) -> Outcome:
        b, p = state.pp.shape[:2]
        score, rank, win = np.empty((b, p)), np.empty((b, p), np.int16), np.empty((b, p))
        per_seat = np.empty((6, b, p), np.int32)
        capped = np.empty(b, np.int8)
        lead = np.empty((3, b))
        r = state.rules
        _outcome(state.pp, state.g, state.drama, r.max_rounds, r.rounds is None, r.target_score,
                 score, rank, win, per_seat, capped, lead)
        return Outcome(
            score=score, rank=rank, win=win, turns=state.g[:, TURNS].copy(),
            stats={
                "rounds": state.g[:, ROUND].copy(),
                "last_round_points": per_seat[0],
                "bruce_tried": per_seat[1],
                "bruce_won": per_seat[2],
                "bruce_backfired": per_seat[3],
                "double_ducks": per_seat[4],
                "banks": per_seat[5],
                # the safety stop ended the game before anyone reached the target
                "capped": capped,
                "lead_changes": state.drama[:, drama.CHANGES].astype(np.int32),
                "lead_from": lead[0], "comeback": lead[1], "margin": lead[2],
                **self._measures(state, score),
            },
        )

    def _measures(self, state: State, total: np.ndarray) -> dict[str, np.ndarray]:
        """The designer's measures (docs/rules/duck_duck_bruce.md, "Measures"): the last round
        changed who wins; how far past the target the highest total went."""
        r = state.rules
        top = total.max(axis=1)
        over = top - r.target_score if r.rounds is None else np.zeros_like(top)
        return {"last_round_decided": winners_changed(total - state.pp[:, :, LAST], total),
                "target_overshoot": np.maximum(over, 0).astype(np.int32)}

    def running_score(self, state: State) -> np.ndarray:
        """The totals of the finished rounds plus, in a round still being played, what each
        nest would score if the round ended now (the highest card of each suit in it: the
        nest's banked points). Cards in the row are at risk (a double duck or a Bruce loses
        them) and count nothing."""
        total = state.pp[:, :, TOTAL].astype(np.float64)
        playing = (state.g[:, PHASE] != OVER)[:, None]
        return total + np.where(playing, state.pp[:, :, ROUND_PTS], 0)

    def cut_value(self, state: State, seat: np.ndarray) -> np.ndarray:
        """float64[B]: game i's estimated final win share of seat ``seat[i]`` (a search's value
        where it stops a world before the end; strategies/search.py). A race model: each seat's
        running score (``running_score``) moves by noise growing with the rounds still to come,
        so the share is a softmax of the scores whose sharpness grows as the end nears,
        ``p_i ~ exp(CUT_SCALE * s_i / sqrt(R))``, R the rounds left: what is left of this round
        (the draw pile's share of the deck) plus the rounds the leader needs to reach the
        target at CUT_PACE points a round (or the rounds left of a fixed ``rounds``), plus
        CUT_LEFT. Fitted by likelihood to the winners of 3,000 3-player games of the shipped
        heuristics (docs/search.md, Duck Duck Bruce); a finished game: its outcome's share."""
        out = np.empty(len(state.g), np.float64)
        _cut_shares(state.g, state.pp, state.row, state.best, state.card_suit, state.card_value,
                    state.params, np.asarray(seat, np.int64), CUT_SCALE, CUT_PACE, CUT_LEFT,
                    float(CUT_ROW), out)
        return out

    def outcome_numpy(self, state: State) -> Outcome:
        """``outcome`` from the engine's numpy helpers (ranks_and_wins, drama_stats): the
        reference the one-pass kernel is tested against."""
        total = state.pp[:, :, TOTAL].astype(np.float64)
        rank, win = ranks_and_wins(total)
        return Outcome(
            score=total, rank=rank, win=win, turns=state.g[:, TURNS].copy(),
            stats={
                "rounds": state.g[:, ROUND].copy(),
                "last_round_points": state.pp[:, :, LAST].copy(),
                "bruce_tried": state.pp[:, :, TRIED].copy(),
                "bruce_won": state.pp[:, :, WON].copy(),
                "bruce_backfired": state.pp[:, :, BACKFIRED].copy(),
                "double_ducks": state.pp[:, :, DOUBLES].copy(),
                "banks": state.pp[:, :, BANKS].copy(),
                "capped": ((state.g[:, ROUND] >= state.rules.max_rounds)
                           & (state.rules.rounds is None)
                           & (state.pp[:, :, TOTAL].max(axis=1) < state.rules.target_score)
                           ).astype(np.int8),
                **drama.drama_stats(state.drama, total, win, False),
                **self._measures(state, total),
            },
        )

    # -- worlds, for search players
    constant_fields = ("card_suit", "card_value", "suit_total", "die", "params")

    def clone(self, state: State, rows: np.ndarray) -> State:
        st = super().clone(state, rows)
        st.all_games = np.arange(len(st.g))
        self._refresh(st, st.all_games)  # the view is per step: written again for the copies
        return st

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        """Worlds where the draw pile is shuffled again (the one thing hidden, the same for
        every seat: ``seat`` changes nothing) from ``keys``, which become the worlds' streams."""
        st = self.clone(state, games)
        st.rs[:] = np.asarray(keys, np.uint64)
        _redeal(st.deck, st.g, st.rs, int(st.params[P_CARDS]))
        return st

    # -- positions (for rulebook examples and tests)
    def stack(self, state: State, b: int, top: list[int], nests: dict[int, list[int]] | None = None,
              totals: list[int] | None = None, cur: int = 0, rounds_done: int = 0,
              discard: list[int] | None = None) -> None:
        """Set game ``b`` to the start of ``cur``'s turn with the draw pile beginning with ``top``
        (the other cards follow in id order), the given nest contents, discard pile and totals,
        then reveal the first card. Every card stays in exactly one zone; a nest never holds a
        Bruce (it goes to the discard pile with the row)."""
        nests = nests or {}
        discard = list(discard or [])
        st, ncards = state, int(state.params[P_CARDS])
        used = [c for cs in nests.values() for c in cs]
        if any(st.card_suit[c] < 0 for c in used):
            raise ValueError("a Bruce card cannot be in a nest: put it in the discard pile")
        used_all = used + discard
        if len(set(top) | set(used_all)) != len(top) + len(used_all):
            raise ValueError("a card is placed twice")
        used = used_all
        rest = [c for c in range(ncards) if c not in set(top) | set(used)]
        pile = list(top) + rest
        st.deck[b, :] = 0
        st.deck[b, ncards - len(pile):] = pile   # the pile is deck[POS:]
        st.g[b, :] = 0
        st.g[b, POS] = ncards - len(pile)
        st.g[b, CUR] = cur
        st.g[b, STARTER] = cur
        st.g[b, ROUND] = rounds_done
        st.g[b, PHASE] = CHOOSE
        st.row_at[b, :] = -1
        st.best[b] = 0
        st.seen[b] = 0
        st.pp[b] = 0
        for p, cards in nests.items():
            for c in cards:
                _nest_add(b, p, c, st.pp, st.nest, st.best, st.card_suit, st.card_value)
                # cards in nests were revealed this round
                s = st.card_suit[c]
                st.seen[b, s if s >= 0 else st.rules.suits] += 1
        for c in discard:  # revealed this round, then lost
            s = st.card_suit[c]
            st.seen[b, s if s >= 0 else st.rules.suits] += 1
        st.g[b, DISCARD] = len(discard)
        for p, t in enumerate(totals or []):
            st.pp[b, p, TOTAL] = t
        st.drama[b] = drama.drama_new(1, st.n_players)[0]
        _reveal(b, st.g, st.pp, st.deck, st.rs, st.row, st.row_at, st.nest, st.best, st.seen, st.ev,
                st.card_suit, st.card_value, st.params, st.drama)
        self._refresh(st, np.array([b]), fresh=False)

    def card(self, rules: Rules, suit: int, slot: int) -> int:
        """Card id of a suit's ``slot``-th card (slots follow suit_values: 0, 1 are the 1s...)."""
        return suit * len(rules.suit_values) + slot

    def bruce(self, rules: Rules, i: int = 0) -> int:
        return rules.suits * len(rules.suit_values) + i

    def zones(self, state: State, b: int) -> dict[str, list[int]]:
        """The cards of game b by zone (the discard pile is every revealed card not elsewhere)."""
        ncards = int(state.params[P_CARDS])
        z = {"pile": state.deck[b, state.g[b, POS]:ncards].tolist(),
             "row": state.row[b, :state.g[b, ROW_LEN]].tolist()}
        for p in range(state.n_players):
            z[f"nest{p}"] = state.nest[b, p, :state.pp[b, p, NEST_LEN]].tolist()
        return z

    # -- words
    def card_name(self, rules: Rules, card: int) -> str:
        nv = len(rules.suit_values)
        if card >= rules.suits * nv:
            return "Bruce"
        s = card // nv
        suit = SUIT_NAMES[s] if s < len(SUIT_NAMES) else f"suit-{s + 1}"
        return f"{suit} {rules.suit_values[card % nv]}"

    def describe(self, state: State, i: int) -> str:
        r = state.rules
        lines = []
        n = int(state.g[i, NEV])
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        for t, seat, a, b_, c, d in state.ev[i, :n]:
            who = f"P{seat}"
            if t == E_ROUND:
                lines.append(f"-- Round {a}: P{seat} starts --")
            elif t == E_REVEAL:
                lines.append(f"{who} turns over {self.card_name(r, int(a))}"
                             + (f" (row had {b_})" if b_ else ""))
            elif t == E_BANK:
                lines.append(f"{who} banks {a} card(s) into the nest"
                             + (" (the last card finishes the turn)" if b_ else ""))
            elif t == E_DOUBLE:
                lines.append(f"{who}: double duck! loses {b_} card(s), keeps {c}")
            elif t == E_BRUCE:
                lines.append(f"{who}: Bruce! the row ({a} card(s)) is discarded")
            elif t == E_STEAL:
                res = (f"takes {d} card(s)" if d > 0 else
                       f"gives {-d} card(s) back" if d < 0 else "gets nothing")
                lines.append(f"{who} declares {b_} against P{a}, rolls {c}: {res}")
            elif t == E_TAKE:
                lines.append(f"   P{seat} takes {self.card_name(r, int(a))} from P{b_}'s nest")
            elif t == E_PASS:
                lines.append(f"{who} passes on the Bruce")
            elif t == E_SCORE:
                lines.append(f"   P{seat} scores {a} ({c} cards), total {b_}")
            elif t == E_GAME_END:
                lines.append(f"== Game over after {a} round(s) ==")
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        return "\n".join(lines)


GAME = DuckDuckBruce()

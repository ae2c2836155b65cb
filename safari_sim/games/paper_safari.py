"""Paper Safari (Mandoo Games), 2-5 players.

The module follows the rulebook (../shared/rules/paper-safari.txt) section by section:
Components, Game Setup, Turn of Play, Special Cards (Tarzan, Elephant, Safari), End of Round and
Scoring, Game End. Every reading of a gap in the printed text is in docs/rules/paper_safari.md.

Cards are small integers ("types"): type ``t < V`` is the animal worth ``animal_values[t]``,
type ``V`` the Elephant (worth ``elephant_value``), ``V + 1`` Tarzan and ``V + 2`` the Safari
card. A grid slot ``k`` is row ``k // cols``, column ``k % cols``; row 0 is the top row.

A match is played to ``wins_needed`` round victories; the score is round wins, and the round
scores are statistics. Hidden information: a face-down card is unknown to everyone, its owner
included, until it is turned up or its owner looks at it with an Elephant. Every card in the
discard pile went there face up, so its content is public; the deck's order is not.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..engine import drama
from ..engine.chance import shuffle_row
from ..engine.events import log_event
from ..engine.protocol import action_helper
from ..engine.protocol import (Game, Observation, Outcome, RulesError, ranks_and_wins, read_only,
                               rule)


# ---- Components -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    animal_values: tuple[int, ...] = rule(
        (-2, 0, 1, 2, 3, 4, 5, 6, 7, 8),
        "value of each animal other than the Elephant (assumed: the text only says '-2 to 10' "
        "for 11 animals)")
    cards_per_animal: int = rule(4, "cards of each animal (the Elephant included)",
        search=range(3, 7))
    elephant_value: int = rule(10, "value of the Elephant (the README: 10)", search=range(8, 13))
    elephant_look: bool = rule(
        True, "the Elephant's drawer may look at one of their face-down cards (false: the "
              "Elephant is a plain animal)", search=[True, False])
    tarzan_cards: int = rule(4, "number of Tarzan cards", search=range(0, 7))
    tarzan_value: int = rule(10, "value of a Tarzan card lying in a grid at the end (not printed)",
        search=range(0, 13, 2))
    safari_cards: int = rule(2, "number of Safari cards (worth a row neighbour's value at the end)",
        search=range(0, 5))
    rows: int = rule(2, "rows of each player's grid", search=range(1, 4))
    cols: int = rule(3, "columns of each player's grid", search=range(2, 5))
    initial_face_up: int = rule(
        1, "cards each player chooses to turn face up at the start of a round", search=range(0, 3))
    equal_column_zero: bool = rule(
        True, "cards of equal value in one column count 0 (two 5s in a column: 0)",
        search=[True, False])
    equal_negatives_zero: bool = rule(
        True, "the equal-column rule also zeroes equal cards of negative value (two foxes, -2 and "
              "-2, in a column: 0); false: they keep their value (-4)", search=[True, False])
    chain_face_up: bool = rule(
        True, "each card passed along a Tarzan chain lies face up in its new spot (false: it takes "
              "the face of the card it replaces, face down where that one was face down)",
              search=[True, False])
    high_card_tie_break: bool = rule(
        True, "a tie for the lowest total goes to the player with more cards of the highest "
              "value; false: all tied players win the round", search=[True, False])
    tie_break_all_cards: bool = rule(
        True, "the tie-break counts all the cards of a grid, also those of a column that scores "
              "0 (false: only the cards that score)", search=[True, False])
    wins_needed: int = rule(3, "round victories (victory cards) that win the match",
        search=range(1, 6))
    max_round_turns: int = rule(
        300, "safety stop: a round ends as if finished after this many turns (the printed rules "
             "could loop: a player may discard every card drawn)")

    def validate(self) -> None:
        v = self.animal_values
        if len(set(v)) != len(v):
            raise RulesError("animal_values", "must be a list of different values")
        if len(v) + 3 > 120:
            raise RulesError("animal_values", "at most 117 animals besides the Elephant")
        for name in ("animal_values", "elephant_value", "tarzan_value"):
            x = getattr(self, name)
            if any(abs(y) > 1000 for y in (x if isinstance(x, tuple) else (x,))):
                raise RulesError(name, "card values must be from -1000 to 1000")
        if self.cards_per_animal < 1:
            raise RulesError("cards_per_animal", "must be at least 1")
        if self.tarzan_cards < 0:
            raise RulesError("tarzan_cards", "must be 0 or more")
        if self.safari_cards < 0:
            raise RulesError("safari_cards", "must be 0 or more")
        if self.rows < 1 or self.cols < 1 or self.rows * self.cols > 16:
            raise RulesError("rows", "the grid needs 1 to 16 cards (rows x cols)")
        if not 0 <= self.initial_face_up < self.rows * self.cols:
            raise RulesError("initial_face_up", "must be from 0 to one less than the grid size")
        if self.wins_needed < 1:
            raise RulesError("wins_needed", "must be at least 1")
        if self.max_round_turns < 1:
            raise RulesError("max_round_turns", "must be at least 1")

    def n_cards(self) -> int:
        animals = (len(self.animal_values) + 1) * self.cards_per_animal
        return animals + self.tarzan_cards + self.safari_cards


# Decision kinds (obs.kind, state phase)
REVEAL = 0   # setup: choose a face-down card to turn face up
DRAW = 1     # draw from the deck or take the top of the discard pile
PEEK = 2     # an Elephant was drawn: look at one of your face-down cards, or not
PLACE = 3    # exchange the drawn card with a grid slot, or (drawn from the deck) discard it
OVER = 4

# Actions: four fixed ones, then one per grid slot (turn up / look at / exchange with slot k)
DECK, TAKE, DISCARD, NO_PEEK, SLOT0 = 0, 1, 2, 3, 4

# Per-game scalar fields: g[b, ...]
(CUR, PHASE, HELD, FROM_DECK, PEEKED, REVEAL_K, FIRST, RTURNS, TURNS, ROUND, DECK_N, DISC_N,
 NEV, TARZANS, RESHUFFLES, CAPPED, TIE_BREAKS, SHARED, CHAIN_CLOSED, DECK_PUB) = range(20)
NG = 20   # DECK_PUB: the deck was made this round from the (public) discard pile
# Per-player fields: pp[b, p, ...]
WINS, LAST, SUM, CLOSED, PEEKS, TAKEN, CLOSED_WON = range(7)
NPP = 7

# params vector layout (plain ints keep the kernel signatures short)
(P_PLAYERS, P_SLOTS, P_ROWS, P_COLS, P_CARDS, P_TARZAN, P_SAFARI, P_ELEPHANT, P_FACEUP, P_WINS,
 P_CAP, P_FLAGS) = range(12)
F_EQ_COL, F_TIE_HIGH, F_TIE_ALL, F_NEG_ZERO, F_CHAIN_UP = 1, 2, 4, 8, 16
NOT_COUNTED = -(1 << 40)  # tie-break key of a card left out of the tie-break

# Event log (for describe): ev[b, i] = (type, seat, a, b, c, d)
(E_ROUND, E_TURN_UP, E_REVEAL, E_DRAW, E_PEEK, E_NO_PEEK, E_EXCHANGE, E_DISCARD, E_TARZAN,
 E_CHAIN, E_CHAIN_END, E_RESHUFFLE, E_SCORE, E_ROUND_WIN, E_CAP, E_GAME_END) = range(1, 17)


@dataclass
class State:
    n_players: int
    rules: Rules
    # constants
    card_value: np.ndarray   # int64[T]: each card type's value in a grid (Safari 0: set at the end)
    base: np.ndarray         # int8[N]: every card of the game, by type
    params: np.ndarray       # int64[12]
    # per game
    g: np.ndarray            # int32[B, NG]
    pp: np.ndarray           # int32[B, P, NPP]
    grid: np.ndarray         # int8[B, P, S]: card types
    up: np.ndarray           # bool[B, P, S]: face up
    known: np.ndarray        # bool[B, P, S]: the owner has seen it (face up, or looked at)
    deck: np.ndarray         # int8[B, N]: first g[DECK_N] valid, the top is the last
    disc: np.ndarray         # int8[B, N]: first g[DISC_N] valid, the top is the last, bottom at 0
    ev: np.ndarray           # int32[B, L, 6]; L = 0 unless logging
    rs: np.ndarray           # uint64[B]: each game's chance stream (engine.chance)
    dr: np.ndarray           # int32[B, drama_width(P)]: the lead in round wins (engine.drama)


# ---- Game Setup -------------------------------------------------------------------------------

@njit(cache=True)
def _turn_over(b, g, deck, disc):
    """Top card of the deck onto the discard pile, face up."""
    n = g[b, DECK_N] - 1
    disc[b, g[b, DISC_N]] = deck[b, n]
    g[b, DISC_N] += 1
    g[b, DECK_N] = n


@njit(cache=True)
def _start_round(b, first, g, grid, up, known, deck, disc, base, rs, ev, params):
    """Shuffle every card, deal the grids face down, turn over the first discard, and let each
    player in turn choose the card(s) to turn face up."""
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    ncards = params[P_CARDS]
    for i in range(ncards):
        deck[b, i] = base[i]
    shuffle_row(deck[b], ncards, rs, b)
    n = ncards
    for p in range(nplayers):
        for k in range(nslots):
            n -= 1
            grid[b, p, k] = deck[b, n]
            up[b, p, k] = False
            known[b, p, k] = False
    g[b, DECK_N] = n
    g[b, DISC_N] = 0
    _turn_over(b, g, deck, disc)
    g[b, FIRST] = first
    g[b, RTURNS] = 0
    g[b, DECK_PUB] = 0
    g[b, HELD] = -1
    log_event(ev, g, NEV, b, E_ROUND, first, g[b, ROUND] + 1, 0, 0, 0)
    log_event(ev, g, NEV, b, E_TURN_UP, -1, disc[b, 0], 0, 0, 0)
    g[b, CUR] = first
    if params[P_FACEUP] > 0:
        g[b, REVEAL_K] = 0
        g[b, PHASE] = REVEAL
    else:
        _begin_turn(b, g, deck, disc, rs, ev)


# ---- Turn of Play -----------------------------------------------------------------------------

@njit(cache=True)
def _begin_turn(b, g, deck, disc, rs, ev):
    """If the deck has run out: shuffle the discard pile into a new deck and turn one card over."""
    if g[b, DECK_N] == 0:
        n = g[b, DISC_N]
        for i in range(n):
            deck[b, i] = disc[b, i]
        shuffle_row(deck[b], n, rs, b)
        g[b, DECK_N] = n
        g[b, DISC_N] = 0
        _turn_over(b, g, deck, disc)
        g[b, RESHUFFLES] += 1
        g[b, DECK_PUB] = 1
        log_event(ev, g, NEV, b, E_RESHUFFLE, g[b, CUR], n, disc[b, 0], 0, 0)
    g[b, PHASE] = DRAW


@njit(cache=True)
def _all_up(b, p, up, nslots):
    for k in range(nslots):
        if not up[b, p, k]:
            return False
    return True


@njit(cache=True)
def _place(b, p, k, card, grid, up, known):
    """Put ``card`` face up in slot k of player p; returns the card it displaces."""
    old = grid[b, p, k]
    grid[b, p, k] = card
    up[b, p, k] = True
    known[b, p, k] = True
    return old


@njit(cache=True)
def _tarzan_chain(b, p, k, g, grid, up, known, disc, ev, params):
    """Tarzan goes into slot k of its drawer; each displaced card is passed to the left and put in
    the same slot, until the drawer's right-hand neighbour's card goes under the discard pile.
    Each passed card lies face up, or (``chain_face_up`` off) keeps the face of its spot: face
    down where the replaced card was face down, known to its new owner only if it was face up
    where it came from."""
    nplayers = params[P_PLAYERS]
    chain_up = (params[P_FLAGS] & F_CHAIN_UP) != 0
    was_up = up[b, p, k]
    # _place's numbers int64 at its every call: one compile
    passed = _place(b, np.int64(p), np.int64(k), np.int64(params[P_TARZAN]), grid, up, known)
    log_event(ev, g, NEV, b, E_TARZAN, p, k, passed, 0, 0)
    for j in range(1, nplayers):
        q = (p + j) % nplayers
        got = passed
        if chain_up:
            passed = _place(b, np.int64(q), np.int64(k), np.int64(got), grid, up, known)
        else:
            passed = grid[b, q, k]
            grid[b, q, k] = got
            spot_up = up[b, q, k]
            known[b, q, k] = spot_up or was_up
            was_up = spot_up
        log_event(ev, g, NEV, b, E_CHAIN, q, k, got, passed, 0)
    n = g[b, DISC_N]
    for i in range(n, 0, -1):
        disc[b, i] = disc[b, i - 1]
    disc[b, 0] = passed
    g[b, DISC_N] = n + 1
    log_event(ev, g, NEV, b, E_CHAIN_END, (p + nplayers - 1) % nplayers, passed, 0, 0, 0)
    g[b, TARZANS] += 1


# ---- Safari / End of Round and Scoring --------------------------------------------------------

@njit(cache=True)
def _field_score(cards, rows, cols, card_value, safari, eq_col, tie_all, vals):
    """Score of one grid (card types ``cards[S]``); ``vals[S]`` receives each card's counted value.

    Each Safari copies its left or right neighbour in the row, whichever gives its owner the
    lowest total (then the best standing in the high-card tie-break, see ``_tie_key``); a Safari
    copying a Safari takes that one's value, and two Safaris may not copy each other while a
    real card can be reached; a Safari with no neighbour, or only a circle of Safaris, counts 0.
    """
    nslots = rows * cols
    pos = np.empty(nslots, np.int64)
    ns = 0
    for i in range(nslots):
        vals[i] = card_value[cards[i]]
        if cards[i] == safari:
            pos[ns] = i
            ns += 1
    best = _columns(vals, rows, cols, eq_col)
    if ns == 0:
        return best
    trial = np.empty(nslots, np.int64)
    key = np.empty(nslots, np.int64)
    best_key = np.empty(nslots, np.int64)
    ptr = np.full(nslots, -1, np.int64)  # slot a Safari copies, by slot
    chosen = vals.copy()
    best = 1 << 30
    best_circle = True
    for m in range(1 << ns):
        ok = True
        for j in range(ns):
            i = pos[j]
            c = i % cols
            left = c > 0
            right = c < cols - 1
            if (m >> j) & 1:
                ok = ok and left and right   # bit 1 = the right neighbour when both exist
                ptr[i] = i + 1
            else:
                ptr[i] = i - 1 if left else (i + 1 if right else -1)
        if not ok:
            continue
        for i in range(nslots):
            trial[i] = vals[i]
        circle = False
        for j in range(ns):
            t = ptr[pos[j]]
            steps = 0
            while t >= 0 and cards[t] == safari and steps <= ns:
                t = ptr[t]
                steps += 1
            v = 0
            if t >= 0 and cards[t] != safari:
                v = card_value[cards[t]]
            elif t >= 0:
                circle = True
            trial[pos[j]] = v
        s = _columns(trial, rows, cols, eq_col)
        _tie_key(trial, rows, cols, eq_col, tie_all, key)
        if (best_circle and not circle) or (circle == best_circle and (
                s < best or (s == best and _beats(key, best_key)))):
            best = s
            best_circle = circle
            for i in range(nslots):
                chosen[i] = trial[i]
                best_key[i] = key[i]
    for i in range(nslots):
        vals[i] = chosen[i]
    return best


@njit(cache=True)
def _eq_mode(flags):
    """The equal-column rule as one number: 0 off, 1 for cards of value 0 or more, 2 for all."""
    if (flags & F_EQ_COL) == 0:
        return 0
    return 2 if (flags & F_NEG_ZERO) != 0 else 1


@njit(cache=True)
def _zeroes(v, eq_col):
    """Whether two equal cards of value v in one column count 0 (``eq_col``: see ``_eq_mode``)."""
    return eq_col == 2 or (eq_col == 1 and v >= 0)


@njit(cache=True)
def _columns(vals, rows, cols, eq_col):
    """Sum of the grid; with the equal-column rule, cards equal to another card of their column
    count 0 (``eq_col``: see ``_eq_mode``)."""
    total = 0
    for c in range(cols):
        for r in range(rows):
            v = vals[r * cols + c]
            if _zeroes(v, eq_col):
                same = False
                for r2 in range(rows):
                    if r2 != r and vals[r2 * cols + c] == v:
                        same = True
                if same:
                    continue
            total += v
    return total


@njit(cache=True)
def _tie_key(vals, rows, cols, eq_col, all_cards, key):
    """The cards a grid brings to the high-card tie-break: every card's counted value, or (not
    ``all_cards``) only those that score, a card of an equal column being left out."""
    for k in range(rows * cols):
        key[k] = vals[k]
        if _zeroes(vals[k], eq_col) and not all_cards:
            c = k % cols
            for r2 in range(rows):
                k2 = r2 * cols + c
                if k2 != k and vals[k2] == vals[k]:
                    key[k] = NOT_COUNTED


@njit(cache=True)
def _beats(a, bb):
    """True if the tie-break keys ``a`` (see ``_tie_key``) have more cards of the highest value
    than ``bb`` (the printed tie-break, applied value by value downwards): compare the sorted
    lists from the top."""
    x = np.sort(a)[::-1]
    y = np.sort(bb)[::-1]
    for i in range(x.shape[0]):
        if x[i] != y[i]:
            return x[i] > y[i]
    return False


@njit(cache=True)
def _pack(cards, start):
    """Cards start..start+3 of a grid as one int (type + 1 per byte, 0 = no slot), for the log."""
    x = 0
    for j in range(4):
        if start + j < cards.shape[0]:
            x |= (np.int64(cards[start + j]) + 1) << (8 * j)
    return x


@njit(cache=True)
def _end_round(b, closer, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev, params,
               dr):
    """Everyone turns their cards up and scores; the lowest total wins a victory card (ties: more
    cards of the highest value). The match ends at wins_needed, else the winner starts anew."""
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    rows = params[P_ROWS]
    cols = params[P_COLS]
    eq = _eq_mode(params[P_FLAGS])
    tie_all = (params[P_FLAGS] & F_TIE_ALL) != 0
    vals = np.empty((nplayers, nslots), np.int64)
    keys = np.empty((nplayers, nslots), np.int64)
    score = np.empty(nplayers, np.int64)
    low = 1 << 30
    for p in range(nplayers):
        score[p] = _field_score(grid[b, p], rows, cols, card_value, params[P_SAFARI], eq, tie_all,
                                vals[p])
        _tie_key(vals[p], rows, cols, eq, tie_all, keys[p])
        for k in range(nslots):
            up[b, p, k] = True
            known[b, p, k] = True
        pp[b, p, LAST] = score[p]
        pp[b, p, SUM] += score[p]
        if score[p] < low:
            low = score[p]
        # int64 starts: one compile of _pack, not one per constant
        log_event(ev, g, NEV, b, E_SCORE, p, score[p], _pack(grid[b, p], np.int64(0)),
                  _pack(grid[b, p], np.int64(4)), _pack(grid[b, p], np.int64(8)))
    if closer >= 0:
        pp[b, closer, CLOSED] += 1
    # the tied lowest players, in turn order from this round's first player
    win = np.zeros(nplayers, np.bool_)
    nwin = 0
    for j in range(nplayers):
        p = (g[b, FIRST] + j) % nplayers
        if score[p] == low:
            win[p] = True
            nwin += 1
    if nwin > 1 and (params[P_FLAGS] & F_TIE_HIGH):
        g[b, TIE_BREAKS] += 1
        for p in range(nplayers):
            if win[p]:
                for q in range(nplayers):
                    if q != p and win[q] and _beats(keys[q], keys[p]):
                        win[p] = False
                        break
        nwin = 0
        for p in range(nplayers):
            if win[p]:
                nwin += 1
    if nwin > 1:
        g[b, SHARED] += 1
    if closer >= 0 and win[closer]:
        pp[b, closer, CLOSED_WON] += 1
    g[b, ROUND] += 1
    starter = -1
    over = False
    for j in range(nplayers):
        p = (g[b, FIRST] + j) % nplayers
        if win[p]:
            pp[b, p, WINS] += 1
            log_event(ev, g, NEV, b, E_ROUND_WIN, p, score[p], pp[b, p, WINS], nwin, 0)
            if starter < 0:
                starter = p
            if pp[b, p, WINS] >= params[P_WINS]:
                over = True
    # Drama: who is ahead in the match is who holds the most victory cards
    drama.drama_update(dr, b, pp[b, :, WINS], False)
    if over:
        g[b, PHASE] = OVER
        g[b, CUR] = -1
        log_event(ev, g, NEV, b, E_GAME_END, -1, g[b, ROUND], 0, 0, 0)
        return
    # int64 (numba types starter as the literal -1 here): one compile of _start_round
    _start_round(b, np.int64(starter), g, grid, up, known, deck, disc, base, rs, ev, params)


@njit(cache=True)
def _running(g, pp, grid, card_value, params, out):
    """The running score (``PaperSafari.running_score``): every seat's victory cards, plus, in a
    round being played, the one this round would give if it were scored now (every grid turned
    up and counted as ``_end_round`` counts it: the lowest total, then the high-card tie-break;
    players still tied each get one)."""
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    rows, cols = params[P_ROWS], params[P_COLS]
    eq = _eq_mode(params[P_FLAGS])
    tie_all = (params[P_FLAGS] & F_TIE_ALL) != 0
    vals = np.empty((nplayers, nslots), np.int64)
    keys = np.empty((nplayers, nslots), np.int64)
    score = np.empty(nplayers, np.int64)
    for b in range(g.shape[0]):
        for p in range(nplayers):
            out[b, p] = pp[b, p, WINS]
        if g[b, PHASE] == OVER:
            continue
        for p in range(nplayers):
            score[p] = _field_score(grid[b, p], rows, cols, card_value, params[P_SAFARI], eq,
                                    tie_all, vals[p])
            _tie_key(vals[p], rows, cols, eq, tie_all, keys[p])
        low = score.min()
        for p in range(nplayers):
            if score[p] != low:
                continue
            beaten = False
            if params[P_FLAGS] & F_TIE_HIGH:
                for q in range(nplayers):
                    if q != p and score[q] == low and _beats(keys[q], keys[p]):
                        beaten = True
            if not beaten:
                out[b, p] += 1


@njit(cache=True)
def _end_turn(b, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev, params, dr):
    """The round ends as soon as someone has every card face up (the mover first: a Tarzan
    chain can complete another grid too)."""
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    g[b, RTURNS] += 1
    g[b, TURNS] += 1
    p = g[b, CUR]
    closer = -1
    for j in range(nplayers):
        q = (p + j) % nplayers
        if _all_up(b, q, up, nslots):
            closer = q
            break
    if closer < 0 and g[b, RTURNS] >= params[P_CAP]:
        g[b, CAPPED] += 1
        log_event(ev, g, NEV, b, E_CAP, -1, g[b, RTURNS], 0, 0, 0)
        # int64, not Literal[int](-1): one specialization of _end_round (and _start_round)
        _end_round(b, np.int64(-1), g, pp, grid, up, known, deck, disc, base, card_value, rs, ev,
                   params, dr)
    elif closer >= 0:
        if closer != p:   # only a Tarzan chain turns up another player's cards
            g[b, CHAIN_CLOSED] += 1
        _end_round(b, closer, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev,
                   params, dr)
    else:
        g[b, CUR] = (p + 1) % nplayers
        _begin_turn(b, g, deck, disc, rs, ev)


@njit(cache=True)
def _init(g, pp, grid, up, known, deck, disc, base, rs, ev, params):
    for b in range(g.shape[0]):
        _start_round(b, np.int64(0), g, grid, up, known, deck, disc, base, rs, ev, params)


@njit(cache=True, inline="always")
def apply_action(b, a, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev, params, dr):
    """Action ``a`` of the player to move in game b (not over). The one copy of the rules of a
    decision: the batch ``_step`` and the compiled heuristics' whole-game kernel
    (strategies/_paper_safari_compiled.py) both call it."""
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    phase = g[b, PHASE]
    p = g[b, CUR]
    if phase == REVEAL:
        # Setup: each player in turn chooses a card of their own and turns it face up
        k = a - SLOT0
        up[b, p, k] = True
        known[b, p, k] = True
        log_event(ev, g, NEV, b, E_REVEAL, p, k, grid[b, p, k], 0, 0)
        g[b, REVEAL_K] += 1
        rk = g[b, REVEAL_K]
        if rk >= nplayers * params[P_FACEUP]:
            g[b, CUR] = g[b, FIRST]
            _begin_turn(b, g, deck, disc, rs, ev)
        else:
            g[b, CUR] = (g[b, FIRST] + rk // params[P_FACEUP]) % nplayers
    elif phase == DRAW:
        if a == DECK:
            n = g[b, DECK_N] - 1
            card = deck[b, n]
            g[b, DECK_N] = n
            g[b, FROM_DECK] = 1
        else:
            n = g[b, DISC_N] - 1
            card = disc[b, n]
            g[b, DISC_N] = n
            g[b, FROM_DECK] = 0
            pp[b, p, TAKEN] += 1
        g[b, HELD] = card
        g[b, PEEKED] = 0
        log_event(ev, g, NEV, b, E_DRAW, p, card, g[b, FROM_DECK], 0, 0)
        # Elephant: its drawer may look at a face-down card of their own (if any is left)
        if card == params[P_ELEPHANT] and not _all_up(b, np.int64(p), up, nslots):
            g[b, PHASE] = PEEK
        else:
            g[b, PHASE] = PLACE
    elif phase == PEEK:
        if a == NO_PEEK:
            log_event(ev, g, NEV, b, E_NO_PEEK, p, 0, 0, 0, 0)
        else:
            k = a - SLOT0
            known[b, p, k] = True
            g[b, PEEKED] = 1
            pp[b, p, PEEKS] += 1
            log_event(ev, g, NEV, b, E_PEEK, p, k, grid[b, p, k], 0, 0)
        g[b, PHASE] = PLACE
    else:  # PLACE
        card = g[b, HELD]
        g[b, HELD] = -1
        if a == DISCARD:
            disc[b, g[b, DISC_N]] = card
            g[b, DISC_N] += 1
            log_event(ev, g, NEV, b, E_DISCARD, p, card, 0, 0, 0)
        elif card == params[P_TARZAN]:
            _tarzan_chain(b, p, a - SLOT0, g, grid, up, known, disc, ev, params)
        else:
            k = a - SLOT0
            old = _place(b, np.int64(p), np.int64(k), np.int64(card), grid, up, known)
            disc[b, g[b, DISC_N]] = old
            g[b, DISC_N] += 1
            log_event(ev, g, NEV, b, E_EXCHANGE, p, k, card, old, 0)
        _end_turn(b, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev, params, dr)


@njit(cache=True)
def _step(actions, g, pp, grid, up, known, deck, disc, base, card_value, rs, ev, params, dr):
    for b in range(g.shape[0]):
        if g[b, PHASE] != OVER:
            apply_action(b, actions[b], g, pp, grid, up, known, deck, disc, base, card_value, rs,
                         ev, params, dr)


@njit(cache=True, inline="always")
def write_legal(b, g, up, params, out):
    """The legal actions of game b's player to move into ``out`` (bool[n_actions]; all False
    once the game is over)."""
    nslots = params[P_SLOTS]
    for i in range(out.shape[0]):
        out[i] = False
    ph = g[b, PHASE]
    p = g[b, CUR]
    if ph == REVEAL or ph == PEEK:
        for k in range(nslots):
            out[SLOT0 + k] = not up[b, p, k]
        if ph == PEEK:
            out[NO_PEEK] = True
    elif ph == DRAW:
        out[DECK] = g[b, DECK_N] > 0
        out[TAKE] = g[b, DISC_N] > 0
    elif ph == PLACE:
        for k in range(nslots):
            out[SLOT0 + k] = True
        # only a card from the deck may be thrown away: not Tarzan, not after an Elephant look
        out[DISCARD] = (g[b, FROM_DECK] == 1 and g[b, HELD] != params[P_TARZAN]
                        and g[b, PEEKED] == 0)


@njit(cache=True)
def _legal(g, up, params, nactions):
    nb = g.shape[0]
    out = np.zeros((nb, nactions), dtype=np.bool_)
    for b in range(nb):
        write_legal(b, g, up, params, out[b])
    return out


@njit(cache=True, inline="always")
def seen_total(seen, card_value, rows, cols, eq):
    """What the seen cards of one grid (types by slot, -1 unseen) add up to, equal seen cards of
    a column counting 0 (``eq``: see ``_eq_mode``): the observation's ``seen_sum``, also read by
    the compiled heuristics."""
    total = 0
    for k in range(rows * cols):
        c = seen[k]
        if c < 0:
            continue
        v = card_value[c]
        same = False
        if _zeroes(v, eq):
            for r2 in range(rows):
                k2 = r2 * cols + k % cols
                if k2 != k and seen[k2] >= 0 and card_value[seen[k2]] == v:
                    same = True
        if not same:
            total += v
    return total


@njit(cache=True)
def _observe(games, g, pp, grid, up, known, disc, type_count, card_value, params):
    """The mover's view, with per-player arrays rotated so index 0 is the mover and index o the
    player o seats to the left. Unseen cards are -1."""
    n = games.shape[0]
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    ntypes = type_count.shape[0]
    seat = np.empty(n, np.int8)
    kind = np.empty(n, np.int8)
    seen = np.full((n, nplayers, nslots), -1, np.int8)
    face_up = np.empty((n, nplayers, nslots), np.bool_)
    held = np.empty(n, np.int8)
    from_deck = np.empty(n, np.bool_)
    top = np.empty(n, np.int8)
    deck_n = np.empty(n, np.int16)
    disc_n = np.empty(n, np.int16)
    unseen = np.empty((n, ntypes), np.int16)
    wins = np.empty((n, nplayers), np.int16)
    rturns = np.empty(n, np.int16)
    seen_sum = np.zeros((n, nplayers), np.int16)
    hidden = np.zeros((n, nplayers), np.int8)
    rows = params[P_ROWS]
    cols = params[P_COLS]
    eq = _eq_mode(params[P_FLAGS])
    for i in range(n):
        b = games[i]
        p = g[b, CUR]
        seat[i] = p
        kind[i] = g[b, PHASE]
        h = g[b, HELD]
        held[i] = h
        from_deck[i] = g[b, FROM_DECK] == 1
        rturns[i] = g[b, RTURNS]
        dn = g[b, DISC_N]
        top[i] = disc[b, dn - 1] if dn > 0 else -1
        deck_n[i] = g[b, DECK_N]
        disc_n[i] = dn
        for t in range(ntypes):
            unseen[i, t] = type_count[t]
        if h >= 0:
            unseen[i, h] -= 1
        for j in range(dn):
            unseen[i, disc[b, j]] -= 1
        for o in range(nplayers):
            q = (p + o) % nplayers
            wins[i, o] = pp[b, q, WINS]
            for k in range(nslots):
                u = up[b, q, k]
                face_up[i, o, k] = u
                if u or (o == 0 and known[b, q, k]):
                    c = grid[b, q, k]
                    seen[i, o, k] = c
                    unseen[i, c] -= 1
                else:
                    hidden[i, o] += 1
            seen_sum[i, o] = seen_total(seen[i, o], card_value, rows, cols, eq)
    return (seat, kind, seen, face_up, held, from_deck, top, deck_n, disc_n, unseen, wins, rturns,
            seen_sum, hidden)


# ---- Worlds for search (docs/rules/paper_safari.md, "Worlds for search") ---------------------

@njit(cache=True)
def _deal_again(cards, n, rs, b):
    """Sort the n hidden ``cards`` (the multiset the seat cannot tell apart, so the world does not
    depend on where they really were) and shuffle them from stream b, in place."""
    cards[:n].sort()
    shuffle_row(cards, n, rs, b)


@njit(cache=True)
def _redeal(seat, g, grid, up, known, deck, rs, params):
    """Row i (a copy of a real game): everything ``seat[i]`` cannot see is dealt again from the
    row's own stream. Kept: every face-up card, the seat's own face-down cards it has looked at
    (or was passed face up), the discard pile (every card in it went there face up), the held
    card when the seat holds it or took it from the discard pile. Dealt again: every other
    face-down card and the deck as one multiset, except after a reshuffle this round, when the
    deck is the (public) discard pile that was shuffled and is dealt again only among itself.
    Other players know only their face-up cards in a world (their looks are not in the seat's
    observation)."""
    nplayers = params[P_PLAYERS]
    nslots = params[P_SLOTS]
    ncards = deck.shape[1]
    cards = np.empty(ncards + 1, np.int8)
    where = np.empty(ncards + 1, np.int64)   # >= 0: grid place q * S + k; -1 held; -2 - i: deck i
    for i in range(g.shape[0]):
        if g[i, PHASE] == OVER:
            continue
        s = seat[i]
        pub = g[i, DECK_PUB] == 1
        held_hidden = g[i, HELD] >= 0 and g[i, CUR] != s and g[i, FROM_DECK] == 1
        for q in range(nplayers):
            if q != s:
                for k in range(nslots):
                    known[i, q, k] = up[i, q, k]
        for pool in range(2 if pub else 1):
            n = 0
            if pool == 0:
                for q in range(nplayers):
                    for k in range(nslots):
                        if not up[i, q, k] and not (q == s and known[i, q, k]):
                            cards[n] = grid[i, q, k]
                            where[n] = q * nslots + k
                            n += 1
            if pool == 1 or not pub:
                if held_hidden:
                    cards[n] = g[i, HELD]
                    where[n] = -1
                    n += 1
                for j in range(g[i, DECK_N]):
                    cards[n] = deck[i, j]
                    where[n] = -2 - j
                    n += 1
            _deal_again(cards, n, rs, i)
            for j in range(n):
                w = where[j]
                if w >= 0:
                    grid[i, w // nslots, w % nslots] = cards[j]
                elif w == -1:
                    g[i, HELD] = cards[j]
                else:
                    deck[i, -2 - w] = cards[j]


@dataclass
class Obs(Observation):
    """What the player to move knows. Per-player arrays are rotated: index 0 is this player,
    index o the player o seats to the left. Cards are types (see the module docstring); -1 is a
    card this player has not seen."""

    shared = ("card_value",)

    game: np.ndarray         # int[n] batch index (for strategies that keep memory)
    seat: np.ndarray         # int8[n] this player's seat (0 = the match's first player)
    kind: np.ndarray         # int8[n] REVEAL, DRAW, PEEK or PLACE
    grid: np.ndarray         # int8[n, P, S] the cards as this player knows them (-1 unseen)
    up: np.ndarray           # bool[n, P, S] face up
    held: np.ndarray         # int8[n] the card drawn this turn (-1 before drawing)
    from_deck: np.ndarray    # bool[n] the held card came from the deck
    discard_top: np.ndarray  # int8[n] top of the discard pile (-1 if empty)
    deck_count: np.ndarray   # int16[n]
    discard_count: np.ndarray  # int16[n]
    unseen: np.ndarray       # int16[n, T] cards of each type this player cannot locate
    wins: np.ndarray         # int16[n, P] victory cards
    round_turns: np.ndarray  # int16[n] turns played this round
    seen_sum: np.ndarray     # int16[n, P] what the cards this player sees in each grid add up to
                             # (equal seen cards of a column count 0, a Safari 0)
    hidden: np.ndarray       # int8[n, P] cards of each grid this player has not seen
    card_value: np.ndarray   # int64[T] value of each type in a grid (Safari: 0, see `safari`)
    rows: int
    cols: int
    tarzan: int              # type of Tarzan
    safari: int              # type of Safari
    elephant: int            # type of the Elephant if its look is on, else -1
    wins_needed: int
    pair_zero_min: float     # equal cards of a column count 0 when worth at least this
                             # (-inf: all; 0: not the negative ones; inf: the rule is off)

    # the actions by meaning
    @action_helper
    def deck_action(self) -> int:
        """Action (DRAW): draw from the deck."""
        return DECK

    @action_helper
    def take_action(self) -> int:
        """Action (DRAW): take the top of the discard pile."""
        return TAKE

    @action_helper
    def discard_action(self) -> int:
        """Action (PLACE, drawn from the deck): discard the drawn card."""
        return DISCARD

    @action_helper
    def no_peek_action(self) -> int:
        """Action (PEEK): do not look."""
        return NO_PEEK

    @action_helper
    def slot_action(self, row, col) -> np.ndarray:
        """Action (REVEAL, PEEK, PLACE): the grid slot at ``row``, ``col`` (from 1): turn it up,
        look at it, or exchange the drawn card with it."""
        return SLOT0 + (np.asarray(row, np.int64) - 1) * self.cols + np.asarray(col, np.int64) - 1


class PaperSafari(Game):
    id = "paper_safari"
    measures = ("rounds", "runner_up_cards", "rounds_closed_won")
    seat_measures = ("rounds_closed_won",)
    name = "Paper Safari"
    min_players = 2
    max_players = 5
    Rules = Rules
    score_name = "round wins"
    decision_kinds = ("turn a card face up (setup)", "draw from the deck or the discard pile",
                      "Elephant: look at a face-down card or not",
                      "exchange the drawn card with a slot, or discard it")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return SLOT0 + rules.rows * rules.cols

    def slot_name(self, rules: Rules, k: int) -> str:
        return f"row {k // rules.cols + 1} column {k % rules.cols + 1}"

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        if action == DECK:
            return "draw from the deck"
        if action == TAKE:
            return "take the top of the discard pile"
        if action == DISCARD:
            return "discard the drawn card"
        if action == NO_PEEK:
            return "do not look"
        return f"slot {self.slot_name(rules, action - SLOT0)}"

    def card_name(self, rules: Rules, t: int) -> str:
        nv = len(rules.animal_values)
        if t == nv:
            return f"Elephant ({rules.elephant_value})"
        if t == nv + 1:
            return "Tarzan"
        if t == nv + 2:
            return "Safari"
        return str(rules.animal_values[t])

    def card_values(self, rules: Rules) -> np.ndarray:
        """int16[T]: value of each card type in a grid (Safari 0: it copies a neighbour)."""
        return np.array(list(rules.animal_values) + [rules.elephant_value, rules.tarzan_value, 0],
                        np.int16)

    def field_score(self, rules: Rules, cards) -> int:
        """Score of one grid given as card types in slot order (for tests and tools)."""
        cards = np.asarray(cards, np.int8)
        vals = np.empty(len(cards), np.int64)
        values = self.card_values(rules).astype(np.int64)
        return int(_field_score(cards, rules.rows, rules.cols, values,
                                len(rules.animal_values) + 2, self.eq_mode(rules),
                                rules.tie_break_all_cards, vals))

    def eq_mode(self, rules: Rules) -> int:
        return (0 if not rules.equal_column_zero else 2 if rules.equal_negatives_zero else 1)

    def type_of(self, rules: Rules, name) -> int:
        """Card type from an animal's value or 'elephant' / 'tarzan' / 'safari' (a value that no
        other animal has names the Elephant; for tests and tools)."""
        nv = len(rules.animal_values)
        if name == "elephant" or (name not in rules.animal_values and name == rules.elephant_value):
            return nv
        if name == "tarzan":
            return nv + 1
        if name == "safari":
            return nv + 2
        return rules.animal_values.index(name)

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        spare = rules.n_cards() - n_players * rules.rows * rules.cols
        if spare < 2:
            raise RulesError("cards_per_animal", f"{rules.n_cards()} cards cannot deal "
                             f"{rules.rows}x{rules.cols} grids to {n_players} players and "
                             "keep a deck and a discard pile")

    # -- positions (for tests and tools)
    def arrange(self, state: State, b: int, grids, up=None, deck_top=(), discard=(), cur: int = 0,
                phase: int = DRAW, held: int = -1, from_deck: bool = True, first: int = 0) -> None:
        """Put game b in a chosen position: ``grids[p]`` are card types in slot order, ``up[p]``
        face-up flags (default: none), ``deck_top`` the top cards of the deck (first = top) with
        every other card underneath, ``discard`` the discard pile (last = top), ``held`` the card
        in hand at PEEK or PLACE. Known = face up."""
        g = state.g
        nplayers = state.n_players
        rest = list(state.base)
        used = [c for grid in grids for c in grid] + list(deck_top) + list(discard)
        used += [held] if held >= 0 else []
        for c in used:
            rest.remove(c)  # raises if the position has more of a card than the game
        deck = rest + list(deck_top)[::-1]
        state.deck[b, :len(deck)] = deck
        g[b, DECK_N] = len(deck)
        state.disc[b, :len(discard)] = discard
        g[b, DISC_N] = len(discard)
        for p in range(nplayers):
            state.grid[b, p] = grids[p]
            state.up[b, p] = False if up is None else up[p]
        state.known[b] = state.up[b]
        g[b, CUR], g[b, PHASE], g[b, HELD] = cur, phase, held
        g[b, FROM_DECK], g[b, PEEKED] = int(from_deck), 0
        g[b, FIRST], g[b, RTURNS] = first, 0
        g[b, DECK_PUB] = 0

    def zones(self, state: State, b: int) -> dict[str, list[int]]:
        """Every card of game b by zone (to check that cards are conserved)."""
        z = {f"grid{p}": list(state.grid[b, p]) for p in range(state.n_players)}
        z["deck"] = list(state.deck[b, :state.g[b, DECK_N]])
        z["discard"] = list(state.disc[b, :state.g[b, DISC_N]])
        z["hand"] = [int(state.g[b, HELD])] if state.g[b, HELD] >= 0 else []
        return z

    # -- setup
    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        batch = len(keys)
        nv = len(rules.animal_values)   # type nv: the Elephant
        base = np.concatenate([np.repeat(np.arange(nv + 1), rules.cards_per_animal),
                               np.full(rules.tarzan_cards, nv + 1),
                               np.full(rules.safari_cards, nv + 2)
                               ]).astype(np.int8)
        ncards = len(base)
        nslots = rules.rows * rules.cols
        elephant = nv if rules.elephant_look else -1
        flags = ((F_EQ_COL if rules.equal_column_zero else 0)
                 | (F_NEG_ZERO if rules.equal_negatives_zero else 0)
                 | (F_CHAIN_UP if rules.chain_face_up else 0)
                 | (F_TIE_HIGH if rules.high_card_tie_break else 0)
                 | (F_TIE_ALL if rules.tie_break_all_cards else 0))
        params = np.array([n_players, nslots, rules.rows, rules.cols, ncards, nv + 1, nv + 2,
                           elephant, rules.initial_face_up, rules.wins_needed,
                           rules.max_round_turns, flags], np.int64)
        st = State(
            n_players=n_players, rules=rules, card_value=self.card_values(rules).astype(np.int64),
            base=base, params=params,
            g=np.zeros((batch, NG), np.int32), pp=np.zeros((batch, n_players, NPP), np.int32),
            grid=np.zeros((batch, n_players, nslots), np.int8),
            up=np.zeros((batch, n_players, nslots), np.bool_),
            known=np.zeros((batch, n_players, nslots), np.bool_),
            deck=np.zeros((batch, ncards), np.int8), disc=np.zeros((batch, ncards), np.int8),
            ev=np.zeros((batch, 20000 if log else 0, 6), np.int32),
            rs=np.array(keys, dtype=np.uint64), dr=drama.drama_new(batch, n_players),
        )
        _init(st.g, st.pp, st.grid, st.up, st.known, st.deck, st.disc, st.base, st.rs, st.ev,
              st.params)
        return st

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        return np.where(state.g[:, PHASE] == OVER, -1, state.g[:, CUR])

    def legal(self, state: State) -> np.ndarray:
        return _legal(state.g, state.up, state.params, self.n_actions(state.rules, state.n_players))

    def observe(self, state: State, games: np.ndarray) -> Obs:
        games = np.array(games, dtype=np.int64)   # the observation's own copy
        r = state.rules
        nt = len(state.card_value)
        type_count = np.bincount(state.base, minlength=nt).astype(np.int16)
        arrays = _observe(games, state.g, state.pp, state.grid, state.up, state.known, state.disc,
                          type_count, state.card_value, state.params)
        card_value = read_only(state.card_value.copy())   # this observation's own copy
        return Obs(games, *arrays, card_value=card_value, rows=r.rows, cols=r.cols,
                   tarzan=nt - 2, safari=nt - 1, elephant=int(state.params[P_ELEPHANT]),
                   wins_needed=r.wins_needed,
                   pair_zero_min=(np.inf if not r.equal_column_zero
                                  else -np.inf if r.equal_negatives_zero else 0.0))

    def step(self, state: State, actions: np.ndarray) -> None:
        _step(np.asarray(actions, np.int64), state.g, state.pp, state.grid, state.up, state.known,
              state.deck, state.disc, state.base, state.card_value, state.rs, state.ev,
              state.params, state.dr)

    def outcome(self, state: State) -> Outcome:
        wins = state.pp[:, :, WINS].copy()
        rank, win = ranks_and_wins(wins)
        g = state.g
        return Outcome(
            score=wins, rank=rank, win=win, turns=g[:, TURNS].copy(),
            stats={
                "rounds": g[:, ROUND].copy(),
                "round_score_sum": state.pp[:, :, SUM].copy(),
                "last_round_score": state.pp[:, :, LAST].copy(),
                "rounds_closed": state.pp[:, :, CLOSED].copy(),
                # the designer's measures (docs/rules/paper_safari.md, "Measures"): does closing
                # a round win it; how close the others came to the third victory card
                "rounds_closed_won": state.pp[:, :, CLOSED_WON].copy(),
                "runner_up_cards": np.sort(wins, axis=1)[:, -2].astype(np.int32),
                "elephant_looks": state.pp[:, :, PEEKS].copy(),
                "discards_taken": state.pp[:, :, TAKEN].copy(),
                "tarzan_chains": g[:, TARZANS].copy(),
                "reshuffles": g[:, RESHUFFLES].copy(),
                "capped_rounds": g[:, CAPPED].copy(),
                "tie_breaks": g[:, TIE_BREAKS].copy(),
                "shared_rounds": g[:, SHARED].copy(),
                "chain_closed_rounds": g[:, CHAIN_CLOSED].copy(),
                **drama.drama_stats(state.dr, wins, win, False),
            },
        )

    def running_score(self, state: State) -> np.ndarray:
        """Victory cards (the match's score) and, in a round being played, the victory card
        this round would give now: the round scored as it stands, every grid turned up (the
        lowest total, then more cards of the highest value; still tied: each gets one). A
        round's other counts are not victory cards and are left out."""
        out = np.empty(state.pp.shape[:2], np.float64)
        _running(state.g, state.pp, state.grid, state.card_value, state.params, out)
        return out

    # -- worlds, for search
    constant_fields = ("card_value", "base", "params")

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        # a world keeps no log (the log names hidden cards), and copying it would be slow
        w = self.clone(dataclasses.replace(state, ev=state.ev[:, :0]), games)
        w.rs = np.array(keys, dtype=np.uint64)
        _redeal(np.asarray(seat, np.int64), w.g, w.grid, w.up, w.known, w.deck, w.rs, w.params)
        return w

    # -- words
    def describe(self, state: State, i: int) -> str:
        r = state.rules
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        card = lambda t: self.card_name(r, int(t))  # noqa: E731
        slot = lambda k: self.slot_name(r, int(k))  # noqa: E731
        nslots = r.rows * r.cols
        lines = []
        n = int(state.g[i, NEV])
        for t, seat, a, b_, c, d in state.ev[i, :n]:
            who = f"P{seat}"
            if t == E_ROUND:
                lines.append(f"-- Round {a}: P{seat} plays first --")
            elif t == E_TURN_UP:
                lines.append(f"the discard pile starts with {card(a)}")
            elif t == E_REVEAL:
                lines.append(f"{who} turns up {slot(a)}: {card(b_)}")
            elif t == E_DRAW:
                lines.append(f"{who} {'draws' if b_ else 'takes the discard'} {card(a)}")
            elif t == E_PEEK:
                lines.append(f"{who} looks at {slot(a)}: {card(b_)}")
            elif t == E_NO_PEEK:
                lines.append(f"{who} does not look")
            elif t == E_EXCHANGE:
                lines.append(f"{who} puts {card(b_)} at {slot(a)}, discards {card(c)}")
            elif t == E_DISCARD:
                lines.append(f"{who} discards {card(a)}")
            elif t == E_TARZAN:
                lines.append(f"{who} puts Tarzan at {slot(a)} and passes {card(b_)} to the left")
            elif t == E_CHAIN:
                lines.append(f"   {who} puts {card(b_)} at {slot(a)} and passes {card(c)} on")
            elif t == E_CHAIN_END:
                lines.append(f"   {card(a)} goes under the discard pile")
            elif t == E_RESHUFFLE:
                lines.append(f"the deck is empty: {a} discards are shuffled, "
                             f"{card(b_)} turned over")
            elif t == E_CAP:
                lines.append(f"(safety stop after {a} turns: the round ends)")
            elif t == E_SCORE:
                cards = [(int(x) >> (8 * j) & 255) - 1 for x in (b_, c, d) for j in range(4)]
                cards = [card(x) for x in cards[:nslots] if x >= 0]
                rows_ = [" ".join(cards[q * r.cols:(q + 1) * r.cols]) for q in range(r.rows)]
                lines.append(f"   P{seat} scores {a}: " + " / ".join(rows_))
            elif t == E_ROUND_WIN:
                shared = f" (shared by {c})" if c > 1 else ""
                lines.append(f"P{seat} wins the round with {a}{shared}: {b_} victory card(s)")
            elif t == E_GAME_END:
                lines.append(f"== Match over after {a} round(s) ==")
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        return "\n".join(lines)


GAME = PaperSafari()

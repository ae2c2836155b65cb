"""Deducktion (the add-on game of duck! duck! SAFARI!, APE Games), 3-5 players and the two-player
variant: ask questions, pass cards, meld ranks, name the five missing cards.

The module follows the rulebook's section (../shared/rules/duck-duck-safari.txt, "Add-on:
Deducktion") in its order: Setup, On Your Turn (Melding and Scoring Sets, Asking Your Question,
the answer and the pass), Ending the Game and Winning, Two-Player Variant. Every reading of a gap
is in docs/rules/deducktion.md.

Cards. The hand cards are the five animal sets that are not the question deck: card
``c = animal * 6 + (number - 1)`` (30 cards; one of each animal is missing). The question deck
is one set of each of the six suits: ``q = suit * 6 + (number - 1)`` with suit 5 the explorer.

Questions (a fixed list of ``N_QUESTIONS`` = 336; ``QMASK[q]`` the 30-bit set of hand cards it
asks about):
- ``0 .. 5``: "how many n's?" (number n = q + 1, any animal);
- ``6 + a * 36 + s * 6 + e`` (s != e): animal a, the numbers from s up to e, round from 6 to 1
  when s > e (both ends included): the two sequences of the same-animal question;
- ``186 + pair(a1, a2) * 15 + pair(n1, n2)``: either animal showing either number.

Each hand card is in one place, ``loc[b, c]``: a hand (seat), the draw pile (two players), the
missing five (in the box), face up, a seat's melds, or in transit during an answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from ..engine import drama
from ..engine.chance import below, shuffle_row
from ..engine.events import log_event
from ..engine.protocol import (Game, Observation, Outcome, RulesError, action_helper, ranks_and_wins,
                               read_only, rule, winners_changed)

ANIMALS = ("elephant", "lion", "monkey", "tiger", "zebra")
SUITS = ANIMALS + ("explorer",)
EXPLORER = 5
NA, NN = 5, 6            # animals, numbers
NC = NA * NN             # hand cards
NQC = 6 * NN             # question cards


# ---- Setup ---------------------------------------------------------------------------------------

# two_player_reserve values, in params[P_DRAW] order: 0 no draws, 1 an empty hand draws, 2 a
# question answered zero draws (the printed sentence)
RESERVE_RULES = ("aside", "draw_when_empty", "zero_answer")
DRAW_NONE, DRAW_EMPTY, DRAW_ZERO = range(3)


@dataclass(frozen=True)
class Rules:
    hand_sizes: tuple[int, ...] = rule((8, 6, 5), "cards dealt to each player with 3, 4, 5 players "
                                                  "(the two-player variant deals as for three)",
                                       search=[(8, 6, 5), (7, 6, 5), (7, 5, 4), (6, 5, 4)])
    meld_points: tuple[int, ...] = rule((3, 5, 7), "points of a meld of 3, 4, 5 cards of one rank",
                                        search=[(3, 5, 7), (3, 4, 5), (3, 6, 9), (2, 4, 6)])
    guess_right: int = rule(5, "points for a correct guess of a missing card",
                            search=range(2, 9))
    guess_wrong: int = rule(-3, "points for an incorrect guess", search=range(-6, 1))
    question_decks: int = rule(1, "times the question deck is used: the game ends when it cannot "
                                  "supply three cards for a turn (1: used cards are not "
                                  "reshuffled; more: the used deck is reshuffled that many times "
                                  "minus one)", search=range(1, 4))
    guesses_seen: bool = rule(False, "the end-of-game guesses, made in turn order, are seen by the "
                                     "later guessers (False: each player's guesses are sealed)",
                         search=[False, True])
    two_player_reserve: str = rule("zero_answer", "two players: the third hand is a reserve "
                                   "from which a player whose question is answered 'zero' draws "
                                   "one card (printed: 'zero_answer'; skipped when the reserve is "
                                   "empty), or from which a player whose hand is empty draws one "
                                   "card at the start of the turn ('draw_when_empty', not "
                                   "printed), or which stays aside unused ('aside', not printed)",
                                   search=["zero_answer", "draw_when_empty", "aside"])
    final_meld: bool = rule(False, "when the question deck runs out, each player in turn order may "
                                   "meld once more before the guesses", search=[False, True])
    add_to_meld: bool = rule(False, "on a later turn a player may add the cards it holds of a "
                                    "number it has melded to that meld, which then scores as the "
                                    "larger meld (not printed: False, a meld needs three or more "
                                    "cards held)", search=[False, True])

    def validate(self) -> None:
        if len(self.hand_sizes) != 3:
            raise RulesError("hand_sizes", "give three hand sizes: for 3, 4 and 5 players")
        for p, h in zip((3, 4, 5), self.hand_sizes):
            if h < 1 or p * h > NC - NA:
                raise RulesError("hand_sizes", f"{p} hands of {h} do not fit the 25 cards dealt")
        if len(self.meld_points) != 3:
            raise RulesError("meld_points", "give three values: melds of 3, 4 and 5 cards")
        if not 1 <= self.question_decks <= 10:
            raise RulesError("question_decks", "must be from 1 to 10")
        if self.two_player_reserve not in RESERVE_RULES:
            raise RulesError("two_player_reserve", f"must be one of {', '.join(RESERVE_RULES)}, "
                                                   f"not {self.two_player_reserve!r}")


# ---- the questions ----------------------------------------------------------------------------------

def _pair_index(i: int, j: int, m: int) -> int:
    """Index of the unordered pair i < j among m values."""
    return i * (2 * m - i - 1) // 2 + (j - i - 1)


Q_SEQ, Q_DIFF = 6, 6 + NA * 36
N_QUESTIONS = Q_DIFF + 10 * 15


def _questions() -> tuple[np.ndarray, list[str]]:
    masks = np.zeros(N_QUESTIONS, np.int64)
    names = [""] * N_QUESTIONS
    for n in range(NN):
        masks[n] = sum(1 << (a * NN + n) for a in range(NA))
        names[n] = f"how many {n + 1}s?"
    for a in range(NA):
        for s in range(NN):
            for e in range(NN):
                if s == e:
                    continue
                seq, x = [], s
                while True:
                    seq.append(x)
                    if x == e:
                        break
                    x = (x + 1) % NN
                masks[Q_SEQ + a * 36 + s * NN + e] = sum(1 << (a * NN + x) for x in seq)
                names[Q_SEQ + a * 36 + s * NN + e] = (
                    f"how many {ANIMALS[a]} {', '.join(str(x + 1) for x in seq)}?")
    for a1 in range(NA):
        for a2 in range(a1 + 1, NA):
            for n1 in range(NN):
                for n2 in range(n1 + 1, NN):
                    q = Q_DIFF + _pair_index(a1, a2, NA) * 15 + _pair_index(n1, n2, NN)
                    masks[q] = sum(1 << (a * NN + n) for a in (a1, a2) for n in (n1, n2))
                    names[q] = f"how many {n1 + 1}s and {n2 + 1}s on {ANIMALS[a1]} or {ANIMALS[a2]}?"
    return masks, names


QMASK, QNAMES = _questions()
# unordered pair index tables for the kernels
PAIR5 = np.array([[_pair_index(min(i, j), max(i, j), NA) if i != j else -1 for j in range(NA)]
                  for i in range(NA)], np.int64)
PAIR6 = np.array([[_pair_index(min(i, j), max(i, j), NN) if i != j else -1 for j in range(NN)]
                  for i in range(NN)], np.int64)

# ---- places, phases, actions --------------------------------------------------------------------

# loc values: 0..4 a seat's hand
DRAW, MISSING, FACEUP, TO_ASKER, TO_TARGET, MELD0 = 5, 6, 7, 8, 9, 10   # MELD0 + seat: melded

# Decision kinds (obs.kind, g[PHASE])
MELD, TARGET, QUESTION, PASS, GIVE, GUESS, OVER = range(7)

# Actions
A_MELD = 0            # + number - 1: meld all cards of that number
A_ASK = 6             # stop melding (or, with final_meld, end the last meld)
A_TARGET = 7          # + offset - 1: ask the player that many seats to the left
A_QUESTION = 11       # + question
A_CARD = A_QUESTION + N_QUESTIONS   # + card: pass it (before looking) or give it back (after)
A_GUESS = A_CARD + NC               # + number - 1: guess the current animal's missing card
A_NO_GUESS = A_GUESS + NN
N_ACTIONS = A_NO_GUESS + 1

# Per-game fields g[b, ...]
(CUR, PHASE, TURNS, QPOS, DECKS, TGT, QUEST, KCOUNT, NEED, HOLD, GUESSER, GANIMAL, NEV, NH,
 DRAWPOS, INM, OUTM, FINAL) = range(18)
NG = 18
# Per-player fields pp[b, p, ...]
HAND_N, MELD_PTS, MELDS, MELD_CARDS, RIGHT, WRONG, ASKS, RECEIVED, EMPTY_ANSWERS, DRAWS, SCORE = \
    range(11)
NPP = 11   # SCORE: the running score (meld points, then the guesses' points as they are made)

# params layout
P_PLAYERS, P_HAND, P_DECKS, P_RIGHT, P_WRONG, P_DRAW, P_FINAL, P_M3, P_M4, P_M5, P_ADD = range(11)

# history rows hist[b, i] = (type, seat, target, question or number, count, asker hand, in, out)
H_ASK, H_MELD, H_DRAW = 1, 2, 3
NHIST = 8

# Event log ev[b, i] = (type, seat, a, b, c, d)
E_TURN, E_DRAW, E_MELD, E_FLIP, E_ASK, E_PASS, E_GIVE, E_WHOLE, E_GUESS, E_END, E_RESHUFFLE = \
    range(1, 12)


@dataclass
class State:
    n_players: int
    rules: Rules
    params: np.ndarray     # int64[10]
    g: np.ndarray          # int32[B, NG]
    pp: np.ndarray         # int32[B, P, NPP]
    loc: np.ndarray        # int8[B, 30] place of each hand card
    qdeck: np.ndarray      # int8[B, 36] the question deck in order; g[QPOS] the next card
    pile: np.ndarray       # int8[B, 8] the two-player draw pile in order; g[DRAWPOS] the next
    start: np.ndarray      # int64[B, P] the hand dealt to each seat (30-bit set)
    hist: np.ndarray       # int32[B, H, 8] what happened (public part and both sides' cards)
    guess: np.ndarray      # int8[B, P, 5] number guessed for each animal, 0 none, -1 not yet
    ev: np.ndarray         # int32[B, L, 6]
    rs: np.ndarray         # uint64[B]
    drama: np.ndarray      # int32[B, drama_width(P)] how the lead moved (engine.drama)
    mover: np.ndarray = None
    legal_: np.ndarray = None
    dealt: np.ndarray = None   # int8[B] in a world (determinize): how it was dealt (_deal_worlds)


def hist_len(rules: Rules) -> int:
    return 12 * rules.question_decks + 2 * 12 * rules.question_decks + 8


# ---- kernels ------------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _count(b, p, n, loc):
    """Cards of number n (0-based) in p's hand."""
    c = 0
    for a in range(NA):
        if loc[b, a * NN + n] == p:
            c += 1
    return c


@njit(cache=True, inline="always", _nrt=False)
def _can_meld(b, p, n, loc, params):
    """p may meld number n: three or more held, or (add_to_meld) one or more held and n is
    already one of p's melds."""
    k = _count(b, p, n, loc)
    if k >= 3:
        return True
    if params[P_ADD] != 0 and k >= 1:
        for a in range(NA):
            if loc[b, a * NN + n] == MELD0 + p:
                return True
    return False


@njit(cache=True, _nrt=False)
def _meldable(b, p, loc, params):
    for n in range(NN):
        if _can_meld(b, p, n, loc, params):
            return True
    return False


@njit(cache=True, inline="always", _nrt=False)
def _meld_value(m, params):
    """Points of a meld of m cards (3, 4, 5)."""
    return params[P_M3 + m - 3] if m >= 3 else 0


@njit(cache=True, _nrt=False)
def _start_guesses(b, g, ev):
    g[b, GUESSER] = 0
    g[b, GANIMAL] = 0
    g[b, PHASE] = GUESS


@njit(cache=True, _nrt=False)
def _next_final_meld(b, g, loc, ev, params, first):
    """With final_meld: the next player from seat ``first`` on who can meld does; then guesses."""
    for p in range(first, params[P_PLAYERS]):
        if _meldable(b, p, loc, params):
            g[b, CUR] = p
            g[b, PHASE] = MELD
            return
    _start_guesses(b, g, ev)


@njit(cache=True, _nrt=False)
def _end_of_questions(b, g, loc, ev, params):
    """Ending the game: the question deck cannot supply three cards (decided; see the docs)."""
    log_event(ev, g, NEV, b, E_END, -1, g[b, TURNS], 0, 0, 0)
    if params[P_FINAL] != 0:
        g[b, FINAL] = 1
        _next_final_meld(b, g, loc, ev, params, np.int64(0))
    else:
        _start_guesses(b, g, ev)


@njit(cache=True, _nrt=False)
def _draw(b, p, g, pp, loc, pile, hist, ev):
    """Two-player variant: p draws the reserve's next card into the hand (the card only p
    sees; the history row, public, says that p drew); nothing when the reserve is empty."""
    if g[b, DRAWPOS] >= pile.shape[1]:
        return
    c = int(pile[b, g[b, DRAWPOS]])
    g[b, DRAWPOS] += 1
    loc[b, c] = p
    pp[b, p, HAND_N] += 1
    pp[b, p, DRAWS] += 1
    i = g[b, NH]
    hist[b, i, 0] = H_DRAW
    hist[b, i, 1] = p
    hist[b, i, 6] = 1 << c
    g[b, NH] = i + 1
    log_event(ev, g, NEV, b, E_DRAW, p, c, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _start_turn(b, g, pp, loc, qdeck, pile, hist, ev, rs, params):
    p = g[b, CUR]
    if g[b, QPOS] + 3 > NQC:
        if g[b, DECKS] + 1 < params[P_DECKS]:
            shuffle_row(qdeck[b], NQC, rs, b)
            g[b, QPOS] = 0
            g[b, DECKS] += 1
            log_event(ev, g, NEV, b, E_RESHUFFLE, -1, 0, 0, 0, 0)
        else:
            _end_of_questions(b, g, loc, ev, params)
            return
    log_event(ev, g, NEV, b, E_TURN, p, g[b, TURNS] + 1, 0, 0, 0)
    # two_player_reserve 'draw_when_empty' (not printed): an empty hand draws one reserve card
    if params[P_DRAW] == DRAW_EMPTY and pp[b, p, HAND_N] == 0:
        _draw(b, p, g, pp, loc, pile, hist, ev)
    if _meldable(b, np.int64(p), loc, params):
        g[b, PHASE] = MELD
    else:
        _enter_ask(b, g, qdeck, ev, params)


@njit(cache=True, _nrt=False)
def _enter_ask(b, g, qdeck, ev, params):
    """Asking Your Question: flip the top three question cards, choose a player, two cards."""
    i = g[b, QPOS]
    log_event(ev, g, NEV, b, E_FLIP, g[b, CUR], qdeck[b, i], qdeck[b, i + 1], qdeck[b, i + 2], 0)
    if params[P_PLAYERS] == 2:
        g[b, TGT] = 1 - g[b, CUR]
        g[b, PHASE] = QUESTION
    else:
        g[b, PHASE] = TARGET


@njit(cache=True, _nrt=False)
def _finish_ask(b, g, pp, loc, qdeck, pile, hist, ev, rs, params, dr):
    """The exchange is over: record it, discard the three question cards, next player."""
    i = g[b, NH]
    hist[b, i, 0] = H_ASK
    hist[b, i, 1] = g[b, CUR]
    hist[b, i, 2] = g[b, TGT]
    hist[b, i, 3] = g[b, QUEST]
    hist[b, i, 4] = g[b, KCOUNT]
    hist[b, i, 5] = g[b, HOLD]
    hist[b, i, 6] = g[b, INM]
    hist[b, i, 7] = g[b, OUTM]
    g[b, NH] = i + 1
    # Two-Player Variant, as printed: "Any time you ask a question and your opponent replies
    # with 'zero,' draw a card from the reserve ... If the reserve is empty, this step is skipped."
    if params[P_DRAW] == DRAW_ZERO and g[b, KCOUNT] == 0:
        _draw(b, g[b, CUR], g, pp, loc, pile, hist, ev)
    g[b, QPOS] += 3
    g[b, TURNS] += 1
    drama.drama_update(dr, b, pp[b, :, SCORE], False)   # who is ahead after each turn
    nxt = g[b, CUR] + 1
    g[b, CUR] = 0 if nxt >= params[P_PLAYERS] else nxt
    _start_turn(b, g, pp, loc, qdeck, pile, hist, ev, rs, params)


@njit(cache=True, _nrt=False)
def _complete_pass(b, g, pp, loc):
    """After the pass each adds the new cards to the hand."""
    a, t = g[b, CUR], g[b, TGT]
    for c in range(NC):
        if loc[b, c] == TO_ASKER:
            loc[b, c] = a
            pp[b, a, HAND_N] += 1
        elif loc[b, c] == TO_TARGET:
            loc[b, c] = t
            pp[b, t, HAND_N] += 1


@njit(cache=True, inline="always", _nrt=False)
def apply_action(b, act, g, pp, loc, qdeck, pile, hist, guess, ev, rs, qmask, params, dr):
    """The rules for one decision of game b (its phase's action ``act``): the batch ``_step``
    and the compiled strategies' whole-game kernel (strategies/_deducktion_compiled.py) both
    call it, so the rules are written once."""
    p = g[b, CUR]
    ph = g[b, PHASE]
    if ph == MELD:
        if act == A_ASK:
            if g[b, FINAL] != 0:
                _next_final_meld(b, g, loc, ev, params, g[b, CUR] + 1)
            else:
                _enter_ask(b, g, qdeck, ev, params)
            return
        n = act - A_MELD
        m = 0
        k = 0
        had = 0
        for a in range(NA):
            c = a * NN + n
            if loc[b, c] == p:
                loc[b, c] = MELD0 + p
                m |= 1 << c
                k += 1
            elif loc[b, c] == MELD0 + p:
                had += 1
        pp[b, p, HAND_N] -= k
        pts = _meld_value(had + k, params) - _meld_value(had, params)
        pp[b, p, MELD_PTS] += pts
        pp[b, p, SCORE] += pts
        if had == 0:
            pp[b, p, MELDS] += 1
        pp[b, p, MELD_CARDS] += k
        i = g[b, NH]
        hist[b, i, 0] = H_MELD
        hist[b, i, 1] = p
        hist[b, i, 3] = n
        hist[b, i, 4] = k
        hist[b, i, 6] = m
        g[b, NH] = i + 1
        log_event(ev, g, NEV, b, E_MELD, p, n, k, had, 0)
        if not _meldable(b, np.int64(p), loc, params):
            if g[b, FINAL] != 0:
                _next_final_meld(b, g, loc, ev, params, g[b, CUR] + 1)
            else:
                _enter_ask(b, g, qdeck, ev, params)
        return
    if ph == TARGET:
        o = act - A_TARGET + 1
        t = p + o
        g[b, TGT] = t - params[P_PLAYERS] if t >= params[P_PLAYERS] else t
        g[b, PHASE] = QUESTION
        return
    if ph == QUESTION:
        q = act - A_QUESTION
        t = g[b, TGT]
        g[b, QUEST] = q
        qm = qmask[q]
        # the answer: how many, and those cards passed face down
        k = 0
        inm = 0
        for c in range(NC):
            if loc[b, c] == t and (qm >> c) & 1:
                loc[b, c] = TO_ASKER
                inm |= 1 << c
                k += 1
        pp[b, t, HAND_N] -= k
        g[b, KCOUNT] = k
        g[b, INM] = inm
        g[b, OUTM] = 0
        h = pp[b, p, HAND_N]
        g[b, HOLD] = h
        pp[b, p, ASKS] += 1
        pp[b, p, RECEIVED] += k
        log_event(ev, g, NEV, b, E_ASK, p, t, q, k, inm)
        if k == 0:
            pp[b, p, EMPTY_ANSWERS] += 1
            _finish_ask(b, g, pp, loc, qdeck, pile, hist, ev, rs, params, dr)
        elif h > k:
            g[b, NEED] = k
            g[b, PHASE] = PASS
        elif h == k:
            # the whole hand goes back, before looking: no choice
            out = 0
            for c in range(NC):
                if loc[b, c] == p:
                    loc[b, c] = TO_TARGET
                    out |= 1 << c
            pp[b, p, HAND_N] = 0
            g[b, OUTM] = out
            log_event(ev, g, NEV, b, E_WHOLE, p, t, h, 0, 0)
            _complete_pass(b, g, pp, loc)
            _finish_ask(b, g, pp, loc, qdeck, pile, hist, ev, rs, params, dr)
        else:
            # more cards coming than held: pass the entire hand, look, make up the difference
            out = 0
            for c in range(NC):
                if loc[b, c] == p:
                    loc[b, c] = t
                    out |= 1 << c
            pp[b, t, HAND_N] += h
            pp[b, p, HAND_N] = 0
            g[b, OUTM] = out
            log_event(ev, g, NEV, b, E_WHOLE, p, t, h, 0, 0)
            _complete_pass(b, g, pp, loc)
            g[b, NEED] = k - h
            if g[b, NEED] == pp[b, p, HAND_N]:
                for c in range(NC):
                    if loc[b, c] == p:
                        loc[b, c] = t
                        g[b, OUTM] |= 1 << c
                        log_event(ev, g, NEV, b, E_GIVE, p, t, c, 0, 0)
                pp[b, t, HAND_N] += pp[b, p, HAND_N]
                pp[b, p, HAND_N] = 0
                _finish_ask(b, g, pp, loc, qdeck, pile, hist, ev, rs, params, dr)
            else:
                g[b, PHASE] = GIVE
        return
    if ph == PASS:
        c = act - A_CARD
        loc[b, c] = TO_TARGET
        pp[b, p, HAND_N] -= 1
        g[b, OUTM] |= 1 << c
        log_event(ev, g, NEV, b, E_PASS, p, g[b, TGT], c, 0, 0)
        g[b, NEED] -= 1
        if g[b, NEED] == 0:
            _complete_pass(b, g, pp, loc)
            _finish_ask(b, g, pp, loc, qdeck, pile, hist, ev, rs, params, dr)
        return
    if ph == GIVE:
        c = act - A_CARD
        t = g[b, TGT]
        loc[b, c] = t
        pp[b, p, HAND_N] -= 1
        pp[b, t, HAND_N] += 1
        g[b, OUTM] |= 1 << c
        log_event(ev, g, NEV, b, E_GIVE, p, t, c, 0, 0)
        g[b, NEED] -= 1
        if g[b, NEED] == 0:
            _finish_ask(b, g, pp, loc, qdeck, pile, hist, ev, rs, params, dr)
        return
    if ph == GUESS:
        s = g[b, GUESSER]
        a = g[b, GANIMAL]
        if act == A_NO_GUESS:
            guess[b, s, a] = 0
        else:
            n = act - A_GUESS
            guess[b, s, a] = n + 1
            if loc[b, a * NN + n] == MISSING:
                pp[b, s, RIGHT] += 1
                pp[b, s, SCORE] += params[P_RIGHT]
            else:
                pp[b, s, WRONG] += 1
                pp[b, s, SCORE] += params[P_WRONG]
        log_event(ev, g, NEV, b, E_GUESS, s, a, guess[b, s, a], 0, 0)
        if a + 1 < NA:
            g[b, GANIMAL] = a + 1
        elif s + 1 < params[P_PLAYERS]:
            g[b, GUESSER] = s + 1
            g[b, GANIMAL] = 0
        else:
            g[b, PHASE] = OVER
            drama.drama_update(dr, b, pp[b, :, SCORE], False)   # and at the end: the guesses


@njit(cache=True, inline="always", _nrt=False)
def _add_pair(b, a1, n1, a2, n2, legal):
    """The question asked by two chosen cards (animal, number), explorers already assigned."""
    if n1 == n2:
        legal[b, A_QUESTION + n1] = True
    elif a1 == a2:
        # both sequences, n1 up to n2 and n2 up to n1 (round from 6 to 1); a sequence of all
        # six numbers is one question: its id is "from 1 up to 6"
        for s, e in ((n1, n2), (n2, n1)):
            if e == (s + NN - 1) % NN:
                s, e = 0, NN - 1
            legal[b, A_QUESTION + Q_SEQ + a1 * 36 + s * NN + e] = True
    else:
        lo_a, hi_a = (a1, a2) if a1 < a2 else (a2, a1)
        lo_n, hi_n = (n1, n2) if n1 < n2 else (n2, n1)
        ia = lo_a * (2 * NA - lo_a - 1) // 2 + (hi_a - lo_a - 1)
        inn = lo_n * (2 * NN - lo_n - 1) // 2 + (hi_n - lo_n - 1)
        legal[b, A_QUESTION + Q_DIFF + ia * 15 + inn] = True


@njit(cache=True, _nrt=False)
def _legal_questions(b, c0, c1, c2, legal):
    """Every question the three flipped cards allow (explorers wild, as printed)."""
    c0, c1, c2 = int(c0), int(c1), int(c2)
    s = (c0 // NN, c1 // NN, c2 // NN)
    n = (c0 % NN, c1 % NN, c2 % NN)
    e = (1 if s[0] == EXPLORER else 0) + (1 if s[1] == EXPLORER else 0) + \
        (1 if s[2] == EXPLORER else 0)
    for i, j, k in ((0, 1, 2), (0, 2, 1), (1, 2, 0)):
        si, sj, sk = s[i], s[j], s[k]
        if e == 0:
            _add_pair(b, si, n[i], sj, n[j], legal)
        elif e == 1:
            # the explorer becomes the animal of either of the other cards
            if si == EXPLORER:
                _add_pair(b, sj, n[i], sj, n[j], legal)
                _add_pair(b, sk, n[i], sj, n[j], legal)
            elif sj == EXPLORER:
                _add_pair(b, si, n[i], si, n[j], legal)
                _add_pair(b, si, n[i], sk, n[j], legal)
            else:
                _add_pair(b, si, n[i], sj, n[j], legal)
        elif e == 2:
            # both explorers become the animal of the third card
            z = si
            if si == EXPLORER:
                z = sj if sj != EXPLORER else sk
            _add_pair(b, z, n[i], z, n[j], legal)
        else:
            # three explorers: two of them, as any other animal
            for a in range(NA):
                _add_pair(b, a, n[i], a, n[j], legal)


@njit(cache=True, _nrt=False)
def _allowed(flipped, out):
    """out[i, A_QUESTION + q]: question q is allowed by the three cards flipped[i]."""
    for i in range(flipped.shape[0]):
        if flipped[i, 0] >= 0:
            _legal_questions(i, flipped[i, 0], flipped[i, 1], flipped[i, 2], out)


def allowed_questions(flipped: np.ndarray) -> np.ndarray:
    """bool[n, N_QUESTIONS]: the questions three flipped question cards allow (all False for a
    row of -1s)."""
    flipped = np.ascontiguousarray(flipped, dtype=np.int64).reshape(-1, 3)
    out = np.zeros((len(flipped), N_ACTIONS), np.bool_)
    _allowed(flipped, out)
    return np.ascontiguousarray(out[:, A_QUESTION:A_QUESTION + N_QUESTIONS])


@njit(cache=True, inline="always", _nrt=False)
def write_view(b, g, pp, loc, qdeck, params, mover, legal):
    """Who moves in game b (-1: over) and the legal mask of that decision."""
    for a in range(legal.shape[1]):
        legal[b, a] = False
    ph = g[b, PHASE]
    if ph == OVER:
        mover[b] = -1
        return
    p = g[b, CUR]
    if ph == GUESS:
        mover[b] = g[b, GUESSER]
        for a in range(A_GUESS, A_NO_GUESS + 1):
            legal[b, a] = True
        return
    mover[b] = p
    if ph == MELD:
        legal[b, A_ASK] = True
        for n in range(NN):
            legal[b, A_MELD + n] = _can_meld(b, p, n, loc, params)
    elif ph == TARGET:
        for o in range(1, params[P_PLAYERS]):
            legal[b, A_TARGET + o - 1] = True
    elif ph == QUESTION:
        i = g[b, QPOS]
        _legal_questions(b, np.int64(qdeck[b, i]), np.int64(qdeck[b, i + 1]),
                         np.int64(qdeck[b, i + 2]), legal)
    else:  # PASS (from the own hand, before looking) or GIVE (from the cards received)
        for c in range(NC):
            legal[b, A_CARD + c] = loc[b, c] == p


@njit(cache=True, _nrt=False)
def _views(games, g, pp, loc, qdeck, params, mover, legal):
    for b in games:
        write_view(b, g, pp, loc, qdeck, params, mover, legal)


@njit(cache=True, _nrt=False)
def _step(actions, g, pp, loc, qdeck, pile, hist, guess, ev, rs, qmask, params, dr, mover,
          legal):
    for b in range(g.shape[0]):
        if g[b, PHASE] != OVER:
            apply_action(b, actions[b], g, pp, loc, qdeck, pile, hist, guess, ev, rs, qmask,
                         params, dr)
        write_view(b, g, pp, loc, qdeck, params, mover, legal)


@njit(cache=True, _nrt=False)
def _init(g, pp, loc, qdeck, pile, start, hist, ev, rs, params, deal):
    nplayers = params[P_PLAYERS]
    h = params[P_HAND]
    for b in range(g.shape[0]):
        # the question deck: one set of each of the six suits, shuffled
        for i in range(NQC):
            qdeck[b, i] = i
        shuffle_row(qdeck[b], NQC, rs, b)
        # one card removed unseen from each of the five other sets
        for c in range(NC):
            loc[b, c] = -1
        for a in range(NA):
            loc[b, a * NN + below(rs, b, NN)] = MISSING
        n = 0
        for c in range(NC):
            if loc[b, c] != MISSING:
                deal[n] = c
                n += 1
        shuffle_row(deal, n, rs, b)
        hands = 3 if nplayers == 2 else nplayers
        i = 0
        for p in range(hands):
            for j in range(h):
                c = int(deal[i])
                i += 1
                if p < nplayers:
                    loc[b, c] = p
                    start[b, p] |= np.int64(1) << c
                else:
                    loc[b, c] = DRAW
                    pile[b, j] = c
            if p < nplayers:
                pp[b, p, HAND_N] = h
        while i < n:
            loc[b, deal[i]] = FACEUP
            i += 1
        g[b, CUR] = 0
        _start_turn(b, g, pp, loc, qdeck, pile, hist, ev, rs, params)


@njit(cache=True, _nrt=False)
def _observe(games, g, pp, loc, qdeck, hist, start, guess, params, seen_guesses,
             seat, kind, turn, q_left, flipped, target, question, count, need, hand, table,
             hand_size, meld_pts, draw_left, o_hist, n_hist, start_hand, o_guess, animal):
    nplayers = params[P_PLAYERS]
    for i in range(games.shape[0]):
        b = games[i]
        ph = g[b, PHASE]
        p = g[b, GUESSER] if ph == GUESS else g[b, CUR]
        seat[i] = p
        kind[i] = ph
        turn[i] = g[b, TURNS]
        q_left[i] = (NQC - g[b, QPOS]) + NQC * (params[P_DECKS] - 1 - g[b, DECKS])
        asking = ph == TARGET or ph == QUESTION or ph == PASS or ph == GIVE
        for j in range(3):
            flipped[i, j] = qdeck[b, g[b, QPOS] + j] if asking else -1
        t = g[b, TGT]
        target[i] = (t - p) % nplayers if (ph == QUESTION or ph == PASS or ph == GIVE) else -1
        question[i] = g[b, QUEST] if (ph == PASS or ph == GIVE) else -1
        count[i] = g[b, KCOUNT] if (ph == PASS or ph == GIVE) else -1
        need[i] = g[b, NEED] if (ph == PASS or ph == GIVE) else 0
        for c in range(NC):
            x = loc[b, c]
            hand[i, c] = x == p
            if x == FACEUP:
                table[i, c] = nplayers
            elif x >= MELD0:
                table[i, c] = (x - MELD0 - p) % nplayers
            else:
                table[i, c] = -1
        for o in range(nplayers):
            s = (p + o) % nplayers
            hand_size[i, o] = pp[b, s, HAND_N]
            meld_pts[i, o] = pp[b, s, MELD_PTS]
            for a in range(NA):
                v = guess[b, s, a]
                o_guess[i, o, a] = v if (o == 0 or seen_guesses) else -1
        draw_left[i] = params[P_HAND] - g[b, DRAWPOS] if params[P_DRAW] != 0 else 0
        nh = g[b, NH]
        n_hist[i] = nh
        for j in range(nh):
            ty = hist[b, j, 0]
            who = hist[b, j, 1]
            o_hist[i, j, 0] = ty
            o_hist[i, j, 1] = (who - p) % nplayers
            o_hist[i, j, 3] = hist[b, j, 3]
            o_hist[i, j, 4] = hist[b, j, 4]
            o_hist[i, j, 5] = hist[b, j, 5]
            if ty == H_ASK:
                tg = hist[b, j, 2]
                o_hist[i, j, 2] = (tg - p) % nplayers
                if who == p:
                    o_hist[i, j, 6] = hist[b, j, 6]
                    o_hist[i, j, 7] = hist[b, j, 7]
                elif tg == p:
                    o_hist[i, j, 6] = hist[b, j, 7]
                    o_hist[i, j, 7] = hist[b, j, 6]
            elif ty == H_MELD:
                o_hist[i, j, 6] = hist[b, j, 6]
            elif ty == H_DRAW and who == p:
                o_hist[i, j, 6] = hist[b, j, 6]
        start_hand[i] = start[b, p]
        animal[i] = g[b, GANIMAL] if ph == GUESS else -1


# ---- the seat's card sets, compiled (the deducer's ``track_one``; ``determinize``) -----------

@njit(cache=True, inline="always", _nrt=False)
def _on_table(x):
    """obs.table >= 0: face up or melded."""
    return x == FACEUP or x >= MELD0


@njit(cache=True, inline="always", _nrt=False)
def _sizes(b, p, nplayers, pp, loc, size):
    """place_sizes: obs.hand_size by offset, the box 5, the two-player reserve the rest."""
    tot = 0
    for o in range(nplayers):
        s = p + o
        s = s - nplayers if s >= nplayers else s
        size[o] = pp[b, s, HAND_N]
        tot += size[o]
    size[nplayers] = NA
    if nplayers == 2:
        t = 0
        for c in range(NC):
            if _on_table(loc[b, c]):
                t += 1
        size[nplayers + 1] = max(0, NC - NA - tot - t)


@njit(cache=True, _nrt=False)
def _fix_one(poss, size, X, P):
    """deducktion._fix for one game: narrow the sets by the place sizes and one missing card
    per animal until nothing changes (the same rules in the same order)."""
    mb = 1 << P
    changed = True
    while changed:
        changed = False
        for x in range(X):
            bit = 1 << x
            nsure = 0
            for c in range(NC):
                if poss[c] == bit:
                    nsure += 1
            if nsure >= size[x]:
                for c in range(NC):
                    if poss[c] & bit and poss[c] != bit:
                        poss[c] &= ~bit
                        changed = True
            nhas = 0
            for c in range(NC):
                if poss[c] & bit:
                    nhas += 1
            if nhas == size[x]:
                for c in range(NC):
                    if poss[c] & bit and poss[c] != bit:
                        poss[c] = bit
                        changed = True
        for a in range(NA):
            nm = 0
            anysure = False
            for n in range(NN):
                v = poss[a * NN + n]
                if v & mb:
                    nm += 1
                if v == mb:
                    anysure = True
            for n in range(NN):
                c = a * NN + n
                v = poss[c]
                if v & mb:
                    if nm == 1 and v != mb:
                        poss[c] = mb
                        changed = True
                    elif nm != 1 and anysure and v != mb:
                        poss[c] = v & ~mb
                        changed = True


@njit(cache=True, _nrt=False)
def track_one(b, p, nplayers, g, loc, hist, start, qmask, size, poss, tsize, fallback=True,
              propagate=True):
    """``track`` compiled, for seat p of game b (the deducer's card sets, and the sets the
    worlds for search are dealt within; the plain-Python reference deduction of
    ``tests/test_deducktion_deduction.py`` is their oracle, and a test requires the same sets
    as ``track`` at random positions): poss[c] the places (bits by offset, P the box, P + 1 the
    reserve) card c can be in. Reads obs.start_hand, obs.table, obs.hist (rotated; columns 6
    and 7 only where this seat is shown them), obs.hand, obs.hand_size (``size``:
    place_sizes; read only with ``propagate``). ``tsize``: scratch, the place sizes as the
    history goes."""
    P = nplayers
    X = P + 2 if P == 2 else P + 1
    me = 1
    mb = 1 << P
    others = ((1 << P) - 1) & ~me
    init = others | mb | ((1 << (P + 1)) if P == 2 else 0)
    sh = np.int64(start[b, p])
    dealt = 0
    for c in range(NC):
        poss[c] = me if (sh >> c) & 1 else init
        if (sh >> c) & 1:
            dealt += 1
        if loc[b, c] == FACEUP:
            poss[c] = 0
    for x in range(P):
        tsize[x] = dealt
    tsize[P] = NA
    if P == 2:
        tsize[P + 1] = dealt
    for j in range(g[b, NH]):
        ty = hist[b, j, 0]
        w = hist[b, j, 1] - p
        who = w + P if w < 0 else w
        if ty == H_MELD:
            inb = np.int64(hist[b, j, 6])
            for c in range(NC):
                if (inb >> c) & 1:
                    poss[c] = 0
            tsize[who] -= hist[b, j, 4]
        elif ty == H_DRAW:
            if who == 0:
                inb = np.int64(hist[b, j, 6])
                for c in range(NC):
                    if (inb >> c) & 1:
                        poss[c] = me
            else:
                add = 1 << min(who, 7)
                for c in range(NC):
                    if (poss[c] >> (P + 1)) & 1:
                        poss[c] |= add
            tsize[who] += 1
            tsize[X - 1] -= 1
        elif ty == H_ASK:
            t = hist[b, j, 2] - p
            tg = t + P if t < 0 else t
            qm = qmask[hist[b, j, 3]]
            k = hist[b, j, 4]
            hold = hist[b, j, 5]
            A = 1 << who
            T = 1 << tg
            if who == 0:
                inb = np.int64(hist[b, j, 6])
                outb = np.int64(hist[b, j, 7])
                for c in range(NC):
                    if (qm >> c) & 1:
                        poss[c] &= ~T
                    if (inb >> c) & 1:
                        poss[c] = me
                    if (outb >> c) & 1:
                        poss[c] = T
            elif tg == 0:
                inb = np.int64(hist[b, j, 7])
                outb = np.int64(hist[b, j, 6])
                for c in range(NC):
                    if (outb >> c) & 1:
                        poss[c] = A
                    if (inb >> c) & 1:
                        poss[c] = me
            elif k == 0:
                for c in range(NC):
                    if (qm >> c) & 1:
                        poss[c] &= ~T
            else:
                # everybody else: the count only (all that could be there were; as many as
                # were surely there: no other)
                nq = 0
                ns = 0
                for c in range(NC):
                    if (qm >> c) & 1 and poss[c] & T:
                        nq += 1
                        if poss[c] == T:
                            ns += 1
                sat = nq == k
                excl = ns == k
                for c in range(NC):
                    inq = (qm >> c) & 1
                    old = T if (inq and poss[c] & T and sat) else poss[c]
                    if inq and excl and poss[c] != T:
                        old &= ~T
                    a_part = 0
                    if old & A:
                        a_part = (A | T) if hold > k else T
                    t_part = 0
                    if old & T:
                        if inq:
                            t_part = (A | T) if hold < k else A
                        else:
                            t_part = T
                    poss[c] = (old & ~(A | T)) | a_part | t_part
        _fix_one(poss, tsize, X, P)
    # my hand is known exactly, and so is the table
    for c in range(NC):
        x = loc[b, c]
        if x == p:
            poss[c] = me
        else:
            poss[c] &= ~me
        if _on_table(x):
            poss[c] = 0
    if propagate:
        _fix_one(poss, size, X, P)
    # a contradiction (none should arise) falls back to "anywhere but here"
    for c in range(NC):
        if fallback and poss[c] == 0 and not _on_table(loc[b, c]):
            poss[c] = others | mb


# ---- worlds for search (Game.determinize) ---------------------------------------------------------

# place bits of the world kernel: 0..4 a seat's hand, then the box, the reserve, in transit
W_MISSING, W_DRAW, W_TRANSIT = 5, 6, 7
W_LOC = np.array([0, 1, 2, 3, 4, MISSING, DRAW, TO_ASKER], np.int8)
WORLD_TRIES = 20000      # rejection tries of a world within the card sets, then the fallback


@njit(cache=True, _nrt=False)
def _track_worlds(games, seat, g, pp, loc, hist, start, qmask, size, poss, tsize, out):
    """``determinize``'s card sets: for observed game ``games[i]`` and its seat to move
    ``seat[i]``, ``track(fallback=False)`` compiled (``track_one``; propagated by the present
    sizes outside an exchange only: at PASS and GIVE the cards in transit are in no hand, and the
    exchange under way is ``_deal_worlds``'s), as W_* place bits by absolute seat in
    out[i, c]."""
    P = pp.shape[1]
    for i in range(games.shape[0]):
        b = games[i]
        s = seat[i]
        ph = g[b, PHASE]
        prop = ph != PASS and ph != GIVE
        if prop:
            _sizes(b, s, P, pp, loc, size)
        track_one(b, s, P, g, loc, hist, start, qmask, size, poss, tsize, False, prop)
        for c in range(NC):
            m = poss[c]
            a = 0
            for o in range(P):
                if (m >> o) & 1:
                    x = s + o
                    a |= 1 << (x - P if x >= P else x)
            if (m >> P) & 1:
                a |= 1 << W_MISSING
            if P == 2 and (m >> (P + 1)) & 1:
                a |= 1 << W_DRAW
            out[i, c] = a


@njit(cache=True)
def _deal_one(i, hid, nh, al, cap, rs, tries, out):
    """Deal the hidden cards ``hid[:nh]`` (canonical order) to places: each card to a place of
    its set ``al[c]`` (bits), place x taking ``cap[x]`` cards, the box one card of each animal.
    Uniform over such deals (rejection: the box first, then a shuffle dealt round the places);
    returns False after ``tries`` failures. ``out[c]`` gets the place of card c."""
    left = cap.copy()
    free = np.empty(nh, np.int64)
    nf = 0
    # a card with one possible place is there; the box's animals it fills are done
    box_done = np.zeros(NA, np.bool_)
    for j in range(nh):
        c = hid[j]
        a = al[c]
        if a == 0:
            return False
        if a & (a - 1) == 0:
            x = 0
            while (a >> x) & 1 == 0:
                x += 1
            out[c] = x
            left[x] -= 1
            if left[x] < 0:
                return False
            if x == W_MISSING:
                if box_done[c // NN]:
                    return False
                box_done[c // NN] = True
        else:
            free[nf] = c
            nf += 1
    cand = np.empty((NA, NN), np.int64)
    ncand = np.zeros(NA, np.int64)
    for j in range(nf):
        c = free[j]
        if (al[c] >> W_MISSING) & 1 and not box_done[c // NN]:
            a = c // NN
            cand[a, ncand[a]] = c
            ncand[a] += 1
    for a in range(NA):
        if not box_done[a] and ncand[a] == 0:
            return False
    rest = np.empty(nf, np.int64)
    chosen = np.zeros(NC, np.bool_)
    for _ in range(tries):
        for a in range(NA):
            if not box_done[a]:
                chosen[cand[a, below(rs, i, ncand[a])]] = True
        m = 0
        for j in range(nf):
            c = free[j]
            if chosen[c]:
                out[c] = W_MISSING
            else:
                rest[m] = c
                m += 1
        shuffle_row(rest, m, rs, i)
        ok = True
        j = 0
        for x in range(8):
            if x == W_MISSING:
                continue
            for _k in range(left[x]):
                c = rest[j]
                j += 1
                if (al[c] >> x) & 1 == 0:
                    ok = False
                    break
                out[c] = x
            if not ok:
                break
        for j2 in range(nf):
            chosen[free[j2]] = False
        if ok and j == m:
            return True
    return False


@njit(cache=True)
def _deal_worlds(seat, g, pp, loc, qdeck, pile, start, hist, guess, rs, params, allowed, qmask,
                 seen_guesses, tries, how):
    """Row i of these arrays is a copy of a real game: deal again, from stream i, everything
    ``seat[i]`` cannot see. ``allowed[i, c]``: the places (bits, W_*) card c can be in after
    the finished exchanges (``track``); the exchange under way is added here. ``how[i]``: 0
    dealt within the card sets, 1 within the structure only (the sets had no deal within
    ``tries``), 2 the box and hand sizes only."""
    nplayers = params[P_PLAYERS]
    hid = np.empty(NC, np.int64)
    al = np.zeros(NC, np.int64)
    out = np.zeros(NC, np.int64)
    cap = np.zeros(8, np.int64)
    draw = np.empty(NC, np.int64)
    for i in range(g.shape[0]):
        s = seat[i]
        ph = g[i, PHASE]
        exchange = ph == PASS or ph == GIVE
        known = g[i, OUTM] if exchange else 0
        cap[:] = 0
        nh = 0
        for c in range(NC):
            x = loc[i, c]
            if (known >> c) & 1:
                continue
            if x < nplayers and x != s:
                w = x
            elif x == MISSING:
                w = W_MISSING
            elif x == DRAW:
                w = W_DRAW
            elif x == TO_ASKER:
                w = W_TRANSIT
            else:
                continue
            cap[w] += 1
            hid[nh] = c
            nh += 1
        capm = 0
        for x in range(8):
            if cap[x] > 0:
                capm |= 1 << x
        t = g[i, TGT]
        qm = qmask[g[i, QUEST]] if exchange else 0
        for j in range(nh):
            c = hid[j]
            a = np.int64(allowed[i, c])
            if (qm >> c) & 1:
                if ph == PASS and (a >> t) & 1:
                    a |= 1 << W_TRANSIT      # every card of the question the target held
                if ph == PASS or (g[i, INM] >> c) & 1 == 0:
                    a &= ~(1 << t)
            al[c] = a & capm
        level = 0
        if not _deal_one(i, hid, nh, al, cap, rs, tries, out):
            # fallback: any hand, the box any card of its animal, transit the question's cards
            level = 1
            for j in range(nh):
                c = hid[j]
                a = capm & ~(1 << W_TRANSIT)
                if (qm >> c) & 1:
                    a |= capm & (1 << W_TRANSIT)
                al[c] = a
            if not _deal_one(i, hid, nh, al, cap, rs, tries, out):
                level = 2
                for j in range(nh):
                    al[hid[j]] = capm
                _deal_one(i, hid, nh, al, cap, rs, tries, out)
        how[i] = level
        # the world: hidden cards where dealt, the reserve in a new order
        nd = 0
        inm = 0
        for j in range(nh):
            c = hid[j]
            loc[i, c] = W_LOC[out[c]]
            if out[c] == W_DRAW:
                draw[nd] = c
                nd += 1
            elif out[c] == W_TRANSIT:
                inm |= np.int64(1) << c
        shuffle_row(draw, nd, rs, i)
        d0 = pile.shape[1] - nd
        for j in range(pile.shape[1]):
            pile[i, j] = draw[j - d0] if j >= d0 else -1
        # the question deck's unseen part, in a new order
        q0 = g[i, QPOS]
        if ph == TARGET or ph == QUESTION or exchange:
            q0 += 3
        if q0 < NQC:
            rest = qdeck[i, q0:]
            rest.sort()
            shuffle_row(rest, NQC - q0, rs, i)
        # what others alone know: their dealt hands, their own exchanges and draws
        if ph == PASS:
            g[i, INM] = inm
        elif not exchange:
            g[i, INM] = 0
            g[i, OUTM] = 0
        for p in range(nplayers):
            if p != s:
                m = np.int64(0)
                for c in range(NC):
                    if loc[i, c] == p:
                        m |= np.int64(1) << c
                start[i, p] = m
        for j in range(g[i, NH]):
            ty = hist[i, j, 0]
            if ty == H_ASK and hist[i, j, 1] != s and hist[i, j, 2] != s:
                hist[i, j, 6] = 0
                hist[i, j, 7] = 0
            elif ty == H_DRAW and hist[i, j, 1] != s:
                hist[i, j, 6] = 0
        # sealed guesses of others: made (the order is public) but unknown, counted as none
        for p in range(nplayers):
            for a in range(NA):
                if p != s and not seen_guesses:
                    made = ph == GUESS and (p < g[i, GUESSER] or
                                            (p == g[i, GUESSER] and a < g[i, GANIMAL]))
                    guess[i, p, a] = 0 if made else -1
            right = 0
            wrong = 0
            for a in range(NA):
                v = guess[i, p, a]
                if v > 0:
                    if loc[i, a * NN + v - 1] == MISSING:
                        right += 1
                    else:
                        wrong += 1
            pp[i, p, RIGHT] = right
            pp[i, p, WRONG] = wrong
            pp[i, p, SCORE] = pp[i, p, MELD_PTS] + right * params[P_RIGHT] + wrong * params[P_WRONG]


# ---- the observation ----------------------------------------------------------------------------

@dataclass
class Obs(Observation):
    """What the player to move knows. Per-player arrays are rotated: index 0 is this player,
    index o the player o seats to the left (the target actions name the same offsets).

    ``hist`` is everything the seat has seen happen, in order (rows from ``n_hist`` on are 0):
    (type, seat offset, target offset, question or meld number, count, the asker's hand size
    at the question, cards this seat received, cards this seat gave) as 30-bit sets; type H_ASK
    (the received/given sets are 0 unless this seat asked or was asked), H_MELD (column 6: the
    melded cards, public), H_DRAW (column 6: the card drawn, only for the drawer)."""

    game: np.ndarray        # int64[n]
    seat: np.ndarray        # int8[n]
    kind: np.ndarray        # int8[n] MELD, TARGET, QUESTION, PASS, GIVE, GUESS
    turn: np.ndarray        # int16[n] turns finished
    q_left: np.ndarray      # int16[n] question cards left (this turn's three included)
    flipped: np.ndarray     # int8[n, 3] the three question cards turned up (-1 outside the ask)
    target: np.ndarray      # int8[n] offset of the player asked (-1 before it is chosen)
    question: np.ndarray    # int16[n] the question being answered (PASS / GIVE), else -1
    count: np.ndarray       # int8[n] its answer (PASS / GIVE), else -1
    need: np.ndarray        # int8[n] cards still to pass back or give back
    hand: np.ndarray        # bool[n, 30] this player's hand (at PASS: not the cards coming in)
    table: np.ndarray       # int8[n, 30] face up: P; melded by offset o: o; else -1
    hand_size: np.ndarray   # int16[n, P]
    meld_pts: np.ndarray    # int16[n, P]
    draw_left: np.ndarray   # int8[n] cards left in the two-player draw pile
    hist: np.ndarray        # int32[n, H, 8]
    n_hist: np.ndarray      # int16[n]
    start_hand: np.ndarray  # int64[n] the hand dealt to this player (30-bit set)
    guess: np.ndarray       # int8[n, P, 5] guesses made (own always; others' with guesses_seen)
    animal: np.ndarray      # int8[n] the animal being guessed (GUESS), else -1
    players: int             # players at the table
    two_player_draw: bool    # the two-player variant: the third hand is a draw pile
    reserve_rule: int        # two players: 0 no draws, 1 an empty hand draws, 2 a zero answer draws

    @cached_property
    def seen(self) -> np.ndarray:
        """bool[n, 30]: cards this player has seen: dealt, held, on the table, received."""
        bits = np.zeros(len(self.game), np.int64) | self.start_hand
        ty = self.hist[:, :, 0]
        got = np.where((ty == H_ASK) | (ty == H_MELD) | (ty == H_DRAW), self.hist[:, :, 6], 0)
        bits |= np.bitwise_or.reduce(got.astype(np.int64), axis=1)
        out = ((bits[:, None] >> np.arange(NC)) & 1).astype(bool) | self.hand | (self.table >= 0)
        return read_only(out)

    @cached_property
    def allowed(self) -> np.ndarray:
        """bool[n, N_QUESTIONS]: the questions the three flipped cards allow (TARGET and
        QUESTION; all False otherwise)."""
        return read_only(allowed_questions(self.flipped))

    # the actions by meaning (numbers as A_MELD ... A_NO_GUESS lay them out)
    @action_helper
    def meld_action(self, number) -> np.ndarray:
        """Action (MELD): meld all cards numbered ``number`` (1-6)."""
        return A_MELD + np.asarray(number, np.int64) - 1

    @action_helper
    def stop_meld_action(self) -> int:
        """Action (MELD): stop melding."""
        return A_ASK

    @action_helper
    def ask_action(self, offset) -> np.ndarray:
        """Action (TARGET): ask the player ``offset`` seats to the left."""
        return A_TARGET + np.asarray(offset, np.int64) - 1

    @action_helper
    def question_action(self, question) -> np.ndarray:
        """Action (QUESTION): ask question number ``question`` (an index of ``allowed``)."""
        return A_QUESTION + np.asarray(question, np.int64)

    @action_helper
    def card_action(self, card) -> np.ndarray:
        """Action (PASS / GIVE): pass, or give back, card ``card`` (an index of ``hand``:
        animal * 6 + number - 1)."""
        return A_CARD + np.asarray(card, np.int64)

    @action_helper
    def guess_action(self, number) -> np.ndarray:
        """Action (GUESS): guess that the animal's missing card is numbered ``number`` (1-6)."""
        return A_GUESS + np.asarray(number, np.int64) - 1

    @action_helper
    def no_guess_action(self) -> int:
        """Action (GUESS): make no guess."""
        return A_NO_GUESS


# ---- what a seat can know: the places each card can be in ----------------------------------------
# (the deducer strategy reads it, and so does ``determinize``: one account of the seat's knowledge)

BITS = np.arange(NC)
QBITS = ((QMASK[:, None] >> BITS) & 1).astype(bool)      # [336, 30]


def _bits(mask: np.ndarray) -> np.ndarray:
    return ((mask.astype(np.int64)[:, None] >> BITS) & 1).astype(bool)


def track(obs: Obs, fallback: bool = True, propagate: bool = True) -> np.ndarray:
    """uint8[n, 30]: the places each card can be in (0: on the table, known). With
    ``fallback=False`` a contradiction is left as 0 (the soundness test looks for it).
    After every history row the sets are narrowed to a fixed point by the place sizes of that
    moment (every hand dealt as many as the seat's own, less its melds, plus its draws; the box
    one card of each animal; the reserve the rest), so each row's count meets every card
    pinned down before it. ``propagate`` (default) narrows them again by the present sizes at
    the end; it needs a position outside an exchange (at PASS and GIVE the cards in transit are
    in no hand), so ``determinize`` leaves it out there and the current exchange to its own
    kernel."""
    n, P = len(obs), obs.players
    X = P + 2 if P == 2 else P + 1
    me, mb = 1, 1 << P
    others = ((1 << P) - 1) & ~me
    rows = np.arange(n)
    poss = np.full((n, NC), others | mb | ((1 << (P + 1)) if P == 2 else 0), np.uint8)
    # the place sizes as the history goes: all hands (and the reserve) dealt alike
    dealt = _bits(obs.start_hand).sum(axis=1)
    size = np.zeros((n, X), np.int64)
    size[:, :P] = dealt[:, None]
    size[:, P] = NA
    if P == 2:
        size[:, P + 1] = dealt
    poss[_bits(obs.start_hand)] = me
    poss[obs.table == P] = 0          # the face-up card (melds are replayed in order)
    for j in range(int(obs.n_hist.max(initial=0))):
        h = obs.hist[:, j]
        ty, who, tg = h[:, 0], h[:, 1], h[:, 2]
        inb, outb = _bits(h[:, 6]), _bits(h[:, 7])
        live = j < obs.n_hist
        meld = (ty == H_MELD) & live
        if meld.any():
            poss[inb & meld[:, None]] = 0
            size[rows, who] -= np.where(meld, h[:, 4], 0)
        dr = (ty == H_DRAW) & live
        if dr.any():
            size[rows, who] += dr
            size[:, X - 1] -= dr
            mine = dr & (who == 0)
            poss[inb & mine[:, None]] = me
            other = dr & (who != 0)
            add = (np.uint8(1) << np.minimum(who, 7).astype(np.uint8))[:, None]
            has_pile = ((poss >> (P + 1)) & 1).astype(bool) & other[:, None]
            poss = np.where(has_pile, poss | add, poss)
        ask = (ty == H_ASK) & live
        if not ask.any():
            poss = _fix(poss, size, X, P)
            continue
        q = np.where(ask, h[:, 3], 0)
        Q = QBITS[q] & ask[:, None]
        k, hold = h[:, 4][:, None], h[:, 5][:, None]
        A = (np.uint8(1) << who.astype(np.uint8))[:, None]
        T = (np.uint8(1) << tg.astype(np.uint8))[:, None]
        asker = (ask & (who == 0))[:, None]
        target = (ask & (tg == 0))[:, None]
        third = ask[:, None] & ~asker & ~target
        # the asker knows what came and went; the rest of the question was not at the target
        poss = np.where(Q & asker, poss & ~T, poss)
        poss = np.where(inb & asker, me, poss)
        poss = np.where(outb & asker, T, poss)
        # the target knows both sides of the exchange
        poss = np.where(outb & target, A, poss)
        poss = np.where(inb & target, me, poss)
        # everybody else: the count only. As many could be at the target as it had: all were;
        # as many surely there as it had: no other card of the question was
        hasT = (poss & T) != 0
        sureT = poss == T
        sat = ((Q & hasT).sum(axis=1, keepdims=True) == k) & third
        excl = ((Q & sureT).sum(axis=1, keepdims=True) == k) & third
        old = np.where(Q & hasT & sat, T, poss)
        old = np.where(Q & ~sureT & excl, old & ~T, old)
        hasA, hasT = (old & A) != 0, (old & T) != 0
        a_part = np.where(hasA, np.where(hold > k, A | T, T), 0)
        t_part = np.where(hasT, np.where(Q, np.where(hold < k, A | T, A), T), 0)
        moved = (old & ~(A | T)) | a_part.astype(np.uint8) | t_part.astype(np.uint8)
        none_ = (k == 0) & third
        poss = np.where(third & ~none_, moved, poss)
        poss = np.where(Q & none_, poss & ~T, poss)
        poss = _fix(poss, size, X, P)
    # my hand is known exactly, and so is the table
    poss = np.where(obs.hand, me, poss & ~np.uint8(me))
    poss[obs.table >= 0] = 0
    if propagate:
        poss = _fix(poss, place_sizes(obs), X, P)
    # a contradiction (none should arise) falls back to "anywhere but here"
    if not fallback:
        return poss
    lost = (poss == 0) & (obs.table < 0)
    return np.where(lost, np.uint8(others | mb), poss)


def world_sets(state: State, games: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """int32[n, 30]: the places (W_* bits: a seat's hand by absolute seat, the box, the reserve)
    each card can be in for ``seat[i]`` in game ``games[i]``, after the finished exchanges: what
    ``determinize`` deals within. ``track(observe(...), fallback=False)`` (propagated outside an
    exchange) compiled, the same sets (a test compares them at random positions)."""
    games = np.ascontiguousarray(games, np.int64)
    out = np.zeros((len(games), NC), np.int32)
    _track_worlds(games, np.ascontiguousarray(seat, np.int64), state.g, state.pp, state.loc,
                  state.hist, state.start, QMASK, np.zeros(8, np.int64), np.zeros(NC, np.int64),
                  np.zeros(8, np.int64), out)
    return out


def place_sizes(obs: Obs) -> np.ndarray:
    """int[n, X]: cards in each place (hands, the box, the reserve hand)."""
    P = obs.players
    size = np.zeros((len(obs), P + 2), np.int64)
    size[:, :P] = obs.hand_size
    size[:, P] = NA
    if P == 2:
        size[:, P + 1] = np.maximum(
            0, NC - NA - obs.hand_size.sum(axis=1) - (obs.table >= 0).sum(axis=1))
    return size


def _fix(poss: np.ndarray, size: np.ndarray, X: int, P: int) -> np.ndarray:
    """Narrow the sets by the place sizes ``size[:, x]`` and one missing card per animal until
    nothing changes: a place with as many cards surely there as its size holds no other; a
    place with as many possible cards as its size holds them all; an animal with one possible
    box card has it in the box, one with a box card known has no other there."""
    mb = np.uint8(1 << P)
    while True:
        before = poss
        for x in range(X):
            bit = np.uint8(1 << x)
            has = (poss & bit) != 0
            sure = poss == bit
            full = (sure.sum(axis=1) >= size[:, x])[:, None]
            poss = np.where(has & ~sure & full, poss & ~bit, poss)
            has = (poss & bit) != 0
            tight = (has.sum(axis=1) == size[:, x])[:, None]
            poss = np.where(has & tight, bit, poss)
        m = ((poss & mb) != 0).reshape(-1, NA, NN)
        sure = (poss == mb).reshape(-1, NA, NN)
        one = (m.sum(axis=2, keepdims=True) == 1) & m
        poss = np.where(one.reshape(-1, NC), mb, poss)
        done = sure.any(axis=2, keepdims=True) & ~sure & m
        poss = np.where(done.reshape(-1, NC), poss & ~mb, poss)
        if np.array_equal(poss, before):
            return poss


class Deducktion(Game):
    id = "deducktion"
    measures = ("missing_found", "guesses_decided")
    name = "Deducktion"
    min_players = 2
    max_players = 5
    Rules = Rules
    score_name = "points"
    decision_kinds = ("meld a rank or ask", "choose the player to ask", "choose the question",
                      "pass back a card before looking", "give back a card after looking",
                      "guess a missing card")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return N_ACTIONS

    def card_name(self, c: int) -> str:
        return f"{ANIMALS[c // NN]} {c % NN + 1}"

    def qcard_name(self, q: int) -> str:
        return f"{SUITS[q // NN]} {q % NN + 1}"

    def action_name(self, rules: Rules, n_players: int, a: int) -> str:
        if a < A_ASK:
            return f"meld the {a - A_MELD + 1}s"
        if a == A_ASK:
            return "stop melding"
        if a < A_QUESTION:
            return f"ask the player {a - A_TARGET + 1} to the left"
        if a < A_CARD:   # a sequence from a number to itself is no question: its number is unused
            return QNAMES[a - A_QUESTION] or "(unused: no question has this number; never legal)"
        if a < A_GUESS:
            return f"pass the {self.card_name(a - A_CARD)}"
        if a < A_NO_GUESS:
            return f"guess number {a - A_GUESS + 1}"
        return "no guess"

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)

    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        batch = len(keys)
        h = rules.hand_sizes[max(n_players, 3) - 3]
        draw = RESERVE_RULES.index(rules.two_player_reserve) if n_players == 2 else DRAW_NONE
        params = np.array([n_players, h, rules.question_decks, rules.guess_right,
                           rules.guess_wrong, draw, 1 if rules.final_meld else 0,
                           *rules.meld_points, 1 if rules.add_to_meld else 0], np.int64)
        st = State(n_players=n_players, rules=rules, params=params,
                   g=np.zeros((batch, NG), np.int32),
                   pp=np.zeros((batch, n_players, NPP), np.int32),
                   loc=np.zeros((batch, NC), np.int8), qdeck=np.zeros((batch, NQC), np.int8),
                   pile=np.zeros((batch, max(h, 1)), np.int8),
                   start=np.zeros((batch, n_players), np.int64),
                   hist=np.zeros((batch, hist_len(rules), NHIST), np.int32),
                   guess=np.full((batch, n_players, NA), -1, np.int8),
                   ev=np.zeros((batch, (200 * rules.question_decks + 60) if log else 0, 6),
                               np.int32),
                   rs=np.array(keys, dtype=np.uint64),
                   drama=drama.drama_new(batch, n_players))
        _init(st.g, st.pp, st.loc, st.qdeck, st.pile, st.start, st.hist, st.ev, st.rs, st.params,
              np.empty(NC, np.int8))
        self._refresh(st, np.arange(batch))
        return st

    def _refresh(self, st: State, games: np.ndarray, fresh: bool = True) -> None:
        if fresh or st.mover is None:
            st.mover = np.empty(len(st.g), np.int64)
            st.legal_ = np.empty((len(st.g), N_ACTIONS), np.bool_)
        _views(np.asarray(games, np.int64), st.g, st.pp, st.loc, st.qdeck, st.params, st.mover,
               st.legal_)

    # -- worlds for search
    constant_fields = ("params",)

    def clone(self, state: State, rows: np.ndarray) -> State:
        st = super().clone(state, rows)
        self._refresh(st, np.arange(len(st.g)))
        return st

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        """Worlds for search (see ``Game.determinize`` and the rules notes, "Worlds for
        search"): the cards ``seat`` cannot see are dealt again within the sets of places
        ``track`` leaves them (its answers, passes, draws, melds and the hand sizes), the box one
        card of each animal, the reserve and the question deck's unseen part in a new order."""
        games = np.asarray(games, np.int64)
        seat = np.asarray(seat, np.int64)
        if not np.array_equal(seat, state.mover[games]):
            raise ValueError("deducktion deals worlds for the seat to move only")
        n, P = len(games), state.n_players
        w = self.clone(state, games)
        w.rs = np.array(keys, dtype=np.uint64)
        # tracked once per observed game: its worlds (a search deals many) share the observation
        once, first, world_of = np.unique(games, return_index=True, return_inverse=True)
        allowed = world_sets(state, once, seat[first])[world_of.reshape(-1)]
        w.dealt = np.zeros(n, np.int8)
        _deal_worlds(seat, w.g, w.pp, w.loc, w.qdeck, w.pile, w.start, w.hist, w.guess, w.rs,
                     w.params, allowed, QMASK, state.rules.guesses_seen, WORLD_TRIES, w.dealt)
        self._refresh(w, np.arange(n))
        return w

    def to_move(self, state: State) -> np.ndarray:
        return state.mover

    def legal(self, state: State) -> np.ndarray:
        return state.legal_

    def observe(self, state: State, games: np.ndarray) -> Obs:
        games = np.asarray(games, dtype=np.int64)
        n, P, H = len(games), state.n_players, state.hist.shape[1]
        o = Obs(game=games.copy(), seat=np.empty(n, np.int8), kind=np.empty(n, np.int8),
                turn=np.empty(n, np.int16), q_left=np.empty(n, np.int16),
                flipped=np.empty((n, 3), np.int8), target=np.empty(n, np.int8),
                question=np.empty(n, np.int16), count=np.empty(n, np.int8),
                need=np.empty(n, np.int8), hand=np.empty((n, NC), np.bool_),
                table=np.empty((n, NC), np.int8), hand_size=np.empty((n, P), np.int16),
                meld_pts=np.empty((n, P), np.int16), draw_left=np.empty(n, np.int8),
                hist=np.zeros((n, H, NHIST), np.int32), n_hist=np.empty(n, np.int16),
                start_hand=np.empty(n, np.int64), guess=np.empty((n, P, NA), np.int8),
                animal=np.empty(n, np.int8), players=P,
                two_player_draw=bool(state.params[P_DRAW]),
                reserve_rule=int(state.params[P_DRAW]))
        _observe(games, state.g, state.pp, state.loc, state.qdeck, state.hist, state.start,
                 state.guess, state.params, state.rules.guesses_seen, o.seat, o.kind, o.turn,
                 o.q_left, o.flipped, o.target, o.question, o.count, o.need, o.hand, o.table,
                 o.hand_size, o.meld_pts, o.draw_left, o.hist, o.n_hist, o.start_hand, o.guess,
                 o.animal)
        return o

    def step(self, state: State, actions: np.ndarray) -> None:
        state.mover = np.empty(len(state.g), np.int64)
        state.legal_ = np.empty(state.legal_.shape, np.bool_)
        _step(np.asarray(actions, np.int64), state.g, state.pp, state.loc, state.qdeck,
              state.pile, state.hist, state.guess, state.ev, state.rs, QMASK, state.params,
              state.drama, state.mover, state.legal_)

    def scores(self, state: State) -> np.ndarray:
        r = state.rules
        pp = state.pp.astype(np.int64)
        return (pp[:, :, MELD_PTS] + r.guess_right * pp[:, :, RIGHT]
                + r.guess_wrong * pp[:, :, WRONG]).astype(np.float64)

    def running_score(self, state: State) -> np.ndarray:
        """The score if the game were scored now (issue 16): the melds on the table (3 / 5 / 7)
        and the guesses already made (+5 / -3); the final score once the last guess is made.
        Cards in hand count nothing (docs/rules/deducktion.md, "Running score")."""
        return self.scores(state)

    def outcome(self, state: State) -> Outcome:
        score = self.scores(state)
        rank, win = ranks_and_wins(score)
        pp = state.pp
        return Outcome(
            score=score, rank=rank, win=win, turns=state.g[:, TURNS].copy(),
            stats={
                "meld_points": pp[:, :, MELD_PTS].copy(),
                "melds": pp[:, :, MELDS].copy(),
                "melded_cards": pp[:, :, MELD_CARDS].copy(),
                "guesses_right": pp[:, :, RIGHT].copy(),
                "guesses_wrong": pp[:, :, WRONG].copy(),
                "asks": pp[:, :, ASKS].copy(),
                "cards_received": pp[:, :, RECEIVED].copy(),
                "empty_answers": pp[:, :, EMPTY_ANSWERS].copy(),
                "draws": pp[:, :, DRAWS].copy(),
                "cards_left": pp[:, :, HAND_N].copy(),
                # the designer's measures (docs/rules/deducktion.md, "Measures"): the missing
                # cards someone named, and whether the guesses changed who won
                "missing_found": self._missing_found(state),
                "guesses_decided": winners_changed(pp[:, :, MELD_PTS], score),
                **drama.drama_stats(state.drama, score, win, False),
            })

    def _missing_found(self, state: State) -> np.ndarray:
        """int32[B]: of the five cards in the box, those at least one player guessed right."""
        # the box's number of each animal, 1 to 6 (a guess of 0 is no guess)
        boxed = (state.loc.reshape(-1, NA, NN) == MISSING).argmax(axis=2) + 1
        named = (state.guess == boxed[:, None, :]).any(axis=1)
        return named.sum(axis=1).astype(np.int32)

    # -- positions (for tests)
    def position(self, state: State, b: int, hands: dict[int, list[int]], missing: list[int],
                 faceup: list[int] = (), questions: list[int] | None = None, cur: int = 0,
                 pile: list[int] = (), qpos: int = 0) -> None:
        """Set game ``b`` to the start of ``cur``'s turn: ``hands[p]`` the cards in p's hand,
        ``missing`` the five cards in the box, ``faceup`` the face-up cards, ``pile`` the
        two-player draw pile (top first), ``questions`` the question deck from its top (the
        rest of the deck follows in its present order), ``qpos`` question cards already used
        (the deck's top is then at ``qpos``)."""
        st = state
        st.g[b] = 0
        st.pp[b] = 0
        st.drama[b] = drama.drama_new(1, st.n_players)[0]
        st.loc[b] = -1
        st.hist[b] = 0
        st.guess[b] = -1
        st.start[b] = 0
        for p, cs in hands.items():
            for c in cs:
                st.loc[b, c] = p
                st.start[b, p] |= 1 << c
            st.pp[b, p, HAND_N] = len(cs)
        for c in missing:
            st.loc[b, c] = MISSING
        for c in faceup:
            st.loc[b, c] = FACEUP
        st.g[b, DRAWPOS] = st.pile.shape[1] - len(pile)
        for i, c in enumerate(pile):
            st.loc[b, c] = DRAW
            st.pile[b, st.g[b, DRAWPOS] + i] = c
        if (st.loc[b] < 0).any():
            raise ValueError(f"cards without a place: {np.flatnonzero(st.loc[b] < 0).tolist()}")
        if questions is not None:
            rest = [int(q) for q in st.qdeck[b] if int(q) not in questions]
            st.qdeck[b] = rest[:qpos] + list(questions) + rest[qpos:]
        st.g[b, QPOS] = qpos
        st.g[b, CUR] = cur
        _start_turn(b, st.g, st.pp, st.loc, st.qdeck, st.pile, st.hist, st.ev, st.rs, st.params)
        self._refresh(st, np.array([b]), fresh=False)

    # -- words
    def describe(self, state: State, i: int) -> str:
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        n = int(state.g[i, NEV])
        lines = []
        cn = self.card_name
        for t, seat, a, b_, c, d in state.ev[i, :n]:
            who = f"P{seat}"
            if t == E_TURN:
                lines.append(f"-- Turn {a}: P{seat} --")
            elif t == E_RESHUFFLE:
                lines.append("(the used question cards are reshuffled)")
            elif t == E_DRAW:
                lines.append(f"{who} draws the {cn(a)} from the reserve hand")
            elif t == E_MELD:
                lines.append(f"{who} melds {b_} cards of number {a + 1}" if c == 0 else
                             f"{who} adds {b_} card(s) of number {a + 1} to the meld of {c}")
            elif t == E_FLIP:
                lines.append(f"{who} turns up {self.qcard_name(a)}, {self.qcard_name(b_)}, "
                             f"{self.qcard_name(c)}")
            elif t == E_ASK:
                lines.append(f"{who} asks P{a}: {QNAMES[b_]} P{a} has {c}")
                if c > 0:
                    given = [cn(x) for x in range(NC) if (int(d) >> x) & 1]
                    lines.append(f"   P{a} passes the {', '.join(given)} face down")
            elif t == E_PASS:
                lines.append(f"   {who} passes back the {cn(b_)}")
            elif t == E_WHOLE:
                lines.append(f"   {who} passes the whole hand ({b_} cards)")
            elif t == E_GIVE:
                lines.append(f"   {who} gives back the {cn(b_)}")
            elif t == E_END:
                lines.append(f"== The question deck is used up after {a} turn(s): guesses ==")
            elif t == E_GUESS:
                lines.append(f"{who} guesses the missing {ANIMALS[a]}: "
                             + ("none" if b_ == 0 else f"{b_}"))
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        miss = [cn(c) for c in np.flatnonzero(state.loc[i] == MISSING)]
        if state.g[i, PHASE] == OVER:
            lines.append("missing: " + ", ".join(miss))
            lines.append("scores: " + ", ".join(f"P{p} {s:g}" for p, s in
                                                enumerate(self.scores(state)[i])))
        return "\n".join(lines)

    def zones(self, state: State, b: int) -> dict[str, list[int]]:
        z: dict[str, list[int]] = {}
        for c in range(NC):
            z.setdefault(int(state.loc[b, c]), []).append(c)
        return z


GAME = Deducktion()

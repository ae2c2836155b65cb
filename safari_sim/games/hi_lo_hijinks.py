"""Hi-Lo Hijinks (duck! duck! SAFARI!, APE Games), 2-4 players, with the younger players' variant.

The module follows the rulebook (../shared/rules/duck-duck-safari.txt, section "Hi-Lo Hijinks")
in its order: Components, Setup, On Your Turn, Ending the Game, Scoring and Winning, For Younger
Players. Every reading of a gap is in docs/rules/hi_lo_hijinks.md.

Cards are *kinds*: the two copies of "3 Zebra" cannot be told apart and play the same, so every
zone holds kinds (the deck and the stacks as ordered lists, hands and piles as counts). Kind
``k`` has type ``k // values`` (0 elephant .. 4 zebra, ``animals`` = the explorer) and number
``k % values + 1``.

Every card on a stack or in a pile was played face up (or laid out as a starter), so their
contents are public to a player who remembers; the observation carries them, the player's own
hand, the hand sizes, and the counts of unseen kinds (other hands and the deck), never the deck's
order or another hand.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numba import njit

from ..engine import drama
from ..engine.chance import shuffle_row
from ..engine.events import log_event
from ..engine.protocol import action_helper
from ..engine.protocol import (Game, Observation, Outcome, RulesError, ranks_and_wins, read_only,
                               rule, winners_changed)

ANIMAL_NAMES = ("Elephant", "Lion", "Monkey", "Tiger", "Zebra")


# ---- Components ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    animals: int = rule(5, "animal types, one stack each (elephant, lion, monkey, tiger, zebra)",
                         search=range(3, 6))
    copies: int = rule(2, "sets of cards of each animal (two sets numbered 1 to `values`)",
                        search=range(1, 4))
    values: int = rule(6, "cards are numbered 1 to this (the explorer set too)",
                        search=range(4, 10))
    higher_up_to: int = rule(
        3, "a starter numbered up to this puts its ducky on Higher (wants >= the top card); "
           "above it, on Lower (wants <=)", search=range(0, 7))
    hand_size: int = rule(4, "cards dealt to each player", search=range(2, 8))
    draw_per_turn: int = rule(1, "cards drawn at the end of a turn, while the deck has any",
                               search=range(0, 3))
    reverse_on_match: bool = rule(True, "an exact match may reverse the stack's direction",
                                  search=[True, False])
    give_on_match: bool = rule(
        True, "an exact match may give one card from the hand to another player (off when younger)",
        search=[True, False])
    explorer_points: int = rule(4, "added to the total of the player with the explorer ducky at "
                                   "the end", search=range(0, 9))
    explorer_own_type: bool = rule(
        True, "the explorer cards are a type of their own at scoring (its majority discards them); "
              "false: they belong to no type and always count", search=[True, False])
    majority_tie: str = rule(
        "keep", "players tied for the most cards of a type: 'keep' (none discards: 'more than any "
                "other player') or 'discard' (every tied player discards)",
        search=["keep", "discard"])
    younger: bool = rule(False, "For Younger Players: no explorer cards or ducky, no giving on a "
                                 "match", search=[False, True])

    def validate(self) -> None:
        if not 1 <= self.animals <= len(ANIMAL_NAMES):
            raise RulesError("animals", f"must be from 1 to {len(ANIMAL_NAMES)}")
        if not 1 <= self.copies <= 4:
            raise RulesError("copies", "must be from 1 to 4")
        if not 1 <= self.values <= 9:
            raise RulesError("values", "must be from 1 to 9")
        if not 0 <= self.higher_up_to <= self.values:
            raise RulesError("higher_up_to", "must be from 0 to `values`")
        if self.hand_size < 1:
            raise RulesError("hand_size", "must be at least 1")
        if self.draw_per_turn < 0:
            raise RulesError("draw_per_turn", "must be 0 or more")
        if self.explorer_points < 0:
            raise RulesError("explorer_points", "must be 0 or more")
        if self.majority_tie not in ("keep", "discard"):
            raise RulesError("majority_tie", f"must be 'keep' or 'discard', not {self.majority_tie!r}")

    @property
    def explorer_cards(self) -> int:
        return 0 if self.younger else self.values

    @property
    def n_cards(self) -> int:
        return self.animals * self.copies * self.values + self.explorer_cards


# Decision kinds (obs.kind, state phase)
PLAY = 0      # play a card from the hand
REVERSE = 1   # an exact match: keep or reverse the stack's direction
GIVE = 2      # an exact match: give a card to another player, or not
OVER = 3

# Per-game fields: g[b, ...]
CUR, PHASE, POS, END, TURNS, HOLDER, MSTACK, NEV, LOST, DIRTY = range(10)
NG = 10  # LOST: gifted cards a third player lost track of (see State.known); DIRTY: the
         # standing may have changed this turn (a stack taken, an explorer card played)
# Per-player fields: pp[b, p, ...]
(HAND_LEN, PILE_LEN, TAKES, MATCHES, REVERSALS, GIVES, GOT, EXPLORER_PLAYS, DISCARDED, SCORE,
 STANDING) = range(11)
NPP = 11  # STANDING: the score if the game ended now (the running score of Drama)

# params vector
(P_PLAYERS, P_ANIMALS, P_VALUES, P_CARDS, P_HAND, P_HIGHER, P_EXPTS, P_FLAGS, P_NAK, P_K,
 P_KEEP, P_GIVE0, P_DRAW) = range(13)
F_REVERSE, F_GIVE, F_TIE_DISCARD, F_EXP_TYPE = 1, 2, 4, 8

# Event log: ev[b, i] = (type, seat, a, b, c, d)
(E_STARTER, E_DEAL, E_PLAY, E_TAKE, E_MATCH, E_REVERSE, E_GIVE, E_DRAW, E_DUCKY, E_SCORE,
 E_END, E_SKIP) = range(1, 13)


def action_layout(rules: Rules, n_players: int) -> dict[str, int]:
    """Where each decision's actions start in the flat action space.

    plays come stack by stack: on stack s, the animal's own number v is s * 2 * values + v - 1
    and an explorer card numbered v is s * 2 * values + values + v - 1 (so that a stack's plays
    are neighbours); keep / reverse: keep, keep + 1; give nothing: keep + 2; give kind k to the
    player o seats to the left: give0 + k * (P - 1) + o - 1."""
    nak = rules.animals * rules.values
    keep = nak + rules.animals * rules.values
    k = (rules.animals + 1) * rules.values
    give0 = keep + 3
    return {"nak": nak, "keep": keep, "reverse": keep + 1, "no_give": keep + 2, "give0": give0,
            "kinds": k, "n": give0 + k * (n_players - 1)}


@dataclass
class State:
    n_players: int
    rules: Rules
    params: np.ndarray       # int64[13]
    fresh: np.ndarray        # int8[C]: the full deck by kind, in order
    kind_total: np.ndarray   # int8[K]: cards of each kind in the game
    g: np.ndarray            # int32[B, NG]
    pp: np.ndarray           # int32[B, P, NPP]
    deck: np.ndarray         # int8[B, C]: the draw deck is deck[b, POS:END]
    hand: np.ndarray         # int8[B, P, K]: cards of each kind in each hand
    stack: np.ndarray        # int8[B, S, C]: each stack bottom to top, slen[b, s] cards
    slen: np.ndarray         # int16[B, S]
    higher: np.ndarray       # int8[B, S]: 1 when the ducky is on Higher
    stype: np.ndarray        # int8[B, S, T]: cards of each type in each stack
    pile: np.ndarray         # int8[B, P, K]: each player's face-down pile by kind
    ptype: np.ndarray        # int16[B, P, T]: the piles by type
    pub: np.ndarray          # int8[B, K]: cards of each kind on the stacks or in the piles
    known: np.ndarray        # int8[B, P, P, K]: known[b, o, q, k] cards of kind k that seat o
                             #   knows are in q's hand (cards o gave q face down, not yet played)
    dr: np.ndarray           # int32[B, drama width]: the lead over the turns (engine.drama)
    ev: np.ndarray           # int32[B, L, 6]
    rs: np.ndarray           # uint64[B]
    view: Any = None
    all_games: Any = None


# ---- Setup --------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _setup(b, g, pp, deck, rs, hand, stack, slen, higher, stype, pub, ev, fresh, params, shuffle):
    """Starters: the first card drawn of each animal starts its stack (explorer cards and repeated
    animals go back); the rest is shuffled and `hand_size` cards are dealt to each player."""
    ncards = params[P_CARDS]
    nanimals = params[P_ANIMALS]
    values = params[P_VALUES]
    if shuffle:
        for i in range(ncards):
            deck[b, i] = fresh[i]
        shuffle_row(deck[b], ncards, rs, b)
    found = 0
    n = 0
    for i in range(ncards):
        k = deck[b, i]
        t = k // values
        if t < nanimals and (found >> t) & 1 == 0:
            found |= 1 << t
            stack[b, t, 0] = k
            slen[b, t] = 1
            stype[b, t, t] = 1
            pub[b, k] += 1
            v = k % values + 1
            higher[b, t] = 1 if v <= params[P_HIGHER] else 0
            log_event(ev, g, NEV, b, E_STARTER, -1, t, k, higher[b, t], 0)
        else:
            deck[b, n] = k
            n += 1
    shuffle_row(deck[b], n, rs, b)
    g[b, POS] = 0
    g[b, END] = n
    g[b, HOLDER] = -1
    g[b, MSTACK] = -1
    g[b, CUR] = 0
    g[b, PHASE] = PLAY
    for r in range(params[P_HAND]):
        for p in range(params[P_PLAYERS]):
            k = deck[b, g[b, POS]]
            g[b, POS] += 1
            hand[b, p, k] += 1
            pp[b, p, HAND_LEN] += 1
            log_event(ev, g, NEV, b, E_DEAL, p, k, 0, 0, 0)


# ---- On Your Turn -------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _play(b, p, k, s, g, pp, hand, stack, slen, higher, stype, pile, ptype, pub, ev, params):
    """Play kind ``k`` on stack ``s``; returns True on an exact match (the turn goes on)."""
    values = params[P_VALUES]
    nanimals = params[P_ANIMALS]
    t = k // values
    v = k % values + 1
    hand[b, p, k] -= 1
    pp[b, p, HAND_LEN] -= 1
    pub[b, k] += 1
    n = slen[b, s]
    tv = stack[b, s, n - 1] % values + 1
    wanted = v >= tv if higher[b, s] == 1 else v <= tv
    log_event(ev, g, NEV, b, E_PLAY, p, k, s, stack[b, s, n - 1], higher[b, s])
    if t == nanimals:  # an explorer card: its player takes the explorer ducky
        pp[b, p, EXPLORER_PLAYS] += 1
        if g[b, HOLDER] != p:
            log_event(ev, g, NEV, b, E_DUCKY, p, g[b, HOLDER], 0, 0, 0)
        g[b, HOLDER] = p
        g[b, DIRTY] = 1
    if wanted:
        stack[b, s, n] = k
        slen[b, s] = n + 1
        stype[b, s, t] += 1
        if v == tv:
            pp[b, p, MATCHES] += 1
            log_event(ev, g, NEV, b, E_MATCH, p, s, 0, 0, 0)
            return True
        return False
    # not wanted: the whole stack goes face down into the player's pile; the card starts anew
    for i in range(n):
        c = stack[b, s, i]
        pile[b, p, c] += 1
        ptype[b, p, c // values] += 1
    for x in range(nanimals + 1):
        stype[b, s, x] = 0
    pp[b, p, PILE_LEN] += n
    pp[b, p, TAKES] += 1
    g[b, DIRTY] = 1
    stack[b, s, 0] = k
    slen[b, s] = 1
    stype[b, s, t] = 1
    log_event(ev, g, NEV, b, E_TAKE, p, s, n, 0, 0)
    return False


# ---- Ending the Game / Scoring and Winning ------------------------------------------------------

@njit(cache=True, _nrt=False)
def _count(b, g, pp, ptype, params, col):
    """Each type's majority holder discards it (ties: `majority_tie`); the rest counts, plus the
    explorer points for the ducky's holder: into pp[b, :, col] (DISCARDED as it goes)."""
    nplayers = params[P_PLAYERS]
    ntypes = params[P_ANIMALS] + (1 if params[P_FLAGS] & F_EXP_TYPE else 0)
    for p in range(nplayers):
        pp[b, p, DISCARDED] = 0
    for t in range(ntypes):
        mx = 0
        at = 0
        for p in range(nplayers):
            c = ptype[b, p, t]
            if c > mx:
                mx = c
                at = 1
            elif c == mx:
                at += 1
        if mx > 0 and (at == 1 or params[P_FLAGS] & F_TIE_DISCARD):
            for p in range(nplayers):
                if ptype[b, p, t] == mx:
                    pp[b, p, DISCARDED] += mx
    for p in range(nplayers):
        sc = pp[b, p, PILE_LEN] - pp[b, p, DISCARDED]
        if g[b, HOLDER] == p:
            sc += params[P_EXPTS]
        pp[b, p, col] = sc


@njit(cache=True, _nrt=False)
def _standings(g, pp, ptype, params):
    """The count (``_count``) of every game into pp[:, :, SCORE]: given a copy of pp, it is the
    running score (``HiLoHijinks.running_score``)."""
    for b in range(g.shape[0]):
        _count(b, g, pp, ptype, params, np.int64(SCORE))


@njit(cache=True, _nrt=False)
def _score(b, g, pp, ptype, ev, params):
    """The final count (``_count``), logged."""
    _count(b, g, pp, ptype, params, np.int64(SCORE))  # int64: one compile for both columns
    for p in range(params[P_PLAYERS]):
        sc = pp[b, p, SCORE]
        log_event(ev, g, NEV, b, E_SCORE, p, sc, pp[b, p, PILE_LEN], pp[b, p, DISCARDED],
                  1 if g[b, HOLDER] == p else 0)


@njit(cache=True, _nrt=False)
def _finish_turn(b, g, pp, deck, hand, ptype, dr, ev, params):
    """Draw a card (`draw_per_turn`) if the deck has any, then the next player to the left with
    cards in hand; the game ends when every hand is empty. The running score (what each pile
    would count now) is recorded for Drama once a turn."""
    p = g[b, CUR]
    if g[b, DIRTY]:
        _count(b, g, pp, ptype, params, np.int64(STANDING))
        g[b, DIRTY] = 0
    drama.drama_update(dr, b, pp[b, :, STANDING], True)
    for _ in range(params[P_DRAW]):
        if g[b, POS] >= g[b, END]:
            break
        k = deck[b, g[b, POS]]
        g[b, POS] += 1
        hand[b, p, k] += 1
        pp[b, p, HAND_LEN] += 1
        log_event(ev, g, NEV, b, E_DRAW, p, k, 0, 0, 0)
    g[b, TURNS] += 1
    g[b, MSTACK] = -1
    g[b, PHASE] = PLAY
    nplayers = params[P_PLAYERS]
    for i in range(1, nplayers + 1):
        q = p + i
        q = q - nplayers if q >= nplayers else q
        if pp[b, q, HAND_LEN] > 0:
            g[b, CUR] = q
            if ev.shape[1] > 0:
                for j in range(1, i):  # the players passed over had no cards
                    x = p + j
                    log_event(ev, g, NEV, b, E_SKIP, x - nplayers if x >= nplayers else x,
                              0, 0, 0, 0)
            return
    g[b, PHASE] = OVER
    g[b, CUR] = -1
    _score(b, g, pp, ptype, ev, params)
    log_event(ev, g, NEV, b, E_END, -1, g[b, TURNS], 0, 0, 0)


@njit(cache=True, inline="always", _nrt=False)
def _after_match(b, g, pp, deck, hand, ptype, dr, ev, params, from_reverse):
    """After an exact match: the reversal decision, then the gift, then the draw."""
    if not from_reverse and params[P_FLAGS] & F_REVERSE:
        g[b, PHASE] = REVERSE
    elif params[P_FLAGS] & F_GIVE and pp[b, g[b, CUR], HAND_LEN] > 0:
        g[b, PHASE] = GIVE
    else:
        _finish_turn(b, g, pp, deck, hand, ptype, dr, ev, params)


# ---- What the player to move sees ---------------------------------------------------------------

V_SEAT, V_KIND, V_HOLDER, V_STACK = range(4)
B_TOP, B_HIGHER, B_LEN = range(3)


@dataclass
class View:
    """The decision every game awaits, made fresh at each step (so that an observation handed out
    earlier never changes)."""

    mover: np.ndarray        # int64[B]
    legal: np.ndarray        # bool[B, A]
    small: np.ndarray        # int8[4, B]: V_SEAT, V_KIND, V_HOLDER (offset, -1 board), V_STACK
    deck_left: np.ndarray    # int16[B]
    hand: np.ndarray         # int8[B, K]
    board: np.ndarray        # int8[3, B, S]: top number, Higher (1) or Lower (0), cards
    stack_types: np.ndarray  # int8[B, S, T]
    piles: np.ndarray        # int16[B, P, T] (rotated: 0 = the mover)
    hand_sizes: np.ndarray   # int8[B, P] (rotated)
    unseen: np.ndarray       # int8[B, K]

    @staticmethod
    def empty(batch, n_players, n_actions, nstacks, ntypes, nkinds) -> "View":
        return View(np.empty(batch, np.int64), np.empty((batch, n_actions), np.bool_),
                    np.empty((4, batch), np.int8), np.empty(batch, np.int16),
                    np.empty((batch, nkinds), np.int8), np.empty((3, batch, nstacks), np.int8),
                    np.empty((batch, nstacks, ntypes), np.int8),
                    np.empty((batch, n_players, ntypes), np.int16),
                    np.empty((batch, n_players), np.int8), np.empty((batch, nkinds), np.int8))


@njit(cache=True, inline="always", _nrt=False)
def write_legal(b, g, hand, params, mover, legal):
    """Who is to move in game b (-1: over) and the actions legal for them: the part of the view
    the batch step and the compiled strategies' whole-game kernel both need."""
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    values = params[P_VALUES]
    nak = params[P_NAK]
    nk = params[P_K]
    keep = params[P_KEEP]
    give0 = params[P_GIVE0]
    ph = g[b, PHASE]
    p = g[b, CUR]
    for a in range(legal.shape[1]):
        legal[b, a] = False
    if ph == OVER:
        mover[b] = -1
        return
    mover[b] = p
    if ph == PLAY:
        for s in range(nanimals):
            for v in range(values):
                if hand[b, p, s * values + v] > 0:
                    legal[b, 2 * s * values + v] = True
                if hand[b, p, nak + v] > 0:
                    legal[b, (2 * s + 1) * values + v] = True
    elif ph == REVERSE:
        legal[b, keep] = True
        legal[b, keep + 1] = True
    elif ph == GIVE:
        legal[b, keep + 2] = True
        for k in range(nk):
            if hand[b, p, k] > 0:
                for o in range(nplayers - 1):
                    legal[b, give0 + k * (nplayers - 1) + o] = True


@njit(cache=True, inline="always", _nrt=False)
def _view(b, g, pp, hand, stack, slen, higher, stype, ptype, pub, kind_total, params,
          mover, legal, small, deck_left, vhand, board, stack_types, piles, hand_sizes, unseen):
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    values = params[P_VALUES]
    nk = params[P_K]
    ph = g[b, PHASE]
    write_legal(b, g, hand, params, mover, legal)
    p = 0 if ph == OVER else g[b, CUR]
    small[V_SEAT, b] = p
    small[V_KIND, b] = ph
    h = g[b, HOLDER]
    if h < 0:
        small[V_HOLDER, b] = -1
    else:
        o = h - p
        small[V_HOLDER, b] = o + nplayers if o < 0 else o
    small[V_STACK, b] = g[b, MSTACK]
    deck_left[b] = g[b, END] - g[b, POS]
    for k in range(nk):
        c = hand[b, p, k]
        vhand[b, k] = c
        unseen[b, k] = kind_total[k] - pub[b, k] - c
    for s in range(nanimals):
        n = slen[b, s]
        board[B_TOP, b, s] = stack[b, s, n - 1] % values + 1
        board[B_HIGHER, b, s] = higher[b, s]
        board[B_LEN, b, s] = n
        for t in range(nanimals + 1):
            stack_types[b, s, t] = stype[b, s, t]
    for o in range(nplayers):
        q = p + o
        q = q - nplayers if q >= nplayers else q
        hand_sizes[b, o] = pp[b, q, HAND_LEN]
        for t in range(nanimals + 1):
            piles[b, o, t] = ptype[b, q, t]


@njit(cache=True, _nrt=False)
def _views(games, g, pp, hand, stack, slen, higher, stype, ptype, pub, kind_total, params,
           mover, legal, small, deck_left, vhand, board, stack_types, piles, hand_sizes, unseen):
    for b in games:
        _view(b, g, pp, hand, stack, slen, higher, stype, ptype, pub, kind_total, params,
              mover, legal, small, deck_left, vhand, board, stack_types, piles, hand_sizes, unseen)


@njit(cache=True, _nrt=False)
def _init(g, pp, deck, rs, hand, stack, slen, higher, stype, pub, ev, fresh, params):
    for b in range(g.shape[0]):
        _setup(b, g, pp, deck, rs, hand, stack, slen, higher, stype, pub, ev, fresh, params, True)


@njit(cache=True, inline="always", _nrt=False)
def _played_known(b, p, k, known, nplayers):
    """Seat p plays kind k face up: whoever knew p held a k knows one less (the played copy may
    be the known one or another: the cards of a kind are alike, so either way one fewer)."""
    for o in range(nplayers):
        if known[b, o, p, k] > 0:
            known[b, o, p, k] -= 1


@njit(cache=True, inline="always", _nrt=False)
def _gift_known(b, p, q, k, g, known, nplayers):
    """Seat p gives kind k face down to q: p knows q holds it; q sees the card (as a play seen by
    q alone); any third seat cannot tell what left p's hand and forgets what it knew of it
    (counted in LOST: the only approximation of the worlds, docs "Worlds for search")."""
    known[b, p, q, k] += 1
    if known[b, q, p, k] > 0:
        known[b, q, p, k] -= 1
    for o in range(nplayers):
        if o != p and o != q:
            for x in range(known.shape[3]):
                if known[b, o, p, x] > 0:
                    g[b, LOST] += known[b, o, p, x]
                    known[b, o, p, x] = 0


@njit(cache=True, inline="always", _nrt=False)
def apply_action(b, a, g, pp, deck, hand, stack, slen, higher, stype, pile, ptype, pub, known,
                 dr, ev, params):
    """Game b's player to move (not over) takes action ``a``: the play, the reversal or the gift,
    and what follows up to the next decision (the draw, the next player, the end)."""
    nplayers = params[P_PLAYERS]
    values = params[P_VALUES]
    nak = params[P_NAK]
    keep = params[P_KEEP]
    give0 = params[P_GIVE0]
    ph = g[b, PHASE]
    p = g[b, CUR]
    if ph == PLAY:
        s = a // (2 * values)
        j = a - s * 2 * values
        k = s * values + j if j < values else nak + j - values
        _played_known(b, p, k, known, nplayers)
        if _play(b, p, k, s, g, pp, hand, stack, slen, higher, stype, pile, ptype, pub,
                 ev, params):
            g[b, MSTACK] = s
            _after_match(b, g, pp, deck, hand, ptype, dr, ev, params, False)
        else:
            _finish_turn(b, g, pp, deck, hand, ptype, dr, ev, params)
    elif ph == REVERSE:
        if a == keep + 1:
            s = g[b, MSTACK]
            higher[b, s] = 1 - higher[b, s]
            pp[b, p, REVERSALS] += 1
            log_event(ev, g, NEV, b, E_REVERSE, p, s, higher[b, s], 0, 0)
        _after_match(b, g, pp, deck, hand, ptype, dr, ev, params, True)
    else:  # GIVE
        if a != keep + 2:
            k = (a - give0) // (nplayers - 1)
            o = (a - give0) % (nplayers - 1) + 1
            q = p + o
            q = q - nplayers if q >= nplayers else q
            hand[b, p, k] -= 1
            pp[b, p, HAND_LEN] -= 1
            hand[b, q, k] += 1
            pp[b, q, HAND_LEN] += 1
            pp[b, p, GIVES] += 1
            pp[b, q, GOT] += 1
            _gift_known(b, p, q, k, g, known, nplayers)
            log_event(ev, g, NEV, b, E_GIVE, p, k, q, 0, 0)
        _finish_turn(b, g, pp, deck, hand, ptype, dr, ev, params)


@njit(cache=True, _nrt=False)
def _step(actions, g, pp, deck, hand, stack, slen, higher, stype, pile, ptype, pub, known, dr,
          ev, kind_total, params, mover, legal, small, deck_left, vhand, board, stack_types, piles,
          hand_sizes, unseen):
    for b in range(g.shape[0]):
        if g[b, PHASE] != OVER:
            apply_action(b, actions[b], g, pp, deck, hand, stack, slen, higher, stype, pile,
                         ptype, pub, known, dr, ev, params)
        _view(b, g, pp, hand, stack, slen, higher, stype, ptype, pub, kind_total, params,
              mover, legal, small, deck_left, vhand, board, stack_types, piles, hand_sizes, unseen)


# ---- Worlds for search (docs/rules/hi_lo_hijinks.md, "Worlds for search") ----------------------

@njit(cache=True, _nrt=False)
def _deal_worlds(seat, g, pp, deck, hand, pub, known, kind_total, params, rs, buf, bad):
    """Row i (a copy of a real game) dealt again for ``seat[i]``: the cards it cannot see (the
    other hands and the deck, less the cards it knows are in a hand because it gave them) as a
    multiset in kind order, shuffled from stream i, dealt back into the other hands (each keeps
    its size and the known cards) and the deck. What other seats know of third hands is not the
    seat's to know: dropped from the world."""
    nplayers = params[P_PLAYERS]
    nk = kind_total.shape[0]
    for i in range(seat.shape[0]):
        s = seat[i]
        m = 0
        for k in range(nk):
            c = kind_total[k] - pub[i, k] - hand[i, s, k]
            for q in range(nplayers):
                if q != s:
                    c -= known[i, s, q, k]
            if c < 0:
                bad[i] = 1
            for _ in range(c):
                buf[i, m] = k
                m += 1
        shuffle_row(buf[i], m, rs, i)
        j = 0
        for q in range(nplayers):
            if q == s:
                continue
            need = pp[i, q, HAND_LEN]
            for k in range(nk):
                hand[i, q, k] = known[i, s, q, k]
                need -= known[i, s, q, k]
            if need < 0 or j + need > m:
                bad[i] = 1
                need = 0
            for _ in range(need):
                hand[i, q, buf[i, j]] += 1
                j += 1
        pos = g[i, POS]
        end = g[i, END]
        if j + end - pos != m:
            bad[i] = 1
        for x in range(deck.shape[1]):
            deck[i, x] = buf[i, j + x - pos] if pos <= x < end and j + x - pos < m else 0
        for o in range(nplayers):
            if o != s:
                for q in range(nplayers):
                    if q != s:
                        for k in range(nk):
                            known[i, o, q, k] = 0


@dataclass
class Obs(Observation):
    """What the player to move knows. Per-player arrays are rotated: index 0 is this player,
    index o the player o seats to the left (the give actions name the same offsets).

    Kinds: ``k = type * values + number - 1`` (type ``animals`` is the explorer). Every array is
    a snapshot made for this decision (the View is new at each step)."""

    game: np.ndarray         # int[n] batch index
    seat: np.ndarray         # int8[n] this player's seat (0 = the first player)
    kind: np.ndarray         # int8[n] PLAY, REVERSE or GIVE
    holder: np.ndarray       # int8[n] offset of the explorer ducky's holder, -1 on the board
    match_stack: np.ndarray  # int8[n] the stack just matched (REVERSE, GIVE), else -1
    deck_left: np.ndarray    # int16[n] cards in the draw deck
    hand: np.ndarray         # int8[n, K] cards of each kind in this player's hand
    top: np.ndarray          # int8[n, S] number on top of each stack
    higher: np.ndarray       # int8[n, S] 1: the stack wants >= its top; 0: <=
    stack_len: np.ndarray    # int8[n, S] cards in each stack
    stack_types: np.ndarray  # int8[n, S, T] cards of each type in each stack (all were face up)
    piles: np.ndarray        # int16[n, P, T] cards of each type in each player's pile
    hand_sizes: np.ndarray   # int8[n, P]
    unseen: np.ndarray       # int8[n, K] kinds in other hands or the deck
    animals: int
    values: int
    explorer_points: int
    explorer_own_type: bool
    tie_discards: bool       # rules.majority_tie is 'discard': tied majorities all discard

    @property
    def nak(self) -> int:
        """Number of animal kinds of card (animals x values)."""
        return self.animals * self.values

    @cached_property
    def standing(self) -> np.ndarray:
        """int32[n, P]: what each player's pile would score if the game ended now (majorities
        discarded, the explorer points to the ducky's holder), rotated."""
        piles = self.piles.astype(np.int32)
        ntypes = self.animals + (1 if self.explorer_own_type else 0)
        typed = piles[:, :, :ntypes]
        mx = typed.max(axis=1, keepdims=True)
        top = (typed == mx) & (mx > 0)
        if not self.tie_discards:
            top &= top.sum(axis=1, keepdims=True) == 1
        score = piles.sum(axis=2) - (typed * top).sum(axis=2)
        p = piles.shape[1]
        score += np.where(self.holder[:, None] == np.arange(p)[None, :], self.explorer_points, 0)
        return read_only(score)

    @action_helper
    def play_action(self, kind: np.ndarray, stack: np.ndarray) -> np.ndarray:
        """Action that plays ``kind`` on ``stack`` (an animal card goes on its own stack)."""
        kind = np.asarray(kind, np.int64)
        t, v = kind // self.values, kind % self.values
        own = np.where(t < self.animals, t, np.asarray(stack))
        return own * 2 * self.values + np.where(t < self.animals, 0, self.values) + v

    @action_helper
    def give_action(self, kind: np.ndarray, offset: np.ndarray) -> np.ndarray:
        """Action that gives ``kind`` to the player ``offset`` seats to the left."""
        p = self.hand_sizes.shape[1]
        keep = 2 * self.nak
        return keep + 3 + np.asarray(kind, np.int64) * (p - 1) + np.asarray(offset) - 1

    # keep, reverse, give nothing: 2 * nak, + 1, + 2 (action_layout)
    @action_helper
    def keep_action(self) -> int:
        """Action: after an exact match, keep the stack's direction."""
        return 2 * self.nak

    @action_helper
    def reverse_action(self) -> int:
        """Action: after an exact match, reverse the stack's direction."""
        return 2 * self.nak + 1

    @action_helper
    def no_give_action(self) -> int:
        """Action: after an exact match, give no card."""
        return 2 * self.nak + 2


class HiLoHijinks(Game):
    id = "hi_lo_hijinks"
    measures = ("ducky_decided", "tied_majorities")
    name = "Hi-Lo Hijinks"
    min_players = 2
    max_players = 4
    Rules = Rules
    score_name = "cards counted"
    lower_score_wins = True
    decision_kinds = ("play a card", "exact match: keep or reverse the stack",
                      "exact match: give a card or not")
    constant_fields = ("fresh", "kind_total", "params")

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        if rules.n_cards - rules.animals < n_players * rules.hand_size:
            raise RulesError("hand_size", f"{n_players} hands of {rules.hand_size} need more than "
                                          f"the {rules.n_cards - rules.animals} cards left after the starters")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return action_layout(rules, n_players)["n"]

    def kind_name(self, rules: Rules, k: int) -> str:
        t, v = divmod(int(k), rules.values)
        return f"{v + 1}-{ANIMAL_NAMES[t] if t < rules.animals else 'Explorer'}"

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        lay = action_layout(rules, n_players)
        a = int(action)
        if a < lay["keep"]:
            s, j = divmod(a, 2 * rules.values)
            if j < rules.values:
                return f"play {self.kind_name(rules, s * rules.values + j)}"
            return f"play {j - rules.values + 1}-Explorer on the {ANIMAL_NAMES[s]} stack"
        if a == lay["keep"]:
            return "keep the stack's direction"
        if a == lay["reverse"]:
            return "reverse the stack's direction"
        if a == lay["no_give"]:
            return "give no card"
        k, o = divmod(a - lay["give0"], n_players - 1)
        return f"give {self.kind_name(rules, k)} to the player {o + 1} to the left"

    # -- setup
    def _params(self, rules: Rules, n_players: int) -> np.ndarray:
        lay = action_layout(rules, n_players)
        give = rules.give_on_match and not rules.younger
        flags = ((F_REVERSE if rules.reverse_on_match else 0) | (F_GIVE if give else 0)
                 | (F_TIE_DISCARD if rules.majority_tie == "discard" else 0)
                 | (F_EXP_TYPE if rules.explorer_own_type else 0))
        return np.array([n_players, rules.animals, rules.values, rules.n_cards, rules.hand_size,
                         rules.higher_up_to, 0 if rules.younger else rules.explorer_points, flags,
                         lay["nak"], lay["kinds"], lay["keep"], lay["give0"],
                         rules.draw_per_turn], np.int64)

    def new_state(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        """A state with nothing dealt (``init`` deals; tests set positions on it)."""
        self.check(rules, n_players)
        batch = len(keys)
        ncards = rules.n_cards
        nk = (rules.animals + 1) * rules.values
        kind_total = np.zeros(nk, np.int8)
        kind_total[:rules.animals * rules.values] = rules.copies
        if rules.explorer_cards:
            kind_total[rules.animals * rules.values:] = 1
        fresh = np.repeat(np.arange(nk), kind_total).astype(np.int8)
        S, T = rules.animals, rules.animals + 1
        return State(
            n_players=n_players, rules=rules, params=self._params(rules, n_players), fresh=fresh,
            kind_total=kind_total,
            g=np.zeros((batch, NG), np.int32), pp=np.zeros((batch, n_players, NPP), np.int32),
            deck=np.zeros((batch, ncards), np.int8),
            hand=np.zeros((batch, n_players, nk), np.int8),
            stack=np.zeros((batch, S, ncards + 1), np.int8), slen=np.zeros((batch, S), np.int16),
            higher=np.zeros((batch, S), np.int8), stype=np.zeros((batch, S, T), np.int8),
            pile=np.zeros((batch, n_players, nk), np.int8),
            ptype=np.zeros((batch, n_players, T), np.int16), pub=np.zeros((batch, nk), np.int8),
            known=np.zeros((batch, n_players, n_players, nk), np.int8),
            dr=drama.drama_new(batch, n_players),
            ev=np.zeros((batch, 1000 if log else 0, 6), np.int32),
            rs=np.array(keys, dtype=np.uint64), all_games=np.arange(batch))

    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        st = self.new_state(rules, n_players, keys, log)
        _init(st.g, st.pp, st.deck, st.rs, st.hand, st.stack, st.slen, st.higher, st.stype,
              st.pub, st.ev, st.fresh, st.params)
        self._refresh(st, st.all_games)
        return st

    def setup_from(self, state: State, b: int, order: list[int]) -> None:
        """Run the printed setup on game ``b`` of a ``new_state`` as if the shuffled deck were
        ``order`` (kinds, top first): starters, reshuffle, deal (for the Setup example)."""
        st = state
        if sorted(order) != sorted(st.fresh.tolist()):
            raise ValueError("order must hold every card of the game once")
        st.deck[b, :len(order)] = order
        _setup(b, st.g, st.pp, st.deck, st.rs, st.hand, st.stack, st.slen, st.higher, st.stype,
               st.pub, st.ev, st.fresh, st.params, False)
        self._refresh(st, np.array([b]), fresh=False)

    def _refresh(self, st: State, games: np.ndarray, fresh: bool = True) -> None:
        if fresh or st.view is None:
            r = st.rules
            st.view = View.empty(len(st.g), st.n_players, self.n_actions(r, st.n_players),
                                 r.animals, r.animals + 1, len(st.kind_total))
        v = st.view
        _views(np.asarray(games, np.int64), st.g, st.pp, st.hand, st.stack, st.slen, st.higher,
               st.stype, st.ptype, st.pub, st.kind_total, st.params, v.mover, v.legal, v.small,
               v.deck_left, v.hand, v.board, v.stack_types, v.piles, v.hand_sizes, v.unseen)

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        return state.view.mover

    def legal(self, state: State) -> np.ndarray:
        return state.view.legal

    def observe(self, state: State, games: np.ndarray) -> Obs:
        games = np.asarray(games, dtype=np.int64)
        v = state.view
        blocks = (v.small, v.deck_left, v.hand, v.board, v.stack_types, v.piles, v.hand_sizes,
                  v.unseen)
        axes = (1, 0, 0, 1, 0, 0, 0, 0)
        if not (len(games) == len(v.mover) and np.array_equal(games, state.all_games)):
            blocks = tuple(np.take(x, games, axis=ax) for x, ax in zip(blocks, axes))
        small, deck_left, hand, board, stack_types, piles, hand_sizes, unseen = blocks
        r = state.rules
        return Obs(games, small[V_SEAT], small[V_KIND], small[V_HOLDER], small[V_STACK],
                   deck_left, hand, board[B_TOP], board[B_HIGHER], board[B_LEN], stack_types,
                   piles, hand_sizes, unseen, animals=r.animals, values=r.values,
                   explorer_points=int(state.params[P_EXPTS]),
                   explorer_own_type=r.explorer_own_type,
                   tie_discards=r.majority_tie == "discard")

    def step(self, state: State, actions: np.ndarray) -> None:
        r = state.rules
        v = state.view = View.empty(len(state.g), state.n_players, state.view.legal.shape[1],
                                    r.animals, r.animals + 1, len(state.kind_total))
        _step(np.asarray(actions, np.int64), state.g, state.pp, state.deck, state.hand,
              state.stack, state.slen, state.higher, state.stype, state.pile, state.ptype,
              state.pub, state.known, state.dr, state.ev, state.kind_total, state.params, v.mover, v.legal, v.small,
              v.deck_left, v.hand, v.board, v.stack_types, v.piles, v.hand_sizes, v.unseen)

    def running_score(self, state: State) -> np.ndarray:
        """The score if the game ended now (issue 16): the final count (``_count``) applied to
        the piles as they stand (each type's majority discarded, the rest counted, plus the
        explorer points for the ducky's holder now); cards in hand count nothing (they are all
        played before the end). The final score once the game is over; lower is better
        (docs/rules/hi_lo_hijinks.md, "Running score")."""
        pp = state.pp.copy()
        _standings(state.g, pp, state.ptype, state.params)
        return pp[:, :, SCORE].astype(np.float64)

    def outcome(self, state: State) -> Outcome:
        score = state.pp[:, :, SCORE].astype(np.float64)
        rank, win = ranks_and_wins(-score)
        pp = state.pp
        return Outcome(
            score=score, rank=rank, win=win, turns=state.g[:, TURNS].copy(),
            stats={
                "pile_cards": pp[:, :, PILE_LEN].copy(),
                "discarded": pp[:, :, DISCARDED].copy(),
                "stacks_taken": pp[:, :, TAKES].copy(),
                "matches": pp[:, :, MATCHES].copy(),
                "reversals": pp[:, :, REVERSALS].copy(),
                "cards_given": pp[:, :, GIVES].copy(),
                "cards_received": pp[:, :, GOT].copy(),
                "explorer_plays": pp[:, :, EXPLORER_PLAYS].copy(),
                "explorer_ducky": (state.g[:, HOLDER][:, None]
                                   == np.arange(state.n_players)[None, :]).astype(np.int8),
                "left_on_board": state.slen.sum(axis=1).astype(np.int32),
                # the designer's measures (docs/rules/hi_lo_hijinks.md, "Measures")
                "ducky_decided": winners_changed(score - self._ducky_points(state), score, True),
                "tied_majorities": self._tied_majorities(state),
                **drama.drama_stats(state.dr, score, win, True),
            },
        )

    def _ducky_points(self, state: State) -> np.ndarray:
        """int[B, P]: the explorer ducky's points in each player's total."""
        holder = state.g[:, HOLDER][:, None] == np.arange(state.n_players)[None, :]
        return holder * (0 if state.rules.younger else state.rules.explorer_points)

    def _tied_majorities(self, state: State) -> np.ndarray:
        """int32[B]: the types of which two or more players hold the most cards (and some),
        the case the printed "the most cards of a type" leaves open (``majority_tie``)."""
        r = state.rules
        pt = state.ptype[:, :, :r.animals + (1 if r.explorer_own_type else 0)]
        top = pt.max(axis=1, keepdims=True)
        return (((pt == top).sum(axis=1) >= 2) & (top[:, 0] > 0)).sum(axis=1).astype(np.int32)

    # -- worlds for search
    def clone(self, state: State, rows: np.ndarray) -> State:
        st = super().clone(state, rows)
        st.all_games = np.arange(len(st.g))
        self._refresh(st, st.all_games)
        return st

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        """Worlds for ``seat[i]`` of game ``games[i]``: the other hands and the deck dealt again
        from what it cannot see, the cards it gave kept where it gave them (``_deal_worlds``)."""
        games = np.asarray(games, np.int64)
        # the world has no event log: not copied (a logged state's log is most of its size)
        nolog = dataclasses.replace(state, ev=np.zeros((len(state.g), 0, 6), np.int32))
        w = super().clone(nolog, games)
        n = len(games)
        w.rs = np.array(keys, dtype=np.uint64)
        bad = np.zeros(n, np.int8)
        _deal_worlds(np.asarray(seat, np.int64), w.g, w.pp, w.deck, w.hand, w.pub, w.known,
                     w.kind_total, w.params, w.rs, np.zeros((n, w.deck.shape[1]), np.int8), bad)
        if bad.any():
            raise ValueError(f"games {games[bad > 0][:5].tolist()}: the seat's knowledge "
                             "does not fit the cards (a position set up inconsistently)")
        w.all_games = np.arange(n)
        self._refresh(w, w.all_games)
        return w

    # -- positions (for the rulebook's examples and tests)
    def position(self, state: State, b: int, stacks: list[list[int]], higher: list[int],
                 hands: dict[int, list[int]], piles: dict[int, list[int]] | None = None,
                 deck: list[int] | None = None, cur: int = 0, holder: int = -1) -> None:
        """Set game ``b`` to the start of ``cur``'s turn: stacks (kinds bottom to top, one per
        animal), directions (1 Higher), hands and piles (lists of kinds), the draw deck (top
        first; default: every card not placed elsewhere, in kind order)."""
        st, r = state, state.rules
        piles = piles or {}
        placed = [k for s in stacks for k in s] + [k for h in hands.values() for k in h] \
            + [k for pl in piles.values() for k in pl]
        left = list(st.fresh.tolist())
        for k in placed:
            if k not in left:
                raise ValueError(f"{self.kind_name(r, k)} is placed more often than it exists")
            left.remove(k)
        if deck is None:
            deck = left
        elif sorted(deck) != sorted(left):
            raise ValueError("the deck must hold every card not placed elsewhere")
        values = r.values
        st.g[b] = 0
        st.pp[b] = 0
        st.hand[b] = 0
        st.pile[b] = 0
        st.ptype[b] = 0
        st.stype[b] = 0
        st.pub[b] = 0
        st.known[b] = 0
        st.dr[b] = drama.drama_new(1, st.n_players)[0]
        st.deck[b] = 0
        st.deck[b, :len(deck)] = deck
        st.g[b, END] = len(deck)
        st.g[b, CUR] = cur
        st.g[b, PHASE] = PLAY
        st.g[b, HOLDER] = holder
        st.g[b, MSTACK] = -1
        st.g[b, DIRTY] = 1  # piles and the ducky set by hand: count the standing at the turn's end
        for s, cards in enumerate(stacks):
            if not cards:
                raise ValueError("every stack has a card")
            st.stack[b, s, :len(cards)] = cards
            st.slen[b, s] = len(cards)
            st.higher[b, s] = higher[s]
            for k in cards:
                st.stype[b, s, k // values] += 1
                st.pub[b, k] += 1
        for p, cards in hands.items():
            for k in cards:
                st.hand[b, p, k] += 1
            st.pp[b, p, HAND_LEN] = len(cards)
        for p, cards in piles.items():
            for k in cards:
                st.pile[b, p, k] += 1
                st.ptype[b, p, k // values] += 1
                st.pub[b, k] += 1
            st.pp[b, p, PILE_LEN] = len(cards)
        self._refresh(st, np.array([b]), fresh=False)

    def zones(self, state: State, b: int) -> dict[str, list[int]]:
        """The cards of game b by zone, as lists of kinds."""
        st = state
        z = {"deck": st.deck[b, st.g[b, POS]:st.g[b, END]].tolist()}
        for s in range(st.rules.animals):
            z[f"stack{s}"] = st.stack[b, s, :st.slen[b, s]].tolist()
        for p in range(st.n_players):
            z[f"hand{p}"] = np.repeat(np.arange(st.hand.shape[2]), st.hand[b, p]).tolist()
            z[f"pile{p}"] = np.repeat(np.arange(st.pile.shape[2]), st.pile[b, p]).tolist()
        return z

    # -- words
    def describe(self, state: State, i: int) -> str:
        r = state.rules
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        name = lambda k: self.kind_name(r, int(k))  # noqa: E731
        way = lambda h: "Higher" if h else "Lower"  # noqa: E731
        lines: list[str] = []
        dealt: dict[int, list[str]] = {}
        n = int(state.g[i, NEV])
        for t, seat, a, b_, c, d in state.ev[i, :n]:
            who = f"P{seat}"
            if t != E_DEAL and dealt:
                for p in sorted(dealt):
                    lines.append(f"P{p} is dealt {', '.join(dealt[p])}")
                dealt = {}
            if t == E_STARTER:
                lines.append(f"Starter of the {ANIMAL_NAMES[a]} stack: {name(b_)}, ducky on {way(c)}")
            elif t == E_DEAL:
                dealt.setdefault(int(seat), []).append(name(a))
            elif t == E_PLAY:
                lines.append(f"{who} plays {name(a)} on the {ANIMAL_NAMES[b_]} stack "
                             f"(top {name(c)}, {way(d)})")
            elif t == E_TAKE:
                lines.append(f"   not wanted: {who} takes the {b_} card(s) of the stack")
            elif t == E_MATCH:
                lines.append("   exact match")
            elif t == E_REVERSE:
                lines.append(f"   {who} reverses the {ANIMAL_NAMES[a]} stack: now {way(b_)}")
            elif t == E_GIVE:
                lines.append(f"   {who} gives {name(a)} to P{b_}")
            elif t == E_DRAW:
                lines.append(f"   {who} draws {name(a)}")
            elif t == E_DUCKY:
                src = "the board" if a < 0 else f"P{a}"
                lines.append(f"   {who} takes the explorer ducky from {src}")
            elif t == E_SKIP:
                lines.append(f"{who} has no cards: skipped")
            elif t == E_SCORE:
                lines.append(f"   P{seat}: {b_} card(s) taken, {c} discarded by majority"
                             + (f", +{int(state.params[P_EXPTS])} explorer ducky" if d else "")
                             + f": {a}")
            elif t == E_END:
                lines.append(f"== Game over after {a} turn(s) ==")
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        return "\n".join(lines)


GAME = HiLoHijinks()

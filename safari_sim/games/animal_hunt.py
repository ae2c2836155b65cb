"""Animal Hunt (one of the games of duck! duck! SAFARI!, APE Games), 2-4 players: a memory game.

The module follows the rulebook's section (../shared/rules/duck-duck-safari.txt, "Animal Hunt")
in its order: Setup, On Your Turn (choices A, B, C), Catching Duckies, Ending the Game, Winning.
Every reading of a gap in the printed text is in docs/rules/animal_hunt.md.

Cards are small integers: ``kind = card % kinds`` (``animal = kind // numbers``, number
``kind % numbers + 1``) and ``copy = card // kinds``: copy 0 is the deck that is dealt, copy 1 the
deck that becomes the hunting ground with the dealt deck's leftovers. A hand therefore never holds
two cards of a kind, and the match of every card in a hand lies face down in the hunting ground:
a pair is always the two copies of one kind.

Cards keep their place in the hunting ground (a card turned back face down stays where it lay),
so the observation carries what a perfect memory could hold: the kind seen at every place and the
turn it was last seen, who was asked for what in vain (and when), who made which pair, who holds
each ducky, and the player's own hand. Strategies decide how much of it they remember.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numba import njit

from ..engine import drama
from ..engine.chance import shuffle_row, uniform
from ..engine.events import log_event
from ..engine.protocol import action_helper
from ..engine.protocol import (Game, Observation, Outcome, RulesError, ranks_and_wins, read_only,
                               rule, winners_changed)


# ---- Components / Setup -----------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    animals: int = rule(5, "animals in each deck (elephant, lion, monkey, tiger, zebra); the six "
                           "Ducktor Livingstone cards stay in the box", search=range(4, 9))
    numbers: int = rule(6, "cards of each animal in one deck, numbered 1 to this",
                        search=range(5, 10))
    hand_sizes: tuple[int, ...] = rule((10, 7, 5), "cards dealt to each player with 2, 3, 4 players")
    pair_turns_again: bool = rule(True, "completing a pair (choice A, B or C) gives another turn",
                                  search=[True, False])
    card_points: int = rule(1, "points per card in the score pile at the end", search=range(1, 4))
    ducky_points: int = rule(2, "points per ducky in front of a player at the end",
                             search=range(0, 7))
    empty_hand_ends: str = rule(
        "any", "'any': the game ends as soon as any player's hand is empty (also an asked player "
               "who gave up the last card); 'turn': only when the player about to take a turn "
               "has an empty hand", search=["any", "turn"])
    last_pair_takes_ducky: bool = rule(
        True, "the pair that empties a hand and ends the game still takes its animal's ducky",
        search=[True, False])
    max_turns: int = rule(3000, "safety stop: the game ends after this many turns (counted in "
                                "the `capped` statistic)")

    def validate(self) -> None:
        if not 1 <= self.animals <= 10:
            raise RulesError("animals", "must be from 1 to 10")
        if not 1 <= self.numbers <= 12:
            raise RulesError("numbers", "must be from 1 to 12")
        if len(self.hand_sizes) != 3:
            raise RulesError("hand_sizes", "give three hand sizes: for 2, 3 and 4 players")
        if min(self.hand_sizes) < 1:
            raise RulesError("hand_sizes", "every hand size must be at least 1")
        for p, h in zip((2, 3, 4), self.hand_sizes):
            if p * h > self.animals * self.numbers:
                raise RulesError("hand_sizes", f"{p} hands of {h} need more than the "
                                               f"{self.animals * self.numbers} cards of a deck")
        if self.card_points < 0:
            raise RulesError("card_points", "must be 0 or more")
        if self.ducky_points < 0:
            raise RulesError("ducky_points", "must be 0 or more")
        if self.empty_hand_ends not in ("any", "turn"):
            raise RulesError("empty_hand_ends", f"must be 'any' or 'turn', not {self.empty_hand_ends!r}")
        if not 1 <= self.max_turns <= 30000:
            raise RulesError("max_turns", "must be from 1 to 30000")


ANIMALS = ("elephant", "lion", "monkey", "tiger", "zebra")

# Decision kinds (obs.kind, state phase)
FLIP = 0      # start of a turn: flip any face-down card
CHOOSE = 1    # a card is face up: A show, B ask, C flip another
OVER = 2

# Actions (G = places in the hunting ground): 0 .. G-1 flip the card at that place (the first
# flip, or choice C); G choice A, show the match from the hand; G + o choice B, ask the player o
# seats to the left.

# Per-game fields g[b, ...]
CUR, PHASE, FIRST, TURNS, DOWN, NEV, CAPPED, END = range(8)
NG = 8
# Per-player fields pp[b, p, ...]
HAND_N, PAIRS, BY_SHOW, BY_ASK, BY_FLIP, ASKS, ASKS_FAILED, GAVE, FLIPS, MISSES = range(10)
NPP = 10
# End reasons (g[b, END])
END_NONE, END_HAND, END_GROUND, END_CAP = range(4)

# params layout
P_PLAYERS, P_KINDS, P_NUMBERS, P_HAND, P_GROUND, P_FLAGS, P_MAXTURNS, P_CARD_PTS, P_DUCKY_PTS = \
    range(9)
F_AGAIN, F_END_ANY, F_LAST_DUCKY = 1, 2, 4

# Event log: ev[b, i] = (type, seat, a, b, c, d)
E_TURN, E_FLIP, E_SHOW, E_ASK, E_FLIP2, E_PAIR, E_END = range(1, 8)


@dataclass
class State:
    n_players: int
    rules: Rules
    params: np.ndarray       # int64[9]
    g: np.ndarray            # int32[B, NG]
    pp: np.ndarray           # int32[B, P, NPP]
    hand: np.ndarray         # bool[B, P, K]: player p holds (copy 0 of) kind k
    ground: np.ndarray       # int16[B, G]: card at each place of the hunting ground, -1 gone
    known: np.ndarray        # int8[B, G]: kind seen at the place (public), -1 never seen or gone
    seen: np.ndarray         # int16[B, G]: turn in which that card was last face up, -1 never
    lack: np.ndarray         # int16[B, P, K]: last turn p was asked for kind k in vain, -1 never
    asked: np.ndarray        # int16[B, P, K]: last turn p asked someone for kind k, -1 never
    passed: np.ndarray       # int16[B, P, K]: last turn p passed a sure pair of kind k (public;
                             # worlds read it as "p does not hold k": _mark_passed), -1 never
    scored: np.ndarray       # int8[B, K]: seat that made the pair of kind k, -1 not yet
    ducky: np.ndarray        # int8[B, A]: seat holding each animal's ducky, -1 nobody
    scratch: np.ndarray      # int16[B, K]: the dealt deck while dealing
    ev: np.ndarray           # int32[B, L, 6]
    rs: np.ndarray           # uint64[B]: each game's chance stream
    rot: np.ndarray          # int8[P, P + 1]: seat s as an offset from seat p at [p, s + 1]
    run: np.ndarray          # int32[B, P]: the running score (cards in the pile, duckies)
    dr: np.ndarray           # int32[B, drama_width(P)]: the lead's story (engine.drama)
    mover: np.ndarray = None  # int64[B], fresh at each step
    legal_: np.ndarray = None  # bool[B, G + P], fresh at each step


def ground_size(rules: Rules, n_players: int) -> int:
    """Places in the hunting ground: the undealt deck plus the dealt deck's leftovers."""
    k = rules.animals * rules.numbers
    return 2 * k - n_players * rules.hand_sizes[n_players - 2]


# ---- Setup / turns ------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _start_turn(b, g, pp, hand, ev, params):
    """Before a turn: the game ends when no face-down card is left (or, with empty_hand_ends
    'turn', when the player to move has no card), or at the safety stop."""
    p = g[b, CUR]
    if g[b, DOWN] == 0:
        g[b, END] = END_GROUND
    elif (params[P_FLAGS] & F_END_ANY) == 0 and pp[b, p, HAND_N] == 0:
        g[b, END] = END_HAND
    elif g[b, TURNS] >= params[P_MAXTURNS]:
        g[b, END] = END_CAP
        g[b, CAPPED] = 1
    if g[b, END] != END_NONE:
        g[b, PHASE] = OVER
        log_event(ev, g, NEV, b, E_END, -1, g[b, END], g[b, TURNS], 0, 0)
        return
    g[b, PHASE] = FLIP
    g[b, FIRST] = -1
    log_event(ev, g, NEV, b, E_TURN, p, g[b, TURNS] + 1, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _init(g, pp, hand, ground, scratch, ev, rs, params):
    nplayers = params[P_PLAYERS]
    nk = params[P_KINDS]
    h = params[P_HAND]
    for b in range(g.shape[0]):
        # Shuffle one deck and deal a hand to each player
        for k in range(nk):
            scratch[b, k] = k
        shuffle_row(scratch[b], nk, rs, b)
        for p in range(nplayers):
            for i in range(h):
                hand[b, p, scratch[b, p * h + i]] = True
            pp[b, p, HAND_N] = h
        # The leftovers join the other deck: shuffled together, laid out face down
        n = 0
        for i in range(nplayers * h, nk):
            ground[b, n] = scratch[b, i]
            n += 1
        for k in range(nk):
            ground[b, n] = nk + k
            n += 1
        shuffle_row(ground[b], n, rs, b)
        g[b, DOWN] = n
        g[b, CUR] = 0
        _start_turn(b, g, pp, hand, ev, params)


@njit(cache=True, inline="always", _nrt=False)
def _take_up(b, pos, ground, known, seen, g):
    """A card leaves the hunting ground for a score pile."""
    ground[b, pos] = -1
    known[b, pos] = -1
    seen[b, pos] = -1
    g[b, DOWN] -= 1


@njit(cache=True, inline="always", _nrt=False)
def _pair(b, p, kind, take_ducky, g, pp, scored, ducky, run, ev, params):
    """Catching Duckies: the pair goes to p's score pile; p takes that animal's ducky."""
    scored[b, kind] = p
    pp[b, p, PAIRS] += 1
    run[b, p] += 2 * params[P_CARD_PTS]
    a = kind // params[P_NUMBERS]
    before = ducky[b, a]
    if take_ducky:
        ducky[b, a] = p
        if before >= 0:
            run[b, before] -= params[P_DUCKY_PTS]
        run[b, p] += params[P_DUCKY_PTS]
    log_event(ev, g, NEV, b, E_PAIR, p, kind, before, 1 if take_ducky else 0, 0)


@njit(cache=True, inline="always", _nrt=False)
def _emptied(b, t, pp, params):
    """Ending the Game: whether t's hand is now empty and that ends the game at once."""
    return pp[b, t, HAND_N] == 0 and (params[P_FLAGS] & F_END_ANY) != 0


@njit(cache=True, _nrt=False)
def _end_now(b, g, run, dr, ev):
    g[b, END] = END_HAND
    g[b, PHASE] = OVER
    log_event(ev, g, NEV, b, E_END, -1, END_HAND, g[b, TURNS] + 1, 0, 0)
    g[b, TURNS] += 1  # the turn that emptied the hand is played
    drama.drama_update(dr, b, run[b], False)


@njit(cache=True, inline="always", _nrt=False)
def _next_turn(b, again, g, pp, hand, run, dr, ev, params):
    g[b, TURNS] += 1
    drama.drama_update(dr, b, run[b], False)  # the running score after every turn
    if not (again and (params[P_FLAGS] & F_AGAIN) != 0):
        nxt = g[b, CUR] + 1
        g[b, CUR] = 0 if nxt >= params[P_PLAYERS] else nxt
    _start_turn(b, g, pp, hand, ev, params)


@njit(cache=True, inline="always", _nrt=False)
def _mark_passed(b, p, t_now, known, passed, ng):
    """p passed every sure pair of its hand the table shows: each kind seen at a place now
    (``passed``, public). Called where p flips a card it has not seen at the start of a turn, or
    does not show the face-up card: a player with a perfect memory who held one of those kinds
    would have flipped its twin (a pair and another turn) or shown it. Not a rule (a player may
    pass a pair): worlds read it as a model of the players (``_determinize``)."""
    for j in range(ng):
        k = known[b, j]
        if k >= 0:
            passed[b, p, k] = t_now


@njit(cache=True, inline="always", _nrt=False)
def apply_action(b, a, g, pp, hand, ground, known, seen, lack, asked, passed, scored, ducky, run,
                 dr, ev, params):
    """One decision of game b (On Your Turn). The one copy of the rules of a decision: the batch
    ``_step`` and the compiled twins' whole-game kernel (strategies/_animal_hunt_compiled.py)
    both call it."""
    nk = params[P_KINDS]
    ng = params[P_GROUND]
    nplayers = params[P_PLAYERS]
    p = g[b, CUR]
    t_now = g[b, TURNS]
    if g[b, PHASE] == FLIP:
        # Flip any card in the hunting ground face up
        if known[b, a] < 0:
            _mark_passed(b, p, t_now, known, passed, ng)   # an unknown card, not a sure pair
        c = ground[b, a]
        known[b, a] = c % nk
        seen[b, a] = t_now
        g[b, FIRST] = a
        g[b, PHASE] = CHOOSE
        pp[b, p, FLIPS] += 1
        log_event(ev, g, NEV, b, E_FLIP, p, a, c, 0, 0)
        return
    first = g[b, FIRST]
    k1 = ground[b, first] % nk
    paired = False  # a pair caught: the player goes again (F_AGAIN)
    ends = False    # the hand that gave the card is empty and that ends the game
    if a != ng:
        _mark_passed(b, p, t_now, known, passed, ng)       # no show: the face-up card included
    if a < ng:
        # Choice C: flip another card
        c2 = ground[b, a]
        k2 = c2 % nk
        known[b, a] = k2
        seen[b, a] = t_now
        pp[b, p, FLIPS] += 1
        match = k2 == k1
        log_event(ev, g, NEV, b, E_FLIP2, p, a, c2, 1 if match else 0, 0)
        if match:
            _take_up(b, first, ground, known, seen, g)
            _take_up(b, a, ground, known, seen, g)
            pp[b, p, BY_FLIP] += 1
            paired = True
        else:
            pp[b, p, MISSES] += 1
    elif a == ng:
        # Choice A: show the matching card from the hand
        hand[b, p, k1] = False
        pp[b, p, HAND_N] -= 1
        _take_up(b, first, ground, known, seen, g)
        pp[b, p, BY_SHOW] += 1
        log_event(ev, g, NEV, b, E_SHOW, p, k1, 0, 0, 0)
        ends = _emptied(b, p, pp, params)
        paired = True
    else:
        # Choice B: ask the player o seats to the left
        o = a - ng
        t = p + o
        t = t - nplayers if t >= nplayers else t
        pp[b, p, ASKS] += 1
        asked[b, p, k1] = t_now   # everyone heard the question
        got = hand[b, t, k1]
        log_event(ev, g, NEV, b, E_ASK, p, t, k1, 1 if got else 0, 0)
        if got:
            hand[b, t, k1] = False
            pp[b, t, HAND_N] -= 1
            pp[b, t, GAVE] += 1
            _take_up(b, first, ground, known, seen, g)
            pp[b, p, BY_ASK] += 1
            ends = _emptied(b, t, pp, params)
            paired = True
        else:
            # everyone now knows t lacks it; the flipped card turns back face down in its place
            lack[b, t, k1] = t_now
            pp[b, p, ASKS_FAILED] += 1
    # a pair is caught (and its player goes again), then the turn passes or the game ends; each
    # helper at one call site, as numba compiles an inlined helper again at each
    if paired:
        _pair(b, p, k1, not ends or (params[P_FLAGS] & F_LAST_DUCKY) != 0, g, pp, scored, ducky,
              run, ev, params)
    if ends:
        _end_now(b, g, run, dr, ev)
    else:
        _next_turn(b, paired, g, pp, hand, run, dr, ev, params)


# ---- What the player to move sees -----------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def write_view(b, g, hand, ground, params, mover, legal):
    """Who moves in game b and what is legal (written into the arrays of this step)."""
    ng = params[P_GROUND]
    ph = g[b, PHASE]
    if ph == OVER:
        mover[b] = -1
        for a in range(legal.shape[1]):
            legal[b, a] = False
        return
    p = g[b, CUR]
    mover[b] = p
    for a in range(ng):
        legal[b, a] = ground[b, a] >= 0
    if ph == FLIP:
        for a in range(ng, legal.shape[1]):
            legal[b, a] = False
    else:
        first = g[b, FIRST]
        legal[b, first] = False
        legal[b, ng] = hand[b, p, ground[b, first] % params[P_KINDS]]
        for a in range(ng + 1, legal.shape[1]):
            legal[b, a] = True


@njit(cache=True, _nrt=False)
def _views(games, g, hand, ground, params, mover, legal):
    for b in games:
        write_view(b, g, hand, ground, params, mover, legal)


@njit(cache=True, _nrt=False)
def _step(actions, g, pp, hand, ground, known, seen, lack, asked, passed, scored, ducky, run, dr,
          ev, params, mover, legal):
    for b in range(g.shape[0]):
        if g[b, PHASE] != OVER:
            apply_action(b, actions[b], g, pp, hand, ground, known, seen, lack, asked, passed,
                         scored, ducky, run, dr, ev, params)
        write_view(b, g, hand, ground, params, mover, legal)


@njit(cache=True, _nrt=False)
def _observe(games, g, pp, hand, ground, known, seen, lack, asked, passed, scored, ducky, params,
             seat, kind, turn, first, first_kind, down, o_known, o_seen, o_hand, hand_size,
             pairs, o_lack, o_asked, o_passed, o_scored, o_ducky, ground_left, o_count, rot):
    """The observation of the player to move in each of ``games``, written into fresh arrays;
    per-player values rotated so that index 0 is the player and o the player o seats left."""
    nplayers = params[P_PLAYERS]
    nk = params[P_KINDS]
    ng = params[P_GROUND]
    for i in range(games.shape[0]):
        b = games[i]
        p = g[b, CUR]
        seat[i] = p
        kind[i] = g[b, PHASE]
        turn[i] = g[b, TURNS]
        f = g[b, FIRST] if g[b, PHASE] == CHOOSE else -1
        first[i] = f
        first_kind[i] = known[b, f] if f >= 0 else -1
        ground_left[i] = g[b, DOWN]
        for j in range(ng):
            down[i, j] = ground[b, j] >= 0
        for j in range(ng):
            o_known[i, j] = known[b, j]
        for j in range(ng):
            o_seen[i, j] = seen[b, j]
        for k in range(nk):
            o_count[i, k] = 0
        for j in range(ng):
            kj = known[b, j]
            if kj >= 0:
                o_count[i, kj] += 1
        for k in range(nk):
            o_hand[i, k] = hand[b, p, k]
        # seat s as seen from p: rot[p, s + 1] (-1 stays -1)
        for k in range(nk):
            o_scored[i, k] = rot[p, scored[b, k] + 1]
        for o in range(nplayers):
            q = p + o
            q = q - nplayers if q >= nplayers else q
            hand_size[i, o] = pp[b, q, HAND_N]
            pairs[i, o] = pp[b, q, PAIRS]
            for k in range(nk):
                o_lack[i, o, k] = lack[b, q, k]
            for k in range(nk):
                o_asked[i, o, k] = asked[b, q, k]
            for k in range(nk):
                o_passed[i, o, k] = passed[b, q, k]
        for a in range(ducky.shape[1]):
            o_ducky[i, a] = rot[p, ducky[b, a] + 1]


# ---- Worlds for search ----------------------------------------------------------------------------

@njit(cache=True)
def _determinize(seat, src, g, pp, hand, ground, known, lack, passed, scored, rs, params, model):
    """Deal row i of a cloned state again for ``seat[i]``, exactly from the posterior of a fair
    deal given what that seat has seen (docs/rules/animal_hunt.md, "Worlds for search").

    Per kind not yet paired, ``hidden`` = 2 - (places where it is known) - (1 if in the seat's
    hand): copies whose place the seat does not know. The other hands hold, for each kind, at most
    one card, only of a kind the seat does not hold, never a kind that player was asked for in
    vain, and exactly as many cards as they hold. Every full arrangement of the hidden cards
    (hands and places never seen, by kind) is equally likely, so a set of hand kinds weighs as
    many arrangements of the rest as it leaves: proportional to the product of ``hidden`` over
    the kinds in hands. A dynamic programme over (kind, cards each other hand still takes) counts
    them and draws the hands from stream i; the rest, as a multiset in kind order, is shuffled
    into the places never seen. Copies are labelled again (the copy of a kind in a hand is copy 0,
    the ground's copy 1; two in the ground: copy 0 at the lower place). Returns the number of
    rows with no consistent deal (0 for any real position).

    With ``model`` the other hands also never hold a kind that player passed as a sure pair
    (``passed``: the players are read as taking every pair their memory shows them, as every
    shipped heuristic with a perfect memory does), falling back to the refusals alone in a row
    where no deal is consistent with that (a player who passed a pair).

    ``src[i]``: the game row i was cloned from. Rows cloned from one game for one seat hold the
    same view, so a row following such a row draws from its table (the dynamic programme is
    made once per run of them: the same numbers, so the same worlds)."""
    nplayers = params[P_PLAYERS]
    nk = params[P_KINDS]
    ng = params[P_GROUND]
    m = nplayers - 1
    hmax = 0
    for i in range(seat.shape[0]):
        for q in range(nplayers):
            hmax = max(hmax, pp[i, q, HAND_N])
    smax = 1
    for j in range(m):
        smax *= hmax + 1
    f = np.zeros((nk + 1, smax), np.float64)
    dig = np.zeros((smax, m), np.int64)      # places hand j still takes, in state s
    radix = np.ones(m + 1, np.int64)
    hidden = np.zeros(nk, np.int64)
    owner = np.full(nk, -1, np.int64)
    elig = np.zeros(nk, np.int64)            # kinds another hand may hold, and their weights
    wt = np.zeros(nk, np.int64)
    unknown = np.zeros(ng, np.int64)
    pool = np.zeros(ng, np.int64)
    opp = np.zeros(m, np.int64)
    barred = np.zeros((m, nk), np.bool_)     # kinds hand j may not hold
    bad = 0
    made = False    # the table in ``f`` and ``barred`` is row i - 1's view (a deal was found)
    for i in range(seat.shape[0]):
        p = seat[i]
        same = made and src[i] == src[i - 1] and seat[i] == seat[i - 1]
        made = False
        for j in range(m):
            q = p + 1 + j
            opp[j] = q - nplayers if q >= nplayers else q
            radix[j + 1] = radix[j] * (pp[i, opp[j], HAND_N] + 1)
        ns = radix[m]
        for s in range(0 if same else ns):      # the run's table of digits is kept too
            for j in range(m):
                dig[s, j] = (s // radix[j]) % (radix[j + 1] // radix[j])
        for k in range(nk):
            hidden[k] = 0 if scored[i, k] >= 0 else 2 - (1 if hand[i, p, k] else 0)
            owner[k] = p if hand[i, p, k] else -1
        nu = 0
        for j in range(ng):
            if ground[i, j] >= 0:
                if known[i, j] >= 0:
                    hidden[known[i, j]] -= 1
                else:
                    unknown[nu] = j
                    nu += 1
        ne = 0
        for k in range(nk):
            w = hidden[k] if owner[k] < 0 else 0
            if w > 0:
                elig[ne] = k
                wt[ne] = w
                ne += 1
        # never to a player asked for it in vain; with ``model``, nor to one who passed its sure
        # pair (``passed``), unless no deal is left that way: then the refusals alone
        for attempt in range(0 if same else (2 if model else 1)):
            use = model and attempt == 0
            for j in range(m):
                for k in range(nk):
                    barred[j, k] = lack[i, opp[j], k] >= 0 or (use and passed[i, opp[j], k] >= 0)
            # f[e, s]: weighted ways to fill the places s the hands still take with kinds elig[e:]
            for s in range(ns):
                f[ne, s] = 0.0
            f[ne, 0] = 1.0
            for e in range(ne - 1, -1, -1):
                k = elig[e]
                for s in range(ns):
                    f[e, s] = f[e + 1, s]
                for j in range(m):
                    if not barred[j, k]:
                        r = radix[j]
                        for s in range(r, ns):
                            if dig[s, j] > 0:
                                f[e, s] += wt[e] * f[e + 1, s - r]
            if f[0, ns - 1] > 0.0:
                break
        if not f[0, ns - 1] > 0.0:
            bad += 1
            continue
        made = True
        for j in range(m):
            for k in range(nk):
                hand[i, opp[j], k] = False
        s = ns - 1
        for e in range(ne):
            if s == 0:
                break
            k = elig[e]
            u = uniform(rs, i) * f[e, s] - f[e + 1, s]
            if u < 0.0:
                continue
            pick = -1
            for j in range(m):
                if dig[s, j] > 0 and not barred[j, k]:
                    pick = j                       # the last one, should rounding leave u >= 0
                    u -= wt[e] * f[e + 1, s - radix[j]]
                    if u < 0.0:
                        break
            if pick >= 0:
                hand[i, opp[pick], k] = True
                owner[k] = opp[pick]
                hidden[k] -= 1
                s -= radix[pick]
        n = 0
        for k in range(nk):
            for _ in range(hidden[k]):
                pool[n] = k
                n += 1
        shuffle_row(pool, n, rs, i)
        for x in range(n):
            ground[i, unknown[x]] = pool[x]
            # from here on ``ground`` holds kinds until labelled below
        for j in range(ng):
            if ground[i, j] >= 0 and known[i, j] >= 0:
                ground[i, j] = known[i, j]
        for k in range(nk):
            owner[k] = 1 if owner[k] >= 0 else 0   # 1: the kind's copy 0 is in a hand
        for j in range(ng):
            k = ground[i, j]
            if k >= 0:
                if owner[k] == 1:
                    ground[i, j] = nk + k
                else:
                    ground[i, j] = k
                    owner[k] = 1                   # the second copy in the ground is copy 1
    return bad


@dataclass
class Obs(Observation):
    """What the player to move knows, as a perfect memory would hold it. Per-player arrays are
    rotated: index 0 is this player, index o the player o seats to the left (the ask actions name
    the same offsets); ``scored`` and ``ducky`` hold such offsets (-1: nobody).

    Every array is made for this observation (a snapshot). A strategy that forgets keeps its own
    memory and uses ``seen``, ``lack`` and ``asked`` (the turns facts were learned) to know what
    is new."""

    game: np.ndarray         # int64[n] batch index
    seat: np.ndarray         # int8[n] this player's seat (0 = the first player)
    kind: np.ndarray         # int8[n] FLIP (0) or CHOOSE (1)
    turn: np.ndarray         # int16[n] turns finished before this one (the current turn's number)
    first: np.ndarray        # int16[n] place of the card flipped this turn (-1 at FLIP)
    first_kind: np.ndarray   # int8[n] its kind (-1 at FLIP)
    down: np.ndarray         # bool[n, G] a face-down card lies at the place
    known: np.ndarray        # int8[n, G] kind seen at the place, -1 never seen (or gone)
    seen: np.ndarray         # int16[n, G] turn the place's card was last face up, -1 never
    hand: np.ndarray         # bool[n, K] kinds in this player's hand
    hand_size: np.ndarray    # int16[n, P] cards in each hand
    pairs: np.ndarray        # int16[n, P] pairs in each score pile
    lack: np.ndarray         # int16[n, P, K] last turn the player was asked for the kind in vain
    asked: np.ndarray        # int16[n, P, K] last turn the player asked someone for the kind
    passed: np.ndarray       # int16[n, P, K] last turn the player passed the kind's sure pair (it
                             # flipped an unknown card, or did not show, while the kind lay seen)
    scored: np.ndarray       # int8[n, K] offset of the player who made the pair of a kind, -1
    ducky: np.ndarray        # int8[n, A] offset of the player holding each ducky, -1
    ground_left: np.ndarray  # int16[n] face-down cards in the hunting ground
    known_count: np.ndarray  # int8[n, K] places where each kind is known (a summary of `known`)
    kinds: int               # kinds of card (animals * numbers)
    numbers: int             # cards of each animal in one deck
    places: int              # G: places in the hunting ground (the ask actions start at G + 1)

    @cached_property
    def lacks(self) -> np.ndarray:
        """bool[n, P, K]: the player is known to lack the kind (asked for it in vain)."""
        return read_only(self.lack >= 0)

    @cached_property
    def not_holding(self) -> np.ndarray:
        """int16[n, P, K]: the last turn the player was seen not to hold the kind, -1 never: it was
        asked for it in vain, or it asked for it (holding it, a player would have shown it)."""
        return read_only(np.maximum(self.lack, self.asked))

    @action_helper
    def flip_action(self, place: np.ndarray) -> np.ndarray:
        """The action: flip the face-down card at ``place`` (0 .. places - 1)."""
        return np.asarray(place)

    @action_helper
    def show_action(self) -> int:
        """The action: show the match from the hand (choice A)."""
        return self.places

    @action_helper
    def ask_action(self, offset: np.ndarray) -> np.ndarray:
        """The action: ask the player ``offset`` seats to the left (choice B)."""
        return self.places + np.asarray(offset)


class AnimalHunt(Game):
    id = "animal_hunt"
    measures = ("ended_by_hand", "points_unwon", "ducky_decided")
    name = "Animal Hunt"
    min_players = 2
    max_players = 4
    Rules = Rules
    score_name = "points"
    decision_kinds = ("flip a card", "show, ask or flip another")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return ground_size(rules, n_players) + n_players

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        ng = ground_size(rules, n_players)
        if action < ng:
            return f"flip the card at place {action}"
        if action == ng:
            return "show the match from the hand (choice A)"
        return f"ask the player {action - ng} to the left (choice B)"

    # -- setup
    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        batch = len(keys)
        nk = rules.animals * rules.numbers
        ng = ground_size(rules, n_players)
        flags = ((F_AGAIN if rules.pair_turns_again else 0)
                 | (F_END_ANY if rules.empty_hand_ends == "any" else 0)
                 | (F_LAST_DUCKY if rules.last_pair_takes_ducky else 0))
        params = np.array([n_players, nk, rules.numbers, rules.hand_sizes[n_players - 2], ng,
                           flags, rules.max_turns, rules.card_points, rules.ducky_points],
                          np.int64)
        st = State(
            n_players=n_players, rules=rules, params=params,
            g=np.zeros((batch, NG), np.int32), pp=np.zeros((batch, n_players, NPP), np.int32),
            hand=np.zeros((batch, n_players, nk), np.bool_),
            ground=np.full((batch, ng), -1, np.int16),
            known=np.full((batch, ng), -1, np.int8), seen=np.full((batch, ng), -1, np.int16),
            lack=np.full((batch, n_players, nk), -1, np.int16),
            asked=np.full((batch, n_players, nk), -1, np.int16),
            passed=np.full((batch, n_players, nk), -1, np.int16),
            scored=np.full((batch, nk), -1, np.int8),
            ducky=np.full((batch, rules.animals), -1, np.int8),
            scratch=np.zeros((batch, nk), np.int16),
            ev=np.zeros((batch, 4 * rules.max_turns + 16 if log else 0, 6), np.int32),
            rs=np.array(keys, dtype=np.uint64),
            rot=np.array([[-1] + [(s - p) % n_players for s in range(n_players)]
                          for p in range(n_players)], np.int8),
            run=np.zeros((batch, n_players), np.int32), dr=drama.drama_new(batch, n_players),
        )
        _init(st.g, st.pp, st.hand, st.ground, st.scratch, st.ev, st.rs, st.params)
        self._refresh(st, np.arange(batch))
        return st

    def _refresh(self, st: State, games: np.ndarray, fresh: bool = True) -> None:
        if fresh or st.mover is None:
            st.mover = np.empty(len(st.g), np.int64)
            st.legal_ = np.empty((len(st.g), int(st.params[P_GROUND]) + st.n_players), np.bool_)
        _views(np.asarray(games, np.int64), st.g, st.hand, st.ground, st.params, st.mover,
               st.legal_)

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        return state.mover

    def legal(self, state: State) -> np.ndarray:
        return state.legal_

    def observe(self, state: State, games: np.ndarray) -> Obs:
        games = np.asarray(games, dtype=np.int64)
        n, ng, nk, p = len(games), state.ground.shape[1], state.hand.shape[2], state.n_players
        o = Obs(game=games.copy(), seat=np.empty(n, np.int8), kind=np.empty(n, np.int8),
                turn=np.empty(n, np.int16), first=np.empty(n, np.int16),
                first_kind=np.empty(n, np.int8), down=np.empty((n, ng), np.bool_),
                known=np.empty((n, ng), np.int8), seen=np.empty((n, ng), np.int16),
                hand=np.empty((n, nk), np.bool_), hand_size=np.empty((n, p), np.int16),
                pairs=np.empty((n, p), np.int16), lack=np.empty((n, p, nk), np.int16),
                asked=np.empty((n, p, nk), np.int16), passed=np.empty((n, p, nk), np.int16),
                scored=np.empty((n, nk), np.int8),
                ducky=np.empty((n, state.ducky.shape[1]), np.int8),
                ground_left=np.empty(n, np.int16), known_count=np.empty((n, nk), np.int8),
                kinds=nk, numbers=state.rules.numbers, places=ng)
        _observe(games, state.g, state.pp, state.hand, state.ground, state.known, state.seen,
                 state.lack, state.asked, state.passed, state.scored, state.ducky, state.params,
                 o.seat, o.kind,
                 o.turn, o.first, o.first_kind, o.down, o.known, o.seen, o.hand, o.hand_size,
                 o.pairs, o.lack, o.asked, o.passed, o.scored, o.ducky, o.ground_left,
                 o.known_count,
                 state.rot)
        return o

    def step(self, state: State, actions: np.ndarray) -> None:
        # fresh arrays, so that masks and movers handed out before stay as they were
        state.mover = np.empty(len(state.g), np.int64)
        state.legal_ = np.empty(state.legal_.shape, np.bool_)
        _step(np.asarray(actions, np.int64), state.g, state.pp, state.hand, state.ground,
              state.known, state.seen, state.lack, state.asked, state.passed, state.scored,
              state.ducky, state.run, state.dr, state.ev, state.params, state.mover, state.legal_)

    def duckies(self, state: State) -> np.ndarray:
        """int[B, P]: duckies in front of each player."""
        p = state.n_players
        return (state.ducky[:, None, :] == np.arange(p)[None, :, None]).sum(axis=2)

    def points_available(self, rules: Rules, n_players: int) -> float:
        """Every card of both decks (in a score pile, or discarded from a hand at the end) and
        every animal's ducky."""
        return float(rules.card_points * 2 * rules.animals * rules.numbers
                     + rules.ducky_points * rules.animals)

    def running_score(self, state: State) -> np.ndarray:
        """The score if the game were scored now (issue 16): the cards in each score pile and the
        duckies in front of each player now; cards in hand count nothing (they are discarded at
        the end). The final score once the game is over (docs/rules/animal_hunt.md, "Running
        score")."""
        r = state.rules
        pairs = state.pp[:, :, PAIRS].astype(np.int64)
        duck = self.duckies(state)
        return (2 * r.card_points * pairs + r.ducky_points * duck).astype(np.float64)

    def outcome(self, state: State) -> Outcome:
        score = self.running_score(state)
        duck = self.duckies(state)
        rank, win = ranks_and_wins(score)
        pp = state.pp
        lead = drama.drama_stats(state.dr, score, win, False)
        return Outcome(
            score=score, rank=rank, win=win, turns=state.g[:, TURNS].copy(),
            stats={
                "capped": state.g[:, CAPPED].copy(),
                "ended_by_hand": (state.g[:, END] == END_HAND).astype(np.int8),
                "ground_left": state.g[:, DOWN].copy(),
                "pairs": pp[:, :, PAIRS].copy(),
                "duckies": duck.astype(np.int32),
                "pairs_shown": pp[:, :, BY_SHOW].copy(),
                "pairs_asked": pp[:, :, BY_ASK].copy(),
                "pairs_flipped": pp[:, :, BY_FLIP].copy(),
                "asks": pp[:, :, ASKS].copy(),
                "asks_failed": pp[:, :, ASKS_FAILED].copy(),
                "cards_given": pp[:, :, GAVE].copy(),
                "flips": pp[:, :, FLIPS].copy(),
                "cards_left": pp[:, :, HAND_N].copy(),
                # the designer's measures (docs/rules/animal_hunt.md, "Measures"): the points no
                # one scored, and whether the duckies' points changed who won
                "points_unwon": (self.points_available(state.rules, state.n_players)
                                 - score.sum(axis=1)),
                "ducky_decided": winners_changed(2 * state.rules.card_points * pp[:, :, PAIRS],
                                                 score),
                **lead,
            },
        )

    # -- positions (for tests)
    def position(self, state: State, b: int, hands: dict[int, list[int]], ground: list[int],
                 cur: int = 0, turns: int = 0, scored: dict[int, int] | None = None,
                 ducky: dict[int, int] | None = None, known: dict[int, int] | None = None,
                 lacks: dict[tuple[int, int], int] | None = None) -> None:
        """Set game ``b`` to the start of ``cur``'s turn: ``hands[p]`` the kinds in p's hand,
        ``ground`` the cards at places 0, 1, ... (-1 an empty place; the rest empty), ``scored``
        kind -> seat that made its pair, ``ducky`` animal -> seat, ``known`` place -> turn it was
        seen, ``lacks`` (seat, kind) -> turn it was asked for in vain."""
        st, nk, ng = state, int(state.params[P_KINDS]), int(state.params[P_GROUND])
        if len(ground) > ng:
            raise ValueError(f"the hunting ground has {ng} places")
        st.g[b] = 0
        st.pp[b] = 0
        st.hand[b] = False
        for p, ks in hands.items():
            for k in ks:
                st.hand[b, p, k] = True
            st.pp[b, p, HAND_N] = len(set(ks))
        st.ground[b] = -1
        st.ground[b, :len(ground)] = ground
        st.known[b] = -1
        st.seen[b] = -1
        for pos, t in (known or {}).items():
            st.known[b, pos] = ground[pos] % nk
            st.seen[b, pos] = t
        st.lack[b] = -1
        st.asked[b] = -1
        st.passed[b] = -1
        for (p, k), t in (lacks or {}).items():
            st.lack[b, p, k] = t
        st.scored[b] = -1
        for k, p in (scored or {}).items():
            st.scored[b, k] = p
            st.pp[b, p, PAIRS] += 1
        st.ducky[b] = -1
        for a, p in (ducky or {}).items():
            st.ducky[b, a] = p
        st.g[b, DOWN] = sum(1 for c in ground if c >= 0)
        st.g[b, CUR] = cur
        st.g[b, TURNS] = turns
        st.run[b] = (2 * st.rules.card_points * st.pp[b, :, PAIRS]
                     + st.rules.ducky_points * self.duckies(st)[b])
        st.dr[b] = drama.drama_new(1, st.n_players)[0]
        _start_turn(b, st.g, st.pp, st.hand, st.ev, st.params)
        self._refresh(st, np.array([b]), fresh=False)

    def zones(self, state: State, b: int) -> dict[str, list[int]]:
        """The cards of game b by zone: hands (copy 0 of their kinds), the hunting ground, and
        each score pile (both copies of the kinds it paired)."""
        nk = int(state.params[P_KINDS])
        z = {"ground": [int(c) for c in state.ground[b] if c >= 0]}
        for p in range(state.n_players):
            z[f"hand{p}"] = [int(k) for k in np.flatnonzero(state.hand[b, p])]
            z[f"pile{p}"] = sorted([int(k) for k in np.flatnonzero(state.scored[b] == p)]
                                   + [int(k) + nk for k in np.flatnonzero(state.scored[b] == p)])
        return z

    # -- worlds for search
    constant_fields = ("params", "rot")

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray, model: bool = True) -> State:
        """Worlds for search (docs/rules/animal_hunt.md, "Worlds for search"): the other hands
        and the cards at places never seen dealt again from ``keys[i]``, exactly from what the
        seat knows (its hand, every card seen and where, every refusal); with ``model`` (the
        search's worlds) no player holds a kind whose sure pair it passed (``_determinize``).
        The event log and the dealing scratch (they name hidden cards) are dropped."""
        games = np.asarray(games, np.int64)
        w = self.clone(dataclasses.replace(state, ev=state.ev[:, :0]), games)
        w.rs = np.array(keys, dtype=np.uint64)
        w.scratch[:] = 0
        bad = _determinize(np.asarray(seat, np.int64), games, w.g, w.pp, w.hand, w.ground, w.known,
                           w.lack, w.passed, w.scored, w.rs, w.params, bool(model))
        if bad:
            raise ValueError(f"{bad} position(s) with no deal consistent with the seat's view")
        self._refresh(w, np.arange(len(games)))
        return w

    # -- words
    def kind_name(self, rules: Rules, kind: int) -> str:
        a, n = divmod(int(kind), rules.numbers)
        animal = ANIMALS[a] if a < len(ANIMALS) else f"animal-{a + 1}"
        return f"{animal} {n + 1}"

    def describe(self, state: State, i: int) -> str:
        r = state.rules
        nk = int(state.params[P_KINDS])
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        n = int(state.g[i, NEV])
        lines = []
        for t, seat, a, b_, c, d in state.ev[i, :n]:
            who = f"P{seat}"
            if t == E_TURN:
                lines.append(f"-- Turn {a}: P{seat} --")
            elif t == E_FLIP:
                lines.append(f"{who} flips place {a}: {self.kind_name(r, b_ % nk)}")
            elif t == E_FLIP2:
                lines.append(f"{who} flips another, place {a}: {self.kind_name(r, b_ % nk)}"
                             + (" - a match!" if c else " - no match, both turn face down"))
            elif t == E_SHOW:
                lines.append(f"{who} shows the {self.kind_name(r, a)} from the hand")
            elif t == E_ASK:
                lines.append(f"{who} asks P{a} for the {self.kind_name(r, b_)}: "
                             + ("P{} gives it".format(a) if c else "no; the card turns face down"))
            elif t == E_PAIR:
                animal = ANIMALS[a // r.numbers] if a // r.numbers < len(ANIMALS) else "ducky"
                took = ("" if not c else f", takes the {animal} ducky"
                        + ("" if b_ < 0 or b_ == seat else f" from P{b_}"))
                lines.append(f"   {who} scores the pair of {self.kind_name(r, a)}{took}")
            elif t == E_END:
                why = {END_HAND: "a hand is empty", END_GROUND: "no face-down card is left",
                       END_CAP: "the safety stop (max_turns)"}[int(a)]
                lines.append(f"== Game over after {b_} turn(s): {why} ==")
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        return "\n".join(lines)


GAME = AnimalHunt()

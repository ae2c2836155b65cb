"""Bluff in Zoo (Zoch's Bluff im Zoo), 2-6 players.

The module follows the rulebook (../shared/rules/bluff-in-zoo.txt) section by section:
Components, Setup, How to Play, Doubting, Wild Cards, Action Cards, The Stop Cards, End of Turn,
End of Game. Every reading of a gap in the printed text is in docs/rules/bluff_in_zoo.md.

Cards are small integers (card types): animal ``t < K * V`` has kind ``t // V`` (0 = the
smallest animal) and shows ``t % V + 1`` animals; then the wild cards by value, then the two
action cards ("All cards count 1", "All animals are equal"), then the stop card. Hands, the
discard pile and the point stacks are kept as counts per card type: order never matters there.

A turn is split into small decisions: RESPOND (doubt the last claim or go on), SOURCE (a hand
card; the top card of the draw pile, which the player draws, looks at and places; or no card),
COUNT (how many animals the claim names) and KIND (which animal): the claim comes after the
player has seen the card it placed. The starting player's first move of a round skips RESPOND
and must place a card.

What a player knows: its hand, the cards it placed (or drew and placed) on the current discard
pile, who placed how many cards and how (public), every claim, and every card shown by a doubt
(the whole pile is flipped open, so point cards are public knowledge to a player who remembers).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from ..engine import drama
from ..engine.chance import shuffle_row, shuffle_rows
from ..engine.events import log_event
from ..engine.protocol import action_helper
from ..engine.protocol import (Game, Observation, Outcome, RulesError, ranks_and_wins, read_only,
                               rule)


# ---- Components -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    animals: tuple[str, ...] = rule(
        ("mouse", "rabbit", "fox", "lion", "elephant"),
        "the animal kinds from the smallest to the biggest (the size order of claims)")
    animal_cards: tuple[int, ...] = rule(
        (5, 5, 5), "cards of each animal kind showing 1, 2, 3, ... animals (entry v-1: showing v)")
    wild_cards: tuple[int, ...] = rule((6, 6), "wild cards counting 1, 2, ... animals")
    count_one_cards: int = rule(6, "'All cards count 1' action cards", search=range(0, 13, 2))
    all_equal_cards: int = rule(6, "'All animals are equal' action cards",
                                search=range(0, 13, 2))
    stop_cards: int = rule(8, "stop cards (an odd number in the pile cancels the action cards)",
                           search=range(0, 13, 2))
    hand_size: int = rule(5, "cards dealt to each player, and refilled to after every doubt",
                          search=range(3, 9))
    first_claim: int = rule(1, "the starting player's first claim names exactly this many animals",
                            search=range(1, 4))
    point_limit: int = rule(30, "the game ends when a player has this many points or more",
                            search=range(15, 46, 5))
    next_starter: str = rule(
        "left", "who starts the next round: 'left' (the starting player card passes left, as "
        "printed) or 'loser' (the player who just took the points; a common house rule)",
        search=["left", "loser"])
    max_claim: int | None = rule(
        None, "highest number a claim may name (not printed; the cap makes every round end: at "
        "max_claim of the biggest animal the next player must doubt). null: the most animals "
        "of one kind a pile can hold with this deck (168 with the printed cards), so that every "
        "claim that can be true can be made", search=[None, 20, 40, 60])

    def validate(self) -> None:
        if len(self.animals) < 1:
            raise RulesError("animals", "needs at least one animal kind")
        for name in ("animal_cards", "wild_cards"):
            v = getattr(self, name)
            if any(c < 0 for c in v):
                raise RulesError(name, "counts must be 0 or more")
        if not self.animal_cards:
            raise RulesError("animal_cards", "needs at least one animal value")
        for name in ("count_one_cards", "all_equal_cards", "stop_cards"):
            if getattr(self, name) < 0:
                raise RulesError(name, "must be 0 or more")
        if self.hand_size < 1:
            raise RulesError("hand_size", "must be at least 1")
        if self.point_limit < 1:
            raise RulesError("point_limit", "must be at least 1")
        if self.max_claim is not None and self.max_claim < 1:
            raise RulesError("max_claim", "must be at least 1 (or null: as many as can be true)")
        if not 1 <= self.first_claim <= self.claim_cap():
            raise RulesError("first_claim", f"must be between 1 and the claim cap "
                                            f"({self.claim_cap()}, rules.max_claim)")
        if self.next_starter not in ("left", "loser"):
            raise RulesError("next_starter",
                             f"must be 'left' or 'loser', not {self.next_starter!r}")

    def most_animals(self) -> int:
        """The most animals of one kind a discard pile can hold: every wild card at its value,
        and every animal card at its value ("All animals are equal" in force, no "All cards
        count 1") when the deck has that card, else the richest kind's own cards."""
        wild = sum((i + 1) * n for i, n in enumerate(self.wild_cards))
        kind = sum((v + 1) * n for v, n in enumerate(self.animal_cards))
        return wild + kind * (len(self.animals) if self.all_equal_cards > 0 else 1)

    def claim_cap(self) -> int:
        """The highest number a claim may name: ``max_claim``, or ``most_animals`` when it is
        null (at least ``first_claim``, so that the first claim can be made)."""
        return self.max_claim if self.max_claim is not None else max(self.most_animals(),
                                                                     self.first_claim)


# card classes (t_cls)
ANIMAL, WILD, COUNT_ONE, ALL_EQUAL, STOP = range(5)

# Decision kinds (obs.kind, state phase)
RESPOND = 0   # after a claim: doubt it, or go on to make a bigger one
SOURCE = 1    # place a hand card, the draw pile's top card (looked at, then placed), or none
COUNT = 2     # the number of animals the claim names
KIND = 3      # the kind of animal it names
OVER = 4

# Actions: 0 go on, 1 doubt; HAND0 + t place a hand card of type t; then draw-and-place; no card;
# then count0 + (count - 1) for count 1..max_claim; then kind0 + kind. The offsets after HAND0
# depend on the number of card types (see Obs.draw_action, ...).
CONTINUE, DOUBT, HAND0 = 0, 1, 2

# Per-game scalar fields: g[b, ...]
(CUR, PHASE, STARTER, CLAIM_N, CLAIM_K, CLAIMANT, CLAIMS, PILE_N, PILE_DRAWN, POS, ROUND,
 TURNS, JUST, END, FORCED, PENDING, CAPPED, NEV) = range(18)
NG = 18
# Per-player fields: pp[b, p, ...]
(POINTS, HAND_N, PILE_BY, N_CLAIMS, FALSE_CLAIMS, DOUBTS, DOUBTS_RIGHT, CAUGHT, DRAWN,
 NO_CARDS, SAID_N, SAID_K) = range(12)
NPP = 12

# End reasons (g[b, END])
END_NONE, END_POINTS, END_DECK = 0, 1, 2

# Event log (for describe): ev[b, i] = (type, seat, a, b, c, d)
E_ROUND, E_PLACE, E_NOCARD, E_CLAIM, E_DOUBT, E_SHOW, E_TAKE, E_REFILL, E_END = range(1, 10)

# params vector layout
(P_PLAYERS, P_TYPES, P_KINDS, P_CARDS, P_HAND, P_LIMIT, P_MAXCLAIM, P_FIRST, P_LOSER_STARTS
 ) = range(9)


@dataclass
class State:
    n_players: int
    rules: Rules
    # constants
    t_cls: np.ndarray        # int64[T] ANIMAL, WILD, COUNT_ONE, ALL_EQUAL or STOP
    t_kind: np.ndarray       # int64[T] animal kind, -1 for the other cards
    t_val: np.ndarray        # int64[T] animals shown (animal and wild cards), else 0
    comp: np.ndarray         # int16[T] cards of each type in the box
    params: np.ndarray       # int64[9]
    # per game
    g: np.ndarray            # int32[B, NG]
    pp: np.ndarray           # int32[B, P, NPP]
    deck: np.ndarray         # int16[B, C]: the draw pile in order; deck[b, g[b, POS]] is next
    hand: np.ndarray         # int16[B, P, T]
    placed: np.ndarray       # int16[B, P, T]: cards each player put on the current discard pile
    pile: np.ndarray         # int16[B, T]: the discard pile
    taken: np.ndarray        # int16[B, P, T]: each player's point cards
    ev: np.ndarray           # int32[B, L, 6]; L = 0 unless logging
    rs: np.ndarray           # uint64[B]: each game's chance stream (engine.chance)
    dr: np.ndarray           # int32[B, drama_width(P)]: the lead's story (engine.drama)


def card_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(t_cls, t_kind, t_val, comp) for the rules' deck, in card-type order."""
    k, v, w = len(rules.animals), len(rules.animal_cards), len(rules.wild_cards)
    cls = [ANIMAL] * (k * v) + [WILD] * w + [COUNT_ONE, ALL_EQUAL, STOP]
    kind = [t // v for t in range(k * v)] + [-1] * (w + 3)
    val = [t % v + 1 for t in range(k * v)] + [i + 1 for i in range(w)] + [0, 0, 0]
    comp = (list(rules.animal_cards) * k + list(rules.wild_cards)
            + [rules.count_one_cards, rules.all_equal_cards, rules.stop_cards])
    return (np.array(cls, np.int64), np.array(kind, np.int64), np.array(val, np.int64),
            np.array(comp, np.int16))


# ---- Setup ------------------------------------------------------------------------------------

@njit(cache=True)
def _draw_to_hand(b, p, k, g, pp, deck, hand):
    for _ in range(k):
        t = deck[b, g[b, POS]]
        g[b, POS] += 1
        hand[b, p, t] += 1
        pp[b, p, HAND_N] += 1


@njit(cache=True)
def _start_round(b, starter, g, ev):
    """The holder of the starting player card opens the round: place a card, claim exactly
    ``first_claim`` animals."""
    g[b, STARTER] = starter
    g[b, CUR] = starter
    g[b, PHASE] = SOURCE
    g[b, CLAIM_N] = 0
    g[b, CLAIM_K] = -1
    g[b, CLAIMANT] = -1
    g[b, CLAIMS] = 0
    g[b, JUST] = -1
    log_event(ev, g, NEV, b, E_ROUND, starter, g[b, ROUND] + 1, 0, 0, 0)


@njit(cache=True)
def _init(g, pp, deck, hand, ev, params):
    nplayers = params[P_PLAYERS]
    for b in range(g.shape[0]):
        for p in range(nplayers):
            _draw_to_hand(b, p, np.int64(params[P_HAND]), g, pp, deck, hand)
            pp[b, p, SAID_K] = -1
        _start_round(b, np.int64(0), g, ev)


# ---- How to Play ------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _place(b, p, t, drawn, g, pp, placed, pile, ev):
    pile[b, t] += 1
    placed[b, p, t] += 1
    pp[b, p, PILE_BY] += 1
    g[b, PILE_N] += 1
    g[b, JUST] = t
    if drawn:
        g[b, PILE_DRAWN] += 1
        pp[b, p, DRAWN] += 1
    log_event(ev, g, NEV, b, E_PLACE, p, t, drawn, 0, 0)


@njit(cache=True, inline="always")
def apply_action(b, a, g, pp, deck, hand, placed, pile, taken, ev, dr, t_cls, t_kind, t_val,
                 params):
    """Game b's player to move takes action ``a`` (legal: ``legal_row``). The one copy of the
    rules of a move: the batch ``step`` and the compiled strategies' whole-game kernel
    (strategies/_bluff_in_zoo_compiled.py) both call it."""
    nplayers = params[P_PLAYERS]
    ntypes = params[P_TYPES]
    nkinds = params[P_KINDS]
    draw_a = HAND0 + ntypes
    count0 = draw_a + 2
    kind0 = count0 + params[P_MAXCLAIM]
    phase = g[b, PHASE]
    p = g[b, CUR]
    if phase == RESPOND:
        if a == DOUBT:
            if g[b, CLAIM_N] == params[P_MAXCLAIM] and g[b, CLAIM_K] == nkinds - 1:
                g[b, FORCED] += 1
            g[b, TURNS] += 1
            _doubt(b, g, pp, deck, hand, placed, pile, taken, ev, dr, t_cls, t_kind, t_val,
                   params)
        else:
            g[b, PHASE] = SOURCE
    elif phase == SOURCE:
        g[b, JUST] = -1
        if a < draw_a:
            t = a - HAND0      # a hand card, face down
            hand[b, p, t] -= 1
            pp[b, p, HAND_N] -= 1
            _place(b, p, t, 0, g, pp, placed, pile, ev)
        elif a == draw_a:
            t = deck[b, g[b, POS]]  # seen by this player only, then placed
            g[b, POS] += 1
            _place(b, p, t, 1, g, pp, placed, pile, ev)
        else:
            pp[b, p, NO_CARDS] += 1
            log_event(ev, g, NEV, b, E_NOCARD, p, 0, 0, 0, 0)
        g[b, PHASE] = COUNT
    elif phase == COUNT:
        g[b, PENDING] = a - count0 + 1
        g[b, PHASE] = KIND
    else:  # KIND: the claim is made
        n = g[b, PENDING]
        k = a - kind0
        g[b, PENDING] = 0
        g[b, JUST] = -1        # the card stays this player's secret
        true = count_animals(pile[b], k, t_cls, t_kind, t_val) >= n
        pp[b, p, N_CLAIMS] += 1
        if not true:
            pp[b, p, FALSE_CLAIMS] += 1
        log_event(ev, g, NEV, b, E_CLAIM, p, n, k, 1 if true else 0, 0)
        if n == params[P_MAXCLAIM]:
            g[b, CAPPED] += 1  # the cap left this claimant no bigger number
        g[b, CLAIM_N] = n
        g[b, CLAIM_K] = k
        pp[b, p, SAID_N] = n
        pp[b, p, SAID_K] = k
        g[b, CLAIMANT] = p
        g[b, CLAIMS] += 1
        g[b, TURNS] += 1
        g[b, CUR] = (p + 1) % nplayers
        g[b, PHASE] = RESPOND


@njit(cache=True)
def _step(actions, g, pp, deck, hand, placed, pile, taken, ev, dr, t_cls, t_kind, t_val,
          params):
    for b in range(g.shape[0]):
        if g[b, PHASE] != OVER:
            apply_action(b, actions[b], g, pp, deck, hand, placed, pile, taken, ev, dr, t_cls,
                         t_kind, t_val, params)


@njit(cache=True, inline="always")
def legal_row(b, g, hand, params, out):
    """Game b's legal actions now, written into ``out`` (bool[n_actions], cleared first)."""
    ntypes = params[P_TYPES]
    nkinds = params[P_KINDS]
    maxclaim = params[P_MAXCLAIM]
    draw_a = HAND0 + ntypes
    count0 = draw_a + 2
    kind0 = count0 + maxclaim
    out[:] = False
    ph = g[b, PHASE]
    cn = g[b, CLAIM_N]
    ck = g[b, CLAIM_K]
    if ph == RESPOND:
        out[DOUBT] = True
        # go on only if a bigger claim exists
        out[CONTINUE] = cn < maxclaim or ck < nkinds - 1
    elif ph == SOURCE:
        p = g[b, CUR]
        for t in range(ntypes):
            out[HAND0 + t] = hand[b, p, t] > 0
        out[draw_a] = g[b, POS] < params[P_CARDS]
        out[draw_a + 1] = g[b, CLAIMS] > 0   # the round's first move must place a card
    elif ph == COUNT:
        if g[b, CLAIMS] == 0:
            out[count0 + params[P_FIRST] - 1] = True
        else:
            # more animals of any kind, or as many of a bigger kind
            if ck < nkinds - 1:
                out[count0 + cn - 1] = True
            for c in range(cn + 1, maxclaim + 1):
                out[count0 + c - 1] = True
    elif ph == KIND:
        low = 0
        if g[b, CLAIMS] > 0 and g[b, PENDING] == cn:
            low = ck + 1       # as many animals: only a bigger kind
        for k in range(low, nkinds):
            out[kind0 + k] = True


@njit(cache=True)
def _legal(g, hand, params, nactions):
    nb = g.shape[0]
    out = np.empty((nb, nactions), dtype=np.bool_)
    for b in range(nb):
        legal_row(b, g, hand, params, out[b])
    return out


# ---- Doubting ---------------------------------------------------------------------------------

@njit(cache=True)
def _doubt(b, g, pp, deck, hand, placed, pile, taken, ev, dr, t_cls, t_kind, t_val, params):
    """Flip the pile open and count the claimed kind: a true claim costs the doubter the pile,
    a lie costs the claimant."""
    p = g[b, CUR]
    liar = g[b, CLAIMANT]
    kind = g[b, CLAIM_K]
    counted = count_animals(pile[b], kind, t_cls, t_kind, t_val)
    pp[b, p, DOUBTS] += 1
    log_event(ev, g, NEV, b, E_DOUBT, p, liar, g[b, CLAIM_N], kind, counted)
    for t in range(params[P_TYPES]):
        if pile[b, t] > 0:
            log_event(ev, g, NEV, b, E_SHOW, -1, t, pile[b, t], 0, 0)
    if counted >= g[b, CLAIM_N]:
        taker = p
    else:
        taker = liar
        pp[b, p, DOUBTS_RIGHT] += 1
        pp[b, liar, CAUGHT] += 1
    _end_turn(b, taker, g, pp, deck, hand, placed, pile, taken, ev, dr, params)


# ---- Wild Cards, Action Cards, The Stop Cards -------------------------------------------------

@njit(cache=True, inline="always")
def count_animals(pile, kind, t_cls, t_kind, t_val):
    """Animals of ``kind`` in a pile given as counts per card type, as a doubt counts them."""
    one = False
    equal = False
    stops = 0
    for t in range(pile.shape[0]):
        if pile[t] > 0:
            c = t_cls[t]
            if c == COUNT_ONE:
                one = True       # more of the same action card add nothing
            elif c == ALL_EQUAL:
                equal = True
            elif c == STOP:
                stops += pile[t]
    if stops % 2 == 1:           # an odd number of stop cards cancels every action card
        one = False
        equal = False
    total = 0
    for t in range(pile.shape[0]):
        n = pile[t]
        if n == 0:
            continue
        c = t_cls[t]
        # wild cards always count as the kind last claimed; animals with "all equal" too
        if c == WILD or (c == ANIMAL and (equal or t_kind[t] == kind)):
            total += n * (1 if one else t_val[t])
    return total


# ---- End of Turn, End of Game -----------------------------------------------------------------

@njit(cache=True, inline="always")
def _end_turn(b, taker, g, pp, deck, hand, placed, pile, taken, ev, dr, params):
    """The taker puts the discard pile in front of him as points; then the game ends, or every
    hand is refilled and the starting player card moves on."""
    nplayers = params[P_PLAYERS]
    ntypes = params[P_TYPES]
    n = g[b, PILE_N]
    for t in range(ntypes):
        taken[b, taker, t] += pile[b, t]
        pile[b, t] = 0
    for p in range(nplayers):
        for t in range(ntypes):
            placed[b, p, t] = 0
        pp[b, p, PILE_BY] = 0
        pp[b, p, SAID_N] = 0
        pp[b, p, SAID_K] = -1
    pp[b, taker, POINTS] += n
    drama.drama_update(dr, b, pp[b, :, POINTS], True)  # the running score: points after a round
    g[b, PILE_N] = 0
    g[b, PILE_DRAWN] = 0
    g[b, ROUND] += 1
    log_event(ev, g, NEV, b, E_TAKE, taker, n, pp[b, taker, POINTS], 0, 0)
    if pp[b, taker, POINTS] >= params[P_LIMIT]:
        g[b, END] = END_POINTS
    else:
        need = 0
        for p in range(nplayers):
            need += params[P_HAND] - pp[b, p, HAND_N]
        if need > params[P_CARDS] - g[b, POS]:
            g[b, END] = END_DECK  # the draw pile cannot fill every hand to five
    if g[b, END] != END_NONE:
        g[b, PHASE] = OVER
        g[b, CUR] = -1
        log_event(ev, g, NEV, b, E_END, -1, g[b, END], g[b, ROUND], 0, 0)
        return
    if params[P_LOSER_STARTS] != 0:
        starter = taker
    else:
        starter = (g[b, STARTER] + 1) % nplayers
    for i in range(nplayers):  # refill clockwise from the new starting player
        p = (starter + i) % nplayers
        _draw_to_hand(b, p, np.int64(params[P_HAND] - pp[b, p, HAND_N]), g, pp, deck, hand)
    log_event(ev, g, NEV, b, E_REFILL, -1, params[P_CARDS] - g[b, POS], 0, 0, 0)
    _start_round(b, np.int64(starter), g, ev)


# ---- What a player knows ----------------------------------------------------------------------

@njit(cache=True)
def _observe(games, g, pp, hand, placed, taken, comp, params):
    """The mover's view; per-player arrays rotated so index 0 is the mover and index o the
    player o seats to the left."""
    n = games.shape[0]
    nplayers = params[P_PLAYERS]
    ntypes = params[P_TYPES]
    kind = np.empty(n, np.int8)
    seat = np.empty(n, np.int8)
    rnd = np.empty(n, np.int16)
    my_hand = np.empty((n, ntypes), np.int16)
    my_pile = np.empty((n, ntypes), np.int16)
    revealed = np.zeros((n, ntypes), np.int16)
    unseen = np.empty((n, ntypes), np.int16)
    pile_n = np.empty(n, np.int16)
    pile_drawn = np.empty(n, np.int16)
    draw_left = np.empty(n, np.int16)
    claim_n = np.empty(n, np.int16)
    claim_k = np.empty(n, np.int8)
    claimant = np.empty(n, np.int8)
    claims = np.empty(n, np.int16)
    just = np.empty(n, np.int16)
    pending = np.empty(n, np.int16)
    points = np.empty((n, nplayers), np.int16)
    hand_n = np.empty((n, nplayers), np.int16)
    pile_by = np.empty((n, nplayers), np.int16)
    said_n = np.empty((n, nplayers), np.int16)
    said_k = np.empty((n, nplayers), np.int8)
    for i in range(n):
        b = games[i]
        p = g[b, CUR]
        kind[i] = g[b, PHASE]
        seat[i] = p
        rnd[i] = g[b, ROUND]
        for q in range(nplayers):
            for t in range(ntypes):
                revealed[i, t] += taken[b, q, t]
        for t in range(ntypes):
            my_hand[i, t] = hand[b, p, t]
            my_pile[i, t] = placed[b, p, t]
            unseen[i, t] = comp[t] - hand[b, p, t] - placed[b, p, t] - revealed[i, t]
        pile_n[i] = g[b, PILE_N]
        pile_drawn[i] = g[b, PILE_DRAWN]
        draw_left[i] = params[P_CARDS] - g[b, POS]
        claim_n[i] = g[b, CLAIM_N]
        claim_k[i] = g[b, CLAIM_K]
        claimant[i] = -1 if g[b, CLAIMANT] < 0 else (g[b, CLAIMANT] - p) % nplayers
        claims[i] = g[b, CLAIMS]
        just[i] = g[b, JUST]
        pending[i] = g[b, PENDING]
        for o in range(nplayers):
            q = (p + o) % nplayers
            points[i, o] = pp[b, q, POINTS]
            hand_n[i, o] = pp[b, q, HAND_N]
            pile_by[i, o] = pp[b, q, PILE_BY]
            said_n[i, o] = pp[b, q, SAID_N]
            said_k[i, o] = pp[b, q, SAID_K]
    return (seat, kind, rnd, my_hand, my_pile, revealed, unseen, pile_n, pile_drawn, draw_left,
            claim_n, claim_k, claimant, claims, just, pending, points, hand_n, pile_by, said_n,
            said_k)


# ---- Worlds for search ------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _deal_counts(zone, n, pool, j):
    """A zone of ``n`` cards (counts per type) from ``pool[j:j + n]``; returns j + n."""
    for t in range(zone.shape[0]):
        zone[t] = 0
    for x in range(j, j + n):
        zone[pool[x]] += 1
    return j + n


@njit(cache=True)
def _determinize(seat, g, pp, deck, hand, placed, pile, taken, comp, rs, pool):
    """Deal row i of a cloned state again for ``seat[i]``: the cards it cannot place (the other
    hands, the cards the others put on the current pile, the draw pile) gathered as a multiset in
    card-type order, shuffled from stream i, and dealt back into zones of the same sizes. Its own
    hand, its own pile cards and every card shown by a doubt (the point stacks) stay."""
    nplayers = hand.shape[1]
    ntypes = comp.shape[0]
    for i in range(seat.shape[0]):
        p = seat[i]
        n = 0
        for t in range(ntypes):
            k = comp[t] - hand[i, p, t] - placed[i, p, t]
            for q in range(nplayers):
                k -= taken[i, q, t]
            for _ in range(k):
                pool[i, n] = t
                n += 1
        shuffle_row(pool[i], n, rs, i)
        j = 0
        for q in range(nplayers):
            if q != p:
                j = _deal_counts(hand[i, q], pp[i, q, HAND_N], pool[i], j)
        for q in range(nplayers):
            if q != p:
                j = _deal_counts(placed[i, q], pp[i, q, PILE_BY], pool[i], j)
        for t in range(ntypes):
            s = 0
            for q in range(nplayers):
                s += placed[i, q, t]
            pile[i, t] = s
        pos = g[i, POS]
        for x in range(j, n):            # the draw pile, from its top
            deck[i, pos + x - j] = pool[i, x]
        # the cards already drawn: every card not in the draw pile, in type order (never read)
        left = 0
        for t in range(ntypes):
            k = comp[t]
            for x in range(j, n):
                if pool[i, x] == t:
                    k -= 1
            for _ in range(k):
                deck[i, left] = t
                left += 1


# How many claims the prior chance that a player's claim is true (``world_weights``' trust)
# counts for, against that player's claims a doubt has shown true or false
TRUST_WEIGHT = 4.0


@njit(cache=True)
def _claim_weights(seat, pp, pile, t_cls, t_kind, t_val, trust, strength, out):
    """out[i]: for ``seat[i]``, the product over every other player's latest claim this round
    (public: SAID_N, SAID_K) of t where world i's discard pile makes it true, else 1 - t; t is
    that player's chance of a true claim: ``trust``, counted as ``strength`` claims, and the
    player's claims doubted so far (public: the doubt shows the pile), true or false. Every
    doubt is of the doubter's right-hand neighbour's claim, so player q's claims were doubted
    ``DOUBTS`` of q + 1 times and found false ``CAUGHT`` of q times. The pile is the one now: a
    claim made a turn or two ago named a pile of fewer cards (which of the later cards came
    after it is hidden), so this reads an earlier claim a little more kindly."""
    nplayers = pp.shape[1]
    for i in range(seat.shape[0]):
        w = 1.0
        for q in range(nplayers):
            if q == seat[i] or pp[i, q, SAID_K] < 0:
                continue
            doubted = pp[i, (q + 1) % nplayers, DOUBTS]
            t = (trust * strength + doubted - pp[i, q, CAUGHT]) / (strength + doubted)
            true = count_animals(pile[i], pp[i, q, SAID_K], t_cls, t_kind, t_val) \
                >= pp[i, q, SAID_N]
            w *= t if true else 1.0 - t
        out[i] = w


@dataclass
class Obs(Observation):
    """What the player to move knows. Per-player arrays are rotated: index 0 is this player,
    index o the player o seats to the left."""

    shared: ClassVar[tuple[str, ...]] = ("t_cls", "t_kind", "t_val")

    game: np.ndarray         # int[n] batch index (for strategies that keep memory)
    seat: np.ndarray         # int8[n] this player's seat (0 = the game's first player)
    kind: np.ndarray         # int8[n] RESPOND (0), SOURCE (1), COUNT (2) or KIND (3)
    round: np.ndarray        # int16[n] rounds finished
    hand: np.ndarray         # int16[n, T] this player's hand by card type
    my_pile: np.ndarray      # int16[n, T] cards this player put on the current pile (it saw them)
    revealed: np.ndarray     # int16[n, T] cards shown by the doubts so far (every point card)
    unseen: np.ndarray       # int16[n, T] cards whose place this player does not know
    pile_n: np.ndarray       # int16[n] cards in the discard pile
    pile_drawn: np.ndarray   # int16[n] of them, drawn from the draw pile and placed (public)
    draw_left: np.ndarray    # int16[n] cards in the draw pile
    claim_n: np.ndarray      # int16[n] the last claim's number (0: no claim yet this round)
    claim_k: np.ndarray      # int8[n] the last claim's kind (-1: none)
    claimant: np.ndarray     # int8[n] offset of the last claimant (-1: none)
    claims: np.ndarray       # int16[n] claims made this round
    just: np.ndarray         # int16[n] card this player placed this turn (-1: none yet)
    pending: np.ndarray      # int16[n] the number this player's claim names (KIND step), else 0
    points: np.ndarray       # int16[n, P] point cards in front of each player
    hand_n: np.ndarray       # int16[n, P] hand sizes
    pile_by: np.ndarray      # int16[n, P] cards each player put on the current pile
    said_n: np.ndarray       # int16[n, P] each player's latest claim this round: number (0: none)
    said_k: np.ndarray       # int8[n, P] ... and kind (-1: none)
    t_cls: np.ndarray        # int64[T] card classes (ANIMAL, WILD, COUNT_ONE, ALL_EQUAL, STOP)
    t_kind: np.ndarray       # int64[T] animal kind or -1
    t_val: np.ndarray        # int64[T] animals shown
    n_kinds: int             # animal kinds in the deck (elephant, lion, fox, rabbit, mouse)
    max_claim: int           # the claim cap in force (rules.claim_cap(); 168 by default)
    first_claim: int
    point_limit: int

    @action_helper
    def go_on_action(self) -> int:
        """The action: go on, making a bigger claim (RESPOND)."""
        return CONTINUE

    @action_helper
    def doubt_action(self) -> int:
        """The action: doubt the last claim (RESPOND)."""
        return DOUBT

    @action_helper
    def card_action(self, card_type) -> np.ndarray:
        """The action: place the hand card of type ``card_type`` (SOURCE; types as in ``hand``)."""
        return read_only(HAND0 + np.asarray(card_type))

    @action_helper
    def draw_action(self) -> int:
        """The action: draw the draw pile's top card onto the pile instead of a hand card."""
        return HAND0 + len(self.t_cls)

    @action_helper
    def no_card_action(self) -> int:
        """The action: place no card (raise the claim only)."""
        return HAND0 + len(self.t_cls) + 1

    @property
    def count0(self) -> int:
        """The first claim-count action (count c is count0 + c - 1)."""
        return HAND0 + len(self.t_cls) + 2

    @property
    def kind0(self) -> int:
        """The first claim-kind action (kind k is kind0 + k)."""
        return HAND0 + len(self.t_cls) + 2 + self.max_claim

    @action_helper
    def count_action(self, count) -> np.ndarray:
        """Action index (COUNT step) for a claim naming ``count`` animals."""
        return read_only(self.count0 + np.asarray(count) - 1)

    @action_helper
    def kind_action(self, kind) -> np.ndarray:
        """Action index (KIND step) for a claim naming animals of ``kind``."""
        return read_only(self.kind0 + np.asarray(kind))

    def min_raise(self) -> np.ndarray:
        """int[n, K]: the smallest legal count for each kind now (first_claim on the round's first
        claim; max_claim + 1 where the kind cannot be claimed any more)."""
        k = np.arange(self.n_kinds)[None, :]
        cn = self.claim_n.astype(np.int64)[:, None]
        # more animals of any kind, or as many of a bigger kind
        low = np.where(k > self.claim_k[:, None], cn, cn + 1)
        low = np.where(self.claims[:, None] == 0, self.first_claim, low)
        return read_only(np.minimum(low, self.max_claim + 1))


class BluffInZoo(Game):
    id = "bluff_in_zoo"
    measures = ("ended_by_deck", "most_honest_points", "cards_untaken")
    name = "Bluff in Zoo"
    min_players = 2
    max_players = 6
    Rules = Rules
    score_name = "points (cards taken; fewest wins)"
    lower_score_wins = True
    decision_kinds = ("doubt the last claim or go on", "place a card (hand, draw pile) or none",
                      "how many animals to claim", "which animal to claim")

    def n_types(self, rules: Rules) -> int:
        return len(rules.animals) * len(rules.animal_cards) + len(rules.wild_cards) + 3

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return HAND0 + self.n_types(rules) + 2 + rules.claim_cap() + len(rules.animals)

    def card_name(self, rules: Rules, t: int) -> str:
        nv, nk = len(rules.animal_cards), len(rules.animals)
        if t < nk * nv:
            return f"{rules.animals[t // nv]} {t % nv + 1}"
        t -= nk * nv
        if t < len(rules.wild_cards):
            return f"wild {t + 1}"
        return ("'All cards count 1'", "'All animals are equal'", "stop")[t - len(rules.wild_cards)]

    def claim_name(self, rules: Rules, count: int, kind: int) -> str:
        return f"{count} {rules.animals[kind]}"

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        nt = self.n_types(rules)
        if action == CONTINUE:
            return "go on (make a bigger claim)"
        if action == DOUBT:
            return "doubt the last claim"
        if action < HAND0 + nt:
            return f"place the hand card {self.card_name(rules, action - HAND0)}"
        if action == HAND0 + nt:
            return "draw a card from the draw pile, look at it and place it"
        if action == HAND0 + nt + 1:
            return "place no card"
        c = action - (HAND0 + nt + 2)
        if c < rules.claim_cap():
            return f"claim {c + 1} animals (the kind comes next)"
        return f"name the animal: {rules.animals[c - rules.claim_cap()]}"

    # -- setup
    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        total = sum(card_tables(rules)[3])
        if total < n_players * rules.hand_size:
            raise RulesError("hand_size", f"{n_players} hands of {rules.hand_size} need more "
                                          f"than the {total} cards of the deck")

    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        batch = len(keys)
        rs = np.array(keys, dtype=np.uint64)
        t_cls, t_kind, t_val, comp = card_tables(rules)
        ntypes = len(comp)
        ncards = int(comp.sum())
        params = np.array([n_players, ntypes, len(rules.animals), ncards, rules.hand_size,
                           rules.point_limit, rules.claim_cap(), rules.first_claim,
                           1 if rules.next_starter == "loser" else 0], np.int64)
        # Shuffle all cards; each player draws five; the rest is the draw pile.
        deck = np.tile(np.repeat(np.arange(ntypes, dtype=np.int16), comp), (batch, 1))
        shuffle_rows(deck, ncards, rs)     # game b's deal from its own stream alone
        st = State(
            n_players=n_players, rules=rules, t_cls=t_cls, t_kind=t_kind, t_val=t_val, comp=comp,
            params=params, g=np.zeros((batch, NG), np.int32),
            pp=np.zeros((batch, n_players, NPP), np.int32), deck=deck,
            hand=np.zeros((batch, n_players, ntypes), np.int16),
            placed=np.zeros((batch, n_players, ntypes), np.int16),
            pile=np.zeros((batch, ntypes), np.int16),
            taken=np.zeros((batch, n_players, ntypes), np.int16),
            ev=np.zeros((batch, 20000 if log else 0, 6), np.int32), rs=rs,
            dr=drama.drama_new(batch, n_players),
        )
        _init(st.g, st.pp, st.deck, st.hand, st.ev, st.params)
        return st

    # -- positions for tests and examples
    def card(self, rules: Rules, name: str) -> int:
        """Card type from its name as ``card_name`` writes it (e.g. "mouse 3", "wild 2")."""
        names = [self.card_name(rules, t) for t in range(self.n_types(rules))]
        return names.index(name)

    def deal(self, state: State, b: int, hands: list[list[int]], top: list[int] = ()) -> None:
        """Rig game b at the start of its first round: these hands, and the draw pile starting
        with ``top``; every other card follows in the draw pile. Cards stay conserved."""
        left = state.comp.astype(np.int64).copy()
        order = [t for h in hands for t in h] + list(top)
        for t in order:
            left[t] -= 1
        if (left < 0).any():
            raise ValueError("the deal uses more cards of a type than the deck has")
        state.deck[b] = np.concatenate([order, np.repeat(np.arange(len(left)), left)])
        state.hand[b] = 0
        for p, h in enumerate(hands):
            for t in h:
                state.hand[b, p, t] += 1
            state.pp[b, p, HAND_N] = len(h)
        state.g[b, POS] = sum(len(h) for h in hands)

    def zones(self, state: State, b: int) -> dict[str, np.ndarray]:
        """Cards of game b by zone, as counts per card type."""
        t = len(state.comp)
        z = {"draw": np.bincount(state.deck[b, state.g[b, POS]:], minlength=t),
             "pile": state.pile[b].astype(np.int64)}
        for p in range(state.n_players):
            z[f"hand{p}"] = state.hand[b, p].astype(np.int64)
            z[f"points{p}"] = state.taken[b, p].astype(np.int64)
        return z

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        return np.where(state.g[:, PHASE] == OVER, -1, state.g[:, CUR])

    def legal(self, state: State) -> np.ndarray:
        nactions = self.n_actions(state.rules, state.n_players)
        return _legal(state.g, state.hand, state.params, nactions)

    def observe(self, state: State, games: np.ndarray) -> Obs:
        # a snapshot: _observe fills arrays made for this call, and the card tables are copies
        # (nothing a strategy keeps or writes can reach the state)
        games = np.array(games, dtype=np.int64)
        arrays = _observe(games, state.g, state.pp, state.hand, state.placed, state.taken,
                          state.comp, state.params)
        r = state.rules
        return Obs(games, *arrays, t_cls=state.t_cls.copy(), t_kind=state.t_kind.copy(),
                   t_val=state.t_val.copy(), n_kinds=len(r.animals), max_claim=r.claim_cap(),
                   first_claim=r.first_claim, point_limit=r.point_limit)

    def step(self, state: State, actions: np.ndarray) -> None:
        # No chance after the deal: the draw pile was shuffled in init.
        _step(np.asarray(actions, np.int64), state.g, state.pp, state.deck, state.hand,
              state.placed, state.pile, state.taken, state.ev, state.dr, state.t_cls,
              state.t_kind, state.t_val, state.params)

    def outcome(self, state: State) -> Outcome:
        points = state.pp[:, :, POINTS].astype(np.float64)
        rank, win = ranks_and_wins(-points)   # fewest points wins; ties share
        pp = state.pp
        lead = drama.drama_stats(state.dr, points, win, True)
        return Outcome(
            score=points, rank=rank, win=win, turns=state.g[:, TURNS].copy(),
            stats={
                "rounds": state.g[:, ROUND].copy(),
                "ended_by_deck": (state.g[:, END] == END_DECK).astype(np.int8),
                "forced_doubts": state.g[:, FORCED].copy(),
                "claims_at_cap": state.g[:, CAPPED].copy(),
                "claims": pp[:, :, N_CLAIMS].copy(),
                "false_claims": pp[:, :, FALSE_CLAIMS].copy(),
                "doubts": pp[:, :, DOUBTS].copy(),
                "doubts_right": pp[:, :, DOUBTS_RIGHT].copy(),
                "caught_lying": pp[:, :, CAUGHT].copy(),
                "cards_drawn": pp[:, :, DRAWN].copy(),
                "claims_without_card": pp[:, :, NO_CARDS].copy(),
                # the designer's measures (docs/rules/bluff_in_zoo.md, "Measures"): the points
                # of "the most honest player", and the cards no one took as points
                "most_honest_points": points.max(axis=1).astype(np.int32),
                "cards_untaken": (self.points_available(state.rules, state.n_players)
                                  - points.sum(axis=1)).astype(np.int32),
                **lead,
            },
        )

    def points_available(self, rules: Rules, n_players: int) -> float:
        """Every card in the box: each counts one point for whoever takes it."""
        return float(card_tables(rules)[3].sum())

    def running_score(self, state: State) -> np.ndarray:
        """The points each player has taken so far (the cards of lost doubts: what "everyone
        counts" at the end). The cards on the discard pile go to whoever loses the next doubt,
        not yet known: they count for nobody."""
        return state.pp[:, :, POINTS].astype(np.float64)

    # -- worlds for search
    constant_fields = ("t_cls", "t_kind", "t_val", "comp", "params")

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        """Worlds for search (docs/rules/bluff_in_zoo.md, "Worlds for search"): every card the
        seat cannot place dealt again from ``keys[i]``; nothing else changes. The event log is
        dropped (it names hidden cards)."""
        games = np.asarray(games, np.int64)
        w = self.clone(dataclasses.replace(state, ev=state.ev[:, :0]), games)
        w.rs = np.array(keys, dtype=np.uint64)
        pool = np.empty((len(games), int(state.comp.sum())), np.int16)
        _determinize(np.asarray(seat, np.int64), w.g, w.pp, w.deck, w.hand, w.placed, w.pile,
                     w.taken, state.comp, w.rs, pool)
        return w

    def world_weights(self, state: State, seat: np.ndarray, trust: float) -> np.ndarray:
        """The claims of this round (docs/rules/bluff_in_zoo.md, "Worlds for search"): each
        other player's latest claim is true with chance ``trust`` (an honest-leaning model of
        them), moved towards the share of that player's doubted claims that were true (the
        round's earlier claims of a player are beaten by its latest). The seat's own claims say
        nothing it does not know."""
        out = np.empty(len(state.g), np.float64)
        _claim_weights(np.ascontiguousarray(seat, np.int64), state.pp, state.pile, state.t_cls,
                       state.t_kind, state.t_val, np.float64(trust), np.float64(TRUST_WEIGHT),
                       out)
        return out

    # -- words
    def describe(self, state: State, i: int) -> str:
        r = state.rules
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        lines = []
        n = int(state.g[i, NEV])
        for t, seat, a, b_, c, d in state.ev[i, :n]:
            who = f"P{seat}"
            if t == E_ROUND:
                lines.append(f"-- Round {a}: P{seat} has the starting player card --")
            elif t == E_PLACE:
                how = "draws and places" if b_ else "places from the hand"
                lines.append(f"{who} {how} {self.card_name(r, int(a))} (hidden from the others)")
            elif t == E_NOCARD:
                lines.append(f"{who} places no card")
            elif t == E_CLAIM:
                lines.append(f"{who} claims: \"{self.claim_name(r, int(a), int(b_))}\""
                             + ("" if c else "  (a lie)"))
            elif t == E_DOUBT:
                lines.append(f"{who} doubts P{a}'s \"{self.claim_name(r, int(b_), int(c))}\": "
                             f"the pile holds {d} {r.animals[c]}")
            elif t == E_SHOW:
                lines.append(f"     shown: {b_} x {self.card_name(r, int(a))}")
            elif t == E_TAKE:
                lines.append(f"{who} takes the pile, {a} card(s): now {b_} point(s) in all")
            elif t == E_REFILL:
                lines.append(f"   hands refilled; {a} card(s) left in the draw pile")
            elif t == E_END:
                why = "a player reached the point limit" if a == END_POINTS else \
                    "the draw pile cannot fill every hand"
                pts = ", ".join(f"P{p}: {int(x)}" for p, x in enumerate(state.pp[i, :, POINTS]))
                lines.append(f"== Game over after {b_} round(s): {why}. Points: {pts} ==")
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        return "\n".join(lines)


GAME = BluffInZoo()

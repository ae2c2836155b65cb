"""Safari Sprint (duck! duck! SAFARI!, APE Games), 3-5 players: a series of three races.

The module follows the rulebook (../shared/rules/duck-duck-safari.txt, section "Safari Sprint")
in its order: Setup, Choosing Your Animal, During Each Race (Step A reveal a racing card, Step B
play cards, Step C move animals, Step D end of round), Scoring Each Race, Winning the Game.
Every reading of a gap in the printed text is in docs/rules/safari_sprint.md.

Cards are card *types* ``t = suit * 6 + (value - 1)``: suits 0-4 are the animals (elephant, lion,
monkey, tiger, zebra), suit 5 is Ducktor Livingstone, the explorer. Hands and piles are counts
of each type (two cards of one type are interchangeable). Duckies are indexed by suit too.

What a player knows: their own hand, the board, who claims which animal, the racing card just
revealed and which racing cards came before in this race, and every card played face up this
race (the line now, and the discards). Hidden: the other hands, the explorer cards set aside and
the order of the racing cards still face down.
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

ANIMALS = ("elephant", "lion", "monkey", "tiger", "zebra")
SUIT_NAMES = ANIMALS + ("explorer",)
EXPLORER = 5          # the explorer's suit and ducky index
NSUITS = 6
NV = 6                # card numbers 1-6
NTYPES = NSUITS * NV  # 36 card types
MAXP = 5

# The twelve racing cards: values for the 1st to 5th spots. Not printed (README of the rules):
# a documented assumption containing the example card (4, 4, 3, 1 for 1st to 4th).
RACING_CARDS = (
    (4, 4, 3, 1, 0),
    (5, 4, 3, 2, 1),
    (5, 3, 2, 1, 0),
    (4, 3, 2, 1, 1),
    (3, 3, 2, 2, 1),
    (6, 3, 2, 1, 0),
    (5, 4, 2, 1, 0),
    (4, 3, 3, 2, 0),
    (3, 2, 2, 1, 1),
    (6, 4, 2, 1, 0),
    (5, 3, 3, 1, 1),
    (4, 4, 2, 2, 0),
)


# ---- Components and Setup -------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    races: int = rule(3, "races in the series", search=range(1, 6))
    rounds: int = rule(11, "rounds in a race (one card played by each player per round)",
                        search=range(6, 12))
    animals: tuple[str, ...] = rule(
        (), "the animals in the race, one per player (empty: the first ones of elephant, lion, "
            "monkey, tiger, zebra; which ones cannot change who wins)")
    explorer_start: int = rule(11, "space Ducktor Livingstone starts each race on; animals are "
                                   "placed on empty spaces behind him",
                                search=range(7, 16))
    explorer_cards: tuple[int, ...] = rule(
        (2, 3, 4, 5, 6), "the Ducktor Livingstone cards shuffled and dealt one to each player "
                         "(the 1 goes back in the box); the rest are set aside unseen")
    deck_cards: tuple[int, ...] = rule(
        (1, 2, 2, 3, 3, 4, 4, 5, 5, 6),
        "each animal's cards shuffled and dealt out: two sets of 1-6 less one 1 (back in the "
        "box) and the extra 6 (kept by the board)")
    extra_card: int = rule(6, "each animal's card kept face up by the board and added to its "
                              "owner's hand once every animal is claimed (0: none)",
                           search=range(0, 7))
    steals: bool = rule(True, "while choosing, a player may take an animal another player has "
                              "claimed by moving it to a new empty lower space",
                       search=[True, False])
    racing_cards: tuple[tuple[int, ...], ...] = rule(
        RACING_CARDS, "the racing cards: movement for the 1st, 2nd, ... spot (values not printed: "
                      "assumed; contains the example card 4, 4, 3, 1); shuffled at each race")
    tie_order: str = rule(
        "later_ahead", "a card equal to cards already in the line: 'later_ahead' goes ahead of "
                       "them (Example B), 'earlier_ahead' behind them",
        search=["later_ahead", "earlier_ahead"])
    track_spaces: int = rule(19, "numbered spaces on the board", search=range(15, 32, 4))
    track_end: str = rule(
        "open", "beyond the last space: 'open' the track goes on (a ducky may pass space 19, "
                "places count the spaces moved), 'stop' a ducky stops on the last space",
        search=["open", "stop"])
    below_one: str = rule(
        "extend", "a push that would put a ducky below space 1: 'extend' it goes off the board "
                  "behind space 1 (spaces 0, -1, ... keep their order), 'ahead' the moving ducky "
                  "goes on to the first empty space beyond the one it landed on and pushes nobody",
        search=["extend", "ahead"])
    race_points: tuple[int, ...] = rule((6, 4, 3, 2, 1, 0),
                                        "series points for 1st, 2nd, ... place, the explorer "
                                        "included")
    explorer_lead_dealer: str = rule(
        "best_animal", "the next race's dealer when Ducktor Livingstone led: 'best_animal' the "
                       "owner of the animal furthest ahead, 'same' the same dealer, 'left' the "
                       "player to the dealer's left", search=["best_animal", "same", "left"])
    reset_deal: str = rule(
        "setup", "the deal of races 2 and 3: 'setup' every card gathered and the setup's card "
                 "steps done again (one explorer card each, the rest aside, the extra 6s by the "
                 "board); 'keep' as printed, back at the step 'Place Ducktor Livingstone': the "
                 "explorer cards set aside stay aside, the cards of the last race (the explorer "
                 "cards dealt and the extra 6s among them) are shuffled and all dealt out, and no "
                 "extra 6 lies by the board", search=["setup", "keep"])

    def validate(self) -> None:
        if not 1 <= self.races <= 20:
            raise RulesError("races", "must be from 1 to 20")
        if self.rounds < 1:
            raise RulesError("rounds", "must be at least 1")
        for a in self.animals:
            if a not in ANIMALS:
                raise RulesError("animals", f"unknown animal {a!r} (known: {', '.join(ANIMALS)})")
        if len(set(self.animals)) != len(self.animals):
            raise RulesError("animals", "an animal is named twice")
        if not 2 <= self.explorer_start <= 40:
            raise RulesError("explorer_start", "must be from 2 to 40")
        if not self.explorer_cards or any(not 1 <= v <= NV for v in self.explorer_cards):
            raise RulesError("explorer_cards", "must be a non-empty list of numbers from 1 to 6")
        if not 1 <= len(self.deck_cards) <= 30 or any(not 1 <= v <= NV for v in self.deck_cards):
            raise RulesError("deck_cards", "must be a list of 1 to 30 numbers from 1 to 6")
        if not 0 <= self.extra_card <= NV:
            raise RulesError("extra_card", "must be from 0 (none) to 6")
        if not 1 <= len(self.racing_cards) <= 60:
            raise RulesError("racing_cards", "must hold from 1 to 60 cards")
        for c in self.racing_cards:
            if not c or any(not 0 <= v <= 30 for v in c):
                raise RulesError("racing_cards", "each card is a non-empty list of moves 0-30")
        if self.rounds > len(self.racing_cards):
            raise RulesError("rounds", f"a race draws one racing card a round: at most "
                                       f"{len(self.racing_cards)} rounds with these racing_cards")
        if self.tie_order not in ("later_ahead", "earlier_ahead"):
            raise RulesError("tie_order", f"must be 'later_ahead' or 'earlier_ahead', "
                                          f"not {self.tie_order!r}")
        if self.track_end not in ("open", "stop"):
            raise RulesError("track_end", f"must be 'open' or 'stop', not {self.track_end!r}")
        if self.track_spaces < self.explorer_start:
            raise RulesError("track_spaces", "must be at least explorer_start")
        if self.below_one not in ("extend", "ahead"):
            raise RulesError("below_one", f"must be 'extend' or 'ahead', not {self.below_one!r}")
        if not self.race_points:
            raise RulesError("race_points", "needs at least one value")
        if self.reset_deal not in ("setup", "keep"):
            raise RulesError("reset_deal", f"must be 'setup' or 'keep', not {self.reset_deal!r}")
        if self.explorer_lead_dealer not in ("best_animal", "same", "left"):
            raise RulesError("explorer_lead_dealer", "must be 'best_animal', 'same' or 'left', "
                                                     f"not {self.explorer_lead_dealer!r}")


# Decision kinds (obs.kind, state phase)
CLAIM = 0   # choosing animals: pick an animal and a space
PLAY = 1    # play one card into the line
OVER = 2

# Actions: 0..35 play a card of that type; CLAIM0 + a * S + (s - 1): put animal a on space s
# (S = explorer_start - 1 spaces behind the explorer), taking it from its owner if claimed.
CLAIM0 = NTYPES

OFF = -(1 << 20)   # position of an animal not on the board (not yet claimed in this race)

# Per-game scalar fields g[b, ...]
(PHASE, CUR, RACE, ROUND, DEALER, ORD_I, LINE_LEN, RC_POS, RC_CUR, NEV, TURNS, STEALS,
 EXPL_WINS, PUSHES, BELOW_ONE, PAST_END, EXPL_PTS) = range(17)
NG = 17
# Per-player fields pp[b, p, ...]
TOTAL, MARKER, STOLE, LOST, LED, HAND_N, XHELD, EXTRA_HELD, RUN = range(9)
NPP = 9
# XHELD: explorer cards everyone knows the player holds (dealt one, face down; gone once played);
# EXTRA_HELD: the extra card of its animal everyone saw the player take (gone once it plays a card
# of that type); RUN: the running score (series points + the place now), for Drama
# Piles pile[b, k, type]: cards face up this race, explorer cards set aside, extras by the board
DISCARD, ASIDE, BOARD = range(3)

# params layout
(P_PLAYERS, P_RACES, P_ROUNDS, P_XSTART, P_S, P_NDECK, P_EXTRA, P_NXC, P_NRC, P_FLAGS, P_TRACK,
 P_LEADDEALER) = range(12)
F_EARLIER_AHEAD, F_STOP, F_AHEAD, F_STEALS, F_KEEP = 1, 2, 4, 8, 16

# Event log: ev[b, i] = (type, seat, x1..x4)
(E_RACE, E_DEAL, E_CLAIM, E_STEAL, E_EXTRA, E_REVEAL, E_PLAY, E_MOVE, E_PUSH, E_CATCHUP,
 E_PLACE, E_GAME_END) = range(1, 13)


@dataclass
class State:
    n_players: int
    rules: Rules
    active: np.ndarray       # int64[n + 1]: suits in play (the animals, then the explorer)
    deck_types: np.ndarray   # int16[n * ndeck]: the animal cards dealt out, as types
    xtypes: np.ndarray       # int16[nxc]: the explorer cards
    racing: np.ndarray       # int32[K, 5]: racing card values by spot
    points: np.ndarray       # int32[n + 1]: series points by place
    params: np.ndarray       # int64[12]
    g: np.ndarray            # int32[B, NG]
    pp: np.ndarray           # int32[B, P, NPP]
    rpts: np.ndarray         # int32[B, P, races]: race points by seat
    pos: np.ndarray          # int32[B, 6]: space of each ducky (OFF: not on the board)
    owner: np.ndarray        # int32[B, 6]: seat holding each animal's marker, -1 none
    hand: np.ndarray         # int8[B, P, 36]
    pile: np.ndarray         # int8[B, 3, 36]: DISCARD, ASIDE, BOARD
    seq: np.ndarray          # int8[B, 2, 5]: the line (card types by spot), the play order
    rdeck: np.ndarray        # int8[B, K]: racing cards in order; rdeck[RC_POS] is next
    deck: np.ndarray         # int16[B, C]: shuffle buffer
    dr: np.ndarray           # int32[B, drama width]: the lead round by round (engine.drama)
    ev: np.ndarray           # int32[B, L, 6]
    rs: np.ndarray           # uint64[B]
    view: Any = None
    all_games: Any = None


# ---- Setup ----------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _setup_race(b, g, pp, pos, owner, hand, pile, rdeck, deck, ev, rs, active, deck_types,
                xtypes, params):
    """From "Put the Ducktor Livingstone ... cards": deal the explorer cards, put the extras
    by the board, the explorer on his space, deal the rest, shuffle the racing cards. With
    reset_deal 'keep', races after the first start at "Place Ducktor Livingstone": the cards of
    the last race are gathered and all dealt out, the explorer cards aside stay aside."""
    n = params[P_PLAYERS]
    dealer = g[b, DEALER]
    keep = (params[P_FLAGS] & F_KEEP) != 0 and g[b, RACE] > 0
    nk = 0
    if keep:  # the game deck: every card of the last race (played, or still in a hand)
        for t in range(NTYPES):
            c = pile[b, DISCARD, t] + pile[b, BOARD, t]
            for p in range(n):
                c += hand[b, p, t]
            for _ in range(c):
                deck[b, nk] = t
                nk += 1
    for d in range(NSUITS):
        pos[b, d] = OFF
        owner[b, d] = -1
    pos[b, EXPLORER] = params[P_XSTART]
    for t in range(NTYPES):
        for p in range(n):
            hand[b, p, t] = 0
        for k in range(3):
            if not (keep and k == ASIDE):
                pile[b, k, t] = 0
    for p in range(n):
        pp[b, p, MARKER] = -1
        pp[b, p, XHELD] = 0 if keep else 1
        pp[b, p, EXTRA_HELD] = 0
    if keep:
        shuffle_row(deck[b], nk, rs, b)
        for i in range(nk):
            p = (dealer + 1 + i) % n
            hand[b, p, deck[b, i]] += 1
        for p in range(n):
            pp[b, p, HAND_N] = nk // n
    else:
        # the explorer cards: one face down to each player from the dealer's left, the rest aside
        nxc = params[P_NXC]
        for i in range(nxc):
            deck[b, i] = xtypes[i]
        shuffle_row(deck[b], nxc, rs, b)
        for i in range(nxc):
            t = deck[b, i]
            if i < n:
                p = dealer + 1 + i
                p = p % n
                hand[b, p, t] += 1
            else:
                pile[b, ASIDE, t] += 1
        # each animal's extra card face up by the board
        if params[P_EXTRA] > 0:
            for k in range(n):
                pile[b, BOARD, active[k] * NV + params[P_EXTRA] - 1] += 1
        # the rest of the game cards, all dealt out from the dealer's left
        nc = deck_types.shape[0]
        for i in range(nc):
            deck[b, i] = deck_types[i]
        shuffle_row(deck[b], nc, rs, b)
        for i in range(nc):
            p = (dealer + 1 + i) % n
            hand[b, p, deck[b, i]] += 1
        for p in range(n):
            pp[b, p, HAND_N] = nc // n + 1
    # then (either way) the racing cards: one call site, as numba compiles an inlined helper
    # again at each
    _shuffle_racing(b, g, rdeck, ev, rs, params)


@njit(cache=True, inline="always", _nrt=False)
def _shuffle_racing(b, g, rdeck, ev, rs, params):
    """The racing cards shuffled; the animals are chosen next, the dealer first."""
    dealer = g[b, DEALER]
    for i in range(params[P_NRC]):
        rdeck[b, i] = i
    shuffle_row(rdeck[b], params[P_NRC], rs, b)
    g[b, RC_POS] = 0
    g[b, RC_CUR] = -1
    g[b, ROUND] = 0
    g[b, LINE_LEN] = 0
    g[b, PHASE] = CLAIM
    g[b, CUR] = dealer
    log_event(ev, g, NEV, b, E_RACE, dealer, g[b, RACE] + 1, 0, 0, 0)


# ---- Choosing Your Animal -------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _occupied(b, s, pos, active, n):
    """Whether a ducky stands on space s (the explorer included)."""
    for k in range(n + 1):
        if pos[b, active[k]] == s:
            return True
    return False


@njit(cache=True, _nrt=False)
def _claim(b, a, s, g, pp, pos, owner, hand, pile, seq, rdeck, ev, racing, active, params):
    """The player to move puts animal ``a`` on space ``s`` and takes its marker (from its owner
    when it was claimed); the turn goes round to the next player without a marker."""
    n = params[P_PLAYERS]
    p = g[b, CUR]
    victim = owner[b, a]
    if victim >= 0:
        pp[b, victim, MARKER] = -1
        pp[b, p, STOLE] += 1
        pp[b, victim, LOST] += 1
        g[b, STEALS] += 1
        log_event(ev, g, NEV, b, E_STEAL, p, a, victim, pos[b, a], s)
    else:
        log_event(ev, g, NEV, b, E_CLAIM, p, a, s, 0, 0)
    pos[b, a] = s
    owner[b, a] = p
    pp[b, p, MARKER] = a
    for i in range(1, n + 1):
        q = (p + i) % n
        if pp[b, q, MARKER] < 0:
            g[b, CUR] = q
            return
    # everyone has an animal: each adds their animal's extra card to their hand (when it lies
    # by the board: not in later races with reset_deal 'keep')
    x = params[P_EXTRA]
    if x > 0:
        for k in range(n):
            an = active[k]
            t = an * NV + x - 1
            q = owner[b, an]
            if pile[b, BOARD, t] <= 0:
                continue
            pile[b, BOARD, t] -= 1
            hand[b, q, t] += 1
            pp[b, q, HAND_N] += 1
            pp[b, q, EXTRA_HELD] = 1
            log_event(ev, g, NEV, b, E_EXTRA, q, t, 0, 0, 0)
    _start_round(b, g, pp, pos, seq, rdeck, ev, racing, params)


# ---- During Each Race -----------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _start_round(b, g, pp, pos, seq, rdeck, ev, racing, params):
    """Step A: reveal a racing card; Step B begins with the player whose animal is furthest
    ahead, the others following in order of their animals' positions."""
    n = params[P_PLAYERS]
    rc = rdeck[b, g[b, RC_POS]]
    g[b, RC_POS] += 1
    g[b, RC_CUR] = rc
    log_event(ev, g, NEV, b, E_REVEAL, -1, rc, g[b, ROUND] + 1, 0, 0)
    # play order: insertion sort of the seats by their animal's space, furthest ahead first
    for i in range(n):
        p = i
        sp = pos[b, pp[b, p, MARKER]]
        j = i
        while j > 0 and pos[b, pp[b, seq[b, 1, j - 1], MARKER]] < sp:
            seq[b, 1, j] = seq[b, 1, j - 1]
            j -= 1
        seq[b, 1, j] = p
    g[b, ORD_I] = 0
    g[b, LINE_LEN] = 0
    g[b, CUR] = seq[b, 1, 0]
    g[b, PHASE] = PLAY


@njit(cache=True, inline="always", _nrt=False)
def _insert(b, t, g, seq, params):
    """Put card type ``t`` into the line by number (highest at the 1st spot); a card equal to
    cards already there goes ahead of them (Example B) unless tie_order says behind. Returns
    the spot (0 = 1st)."""
    v = t % NV
    m = g[b, LINE_LEN]
    later = (params[P_FLAGS] & F_EARLIER_AHEAD) == 0
    ins = m
    for i in range(m):
        w = seq[b, 0, i] % NV
        if w < v or (later and w == v):
            ins = i
            break
    for i in range(m, ins, -1):
        seq[b, 0, i] = seq[b, 0, i - 1]
    seq[b, 0, ins] = t
    g[b, LINE_LEN] = m + 1
    return ins


@njit(cache=True, _nrt=False)
def _move(b, d, v, g, pos, ev, active, params):
    """Step C for one ducky: forward ``v`` spaces; a ducky it lands on goes back one space,
    pushing any ducky there back in turn (a chain)."""
    n = params[P_PLAYERS]
    start = pos[b, d]
    target = start + v
    lim = params[P_TRACK]
    if target > lim:
        g[b, PAST_END] += 1
        if params[P_FLAGS] & F_STOP:
            target = lim if start < lim else start
    if target == start:
        log_event(ev, g, NEV, b, E_MOVE, d, start, start, 0, 0)
        return
    pos[b, d] = OFF  # lifted off the board
    s = target
    while _occupied(b, s, pos, active, n):
        s -= 1
    # s is the first empty space at or behind the target: the run s+1 .. target is pushed
    if s < 1 and s < target:
        g[b, BELOW_ONE] += 1
        if params[P_FLAGS] & F_AHEAD:
            t2 = target + 1
            while _occupied(b, t2, pos, active, n):
                t2 += 1
            pos[b, d] = t2
            log_event(ev, g, NEV, b, E_MOVE, d, start, t2, 0, 0)
            return
    pushed = target - s
    pos[b, d] = target
    log_event(ev, g, NEV, b, E_MOVE, d, start, target, pushed, 0)
    if pushed > 0:
        # every ducky of the run back one space, the rearmost first (its space behind is free)
        for sp in range(s + 1, target + 1):
            for k in range(n + 1):
                e = active[k]
                if e != d and pos[b, e] == sp:
                    pos[b, e] = sp - 1
                    break
        g[b, PUSHES] += pushed
        if ev.shape[1] > 0:  # told nearest first: the ducky landed on, then the one behind it
            for sp in range(target - 1, s - 1, -1):
                for k in range(n + 1):
                    e = active[k]
                    if e != d and pos[b, e] == sp:
                        log_event(ev, g, NEV, b, E_PUSH, e, sp + 1, sp, d, 0)


@njit(cache=True, _nrt=False)
def _resolve_round(b, g, pp, rpts, pos, owner, hand, pile, seq, rdeck, deck, dr, ev, rs,
                   active, deck_types, xtypes, racing, points, params):
    """Step C (every ducky by its card's spot) and Step D (the explorer catches up; the round
    or the race ends)."""
    n = params[P_PLAYERS]
    rc = g[b, RC_CUR]
    for i in range(n):
        t = seq[b, 0, i]
        _move(b, t // NV, racing[rc, i], g, pos, ev, active, params)
    # Step D: Ducktor Livingstone catches up to directly behind the rearmost ducky
    rear = pos[b, active[0]]
    for k in range(1, n):
        if pos[b, active[k]] < rear:
            rear = pos[b, active[k]]
    if pos[b, EXPLORER] < rear - 1:
        log_event(ev, g, NEV, b, E_CATCHUP, -1, pos[b, EXPLORER], rear - 1, 0, 0)
        pos[b, EXPLORER] = rear - 1
    # Drama: who is ahead after the round: series points so far + the place's points now
    for k in range(n + 1):
        d = active[k]
        if d != EXPLORER:
            place = 0
            for j in range(n + 1):
                if pos[b, active[j]] > pos[b, d]:
                    place += 1
            q = owner[b, d]
            pp[b, q, RUN] = pp[b, q, TOTAL] + points[place]
    drama.drama_update(dr, b, pp[b, :, RUN], False)
    for i in range(n):
        pile[b, DISCARD, seq[b, 0, i]] += 1
    g[b, LINE_LEN] = 0
    g[b, ROUND] += 1
    if g[b, ROUND] >= params[P_ROUNDS]:
        _end_race(b, g, pp, rpts, pos, owner, hand, pile, rdeck, deck, ev, rs, active,
                  deck_types, xtypes, points, params)
    else:
        _start_round(b, g, pp, pos, seq, rdeck, ev, racing, params)


# ---- Scoring Each Race / Winning the Game ---------------------------------------------------

@njit(cache=True, _nrt=False)
def _end_race(b, g, pp, rpts, pos, owner, hand, pile, rdeck, deck, ev, rs, active, deck_types,
              xtypes, points, params):
    n = params[P_PLAYERS]
    r = g[b, RACE]
    best_animal = -1
    leader = -1
    for k in range(n + 1):
        d = active[k]
        place = 0  # duckies ahead of this one (spaces hold one ducky each: no ties)
        for j in range(n + 1):
            if pos[b, active[j]] > pos[b, d]:
                place += 1
        pts = points[place]
        if d == EXPLORER:
            g[b, EXPL_PTS] += pts
            if place == 0:
                g[b, EXPL_WINS] += 1
            log_event(ev, g, NEV, b, E_PLACE, -1, d, place + 1, pts, 0)
        else:
            q = owner[b, d]
            rpts[b, q, r] = pts
            pp[b, q, TOTAL] += pts
            if place == 0:
                pp[b, q, LED] += 1
            if best_animal < 0 or pos[b, d] > pos[b, best_animal]:
                best_animal = d
            log_event(ev, g, NEV, b, E_PLACE, q, d, place + 1, pts, pp[b, q, TOTAL])
        if place == 0:
            leader = d
    g[b, RACE] = r + 1
    if g[b, RACE] >= params[P_RACES]:
        g[b, PHASE] = OVER
        g[b, CUR] = -1
        log_event(ev, g, NEV, b, E_GAME_END, -1, g[b, RACE], 0, 0, 0)
        return
    # the new dealer: the player who ended up in the lead
    if leader != EXPLORER:
        g[b, DEALER] = owner[b, leader]
    elif params[P_LEADDEALER] == 0:
        g[b, DEALER] = owner[b, best_animal]
    elif params[P_LEADDEALER] == 2:
        g[b, DEALER] = (g[b, DEALER] + 1) % n
    _setup_race(b, g, pp, pos, owner, hand, pile, rdeck, deck, ev, rs, active, deck_types,
                xtypes, params)


@njit(cache=True, _nrt=False)
def _init(g, pp, pos, owner, hand, pile, rdeck, deck, ev, rs, active, deck_types, xtypes,
          params):
    for b in range(g.shape[0]):
        g[b, DEALER] = 0
        _setup_race(b, g, pp, pos, owner, hand, pile, rdeck, deck, ev, rs, active, deck_types,
                    xtypes, params)


# ---- What the player to move sees -----------------------------------------------------------

# rows of View.small (int16)
(V_SEAT, V_KIND, V_MINE, V_RACE, V_ROUND, V_DEALER, V_LINE_LEN, V_TO_PLAY, V_RCARD) = range(9)
NSMALL = 9


@dataclass
class View:
    """The decision every game awaits, made fresh at each step (an observation handed out
    earlier never changes)."""

    mover: np.ndarray    # int64[B]
    legal: np.ndarray    # bool[B, A]
    small: np.ndarray    # int16[NSMALL, B]
    hand: np.ndarray     # int8[B, 36] the mover's hand
    played: np.ndarray   # int8[B, 36] cards played this race before this round
    line: np.ndarray     # int8[B, 5] card types by spot, -1 empty
    pos: np.ndarray      # int32[B, 6]
    owner: np.ndarray    # int8[B, 6]
    seen: np.ndarray     # int64[B] bit i: racing card i revealed this race
    total: np.ndarray    # int16[B, P]
    ifplay: np.ndarray   # int16[B, 6, 8]: for a card numbered v + 1 played now, [v, d] what the
                         #   cards already in the line give ducky d, [v, 6] its own move,
                         #   [v, 7] its spot (0 = 1st)

    @staticmethod
    def empty(batch: int, n_players: int, n_actions: int) -> "View":
        return View(np.empty(batch, np.int64), np.empty((batch, n_actions), np.bool_),
                    np.empty((NSMALL, batch), np.int16), np.empty((batch, NTYPES), np.int8),
                    np.empty((batch, NTYPES), np.int8), np.empty((batch, MAXP), np.int8),
                    np.empty((batch, NSUITS), np.int32), np.empty((batch, NSUITS), np.int8),
                    np.empty(batch, np.int64), np.empty((batch, n_players), np.int16),
                    np.empty((batch, NV, 8), np.int16))


@njit(cache=True, inline="always", _nrt=False)
def _view(b, g, pp, pos, owner, hand, pile, seq, rdeck, active, racing, params,
          mover, legal, small, vhand, vplayed, vline, vpos, vowner, vseen, vtotal, vif):
    n = params[P_PLAYERS]
    ph = g[b, PHASE]
    p = g[b, CUR]
    over = ph == OVER
    mover[b] = -1 if over else p
    q = 0 if over else p
    for t in range(NTYPES):
        c = hand[b, q, t]
        vhand[b, t] = 0 if over else c
        legal[b, t] = ph == PLAY and c > 0
        vplayed[b, t] = pile[b, DISCARD, t]
    S = params[P_S]
    nact = legal.shape[1]
    for a in range(CLAIM0, nact):
        legal[b, a] = False
    if ph == CLAIM:
        steals = (params[P_FLAGS] & F_STEALS) != 0
        for k in range(n):
            an = active[k]
            claimed = owner[b, an] >= 0
            if claimed and not steals:
                continue
            top = S if not claimed else min(S, pos[b, an] - 1)
            for s in range(1, top + 1):
                if not _occupied(b, s, pos, active, n):
                    legal[b, CLAIM0 + an * S + s - 1] = True
    small[V_SEAT, b] = p
    small[V_KIND, b] = ph
    small[V_MINE, b] = -1 if over else pp[b, p, MARKER]
    small[V_RACE, b] = g[b, RACE]
    small[V_ROUND, b] = g[b, ROUND]
    small[V_DEALER, b] = g[b, DEALER]
    m = g[b, LINE_LEN]
    small[V_LINE_LEN, b] = m
    small[V_TO_PLAY, b] = n - 1 - g[b, ORD_I] if ph == PLAY else 0
    small[V_RCARD, b] = g[b, RC_CUR] if ph == PLAY else -1
    for i in range(MAXP):
        vline[b, i] = seq[b, 0, i] if i < m else -1
    for d in range(NSUITS):
        vpos[b, d] = pos[b, d]
        vowner[b, d] = owner[b, d]
    bits = 0
    for i in range(g[b, RC_POS]):
        bits |= np.int64(1) << np.int64(rdeck[b, i])
    vseen[b] = bits
    for j in range(n):
        vtotal[b, j] = pp[b, j, TOTAL]
    # what a card of each number would do if played now (public: the line and racing card)
    rc = g[b, RC_CUR] if ph == PLAY else -1
    earlier = (params[P_FLAGS] & F_EARLIER_AHEAD) != 0
    for v in range(NV):
        for d in range(8):
            vif[b, v, d] = 0
        if rc >= 0:
            k = 0
            for i in range(m):
                w = seq[b, 0, i] % NV
                if w > v or (earlier and w == v):
                    k = i + 1
            vif[b, v, 7] = k
            vif[b, v, 6] = racing[rc, k]
            for i in range(m):
                sp = i + 1 if i >= k else i
                vif[b, v, seq[b, 0, i] // NV] += racing[rc, sp]


@njit(cache=True, _nrt=False)
def _views(games, g, pp, pos, owner, hand, pile, seq, rdeck, active, racing, params,
           mover, legal, small, vhand, vplayed, vline, vpos, vowner, vseen, vtotal, vif):
    for b in games:
        _view(b, g, pp, pos, owner, hand, pile, seq, rdeck, active, racing, params,
              mover, legal, small, vhand, vplayed, vline, vpos, vowner, vseen, vtotal, vif)


@njit(cache=True, inline="always", _nrt=False)
def apply_action(b, a, g, pp, rpts, pos, owner, hand, pile, seq, rdeck, deck, dr, ev, rs, active,
                 deck_types, xtypes, racing, points, params):
    """Game b's player to move takes action ``a`` (legal): the one copy of the rules that the
    batch step and the compiled strategies' whole-game kernel both run."""
    ph = g[b, PHASE]
    if ph == OVER:
        return
    n = params[P_PLAYERS]
    p = g[b, CUR]
    g[b, TURNS] += 1
    if ph == CLAIM:
        S = params[P_S]
        c = a - CLAIM0
        _claim(b, c // S, c % S + 1, g, pp, pos, owner, hand, pile, seq, rdeck, ev,
               racing, active, params)
    else:
        hand[b, p, a] -= 1
        pp[b, p, HAND_N] -= 1
        if a // NV == EXPLORER and pp[b, p, XHELD] > 0:
            pp[b, p, XHELD] -= 1
        if (pp[b, p, EXTRA_HELD] > 0
                and a == pp[b, p, MARKER] * NV + params[P_EXTRA] - 1):
            pp[b, p, EXTRA_HELD] = 0  # this copy or the other: alike
        spot = _insert(b, a, g, seq, params)
        log_event(ev, g, NEV, b, E_PLAY, p, a, spot, 0, 0)
        g[b, ORD_I] += 1
        if g[b, ORD_I] < n:
            g[b, CUR] = seq[b, 1, g[b, ORD_I]]
        else:
            _resolve_round(b, g, pp, rpts, pos, owner, hand, pile, seq, rdeck, deck, dr,
                           ev, rs, active, deck_types, xtypes, racing, points, params)


# the view of game b for its player to move (mover, legal mask and the observation's arrays)
write_view = _view


@njit(cache=True, _nrt=False)
def _step(actions, g, pp, rpts, pos, owner, hand, pile, seq, rdeck, deck, dr, ev, rs, active,
          deck_types, xtypes, racing, points, params,
          mover, legal, small, vhand, vplayed, vline, vpos, vowner, vseen, vtotal, vif):
    for b in range(g.shape[0]):
        apply_action(b, actions[b], g, pp, rpts, pos, owner, hand, pile, seq, rdeck, deck, dr,
                     ev, rs, active, deck_types, xtypes, racing, points, params)
        _view(b, g, pp, pos, owner, hand, pile, seq, rdeck, active, racing, params,
              mover, legal, small, vhand, vplayed, vline, vpos, vowner, vseen, vtotal, vif)


# ---- Worlds for search (docs/rules/safari_sprint.md, "Worlds for search") ------------------

@njit(cache=True, _nrt=False)
def _deal_worlds(seat, g, pp, owner, hand, pile, seq, rdeck, deck, deck_total, params, rs, buf,
                 bad):
    """Row i (a copy of a real game) dealt again for ``seat[i]``: the cards it has not seen (the
    other hands and the explorer cards set aside) as a multiset in type order, the explorer cards
    and the animal cards shuffled apart from stream i; every other player gets back its known
    cards (the extra card it took, while it still has it) and as many explorer cards as it is
    known to hold (one until it plays it), then animal cards up to its hand's size; the rest of
    the explorer cards go aside. The racing cards still face down are shuffled."""
    n = params[P_PLAYERS]
    x = params[P_EXTRA]
    for i in range(seat.shape[0]):
        s = seat[i]
        for t in range(NTYPES):
            c = deck_total[t] - hand[i, s, t] - pile[i, DISCARD, t] - pile[i, BOARD, t]
            for j in range(g[i, LINE_LEN]):
                if seq[i, 0, j] == t:
                    c -= 1
            buf[i, t] = c
        for q in range(n):
            if q != s and pp[i, q, EXTRA_HELD] > 0:
                buf[i, pp[i, q, MARKER] * NV + x - 1] -= 1
        # explorer cards first (positions NTYPES on), then animal cards
        m = NTYPES
        for t in range(EXPLORER * NV, NTYPES):
            for _ in range(buf[i, t]):
                buf[i, m] = t
                m += 1
        nx = m - NTYPES
        for t in range(EXPLORER * NV):
            if buf[i, t] < 0:
                bad[i] = 1
            for _ in range(buf[i, t]):
                buf[i, m] = t
                m += 1
        na = m - NTYPES - nx
        xend = NTYPES + nx
        shuffle_row(buf[i, NTYPES:], nx, rs, i)
        if (params[P_FLAGS] & F_KEEP) != 0 and g[i, RACE] > 0:
            # reset_deal 'keep': the explorer cards were dealt with the others (nobody is known
            # to hold one): as many as lie aside go aside, the rest join the animal cards
            naside = 0
            for t in range(NTYPES):
                naside += pile[i, ASIDE, t]
            xend = NTYPES + naside
            na = m - xend
        shuffle_row(buf[i, xend:], na, rs, i)
        jx = NTYPES
        ja = xend
        for q in range(n):
            if q == s:
                continue
            for t in range(NTYPES):
                hand[i, q, t] = 0
            if pp[i, q, EXTRA_HELD] > 0:
                hand[i, q, pp[i, q, MARKER] * NV + x - 1] += 1
            for _ in range(pp[i, q, XHELD]):
                if jx < xend:
                    hand[i, q, buf[i, jx]] += 1
                jx += 1
            for _ in range(pp[i, q, HAND_N] - pp[i, q, XHELD] - pp[i, q, EXTRA_HELD]):
                if ja < m:
                    hand[i, q, buf[i, ja]] += 1
                ja += 1
        for t in range(NTYPES):
            pile[i, ASIDE, t] = 0
        while jx < xend:
            pile[i, ASIDE, buf[i, jx]] += 1
            jx += 1
        if jx != xend or ja != m:
            bad[i] = 1
        for t in range(deck.shape[1]):
            deck[i, t] = 0
        k = g[i, RC_POS]
        for j in range(k + 1, rdeck.shape[1]):  # the face-down racing cards in canonical order
            c = rdeck[i, j]
            h = j
            while h > k and rdeck[i, h - 1] > c:
                rdeck[i, h] = rdeck[i, h - 1]
                h -= 1
            rdeck[i, h] = c
        shuffle_row(rdeck[i, k:], rdeck.shape[1] - k, rs, i)


@dataclass
class Obs(Observation):
    """What the player to move knows: a snapshot (the View is new at each step).

    Card types: ``t = suit * 6 + value - 1`` (suits 0-4 the animals, 5 the explorer). Ducky
    positions and owners are by suit; ``total`` by seat (absolute: ``seat`` is this player)."""

    game: np.ndarray       # int[n]
    seat: np.ndarray       # int16[n]
    kind: np.ndarray       # int16[n] CLAIM (0) or PLAY (1)
    mine: np.ndarray       # int16[n] this player's animal (-1 while without one)
    race: np.ndarray       # int16[n] races finished
    round: np.ndarray      # int16[n] rounds finished in this race
    dealer: np.ndarray     # int16[n]
    line_len: np.ndarray   # int16[n] cards in the line
    to_play: np.ndarray    # int16[n] players still to play after this one this round
    rcard: np.ndarray      # int16[n] the racing card face up (-1 while choosing)
    hand: np.ndarray       # int8[n, 36] this player's cards by type
    played: np.ndarray     # int8[n, 36] cards played face up in earlier rounds of this race
    line: np.ndarray       # int8[n, 5] card types at the 1st, 2nd, ... spot (-1 empty)
    pos: np.ndarray        # int32[n, 6] space of each ducky (OFF: not on the board)
    owner: np.ndarray      # int8[n, 6] seat holding each animal's marker (-1 none)
    seen_mask: np.ndarray  # int64[n] bit i: racing card i already revealed this race
    total: np.ndarray      # int16[n, P] series points of the finished races, by seat
    ifplay: np.ndarray     # int16[n, 6, 8] a card numbered v + 1 played now: [v, d] what the
                           #   cards already in the line give ducky d, [v, 6] its own move,
                           #   [v, 7] the spot it takes (0 = 1st); zeros while choosing
    racing: np.ndarray     # int32[K, 5] the racing cards (public)
    in_play: np.ndarray    # bool[6] suits in this game (the animals and the explorer)
    deck_total: np.ndarray  # int8[36] cards of each type in a race (hands, aside, extras)
    race_points: np.ndarray  # int32[n_players + 1]
    explorer_start: int
    rounds: int
    races: int
    spaces: int             # claim spaces behind the explorer (explorer_start - 1)
    extra_card: int         # value of each animal's extra card (0: none)
    tie_order: str          # the rules' tie_order (how equal cards go into the line)
    reset_deal: str         # the rules' reset_deal ('keep': no extra cards by the board after
                            #   the first race)

    shared = ("racing", "in_play", "deck_total", "race_points")

    @action_helper
    def play_action(self, suit, value) -> np.ndarray:
        """Action (PLAY): play the card of ``suit`` (0-4 the animals, 5 the explorer) numbered
        ``value`` (1-6), card type ``suit * 6 + value - 1``."""
        return np.asarray(suit, np.int64) * NV + np.asarray(value, np.int64) - 1

    @action_helper
    def claim_action(self, animal, space) -> np.ndarray:
        """Action (CLAIM): put ``animal`` (0-4) on claim space ``space`` (1 .. ``spaces``)."""
        return _claim_action(np.asarray(animal, np.int64), np.asarray(space, np.int64), self.spaces)

    @cached_property
    def spot_values(self) -> np.ndarray:
        """int32[n, 5]: the face-up racing card's move for each spot (0 while choosing)."""
        rc = np.maximum(self.rcard, 0)
        vals = self.racing[rc]
        return read_only(np.where(self.rcard[:, None] >= 0, vals, 0))

    @cached_property
    def racing_seen(self) -> np.ndarray:
        """bool[n, K]: racing cards already revealed this race (the current one included)."""
        k = self.racing.shape[0]
        bits = np.int64(1) << np.arange(k, dtype=np.int64)
        return read_only((self.seen_mask[:, None] & bits[None, :]) != 0)

    @cached_property
    def unseen(self) -> np.ndarray:
        """int16[n, 36]: cards of each type this player has not seen this race (in other hands,
        or set aside)."""
        line = np.zeros((len(self.game), NTYPES + 1), np.int16)
        rows = np.repeat(np.arange(len(self.game)), MAXP)
        np.add.at(line, (rows, np.where(self.line >= 0, self.line, NTYPES).reshape(-1)), 1)
        u = (self.deck_total[None, :].astype(np.int16) - self.hand - self.played
             - line[:, :NTYPES])
        if self.extra_card:
            # while choosing, the extra cards lie face up by the board
            extras = np.flatnonzero(self.in_play[:EXPLORER]) * NV + self.extra_card - 1
            by_board = (self.kind == CLAIM) & ((self.race == 0) | (self.reset_deal != "keep"))
            u[:, extras] -= by_board[:, None].astype(np.int16)
        return read_only(u)


_BLOCK_AXES = (1, 0, 0, 0, 0, 0, 0, 0, 0)


def _claim_action(animal, space, spaces):
    """The claim action of ``animal`` on space ``space`` (from 1) of ``spaces``."""
    return CLAIM0 + animal * spaces + space - 1


def _make_obs(games, small, hand, played, line, pos, owner, seen, total, ifplay, st) -> Obs:
    r = st.rules
    return Obs(games, small[V_SEAT], small[V_KIND], small[V_MINE], small[V_RACE],
               small[V_ROUND], small[V_DEALER], small[V_LINE_LEN], small[V_TO_PLAY],
               small[V_RCARD], hand, played, line, pos, owner, seen, total, ifplay,
               racing=st.racing_ro, in_play=st.in_play_ro, deck_total=st.deck_total_ro,
               race_points=st.points_ro, explorer_start=r.explorer_start, rounds=r.rounds,
               races=r.races, spaces=r.explorer_start - 1, extra_card=r.extra_card, tie_order=r.tie_order,
               reset_deal=r.reset_deal)


def card_type(suit: int, value: int) -> int:
    return suit * NV + value - 1


class SafariSprint(Game):
    id = "safari_sprint"
    measures = ("explorer_races_won", "last_race_decided", "shared_victory")
    name = "Safari Sprint"
    min_players = 3
    max_players = 5
    Rules = Rules
    score_name = "series points"
    decision_kinds = ("choose an animal and its space", "play a card into the line")
    constant_fields = ("active", "deck_types", "xtypes", "racing", "points", "params")

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        if rules.animals and len(rules.animals) != n_players:
            raise RulesError("animals", f"names {len(rules.animals)} animals for {n_players} "
                                        "players (one animal per player)")
        if len(rules.explorer_cards) < n_players:
            raise RulesError("explorer_cards", f"one for each of the {n_players} players needed")
        if rules.explorer_start - 1 < n_players:
            raise RulesError("explorer_start", f"needs {n_players} empty spaces behind it")
        short = [c for c in rules.racing_cards if len(c) < n_players]
        if short:
            raise RulesError("racing_cards", f"each card needs a move for {n_players} spots: "
                                             f"{list(short[0])}")
        if len(rules.race_points) < n_players + 1:
            raise RulesError("race_points", f"needs {n_players + 1} places (the explorer too)")
        hand = len(rules.deck_cards) + 1 + (rules.extra_card > 0)
        if rules.rounds > hand:
            raise RulesError("rounds", f"a hand holds {hand} cards: at most {hand} rounds")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return CLAIM0 + len(ANIMALS) * (rules.explorer_start - 1)

    def card_name(self, t: int) -> str:
        s, v = divmod(int(t), NV)
        return f"{v + 1} {SUIT_NAMES[s].capitalize()}"

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        if action < CLAIM0:
            return f"play the {self.card_name(action)}"
        a, s = divmod(action - CLAIM0, rules.explorer_start - 1)
        return f"put the {ANIMALS[a]} on space {s + 1}"

    def claim_action(self, rules: Rules, animal: int, space: int) -> int:
        return _claim_action(animal, space, rules.explorer_start - 1)

    def active_animals(self, rules: Rules, n_players: int) -> list[int]:
        names = rules.animals or ANIMALS[:n_players]
        return sorted(ANIMALS.index(a) for a in names)

    # -- setup
    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        batch = len(keys)
        n = n_players
        animals = self.active_animals(rules, n)
        active = np.array(animals + [EXPLORER], np.int64)
        deck_types = np.array([a * NV + v - 1 for a in animals for v in rules.deck_cards],
                              np.int16)
        xtypes = np.array([EXPLORER * NV + v - 1 for v in rules.explorer_cards], np.int16)
        racing = np.zeros((len(rules.racing_cards), MAXP), np.int32)
        for i, c in enumerate(rules.racing_cards):
            racing[i, :min(len(c), MAXP)] = c[:MAXP]
        points = np.array(rules.race_points[:n + 1], np.int32)
        flags = ((F_EARLIER_AHEAD if rules.tie_order == "earlier_ahead" else 0)
                 | (F_STOP if rules.track_end == "stop" else 0)
                 | (F_AHEAD if rules.below_one == "ahead" else 0)
                 | (F_STEALS if rules.steals else 0)
                 | (F_KEEP if rules.reset_deal == "keep" else 0))
        lead = ("best_animal", "same", "left").index(rules.explorer_lead_dealer)
        params = np.array([n, rules.races, rules.rounds, rules.explorer_start,
                           rules.explorer_start - 1, len(rules.deck_cards), rules.extra_card,
                           len(rules.explorer_cards), len(rules.racing_cards), flags,
                           rules.track_spaces, lead], np.int64)
        ncbuf = max(len(deck_types) + 2 * n, len(xtypes))  # 'keep': the whole last race
        st = State(
            n_players=n, rules=rules, active=active, deck_types=deck_types, xtypes=xtypes,
            racing=racing, points=points, params=params,
            g=np.zeros((batch, NG), np.int32), pp=np.zeros((batch, n, NPP), np.int32),
            rpts=np.zeros((batch, n, rules.races), np.int32),
            pos=np.zeros((batch, NSUITS), np.int32), owner=np.zeros((batch, NSUITS), np.int32),
            hand=np.zeros((batch, n, NTYPES), np.int8),
            pile=np.zeros((batch, 3, NTYPES), np.int8), seq=np.zeros((batch, 2, MAXP), np.int8),
            rdeck=np.zeros((batch, len(rules.racing_cards)), np.int8),
            deck=np.zeros((batch, ncbuf), np.int16), dr=drama.drama_new(batch, n),
            ev=np.zeros((batch, 6000 * rules.races if log else 0, 6), np.int32),
            rs=np.array(keys, dtype=np.uint64),
        )
        _init(st.g, st.pp, st.pos, st.owner, st.hand, st.pile, st.rdeck, st.deck, st.ev, st.rs,
              active, deck_types, xtypes, params)
        st.all_games = np.arange(batch)
        # public constants shared by every observation
        st.racing_ro = read_only(racing.copy())
        in_play = np.zeros(NSUITS, np.bool_)
        in_play[active] = True
        st.in_play_ro = read_only(in_play)
        total = np.zeros(NTYPES, np.int8)
        np.add.at(total, deck_types, 1)
        np.add.at(total, xtypes, 1)
        if rules.extra_card:
            total[active[:-1] * NV + rules.extra_card - 1] += 1
        st.deck_total_ro = read_only(total)
        st.points_ro = read_only(points.copy())
        self._refresh(st, st.all_games)
        return st

    def _refresh(self, st: State, games: np.ndarray, fresh: bool = True) -> None:
        if fresh or st.view is None:
            st.view = View.empty(len(st.g), st.n_players, self.n_actions(st.rules, st.n_players))
        v = st.view
        _views(np.asarray(games, np.int64), st.g, st.pp, st.pos, st.owner, st.hand, st.pile,
               st.seq, st.rdeck, st.active, st.racing, st.params, v.mover, v.legal, v.small,
               v.hand, v.played, v.line, v.pos, v.owner, v.seen, v.total, v.ifplay)

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        return state.view.mover

    def legal(self, state: State) -> np.ndarray:
        return state.view.legal

    def observe(self, state: State, games: np.ndarray) -> Obs:
        games = np.asarray(games, dtype=np.int64)
        v = state.view
        blocks = (v.small, v.hand, v.played, v.line, v.pos, v.owner, v.seen, v.total, v.ifplay)
        if not (len(games) == len(v.mover) and np.array_equal(games, state.all_games)):
            blocks = tuple(np.take(x, games, axis=ax) for x, ax in zip(blocks, _BLOCK_AXES))
        return _make_obs(games, *blocks, state)

    def step(self, state: State, actions: np.ndarray) -> None:
        st = state
        v = st.view = View.empty(len(st.g), st.n_players, st.view.legal.shape[1])
        _step(np.asarray(actions, np.int64), st.g, st.pp, st.rpts, st.pos, st.owner, st.hand,
              st.pile, st.seq, st.rdeck, st.deck, st.dr, st.ev, st.rs, st.active, st.deck_types,
              st.xtypes, st.racing, st.points, st.params, v.mover, v.legal, v.small, v.hand,
              v.played, v.line, v.pos, v.owner, v.seen, v.total, v.ifplay)

    def running_score(self, state: State) -> np.ndarray:
        """The score if the series were scored now (issue 16): the series points of the races
        run, plus, while a race is being run (its animals all on the board), the points of the
        place each player's animal holds now, Ducktor Livingstone included ("Scoring Each Race"
        applied to the board as it stands). While the animals are being chosen the race has no
        places yet: the races run only. The final total once the series is over
        (docs/rules/safari_sprint.md, "Running score")."""
        st, n = state, state.n_players
        score = st.pp[:, :, TOTAL].astype(np.int64)
        racing = np.flatnonzero(st.g[:, PHASE] == PLAY)
        pos = st.pos[racing][:, st.active]                      # [R, n + 1], the explorer last
        place = (pos[:, None, :] > pos[:, :, None]).sum(2)      # duckies ahead of each
        seat = st.owner[racing][:, st.active[:-1]]              # [R, n]: each animal's owner
        np.add.at(score, (racing[:, None], seat), st.points[place[:, :-1]])
        return score.astype(np.float64)

    def outcome(self, state: State) -> Outcome:
        total = state.pp[:, :, TOTAL].astype(np.float64)
        rank, win = ranks_and_wins(total)
        stats = {f"race{r + 1}_points": state.rpts[:, :, r].copy()
                 for r in range(state.rules.races)}
        stats.update({
            "animals_stolen": state.pp[:, :, STOLE].copy(),
            "animals_lost": state.pp[:, :, LOST].copy(),
            "races_led": state.pp[:, :, LED].copy(),
            "steals": state.g[:, STEALS].copy(),
            "explorer_races_won": state.g[:, EXPL_WINS].copy(),
            "explorer_points": state.g[:, EXPL_PTS].copy(),
            "pushes": state.g[:, PUSHES].copy(),
            "pushes_below_one": state.g[:, BELOW_ONE].copy(),
            "moves_past_track_end": state.g[:, PAST_END].copy(),
            # the designer's measures (docs/rules/safari_sprint.md, "Measures"): the last race
            # changed who wins the series; the victory is shared by a tie
            "last_race_decided": winners_changed(
                total - state.rpts[:, :, state.rules.races - 1], total),
            "shared_victory": ((win > 0).sum(axis=1) > 1).astype(np.int8),
            **drama.drama_stats(state.dr, total, win, False),
        })
        return Outcome(score=total, rank=rank, win=win, turns=state.g[:, TURNS].copy(),
                       stats=stats)

    def points_available(self, rules: Rules, n_players: int) -> float:
        """Each race's points for every place the duckies take, the explorer's among them: what
        he scores is what no player won (the ``explorer_points`` statistic)."""
        return float(rules.races * sum(rules.race_points[:n_players + 1]))

    # -- worlds for search
    def _cloned(self, state: State, rows: np.ndarray, log: bool = True) -> State:
        # without the event log (a world's), the log is not copied: it is most of a logged state
        src = state if log else dataclasses.replace(
            state, ev=np.zeros((len(state.g), 0, 6), np.int32))
        st = super().clone(src, rows)
        for name in ("racing_ro", "in_play_ro", "deck_total_ro", "points_ro"):
            setattr(st, name, getattr(state, name))
        st.all_games = np.arange(len(st.g))
        return st

    def clone(self, state: State, rows: np.ndarray) -> State:
        st = self._cloned(state, rows)
        self._refresh(st, st.all_games)
        return st

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        """Worlds for ``seat[i]`` of game ``games[i]`` (``_deal_worlds``): the other hands, the
        explorer cards set aside and the face-down racing cards dealt again, what every player
        saw kept (the extras taken, who still holds an explorer card)."""
        games = np.asarray(games, np.int64)
        w = self._cloned(state, games, log=False)
        n = len(games)
        w.rs = np.array(keys, dtype=np.uint64)
        bad = np.zeros(n, np.int8)
        size = NTYPES + int(np.asarray(state.deck_total_ro).sum())
        _deal_worlds(np.asarray(seat, np.int64), w.g, w.pp, w.owner, w.hand, w.pile, w.seq,
                     w.rdeck, w.deck, np.asarray(state.deck_total_ro), w.params, w.rs,
                     np.zeros((n, size), np.int16), bad)
        if bad.any():
            raise ValueError(f"games {games[bad > 0][:5].tolist()}: what the seat knows does "
                             "not fit the cards (a position set up inconsistently)")
        self._refresh(w, w.all_games)
        return w

    # -- positions (rulebook examples and tests)
    def stack(self, state: State, b: int, pos: dict[int, int], owner: dict[int, int],
              hands: dict[int, list[int]] | None = None, racing: int = 0, rounds_done: int = 0,
              race: int = 0, dealer: int = 0, totals: list[int] | None = None) -> None:
        """Set game ``b`` to the start of a round (Step A) of race ``race``: ducky spaces
        ``pos`` (suit -> space; the explorer too), animal owners (suit -> seat), the hands
        beginning with ``hands`` (seat -> card types) and filled up to the size they have after
        ``rounds_done`` rounds; every other card face up in the discard. The racing card
        ``racing`` is revealed next."""
        st, n = state, state.n_players
        hands = hands or {}
        total = np.array(st.deck_total_ro, np.int64)
        size = len(st.rules.deck_cards) + 1 + (st.rules.extra_card > 0) - rounds_done
        st.hand[b] = 0
        st.pile[b] = 0
        for p, cards in hands.items():
            for t in cards:
                st.hand[b, p, t] += 1
        left = total - st.hand[b].sum(axis=0)
        if (left < 0).any():
            raise ValueError("more cards of a type than the game has")
        pool = [t for t in range(NTYPES) for _ in range(int(left[t]))]
        for p in range(n):
            while st.hand[b, p].sum() < size:
                st.hand[b, p, pool.pop(0)] += 1
            if st.hand[b, p].sum() != size:
                raise ValueError(f"seat {p} holds more than {size} cards")
        for t in pool:
            st.pile[b, DISCARD, t] += 1
        st.g[b, :] = 0
        st.g[b, RACE] = race
        st.g[b, ROUND] = rounds_done
        st.g[b, DEALER] = dealer
        st.pos[b, :] = OFF
        st.owner[b, :] = -1
        st.pp[b, :, :] = 0
        st.pp[b, :, MARKER] = -1
        st.pp[b, :, HAND_N] = size
        st.pp[b, :, XHELD] = st.hand[b, :, EXPLORER * NV:].sum(axis=1)
        st.dr[b] = drama.drama_new(1, n)[0]
        for d, s in pos.items():
            st.pos[b, d] = s
        for d, p in owner.items():
            st.owner[b, d] = p
            st.pp[b, p, MARKER] = d
        for p, t in enumerate(totals or []):
            st.pp[b, p, TOTAL] = t
        k = len(st.rules.racing_cards)
        order = [racing] + [i for i in range(k) if i != racing]
        st.g[b, RC_POS] = rounds_done
        st.rdeck[b, :] = np.roll(np.array(order, np.int8), rounds_done)
        _start_round(b, st.g, st.pp, st.pos, st.seq, st.rdeck, st.ev, st.racing, st.params)
        self._refresh(st, np.array([b]), fresh=False)

    def zones(self, state: State, b: int) -> dict[str, np.ndarray]:
        """Counts of each card type in each zone of game b."""
        st = state
        z = {f"hand{p}": st.hand[b, p].astype(np.int64) for p in range(st.n_players)}
        line = np.zeros(NTYPES, np.int64)
        for t in st.seq[b, 0, :st.g[b, LINE_LEN]]:
            line[t] += 1
        z["line"] = line
        z["discard"] = st.pile[b, DISCARD].astype(np.int64)
        z["aside"] = st.pile[b, ASIDE].astype(np.int64)
        z["board"] = st.pile[b, BOARD].astype(np.int64)
        return z

    # -- words
    def describe(self, state: State, i: int) -> str:
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        r = state.rules
        lines = []
        n = int(state.g[i, NEV])
        for t, seat, a, b_, c, d in state.ev[i, :n]:
            if t == E_RACE:
                lines.append(f"== Race {a}: P{seat} deals ==")
            elif t == E_CLAIM:
                lines.append(f"P{seat} claims the {ANIMALS[a]} on space {b_}")
            elif t == E_STEAL:
                lines.append(f"P{seat} takes the {ANIMALS[a]} from P{b_}, moving it from "
                             f"space {c} to {d}")
            elif t == E_EXTRA:
                lines.append(f"P{seat} adds the {self.card_name(a)} to their hand")
            elif t == E_REVEAL:
                vals = ", ".join(str(x) for x in r.racing_cards[a][:state.n_players])
                lines.append(f"-- Round {b_}: racing card {a + 1} ({vals}) --")
            elif t == E_PLAY:
                lines.append(f"P{seat} plays the {self.card_name(a)} (goes in at spot {b_ + 1})")
            elif t == E_MOVE:
                who = SUIT_NAMES[seat]
                if b_ == a:
                    lines.append(f"   the {who} stays on {a}")
                else:
                    lines.append(f"   the {who} moves {a} -> {b_}"
                                 + (f", pushing {c} back" if c else ""))
            elif t == E_PUSH:
                lines.append(f"   the {SUIT_NAMES[seat]} is pushed back {a} -> {b_}")
            elif t == E_CATCHUP:
                lines.append(f"   the explorer catches up {a} -> {b_}")
            elif t == E_PLACE:
                who = "the explorer" if seat < 0 else f"P{seat}'s {ANIMALS[a]}"
                lines.append(f"   place {b_}: {who}, {c} point(s)"
                             + (f" (total {d})" if seat >= 0 else ""))
            elif t == E_GAME_END:
                lines.append(f"== Series over after {a} race(s) ==")
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        return "\n".join(lines)


GAME = SafariSprint()

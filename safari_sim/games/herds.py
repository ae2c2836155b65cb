"""Herds (duck! duck! SAFARI!, APE Games), 2-4 players; two teams of two at four players.

The module follows the rulebook (../shared/rules/duck-duck-safari.txt, "Herds") section by
section: Setup, Beginning the Hand, On Your Turn (steps one to five), Playing Ducktor Livingstone
Cards into Herds, Ending the Hand, Scoring the Hand, Continuing the Game, Winning. Every reading of
a gap is in docs/rules/herds.md.

Cards are ids 0..65: ``c < 60`` is animal ``c // 12`` (elephant, lion, monkey, tiger, zebra; two
sets of 1-6 each), number ``c % 6 + 1``; ``60 + k`` is the explorer (Ducktor Livingstone) of
number ``k + 1``. Suit 5 is the explorer.

A turn is a sequence of small decisions (kinds): step two (draw a grassland card or the deck's
top, or start a trade); the trade's give (one hand card at a time, then "done") and its take (one
grassland card at a time until the total is met); step three (create a herd of three, grow a
herd at one end, swap a real card for an explorer standing in for it, then "done"); step four
(the card to pass, then the opponent who gets it). Step one and step five are automatic.

Seats: seat 0 is left of the first dealer (seat P-1) and starts; at four players seats 0 and 2
are one team, 1 and 3 the other (partners sit opposite; ``partners: beside`` makes them 0+1 and
2+3). Herds belong to a side (a team at four players, else a player).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from ..engine.chance import below, shuffle_row
from ..engine.drama import drama_new, drama_stats, drama_update
from ..engine.events import log_event
from ..engine.protocol import (Game, Observation, Outcome, RulesError, action_helper, ranks_and_wins,
                               rule, winners_changed)

# ---- Components ----------------------------------------------------------------------------

NCARDS = 66
EXPLORER = 5
ANIMALS = ("elephant", "lion", "monkey", "tiger", "zebra", "explorer")
MAXH = 22  # 66 cards / 3: the most herds that can lie on the table


@dataclass(frozen=True)
class Rules:
    hand_sizes: tuple[int, ...] = rule((6, 5, 4), "cards dealt to each player at 2, 3, 4 players")
    grassland: int = rule(4, "cards dealt face up to the grassland at the start of a hand",
                          search=range(2, 9))
    target_score: int = rule(60, "the game ends after the hand in which a side reaches this",
                             search=range(30, 101, 10))
    explorer_herd_points: tuple[int, ...] = rule(
        (3, 5, 7, 10), "points of an all-explorer herd of 3, 4, 5, 6 cards")
    animal_herd_points: tuple[int, ...] = rule(
        (1, 1, 2, 3, 5, 7),
        "points of an animal herd by its animal cards 1..6 (explorers in it are not counted)")
    teams_at_four: bool = rule(True, "four players play as two teams with one score each",
                               search=[True, False])
    partners: str = rule(
        "across", "four players in teams: who is partnered (the text says only 'make two teams "
        "of two'): 'across' (seats 0+2 and 1+3, partners sit opposite and alternate turns) or "
        "'beside' (0+1 and 2+3, partners play one after the other)", search=["across", "beside"])
    end_tie: str = rule(
        "shared", "sides tied for the highest score when the game ends (the text prints no "
        "tie-break): 'shared' (they share the win) or 'play_on' (another hand is played until "
        "one side is ahead, up to max_hands)", search=["shared", "play_on"])
    trade_explorer: str = rule(
        "playable",
        "which grassland explorers a trade may take ('you must play that card before the end of "
        "your turn'): 'playable' (it can be played this turn with the cards held after the "
        "trade: it grows a herd of the side, or, the only explorer taken, it makes a new herd of "
        "three with them; two or more taken must each grow one), 'grows' (only one that grows a "
        "herd of the side), 'any' (any; one that cannot be played goes back to the grassland at "
        "the end of step three, or is the card passed if it is the last in hand)",
        search=["playable", "grows", "any"])
    flip_last_ends: bool = rule(
        True, "the hand ends when step five flips the deck's last card (the deck has run out); "
        "false: the next player skips step one, plays steps two to four, and the hand ends",
        search=[True, False])
    swap_in_opponents_herds: bool = rule(
        False, "a player may also swap a held card for an explorer standing in for it in an "
        "opponent's herd (the text does not say whose herd; default: only the player's side's, "
        "since a card may not be added to an opponent's herd)", search=[False, True])
    grass_draw_explorer_kept: bool = rule(
        True, "an explorer taken from the grassland in step two a (not a trade) may be kept "
        "(the must-play sentence names only the trade); false: it must be played this turn "
        "like one taken in a trade (and trade_explorer applies to it)",
        search=[True, False])
    max_hands: int = rule(60, "safety stop: the game ends after this many hands")

    def validate(self) -> None:
        if len(self.hand_sizes) != 3 or min(self.hand_sizes) < 1:
            raise RulesError("hand_sizes", "must be three numbers >= 1 (2, 3, 4 players)")
        if self.grassland < 0:
            raise RulesError("grassland", "must be 0 or more")
        if self.target_score < 1:
            raise RulesError("target_score", "must be at least 1")
        if len(self.explorer_herd_points) != 4:
            raise RulesError("explorer_herd_points", "must be four numbers (herds of 3 to 6)")
        if len(self.animal_herd_points) != 6:
            raise RulesError("animal_herd_points", "must be six numbers (1 to 6 animal cards)")
        if self.max_hands < 1:
            raise RulesError("max_hands", "must be at least 1")
        if self.partners not in ("across", "beside"):
            raise RulesError("partners", "must be 'across' or 'beside'")
        if self.end_tie not in ("shared", "play_on"):
            raise RulesError("end_tie", "must be 'shared' or 'play_on'")
        if self.trade_explorer not in ("playable", "grows", "any"):
            raise RulesError("trade_explorer", "must be 'playable', 'grows' or 'any'")


# decision kinds (obs.kind)
K_STEP2, K_GIVE, K_TAKE, K_HERD, K_PASS, K_RECV, OVER = range(7)

# actions
A_DECK = 0                       # step two a: the deck's top card
A_CARD0 = 1                      # + card: take it from the grassland / give it / pass it
A_TRADE = A_CARD0 + NCARDS       # step two b: trade
A_GIVE_DONE = A_TRADE + 1        # the cards given so far are the trade
A_NEW0 = A_GIVE_DONE + 1         # + suit * 4 + low: a herd of suit, numbers low+1 .. low+3
A_GROW0 = A_NEW0 + 24            # + herd * 2 + end (0 low, 1 high)
A_SWAP0 = A_GROW0 + 2 * MAXH     # + k: swap the real card for explorer k+1 standing in a herd
A_DONE = A_SWAP0 + 6             # step three is over
A_RECV0 = A_DONE + 1             # + o - 1: pass to the player o seats to the left

# per-game fields g[b, .]
CUR, PHASE, DEALER, HANDNO, TURNS, POS, HN, MUST, GSUM, NEED, PCARD, NEV, NGRASS, FULLENDS = range(14)
NG = 14
# per-seat fields pp[b, p, .]
TOTAL, HERDS_MADE, TRADES, SWAPS, GROWS = range(5)
NPP = 5

# zones
Z_DECK, Z_GRASS, Z_GIVE, Z_HERD, Z_ASIDE, Z_HAND0 = 0, 1, 2, 3, 4, 5  # aside: test positions only

# params
P_PLAYERS, P_HANDSIZE, P_GRASS, P_TARGET, P_MAXHANDS, P_NTEAMS, P_FLAGS = range(7)
F_MUSTGROW, F_FLIPENDS, F_SWAPANY, F_GRASSMUST, F_BESIDE, F_PLAYON, F_PLAYABLE = \
    1, 2, 4, 8, 16, 32, 64

E_HAND, E_DRAW, E_TAKE, E_TRADE_GIVE, E_TRADE_TAKE, E_NEW, E_GROW, E_SWAP, E_PASS, E_FLIP, \
    E_SCORE, E_END, E_RETURN = range(1, 14)

SUIT = np.array([c // 12 if c < 60 else EXPLORER for c in range(NCARDS)], np.int64)
NUM = np.array([c % 6 for c in range(NCARDS)], np.int64)  # number - 1


@dataclass
class State:
    n_players: int
    rules: Rules
    params: np.ndarray
    epts: np.ndarray      # int64[7]: explorer herd points by size (0 below 3)
    apts: np.ndarray      # int64[7]: animal herd points by animal cards
    g: np.ndarray         # int32[B, NG]
    pp: np.ndarray        # int32[B, P, NPP]
    team_total: np.ndarray  # int32[B, T]
    deck: np.ndarray      # int16[B, 66]: deck[b, POS:] is the draw pile, top first
    zone: np.ndarray      # int8[B, 66]
    hsuit: np.ndarray     # int8[B, MAXH]
    hown: np.ndarray      # int8[B, MAXH]: side (team) owning the herd
    hlo: np.ndarray       # int8[B, MAXH]: lowest number - 1
    hhi: np.ndarray       # int8[B, MAXH]
    hcard: np.ndarray     # int16[B, MAXH, 6]: card at number i+1, -1 none
    cherd: np.ndarray     # int16[B, 66]: herd of a card on the table, -1
    legal_: np.ndarray    # bool[B, A]
    hc: np.ndarray        # int32[B, 6, 6] scratch: hand counts by suit and number
    ev: np.ndarray
    rs: np.ndarray
    poss: np.ndarray      # int8[B, P, 66]: what seat s knows of a card it cannot see: 0 nothing
                          #   (the deck or any other hand), else the bits 1 << q of the hands it
                          #   must be in (taken from the grassland, passed by s, passed on)
    dr: np.ndarray        # int32[B, drama_width(sides)]: how the lead moved (engine.drama)
    fallback: np.ndarray  # int8[B]: in a world, 1 if its hands fell back (see determinize)


# ---- helpers -------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _team(p, params):
    """p's side. Inlined (a few statements a site): called, the warm kernels slowed by 12%."""
    if params[P_NTEAMS] < params[P_PLAYERS]:
        return p // 2 if params[P_FLAGS] & F_BESIDE else p % 2
    return p


@njit(cache=True, _nrt=False)
def _hand_counts(b, p, zone, hc):
    """hc[b] = the hand of p by suit and number; returns the hand's size."""
    hc[b, :, :] = 0
    z = Z_HAND0 + p
    n = 0
    for c in range(NCARDS):
        if zone[b, c] == z:
            s = c // 12 if c < 60 else EXPLORER
            hc[b, s, c % 6] += 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _hand_card(b, p, s, n, zone):
    """A card of suit s, number n+1 in p's hand (the lower id), or -1."""
    z = Z_HAND0 + p
    if s == EXPLORER:
        c = 60 + n
        return c if zone[b, c] == z else -1
    c = s * 12 + n
    if zone[b, c] == z:
        return c
    if zone[b, c + 6] == z:
        return c + 6
    return -1


@njit(cache=True, inline="always", _nrt=False)
def _sums_add(w0, w1, w2, w3, v):
    """The bitset of subset sums (256 bits in four words) after one more card of value v."""
    u = np.uint64(v)
    r = np.uint64(64 - v)
    n3 = (w3 << u) | (w2 >> r)
    n2 = (w2 << u) | (w1 >> r)
    n1 = (w1 << u) | (w0 >> r)
    n0 = w0 << u
    return w0 | n0, w1 | n1, w2 | n2, w3 | n3


@njit(cache=True, inline="always", _nrt=False)
def _shift(w0, w1, w2, w3, v):
    """The 256-bit set (four words) shifted up by v (1..6)."""
    u = np.uint64(v)
    r = np.uint64(64 - v)
    return w0 << u, (w1 << u) | (w0 >> r), (w2 << u) | (w1 >> r), (w3 << u) | (w2 >> r)


@njit(cache=True, inline="always", _nrt=False)
def _has(w0, w1, w2, w3, s):
    """Whether the 256-bit set (four words) holds s (False outside 0..255). Few statements:
    it is inlined at nine sites, each typed and compiled again."""
    if (s & ~255) != 0:  # s < 0 or s > 255
        return False
    return ((w0, w1, w2, w3)[s >> 6] >> np.uint64(s & 63)) & np.uint64(1) != 0


@njit(cache=True, _nrt=False)
def _explorer_grows(b, team, n, g, hown, hlo, hhi):
    """Whether an explorer of number n+1 can grow a herd of ``team`` (as itself or as a wild)."""
    for h in range(g[b, HN]):
        if hown[b, h] == team and (hlo[b, h] - 1 == n or hhi[b, h] + 1 == n):
            return True
    return False


@njit(cache=True, _nrt=False)
def _grass_ok(b, c, team, g, zone, hown, hlo, hhi, params):
    """Whether grassland card c may be taken in a trade under trade_explorer 'grows' (an
    explorer only when it grows a herd of the side; 'playable' adds _new_herd_trade)."""
    if zone[b, c] != Z_GRASS:
        return False
    if c >= 60 and params[P_FLAGS] & F_MUSTGROW:
        return _explorer_grows(b, team, c - 60, g, hown, hlo, hhi)
    return True


@njit(cache=True, _nrt=False)
def _grass_counts(b, team, g, zone, hown, hlo, hhi, params):
    """The values of the grassland cards a trade may take (``_grass_ok``) as two multisets
    packed 8 bits per value 1..6 (``_count``): (animal cards, explorers)."""
    ac = 0
    ec = 0
    for c in range(NCARDS):
        if _grass_ok(b, c, team, g, zone, hown, hlo, hhi, params):
            if c < 60:
                ac += 1 << (8 * (c % 6))
            else:
                ec += 1 << (8 * (c % 6))
    return ac, ec


@njit(cache=True, inline="always", _nrt=False)
def _one(v):
    """One card of value v (1..6) in a packed multiset."""
    return 1 << (8 * (v - 1))


@njit(cache=True, inline="always", _nrt=False)
def _count(m, v):
    """How many cards of value v (1..6) the packed multiset m holds."""
    return (m >> (8 * (v - 1))) & 255


@njit(cache=True, _nrt=False)
def _sums_of(m):
    """The bitset of subset sums (four words) of the packed multiset of values m. (A set of
    sums does not depend on the order the cards are added in, and the 66 cards' values add up
    to 231: no sum falls off the 256 bits.)"""
    w0, w1, w2, w3 = np.uint64(1), np.uint64(0), np.uint64(0), np.uint64(0)
    for v in range(1, 7):
        for _ in range(_count(m, v)):
            w0, w1, w2, w3 = _sums_add(w0, w1, w2, w3, v)
    return w0, w1, w2, w3


@njit(cache=True, _nrt=False)
def _whole_sums_of(ac, ec, params):
    """The grassland sums a trade that gives the whole hand may take, from the packed values of
    the grassland's animal cards ``ac`` and explorers ``ec`` that may be taken: with
    trade_explorer 'grows', sums of sets holding at least one animal card (taking only
    explorers, which must all be played, would leave no card to pass); else every sum."""
    if not params[P_FLAGS] & F_MUSTGROW:
        return _sums_of(ac + ec)
    a0, a1, a2, a3 = np.uint64(1), np.uint64(0), np.uint64(0), np.uint64(0)  # any set
    n0, n1, n2, n3 = np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0)  # with an animal
    for v in range(1, 7):
        for _ in range(_count(ac, v)):
            s0, s1, s2, s3 = _shift(a0, a1, a2, a3, v)
            n0, n1, n2, n3 = n0 | s0, n1 | s1, n2 | s2, n3 | s3
            a0, a1, a2, a3 = _sums_add(a0, a1, a2, a3, v)
    for v in range(1, 7):
        for _ in range(_count(ec, v)):
            s0, s1, s2, s3 = _shift(n0, n1, n2, n3, v)
            n0, n1, n2, n3 = n0 | s0, n1 | s1, n2 | s2, n3 | s3
            a0, a1, a2, a3 = _sums_add(a0, a1, a2, a3, v)
    return n0, n1, n2, n3


@njit(cache=True, _nrt=False)
def _hand_values(b, p, zone):
    """The values of p's hand, packed as in ``_grass_counts``."""
    z = Z_HAND0 + p
    m = 0
    for c in range(NCARDS):
        if zone[b, c] == z:
            m += 1 << (8 * (c % 6))
    return m


@njit(cache=True, _nrt=False)
def _can_give(hv, base, gw0, gw1, gw2, gw3, hw0, hw1, hw2, hw3):
    """Whether a hand holding the packed values ``hv`` holds a set E with base + sum(E) > 0 a
    grassland sum (``gw``), or ``hw`` (the sums a trade giving the whole hand may take) when E
    is the whole hand."""
    w0, w1, w2, w3 = _sums_of(hv)
    total = 0
    for v in range(1, 7):
        total += v * _count(hv, v)
    for s in range(0, total + 1):
        if base + s > 0 and _has(w0, w1, w2, w3, s):
            if s < total and _has(gw0, gw1, gw2, gw3, base + s):
                return True
            if s == total and _has(hw0, hw1, hw2, hw3, base + s):  # the whole rest is given
                return True
    return False


# ---- trade_explorer 'playable': a single explorer taken for a new herd ------------------------
# Witness kinds for a number of a new herd (other than the explorer's own): a card surely held
# after the trade (free), a hand card that must then not be given (reserved), a grassland animal
# card that must then be taken (required).
W_FREE, W_KEEP, W_TAKE = 0, 1, 2


@njit(cache=True, inline="always", _nrt=False)
def _use_witness(kind, m, f, q, base, free):
    """What witness ``kind`` for number m takes out of the trade: a reserved hand card leaves
    the cards that may be given (f), a required grassland card the ones free to take (q) and
    adds its value to what must be taken (base); a free card is counted."""
    if kind == W_FREE:
        return f, q, base, free + 1
    if kind == W_KEEP:
        return f - _one(m + 1), q, base, free
    return f, q - _one(m + 1), base + m + 1, free


@njit(cache=True, _nrt=False)
def _witness(b, p, t, m, k, kind, excl, cand, give_open, zone):
    """Whether witness ``kind`` (W_*) exists for number m of a new herd of suit t: the k-th
    card that may stand there (k 0, 1: the two real cards of animal t; 2: the explorer).
    ``give_open``: hand cards may still be given (else every hand card is kept); ``excl`` is
    a hand card being given, ``cand`` a grassland card being taken (it is then held)."""
    if k == 2:
        c = 60 + m
    elif t == EXPLORER:
        return False
    else:
        c = t * 12 + k * 6 + m
    inhand = zone[b, c] == Z_HAND0 + p and c != excl
    if kind == W_FREE:
        return (inhand and not give_open) or c == cand
    if kind == W_KEEP:
        return inhand and give_open
    return c < 60 and zone[b, c] == Z_GRASS and c != cand  # W_TAKE: animals only


# the helpers below are called with literal and int32 arguments at some sites: each distinct
# argument type is a kernel numba compiles again, so every site passes int64 (_I)
_I = np.int64


@njit(cache=True, inline="always", _nrt=False)
def _new_herd_trade_of(b, p, e, excl, cand, g0, need, zone):
    """Whether a trade can still be completed in which explorer e (number e+1) is the only
    explorer taken and is laid in step three in a new herd of three with cards held after the
    trade, a card left to pass (docs/rules/herds.md, "trade_explorer"). ``need`` < 0: the
    cards given are not settled (hand cards may still be given; ``g0`` given so far, ``excl``
    the card being given now, -1 none); need >= 0: the give is settled and ``need`` is the
    value still to take (``cand`` the grassland card being taken now, -1 none). e may be in
    the grassland (then it must be taken too) or already in hand (taken earlier, or ``cand``)."""
    z = Z_HAND0 + p
    give_open = need < 0
    fv = 0   # packed values of the hand cards that may still be given
    qv = 0   # packed values of the grassland animal cards that may be taken
    nk = 0   # cards surely held after the trade, e aside
    for c in range(NCARDS):
        if c == 60 + e:
            continue
        if zone[b, c] == z and c != excl:
            if give_open:
                fv += _one(c % 6 + 1)
            else:
                nk += 1
        elif c == cand:
            nk += 1
        elif c < 60 and zone[b, c] == Z_GRASS:
            qv += _one(c % 6 + 1)
    e_grass = zone[b, 60 + e] == Z_GRASS and cand != 60 + e
    for lo in range(max(0, e - 2), min(3, e) + 1):
        for t in range(6):
            m1 = lo if lo != e else lo + 1
            m2 = lo + 2 if lo + 2 != e else lo + 1
            for k1 in range(3):
                for w1 in range(3):
                    if not _witness(b, p, t, m1, k1, w1, excl, cand, give_open, zone):
                        continue
                    for k2 in range(3):
                        if t != EXPLORER and k1 == 2 and k2 == 2:
                            continue  # an animal herd needs a card of its animal
                        for w2 in range(3):
                            if not _witness(b, p, t, m2, k2, w2, excl, cand, give_open, zone):
                                continue
                            f, q, base, free = _use_witness(w1, m1, fv, qv,
                                                            e + 1 if e_grass else 0, 0)
                            f, q, base, free = _use_witness(w2, m2, f, q, base, free)
                            u0, u1, u2, u3 = _sums_of(q)
                            if not give_open:
                                d = need - base
                                # a fourth card held: one kept for sure, or one more taken
                                if _has(u0, u1, u2, u3, d) and (nk - free > 0 or d > 0):
                                    return True
                                continue
                            tot = 0
                            for v in range(1, 7):
                                tot += v * _count(f, v)
                            w0, x1, x2, x3 = _sums_of(f)
                            for se in range(tot + 1):
                                d = g0 + se - base
                                if d >= 0 and g0 + se > 0 and _has(w0, x1, x2, x3, se) \
                                        and _has(u0, u1, u2, u3, d) and (se < tot or d > 0):
                                    return True
    return False


@njit(cache=True, _nrt=False)
def _new_herd_trade(b, p, e, excl, cand, g0, need, zone):
    """``_new_herd_trade_of`` for explorer e, or (e < 0) for some explorer in the grassland
    (none taken yet). (One kernel for both: the rules inline its body once.)"""
    for x in range(6):
        if x == e or (e < 0 and zone[b, 60 + x] == Z_GRASS):
            if _new_herd_trade_of(b, p, x, excl, cand, g0, need, zone):
                return True
    return False


@njit(cache=True, _nrt=False)
def _hand_free(b, p, g, zone):
    """Whether p holds a card that is not an explorer that must be played this turn."""
    z = Z_HAND0 + p
    for c in range(NCARDS):
        if zone[b, c] == z and (c < 60 or not g[b, MUST] & (1 << (c - 60))):
            return True
    return False


# ---- What each seat knows of the cards it cannot see ----------------------------------------

@njit(cache=True, _nrt=False)
def _seen_into(b, p, c, poss):
    """Card c went openly (from the grassland or a herd) into p's hand: every seat knows."""
    for s in range(poss.shape[1]):
        poss[b, s, c] = 1 << p


@njit(cache=True, _nrt=False)
def _passed(b, p, q, c, poss):
    """p passed c face down to q: p knows where it is; every other seat (not q, who sees it)
    knows only that each card that was surely in p's hand may now be in q's."""
    bp = 1 << p
    for s in range(poss.shape[1]):
        if s == p:
            poss[b, s, c] = 1 << q
        elif s != q:
            for x in range(NCARDS):
                if poss[b, s, x] & bp:
                    poss[b, s, x] |= 1 << q


# ---- Step Three: placements ----------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _new_cards(b, p, t, lo, forced, zone, out):
    """The three cards of a new herd of suit t at numbers lo..lo+2 (real cards first, explorers
    of the same number as wilds; an explorer ``forced`` >= 0 is used at its own number). Writes
    them to out[0:3]; returns False when the hand cannot make it (an animal herd needs an animal
    card; a forced explorer must be in it)."""
    real = 0
    used_forced = forced < 0
    for i in range(3):
        n = lo + i
        if forced >= 0 and n == forced:
            out[i] = 60 + n
            used_forced = True
            continue
        c = -1
        if t != EXPLORER:
            c = _hand_card(b, p, t, n, zone)
            if c >= 0:
                real += 1
        if c < 0:
            c = _hand_card(b, p, np.int64(EXPLORER), n, zone)
        if c < 0:
            return False
        out[i] = c
    if t != EXPLORER and real == 0:
        return False
    return used_forced


@njit(cache=True, _nrt=False)
def _grow_card(b, p, h, end, forced, g, zone, hsuit, hlo, hhi):
    """The card that grows herd h at ``end`` (real first, else the explorer of that number), -1."""
    n = hlo[b, h] - 1 if end == 0 else hhi[b, h] + 1
    if n < 0 or n > 5:
        return -1
    if forced >= 0:
        return 60 + n if n == forced else -1
    t = np.int64(hsuit[b, h])
    if t != EXPLORER:
        c = _hand_card(b, p, t, n, zone)
        if c >= 0:
            return c
    return _hand_card(b, p, np.int64(EXPLORER), n, zone)


@njit(cache=True, inline="always", _nrt=False)
def _could_lay(b, t, lo, hc):
    """Whether the hand (counts hc[b], see _hand_counts) holds, for each of the numbers
    lo..lo+2, a card of suit t or an explorer, and (an animal herd) a card of suit t: what
    ``_new_cards`` needs at least; it is asked only where this holds."""
    real = t == EXPLORER
    for n in range(lo, lo + 3):
        if t != EXPLORER and hc[b, t, n] > 0:
            real = True
        elif hc[b, EXPLORER, n] == 0:
            return False
    return real


@njit(cache=True, _nrt=False)
def _placements(b, p, forced, nhand, g, zone, hsuit, hown, hlo, hhi, hc, tmp, params, row, write):
    """New herds and growths (with explorer ``forced`` when >= 0) into ``row``; how many."""
    team = _team(p, params)
    k = 0
    if nhand >= 4:
        for t in range(6):
            for lo in range(4):
                if _could_lay(b, t, lo, hc) and _new_cards(b, p, t, lo, forced, zone, tmp):
                    k += 1
                    if write:
                        row[A_NEW0 + t * 4 + lo] = True
    if nhand >= 2:
        for h in range(g[b, HN]):
            if hown[b, h] != team:
                continue
            for end in range(2):
                if _grow_card(b, p, np.int64(h), end, forced, g, zone, hsuit, hlo, hhi) >= 0:
                    k += 1
                    if write:
                        row[A_GROW0 + h * 2 + end] = True
    return k


@njit(cache=True, _nrt=False)
def _herd_legal(b, p, forced, nhand, g, zone, hsuit, hown, hlo, hhi, hcard, cherd, hc, tmp,
                params, row, write):
    """Step three's legal actions into ``row`` (when ``write``); returns how many there are."""
    team = _team(p, params)
    k = _placements(b, p, forced, nhand, g, zone, hsuit, hown, hlo, hhi, hc, tmp, params, row,
                    np.bool_(write))
    if forced < 0:
        z = Z_HAND0 + p
        for e in range(6):
            c = 60 + e
            if zone[b, c] != Z_HERD:
                continue
            h = cherd[b, c]
            if h < 0:
                continue
            t = hsuit[b, h]
            if t == EXPLORER or (hown[b, h] != team and not params[P_FLAGS] & F_SWAPANY):
                continue
            real = _hand_card(b, p, np.int64(t), e, zone)
            if real < 0:
                continue
            # after the swap the explorer must be placeable at once
            zone[b, real] = Z_HERD
            zone[b, c] = z
            hcard[b, h, e] = real
            hc[b, t, e] -= 1
            hc[b, EXPLORER, e] += 1
            ok = _placements(b, p, e, nhand, g, zone, hsuit, hown, hlo, hhi, hc, tmp, params, row,
                             np.bool_(False)) > 0
            hc[b, EXPLORER, e] -= 1
            hc[b, t, e] += 1
            hcard[b, h, e] = c
            zone[b, c] = Z_HERD
            zone[b, real] = z
            if ok:
                k += 1
                if write:
                    row[A_SWAP0 + e] = True
    return k


@njit(cache=True, _nrt=False)
def _forced(g, b):
    m = g[b, MUST]
    if m == 0:
        return -1
    for e in range(6):
        if m & (1 << e):
            return e
    return -1


# ---- the turn ------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _hand_size(b, p, zone):
    z = Z_HAND0 + p
    n = 0
    for c in range(NCARDS):
        if zone[b, c] == z:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _draw_top(b, p, g, deck, zone, ev):
    c = deck[b, g[b, POS]]
    g[b, POS] += 1
    zone[b, c] = Z_HAND0 + p
    log_event(ev, g, NEV, b, E_DRAW, p, c, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _step2_options(b, p, g, zone, hown, hlo, hhi, legal, params, write):
    """Step two's legal actions; returns how many."""
    k = 0
    if g[b, POS] < NCARDS:
        k += 1
        if write:
            legal[b, A_DECK] = True
    team = _team(p, params)
    playable = params[P_FLAGS] & F_PLAYABLE
    for c in range(NCARDS):
        if zone[b, c] == Z_GRASS:
            if c >= 60 and params[P_FLAGS] & F_GRASSMUST and params[P_FLAGS] & F_MUSTGROW \
                    and not _explorer_grows(b, team, c - 60, g, hown, hlo, hhi) \
                    and not (playable and _new_herd_trade(b, p, c - 60, _I(-1), c, _I(0), _I(0),
                                                          zone)):
                continue
            k += 1
            if write:
                legal[b, A_CARD0 + c] = True
    ac, ec = _grass_counts(b, team, g, zone, hown, hlo, hhi, params)
    gw0, gw1, gw2, gw3 = _sums_of(ac + ec)
    hw0, hw1, hw2, hw3 = _whole_sums_of(ac, ec, params)
    if _can_give(_hand_values(b, p, zone), np.int64(0), gw0, gw1, gw2, gw3, hw0, hw1, hw2, hw3) or \
            (playable and _new_herd_trade(b, p, _I(-1), _I(-1), _I(-1), _I(0), _I(-1),
                                                   zone)):
        k += 1
        if write:
            legal[b, A_TRADE] = True
    return k


@njit(cache=True, _nrt=False)
def _score_hand(b, g, pp, team_total, hsuit, hown, hlo, hhi, hcard, epts, apts, params, ev, dr):
    nt = params[P_NTEAMS]
    for t in range(nt):
        pts = 0
        for h in range(g[b, HN]):
            if hown[b, h] != t:
                continue
            if hsuit[b, h] == EXPLORER:
                pts += epts[hhi[b, h] - hlo[b, h] + 1]
            else:
                a = 0
                for n in range(hlo[b, h], hhi[b, h] + 1):
                    if hcard[b, h, n] < 60:
                        a += 1
                pts += apts[a]
        team_total[b, t] += pts
        log_event(ev, g, NEV, b, E_SCORE, t, pts, team_total[b, t], 0, 0)
    # drama: the sides' scores move once a hand, when it is scored
    drama_update(dr, b, team_total[b, :nt], False)


@njit(cache=True, _nrt=False)
def _start_hand(b, g, deck, zone, cherd, rs, ev, params, poss):
    for c in range(NCARDS):
        deck[b, c] = c
        zone[b, c] = Z_DECK
        cherd[b, c] = -1
        for s in range(poss.shape[1]):
            poss[b, s, c] = 0
    shuffle_row(deck[b], NCARDS, rs, b)
    g[b, POS] = 0
    g[b, HN] = 0
    g[b, MUST] = 0
    nplayers = params[P_PLAYERS]
    first = (g[b, DEALER] + 1) % nplayers
    log_event(ev, g, NEV, b, E_HAND, g[b, DEALER], g[b, HANDNO] + 1, 0, 0, 0)
    for i in range(nplayers):  # the deal starts left of the dealer
        p = (first + i) % nplayers
        for _ in range(params[P_HANDSIZE]):
            c = deck[b, g[b, POS]]
            g[b, POS] += 1
            zone[b, c] = Z_HAND0 + p
    for _ in range(params[P_GRASS]):
        if g[b, POS] < NCARDS:
            c = deck[b, g[b, POS]]
            g[b, POS] += 1
            zone[b, c] = Z_GRASS
            log_event(ev, g, NEV, b, E_FLIP, -1, c, 0, 0, 0)
    g[b, CUR] = first


@njit(cache=True, inline="always", _nrt=False)
def _advance(b, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard, cherd, hc, tmp, legal,
             rs, ev, epts, apts, params, poss, dr):
    """From the start of a turn (PHASE = K_STEP2 set by the caller, step one not yet done), or
    from a phase whose legal actions must be written, to the next real decision."""
    while True:
        ph = g[b, PHASE]
        p = g[b, CUR]
        if ph == -1:  # a new turn: step one
            if g[b, POS] >= NCARDS:  # only with flip_last_ends off: no card to draw, play on
                g[b, PHASE] = K_STEP2
                continue
            _draw_top(b, p, g, deck, zone, ev)
            g[b, PHASE] = K_STEP2
            continue
        if ph == K_STEP2:
            if _step2_options(b, p, g, zone, hown, hlo, hhi, legal, params, True) > 0:
                return
            g[b, PHASE] = K_HERD
            continue
        if ph == K_GIVE:
            team = _team(p, params)
            ac, ec = _grass_counts(b, team, g, zone, hown, hlo, hhi, params)
            gw0, gw1, gw2, gw3 = _sums_of(ac + ec)
            hw0, hw1, hw2, hw3 = _whole_sums_of(ac, ec, params)
            z = Z_HAND0 + p
            hv = _hand_values(b, p, zone)
            ok = 0  # bit v: a card of value v may be given next (the same for every such card)
            for v in range(1, 7):
                if _count(hv, v) > 0 and _can_give(hv - _one(v), g[b, GSUM] + v, gw0, gw1, gw2,
                                                   gw3, hw0, hw1, hw2, hw3):
                    ok |= 1 << v
            playable = params[P_FLAGS] & F_PLAYABLE
            for c in range(NCARDS):
                if zone[b, c] == z and ((ok >> (c % 6 + 1)) & 1 or (
                        playable and _new_herd_trade(b, p, _I(-1), c, _I(-1),
                                                     _I(g[b, GSUM] + c % 6 + 1), _I(-1), zone))):
                    legal[b, A_CARD0 + c] = True
            if g[b, GSUM] > 0:
                if hv != 0:
                    done = _has(gw0, gw1, gw2, gw3, g[b, GSUM])
                else:  # the whole hand is given
                    done = _has(hw0, hw1, hw2, hw3, g[b, GSUM])
                if done or (playable and _new_herd_trade(b, p, _I(-1), _I(-1), _I(-1), _I(0),
                                                         _I(g[b, GSUM]), zone)):
                    legal[b, A_GIVE_DONE] = True
            return
        if ph == K_TAKE:
            need = g[b, NEED]
            if need == 0:  # the trade is made: the given cards go face up into the grassland
                for c in range(NCARDS):
                    if zone[b, c] == Z_GIVE:
                        zone[b, c] = Z_GRASS
                        log_event(ev, g, NEV, b, E_TRADE_GIVE, p, c, 0, 0, 0)
                g[b, PHASE] = K_HERD
                continue
            team = _team(p, params)
            # the whole hand was given and nothing but must-play explorers taken yet: the rest
            # of the take must hold an animal card (with trade_explorer 'grows')
            animal = params[P_FLAGS] & F_MUSTGROW and not _hand_free(b, p, g, zone)
            ac, ec = _grass_counts(b, team, g, zone, hown, hlo, hhi, params)
            # 'playable': the explorers taken so far (must-play) all grow a herd of the side
            # (then the 'grows' test holds for the rest), or one alone is for a new herd
            growing = True
            taken = -1
            ntaken = 0
            for e in range(6):
                if g[b, MUST] & (1 << e):
                    taken = e
                    ntaken += 1
                    if params[P_FLAGS] & F_PLAYABLE and \
                            not _explorer_grows(b, team, e, g, hown, hlo, hhi):
                        growing = False
            if growing:
                # whether the rest of the take can be met once card c (value v) is taken
                # depends on v alone (and on c being an explorer when ``animal``): each answer
                # is found once
                known = 0
                yes = 0
                for c in range(NCARDS):
                    v = c % 6 + 1
                    if v <= need and _grass_ok(b, c, team, g, zone, hown, hlo, hhi, params):
                        key = v + (8 if animal and c >= 60 else 0)
                        if not (known >> key) & 1:
                            known |= 1 << key
                            if key >= 8:
                                w0, w1, w2, w3 = _whole_sums_of(ac, ec - _one(v), params)
                            else:
                                w0, w1, w2, w3 = _sums_of(ac + ec - _one(v))
                            if _has(w0, w1, w2, w3, need - v):
                                yes |= 1 << key
                        if (yes >> key) & 1:
                            legal[b, A_CARD0 + c] = True
            if params[P_FLAGS] & F_PLAYABLE:
                for c in range(NCARDS):
                    v = c % 6 + 1
                    if v > need or zone[b, c] != Z_GRASS or legal[b, A_CARD0 + c]:
                        continue
                    if c >= 60:
                        ok = ntaken == 0 and _new_herd_trade(b, p, c - 60, _I(-1), c, _I(0),
                                                             _I(need - v),
                                                             zone)
                    elif ntaken == 1:
                        ok = _new_herd_trade(b, p, _I(taken), _I(-1), c, _I(0), _I(need - v), zone)
                    elif ntaken == 0:
                        ok = _new_herd_trade(b, p, _I(-1), _I(-1), c, _I(0), _I(need - v), zone)
                    else:
                        ok = False
                    if ok:
                        legal[b, A_CARD0 + c] = True
            return
        if ph == K_HERD:
            nh = _hand_counts(b, p, zone, hc)
            f = _forced(g, b)
            if _herd_legal(b, p, f, nh, g, zone, hsuit, hown, hlo, hhi, hcard, cherd, hc, tmp,
                           params, legal[b], True) > 0:
                if f < 0:
                    legal[b, A_DONE] = True
                return
            if f >= 0:  # only with trade_explorer 'any': it goes back to the grassland
                g[b, MUST] &= ~(1 << f)
                if nh > 1:  # (unless it is the last card: then it is the card to pass)
                    zone[b, 60 + f] = Z_GRASS
                    log_event(ev, g, NEV, b, E_RETURN, p, 60 + f, 0, 0, 0)
                continue
            g[b, PHASE] = K_PASS
            continue
        if ph == K_PASS:
            z = Z_HAND0 + p
            for c in range(NCARDS):
                if zone[b, c] == z:
                    legal[b, A_CARD0 + c] = True
            return
        if ph == K_RECV:
            nplayers = params[P_PLAYERS]
            team = _team(p, params)
            cnt = 0
            last = 0
            for o in range(1, nplayers):
                q = (p + o) % nplayers
                if _team(q, params) != team:
                    cnt += 1
                    last = o
            if cnt > 1:
                for o in range(1, nplayers):
                    if _team((p + o) % nplayers, params) != team:
                        legal[b, A_RECV0 + o - 1] = True
                return
            q = (p + last) % nplayers
            zone[b, g[b, PCARD]] = Z_HAND0 + q
            _passed(b, p, q, g[b, PCARD], poss)
            log_event(ev, g, NEV, b, E_PASS, p, g[b, PCARD], q, 0, 0)
            g[b, PHASE] = -2
            continue
        if ph == -2:  # after step four
            g[b, TURNS] += 1
            team = _team(p, params)
            ends = False
            if _hand_size(b, p, zone) == 0:
                for h in range(g[b, HN]):
                    if hown[b, h] == team and hlo[b, h] == 0 and hhi[b, h] == 5:
                        ends = True
                if ends:
                    g[b, FULLENDS] += 1
            if not ends and g[b, POS] >= NCARDS:
                ends = True
            if not ends:  # step five: flip one card
                c = deck[b, g[b, POS]]
                g[b, POS] += 1
                zone[b, c] = Z_GRASS
                log_event(ev, g, NEV, b, E_FLIP, p, c, 0, 0, 0)
                if g[b, POS] >= NCARDS and params[P_FLAGS] & F_FLIPENDS:
                    ends = True
            if not ends:
                g[b, CUR] = (p + 1) % params[P_PLAYERS]
                g[b, PHASE] = -1
                continue
            g[b, PHASE] = -3
            continue
        if ph == -3:  # the hand ends
            _score_hand(b, g, pp, team_total, hsuit, hown, hlo, hhi, hcard, epts, apts, params, ev,
                        dr)
            g[b, HANDNO] += 1
            best = 0
            nbest = 0
            for t in range(params[P_NTEAMS]):
                if team_total[b, t] > best:
                    best = team_total[b, t]
                    nbest = 0
                if team_total[b, t] == best:
                    nbest += 1
            over = best >= params[P_TARGET]
            if over and nbest > 1 and params[P_FLAGS] & F_PLAYON:
                over = False  # end_tie play_on: a tie at the top plays another hand
            if over or g[b, HANDNO] >= params[P_MAXHANDS]:
                g[b, PHASE] = OVER
                g[b, CUR] = -1
                log_event(ev, g, NEV, b, E_END, -1, g[b, HANDNO], 0, 0, 0)
                return
            g[b, DEALER] = (g[b, DEALER] + 1) % params[P_PLAYERS]
            _start_hand(b, g, deck, zone, cherd, rs, ev, params, poss)
            g[b, PHASE] = -1
            continue
        return


@njit(cache=True, _nrt=False)
def _advance_games(b, games, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard, cherd,
                   hc, tmp, legal, rs, ev, epts, apts, params, poss, dr):
    """``_advance`` for game b, or (b < 0) for each game of ``games`` (b >= 0: unused). One
    kernel for both (``apply_action`` and the first decisions of a batch): a second kernel
    calling this one would compile all of the rules' machine code again (numba links and
    optimizes a kernel's callees into it)."""
    for i in range(1 if b >= 0 else games.shape[0]):
        _advance(b if b >= 0 else games[i], g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi,
                 hcard, cherd, hc, tmp, legal, rs, ev, epts, apts, params, poss, dr)


@njit(cache=True, _nrt=False)
def _place(b, p, h, cards, ncard, lo, t, g, zone, hsuit, hown, hlo, hhi, hcard, cherd, params):
    """Put cards into herd h (a new one when h == HN) at numbers lo.. (cards in number order)."""
    if h == g[b, HN]:
        g[b, HN] += 1
        hsuit[b, h] = t
        hown[b, h] = _team(p, params)
        hlo[b, h] = lo
        hhi[b, h] = lo + ncard - 1
        for n in range(6):
            hcard[b, h, n] = -1
    for i in range(ncard):
        c = cards[i]
        n = lo + i
        hcard[b, h, n] = c
        zone[b, c] = Z_HERD
        cherd[b, c] = h
        if c >= 60:
            g[b, MUST] &= ~(1 << (c - 60))
        if n < hlo[b, h]:
            hlo[b, h] = n
        if n > hhi[b, h]:
            hhi[b, h] = n


@njit(cache=True, _nrt=False)
def _apply(b, a, g, pp, zone, deck, hsuit, hown, hlo, hhi, hcard, cherd, hc, tmp, params, ev, poss):
    p = g[b, CUR]
    ph = g[b, PHASE]
    z = Z_HAND0 + p
    # the event this action logs (-1: none here), logged at one site below: log_event is
    # inlined, and each of its sites compiled again
    et, x1, x2, x3, x4 = -1, 0, 0, 0, 0
    if ph == K_STEP2:
        if a == A_DECK:
            _draw_top(b, p, g, deck, zone, ev)
            g[b, PHASE] = K_HERD
        elif a == A_TRADE:
            pp[b, p, TRADES] += 1
            g[b, GSUM] = 0
            g[b, PHASE] = K_GIVE
        else:
            c = a - A_CARD0
            zone[b, c] = z
            _seen_into(b, p, c, poss)
            if c >= 60 and params[P_FLAGS] & F_GRASSMUST:  # (a variant) it must be played
                g[b, MUST] |= 1 << (c - 60)
            et, x1 = E_TAKE, c
            g[b, PHASE] = K_HERD
    elif ph == K_GIVE:
        if a == A_GIVE_DONE:
            g[b, NEED] = g[b, GSUM]
            g[b, PHASE] = K_TAKE
        else:
            c = a - A_CARD0
            zone[b, c] = Z_GIVE
            g[b, GSUM] += c % 6 + 1
    elif ph == K_TAKE:
        c = a - A_CARD0
        zone[b, c] = z
        _seen_into(b, p, c, poss)
        g[b, NEED] -= c % 6 + 1
        if c >= 60:  # an explorer from the grassland in a trade must be played this turn
            g[b, MUST] |= 1 << (c - 60)
        et, x1 = E_TRADE_TAKE, c
    elif ph == K_HERD:
        f = _forced(g, b)
        if a == A_DONE:
            g[b, PHASE] = K_PASS
        elif a < A_GROW0:
            t = (a - A_NEW0) // 4
            lo = (a - A_NEW0) % 4
            _new_cards(b, p, t, lo, f, zone, tmp)
            h = g[b, HN]
            _place(b, p, np.int64(h), tmp, np.int64(3), lo, np.int64(t), g, zone, hsuit, hown, hlo,
                   hhi, hcard, cherd, params)
            pp[b, p, HERDS_MADE] += 1
            et, x1, x2, x3, x4 = E_NEW, tmp[0], tmp[1], tmp[2], t
        elif a < A_SWAP0:
            h = (a - A_GROW0) // 2
            end = (a - A_GROW0) % 2
            c = _grow_card(b, p, h, end, f, g, zone, hsuit, hlo, hhi)
            n = hlo[b, h] - 1 if end == 0 else hhi[b, h] + 1
            tmp[0] = c
            _place(b, p, np.int64(h), tmp, np.int64(1), n, np.int64(hsuit[b, h]), g, zone, hsuit,
                   hown, hlo, hhi, hcard, cherd, params)
            pp[b, p, GROWS] += 1
            et, x1, x2 = E_GROW, c, h
        else:
            e = a - A_SWAP0
            c = 60 + e
            h = cherd[b, c]
            real = _hand_card(b, p, np.int64(hsuit[b, h]), e, zone)
            hcard[b, h, e] = real
            zone[b, real] = Z_HERD
            cherd[b, real] = h
            zone[b, c] = z
            _seen_into(b, p, c, poss)
            cherd[b, c] = -1
            g[b, MUST] |= 1 << e
            pp[b, p, SWAPS] += 1
            et, x1, x2, x3 = E_SWAP, real, c, h
    elif ph == K_PASS:
        g[b, PCARD] = a - A_CARD0
        g[b, PHASE] = K_RECV
    elif ph == K_RECV:
        q = (p + a - A_RECV0 + 1) % params[P_PLAYERS]
        zone[b, g[b, PCARD]] = Z_HAND0 + q
        _passed(b, p, q, g[b, PCARD], poss)
        et, x1, x2 = E_PASS, g[b, PCARD], q
        g[b, PHASE] = -2
    if et >= 0:
        log_event(ev, g, NEV, b, et, p, x1, x2, x3, x4)


@njit(cache=True, inline="always", _nrt=False)
def apply_action(b, a, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard, cherd, hc,
                 tmp, legal, rs, ev, epts, apts, params, poss, dr):
    """Game b's player to move takes action a; the game runs on to its next decision, whose
    mover (g[b, CUR], -1 once it is over) and legal actions (legal[b]) it writes. The one copy
    of the rules that the batch ``_step`` and the compiled twins' whole-game kernel
    (strategies/_herds_compiled.py) both call."""
    _apply(b, a, g, pp, zone, deck, hsuit, hown, hlo, hhi, hcard, cherd, hc, tmp, params, ev,
           poss)
    for x in range(legal.shape[1]):
        legal[b, x] = False
    _advance_games(b, tmp, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard, cherd, hc,
                   tmp, legal, rs, ev, epts, apts, params, poss, dr)


@njit(cache=True, _nrt=False)
def _step(actions, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard, cherd, hc, tmp,
          legal, rs, ev, epts, apts, params, poss, dr):
    for b in range(g.shape[0]):
        if g[b, PHASE] == OVER:
            continue
        apply_action(b, actions[b], g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard,
                     cherd, hc, tmp, legal, rs, ev, epts, apts, params, poss, dr)


@njit(cache=True, _nrt=False)
def _init(g, deck, zone, cherd, rs, ev, params, poss):
    for b in range(g.shape[0]):
        g[b, DEALER] = params[P_PLAYERS] - 1
        _start_hand(b, g, deck, zone, cherd, rs, ev, params, poss)
        g[b, PHASE] = -1


# ---- Worlds for search ------------------------------------------------------------------------

WORLD_TRIES = 1000  # rejection tries for the hands of a world (then the fallbacks; see the notes)
GREEDY_TRIES = 100  # tries of the first fallback


@njit(cache=True, inline="always", _nrt=False)
def _bits(m):
    n = 0
    while m:
        n += m & 1
        m >>= 1
    return n


@njit(cache=True, _nrt=False)
def _worlds(seat, g, zone, deck, poss, hc, rs, params, fallback, gen, grp, slot_hand, nfree,
            cap, tries):
    """Row i of the cloned worlds, for seat[i]: the cards it cannot see are dealt again.

    Hidden places: the deck and the other hands. A card the seat knows the place of (taken
    openly, or passed by it, poss = one bit) stays. The others are gathered in card order: the
    generic ones (poss 0: the deck or any other hand) and those known to lie in one of some hands
    (poss several bits). Generic cards are shuffled; the first (free hand slots - constrained
    ones) join the constrained cards as the hands' cards, the rest is the deck in shuffled order.
    The hands' cards are then shuffled into the free hand slots until every constrained card
    lies in a hand it may be in (each try as likely as any other arrangement: rejection gives
    the uniform world among the consistent ones). After ``tries`` refused tries, fallback 1:
    the constrained cards placed one by one (those with the fewest possible hands first), each in
    a hand it may be in drawn in proportion to the room left; fallback 2 (if that fails too):
    they stay where they really are."""
    nplayers = params[P_PLAYERS]
    for i in range(g.shape[0]):
        s = seat[i]
        for q in range(nplayers):
            nfree[i, q] = 0
        ng = 0
        nk = 0
        for c in range(NCARDS):
            z = zone[i, c]
            if z == Z_DECK:
                gen[i, ng] = c
                ng += 1
            elif z >= Z_HAND0 and z != Z_HAND0 + s:
                m = poss[i, s, c]
                if m != 0 and (m & (m - 1)) == 0:
                    continue  # its place is known: it stays
                nfree[i, z - Z_HAND0] += 1
                if m == 0:
                    gen[i, ng] = c
                    ng += 1
                else:
                    grp[i, nk] = c
                    nk += 1
        nh = 0
        for q in range(nplayers):
            for j in range(nfree[i, q]):
                slot_hand[i, nh] = q
                nh += 1
        shuffle_row(gen[i], ng, rs, i)
        for j in range(nh - nk):
            grp[i, nk + j] = gen[i, j]
        pos = g[i, POS]
        for j in range(nh - nk, ng):
            c = gen[i, j]
            deck[i, pos] = c
            zone[i, c] = Z_DECK
            pos += 1
        for j in range(g[i, POS]):
            deck[i, j] = -1  # the cards drawn so far, in the real deal's order: never read again
        ok = False
        good = False
        for t in range(tries):
            shuffle_row(grp[i], nh, rs, i)
            ok = True
            for j in range(nh):
                m = poss[i, s, grp[i, j]]
                if m != 0 and (m >> slot_hand[i, j]) & 1 == 0:
                    ok = False
                    break
            if ok:
                break
        if ok:
            for j in range(nh):
                zone[i, grp[i, j]] = Z_HAND0 + slot_hand[i, j]
        else:
            good = False
            for t in range(GREEDY_TRIES):
                for q in range(nplayers):
                    cap[i, q] = nfree[i, q]
                shuffle_row(grp[i], nh, rs, i)
                good = True
                for pc in range(2, nplayers):
                    for j in range(nh):
                        c = grp[i, j]
                        m = poss[i, s, c]
                        if m == 0 or _bits(m) != pc:
                            continue
                        room = 0
                        for q in range(nplayers):
                            if (m >> q) & 1:
                                room += cap[i, q]
                        if room == 0:
                            good = False
                            break
                        r = below(rs, i, room)
                        for q in range(nplayers):
                            if (m >> q) & 1:
                                if r < cap[i, q]:
                                    slot_hand[i, c] = q
                                    cap[i, q] -= 1
                                    break
                                r -= cap[i, q]
                    if not good:
                        break
                if good:
                    break
            if good:
                fallback[i] = 1
                q = 0
                for j in range(nh):
                    c = grp[i, j]
                    if poss[i, s, c] != 0:
                        zone[i, c] = Z_HAND0 + slot_hand[i, c]
                    else:
                        while cap[i, q] == 0:
                            q += 1
                        zone[i, c] = Z_HAND0 + q
                        cap[i, q] -= 1
        if not ok and not good:
            # fallback 2: the constrained cards stay where they really are, the generic ones
            # fill the other free hand slots (sound, but it shows which hand they are in)
            fallback[i] = 2
            for j in range(nh):
                c = grp[i, j]
                if poss[i, s, c] != 0:
                    nfree[i, zone[i, c] - Z_HAND0] -= 1
            q = 0
            for j in range(nh):
                c = grp[i, j]
                if poss[i, s, c] == 0:
                    while nfree[i, q] == 0:
                        q += 1
                    zone[i, c] = Z_HAND0 + q
                    nfree[i, q] -= 1
        # scratch and the other seats' memories are not part of the world
        for x in range(6):
            for y in range(6):
                hc[i, x, y] = 0
        for r in range(nplayers):
            if r != s:
                for c in range(NCARDS):
                    poss[i, r, c] = 0
        if g[i, PHASE] != K_RECV:
            g[i, PCARD] = -1


# ---- What the player to move sees ----------------------------------------------------------

@njit(cache=True, _nrt=False)
def _observe(games, g, pp, team_total, deck, zone, hsuit, hown, hlo, hhi, hcard, params,
             seat, kind, hand, grass, give, hsizes, totals, herd_side, herd_suit, herd_lo, herd_hi,
             herd_cards, small, table, want):
    nplayers = params[P_PLAYERS]
    for i in range(games.shape[0]):
        b = games[i]
        p = g[b, CUR]
        seat[i] = p
        kind[i] = g[b, PHASE]
        if p < 0:
            continue
        team = _team(p, params) if p >= 0 else 0
        for c in range(NCARDS):
            zc = zone[b, c]
            hand[i, c] = zc == Z_HAND0 + p
            grass[i, c] = zc == Z_GRASS
            give[i, c] = zc == Z_GIVE
            if zc >= Z_HAND0:
                q = zc - Z_HAND0
                hsizes[i, (q - p + nplayers) % nplayers] += 1
                if q == p:
                    table[i, (c // 12 if c < 60 else EXPLORER) * 6 + c % 6] += 1
        for o in range(nplayers):
            q = (p + o) % nplayers
            totals[i, o] = team_total[b, _team(q, params)]
        for h in range(MAXH):
            if h < g[b, HN]:
                side = 1 if hown[b, h] == team else 0
                herd_side[i, h] = side
                herd_suit[i, h] = hsuit[b, h]
                if hlo[b, h] > 0:
                    want[i, side, hsuit[b, h] * 6 + hlo[b, h] - 1] = True
                if hhi[b, h] < 5:
                    want[i, side, hsuit[b, h] * 6 + hhi[b, h] + 1] = True
                herd_lo[i, h] = hlo[b, h]
                herd_hi[i, h] = hhi[b, h]
                for n in range(6):
                    herd_cards[i, h, n] = hcard[b, h, n]
            else:
                herd_side[i, h] = -1
                herd_suit[i, h] = -1
                herd_lo[i, h] = -1
                herd_hi[i, h] = -1
                for n in range(6):
                    herd_cards[i, h, n] = -1
        small[i, 0] = NCARDS - g[b, POS]  # deck left
        small[i, 1] = g[b, MUST]
        small[i, 2] = g[b, GSUM]
        small[i, 3] = g[b, NEED]
        small[i, 4] = g[b, PCARD] if g[b, PHASE] == K_RECV else -1
        small[i, 5] = g[b, HANDNO]
        small[i, 6] = 0
        for o in range(1, nplayers):
            if params[P_NTEAMS] < nplayers and _team((p + o) % nplayers, params) == team:
                small[i, 6] = o


@dataclass
class Obs(Observation):
    """What the player to move knows. Rotated per-seat arrays: index 0 is the player, o the
    player o seats to the left. Herds are public; ``herd_side`` is 1 for the player's side
    (own or teammate's), 0 for an opponent's, -1 for an unused slot."""

    game: np.ndarray
    seat: np.ndarray
    kind: np.ndarray
    hand: np.ndarray        # bool[n, 66]
    grass: np.ndarray       # bool[n, 66]
    give: np.ndarray        # bool[n, 66]: cards set out in a trade being made
    hand_sizes: np.ndarray  # int16[n, P]
    totals: np.ndarray      # int32[n, P]: the score of each seat's side
    herd_side: np.ndarray   # int8[n, MAXH]
    herd_suit: np.ndarray   # int8[n, MAXH]
    herd_lo: np.ndarray     # int8[n, MAXH] (number - 1)
    herd_hi: np.ndarray     # int8[n, MAXH] the herd's highest number - 1
    herd_cards: np.ndarray  # int16[n, MAXH, 6]
    deck_left: np.ndarray   # int16[n] cards left in the face-down deck
    must: np.ndarray        # bitmask of explorers that must be played this turn
    give_sum: np.ndarray    # total of the cards set out so far in a trade being made
    need: np.ndarray        # value still to take in a trade
    pass_card: np.ndarray   # the card being passed (kind K_RECV), else -1
    hand_no: np.ndarray     # int16[n] hands finished so far (the deal passes left each hand)
    partner: np.ndarray     # int32[n]: the partner's offset (1..3) at four players in teams, else 0
    hand_table: np.ndarray  # int8[n, 36]: the hand by suit * 6 + number - 1
    want: np.ndarray        # bool[n, 2, 36]: (suit, number) growing a herd of an opponent (0)
                            # or of the player's side (1), as a real card of that suit
    n_players: int          # players at the table
    teams: bool             # four players in two teams with one score (``partner`` says who)
    target_score: int

    shared = ()

    # the actions by meaning (numbers as A_DECK ... A_RECV0 lay them out)
    @action_helper
    def deck_action(self) -> int:
        """Action: draw the deck's top card (step two a)."""
        return A_DECK

    @action_helper
    def card_action(self, card) -> np.ndarray:
        """Action: the card ``card`` (an index of ``hand`` / ``grass``): take it from the
        grassland, give it in a trade, or pass it, as the decision asks."""
        return A_CARD0 + np.asarray(card, np.int64)

    @action_helper
    def trade_action(self) -> int:
        """Action: trade (step two b)."""
        return A_TRADE

    @action_helper
    def trade_done_action(self) -> int:
        """Action: the cards set out so far are the trade."""
        return A_GIVE_DONE

    @action_helper
    def new_herd_action(self, suit, low) -> np.ndarray:
        """Action: lay a new herd of ``suit`` (0-5, the explorer 5) numbered ``low`` to
        ``low + 2`` (``low`` 1-4)."""
        return A_NEW0 + np.asarray(suit, np.int64) * 4 + np.asarray(low, np.int64) - 1

    @action_helper
    def grow_action(self, herd, high) -> np.ndarray:
        """Action: grow herd slot ``herd`` (an index of ``herd_suit``) at its high end
        (``high`` true) or its low end."""
        return A_GROW0 + np.asarray(herd, np.int64) * 2 + np.asarray(high, np.int64)

    @action_helper
    def swap_action(self, explorer) -> np.ndarray:
        """Action: swap the real card for explorer ``explorer`` (1-6) standing in a herd."""
        return A_SWAP0 + np.asarray(explorer, np.int64) - 1

    @action_helper
    def done_action(self) -> int:
        """Action: done with herds (step three is over)."""
        return A_DONE

    @action_helper
    def pass_action(self, offset) -> np.ndarray:
        """Action: pass the card to the player ``offset`` seats to the left."""
        return A_RECV0 + np.asarray(offset, np.int64) - 1


class Herds(Game):
    id = "herds"
    measures = ("hands", "full_herd_ends", "last_hand_decided", "target_overshoot")
    name = "Herds"
    min_players = 2
    max_players = 4
    Rules = Rules
    score_name = "points"
    constant_fields = ("params", "epts", "apts")
    decision_kinds = ("step two: draw or trade", "trade: give", "trade: take",
                      "step three: herds", "step four: card to pass", "step four: receiver")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return A_RECV0 + n_players - 1

    def card_name(self, c: int) -> str:
        return f"{c % 6 + 1}-{ANIMALS[SUIT[c]].capitalize()}"

    def card(self, animal: str, number: int, copy: int = 0) -> int:
        s = ANIMALS.index(animal)
        if s == EXPLORER:
            return 60 + number - 1
        return s * 12 + copy * 6 + number - 1

    def action_name(self, rules: Rules, n_players: int, a: int) -> str:
        if a == A_DECK:
            return "draw the deck's top card"
        if A_CARD0 <= a < A_TRADE:
            return f"card {self.card_name(a - A_CARD0)}"
        if a == A_TRADE:
            return "trade"
        if a == A_GIVE_DONE:
            return "trade these cards"
        if A_NEW0 <= a < A_GROW0:
            t, lo = divmod(a - A_NEW0, 4)
            return f"new {ANIMALS[t]} herd {lo + 1}-{lo + 3}"
        if A_GROW0 <= a < A_SWAP0:
            h, end = divmod(a - A_GROW0, 2)
            return f"grow herd {h} at its {'low' if end == 0 else 'high'} end"
        if A_SWAP0 <= a < A_DONE:
            return f"swap the real card for explorer {a - A_SWAP0 + 1}"
        if a == A_DONE:
            return "done with herds"
        return f"pass to the player {a - A_RECV0 + 1} to the left"

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        if n_players * rules.hand_sizes[n_players - 2] + rules.grassland >= NCARDS:
            raise RulesError("hand_sizes", "the deal leaves no draw pile")

    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        B = len(keys)
        teams = rules.teams_at_four and n_players == 4
        # 'playable' keeps the 'grows' test for what it allows and adds the new-herd case
        flags = (F_MUSTGROW if rules.trade_explorer != "any" else 0) | \
            (F_PLAYABLE if rules.trade_explorer == "playable" else 0) | \
            (F_FLIPENDS if rules.flip_last_ends else 0) | \
            (F_SWAPANY if rules.swap_in_opponents_herds else 0) | \
            (F_GRASSMUST if not rules.grass_draw_explorer_kept else 0) | \
            (F_BESIDE if rules.partners == "beside" else 0) | \
            (F_PLAYON if rules.end_tie == "play_on" else 0)
        params = np.array([n_players, rules.hand_sizes[n_players - 2], rules.grassland,
                           rules.target_score, rules.max_hands, 2 if teams else n_players, flags],
                          np.int64)
        epts = np.zeros(7, np.int64)
        epts[3:] = rules.explorer_herd_points
        apts = np.zeros(7, np.int64)
        apts[1:] = rules.animal_herd_points
        st = State(
            n_players=n_players, rules=rules, params=params, epts=epts, apts=apts,
            g=np.zeros((B, NG), np.int32), pp=np.zeros((B, n_players, NPP), np.int32),
            team_total=np.zeros((B, n_players), np.int32),
            deck=np.zeros((B, NCARDS), np.int16), zone=np.zeros((B, NCARDS), np.int8),
            hsuit=np.zeros((B, MAXH), np.int8), hown=np.zeros((B, MAXH), np.int8),
            hlo=np.zeros((B, MAXH), np.int8), hhi=np.zeros((B, MAXH), np.int8),
            hcard=np.full((B, MAXH, 6), -1, np.int16), cherd=np.full((B, NCARDS), -1, np.int16),
            legal_=np.zeros((B, self.n_actions(rules, n_players)), np.bool_),
            hc=np.zeros((B, 6, 6), np.int32),
            ev=np.zeros((B, 30000 if log else 0, 6), np.int32),
            rs=np.array(keys, dtype=np.uint64),
            poss=np.zeros((B, n_players, NCARDS), np.int8),
            dr=drama_new(B, 2 if teams else n_players), fallback=np.zeros(B, np.int8))
        _init(st.g, st.deck, st.zone, st.cherd, st.rs, st.ev, st.params, st.poss)
        self._advance(st, np.arange(B))
        return st

    def _advance(self, st: State, games: np.ndarray) -> None:
        st.legal_ = np.zeros_like(st.legal_)
        _advance_games(np.int64(-1), np.ascontiguousarray(games, np.int64), st.g, st.pp,
                       st.team_total, st.deck, st.zone, st.hsuit, st.hown, st.hlo, st.hhi,
                       st.hcard, st.cherd, st.hc, np.zeros(3, np.int64), st.legal_, st.rs, st.ev,
                       st.epts, st.apts, st.params, st.poss, st.dr)

    def to_move(self, state: State) -> np.ndarray:
        return np.where(state.g[:, PHASE] == OVER, -1, state.g[:, CUR]).astype(np.int64)

    def legal(self, state: State) -> np.ndarray:
        return state.legal_

    def step(self, state: State, actions: np.ndarray) -> None:
        st = state
        st.legal_ = np.zeros_like(st.legal_)
        _step(np.asarray(actions, np.int64), st.g, st.pp, st.team_total, st.deck, st.zone,
              st.hsuit, st.hown, st.hlo, st.hhi, st.hcard, st.cherd, st.hc, np.zeros(3, np.int64),
              st.legal_, st.rs, st.ev, st.epts, st.apts, st.params, st.poss, st.dr)

    def observe(self, state: State, games: np.ndarray) -> Obs:
        st = state
        games = np.asarray(games, np.int64)
        n, P = len(games), st.n_players
        seat = np.zeros(n, np.int64)
        kind = np.zeros(n, np.int64)
        hand = np.zeros((n, NCARDS), np.bool_)
        grass = np.zeros((n, NCARDS), np.bool_)
        give = np.zeros((n, NCARDS), np.bool_)
        hsizes = np.zeros((n, P), np.int16)
        totals = np.zeros((n, P), np.int32)
        hs = np.zeros((n, MAXH), np.int8)
        hsu = np.zeros((n, MAXH), np.int8)
        hl = np.zeros((n, MAXH), np.int8)
        hh = np.zeros((n, MAXH), np.int8)
        hcd = np.zeros((n, MAXH, 6), np.int16)
        small = np.zeros((n, 7), np.int32)
        table = np.zeros((n, 36), np.int8)
        want = np.zeros((n, 2, 36), np.bool_)
        _observe(games, st.g, st.pp, st.team_total, st.deck, st.zone, st.hsuit, st.hown, st.hlo,
                 st.hhi, st.hcard, st.params, seat, kind, hand, grass, give, hsizes, totals, hs,
                 hsu, hl, hh, hcd, small, table, want)
        return Obs(games.copy(), seat, kind, hand, grass, give, hsizes, totals, hs, hsu, hl, hh,
                   hcd, small[:, 0], small[:, 1], small[:, 2], small[:, 3], small[:, 4],
                   small[:, 5], small[:, 6], table, want, n_players=P,
                   teams=bool(st.params[P_NTEAMS] < P), target_score=st.rules.target_score)

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray, tries: int = WORLD_TRIES) -> State:
        """Worlds for search (docs/rules/herds.md, "Worlds for search"): the other hands and the
        deck's order dealt again for ``seat[i]``, keeping every card it knows the place of and
        every card it knows to be in one of some hands; from the world's own stream keys[i].
        ``tries``: rejection tries before the fallbacks (the world's ``fallback`` row: 0 none,
        1 the constrained cards placed one by one, 2 left in their real hands)."""
        # (a world keeps no event log: search never describes it, and copying one is costly)
        nolog = dataclasses.replace(state, ev=np.zeros((len(state.rs), 0, 6), np.int32))
        w = self.clone(nolog, games)
        n = len(w.rs)
        w.rs = np.array(keys, dtype=np.uint64).copy()
        w.fallback = np.zeros(n, np.int8)
        _worlds(np.asarray(seat, np.int64), w.g, w.zone, w.deck, w.poss, w.hc, w.rs, w.params,
                w.fallback, np.zeros((n, NCARDS), np.int16), np.zeros((n, NCARDS), np.int16),
                np.zeros((n, NCARDS), np.int8), np.zeros((n, w.n_players), np.int32),
                np.zeros((n, w.n_players), np.int32), int(tries))
        return w

    def teams(self, rules: Rules, n_players: int) -> np.ndarray | None:
        """Partners at four players (``teams_at_four``): 0+2 and 1+3, or 0+1 and 2+3 with
        ``partners: beside``; None otherwise (every player for themselves)."""
        if not (rules.teams_at_four and n_players == 4):
            return None
        return np.array([p // 2 if rules.partners == "beside" else p % 2 for p in range(4)])

    def sides(self, state: State) -> np.ndarray:
        """The side (team, or the seat itself) of each seat."""
        P = state.n_players
        if state.params[P_NTEAMS] == P:
            return np.arange(P)
        beside = bool(state.params[P_FLAGS] & F_BESIDE)
        return np.array([p // 2 if beside else p % 2 for p in range(P)])

    def outcome(self, state: State) -> Outcome:
        st = state
        P = st.n_players
        teams = self.sides(st)
        score = st.team_total[:, teams].astype(np.float64)
        rank, win = ranks_and_wins(score)
        sides = st.team_total[:, :int(st.params[P_NTEAMS])].astype(np.float64)
        drama = drama_stats(st.dr, sides, ranks_and_wins(sides)[1], False)
        return Outcome(score=score, rank=rank, win=win, turns=st.g[:, TURNS].copy(), stats={
            "hands": st.g[:, HANDNO].copy(),
            "full_herd_ends": st.g[:, FULLENDS].copy(),
            "herds_made": st.pp[:, :, HERDS_MADE].copy(),
            "grows": st.pp[:, :, GROWS].copy(),
            "trades": st.pp[:, :, TRADES].copy(),
            "swaps": st.pp[:, :, SWAPS].copy(),
            "capped": ((st.g[:, HANDNO] >= st.rules.max_hands)
                       & (st.team_total.max(axis=1) < st.rules.target_score)).astype(np.int8),
            # the designer's measures (docs/rules/herds.md, "Measures"): the last hand (its herds
            # stay on the table once the game is over) changed who wins; the top total past 60
            "last_hand_decided": winners_changed(score - self._table_points(st)[:, teams], score),
            "target_overshoot": np.maximum(st.team_total.max(axis=1) - st.rules.target_score,
                                           0).astype(np.int32),
            **drama,
        })

    def _table_points(self, state: State) -> np.ndarray:
        """int[B, T]: what each side's herds on the table score by the printed tables (an
        explorer herd by its size, an animal herd by its animal cards): the hand being played,
        or the last hand once the game is over."""
        st = state
        nt = int(st.params[P_NTEAMS])
        lo = st.hlo.astype(np.int64)[:, :, None]
        hi = st.hhi.astype(np.int64)[:, :, None]
        n = np.arange(6)[None, None, :]
        span = (n >= lo) & (n <= hi)
        animals = (span & (st.hcard >= 0) & (st.hcard < 60)).sum(axis=2)
        size = np.clip(hi[:, :, 0] - lo[:, :, 0] + 1, 0, len(st.epts) - 1)
        pts = np.where(st.hsuit == EXPLORER, st.epts[size], st.apts[animals])
        on_table = np.arange(MAXH)[None, :] < st.g[:, HN][:, None]
        return np.stack([np.where(on_table & (st.hown == t), pts, 0).sum(axis=1)
                         for t in range(nt)], axis=1)

    def running_score(self, state: State) -> np.ndarray:
        """Each seat's side's total of the finished hands plus, in a hand being played, what
        the side's herds on the table would score if the hand were scored now (the printed
        tables: an explorer herd by its size, an animal herd by its animal cards). Cards in
        hand score nothing, as at the end of a hand."""
        st = state
        nt = int(st.params[P_NTEAMS])
        teams = self.sides(st)
        # once the game is over the last hand's herds are in the totals already
        side = self._table_points(st) * (st.g[:, PHASE] != OVER)[:, None]
        return (st.team_total[:, :nt] + side)[:, teams].astype(np.float64)

    # -- positions for tests
    def zones(self, state: State, b: int) -> dict[str, list[int]]:
        st = state
        z = {"deck": st.deck[b, st.g[b, POS]:].tolist(),
             "grass": [c for c in range(NCARDS) if st.zone[b, c] == Z_GRASS],
             "give": [c for c in range(NCARDS) if st.zone[b, c] == Z_GIVE],
             "herds": [c for c in range(NCARDS) if st.zone[b, c] == Z_HERD],
             "aside": [c for c in range(NCARDS) if st.zone[b, c] == Z_ASIDE]}
        for p in range(st.n_players):
            z[f"hand{p}"] = [c for c in range(NCARDS) if st.zone[b, c] == Z_HAND0 + p]
        return z

    def herds(self, state: State, b: int) -> list[tuple[int, int, list[int]]]:
        """(side, suit, cards from low to high) of every herd on the table."""
        st = state
        out = []
        for h in range(int(st.g[b, HN])):
            cards = [int(st.hcard[b, h, n]) for n in range(int(st.hlo[b, h]), int(st.hhi[b, h]) + 1)]
            out.append((int(st.hown[b, h]), int(st.hsuit[b, h]), cards))
        return out

    def position(self, state: State, b: int, cur: int, hands: dict[int, list[int]],
                 grass: list[int], herds: list[tuple[int, int, list[int]]] = (),
                 deck_top: list[int] = (), deck_left: int | None = None,
                 step_one_done: bool = True) -> None:
        """Set game b to the start of ``cur``'s step two (step one already drawn) with these
        hands, grassland, herds (side, suit, cards low to high at consecutive numbers) and the
        draw pile starting with ``deck_top`` (the other cards follow; ``deck_left`` cuts it)."""
        st = state
        used = [c for cs in hands.values() for c in cs] + list(grass) + \
            [c for _, _, cs in herds for c in cs] + list(deck_top)
        if len(set(used)) != len(used):
            raise ValueError("a card is placed twice")
        rest = [c for c in range(NCARDS) if c not in set(used)]
        pile = list(deck_top) + rest
        if deck_left is not None:
            pile = pile[:deck_left]
        st.zone[b, :] = Z_ASIDE  # cards cut from the pile are set aside
        st.cherd[b, :] = -1
        st.poss[b] = 0
        st.dr[b] = drama_new(1, int(st.params[P_NTEAMS]))[0]
        for p, cs in hands.items():
            for c in cs:
                st.zone[b, c] = Z_HAND0 + p
        for c in grass:
            st.zone[b, c] = Z_GRASS
        st.deck[b, :] = 0
        st.deck[b, NCARDS - len(pile):] = pile
        for c in pile:
            st.zone[b, c] = Z_DECK
        st.g[b, POS] = NCARDS - len(pile)
        st.g[b, HN] = 0
        st.g[b, MUST] = 0
        st.g[b, CUR] = cur
        for side, suit, cs in herds:
            h = int(st.g[b, HN])
            lo = min(c % 6 for c in cs)
            tmp = np.array(cs + [0] * (3 - len(cs)) if len(cs) < 3 else cs, np.int64)
            st.g[b, HN] = h + 1
            st.hsuit[b, h] = suit
            st.hown[b, h] = side
            st.hlo[b, h] = lo
            st.hhi[b, h] = lo + len(cs) - 1
            st.hcard[b, h, :] = -1
            for i, c in enumerate(tmp[:len(cs)]):
                st.hcard[b, h, lo + i] = c
                st.zone[b, c] = Z_HERD
                st.cherd[b, c] = h
        st.g[b, PHASE] = K_STEP2 if step_one_done else -1
        st.legal_[b] = False
        _advance_games(np.int64(b), np.zeros(1, np.int64), st.g, st.pp, st.team_total, st.deck,
                       st.zone, st.hsuit, st.hown, st.hlo, st.hhi, st.hcard, st.cherd, st.hc,
                       np.zeros(3, np.int64), st.legal_, st.rs, st.ev, st.epts, st.apts,
                       st.params, st.poss, st.dr)

    def describe(self, state: State, i: int) -> str:
        st = state
        if st.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        n = int(st.g[i, NEV])
        cn = self.card_name
        out = []
        for t, seat, a, b_, c, d in st.ev[i, :n]:
            if t == E_HAND:
                out.append(f"-- Hand {a}: P{seat} deals --")
            elif t == E_DRAW:
                out.append(f"P{seat} draws a card from the deck")
            elif t == E_TAKE:
                out.append(f"P{seat} takes {cn(a)} from the grassland")
            elif t == E_TRADE_GIVE:
                out.append(f"P{seat} trades {cn(a)} into the grassland")
            elif t == E_TRADE_TAKE:
                out.append(f"P{seat} takes {cn(a)} in the trade")
            elif t == E_NEW:
                out.append(f"P{seat} lays a {ANIMALS[d]} herd: {cn(a)}, {cn(b_)}, {cn(c)}")
            elif t == E_GROW:
                out.append(f"P{seat} grows herd {b_} with {cn(a)}")
            elif t == E_SWAP:
                out.append(f"P{seat} puts {cn(a)} in herd {c} and takes back {cn(b_)}")
            elif t == E_PASS:
                out.append(f"P{seat} passes a card to P{b_}")
            elif t == E_FLIP:
                out.append(f"{cn(a)} is flipped into the grassland")
            elif t == E_RETURN:
                out.append(f"P{seat} cannot play {cn(a)}: back to the grassland")
            elif t == E_SCORE:
                out.append(f"   side {seat} scores {a}, total {b_}")
            elif t == E_END:
                out.append(f"== Game over after {a} hand(s) ==")
        if n >= st.ev.shape[1]:
            out.append("(log full)")
        return "\n".join(out)


GAME = Herds()

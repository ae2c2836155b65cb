"""Jungle Thrills (Racey Helps), 2-6 players: the 44-card game, first and second version.

The module follows the rulebook (../shared/rules/jungle-thrills.txt) in its order: the pack, the
deal, method of play (turning up, pairs, sets of three held), the Hunter card, dealing again, the
asking phase, the winner, the match of several games, then the second version (no Hunters, pairs
face down, going hunting). Every reading of a gap is in docs/rules/jungle_thrills.md.

Cards are small integers: animal card ``c < n_animal_cards`` shows animal ``c // k`` (k cards per
animal) and ``animal_values[c % k]`` animals; the Hunter cards come after them.

Memory is the skill of this game, so the observation carries everything a perfect memory could
hold of the public history (where every card turned up lies, every pair's and set's animal and
holder, every refused demand): strategies decide how much of it they keep (their ``recall``).
Only the order and the owners of the face-down stacks are hidden.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..engine.chance import shuffle_row, uniform
from ..engine.drama import drama_new, drama_stats, drama_update
from ..engine.events import log_event
from ..engine.protocol import action_helper
from ..engine.protocol import (Game, Observation, Outcome, RulesError, ranks_and_wins, read_only,
                               rule)

ANIMAL_NAMES = ("lion", "tiger", "elephant", "monkey", "hippo", "giraffe", "zebra")
ASKING_ENDS = ("no_set_held", "no_demand", "sole_holder")


# ---- The pack and every printed number ------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    version: int = rule(1, "1: the first version (Hunter cards, held sets, asking); "
                           "2: the second version (no Hunters, pairs face down, going hunting)",
                        search=[1, 2])
    animals: int = rule(7, "number of different animals", search=range(3, 11))
    animal_values: tuple[int, ...] = rule(
        (1, 1, 2, 2, 3, 3), "the cards of one animal, by the number of animals pictured")
    hunter_cards: int = rule(2, "Hunter cards in the pack (first version; the second discards them)",
                             search=range(0, 5))
    held_count_at_end: bool = rule(
        False, "sets still 'held' when a game ends count for their holder (the text is silent)",
        search=[False, True])
    asking_ends: str = rule(
        "no_set_held", "when the asking phase (first version) ends: 'no_set_held': when every "
                       "held set is won (note 2: a player holding every set cannot ask, his turn "
                       "passes and the others go on asking him); 'no_demand': as soon as the "
                       "player who must ask (the next in turn, or a refused player) holds every "
                       "held set, so that no demand can succeed; 'sole_holder': note 2 read as an "
                       "end, as soon as one player holds every set not won outright",
        search=["no_set_held", "no_demand", "sole_holder"])
    set_handed_over: str = rule(
        "fewest", "first version: the asked player holds two sets of the named animal (the "
                  "text: 'that set must be handed over'): 'fewest': his choice, the set showing "
                  "fewer animals (worth less to the asker; equal: the first made); 'first': the "
                  "first made", search=["fewest", "first"])
    next_turn: str = rule(
        "rotation", "after a demand in the asking phase the turn goes to 'rotation': the player "
                    "after the one whose turn it was; 'asker': the player after the last asker",
        search=["rotation", "asker"])
    may_decline: bool = rule(
        False, "a Hunter card's 'right to demand' and a refused player's 'right to ask anyone "
               "else' may be declined (default: 'This continues until whoever is asking has made "
               "a correct request': each must ask); the asking phase's turn must ask either way",
        search=[False, True])
    hunt_first: bool = rule(
        True, "second version: a card that could also pair with another player's exposed card "
              "may go hunting first (if it does not, or hunts wrongly, it then pairs); false: "
              "the pair is made at once and the card cannot go hunting", search=[True, False])
    missed_calls: float = rule(
        0.0, "chance that the table misses a pair or a set that a card could make (0: 'any "
             "player calls' read as automatic, every pair and set is made at once)",
        search=(0.0, 0.5))
    rounds: int | None = rule(1, "games in a match (the winner has most points after them); "
                                 "null: play until someone reaches target", search=[1, 2, 3, 5])
    target: int = rule(100, "with rounds null: the match ends after the game in which someone "
                            "reaches this many points", search=range(50, 151, 25))
    max_turns: int = rule(3000, "safety stop: a game ends after this many turns (cards turned "
                                "up and demands made), counted in the statistic 'capped'")
    max_rounds: int = rule(100, "safety stop: a match ends after this many games")

    def validate(self) -> None:
        if self.version not in (1, 2):
            raise RulesError("version", f"must be 1 or 2, not {self.version}")
        if not 1 <= self.animals <= 15:
            raise RulesError("animals", "must be from 1 to 15")
        k = len(self.animal_values)
        if k == 0 or k % 3 != 0 or k > 9:
            raise RulesError("animal_values", "needs 3, 6 or 9 cards per animal (sets are of 3)")
        if min(self.animal_values) < 0 or max(self.animal_values) > 1000:
            raise RulesError("animal_values", "numbers of animals must be from 0 to 1000")
        if not 0 <= self.hunter_cards <= 8:
            raise RulesError("hunter_cards", "must be from 0 to 8")
        if self.asking_ends not in ASKING_ENDS:
            raise RulesError("asking_ends", f"must be one of {', '.join(ASKING_ENDS)}, "
                                            f"not {self.asking_ends!r}")
        if self.set_handed_over not in ("fewest", "first"):
            raise RulesError("set_handed_over",
                             f"must be 'fewest' or 'first', not {self.set_handed_over!r}")
        if self.next_turn not in ("rotation", "asker"):
            raise RulesError("next_turn", f"must be 'rotation' or 'asker', not {self.next_turn!r}")
        if not 0.0 <= self.missed_calls < 1.0:
            raise RulesError("missed_calls", "must be at least 0 and below 1")
        if self.rounds is not None and self.rounds < 1:
            raise RulesError("rounds", "must be at least 1, or null to play to target")
        if self.target < 1:
            raise RulesError("target", "must be at least 1")
        if self.max_turns < 1:
            raise RulesError("max_turns", "must be at least 1")
        if self.max_rounds < 1:
            raise RulesError("max_rounds", "must be at least 1")


# Phases (g[b, PHASE]): RUN is automatic play, DEMAND and HUNT await a decision, ENDING
# scores the game at once (then the next game or OVER)
RUN, DEMAND, HUNT, OVER, ENDING = range(5)
# Stages of a game: turning up cards, or the asking phase once only the Hunters are left
TURNING, ASKING = 0, 1
# Decision kinds (obs.kind)
K_HUNTER, K_REFUSED, K_ASK, K_HUNT = range(4)
# Zones of a card (obs.zone): its face-down stack, a face-up pile, a pair in the centre, a set
# held, a set won outright, set aside (Hunters at the end; the second version's Hunters)
Z_STACK, Z_PILE, Z_PAIR, Z_HELD, Z_WON, Z_ASIDE = range(6)
# Set states
S_NONE, S_HELD, S_WON = range(3)
# Actions. First version: demand the set of animal x from the player o seats to the left,
# (o - 1) * animals + x; with may_decline, (P - 1) * animals declines. Second version: 0 do not go hunting, 1 + j hunt the pair in slot j.
PASS, HUNT0 = 0, 1

# per-game fields g[b, ...]
(CUR, PHASE, STAGE, KIND, ASKER, HOLDER_TURN, CLOCK, GSTART, DEALS, ROUND, NEV, LEFT, NSTACKED,
 CARD, CAPPED, CHAIN) = range(16)
NG = 16
# per-player fields pp[b, p, ...]
(NSTACK, NPILE, LIVE, HELD, WONPTS, TOTAL, BARRED, SETS_MADE, DEMANDS, DEMANDS_WON, HUNTS,
 HUNTS_WON, HELD_END, RUNNING) = range(14)
NPP = 14  # RUNNING: scratch for the running score handed to drama_update

# params vector
(P_PLAYERS, P_CARDS, P_ANIMALS, P_PER, P_NAC, P_VERSION, P_ROUNDS, P_TARGET, P_MAXTURNS,
 P_MAXROUNDS, P_FLAGS, P_MP, P_NS) = range(13)
(F_HELD_COUNT, F_SOLE_ENDS, F_NEXT_ASKER, F_DECLINE, F_HUNT_FIRST, F_NO_DEMAND_ENDS,
 F_GIVE_FEWEST) = 1, 2, 4, 8, 16, 32, 64

# events: ev[b, i] = (type, seat, a, b, c, d)
(E_DEAL, E_TURN, E_PAIR, E_SET, E_HUNTER, E_DEMAND, E_ASIDE, E_HUNT, E_SCORE, E_GAME_END,
 E_MISSED, E_SKIP, E_CAP, E_DECLINE) = range(1, 15)


@dataclass
class State:
    n_players: int
    rules: Rules
    card_animal: np.ndarray  # int8[C], -1 for a Hunter
    card_value: np.ndarray   # int8[C], 0 for a Hunter
    params: np.ndarray       # int64[13]
    fparams: np.ndarray      # float64[1]: missed_calls
    g: np.ndarray            # int32[B, NG]
    pp: np.ndarray           # int32[B, P, NPP]
    stack: np.ndarray        # int8[B, P, C] face-down stacks, bottom first; top = [NSTACK - 1]
    pile: np.ndarray         # int8[B, P, C] face-up piles, bottom first
    pair: np.ndarray         # int8[B, MP, 2] the pairs in the centre (-1: empty slot)
    pair_formed: np.ndarray  # int32[B, MP] clock when the pair was made
    pair_seen: np.ndarray    # int32[B, MP] clock when it was last seen face up
    setc: np.ndarray         # int8[B, NS, 3] the cards of each set (slots in order made)
    set_owner: np.ndarray    # int8[B, NS]
    set_state: np.ndarray    # int8[B, NS] S_NONE, S_HELD, S_WON
    set_since: np.ndarray    # int32[B, NS] clock when its present owner got it
    refused: np.ndarray      # int32[B, P, A] clock when the player refused a demand for the animal
    animal_won: np.ndarray   # int8[B, A] sets of each animal won outright
    zone: np.ndarray         # int8[B, C]
    zone_at: np.ndarray      # int8[B, C] seat (stack, pile, held, won) or pair slot
    tmp: np.ndarray          # int8[B, C] scratch for gathering and shuffling
    ev: np.ndarray           # int32[B, L, 6]
    rs: np.ndarray           # uint64[B]
    dr: np.ndarray           # int32[B, drama_width(P)] how the lead moved (engine.drama)
    mover: np.ndarray = None  # int64[B] (new at every step)
    legal: np.ndarray = None  # bool[B, A] (new at every step)


@njit(cache=True, inline="always", _nrt=False)
def _nxt(p, n):
    q = p + 1
    return 0 if q >= n else q


@njit(cache=True, inline="always", _nrt=False)
def _rand_below_one(rs, b, chance):
    """True with probability ``chance`` (no draw at all when it is 0, so the printed game's
    stream is untouched by the field)."""
    if chance <= 0.0:
        return False
    return uniform(rs, b) < chance


# ---- The deal ---------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _deal(b, n, g, pp, stack, zone, zone_at, tmp, rs, ev, params):
    """Shuffle tmp[b, :n] and deal it round, one at a time, from the left of this deal's dealer
    (deal k's dealer is seat P - 1 + k, so its first player is seat k). Starts the turning."""
    nplayers = params[P_PLAYERS]
    shuffle_row(tmp[b], n, rs, b)
    first = g[b, DEALS] % nplayers
    q = first
    for i in range(n):
        c = tmp[b, i]
        k = pp[b, q, NSTACK]
        stack[b, q, k] = c
        pp[b, q, NSTACK] = k + 1
        zone[b, c] = Z_STACK
        zone_at[b, c] = q
        q = _nxt(q, nplayers)
    g[b, NSTACKED] = n
    g[b, CUR] = first
    log_event(ev, g, NEV, b, E_DEAL, (first + nplayers - 1) % nplayers, n, g[b, DEALS] + 1, 0, 0)
    g[b, DEALS] += 1


@njit(cache=True, _nrt=False)
def _new_game(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
              set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal, params):
    """Every card back in the pack, shuffled and dealt (the deal keeps passing to the left)."""
    nplayers = params[P_PLAYERS]
    ncards = params[P_CARDS]
    for p in range(nplayers):
        pp[b, p, NSTACK] = 0
        pp[b, p, NPILE] = 0
        pp[b, p, LIVE] = -1
        pp[b, p, HELD] = 0
        pp[b, p, WONPTS] = 0
        pp[b, p, BARRED] = 0
        for x in range(refused.shape[2]):
            refused[b, p, x] = -1
    for j in range(pair.shape[1]):
        pair[b, j, 0] = -1
        pair[b, j, 1] = -1
        pair_formed[b, j] = -1
        pair_seen[b, j] = -1
    for s in range(setc.shape[1]):
        set_state[b, s] = S_NONE
        set_owner[b, s] = -1
        set_since[b, s] = -1
        for k in range(3):
            setc[b, s, k] = -1
    for x in range(animal_won.shape[1]):
        animal_won[b, x] = 0
    n = 0
    for c in range(ncards):
        if card_animal[c] < 0 and params[P_VERSION] == 2:
            zone[b, c] = Z_ASIDE  # "The 2 Hunter cards are not used and must be discarded."
            zone_at[b, c] = -1
        else:
            tmp[b, n] = c
            n += 1
    g[b, LEFT] = params[P_NAC]
    g[b, STAGE] = TURNING
    g[b, PHASE] = RUN
    g[b, GSTART] = g[b, CLOCK]
    _deal(b, np.int64(n), g, pp, stack, zone, zone_at, tmp, rs, ev, params)  # int64: one compile


@njit(cache=True, _nrt=False)
def _regather(b, g, pp, pile, zone, zone_at, stack, tmp, rs, ev, params):
    """"After players have turned up all their cards, those left upturned before them are
    collected, reshuffled and dealt again. The deal passes to the player on the left." Returns
    False when there is nothing to deal."""
    n = 0
    for p in range(params[P_PLAYERS]):
        for i in range(pp[b, p, NPILE]):
            tmp[b, n] = pile[b, p, i]
            n += 1
        pp[b, p, NPILE] = 0
        pp[b, p, LIVE] = -1
    if n == 0:
        return False
    _deal(b, np.int64(n), g, pp, stack, zone, zone_at, tmp, rs, ev, params)
    return True


# ---- Method of play ---------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _pop_pile(b, p, pp):
    pp[b, p, NPILE] -= 1
    pp[b, p, LIVE] = -1  # note 1: the card underneath may not be taken up in any circumstances


@njit(cache=True, _nrt=False)
def _new_set(b, c0, c1, c2, owner, state, g, pp, setc, set_owner, set_state, set_since,
             zone, zone_at, card_value):
    s = 0
    while set_state[b, s] != S_NONE:
        s += 1
    setc[b, s, 0] = c0
    setc[b, s, 1] = c1
    setc[b, s, 2] = c2
    set_owner[b, s] = owner
    set_state[b, s] = state
    set_since[b, s] = g[b, CLOCK]
    z = Z_HELD if state == S_HELD else Z_WON
    for k in range(3):
        c = setc[b, s, k]
        zone[b, c] = z
        zone_at[b, c] = owner
    if state == S_HELD:
        pp[b, owner, HELD] += 1
    else:
        pp[b, owner, WONPTS] += card_value[c0] + card_value[c1] + card_value[c2]
    g[b, LEFT] -= 3
    return s


@njit(cache=True, inline="always", _nrt=False)
def _set_points(b, s, setc, card_value):
    return card_value[setc[b, s, 0]] + card_value[setc[b, s, 1]] + card_value[setc[b, s, 2]]


@njit(cache=True, _nrt=False)
def _drama(b, pp, setc, set_owner, set_state, card_value, params, dr):
    """Record the running score after it changed: the points of the match's finished games,
    plus the sets won outright in this one (plus the sets held, when they count at the end)."""
    for p in range(params[P_PLAYERS]):
        pp[b, p, RUNNING] = pp[b, p, TOTAL] + pp[b, p, WONPTS]
    if params[P_FLAGS] & F_HELD_COUNT:
        for s in range(setc.shape[1]):
            if set_state[b, s] == S_HELD:
                pp[b, set_owner[b, s], RUNNING] += _set_points(b, s, setc, card_value)
    drama_update(dr, b, pp[b, :, RUNNING], False)


@njit(cache=True, _nrt=False)
def _end_game(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
              set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal,
              card_value, params):
    """THE WINNER: each player adds up the animals on his won cards (and on held sets if the
    rules say so); then the match ends or the next game is dealt."""
    nplayers = params[P_PLAYERS]
    for p in range(nplayers):
        held = 0
        for s in range(setc.shape[1]):
            if set_state[b, s] == S_HELD and set_owner[b, s] == p:
                held += _set_points(b, s, setc, card_value)
        pp[b, p, HELD_END] += held
        pts = pp[b, p, WONPTS]
        if params[P_FLAGS] & F_HELD_COUNT:
            pts += held
        pp[b, p, TOTAL] += pts
        log_event(ev, g, NEV, b, E_SCORE, p, pts, pp[b, p, TOTAL], held, 0)
    g[b, ROUND] += 1
    log_event(ev, g, NEV, b, E_GAME_END, -1, g[b, ROUND], 0, 0, 0)
    if params[P_ROUNDS] > 0:
        over = g[b, ROUND] >= params[P_ROUNDS]
    else:
        over = False
        for p in range(nplayers):
            if pp[b, p, TOTAL] >= params[P_TARGET]:
                over = True
    if g[b, ROUND] >= params[P_MAXROUNDS]:
        over = True
    if over:
        g[b, PHASE] = OVER
        g[b, CUR] = -1
        return
    _new_game(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
              set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal, params)


@njit(cache=True, _nrt=False)
def _hunters_aside(b, g, pp, stack, pile, zone, zone_at, ev, params):
    """"...until the only cards left in play are the 2 Hunter cards. These are now discarded
    until the end of the game." (every animal card is in a set, so stacks and piles hold only
    Hunters)"""
    n = 0
    for p in range(params[P_PLAYERS]):
        for i in range(pp[b, p, NSTACK]):
            c = stack[b, p, i]
            zone[b, c] = Z_ASIDE
            zone_at[b, c] = -1
            n += 1
        for i in range(pp[b, p, NPILE]):
            c = pile[b, p, i]
            zone[b, c] = Z_ASIDE
            zone_at[b, c] = -1
            n += 1
        pp[b, p, NSTACK] = 0
        pp[b, p, NPILE] = 0
        pp[b, p, LIVE] = -1
    g[b, NSTACKED] = 0
    g[b, STAGE] = ASKING
    log_event(ev, g, NEV, b, E_ASIDE, -1, n, 0, 0, 0)


@njit(cache=True, inline="always", _nrt=False)
def _others_hold(b, p, pp, nplayers):
    """Whether any player but p holds a set (the held sets lie in view, face down)."""
    for q in range(nplayers):
        if q != p and pp[b, q, HELD] > 0:
            return True
    return False


@njit(cache=True, inline="always", _nrt=False)
def _start_demand(b, g, kind, asker, card):
    g[b, PHASE] = DEMAND
    g[b, KIND] = kind
    g[b, ASKER] = asker
    g[b, CUR] = asker
    g[b, CHAIN] = 0
    g[b, CARD] = card


@njit(cache=True, inline="always", _nrt=False)
def _any_pair(b, pair):
    for i in range(pair.shape[1]):
        if pair[b, i, 0] >= 0:
            return True
    return False


@njit(cache=True, inline="always", _nrt=False)
def _pair_of(b, x, zone, zone_at, params):
    """The first centre slot holding a pair of animal x, -1 if none: read from where that
    animal's own cards lie (a handful) rather than from every slot."""
    j = -1
    k = params[P_PER]
    for c in range(x * k, x * k + k):
        if zone[b, c] == Z_PAIR and (j < 0 or zone_at[b, c] < j):
            j = zone_at[b, c]
    return j


@njit(cache=True, _nrt=False)
def _make_pair(b, p, c, q, x, g, pp, pair, pair_formed, pair_seen, zone, zone_at, rs, ev,
               params, fparams):
    """Player p's card c and player q's live card (animal x) make a pair in the centre, unless
    the table misses it: True if it was made. Called, not inlined (once a pair; numba would
    compile it again at each of _pair_exposed's sites), its numbers int64 (one compile)."""
    if _rand_below_one(rs, b, fparams[0]):
        log_event(ev, g, NEV, b, E_MISSED, p, c, 0, 0, 0)
        return False
    lc = pp[b, q, LIVE]
    _pop_pile(b, q, pp)
    _pop_pile(b, p, pp)
    j = 0
    while pair[b, j, 0] >= 0:
        j += 1
    pair[b, j, 0] = lc
    pair[b, j, 1] = c
    pair_formed[b, j] = g[b, CLOCK]
    pair_seen[b, j] = g[b, CLOCK]
    zone[b, lc] = Z_PAIR
    zone_at[b, lc] = j
    zone[b, c] = Z_PAIR
    zone_at[b, c] = j
    log_event(ev, g, NEV, b, E_PAIR, p, q, x, j, 0)
    return True


@njit(cache=True, inline="always", _nrt=False)
def _pair_exposed(b, p, c, g, pp, pair, pair_formed, pair_seen, zone, zone_at, rs, ev,
                  card_animal, params, fparams):
    """"until a player turns up a card of the same animal as one of the cards turned up by a
    previous player (only the last turned-up card of anyone's stack may be taken)": the pair
    goes to the centre. True if it was made. Inlined is only the search (once a card turned)."""
    nplayers = params[P_PLAYERS]
    x = card_animal[c]
    q = -1
    for i in range(1, nplayers):
        r = p - i
        r = r + nplayers if r < 0 else r
        lc = pp[b, r, LIVE]
        if lc >= 0 and card_animal[lc] == x:
            q = r
            break
    if q < 0:
        return False
    return _make_pair(np.int64(b), np.int64(p), np.int64(c), np.int64(q), np.int64(x), g, pp,
                      pair, pair_formed, pair_seen, zone, zone_at, rs, ev, params, fparams)


@njit(cache=True, _nrt=False)
def _advance(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
             set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal, card_value,
             params, fparams, dr):
    """Play on until someone must decide or the match is over."""
    nplayers = params[P_PLAYERS]
    version = params[P_VERSION]
    while True:
        if g[b, PHASE] == ENDING:
            _end_game(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner,
                      set_state, set_since, refused, animal_won, zone, zone_at, tmp, rs, ev,
                      card_animal, card_value, params)
            continue
        if g[b, PHASE] != RUN:
            return
        if g[b, CLOCK] - g[b, GSTART] >= params[P_MAXTURNS]:
            g[b, CAPPED] += 1
            log_event(ev, g, NEV, b, E_CAP, -1, g[b, CLOCK] - g[b, GSTART], 0, 0, 0)
            g[b, PHASE] = ENDING
            continue
        if g[b, STAGE] == ASKING:
            # "Now the next in turn asks any player for any set he is holding"
            holders = 0
            for q in range(nplayers):
                if pp[b, q, HELD] > 0:
                    holders += 1
            if holders == 0 or (holders == 1 and (params[P_FLAGS] & F_SOLE_ENDS) != 0):
                g[b, PHASE] = ENDING
                continue
            t = g[b, HOLDER_TURN]
            if _others_hold(b, t, pp, nplayers):
                _start_demand(b, g, K_ASK, t, -1)
                return
            # note 2: the player holding every set cannot win one from anyone: his turn passes
            log_event(ev, g, NEV, b, E_SKIP, t, 0, 0, 0, 0)
            if params[P_FLAGS] & F_NO_DEMAND_ENDS:
                g[b, PHASE] = ENDING  # rules.asking_ends 'no_demand'
                continue
            g[b, HOLDER_TURN] = _nxt(t, nplayers)
            continue
        # ---- turning up cards
        if g[b, NSTACKED] == 0:
            if not _regather(b, g, pp, pile, zone, zone_at, stack, tmp, rs, ev, params):
                # only pairs are left and nothing can complete them (second version)
                g[b, PHASE] = ENDING
            continue
        p = g[b, CUR]
        nxt = _nxt(p, nplayers)  # the next player (one _nxt for the turn's several exits)
        k = pp[b, p, NSTACK]
        if k == 0:  # no cards in this deal: "This does not matter."
            g[b, CUR] = nxt
            continue
        c = stack[b, p, k - 1]
        pp[b, p, NSTACK] = k - 1
        g[b, NSTACKED] -= 1
        n = pp[b, p, NPILE]
        pile[b, p, n] = c
        pp[b, p, NPILE] = n + 1
        zone[b, c] = Z_PILE
        zone_at[b, c] = p
        g[b, CLOCK] += 1
        log_event(ev, g, NEV, b, E_TURN, p, c, 0, 0, 0)
        x = card_animal[c]
        if x < 0:
            # The Hunter card: the right to demand a set held by another player
            pp[b, p, LIVE] = -1
            log_event(ev, g, NEV, b, E_HUNTER, p, 0, 0, 0, 0)
            if _others_hold(b, p, pp, nplayers):
                g[b, HOLDER_TURN] = p
                _start_demand(b, g, K_HUNTER, p, c)
                return
            g[b, CUR] = nxt  # "If there are none, the turn passes on as usual"
            continue
        pp[b, p, LIVE] = c
        barred = False
        if version == 2:
            barred = pp[b, p, BARRED] != 0
            pp[b, p, BARRED] = 0
        if version == 1:
            # a card of the same animal as a pair in the middle makes the set of 3, held by
            # "the player who originally played the third card"
            j = _pair_of(b, x, zone, zone_at, params)
            if j >= 0:
                if _rand_below_one(rs, b, fparams[0]):
                    log_event(ev, g, NEV, b, E_MISSED, p, c, 1, 0, 0)
                else:
                    _pop_pile(b, p, pp)
                    # int64 here and in _apply: one compile of _new_set, not one per constant
                    s = _new_set(b, pair[b, j, 0], pair[b, j, 1], np.int64(c), p,
                                 np.int64(S_HELD), g, pp, setc, set_owner, set_state, set_since,
                                 zone, zone_at, card_value)
                    pair[b, j, 0] = -1
                    pair[b, j, 1] = -1
                    pp[b, p, SETS_MADE] += 1
                    refused[b, p, x] = -1  # he holds one now
                    log_event(ev, g, NEV, b, E_SET, p, x, s, 0, 0)
                    if params[P_FLAGS] & F_HELD_COUNT:
                        _drama(b, pp, setc, set_owner, set_state, card_value, params, dr)
                    if g[b, LEFT] == 0:
                        _hunters_aside(b, g, pp, stack, pile, zone, zone_at, ev, params)
                        g[b, HOLDER_TURN] = nxt
                        continue
                    g[b, CUR] = nxt
                    continue
        if version == 2 and not barred and (params[P_FLAGS] & F_HUNT_FIRST) != 0:
            # "Any player, however, who turns up a card which he thinks will make up one of the
            # pairs on the table into a set of 3, must say 'I am going hunting ...'": before
            # the table calls a pair with another player's exposed card (rules.hunt_first)
            if _any_pair(b, pair):
                g[b, PHASE] = HUNT
                g[b, CARD] = c
                return
        if _pair_exposed(b, p, c, g, pp, pair, pair_formed, pair_seen, zone, zone_at, rs, ev,
                         card_animal, params, fparams):
            g[b, CUR] = nxt
            continue
        if (version == 2 and not barred and (params[P_FLAGS] & F_HUNT_FIRST) == 0
                and _any_pair(b, pair)):
            g[b, PHASE] = HUNT
            g[b, CARD] = c
            return
        g[b, CUR] = nxt


@njit(cache=True, inline="always", _nrt=False)
def _demands_over(b, g, params):
    """A demand succeeded, or a chain of demands ended without one: the turn goes on."""
    nplayers = params[P_PLAYERS]
    g[b, PHASE] = RUN
    t = g[b, HOLDER_TURN]
    if g[b, STAGE] == TURNING:
        # "the turn passing to the next player after the one who turned up the Hunter card"
        g[b, CUR] = _nxt(t, nplayers)
    elif params[P_FLAGS] & F_NEXT_ASKER:
        g[b, HOLDER_TURN] = _nxt(g[b, ASKER], nplayers)
    else:
        # "the turn goes to the player whose turn it is next in normal rotation"
        g[b, HOLDER_TURN] = _nxt(t, nplayers)


@njit(cache=True, _nrt=False)
def _apply(b, a, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
           set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal, card_value,
           params, fparams, dr):
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    over = False  # the demands are over (_demands_over, at one call site: numba compiles an
    # inlined helper again at each)
    if g[b, PHASE] == DEMAND and a == (nplayers - 1) * nanimals:
        # rules.may_decline: the right to demand is not used; the turn passes on as after a
        # demand
        log_event(ev, g, NEV, b, E_DECLINE, g[b, ASKER], 0, 0, 0, 0)
        over = True
    elif g[b, PHASE] == DEMAND:
        asker = g[b, ASKER]
        o = a // nanimals + 1
        x = a - (o - 1) * nanimals
        q = asker + o
        q = q - nplayers if q >= nplayers else q
        g[b, CLOCK] += 1
        g[b, CHAIN] += 1
        pp[b, asker, DEMANDS] += 1
        # the set he hands over (rules.set_handed_over): slots are in the order made
        s = -1
        for i in range(setc.shape[1]):
            if (set_state[b, i] == S_HELD and set_owner[b, i] == q
                    and card_animal[setc[b, i, 0]] == x):
                if s < 0:
                    s = i
                    if (params[P_FLAGS] & F_GIVE_FEWEST) == 0:
                        break
                elif _set_points(b, i, setc, card_value) < _set_points(b, s, setc, card_value):
                    s = i
        ended = True
        if s >= 0:
            # "If the player has that set it must be handed over ... He has now won it outright"
            pts = _set_points(b, s, setc, card_value)
            set_state[b, s] = S_WON
            set_owner[b, s] = asker
            set_since[b, s] = g[b, CLOCK]
            pp[b, q, HELD] -= 1
            pp[b, asker, WONPTS] += pts
            pp[b, asker, DEMANDS_WON] += 1
            animal_won[b, x] += 1
            for k in range(3):
                zone[b, setc[b, s, k]] = Z_WON
                zone_at[b, setc[b, s, k]] = asker
            log_event(ev, g, NEV, b, E_DEMAND, asker, q, x, 1, s)
            _drama(b, pp, setc, set_owner, set_state, card_value, params, dr)
        else:
            # "his request is refused ... the player who refused has the right to ask anyone else"
            refused[b, q, x] = g[b, CLOCK]
            log_event(ev, g, NEV, b, E_DEMAND, asker, q, x, 0, -1)
            # (the safety stop also ends a chain that goes on and on)
            if (_others_hold(b, q, pp, nplayers)
                    and g[b, CLOCK] - g[b, GSTART] < params[P_MAXTURNS]):
                g[b, ASKER] = q
                g[b, CUR] = q
                g[b, KIND] = K_REFUSED
                ended = False
            elif (g[b, STAGE] == ASKING and (params[P_FLAGS] & F_NO_DEMAND_ENDS) != 0
                  and not _others_hold(b, q, pp, nplayers)):
                # rules.asking_ends 'no_demand': the refused player must ask and cannot
                log_event(ev, g, NEV, b, E_SKIP, q, 0, 0, 0, 0)
                g[b, PHASE] = ENDING
                return
        over = ended
    else:  # HUNT (second version)
        p = g[b, CUR]
        c = g[b, CARD]
        g[b, PHASE] = RUN
        if a >= HUNT0:
            j = a - HUNT0
            pp[b, p, HUNTS] += 1
            x = card_animal[c]
            if card_animal[pair[b, j, 0]] == x:
                # "If he has chosen correctly he forms the set of 3 and he has won it outright."
                _pop_pile(b, p, pp)
                s = _new_set(b, pair[b, j, 0], pair[b, j, 1], np.int64(c), p, np.int64(S_WON),
                             g, pp, setc, set_owner, set_state, set_since, zone, zone_at,
                             card_value)
                pair[b, j, 0] = -1
                pair[b, j, 1] = -1
                pp[b, p, HUNTS_WON] += 1
                pp[b, p, SETS_MADE] += 1
                animal_won[b, x] += 1
                log_event(ev, g, NEV, b, E_HUNT, p, j, x, 1, s)
                _drama(b, pp, setc, set_owner, set_state, card_value, params, dr)
                if g[b, LEFT] == 0:
                    g[b, PHASE] = ENDING  # every set is won: the game is over
                    return
            else:
                # turned up for all to see; "the turn passes on, and at his next turn he ...
                # may not 'go hunting'"
                pair_seen[b, j] = g[b, CLOCK]
                pp[b, p, BARRED] = 1
                log_event(ev, g, NEV, b, E_HUNT, p, j, x, 0, card_animal[pair[b, j, 0]])
        if (params[P_FLAGS] & F_HUNT_FIRST) != 0 and pp[b, p, LIVE] == c:
            # not hunted (or hunted wrongly): the table calls a pair with an exposed card
            _pair_exposed(b, p, c, g, pp, pair, pair_formed, pair_seen, zone, zone_at, rs, ev,
                          card_animal, params, fparams)
        g[b, CUR] = _nxt(p, nplayers)
    if over:
        _demands_over(b, g, params)


@njit(cache=True, inline="always", _nrt=False)
def write_decision(b, g, pp, pair, animal_won, params, mover, legal):
    """Who is to move in game b (-1: over) and the legal actions: what the batch ``step`` and
    the compiled strategies' whole-game kernel (strategies/_jungle_thrills_compiled.py) write.
    Inlined: a call once a decision measured slower (Safari Sprint's view)."""
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    spa = params[P_PER] // 3
    ph = g[b, PHASE]
    for a in range(legal.shape[1]):
        legal[b, a] = False
    if ph == DEMAND:
        asker = g[b, ASKER]
        mover[b] = asker
        for o in range(1, nplayers):
            q = asker + o
            q = q - nplayers if q >= nplayers else q
            if pp[b, q, HELD] > 0:
                for x in range(nanimals):
                    # "No player may ask for a set that has been won outright."
                    legal[b, (o - 1) * nanimals + x] = animal_won[b, x] < spa
        # rules.may_decline: the Hunter's and the refused player's right, not the asking turn
        if (params[P_FLAGS] & F_DECLINE) != 0 and g[b, KIND] != K_ASK:
            legal[b, (nplayers - 1) * nanimals] = True
    elif ph == HUNT:
        mover[b] = g[b, CUR]
        legal[b, PASS] = True
        for j in range(pair.shape[1]):
            legal[b, HUNT0 + j] = pair[b, j, 0] >= 0
    else:
        mover[b] = -1


@njit(cache=True, inline="always", _nrt=False)
def apply_action(b, a, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner,
                 set_state, set_since, refused, animal_won, zone, zone_at, tmp, rs, ev,
                 card_animal, card_value, params, fparams, dr):
    """Game b's player to move takes action ``a``; then play on to the next decision (or the
    end). The one copy of the rules that the batch ``step`` and the compiled strategies'
    whole-game kernel both call."""
    if g[b, PHASE] != OVER:
        _apply(b, a, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner,
               set_state, set_since, refused, animal_won, zone, zone_at, tmp, rs, ev,
               card_animal, card_value, params, fparams, dr)
        _advance(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner,
                 set_state, set_since, refused, animal_won, zone, zone_at, tmp, rs, ev,
                 card_animal, card_value, params, fparams, dr)


@njit(cache=True, _nrt=False)
def _init(g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
          set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal, card_value,
          params, fparams, mover, legal, dr):
    for b in range(g.shape[0]):
        _new_game(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner,
                  set_state, set_since, refused, animal_won, zone, zone_at, tmp, rs, ev,
                  card_animal, params)
        _advance(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
                 set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal,
                 card_value, params, fparams, dr)
        write_decision(b, g, pp, pair, animal_won, params, mover, legal)


@njit(cache=True, _nrt=False)
def _step(actions, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
          set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal, card_value,
          params, fparams, mover, legal, dr):
    for b in range(g.shape[0]):
        apply_action(b, actions[b], g, pp, stack, pile, pair, pair_formed, pair_seen, setc,
                     set_owner, set_state, set_since, refused, animal_won, zone, zone_at, tmp,
                     rs, ev, card_animal, card_value, params, fparams, dr)
        write_decision(b, g, pp, pair, animal_won, params, mover, legal)


@njit(cache=True, _nrt=False)
def _resume(games, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
            set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal, card_value,
            params, fparams, mover, legal, dr):
    """Play a position set up by hand on to its first decision."""
    for b in games:
        _advance(b, g, pp, stack, pile, pair, pair_formed, pair_seen, setc, set_owner, set_state,
                 set_since, refused, animal_won, zone, zone_at, tmp, rs, ev, card_animal,
                 card_value, params, fparams, dr)
        write_decision(b, g, pp, pair, animal_won, params, mover, legal)


# ---- Worlds for search --------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _redeal_stacks(g, pp, stack, zone, zone_at, tmp, rs, params):
    """Every row a world: the face-down stack cards (the only cards no one has seen), gathered
    in card order (a seat knows them only as a set), shuffled with the row's own stream and dealt
    back into the stacks, each stack keeping its size; everything else stays."""
    nplayers = params[P_PLAYERS]
    ncards = zone.shape[1]
    for b in range(g.shape[0]):
        n = 0
        for c in range(ncards):
            if zone[b, c] == Z_STACK:
                tmp[b, n] = c
                n += 1
        shuffle_row(tmp[b], n, rs, b)
        i = 0
        for p in range(nplayers):
            for k in range(stack.shape[2]):
                if k < pp[b, p, NSTACK]:
                    c = tmp[b, i]
                    stack[b, p, k] = c
                    zone_at[b, c] = p
                    i += 1
                else:
                    stack[b, p, k] = -1  # (turned-up cards: known, and never read again)
        for k in range(ncards):
            tmp[b, k] = 0  # scratch: it would keep the real game's last shuffle


# ---- What the player to move may know ------------------------------------------------------------

@njit(cache=True, _nrt=False)
def _observe(games, g, pp, pair, pair_formed, pair_seen, setc, set_owner, set_state, set_since,
             refused, zone, zone_at, card_animal, card_value, params,
             small, per, live, ref, sets, since, points, pair_animal, pairs, zones):
    """Fill the observation of ``games``; per-player values rotated so that index 0 is the mover
    and index o the player o seats to the left."""
    nplayers = params[P_PLAYERS]
    for i in range(games.shape[0]):
        b = games[i]
        ph = g[b, PHASE]
        p = g[b, ASKER] if ph == DEMAND else g[b, CUR]
        small[0, i] = p
        small[1, i] = g[b, KIND] if ph == DEMAND else K_HUNT
        small[2, i] = g[b, CLOCK]
        small[3, i] = g[b, CARD]
        small[4, i] = g[b, STAGE]
        small[5, i] = g[b, DEALS]
        small[6, i] = g[b, ROUND]
        small[7, i] = pp[b, p, BARRED]
        for o in range(nplayers):
            q = p + o
            q = q - nplayers if q >= nplayers else q
            per[0, i, o] = pp[b, q, NSTACK]
            per[1, i, o] = pp[b, q, NPILE]
            per[2, i, o] = pp[b, q, HELD]
            per[3, i, o] = pp[b, q, WONPTS]
            per[4, i, o] = pp[b, q, TOTAL]
            live[i, o] = pp[b, q, LIVE]
            for x in range(ref.shape[2]):
                ref[i, o, x] = refused[b, q, x]
        for s in range(setc.shape[1]):
            st = set_state[b, s]
            if st == S_NONE:
                sets[0, i, s] = -1
                sets[1, i, s] = -1
                sets[2, i, s] = -1
                since[i, s] = -1
                points[i, s] = 0
            else:
                off = set_owner[b, s] - p
                off = off + nplayers if off < 0 else off
                sets[0, i, s] = card_animal[setc[b, s, 0]]
                sets[1, i, s] = off if st == S_HELD else -1
                sets[2, i, s] = off if st == S_WON else -1
                since[i, s] = set_since[b, s]
                points[i, s] = _set_points(b, s, setc, card_value)
        for j in range(pair.shape[1]):
            if pair[b, j, 0] >= 0:
                # every pair was made of two cards face up: a perfect memory knows its animal
                pair_animal[i, j] = card_animal[pair[b, j, 0]]
                pairs[0, i, j] = pair_formed[b, j]
                pairs[1, i, j] = pair_seen[b, j]
            else:
                pair_animal[i, j] = -1
                pairs[0, i, j] = -1
                pairs[1, i, j] = -1
        for c in range(zone.shape[1]):
            z = zone[b, c]
            zones[0, i, c] = z
            if z == Z_STACK or z == Z_ASIDE:
                zones[1, i, c] = -1  # whose stack a face-down card is in is hidden
            elif z == Z_PAIR:
                zones[1, i, c] = zone_at[b, c]
            else:
                off = zone_at[b, c] - p
                zones[1, i, c] = off + nplayers if off < 0 else off


@dataclass
class Obs(Observation):
    """What the player to move may know: everything public that a perfect memory could hold.
    Per-player arrays are rotated (index 0 is this player, o the player o seats to the left, as
    in the demand actions). Strategies decide with their ``recall`` how much of it they keep;
    the ``*_since`` / ``*_formed`` / ``*_seen`` / ``refused`` clocks date each fact (the clock
    counts cards turned up and demands made)."""

    game: np.ndarray          # int64[n] batch index
    seat: np.ndarray          # int32[n] seat of the player to move
    kind: np.ndarray          # int32[n] K_HUNTER, K_REFUSED, K_ASK or K_HUNT
    clock: np.ndarray         # int32[n] the game's clock now
    card: np.ndarray          # int32[n] the card just turned up (Hunter or hunting card), -1 none
    asking: np.ndarray        # int32[n] 1 in the asking phase (only Hunters were left)
    deals: np.ndarray         # int32[n] deals so far in the match
    round: np.ndarray         # int32[n] games finished in the match
    barred: np.ndarray        # int32[n] 1 if this player may not go hunting this turn
    stack_size: np.ndarray    # int32[n, P] face-down cards in each stack
    pile_size: np.ndarray     # int32[n, P] face-up cards before each player
    held_count: np.ndarray    # int32[n, P] sets each player holds (they lie in view, face down)
    won_points: np.ndarray    # int32[n, P] animals on the sets each has won outright this game
    total: np.ndarray         # int32[n, P] points of the finished games of the match
    live: np.ndarray          # int32[n, P] each player's last turned-up card, if it may still be
                              #   taken (-1: none, or covered, or a Hunter)
    refused: np.ndarray       # int32[n, P, A] clock when that player refused a demand for that
                              #   animal (-1: never, or he has since made a set of it)
    set_animal: np.ndarray    # int8[n, S] animal of each set slot (-1: slot unused)
    set_holder: np.ndarray    # int8[n, S] offset of the player holding it (-1: not held)
    set_won_by: np.ndarray    # int8[n, S] offset of the player who won it outright (-1: not won)
    set_since: np.ndarray     # int32[n, S] clock when its present owner got it
    set_points: np.ndarray    # int16[n, S] animals on its three cards
    pair_animal: np.ndarray   # int8[n, M] animal of the pair in each centre slot (-1: empty)
    pair_formed: np.ndarray   # int32[n, M] clock when it was made
    pair_seen: np.ndarray     # int32[n, M] clock when it was last seen face up
    zone: np.ndarray          # int8[n, C] where every card lies (Z_STACK ... Z_ASIDE)
    zone_at: np.ndarray       # int8[n, C] offset of the player (pile, held, won) or pair slot;
                              #   -1 in a face-down stack or set aside
    card_animal: np.ndarray   # int8[C] (shared) animal of each card, -1 Hunter
    card_value: np.ndarray    # int8[C] (shared)
    version: int
    animals: int
    sets_per_animal: int     # sets of three each animal's cards can make

    shared = ("card_animal", "card_value")

    @action_helper
    def demand_action(self, offset, animal) -> np.ndarray:
        """Action: demand the set of ``animal`` from the player ``offset`` seats to the left."""
        return (np.asarray(offset, np.int64) - 1) * self.animals + np.asarray(animal, np.int64)

    @action_helper
    def no_demand_action(self) -> int:
        """Action (version 1, when the rules let a player decline): do not use the right to
        demand."""
        return (self.stack_size.shape[1] - 1) * self.animals

    @action_helper
    def hunt_action(self, slot) -> np.ndarray:
        """Action (version 2): hunt the pair in centre slot ``slot`` (as in ``pair_animal``)."""
        return HUNT0 + np.asarray(slot, np.int64)

    @action_helper
    def no_hunt_action(self) -> int:
        """Action (version 2): do not go hunting."""
        return PASS

    @property
    def card_animal_now(self) -> np.ndarray:
        """Animal of the card just turned up (-1 for a Hunter or none)."""
        return read_only(np.where(self.card >= 0, self.card_animal[np.maximum(self.card, 0)], -1))


class JungleThrills(Game):
    id = "jungle_thrills"
    measures = ("pairs_stranded", "points_unwon")
    name = "Jungle Thrills"
    min_players = 2
    max_players = 6
    Rules = Rules
    score_name = "animals"
    constant_fields = ("card_animal", "card_value", "params", "fparams")
    decision_kinds = ("Hunter card: demand a set", "refused: demand a set from anyone",
                      "asking phase: demand a set", "go hunting for a pair, or not")

    def n_actions(self, rules: Rules, n_players: int) -> int:
        if rules.version == 2:
            return HUNT0 + self._max_pairs(rules)
        return (n_players - 1) * rules.animals + (1 if rules.may_decline else 0)

    @staticmethod
    def _max_pairs(rules: Rules) -> int:
        return rules.animals * len(rules.animal_values) // 2

    def animal_name(self, x: int) -> str:
        return ANIMAL_NAMES[x] if x < len(ANIMAL_NAMES) else f"animal-{x + 1}"

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        if rules.version == 2:
            return "do not go hunting" if action == PASS else f"hunt the pair in slot {action - HUNT0}"
        if action == (n_players - 1) * rules.animals:
            return "do not use the right to demand"
        o, x = action // rules.animals + 1, action % rules.animals
        return f"demand the {self.animal_name(x)}s from the player {o} to the left"

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        if rules.animals * len(rules.animal_values) + rules.hunter_cards > 120:
            raise RulesError("animals", "at most 120 cards")

    # -- setup
    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        batch = len(keys)
        k = len(rules.animal_values)
        nac = rules.animals * k
        ncards = nac + rules.hunter_cards
        card_animal = np.full(ncards, -1, np.int8)
        card_value = np.zeros(ncards, np.int8)
        card_animal[:nac] = np.arange(nac) // k
        card_value[:nac] = np.tile(np.asarray(rules.animal_values, np.int8), rules.animals)
        flags = ((F_HELD_COUNT if rules.held_count_at_end else 0)
                 | (F_DECLINE if rules.may_decline else 0)
                 | (F_HUNT_FIRST if rules.hunt_first else 0)
                 | (F_SOLE_ENDS if rules.asking_ends == "sole_holder" else 0)
                 | (F_NO_DEMAND_ENDS if rules.asking_ends == "no_demand" else 0)
                 | (F_GIVE_FEWEST if rules.set_handed_over == "fewest" else 0)
                 | (F_NEXT_ASKER if rules.next_turn == "asker" else 0))
        mp, ns = nac // 2, nac // 3
        params = np.array([n_players, ncards, rules.animals, k, nac, rules.version,
                           rules.rounds or 0, rules.target, rules.max_turns, rules.max_rounds,
                           flags, mp, ns], np.int64)
        st = State(
            n_players=n_players, rules=rules, card_animal=card_animal, card_value=card_value,
            params=params, fparams=np.array([rules.missed_calls], np.float64),
            g=np.zeros((batch, NG), np.int32), pp=np.zeros((batch, n_players, NPP), np.int32),
            stack=np.full((batch, n_players, ncards), -1, np.int8),
            pile=np.full((batch, n_players, ncards), -1, np.int8),
            pair=np.full((batch, mp, 2), -1, np.int8),
            pair_formed=np.full((batch, mp), -1, np.int32),
            pair_seen=np.full((batch, mp), -1, np.int32),
            setc=np.full((batch, ns, 3), -1, np.int8),
            set_owner=np.full((batch, ns), -1, np.int8),
            set_state=np.zeros((batch, ns), np.int8),
            set_since=np.full((batch, ns), -1, np.int32),
            refused=np.full((batch, n_players, rules.animals), -1, np.int32),
            animal_won=np.zeros((batch, rules.animals), np.int8),
            zone=np.zeros((batch, ncards), np.int8), zone_at=np.zeros((batch, ncards), np.int8),
            tmp=np.zeros((batch, ncards), np.int8),
            ev=np.zeros((batch, 30000 if log else 0, 6), np.int32),
            rs=np.array(keys, dtype=np.uint64), dr=drama_new(batch, n_players),
        )
        st.mover = np.full(batch, -1, np.int64)
        st.legal = np.zeros((batch, self.n_actions(rules, n_players)), np.bool_)
        _init(*self._arrays(st), st.fparams, st.mover, st.legal, st.dr)
        return st

    @staticmethod
    def _arrays(st: State) -> tuple:
        return (st.g, st.pp, st.stack, st.pile, st.pair, st.pair_formed, st.pair_seen, st.setc,
                st.set_owner, st.set_state, st.set_since, st.refused, st.animal_won, st.zone,
                st.zone_at, st.tmp, st.rs, st.ev, st.card_animal, st.card_value, st.params)

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        return state.mover

    def legal(self, state: State) -> np.ndarray:
        return state.legal

    def observe(self, state: State, games: np.ndarray) -> Obs:
        games = np.asarray(games, dtype=np.int64)
        n, P = len(games), state.n_players
        C = state.zone.shape[1]
        S, M = state.setc.shape[1], state.pair.shape[1]
        small = np.empty((8, n), np.int32)
        per = np.empty((5, n, P), np.int32)
        live = np.empty((n, P), np.int32)
        ref = np.empty((n, P, state.rules.animals), np.int32)
        # narrow where the values allow: fresh memory costs page faults
        sets = np.empty((3, n, S), np.int8)
        since = np.empty((n, S), np.int32)
        points = np.empty((n, S), np.int16)
        pair_animal = np.empty((n, M), np.int8)
        pairs = np.empty((2, n, M), np.int32)
        zones = np.empty((2, n, C), np.int8)
        _observe(games, state.g, state.pp, state.pair, state.pair_formed, state.pair_seen,
                 state.setc, state.set_owner, state.set_state, state.set_since, state.refused,
                 state.zone, state.zone_at, state.card_animal, state.card_value, state.params,
                 small, per, live, ref, sets, since, points, pair_animal, pairs, zones)
        r = state.rules
        return Obs(games, small[0], small[1], small[2], small[3], small[4], small[5], small[6],
                   small[7], per[0], per[1], per[2], per[3], per[4], live, ref,
                   sets[0], sets[1], sets[2], since, points, pair_animal, pairs[0], pairs[1],
                   zones[0], zones[1], state.card_animal, state.card_value, version=r.version,
                   animals=r.animals, sets_per_animal=len(r.animal_values) // 3)

    def step(self, state: State, actions: np.ndarray) -> None:
        # new arrays, so that masks handed out before stay as they were
        state.mover = np.empty_like(state.mover)
        state.legal = np.empty_like(state.legal)
        _step(np.asarray(actions, np.int64), *self._arrays(state), state.fparams, state.mover,
              state.legal, state.dr)

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        """Worlds for search (docs/rules/jungle_thrills.md, "Worlds for search"): only the
        face-down stacks are hidden, and from every seat alike (``seat`` is not needed): each
        world deals them again from its own stream ``keys[i]``."""
        # (a world keeps no event log: search never describes it, and copying one is costly)
        nolog = dataclasses.replace(state, ev=np.zeros((len(state.rs), 0, 6), np.int32))
        w = self.clone(nolog, games)
        w.rs = np.array(keys, dtype=np.uint64).copy()
        _redeal_stacks(w.g, w.pp, w.stack, w.zone, w.zone_at, w.tmp, w.rs, w.params)
        return w

    def running_score(self, state: State) -> np.ndarray:
        """The score if the game were scored now (issue 16), as Drama counts it (``_drama``):
        the match's finished games plus the animals on the sets won outright in this one (plus
        the sets held, with ``held_count_at_end``); the final total once the match is over.
        Cards in stacks, piles and centre pairs count nothing (docs/rules/jungle_thrills.md,
        "Running score")."""
        st, n = state, state.n_players
        pp = st.pp.astype(np.int64)
        now = pp[:, :, WONPTS].copy()
        if st.rules.held_count_at_end:
            held = st.set_state == S_HELD
            pts = np.where(held, st.card_value[np.maximum(st.setc, 0)].astype(np.int64).sum(2), 0)
            now += (pts[:, :, None] * (st.set_owner[:, :, None] == np.arange(n))).sum(1)
        now[st.g[:, PHASE] == OVER] = 0   # the last game's points are in the total already
        return (pp[:, :, TOTAL] + now).astype(np.float64)

    def outcome(self, state: State) -> Outcome:
        total = state.pp[:, :, TOTAL].astype(np.float64)
        rank, win = ranks_and_wins(total)
        pp = state.pp
        return Outcome(
            score=total, rank=rank, win=win, turns=state.g[:, CLOCK].copy(),
            stats={
                "rounds": state.g[:, ROUND].copy(),
                "deals": state.g[:, DEALS].copy(),
                "capped": state.g[:, CAPPED].copy(),
                "sets_made": pp[:, :, SETS_MADE].copy(),
                "demands": pp[:, :, DEMANDS].copy(),
                "demands_won": pp[:, :, DEMANDS_WON].copy(),
                "hunts": pp[:, :, HUNTS].copy(),
                "hunts_won": pp[:, :, HUNTS_WON].copy(),
                "held_at_end": pp[:, :, HELD_END].copy(),
                # the designer's measures of an ending (docs/rules/jungle_thrills.md, "Measures"):
                # pairs left face down that nothing completed, and the points nobody won
                "pairs_stranded": (state.pair[:, :, 0] >= 0).sum(axis=1).astype(np.int16),
                "points_unwon": (self.points_available(state.rules, state.n_players)
                                 - total.sum(axis=1)),
                **drama_stats(state.dr, total, win, False),
            },
        )

    # -- positions (rulebook examples and tests)
    def card(self, rules: Rules, animal: int, slot: int) -> int:
        """Card id of an animal's ``slot``-th card (slots follow animal_values: 0, 1 show one)."""
        return animal * len(rules.animal_values) + slot

    def hunter(self, rules: Rules, i: int = 0) -> int:
        return rules.animals * len(rules.animal_values) + i

    def position(self, state: State, b: int, stacks: dict[int, list[int]],
                 piles: dict[int, list[int]] | None = None, live: dict[int, bool] | None = None,
                 pairs: list[tuple[int, int]] | None = None,
                 held: dict[int, list[tuple[int, int, int]]] | None = None,
                 won: dict[int, list[tuple[int, int, int]]] | None = None,
                 cur: int = 0, asking: bool = False, deals: int = 1) -> None:
        """Set game ``b`` to ``cur``'s turn: stacks and piles (bottom first; a pile's top card may
        be taken unless ``live[p]`` is False), centre pairs, held and won sets. Cards not placed
        are set aside (the position is a late part of a game). Then play on to a decision."""
        piles, live, pairs = piles or {}, live or {}, pairs or []
        held, won = held or {}, won or {}
        st, P = state, state.n_players
        placed = [c for cs in list(stacks.values()) + list(piles.values()) for c in cs]
        placed += [c for pr in pairs for c in pr]
        placed += [c for d in (held, won) for ts in d.values() for t in ts for c in t]
        if len(placed) != len(set(placed)):
            raise ValueError("a card is placed twice")
        g, pp = st.g, st.pp
        g[b, :] = 0
        g[b, DEALS] = deals
        pp[b] = 0
        st.zone[b] = Z_ASIDE
        st.zone_at[b] = -1
        st.pair[b] = -1
        st.pair_formed[b] = -1
        st.pair_seen[b] = -1
        st.set_state[b] = S_NONE
        st.set_owner[b] = -1
        st.set_since[b] = -1
        st.setc[b] = -1
        st.refused[b] = -1
        st.animal_won[b] = 0
        st.dr[b] = drama_new(1, P)[0]
        nac = int(st.params[P_NAC])
        left = nac
        for p in range(P):
            cs = stacks.get(p, [])
            st.stack[b, p, :len(cs)] = cs
            pp[b, p, NSTACK] = len(cs)
            g[b, NSTACKED] += len(cs)
            for c in cs:
                st.zone[b, c], st.zone_at[b, c] = Z_STACK, p
            cs = piles.get(p, [])
            st.pile[b, p, :len(cs)] = cs
            pp[b, p, NPILE] = len(cs)
            top = cs[-1] if cs else -1
            pp[b, p, LIVE] = top if cs and live.get(p, True) and st.card_animal[top] >= 0 else -1
            for c in cs:
                st.zone[b, c], st.zone_at[b, c] = Z_PILE, p
        for j, (c0, c1) in enumerate(pairs):
            st.pair[b, j] = (c0, c1)
            st.pair_formed[b, j] = st.pair_seen[b, j] = 0
            for c in (c0, c1):
                st.zone[b, c], st.zone_at[b, c] = Z_PAIR, j
        s = 0
        for state_, d in ((S_HELD, held), (S_WON, won)):
            for p, triples in d.items():
                for t in triples:
                    st.setc[b, s] = t
                    st.set_state[b, s] = state_
                    st.set_owner[b, s] = p
                    st.set_since[b, s] = 0
                    for c in t:
                        st.zone[b, c], st.zone_at[b, c] = (Z_HELD if state_ == S_HELD else Z_WON), p
                    if state_ == S_HELD:
                        pp[b, p, HELD] += 1
                    else:
                        pp[b, p, WONPTS] += int(st.card_value[list(t)].sum())
                        st.animal_won[b, st.card_animal[t[0]]] += 1
                    left -= 3
                    s += 1
        # cards set aside by the position count as out of play (as if in sets)
        outside = [c for c in range(nac) if st.zone[b, c] == Z_ASIDE]
        g[b, LEFT] = left - len(outside)
        g[b, CUR] = cur
        g[b, HOLDER_TURN] = cur
        g[b, STAGE] = ASKING if asking else TURNING
        g[b, PHASE] = RUN
        _resume(np.array([b], np.int64), *self._arrays(st), st.fparams, st.mover, st.legal, st.dr)

    def zones(self, state: State, b: int) -> dict[str, list[int]]:
        """The cards of game b by zone, read from the zone arrays' own sources."""
        st = state
        z: dict[str, list[int]] = {}
        for p in range(st.n_players):
            z[f"stack{p}"] = st.stack[b, p, :st.pp[b, p, NSTACK]].tolist()
            z[f"pile{p}"] = st.pile[b, p, :st.pp[b, p, NPILE]].tolist()
        z["pairs"] = [c for j in range(st.pair.shape[1]) for c in st.pair[b, j].tolist() if c >= 0]
        for p in range(st.n_players):
            z[f"held{p}"] = [c for s in range(st.setc.shape[1]) if st.set_state[b, s] == S_HELD
                             and st.set_owner[b, s] == p for c in st.setc[b, s].tolist()]
            z[f"won{p}"] = [c for s in range(st.setc.shape[1]) if st.set_state[b, s] == S_WON
                            and st.set_owner[b, s] == p for c in st.setc[b, s].tolist()]
        z["aside"] = [c for c in range(st.zone.shape[1]) if st.zone[b, c] == Z_ASIDE]
        return z

    # -- words
    def card_name(self, rules: Rules, card: int) -> str:
        k = len(rules.animal_values)
        if card >= rules.animals * k:
            return "Hunter"
        v = rules.animal_values[card % k]
        return f"{v} {self.animal_name(card // k)}{'s' if v != 1 else ''}"

    def points_available(self, rules: Rules, n_players: int) -> float:
        """Every animal card's number counts once, for whoever wins its set (or for nobody)."""
        return float(rules.animals * sum(rules.animal_values))

    def describe(self, state: State, i: int) -> str:
        r = state.rules
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        lines = []
        n = int(state.g[i, NEV])
        for t, seat, a, b_, c, d in state.ev[i, :n].tolist():
            who = f"P{seat}"
            if t == E_DEAL:
                lines.append(f"-- Deal {b_}: P{seat} deals {a} card(s) --")
            elif t == E_TURN:
                lines.append(f"{who} turns up {self.card_name(r, a)}")
            elif t == E_PAIR:
                lines.append(f"   pair of {self.animal_name(b_)}s with P{a}'s card (slot {c})")
            elif t == E_SET:
                lines.append(f"   {who} makes a set of {self.animal_name(a)}s and holds it")
            elif t == E_HUNTER:
                lines.append(f"   {who} has a Hunter")
            elif t == E_DEMAND:
                res = "hands it over" if c else "refuses"
                lines.append(f"   {who}: 'I am hunting {self.animal_name(b_)}s' from P{a}: {res}")
            elif t == E_ASIDE:
                lines.append(f"== Only Hunters left ({a} set aside): the asking begins ==")
            elif t == E_SKIP:
                lines.append(f"   {who} can ask no one (every held set is his)")
            elif t == E_HUNT:
                if c:
                    lines.append(f"   {who} goes hunting {self.animal_name(b_)}s at slot {a}: "
                                 "right, the set is won")
                else:
                    lines.append(f"   {who} goes hunting {self.animal_name(b_)}s at slot {a}: "
                                 f"wrong, they are {self.animal_name(d)}s")
            elif t == E_MISSED:
                lines.append(f"   nobody calls the {'set' if b_ else 'pair'}")
            elif t == E_SCORE:
                lines.append(f"   P{seat} scores {a} (total {b_}; {c} in held sets)")
            elif t == E_GAME_END:
                lines.append(f"== Game {a} over ==")
            elif t == E_DECLINE:
                lines.append(f"   {who} does not demand")
            elif t == E_CAP:
                lines.append(f"== safety stop after {a} turns ==")
        if n >= state.ev.shape[1]:
            lines.append("(log full)")
        return "\n".join(lines)


GAME = JungleThrills()

"""Jungle Thrills' shipped strategies as compiled scalar policies (``KINDS``: their names, by
number), their memory, and the kernels that play them: ``decide`` for the rows where one sits
in the play loop, ``play_compiled`` for whole games when every seat holds one. Both call the
same ``policy``.

Each strategy keeps its own memory (``Memory``: arrays indexed [game, seat, ...]) of the facts
a perfect memory would hold: who holds each set and who refused which animal (first version),
the animal of each pair in the centre (second). A remembered fact is forgotten with probability
1 - recall after each turn, with uniforms drawn from the seat stream of the player to move.

What a policy reads is what the mover's observation (``jungle_thrills.Obs``) holds, read from
the state arrays in place; each read names its field. Nothing reads a face-down stack, its
owner or the order of the cards in it (``stack``, ``zone``, ``tmp``), nor the game's own stream
``rs``: the knowledge test in ``tests/test_jungle_thrills.py`` holds it to that. The rules are
the game module's own: ``jungle_thrills.apply_action`` and ``write_decision``.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import config, njit

from safari_sim.engine import chance
from safari_sim.engine.chance import mix
from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import jungle_thrills as jt
from safari_sim.games.jungle_thrills import (CARD, CLOCK, HELD, HUNT0, P_ANIMALS, P_PLAYERS,
                                             P_VERSION, PASS, S_HELD, TOTAL, WONPTS)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (jt.__file__,))

KINDS = ("rememberer", "leader_hunter", "guesser")
K_REMEMBERER, K_LEADER, K_GUESSER = range(len(KINDS))
NPOW = 512      # recall ** d for d below NPOW: a table (``Memory.pw``)

if config.DISABLE_JIT:  # plain Python: numpy warns on the wrap-around the streams rely on
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, __name__)

NEG = -np.inf
# knobs: kp[k] = (recall, bold, decline, chase)
KN_RECALL, KN_BOLD, KN_DECLINE, KN_CHASE = range(4)


# ---- The seat stream, read ahead ---------------------------------------------------------------
# A stream is counter-based (engine/chance.py: its n-th draw is mix(key + n * GOLDEN)), so a
# policy that must make F draws may read the i-th of them without making the others, then move
# the stream on by F: the same stream as F calls of chance.uniform, without computing the draws
# whose value cannot matter (a fact not held, a candidate scored -inf).

@njit(cache=True, inline="always", _nrt=False)
def _u(seat_rs, r, i):
    """The value chance.uniform(seat_rs, r) returns at its i-th next call (i = 1, 2, ...)."""
    z = mix(seat_rs[r] + np.uint64(i) * chance._GOLDEN)
    return np.float64(z >> chance._S11) * chance._TO_UNIT


@njit(cache=True, inline="always", _nrt=False)
def _skip(seat_rs, r, n):
    """Move stream r on by n draws."""
    seat_rs[r] += np.uint64(n) * chance._GOLDEN


@njit(cache=True, inline="always", _nrt=False)
def _pow(pw, recall, d):
    """recall ** d (float64): the table below NPOW, the power beyond."""
    return pw[d] if 0 <= d < pw.shape[0] else recall ** np.float64(d)


# ---- Memory: the facts of one game and seat, updated at its decision --------------------------
# A remembered fact is kept with probability recall ** (turns since the last update); a sighting
# since then is learned with recall ** (turns since the sighting). Each update draws two uniforms
# per fact (keep, then learn), whether or not their values matter.

@njit(cache=True, inline="always", _nrt=False)
def _off(q, p, nplayers):
    """Offset of seat q from seat p (the observation's rotation)."""
    o = q - p
    return o + nplayers if o < 0 else o


@njit(cache=True, inline="always", _nrt=False)
def _set_fact(b, s, p, set_state, set_owner):
    """obs.set_holder[s] >= 0: the set in slot s is held (by anyone, this player too)."""
    return set_state[b, s] == S_HELD


@njit(cache=True, inline="always", _nrt=False)
def _track_sets(b, p, r, recall, pw, now, last, m, set_state, set_owner, set_since, seat_rs):
    """The sets: fact obs.set_holder >= 0, dated obs.set_since, same
    obs.set_since <= last (a set that changed hands since is a new fact). Draws u[0, s] (keep
    what is remembered) then u[1, s] (learn what was seen since the last update)."""
    S = set_state.shape[1]
    if recall >= 1.0:
        for s in range(S):
            m[b, p, s] = _set_fact(b, s, p, set_state, set_owner)
        return
    p_keep = _pow(pw, recall, now - last)
    for s in range(S):
        if not _set_fact(b, s, p, set_state, set_owner):
            m[b, p, s] = False
            continue
        d = set_since[b, s]
        keep = False
        if m[b, p, s] and d <= last:
            keep = _u(seat_rs, r, 1 + s) < p_keep
        if d > last and not keep:
            keep = _u(seat_rs, r, 1 + S + s) < _pow(pw, recall, now - d)
        m[b, p, s] = keep
    _skip(seat_rs, r, 2 * S)


@njit(cache=True, inline="always", _nrt=False)
def _track_refused(b, p, r, recall, pw, now, last, m, refused, nplayers, seat_rs):
    """The refusals: fact obs.refused >= 0 (rotated: offset o is seat p + o),
    dated obs.refused, same everywhere."""
    A = refused.shape[2]
    if recall >= 1.0:
        for o in range(nplayers):
            q = p + o - nplayers if p + o >= nplayers else p + o
            for x in range(A):
                m[b, p, o, x] = refused[b, q, x] >= 0
        return
    F = nplayers * A
    p_keep = _pow(pw, recall, now - last)
    for o in range(nplayers):
        q = p + o - nplayers if p + o >= nplayers else p + o
        for x in range(A):
            d = refused[b, q, x]
            if d < 0:
                m[b, p, o, x] = False
                continue
            f = o * A + x
            keep = False
            if m[b, p, o, x]:
                keep = _u(seat_rs, r, 1 + f) < p_keep
            if d > last and not keep:
                keep = _u(seat_rs, r, 1 + F + f) < _pow(pw, recall, now - d)
            m[b, p, o, x] = keep
    _skip(seat_rs, r, 2 * F)


@njit(cache=True, inline="always", _nrt=False)
def _pair_fact(b, j, pair, pair_formed, pair_seen, again):
    """Rememberer, leader: obs.pair_animal >= 0 (a pair lies in slot j). Guesser (``again``):
    and obs.pair_seen > obs.pair_formed (turned up again in a wrong hunt)."""
    return (pair[b, j, 0] >= 0) & ((not again) | (pair_seen[b, j] > pair_formed[b, j]))


@njit(cache=True, inline="always", _nrt=False)
def _track_pairs(b, p, r, recall, pw, now, last, m, pair, pair_formed, pair_seen, again,
                 seat_rs):
    """The pairs: dated obs.pair_seen, same obs.pair_formed <= last (only read
    where the fact holds, so where a pair lies: the observation's values there)."""
    M = pair.shape[1]
    if recall >= 1.0:
        for j in range(M):
            m[b, p, j] = _pair_fact(b, j, pair, pair_formed, pair_seen, again)
        return
    p_keep = _pow(pw, recall, now - last)
    for j in range(M):
        if not _pair_fact(b, j, pair, pair_formed, pair_seen, again):
            m[b, p, j] = False
            continue
        d = pair_seen[b, j]
        keep = False
        if m[b, p, j] and pair_formed[b, j] <= last:
            keep = _u(seat_rs, r, 1 + j) < p_keep
        if d > last and not keep:
            keep = _u(seat_rs, r, 1 + M + j) < _pow(pw, recall, now - d)
        m[b, p, j] = keep
    _skip(seat_rs, r, 2 * M)


# ---- First version: whom to ask for which animal -------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _known_set(b, s, p, msets, set_state, set_owner):
    """known_sets: remembered, and held by another player (obs.set_holder > 0)."""
    return msets[b, p, s] & (set_state[b, s] == S_HELD) & (set_owner[b, s] != p)


@njit(cache=True, inline="always", _nrt=False)
def _points(b, s, setc, card_value):
    """obs.set_points (int16, as the observation stores it)."""
    return np.int16(jt._set_points(b, s, setc, card_value))


@njit(cache=True, inline="always", _nrt=False)
def _standing(b, p, msets, pp, setc, set_owner, set_state, card_value, nplayers, held, stand):
    """The leader's standing of each player: obs.won_points + obs.total + the points of the
    sets it remembers each player holding (summed in int16) + half of obs.held_count."""
    for o in range(nplayers):
        held[o] = 0
    for s in range(setc.shape[1]):
        if _known_set(b, s, p, msets, set_state, set_owner):
            o = _off(set_owner[b, s], p, nplayers)
            held[o] += _points(b, s, setc, card_value)
    for o in range(nplayers):
        q = p + o - nplayers if p + o >= nplayers else p + o
        whole = np.int64(pp[b, q, WONPTS]) + pp[b, q, TOTAL] + np.int16(held[o])
        stand[o] = np.float64(whole) + 0.5 * pp[b, q, HELD]


@njit(cache=True, inline="always", _nrt=False)
def _guess(b, p, r, lb, mref, legal, pp, nplayers, nanimals, by_stand, stand, seat_rs):
    """A guess: the target by its score (obs.held_count, or the leader's
    standing), only those with a legal demand, ties at random; then an animal it does not
    remember that target refusing (obs.refused through its memory), if any is legal. Draws
    (P - 1) then A uniforms (_pick: argmax of score + u / 1000, where a -inf score needs no u)."""
    best, bo = NEG, 0
    for i in range(nplayers - 1):
        any_legal = False
        for x in range(nanimals):
            if legal[lb, i * nanimals + x]:
                any_legal = True
                break
        if not any_legal:
            continue
        if by_stand:
            sc = stand[i + 1]
        else:
            q = p + i + 1
            q = q - nplayers if q >= nplayers else q
            sc = np.float64(pp[b, q, HELD])  # obs.held_count
        v = sc + _u(seat_rs, r, 1 + i) * 1e-3
        if v > best:
            best, bo = v, i
    _skip(seat_rs, r, nplayers - 1)
    fresh = False
    for x in range(nanimals):
        if legal[lb, bo * nanimals + x] and not mref[b, p, bo + 1, x]:
            fresh = True
    best, bx = NEG, 0
    for x in range(nanimals):
        ok = legal[lb, bo * nanimals + x]
        if fresh and mref[b, p, bo + 1, x]:
            ok = False
        if ok:
            v = _u(seat_rs, r, 1 + x) * 1e-3
            if v > best:
                best, bx = v, x
    _skip(seat_rs, r, nanimals)
    return bo * nanimals + bx


@njit(cache=True, inline="always", _nrt=False)
def _demand(kind, b, p, r, lb, msets, mref, legal, pp, setc, set_owner, set_state, card_animal,
            card_value, nplayers, nanimals, held, stand, seat_rs):
    """demand: the guesser guesses at the biggest holder; the rememberer and the leader
    (demand_known) name the remembered set with the best score (its points; the leader: its
    holder's standing, then points), and guess where they remember none (the guess's uniforms
    are drawn in every game alike). One call of _guess for both: numba compiles an inlined
    helper again at each call site."""
    lead = kind == K_LEADER
    if kind != K_GUESSER:
        if lead:
            _standing(b, p, msets, pp, setc, set_owner, set_state, card_value, nplayers, held,
                      stand)
        S = setc.shape[1]
        best, bs = NEG, -1
        for s in range(S):
            if _known_set(b, s, p, msets, set_state, set_owner):
                pts = np.float64(_points(b, s, setc, card_value))  # obs.set_points
                sc = stand[_off(set_owner[b, s], p, nplayers)] * 100 + pts if lead else pts
                v = sc + _u(seat_rs, r, 1 + s) * 1e-3
                if v > best:
                    best, bs = v, s
        _skip(seat_rs, r, S)
        if bs >= 0:
            # the guess's uniforms, drawn and not needed
            _skip(seat_rs, r, nplayers - 1 + nanimals)
            # obs.demand_action(obs.set_holder, obs.set_animal)
            return ((_off(set_owner[b, bs], p, nplayers) - 1) * nanimals
                    + card_animal[setc[b, bs, 0]])
    return _guess(b, p, r, lb, mref, legal, pp, nplayers, nanimals, lead, stand, seat_rs)


# ---- Second version: go hunting or not ------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def _bold(kind, kp, b, p, pp, nplayers):
    """bold: the knob; the leader's grows with the gap to the best opponent (obs.won_points +
    obs.total)."""
    if kind != K_LEADER:
        return kp[KN_BOLD]
    mine = np.float64(pp[b, p, WONPTS]) + pp[b, p, TOTAL]
    top = NEG
    for o in range(1, nplayers):
        q = p + o - nplayers if p + o >= nplayers else p + o
        top = max(top, np.float64(pp[b, q, WONPTS]) + pp[b, q, TOTAL])
    return min(max(kp[KN_BOLD] + kp[KN_CHASE] * (top - mine), 0.0), 1.0)


@njit(cache=True, inline="always", _nrt=False)
def _hunt(kind, kp, b, p, r, lb, mpairs, legal, g, pp, pair, card_animal, nplayers, seat_rs):
    """Hunting: a pair remembered to be of the card's animal (obs.pair_animal,
    obs.card_animal_now); else, with probability ``bold``, a pair it does not remember. Draws
    M uniforms (_pick), then one (bold) for every game."""
    c = g[b, CARD]  # obs.card
    now = card_animal[c] if c >= 0 else -1
    M = pair.shape[1]
    best, bj, bmatch, bunknown = NEG, 0, False, False
    for j in range(M):
        if pair[b, j, 0] < 0:  # no pair in the slot: scored -inf
            continue
        known = mpairs[b, p, j]
        match = known & (card_animal[pair[b, j, 0]] == now)
        if known and not match:
            continue
        v = (1.0 if match else 0.0) + _u(seat_rs, r, 1 + j) * 1e-3
        if v > best:
            best, bj, bmatch, bunknown = v, j, match, not known
    maybe = False
    if bunknown:
        maybe = _u(seat_rs, r, 1 + M) < _bold(kind, kp, b, p, pp, nplayers)
    _skip(seat_rs, r, M + 1)
    a = PASS
    if (bmatch or maybe) and legal[lb, HUNT0 + bj]:
        a = HUNT0 + bj
    return a


# ---- One decision ------------------------------------------------------------------------------

@njit(cache=True, inline="always", _nrt=False)
def policy(kind, kp, pw, b, p, r, lb, last, msets, mref, mpairs, g, pp, pair, pair_formed,
           pair_seen, setc, set_owner, set_state, set_since, refused, card_animal, card_value,
           params, legal, held, stand, seat_rs):
    """The action of policy ``kind`` (knobs ``kp``: recall, bold, decline, chase) for game b's
    player to move (seat p), choosing among ``legal[lb]`` and drawing from ``seat_rs[r]``:
    update the memory (``last``, ``msets``, ``mref``, ``mpairs``: [game, seat, ...]), then
    demand (first version) or hunt (second). With rules.may_decline it declines a blind demand
    (no set of another remembered, one held) with chance ``decline``."""
    nplayers = params[P_PLAYERS]
    nanimals = params[P_ANIMALS]
    recall = kp[KN_RECALL]
    now = np.int64(g[b, CLOCK])  # obs.clock
    before = last[b, p]
    if params[P_VERSION] == 1:
        if kind != K_GUESSER:
            _track_sets(b, p, r, recall, pw, now, before, msets, set_state, set_owner, set_since,
                        seat_rs)
        _track_refused(b, p, r, recall, pw, now, before, mref, refused, nplayers, seat_rs)
    else:
        _track_pairs(b, p, r, recall, pw, now, before, mpairs, pair, pair_formed, pair_seen,
                     kind == K_GUESSER, seat_rs)
    last[b, p] = now  # the clock of this update
    if params[P_VERSION] == 2:
        return _hunt(kind, kp, b, p, r, lb, mpairs, legal, g, pp, pair, card_animal, nplayers,
                     seat_rs)
    a = _demand(kind, b, p, r, lb, msets, mref, legal, pp, setc, set_owner, set_state,
                card_animal, card_value, nplayers, nanimals, held, stand, seat_rs)
    nd = (nplayers - 1) * nanimals
    if legal.shape[1] > nd:
        # rules.may_decline: decline a blind demand (no set of another remembered, one held)
        blind = pp[b, p, HELD] > 0
        for s in range(setc.shape[1]):
            if _known_set(b, s, p, msets, set_state, set_owner):
                blind = False
        if legal[lb, nd] and blind and _u(seat_rs, r, 1) < kp[KN_DECLINE]:
            a = nd
        _skip(seat_rs, r, 1)  # drawn for every game
    return a


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, pw, last, msets, mref, mpairs, seat_rs, g, pp, stack, pile, pair,
          pair_formed, pair_seen, setc, set_owner, set_state, set_since, refused, animal_won,
          zone, zone_at, tmp, rs, ev, card_animal, card_value, params, fparams, dr, mover,
          legal, held, stand, games, mask, acts, out):
    """Play every game of the batch to its end; ``last``, ``msets``, ``mref``, ``mpairs`` are the
    memory of every seat (``Memory.last`` and ``.facts``, row [b, s] that of the strategy in seat s
    of game b). out[0]: decisions, out[2 + b] those of game b; out[1]: 1 + the first game whose
    policy chose an illegal action (0: none).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i] for its player to move, among ``mask[i]``, drawing from
    ``seat_rs[i]``; nothing is played. One kernel for both, so the policy is compiled once."""
    only = games.shape[0] > 0
    decisions = 0
    for j in range(games.shape[0] if only else g.shape[0]):
        b = games[j] if only else j
        while mover[b] >= 0:  # game b's decision is current (init or the last action wrote it)
            p = mover[b]
            k = 0 if only else seating[b, p]
            lg = mask if only else legal
            a = policy(kinds[k], kp[k], pw[k], b, p, j if only else b * params[P_PLAYERS] + p,
                       j if only else b, last, msets, mref, mpairs, g, pp, pair, pair_formed,
                       pair_seen, setc, set_owner, set_state, set_since, refused, card_animal,
                       card_value, params, lg, held, stand, seat_rs)
            if only:
                acts[j] = a
                break
            if a < 0 or a >= legal.shape[1] or not legal[b, a]:
                out[1] = b + 1
                out[0] = decisions
                return
            jt.apply_action(b, a, g, pp, stack, pile, pair, pair_formed, pair_seen, setc,
                            set_owner, set_state, set_since, refused, animal_won, zone, zone_at,
                            tmp, rs, ev, card_animal, card_value, params, fparams, dr)
            jt.write_decision(b, g, pp, pair, animal_won, params, mover, legal)
            decisions += 1
            out[2 + b] += 1
    out[0] = decisions


@njit(cache=True, _nrt=False)
def _fill_powers(recall, pw):
    for k in range(recall.shape[0]):
        for d in range(pw.shape[1]):
            pw[k, d] = recall[k] ** np.float64(d)  # the ``**`` _pow falls back to


def _powers(recall: np.ndarray) -> np.ndarray:
    """float64[K, NPOW]: recall[k] ** d (by the C library's scalar pow, the same on every
    machine)."""
    pw = np.empty((len(recall), NPOW), np.float64)
    _fill_powers(np.ascontiguousarray(recall, np.float64), pw)
    return pw


FACTS = ("sets", "refused", "pairs")


def _shapes(state) -> dict:
    B, P = state.g.shape[0], int(state.params[P_PLAYERS])
    return {"sets": (B, P, state.setc.shape[1]), "refused": (B, P, P, state.refused.shape[2]),
            "pairs": (B, P, state.pair.shape[1])}


class Memory:
    """What one strategy remembers, per game and seat: ``last`` (int64[B, P], the clock of the
    seat's last update, -1 none) and ``facts`` (bool arrays [B, P, ...]: "sets" [S], "refused"
    [P, A] rotated, "pairs" [M]); ``pw`` its powers of recall. Sized at the first decision."""

    def __init__(self, recall: float):
        self.recall = float(recall)
        self.pw = _powers(np.array([self.recall]))[0]
        self.last = None
        self.facts: dict[str, np.ndarray] = {}

    def reset(self) -> None:
        self.last, self.facts = None, {}

    def size(self, state) -> None:
        shapes = _shapes(state)
        if self.last is None:
            self.last = np.full(shapes["sets"][:2], -1, np.int64)
            self.facts = {name: np.zeros(shape, np.bool_) for name, shape in shapes.items()}
        elif any(self.facts[name].shape != shape for name, shape in shapes.items()):
            # the kernels do not check their indices
            raise ValueError(f"a memory sized for {self.facts['refused'].shape[:2]} games and "
                             "seats asked in another batch: reset the strategy first")


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs, memory) in ``games`` of ``state``; ``seat_rs``
    (uint64[n], row i: the stream of game games[i]'s mover) advanced by what it draws;
    ``legal`` (bool[n, W]) what each may choose among."""
    kind, knobs, mem = policy
    mem.size(state)
    P = int(state.params[P_PLAYERS])
    out = np.zeros(len(games), np.int64)
    _play(np.zeros((1, 1), np.int64), np.array([kind], np.int64),
          np.asarray(knobs, np.float64).reshape(1, -1), mem.pw.reshape(1, -1), mem.last,
          mem.facts["sets"], mem.facts["refused"], mem.facts["pairs"], seat_rs, state.g,
          state.pp, state.stack, state.pile, state.pair, state.pair_formed, state.pair_seen,
          state.setc, state.set_owner, state.set_state, state.set_since, state.refused,
          state.animal_won, state.zone, state.zone_at, state.tmp, state.rs, state.ev,
          state.card_animal, state.card_value, state.params, state.fparams, state.dr,
          state.mover, state.legal, np.zeros(P, np.int64), np.zeros(P, np.float64),
          np.ascontiguousarray(games, np.int64), np.require(legal, np.bool_, "CW"), out,
          kernel_out(0))
    return out


@njit(cache=True, _nrt=False)
def _copy_seats(seating, k, src, dst):
    """dst[b, s] = src[b, s] for the seats of strategy k ([B, P, F] arrays)."""
    for b in range(seating.shape[0]):
        for s in range(seating.shape[1]):
            if seating[b, s] == k:
                for f in range(src.shape[2]):
                    dst[b, s, f] = src[b, s, f]


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt (or part-played) batch to the end with ``policies`` [(kind, knobs, memory)]
    (seating indexes them); returns the decisions made. ``seat_rs`` (the seats' streams, flat
    row b * P + seat) is advanced in place. The policies go on from each strategy's own
    ``Memory``, read for the seats it holds and written back after, so either kernel may
    follow the other on the same games."""
    seating = np.ascontiguousarray(seating, np.int64)
    B, P = seating.shape
    last = np.full((B, P), -1, np.int64)
    facts = {name: np.zeros(shape, np.bool_) for name, shape in _shapes(state).items()}
    flat = lambda a: a.reshape(B, P, -1)  # noqa: E731 - a view: [B, P, F]
    mems = [(k, pol[2]) for k, pol in enumerate(policies)]
    for k, mem in mems:
        mem.size(state)
        _copy_seats(seating, k, flat(mem.last), flat(last))
        for name in FACTS:
            _copy_seats(seating, k, flat(mem.facts[name]), flat(facts[name]))
    kinds = np.array([pol[0] for pol in policies], np.int64)
    kp = np.array([pol[1] for pol in policies], np.float64).reshape(len(policies), 4)
    pw = np.stack([mem.pw for _, mem in mems])
    # new arrays, as step makes them: masks handed out before stay as they were
    state.mover = state.mover.copy()
    state.legal = state.legal.copy()
    out = kernel_out(len(seating))
    _play(seating, kinds, kp, pw, last, facts["sets"], facts["refused"], facts["pairs"], seat_rs,
          state.g, state.pp, state.stack, state.pile, state.pair, state.pair_formed,
          state.pair_seen, state.setc, state.set_owner, state.set_state, state.set_since,
          state.refused, state.animal_won, state.zone, state.zone_at, state.tmp, state.rs,
          state.ev, state.card_animal, state.card_value, state.params, state.fparams, state.dr,
          state.mover, state.legal, np.zeros(P, np.int64), np.zeros(P, np.float64),
          np.zeros(0, np.int64), state.legal, np.zeros(0, np.int64), out)
    for k, mem in mems:
        _copy_seats(seating, k, flat(last), flat(mem.last))
        for name in FACTS:
            _copy_seats(seating, k, flat(facts[name]), flat(mem.facts[name]))
    decisions = kernel_done(out, per_game)
    return decisions

"""Animal Hunt's shipped strategies as compiled scalar policies (``KINDS``: their names, by
number), their memory, and the kernels that play them: ``decide`` for the rows where one sits
in the play loop, ``play_compiled`` for whole games when every seat holds one. Both call the
same ``policy``. The rules are not written again here: ``_play`` calls the game's own
``apply_action`` and ``write_view``, the per-game functions its batch ``step`` calls.

What a policy reads from the state, and the observation field each read stands for (the mover
is seat p = ``mover[b]``; it never reads another hand or a card at a place nobody has seen,
which the knowledge test in ``tests/test_animal_hunt.py`` holds it to):

- ``g[b, PHASE]`` (``obs.kind``), ``g[b, TURNS]`` (``obs.turn``), ``g[b, FIRST]`` at CHOOSE
  (``obs.first``), ``ground[b, j] >= 0`` (``obs.down``: whether a card lies there, not which);
- ``known[b]`` (``obs.known``, public: the kind seen at each place; ``obs.first_kind``,
  ``obs.known_count``), ``seen[b]`` (``obs.seen``), ``lack`` and ``asked`` of every seat
  (``obs.lack``, ``obs.asked``: ``obs.not_holding``), ``scored[b] < 0`` (``obs.scored``: pairs
  made), ``pp[b, q, HAND_N]`` (``obs.hand_size``);
- ``hand[b, p]`` (``obs.hand``: its own hand only).

Memory: a strategy with ``recall`` below 1 forgets, with draws from its seat's stream. Its
``Memory`` (``facts``, ``turn``: one row per game and seat, b * P + seat) is the strategy's own,
kept across decisions and across both kernels. Per decision a policy draws one uniform per fact
(every place, then every seat and kind), then its own uniforms (the places for a forgetful
player's random pick, the places and two more for the guesser). The streams are counter-based
(engine/chance.py), so a policy computes only the draws whose value can matter (not those of a
fact neither fresh nor held, nor a pick it does not make) and moves the stream on past the
others. The chances are float32, and compared with the knobs rounded to float32.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from safari_sim.engine.chance import _GOLDEN, _S11, _TO_UNIT, mix, uniform
from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import animal_hunt as ah
from safari_sim.games.animal_hunt import (CHOOSE, FIRST, FLIP, HAND_N, P_GROUND, P_KINDS,
                                         P_PLAYERS, PHASE, TURNS)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (ah.__file__,))

KINDS = ("rememberer", "prober", "guesser")
K_REMEMBERER, K_PROBER, K_GUESSER = range(len(KINDS))

ONE32 = np.float32(1.0)
ZERO32 = np.float32(0.0)


@njit(cache=True, inline="always", _nrt=False)
def _u(base, i):
    """The i-th (0-based) of a block of draws of a seat stream that stood at ``base`` before
    it: what the (i + 1)-th call of chance.uniform returns (the stream is counter-based, so a
    policy computes only the draws whose value it needs and moves the stream on by the block)."""
    z = mix(base + np.uint64(i + 1) * _GOLDEN)
    return np.float64(z >> _S11) * _TO_UNIT


@njit(cache=True, _nrt=False)
def _first_true(b, ground, mk, first, unknown_only, ud, use_u, ng):
    """A face-down place (``obs.down``), other than ``first`` (-1: none excluded), only one
    not remembered when ``unknown_only``: the first one, or with the uniforms of the block at
    ``ud`` (``use_u``, see ``_u``) the one of the largest u + 1.0 (ties: the first). Returns
    (place, found); place 0 when none is found. Called, not inlined (four call sites), its
    arguments typed alike at each (``_first``), so that numba compiles it once."""
    best = 0
    best_v = 0.0
    found = False
    for j in range(ng):
        if ground[b, j] < 0 or j == first or (unknown_only and mk[j] >= 0):
            continue
        if not use_u:
            return j, True
        v = _u(ud, j) + 1.0
        if v > best_v:
            best, best_v = j, v
        found = True
    return best, found


@njit(cache=True, inline="always", _nrt=False)
def _first(b, ground, mk, first, unknown_only, ud, use_u, ng):
    # literals (-1, True) would each make numba compile _first_true once more
    return _first_true(np.int64(b), ground, mk, np.int64(first), np.bool_(unknown_only),
                       np.uint64(ud), np.bool_(use_u), np.int64(ng))


@njit(cache=True, inline="always", _nrt=False)
def _unknown_place(b, ground, mk, first, ud, use_u, ng):
    """A face-down place not remembered, else any (other than ``first``, -1: none excluded).
    The first is as good as any for a perfect memory (no one has seen those places, which were
    shuffled at the deal), not for a forgetful one: the first place it forgot is most likely
    one everybody else remembers, so a forgetful player picks at random."""
    j, has = _first(b, ground, mk, first, True, ud, use_u, ng)
    if has:
        return j
    j, _ = _first(b, ground, mk, first, False, ud, use_u, ng)
    return j


@njit(cache=True, inline="always", _nrt=False)
def _candidates(b, p, hand, scored, cnt, cand, nk):
    """The kinds that may be in an opponent's hand (``cand``, and how many): not paired, not in
    this hand, not remembered at two places of the hunting ground."""
    n = 0
    for k in range(nk):
        cand[k] = scored[b, k] < 0 and not hand[b, p, k] and cnt[k] < 2
        if cand[k]:
            n += 1
    return n


@njit(cache=True, inline="always", _nrt=False)
def _rate(b, p, o, size, pp, nplayers):
    """The chance that the player o seats to the left holds any one kind it may hold, when
    ``size`` kinds may be in its hand: its hand size over that (float32)."""
    q = p + o
    q = q - nplayers if q >= nplayers else q
    h = pp[b, q, HAND_N]
    return np.float32(h) / np.float32(max(max(size, h), 1))


@njit(cache=True, inline="always", _nrt=False)
def _best_asked(b, p, fk, pp, cand, ncand, lk, chance, nplayers, nk):
    """(offset of the opponent likeliest to hold the kind flipped this turn, that chance),
    float32: each opponent not seen to lack it holds it alike, as many as its hand size over
    the kinds it may hold; the chances of the kind add up to 1 at most."""
    k1 = max(fk, 0)
    total = ZERO32
    for o in range(nplayers):
        w = ZERO32
        if o > 0 and cand[k1] and not lk[o, k1]:
            size = ncand
            for k in range(nk):
                if cand[k] and lk[o, k]:
                    size -= 1
            w = ONE32 * _rate(b, p, o, size, pp, nplayers)
        chance[o] = w
        total = total + w
    den = max(total, ONE32)
    best_o = 1
    best = chance[1] / den
    for o in range(2, nplayers):
        c = chance[o] / den
        if c > best:
            best_o, best = o, c
    return best_o, best


@njit(cache=True, inline="always", _nrt=False)
def _pair_flip_or(b, p, hand, mk, cnt, otherwise, ng):
    """The first card of a turn when a sure pair is remembered: the match of a card in the
    hand (2), else one of a kind remembered twice (1), at the first remembered place of the
    highest such value; else ``otherwise``."""
    best, best_at = 0, 0
    for j in range(ng):
        k = mk[j]
        if k < 0:
            continue
        at = 2 if hand[b, p, k] else (1 if cnt[k] >= 2 else 0)
        if at > best_at:
            best, best_at = j, at
    return best if best_at > 0 else otherwise


@njit(cache=True, inline="always", _nrt=False)
def _twin(b, p, hand, ground, mk, first, fk, ng):
    """Once a card is face up: the show action (ng) when its match is in the hand, else the
    first remembered other place of its kind; -1 for neither."""
    if hand[b, p, max(fk, 0)]:
        return ng
    for j in range(ng):
        if mk[j] == fk and j != first and ground[b, j] >= 0:
            return j
    return -1


@njit(cache=True, inline="always", _nrt=False)
def _fact(learned, t0, t1, had, surv, seat_rs, r):
    """One remembered fact: learned since the last update (fresh), or remembered before, and
    surviving the turns since with probability recall ** age (one draw from stream r, always)."""
    fresh = learned >= t0
    if not (fresh or had):
        # the draw is made (the stream moves on: it is counter-based, engine/chance.py) but its
        # value cannot matter, so it is not computed
        seat_rs[r] += _GOLDEN
        return False
    u = uniform(seat_rs, r)
    return u < surv[t1 - learned if fresh else t1 - t0]


@njit(cache=True, inline="always", _nrt=False)
def _remember(recall, surv, facts, mturn, row, seat_rs, r, b, p, t1, ground, known, seen, lack,
              asked, mk, lk, nplayers, nk, ng):
    """What seat p of game b remembers now: the kind at each place (``mk``, -1 none) and who is
    remembered not to hold which kind (``lk``, rotated: offset o is seat p + o; seen asked for
    it in vain, or asking for it), updating its memory row ``row`` (b * P + p) with draws from
    stream ``r``. With a perfect memory, the public record itself (``obs.known``,
    ``obs.not_holding >= 0``). A fact learned since the last update is remembered from that
    turn on; one already remembered survives each turn since with probability recall; a place
    whose card is gone is forgotten."""
    if recall >= 1.0:
        for j in range(ng):
            mk[j] = known[b, j]
        for o in range(nplayers):
            q = p + o
            q = q - nplayers if q >= nplayers else q
            for k in range(nk):
                lk[o, k] = max(lack[b, q, k], asked[b, q, k]) >= 0
        return
    t0 = np.int64(mturn[row])
    for j in range(ng):
        # a place whose card is gone is forgotten
        keep = _fact(np.int64(seen[b, j]), t0, t1, facts[row, j] and ground[b, j] >= 0, surv,
                     seat_rs, r)
        facts[row, j] = keep
        mk[j] = known[b, j] if keep else -1
    for o in range(nplayers):
        q = p + o
        q = q - nplayers if q >= nplayers else q
        for k in range(nk):
            f = ng + o * nk + k
            keep = _fact(np.int64(max(lack[b, q, k], asked[b, q, k])), t0, t1, facts[row, f],
                         surv, seat_rs, r)
            facts[row, f] = keep
            lk[o, k] = keep
    mturn[row] = t1


@njit(cache=True, inline="always", _nrt=False)
def policy(kind, kp, surv, facts, mturn, seat_rs, r, b, p, g, pp, hand, ground, known, seen,
           lack, asked, scored, params, mk, lk, cnt, cand, chance):
    """The action of policy ``kind`` (knobs ``kp``: recall, then ask_min | probe_min | ask) for
    game b's player to move, p, drawing from ``seat_rs[r]`` (its seat's stream); ``surv``,
    ``facts`` and ``mturn`` are its Memory's. The rest are scratch rows.

    Every policy shows the match when it holds it and flips the remembered twin of the card
    face up. Rememberer: flips a remembered match of its hand, else a remembered twin, else a
    card it does not remember (the first, or with a forgetful memory one at random); asks the
    opponent likeliest to hold the match when that chance reaches ``ask_min``, else flips
    another unknown card. Prober: also flips a remembered card an opponent holds the match of
    with chance ``probe_min`` or more (to ask for it), and always asks. Guesser: flips at
    random; asks a random opponent with chance ``ask``, else flips another card at random."""
    nplayers = params[P_PLAYERS]
    nk = params[P_KINDS]
    ng = params[P_GROUND]
    recall = kp[0]
    phase = g[b, PHASE]
    t1 = np.int64(g[b, TURNS])
    first = g[b, FIRST] if phase == CHOOSE else -1
    fk = known[b, first] if first >= 0 else -1
    row = b * nplayers + p
    _remember(recall, surv, facts, mturn, row, seat_rs, r, b, p, t1, ground, known, seen, lack,
              asked, mk, lk, nplayers, nk, ng)
    # the policy's own uniforms, drawn for every decision alike
    nd = ng + 2 if kind == K_GUESSER else (ng if recall < 1.0 else 0)
    ud = seat_rs[r]   # the block's draws are computed where they are needed (``_u``)
    seat_rs[r] += np.uint64(nd) * _GOLDEN
    use_u = nd > 0
    # remembered face-down places of each kind (obs.known_count with a perfect memory)
    for k in range(nk):
        cnt[k] = 0
    for j in range(ng):
        if mk[j] >= 0:
            cnt[mk[j]] += 1
    if kind == K_GUESSER:
        if phase == FLIP:
            return _first(b, ground, mk, -1, False, ud, True, ng)[0]
        a = _twin(b, p, hand, ground, mk, first, fk, ng)
        if a >= 0:
            return a
        flip = _first(b, ground, mk, first, False, ud, True, ng)[0]
        o = 1 + min(np.int64(_u(ud, ng) * (nplayers - 1)), nplayers - 2)
        return ng + o if _u(ud, ng + 1) < kp[1] else flip
    ncand = _candidates(b, p, hand, scored, cnt, cand, nk)
    if phase == FLIP:
        # _pair_flip_or first: its ``otherwise`` is needed only when no sure pair is remembered
        a = _pair_flip_or(b, p, hand, mk, cnt, -1, ng)
        if a >= 0:
            return a
        if kind == K_PROBER:
            # the chance that the likeliest opponent holds each kind remembered at a place (each
            # holds each kind it may hold alike; the chances of a kind add up to 1 at most);
            # flip the place of the best one to ask for its match
            for o in range(1, nplayers):   # the rate of the kinds each opponent may hold
                size = 0
                for k2 in range(nk):
                    if cand[k2] and not lk[o, k2]:
                        size += 1
                chance[o] = ONE32 * _rate(b, p, o, size, pp, nplayers)
            probe, probe_at = 0, np.float32(-1.0)
            for j in range(ng):
                k = mk[j]
                if k < 0:
                    continue
                best = ZERO32
                total = ZERO32
                if cand[k]:
                    for o in range(1, nplayers):
                        if not lk[o, k]:
                            best = max(best, chance[o])
                            total = total + chance[o]
                at = best / max(total, ONE32)
                if at > probe_at:
                    probe, probe_at = j, at
            if probe_at >= np.float32(max(kp[1], 1e-9)):
                return probe
    else:
        a = _twin(b, p, hand, ground, mk, first, fk, ng)
        if a >= 0:
            return a
        o, c = _best_asked(b, p, fk, pp, cand, ncand, lk, chance, nplayers, nk)
        if kind == K_PROBER or c >= np.float32(kp[1]):
            return ng + o
    # a card not remembered (first is -1 in FLIP); one call site, as numba compiles an inlined
    # helper again at each
    return _unknown_place(b, ground, mk, first, ud, use_u, ng)


@njit(cache=True, _nrt=False)
def _play(seating, kinds, kp, survive, facts, mturn, seat_rs, g, pp, hand, ground, known, seen,
          lack, asked, passed, scored, ducky, run, dr, ev, params, mover, legal, mk, lk, cnt, cand,
          chance, games, mask, acts, out, steps):
    """Play every game of the batch to its end, or ``steps`` more decisions of each game where
    steps > 0 (the lockstep loop stopped after that many steps: the same games). out[0]:
    decisions, out[2 + b] those of game b; out[1]: 1 + the first game whose policy chose an
    illegal action (0: none).

    With ``games`` not empty it only decides (the lockstep loop's ``decide``): acts[i] is policy
    0's action in game games[i] for its player to move, drawing from ``seat_rs[i]``; nothing is
    played (the policies read no legal mask: ``mask`` is unused). One kernel for both, so the
    policy is compiled once."""
    only = games.shape[0] > 0
    decisions = 0
    nplayers = params[P_PLAYERS]
    for j in range(games.shape[0] if only else g.shape[0]):
        b = games[j] if only else j
        made = 0
        # the view of game b is current (init or the last action wrote it)
        while only or (mover[b] >= 0 and (steps <= 0 or made < steps)):
            p = mover[b]
            k = 0 if only else seating[b, p]
            a = policy(kinds[k], kp[k], survive[k], facts[k], mturn[k], seat_rs,
                       j if only else b * nplayers + p, b, p, g, pp, hand, ground, known, seen,
                       lack, asked, scored, params, mk, lk, cnt, cand, chance)
            if only:
                acts[j] = a
                break
            if a < 0 or a >= legal.shape[1] or not legal[b, a]:
                out[0] = decisions
                out[1] = b + 1
                return
            ah.apply_action(b, a, g, pp, hand, ground, known, seen, lack, asked, passed, scored,
                            ducky, run, dr, ev, params)
            ah.write_view(b, g, hand, ground, params, mover, legal)
            decisions += 1
            made += 1
            out[2 + b] += 1
    out[0] = decisions


class Memory:
    """What one strategy remembers, per (game, seat) row b * P + seat: whether each fact (every
    place, then every seat and kind) is remembered now (``facts``), and the turn of the row's
    last update (``turn``); ``survive[a]`` = recall ** a, the chance that a fact lasts a turns.
    Sized at the first decision (``size``); a perfect memory (recall 1) keeps nothing."""

    def __init__(self, recall: float):
        self.recall = float(recall)
        # chance that a fact survives a turns: recall ** a (a table: cheaper than a power per fact)
        self.survive = self.recall ** np.arange(1 << 15, dtype=np.float64)
        self.facts = self.turn = None

    def reset(self) -> None:
        self.facts = self.turn = None

    def size(self, state) -> None:
        rows = state.g.shape[0] * int(state.params[P_PLAYERS])
        nf = int(state.params[P_GROUND]) + int(state.params[P_PLAYERS]) * int(
            state.params[P_KINDS])
        if self.facts is None:
            self.facts = np.zeros((rows, nf), np.bool_)
            self.turn = np.zeros(rows, np.int32)
        elif self.facts.shape != (rows, nf):   # the kernels do not check their indices
            raise ValueError(f"a memory sized for {self.facts.shape} asked in a batch of "
                             f"{rows} seat rows, {nf} facts: reset the strategy first")


_NO_FACTS = np.zeros((1, 1), np.bool_)
_NO_TURN = np.zeros(1, np.int32)


def _memory_of(policy: tuple, state):
    """(survive, facts, turn) of a policy's memory: its own arrays when it forgets, else
    placeholders its kernel never reads."""
    mem = policy[2] if len(policy) > 2 else None
    if policy[1][0] < 1.0:
        mem.size(state)
        return mem.survive, mem.facts, mem.turn
    return np.ones(1, np.float64), _NO_FACTS, _NO_TURN


def _scratch(state):
    ng, nk, nplayers = (int(state.params[i]) for i in (P_GROUND, P_KINDS, P_PLAYERS))
    return (np.empty(ng, np.int64), np.empty((nplayers, nk), np.bool_), np.empty(nk, np.int64),
            np.empty(nk, np.bool_), np.empty(nplayers, np.float32))


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs, memory) in ``games`` of ``state``; ``seat_rs``
    (uint64[n], row i: the stream of game games[i]'s mover) advanced by what it draws. The
    policies read no legal mask: every action they choose is legal (``legal`` unused)."""
    surv, facts, turn = _memory_of(policy, state)
    out = np.zeros(len(games), np.int64)
    mask = np.require(legal, np.bool_, "CW")
    _play(np.zeros((1, 1), np.int64), np.array([policy[0]], np.int64),
          np.asarray(policy[1], np.float64).reshape(1, -1), surv.reshape(1, -1),
          facts.reshape((1,) + facts.shape), turn.reshape(1, -1), seat_rs, state.g, state.pp,
          state.hand, state.ground, state.known, state.seen, state.lack, state.asked,
          state.passed, state.scored, state.ducky, state.run, state.dr, state.ev, state.params,
          state.mover, mask, *_scratch(state), np.ascontiguousarray(games, np.int64), mask, out,
          kernel_out(0), np.int64(0))
    return out


@njit(cache=True, _nrt=False)
def _recall(games, recall, surv, facts, mturn, seat_rs, g, ground, known, seen, lack, asked,
            params, mover, mk, lk, known_out, lacks_out):
    nplayers = params[P_PLAYERS]
    for i in range(games.shape[0]):
        b = games[i]
        p = mover[b]
        _remember(recall, surv, facts, mturn, b * nplayers + p, seat_rs, i, b, p,
                  np.int64(g[b, TURNS]), ground, known, seen, lack, asked, mk, lk, nplayers,
                  params[P_KINDS], params[P_GROUND])
        for j in range(mk.shape[0]):
            known_out[i, j] = mk[j]
        for o in range(lk.shape[0]):
            for k in range(lk.shape[1]):
                lacks_out[i, o, k] = lk[o, k]


def recall_now(state, games: np.ndarray, policy: tuple,
               seat_rs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What the player to move in each game of ``games`` remembers now, as ``policy`` does at
    the start of a decision (its memory updated, the same draws from ``seat_rs``, row i: game
    games[i]'s mover): (known int8[n, G]: the kind remembered at each place, -1 none; lacks
    bool[n, P, K], rotated: each player remembered not to hold each kind)."""
    surv, facts, turn = _memory_of(policy, state)
    ng, nk, nplayers = (int(state.params[i]) for i in (P_GROUND, P_KINDS, P_PLAYERS))
    mk, lk = _scratch(state)[:2]
    known = np.zeros((len(games), ng), np.int64)
    lacks = np.zeros((len(games), nplayers, nk), np.bool_)
    _recall(np.ascontiguousarray(games, np.int64), np.float64(policy[1][0]), surv, facts, turn,
            seat_rs, state.g, state.ground, state.known, state.seen, state.lack, state.asked,
            state.params, state.mover, mk, lk, known, lacks)
    return known.astype(np.int8), lacks


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None, steps: int = 0) -> int:
    """Play a dealt (or part-played) batch to the end with ``policies`` [(kind, knobs, memory)]
    (seating indexes them), or ``steps`` more decisions of each game where steps > 0 (the
    search's depth: ``engine.play.play_on``'s ``steps``); returns the decisions made.
    ``seat_rs`` (the seats' streams, flat
    row b * P + seat) is advanced in place; a forgetful strategy's ``Memory`` is read for the
    seats it holds and written back after, so either kernel may follow the other on the same
    games."""
    batch, nplayers = seating.shape
    ng, nk = int(state.params[P_GROUND]), int(state.params[P_KINDS])
    nf = ng + nplayers * nk
    npol = len(policies)
    kinds = np.array([pol[0] for pol in policies], np.int64)
    kp = np.array([pol[1] for pol in policies], np.float64)
    forgetful = [i for i, pol in enumerate(policies) if pol[1][0] < 1.0]
    rows = batch * nplayers if forgetful else 1
    facts = np.zeros((npol, rows, nf if forgetful else 1), np.bool_)
    mturn = np.zeros((npol, rows), np.int32)
    survive = np.ones((npol, 1 << 15), np.float64)
    for i in forgetful:
        survive[i], facts[i], mturn[i] = _memory_of(policies[i], state)
    out = kernel_out(len(seating))
    _play(np.ascontiguousarray(seating, np.int64), kinds, kp, survive, facts, mturn, seat_rs,
          state.g, state.pp, state.hand, state.ground, state.known, state.seen, state.lack,
          state.asked, state.passed, state.scored, state.ducky, state.run, state.dr, state.ev,
          state.params, state.mover, state.legal_, *_scratch(state), np.zeros(0, np.int64),
          state.legal_, np.zeros(0, np.int64), out, np.int64(steps))
    # each policy's copy holds the rows of the seats it sits in: write back only those (one
    # strategy seated under two indices shares one Memory, which a whole copy would overwrite)
    seat_of = np.ascontiguousarray(seating, np.int64).reshape(-1)
    for i in forgetful:
        mem = policies[i][2]
        mine = seat_of == i
        mem.facts[mine] = facts[i][mine]
        mem.turn[mine] = mturn[i][mine]
    decisions = kernel_done(out, per_game)
    return decisions


# ---- The search's candidates (strategies/animal_hunt.py, ``search_candidates``) -------------------

@njit(cache=True, _nrt=False)
def _held_maybe(i, o, k, lack, asked, passed):
    """Whether the player o seats to the left may hold kind k: never asked for it in vain, never
    asked for it, never passed its sure pair (``obs.lack``, ``obs.asked``, ``obs.passed``)."""
    return lack[i, o, k] < 0 and asked[i, o, k] < 0 and passed[i, o, k] < 0


@njit(cache=True, _nrt=False)
def candidates_kernel(kind, first, first_kind, down, known, seen, hand, hand_size, lack, asked,
                      passed, scored, known_count, legal, probes, out):
    """bool ``out[i, a]``: the actions worth searching in observed game i (docs/search.md,
    Animal Hunt). A sure pair is the only candidate: at the start of a turn a place whose kind
    is seen twice or matches the hand; once a card is face up, its match shown or its seen twin
    flipped (but where the show would empty the hand and end the game, the other choices too).
    Otherwise, at the start of a turn: a card nobody has seen, and up to ``probes`` seen cards
    an opponent may hold the match of (the most recently seen first: to ask for it); once a card
    is face up: asking each opponent who may hold its match, flipping a card nobody has seen, and
    flipping a seen card of another kind (ending the turn showing nothing new)."""
    n, ng = down.shape
    nplayers = hand_size.shape[1]
    for i in range(n):
        for a in range(legal.shape[1]):
            out[i, a] = False
        if kind[i] == 0:
            sure = -1
            for j in range(ng):
                k = known[i, j]
                if down[i, j] and k >= 0 and (known_count[i, k] >= 2 or hand[i, k]):
                    if sure < 0 or known_count[i, k] >= 2:
                        sure = j
                    if known_count[i, k] >= 2:
                        break
            if sure >= 0:
                out[i, sure] = True
                continue
            for j in range(ng):
                if down[i, j] and known[i, j] < 0:
                    out[i, j] = True
                    break
            for _ in range(probes):
                best, best_t = -1, -1
                for j in range(ng):
                    k = known[i, j]
                    if not down[i, j] or k < 0 or out[i, j] or scored[i, k] >= 0:
                        continue
                    maybe = False
                    for o in range(1, nplayers):
                        if _held_maybe(i, o, k, lack, asked, passed):
                            maybe = True
                    if maybe and seen[i, j] > best_t:
                        best, best_t = j, seen[i, j]
                if best < 0:
                    break
                out[i, best] = True
        else:
            f = first[i]
            k1 = first_kind[i]
            if hand[i, k1]:
                out[i, ng] = True
                if hand_size[i, 0] > 1:
                    continue
            twin = -1
            for j in range(ng):
                if down[i, j] and j != f and known[i, j] == k1:
                    twin = j
            if twin >= 0:
                out[i, twin] = True
                continue
            for o in range(1, nplayers):
                if _held_maybe(i, o, k1, lack, asked, passed) and hand_size[i, o] > 0:
                    out[i, ng + o] = True
            for j in range(ng):
                if down[i, j] and j != f and known[i, j] < 0:
                    out[i, j] = True
                    break
            for j in range(ng):
                if down[i, j] and j != f and known[i, j] >= 0 and known[i, j] != k1:
                    out[i, j] = True
                    break
        any_ = False
        for a in range(legal.shape[1]):
            out[i, a] = out[i, a] and legal[i, a]
            any_ = any_ or out[i, a]
        if not any_:
            for a in range(legal.shape[1]):
                out[i, a] = legal[i, a]

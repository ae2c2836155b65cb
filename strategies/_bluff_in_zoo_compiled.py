"""Bluff in Zoo's shipped strategies as compiled scalar policies (``KINDS``: their names, by
number), and the kernels that play them: ``decide`` for the rows where one sits in the play
loop, ``play_compiled`` for whole games when every seat holds one. Both call the same
``policy``.

The pile model (``pile_model``) is float32 arithmetic in a fixed order (pairwise sums as numpy
takes them, its product and power loops, numpy's SIMD float32 tanh ported below, the moments'
sums exact in float64 and rounded once), first written as a numpy strategy: the odds compare
against thresholds, and one ulp can change a doubt, so the order is part of the heuristic.

What a policy reads (the mover's knowledge, ``bluff_in_zoo.Obs`` names it), straight from the
state: its hand (``Obs.hand``: ``hand[b, p]``), its own cards on the pile (``Obs.my_pile``:
``placed[b, p]``), every point card (``Obs.revealed``: the sum of ``taken[b, q]``), and from
those ``Obs.unseen`` (the box's cards less these three); the public counts ``Obs.pile_by``
(``pp[b, q, PILE_BY]``) and ``Obs.said_k`` (``pp[b, q, SAID_K]``), rotated to the mover; the
public claim state ``Obs.claim_n``, ``claim_k``, ``claims``, ``pending`` (``g[b, ...]``); and
the legal mask. Never another seat's hand or placed cards, never the draw pile's order: the
knowledge test (``tests/test_bluff_in_zoo.py``) deals those again at every decision and
requires the same actions.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.extending import intrinsic

from safari_sim.engine import chance
from safari_sim.engine.jit import KERNEL_HELPERS, refresh_cache
from safari_sim.engine.play import kernel_done, kernel_out
from safari_sim.games import bluff_in_zoo as bz
from safari_sim.games.bluff_in_zoo import (ALL_EQUAL, ANIMAL, CLAIM_K, CLAIM_N, CLAIMS, CONTINUE,
                                           COUNT, COUNT_ONE, CUR, DOUBT, HAND0, KIND, OVER,
                                           P_FIRST, P_KINDS, P_MAXCLAIM, P_PLAYERS, P_TYPES,
                                           PENDING, PHASE, PILE_BY, RESPOND, ROUND, SAID_K,
                                           SOURCE, STOP, WILD)

# the kernels below inline the game's rules: recompile them when they (or the engine) change
refresh_cache(__file__, KERNEL_HELPERS + (bz.__file__,))

KINDS = ("honest", "bluffer", "doubter")
K_HONEST, K_BLUFFER, K_DOUBTER = range(len(KINDS))

f4 = np.float32
KNOWN, OTHERS = 2, 1   # how much of the mover's pile model still stands (policy)


# ---- numpy's float32 arithmetic, one value at a time -----------------------------------------

@intrinsic
def _fmaf(typingctx, a, b, c):
    """float32 fused multiply-add (one rounding), as numpy's SIMD loops use it."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        flt = ir.FloatType()
        fn = builder.module.declare_intrinsic("llvm.fma", [flt], ir.FunctionType(flt, [flt] * 3))
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _bits(typingctx, x):
    """The bit pattern of a float32, as an int32."""
    sig = types.int32(types.float32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return sig, codegen


if config.DISABLE_JIT:  # plain Python (the kernels' tests without numba): near enough
    def _fmaf(a, b, c):  # noqa: F811 - one rounding but for a rare double rounding
        return np.float32(np.float64(a) * np.float64(b) + np.float64(c))

    def _bits(x):  # noqa: F811
        return int(np.float32(x).view(np.int32))


# numpy's float32 tanh (numpy/_core/src/umath/loops_hyperbolic: SVML's table method, a degree-6
# polynomial on 32 intervals of |x| evaluated with fused multiply-adds); rows b, c0 .. c6
_TANH_LUT = np.array([
    0x0, 0x3d700000, 0x3d900000, 0x3db00000, 0x3dd00000, 0x3df00000, 0x3e100000, 0x3e300000,
    0x3e500000, 0x3e700000, 0x3e900000, 0x3eb00000, 0x3ed00000, 0x3ef00000, 0x3f100000, 0x3f300000,
    0x3f500000, 0x3f700000, 0x3f900000, 0x3fb00000, 0x3fd00000, 0x3ff00000, 0x40100000, 0x40300000,
    0x40500000, 0x40700000, 0x40900000, 0x40b00000, 0x40d00000, 0x40f00000, 0x41100000, 0x0,
    0x0, 0x3d6fb9c9, 0x3d8fc35f, 0x3daf9169, 0x3dcf49ab, 0x3deee849, 0x3e0f0ee8, 0x3e2e4984,
    0x3e4d2f8e, 0x3e6bb32e, 0x3e8c51cd, 0x3ea96163, 0x3ec543f1, 0x3edfd735, 0x3f028438, 0x3f18abf0,
    0x3f2bc480, 0x3f3bec1c, 0x3f4f2e5b, 0x3f613c53, 0x3f6ce37d, 0x3f743c4f, 0x3f7a5feb, 0x3f7dea85,
    0x3f7f3b3d, 0x3f7fb78c, 0x3f7fefd4, 0x3f7ffdd0, 0x3f7fffb4, 0x3f7ffff6, 0x3f7fffff, 0x3f800000,
    0x3f800000, 0x3f7f1f84, 0x3f7ebd11, 0x3f7e1e5f, 0x3f7d609f, 0x3f7c842d, 0x3f7b00e5, 0x3f789580,
    0x3f75b8ad, 0x3f726fd9, 0x3f6cc59b, 0x3f63fb92, 0x3f59ff97, 0x3f4f11d7, 0x3f3d7573, 0x3f24f360,
    0x3f0cbfe7, 0x3eec1a69, 0x3eb0a801, 0x3e6753a2, 0x3e132f1a, 0x3db7e7d3, 0x3d320845, 0x3c84d3d4,
    0x3bc477b7, 0x3b10d3da, 0x3a01601e, 0x388c1a3b, 0x3717b0da, 0x35a43bce, 0x338306c6, 0x0,
    0xb0343c7b, 0xbd6ee69d, 0xbd8f0da7, 0xbdae477d, 0xbdcd2a1f, 0xbdeba80d, 0xbe0c443b, 0xbe293cf3,
    0xbe44f282, 0xbe5f3651, 0xbe81c7c0, 0xbe96d7ca, 0xbea7fb8e, 0xbeb50e9e, 0xbec12efe, 0xbec4be92,
    0xbebce070, 0xbead510e, 0xbe8ef7d6, 0xbe4b8704, 0xbe083237, 0xbdaf7449, 0xbd2e1ec4, 0xbc83bf06,
    0xbbc3e0b5, 0xbb10aadc, 0xba0157db, 0xb88c18f2, 0xb717b096, 0xb5a43bae, 0xb383012c, 0x0,
    0xbeaaaaa5, 0xbeab0612, 0xbea7f01f, 0xbea4e120, 0xbea387b7, 0xbea15962, 0xbe9d57f7, 0xbe976b5a,
    0xbe90230d, 0xbe880dff, 0xbe7479b3, 0xbe4c3d88, 0xbe212482, 0xbdeb8cba, 0xbd5e78ad, 0x3c6b5e6e,
    0x3d839143, 0x3dc21ee1, 0x3de347af, 0x3dcbec96, 0x3d99ef2d, 0x3d542ea1, 0x3cdde701, 0x3c2cca67,
    0x3b81cb27, 0x3ac073a1, 0x39ac3032, 0x383a94d9, 0x36ca081d, 0x355abd4c, 0x332b3cb6, 0x0,
    0xb76dd6b9, 0xbe1c276d, 0x3c1dcf2f, 0x3dc1a78d, 0x3d96f985, 0x3da2b61b, 0x3dc13397, 0x3dd2f670,
    0x3df48a0a, 0x3e06c5a8, 0x3e1a3aba, 0x3e27c405, 0x3e2e78d0, 0x3e2c3e44, 0x3e1d3097, 0x3df4a8f4,
    0x3da38508, 0x3d31416a, 0x3b562657, 0xbcaeeac9, 0xbcce9419, 0xbcaaeac4, 0xbc49e7d0, 0xbba71ddd,
    0xbb003b0e, 0xba3f9a05, 0xb92c08a7, 0xb7ba9232, 0xb64a0b0f, 0xb4dac169, 0xb2ab78ac, 0x0,
    0x3e0910e9, 0x43761143, 0x4165ecdc, 0xc190f756, 0xc08c097d, 0xc02ba813, 0xbf7f6bda, 0x3f2b1dc0,
    0x3ece105d, 0x3f426a94, 0xbadb0dc4, 0x3da43b17, 0xbd51ab88, 0xbcaea23d, 0xbd3b6d8d, 0xbd6caaad,
    0xbd795bed, 0xbd5fddda, 0xbd038f3b, 0xbc1cad63, 0x3abb4766, 0x3b95f10b, 0x3b825873, 0x3afaea66,
    0x3a49f878, 0x39996bf3, 0x388f3e6c, 0x371bb0e3, 0x35a8a5e6, 0x34369b17, 0x322487b0, 0x0,
    0xbc0e2f66, 0x460bda12, 0x43d638ef, 0xc3e11c3e, 0xc2baa4e9, 0xc249da2d, 0xc1859b82, 0x40dd5b57,
    0x40494640, 0x40c730a8, 0xbf0f160e, 0x3e30e76f, 0xbea81387, 0xbdb26a1c, 0xbd351e57, 0xbb4c01a0,
    0x3c1d7bfb, 0x3c722cd1, 0x3c973f1c, 0x3c33a31b, 0x3b862ef4, 0x3a27b3d0, 0xba3b5907, 0xba0efc22,
    0xb97f9f0f, 0xb8c8af50, 0xb7bdddfb, 0xb64f2950, 0xb4e085b1, 0xb3731dfa, 0xb15a1f04, 0x0,
], np.uint32).view(np.float32).reshape(8, 32)
_TANH_LUT.flags.writeable = False


@njit(cache=True, inline="always", _nrt=False)
def tanh32(x, lut):
    """numpy's float32 ``tanh(x)``."""
    bits = _bits(x)
    nd = bits & np.int32(0x7fe00000)
    j = nd - np.int32(0x3d400000)
    j = 0 if j < 0 else (0x3e00000 if j > 0x3e00000 else j)
    j = j >> 21
    y = abs(x) - lut[0, j]
    r = _fmaf(lut[7, j], y, lut[6, j])
    r = _fmaf(r, y, lut[5, j])
    r = _fmaf(r, y, lut[4, j])
    r = _fmaf(r, y, lut[3, j])
    r = _fmaf(r, y, lut[2, j])
    r = _fmaf(r, y, lut[1, j])
    if nd > np.int32(0x7f000000):   # |x| past the saturation threshold
        r = f4(1.0)
    return -r if bits < 0 else r


@njit(cache=True, inline="always", _nrt=False)
def normal_cdf(z, lut):
    """Phi(z) to within 3e-4 (the tanh form), in float32."""
    v = f4(0.7978846) * (z + f4(0.044715) * z * z * z)
    return f4(0.5) + f4(0.5) * tanh32(v, lut)


@njit(cache=True, inline="always", _nrt=False)
def pairwise_sum(x, n):
    """numpy's float32 ``x[:n].sum()`` (its pairwise reduction, n <= 128)."""
    if n < 8:
        res = f4(-0.0)
        for i in range(n):
            res += x[i]
        return f4(0.0) + res
    r0, r1, r2, r3 = x[0], x[1], x[2], x[3]
    r4, r5, r6, r7 = x[4], x[5], x[6], x[7]
    i = 8
    while i < n - (n % 8):
        r0 += x[i]
        r1 += x[i + 1]
        r2 += x[i + 2]
        r3 += x[i + 3]
        r4 += x[i + 4]
        r5 += x[i + 5]
        r6 += x[i + 6]
        r7 += x[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += x[i]
        i += 1
    return f4(0.0) + res


@njit(cache=True, inline="always", _nrt=False)
def _pow(x, m):
    """numpy's float32 ``x ** m`` (libm's powf) for a whole number m >= 0: powf(x, 0) is 1 and
    powf(x, 1) is x for every float32 x in [-1, 1] (checked for all of them), and most piles
    hold no more than one card of a player."""
    if m == 0:
        return f4(1)
    if m == 1:
        return x
    return x ** m


# ---- the constants every policy shares -----------------------------------------------------------

def tables(state):
    """Per-deck constants: backs float32[K, T] (1 where card type t backs a claim of kind k: its
    animal, or wild) and the card types of the two action cards and the stop card."""
    t_cls, t_kind, t_val = state.t_cls, state.t_kind, state.t_val
    k = len(state.rules.animals)
    counts = (t_cls == WILD) | ((t_cls == ANIMAL) & (t_kind == np.arange(k)[:, None]))
    backs = (counts * t_val > 0).astype(np.float32)
    first = lambda c: int(np.flatnonzero(t_cls == c)[0])  # noqa: E731
    return backs, np.array([first(COUNT_ONE), first(ALL_EQUAL), first(STOP)], np.int64)


@njit(cache=True, _nrt=False)
def _by_kind(v, t_cls, t_kind, t_val, nt, nk, a):
    """a[0, k], a[1, k], a[2, k]: the sums of v[t] * value, v[t] * value ** 2 and v[t] over the
    animal cards of kind k; a[., nk] over the wild cards. In float64, exact (v is float32)."""
    for i in range(3):
        for k in range(nk + 1):
            a[i, k] = 0.0
    for t in range(nt):
        c = t_cls[t]
        if c == ANIMAL:
            k = t_kind[t]
        elif c == WILD:
            k = nk
        else:
            continue
        x = np.float64(v[t])
        val = np.float64(t_val[t])
        a[0, k] += x * val
        a[1, k] += x * val * val
        a[2, k] += x


@njit(cache=True, _nrt=False)
def _columns(a, power, nk, out):
    """out[s, k]: the moments of state s (2 * one + equal) and kind k from ``_by_kind`` sums: the animals of kind k (of every kind when all animals are equal) and
    the wild cards, by value (one per card when all cards count 1). Exact sums, rounded once."""
    for s in range(4):
        i = 2 if s >= 2 else power - 1
        if s % 2 == 1:
            tot = 0.0
            for kk in range(nk + 1):
                tot += a[i, kk]
            v = f4(tot)
            for k in range(nk):
                out[s, k] = v
        else:
            for k in range(nk):
                out[s, k] = f4(a[i, k] + a[i, nk])


# ---- the pile model for game b's mover --------------------

@njit(cache=True, _nrt=False)
def pile_model(b, p, trust, recall, mine_only, g, pp, hand, placed, taken, comp, params, t_cls,
               t_kind, t_val, backs, kinds, sc, qo, mo, am, cm, w, inv_sd, z0, rev_of):
    """The pile model of the mover p of game b: what it can say about the discard pile. Its
    own cards there are known; every card another player put there is, with chance ``trust``, a
    card backing the animal that player claimed last this round (people claim what they
    placed), else a random card among those whose place it does not know (the unseen cards,
    plus the share ``1 - recall`` of the point cards it forgot). The count of each kind is a
    normal law in each of the four action-card states, mixed by their chances: fills w[4]
    (the states' chances), inv_sd[4, K] and z0[4, K] (``odds``: z = z0 + (extra - count) *
    inv_sd); ``mine_only``: only what the mover's own pile cards change (w, z0: it
    placed a hand card since the model was made, so its unseen cards are the same). Scratch:
    sc float32[7, T] (unseen, q, qs, cards, x, my_pile, revealed: kept while rev_of int64[2]
    names its game and round, the point stacks change only between), qo float32[P, T] (each
    other player's card law), mo float32[P] (their pile cards), am float64[3, K + 1]
    (``_by_kind`` sums), cm float32[4, 4, K] (moments: the pile's mean, the others' second
    moment, one other player's mean, the sum of their squares)."""
    nplayers = params[P_PLAYERS]
    nt = params[P_TYPES]
    nk = params[P_KINDS]
    no = nplayers - 1
    uns, q, qs, cards, x, mine, rev = sc[0], sc[1], sc[2], sc[3], sc[4], sc[5], sc[6]
    if not mine_only:
        # Obs.revealed (every point card) and Obs.unseen; remembered_unseen adds the forgotten
        # share of the revealed cards
        if rev_of[0] != b or rev_of[1] != g[b, ROUND]:
            rev_of[0] = b
            rev_of[1] = g[b, ROUND]
            for t in range(nt):
                rev[t] = 0
            for o in range(nplayers):
                for t in range(nt):
                    rev[t] += taken[b, o, t]
        fr = f4(1 - recall)
        for t in range(nt):
            u = f4(comp[t] - hand[b, p, t] - placed[b, p, t]) - rev[t]
            if recall < 1:
                u = u + fr * rev[t]
            uns[t] = u
        tot_u = pairwise_sum(uns, nt)
        den = tot_u if tot_u > f4(1) else f4(1)
        for t in range(nt):
            q[t] = uns[t] / den
        ft = f4(trust)
        msum = f4(0)
        for o in range(no):
            qq = p + 1 + o
            qq = qq - nplayers if qq >= nplayers else qq
            mo[o] = pp[b, qq, PILE_BY]             # Obs.pile_by[o + 1]
            msum += mo[o]
            said = pp[b, qq, SAID_K]               # Obs.said_k[o + 1]
            use = False
            tot = f4(0)
            if trust != 0:
                kk = said if said > 0 else 0
                for t in range(nt):
                    qs[t] = uns[t] * backs[kk, t]
                tot = pairwise_sum(qs, nt)
                use = said >= 0 and tot > f4(0)
            if use:
                keep = f4(1) - ft
                lean = ft / (tot if tot > f4(1e-9) else f4(1e-9))
                for t in range(nt):
                    qo[o, t] = keep * q[t] + lean * qs[t]
            else:
                for t in range(nt):
                    qo[o, t] = q[t]
        # the others' expected cards (an einsum; numpy factors it when the rows are one
        # broadcast)
        if trust != 0:
            for t in range(nt):
                cards[t] = f4(0)
            for o in range(no):
                for t in range(nt):
                    cards[t] = cards[t] + mo[o] * qo[o, t]
        else:
            for t in range(nt):
                cards[t] = q[t] * msum
        # the spread: exact sums in float64, rounded once
        _by_kind(cards, t_cls, t_kind, t_val, nt, nk, am)
        _columns(am, np.int64(2), nk, cm[1])
        e = cm[3]
        for s in range(4):
            for k in range(nk):
                e[s, k] = f4(0)
        for o in range(no):
            _by_kind(qo[o], t_cls, t_kind, t_val, nt, nk, am)
            _columns(am, np.int64(1), nk, cm[2])
            for s in range(4):
                for k in range(nk):
                    mu = cm[2, s, k]
                    e[s, k] = e[s, k] + mo[o] * (mu * mu)
        for s in range(4):
            for k in range(nk):
                var = cm[1, s, k] - e[s, k]
                var = var if var > f4(1e-6) else f4(1e-6)
                inv_sd[s, k] = f4(1) / np.sqrt(var)
    # Obs.my_pile; the action cards' chances, and the weights of the four action-card states
    for t in range(nt):
        mine[t] = placed[b, p, t]
    c1, ae, st = kinds[0], kinds[1], kinds[2]
    a1 = f4(1)
    a2 = f4(1)
    odd = f4(1)
    for o in range(no):
        a1 = a1 * _pow(f4(1) - qo[o, c1], mo[o])
        a2 = a2 * _pow(f4(1) - qo[o, ae], mo[o])
        odd = odd * _pow(f4(1) - f4(2) * qo[o, st], mo[o])
    p_one = f4(1) if mine[c1] > 0 else f4(1) - a1
    p_eq = f4(1) if mine[ae] > 0 else f4(1) - a2
    odd = (f4(1) - odd) / f4(2)
    p_even = odd if placed[b, p, st] % 2 == 1 else f4(1) - odd
    w[3] = p_one * p_eq * p_even
    w[2] = p_one * (f4(1) - p_eq) * p_even
    w[1] = (f4(1) - p_one) * p_eq * p_even
    w[0] = f4(1) - (f4(0) + ((w[1] + w[2]) + w[3]))
    # the pile's expected animals
    for t in range(nt):
        x[t] = mine[t] + cards[t]
    _by_kind(x, t_cls, t_kind, t_val, nt, nk, am)
    _columns(am, np.int64(1), nk, cm[0])
    for s in range(4):
        for k in range(nk):
            z0[s, k] = (cm[0, s, k] + f4(0.5)) * inv_sd[s, k]


@njit(cache=True, inline="always", _nrt=False)
def odds(k, count, extra, w, inv_sd, z0, lut):
    """The chance the pile holds ``count`` or more animals of kind k, believing in ``extra``
    more animals than the cards say. Inlined at its five sites: called, it cost 8-10% of the
    warm speed (docs/performance.md, "First run")."""
    d = f4(extra) - f4(count)
    acc = f4(0)
    for s in range(4):
        if w[s] != 0:   # w * p is 0 there (p is finite): the sum is the same without it
            acc = acc + w[s] * normal_cdf(z0[s, k] + d * inv_sd[s, k], lut)
    return acc


@njit(cache=True, inline="always", _nrt=False)
def min_raise(b, k, g, params):
    """Obs.min_raise for kind k."""
    cn = g[b, CLAIM_N]
    low = cn if k > g[b, CLAIM_K] else cn + 1
    if g[b, CLAIMS] == 0:
        low = params[P_FIRST]
    cap = params[P_MAXCLAIM]
    return low if low < cap + 1 else cap + 1


@njit(cache=True, _nrt=False)
def safest_raise(b, g, params, extra, w, inv_sd, z0, lut):
    """(count, kind): the smallest legal claim of the kind most likely to be true."""
    cap = params[P_MAXCLAIM]
    best_k, best, best_low = 0, f4(-2), 0
    for k in range(params[P_KINDS]):
        low = min_raise(b, k, g, params)
        o = odds(k, low, extra[k], w, inv_sd, z0, lut)
        if low > cap:
            o = f4(-1)
        if o > best:
            best_k, best, best_low = k, o, low
    return best_low, best_k


@njit(cache=True, inline="always", _nrt=False)
def highest_believed(b, g, params, belief, w, inv_sd, z0, lut):
    """(count, found): the highest legal claim believed with chance ``belief`` or more."""
    cap = params[P_MAXCLAIM]
    first = g[b, CLAIMS] == 0
    best_count, found = -1, False
    for k in range(params[P_KINDS]):
        low = min_raise(b, k, g, params)
        if low > cap:
            continue
        if odds(k, low, 0.0, w, inv_sd, z0, lut) < belief:
            continue
        found = True
        lo, hi = low, (low if first else cap)
        while lo < hi:   # odds fall as the count rises: the last count still believed
            mid = (lo + hi + 1) // 2
            if odds(k, mid, 0.0, w, inv_sd, z0, lut) >= belief:
                lo = mid
            else:
                hi = mid - 1
        if lo >= best_count:   # most animals, and of those the biggest animal
            best_count = lo
    return best_count, found


@njit(cache=True, _nrt=False)
def policy(kind, kp, b, u0, u1, known, g, pp, hand, placed, taken, comp, params, t_cls, t_kind, t_val,
           legal, tb_backs, kinds, sc, qo, mo, am, cm, w, inv_sd, z0, rev_of, extra, lut):
    """The action of policy ``kind`` with knobs ``kp`` for game b's player to move, from its two
    uniforms u0, u1 (every decision draws two from the mover's seat stream). ``known``: how much of
    this player's pile model w, inv_sd and z0 still hold (nothing else it depends on changed since
    it was made): KNOWN (all of it), OTHERS (all but what its own pile cards change) or 0."""
    p = g[b, CUR]
    nt = params[P_TYPES]
    nk = params[P_KINDS]
    draw_a = HAND0 + nt
    count0 = draw_a + 2
    kind0 = count0 + params[P_MAXCLAIM]
    # knobs: doubt_at, trust, recall, draw_rate, then belief | bluff_rate, bluff_raise | skip_rate
    if known != KNOWN:
        pile_model(b, p, kp[1], kp[2], known == OTHERS, g, pp, hand, placed, taken, comp, params,
                   t_cls, t_kind, t_val, tb_backs, kinds, sc, qo, mo, am, cm, w, inv_sd, z0,
                   rev_of)
    phase = g[b, PHASE]
    if phase == RESPOND:
        true = f4(1)
        if g[b, CLAIM_N] > 0:
            ck = g[b, CLAIM_K]
            true = odds(ck if ck > 0 else 0, g[b, CLAIM_N], 0.0, w, inv_sd, z0, lut)
        false = f4(1) - true
        if false > f4(kp[0]) or not legal[CONTINUE]:
            return DOUBT
        return CONTINUE
    if phase == SOURCE:
        junk = kind == K_BLUFFER
        skip_rate = kp[4] if kind == K_DOUBTER else 0.0
        # best_hand_support: the most animals of each kind one hand card shows
        for k in range(nk):
            extra[k] = f4(0)
        for t in range(nt):
            if hand[b, p, t] > 0:
                v = f4(t_val[t])
                if t_cls[t] == WILD:
                    for k in range(nk):
                        extra[k] = max(extra[k], v)
                elif t_cls[t] == ANIMAL:
                    extra[t_kind[t]] = max(extra[t_kind[t]], v)
        _, ks = safest_raise(b, g, params, extra, w, inv_sd, z0, lut)
        # supporting_card: the hand card showing the most (junk: the fewest) animals of ks
        card, support, best = HAND0, -np.inf, -np.inf
        for t in range(nt):
            if not legal[HAND0 + t]:
                continue
            c = t_cls[t]
            sup = 0.0
            if c == WILD or (c == ANIMAL and t_kind[t] == ks):
                sup = np.float64(t_val[t])
            if c == WILD:
                sup += 0.5
            score = -sup if junk else sup
            if score > best:
                card, support, best = HAND0 + t, sup, score
        has_card = best > -np.inf
        if junk and has_card:
            support = 1.0
        draw = legal[draw_a] and (u0 < kp[3] or not has_card or support <= 0)
        a = draw_a if draw else card
        if not draw and not has_card:
            a = draw_a + 1
        if legal[draw_a + 1] and u1 < skip_rate:
            a = draw_a + 1
        return a
    if phase == COUNT:
        for k in range(nk):
            extra[k] = f4(0)
        count, _ = safest_raise(b, g, params, extra, w, inv_sd, z0, lut)
        if kind == K_HONEST:
            high, found = highest_believed(b, g, params, f4(kp[4]), w, inv_sd, z0, lut)
            if found:
                count = high
        elif kind == K_BLUFFER:
            if u0 < kp[4] and g[b, CLAIMS] > 0:
                count = min(count + np.int64(kp[5]), params[P_MAXCLAIM])
        return count0 + count - 1
    # KIND: the animal most likely to be there in the number just named
    best_k, best = 0, f4(-2)
    n = g[b, PENDING]
    for k in range(nk):
        o = odds(k, n, 0.0, w, inv_sd, z0, lut) if legal[kind0 + k] else f4(-1)
        if o > best:
            best_k, best = k, o
    return kind0 + best_k


@njit(cache=True)
def _play(seating, kinds_of, kp, g, pp, deck, hand, placed, pile, taken, ev, dr, t_cls, t_kind,
          t_val, comp, params, seat_rs, tb_backs, cards_of, legal, sc, qo, mo, am, cm, w, inv_sd,
          z0, rev_of, extra, lut, out):
    """Play every game of the batch to its end. out[0]: decisions, out[2 + b] those of game b;
    out[1]: 1 + the first game whose policy chose an illegal action (0: none)."""
    nplayers = params[P_PLAYERS]
    decisions = 0
    for b in range(g.shape[0]):
        known = 0
        while g[b, PHASE] != OVER:
            mover = g[b, CUR]
            k = seating[b, mover]
            # two uniforms for every decision
            row = b * nplayers + mover
            u0 = chance.uniform(seat_rs, row)
            u1 = chance.uniform(seat_rs, row)
            bz.legal_row(b, g, hand, params, legal)
            # int64 here and in _decide: one specialization of policy, not one for the literal 0
            a = policy(kinds_of[k], kp[k], b, u0, u1, np.int64(known), g, pp, hand, placed, taken,
                       comp, params, t_cls, t_kind, t_val, legal, tb_backs, cards_of, sc, qo, mo,
                       am, cm, w, inv_sd, z0, rev_of, extra, lut)
            if a < 0 or a >= legal.shape[0] or not legal[a]:
                out[1] = b + 1
                return
            phase = g[b, PHASE]
            bz.apply_action(b, a, g, pp, deck, hand, placed, pile, taken, ev, dr, t_cls, t_kind,
                            t_val, params)
            decisions += 1
            out[2 + b] += 1
            # going on to a claim, placing no card, or naming the claim's number leaves the same
            # player to move with the same observation but for its decision kind: its pile model
            # stands; placing a hand card changes only its own pile cards
            if (phase == RESPOND and a == CONTINUE) or phase == COUNT or \
                    (phase == SOURCE and a == HAND0 + params[P_TYPES] + 1):
                known = KNOWN
            elif phase == SOURCE and a < HAND0 + params[P_TYPES]:
                known = OTHERS
            else:
                known = 0
    out[0] = decisions


def play_compiled(state, seating: np.ndarray, policies: list, seat_rs: np.ndarray,
                  per_game: np.ndarray | None = None) -> int:
    """Play a dealt batch to the end with ``policies`` [(kind, knobs)] (seating indexes them);
    returns the decisions made. ``seat_rs`` (the seats' streams) is advanced in place, as the
    policies' draws advance it (the same draws as ``decide``'s)."""
    kinds_of = np.array([k for k, _ in policies], np.int64)
    kp = np.zeros((len(policies), 6), np.float64)
    for i, (_, knobs) in enumerate(policies):
        kp[i, :len(knobs)] = knobs
    backs, cards_of, *scratch = _scratch(state)
    nactions = bz.GAME.n_actions(state.rules, state.n_players)
    out = kernel_out(len(seating))
    _play(np.ascontiguousarray(seating, np.int64), kinds_of, kp, state.g, state.pp, state.deck,
          state.hand, state.placed, state.pile, state.taken, state.ev, state.dr, state.t_cls,
          state.t_kind, state.t_val, state.comp, state.params, seat_rs, backs, cards_of,
          np.zeros(nactions, np.bool_), *scratch, _TANH_LUT, out)
    decisions = kernel_done(out, per_game)
    return decisions


def _scratch(state):
    """The policy's scratch arrays and per-deck tables (``policy``'s arguments after legal)."""
    backs, cards_of = tables(state)
    nt = len(state.comp)
    nk = len(state.rules.animals)
    return (backs, cards_of, np.zeros((7, nt), np.float32),
            np.zeros((state.n_players, nt), np.float32), np.zeros(state.n_players, np.float32),
            np.zeros((3, nk + 1)), np.zeros((4, 4, nk), np.float32), np.zeros(4, np.float32),
            np.zeros((4, nk), np.float32), np.zeros((4, nk), np.float32),
            np.full(2, -1, np.int64), np.zeros(nk, np.float32))


@njit(cache=True, _nrt=False)
def _decide(games, kind, kp, g, pp, hand, placed, taken, comp, params, t_cls, t_kind, t_val,
            seat_rs, legal, tb_backs, cards_of, sc, qo, mo, am, cm, w, inv_sd, z0, rev_of, extra,
            lut, out):
    """The policy's action in each game of ``games`` (what ``_play`` would choose there): two
    uniforms from row i of ``seat_rs`` (game games[i]'s mover), ``legal[i]`` its legal mask,
    the pile model made afresh (``_play`` keeps it where nothing it reads changed)."""
    for i in range(games.shape[0]):
        b = games[i]
        u0 = chance.uniform(seat_rs, i)
        u1 = chance.uniform(seat_rs, i)
        out[i] = policy(kind, kp, b, u0, u1, np.int64(0), g, pp, hand, placed, taken, comp,
                        params, t_cls, t_kind, t_val, legal[i], tb_backs, cards_of, sc, qo, mo,
                        am, cm, w, inv_sd, z0, rev_of, extra, lut)


def decide(state, games: np.ndarray, policy: tuple, seat_rs: np.ndarray,
           legal: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` (kind, knobs) in ``games`` of ``state``; ``seat_rs``
    (uint64[n]: row i the stream of game games[i]'s mover) advanced by the two draws of each
    decision; ``legal`` (bool[n, W]) what each may choose among."""
    kp = np.zeros(6, np.float64)
    kp[:len(policy[1])] = policy[1]
    out = np.zeros(len(games), np.int64)
    _decide(np.ascontiguousarray(games, np.int64), np.int64(policy[0]), kp, state.g, state.pp,
            state.hand, state.placed, state.taken, state.comp, state.params, state.t_cls,
            state.t_kind, state.t_val, seat_rs, np.require(legal, np.bool_, "CW"),
            *_scratch(state), _TANH_LUT, out)
    return out


@njit(cache=True)
def _models(games, trust, recall, g, pp, hand, placed, taken, comp, params, t_cls, t_kind, t_val,
            tb_backs, cards_of, sc, qo, mo, am, cm, w, inv_sd, z0, rev_of, unseen, w_out,
            inv_out, z0_out):
    for i in range(games.shape[0]):
        b = games[i]
        pile_model(b, g[b, CUR], trust, recall, False, g, pp, hand, placed, taken, comp, params,
                   t_cls, t_kind, t_val, tb_backs, cards_of, sc, qo, mo, am, cm, w, inv_sd, z0,
                   rev_of)
        unseen[i] = sc[0]
        w_out[i] = w
        inv_out[i] = inv_sd
        z0_out[i] = z0


def pile_models(state, games: np.ndarray, trust: float, recall: float):
    """(unseen float32[n, T], w float32[n, 4], inv_sd and z0 float32[n, 4, K]): the pile model
    of the mover of each game of ``games`` (``pile_model``; unseen: the cards whose place it
    does not know, a forgotten point card among them), for tests and studies."""
    games = np.ascontiguousarray(games, np.int64)
    n, nt, nk = len(games), len(state.comp), len(state.rules.animals)
    out = (np.zeros((n, nt), np.float32), np.zeros((n, 4), np.float32),
           np.zeros((n, 4, nk), np.float32), np.zeros((n, 4, nk), np.float32))
    _models(games, np.float64(trust), np.float64(recall), state.g, state.pp, state.hand,
            state.placed, state.taken, state.comp, state.params, state.t_cls, state.t_kind,
            state.t_val, *_scratch(state)[:-1], *out)
    return out


@njit(cache=True, _nrt=False)
def _odds_table(w, inv_sd, z0, counts, lut, out):
    for i in range(counts.shape[0]):
        for k in range(counts.shape[1]):
            out[i, k] = odds(k, counts[i, k], 0.0, w[i], inv_sd[i], z0[i], lut)


def odds_table(model, counts: np.ndarray) -> np.ndarray:
    """float32[n, K]: the chance (``odds``) that the pile holds at least counts[i, k] animals
    of kind k, under ``model`` (``pile_models``' answer)."""
    _, w, inv_sd, z0 = model
    counts = np.ascontiguousarray(counts, np.int64)
    out = np.zeros(counts.shape, np.float32)
    _odds_table(w, inv_sd, z0, counts, _TANH_LUT, out)
    return out

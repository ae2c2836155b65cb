"""Does a numpy structured array per game (named fields, one kernel argument, as pgx's state
dataclass reads) compile faster than safari-sim's layout (one array per kind of field, per-game
numbers in an int32 row indexed by constant, ``g[b, POS]``)? Issue 15 asked to measure it.

The same game both ways: Duck Duck Bruce for 3 ``stop_at`` players, one round, the rules of
``tests/ddb_fused.py`` (which both must match game for game), with the whole state in the batch
as safari-sim keeps it (int16 cards, int32 per-game numbers, read and written in place, never in
locals), once as separate arrays and once as one record per game: the steps are written out for
each layout on purpose (and repeat ddb_fused's), since where the state lives is what differs.
Timed in turn in one process,
dealing included: ``python experiments/structured-state-measure.py [games] [rounds]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import ddb_fused  # noqa: E402  (the independent reference game)

from safari_sim.engine.chance import below, game_keys  # noqa: E402

C, P, S = 66, 3, 10
POS, CUR, N = 0, 1, 2
RECORD = np.dtype([("pos", np.int32), ("cur", np.int32), ("n", np.int32),
                   ("deck", np.int16, (C,)), ("row", np.int16, (C,)), ("row_at", np.int16, (S,)),
                   ("nest", np.int16, (P, C)), ("nlen", np.int16, (P,)),
                   ("best", np.int16, (P, S))])


@njit(cache=True, _nrt=False)
def _to_nest_a(b, p, c, nest, nlen, best, suit, value):
    nest[b, p, nlen[b, p]] = c
    nlen[b, p] += 1
    if value[c] > best[b, p, suit[c]]:
        best[b, p, suit[c]] = value[c]


@njit(cache=True, _nrt=False)
def arrays(rs, stop, declare, suit, value, die, g, deck, row, row_at, nest, nlen, best, score):
    """safari-sim's layout: one array per kind of field, g[b, FIELD] for the numbers."""
    decisions = 0
    for b in range(rs.shape[0]):
        for i in range(C):
            deck[b, i] = i
        for i in range(C - 1, 0, -1):
            j = below(rs, b, i + 1)
            t = deck[b, i]
            deck[b, i] = deck[b, j]
            deck[b, j] = t
        row_at[b, :] = -1
        nlen[b, :] = 0
        best[b, :, :] = 0
        g[b, POS] = 0
        g[b, CUR] = 0
        g[b, N] = 0
        while g[b, POS] < C:
            card = deck[b, g[b, POS]]
            g[b, POS] += 1
            s = suit[card]
            p = g[b, CUR]
            if s < 0:
                for i in range(g[b, N]):
                    row_at[b, suit[row[b, i]]] = -1
                g[b, N] = 0
                target, most = -1, 0
                for q in range(P):
                    if q != p and nlen[b, q] > most:
                        target, most = q, nlen[b, q]
                decisions += 1
                if target >= 0:
                    face = die[below(rs, b, die.shape[0])]
                    src, dst, k = -1, -1, 0
                    if face >= declare[p]:
                        src, dst, k = target, p, declare[p]
                    elif face < 0:
                        src, dst, k = p, target, -face
                    if k > 0:
                        for _ in range(k):
                            m = nlen[b, src]
                            if m == 0:
                                break
                            j = below(rs, b, m)
                            c = nest[b, src, j]
                            nest[b, src, j] = nest[b, src, m - 1]
                            nlen[b, src] = m - 1
                            _to_nest_a(b, dst, c, nest, nlen, best, suit, value)
                        best[b, src, :] = 0
                        for i in range(nlen[b, src]):
                            c = nest[b, src, i]
                            if value[c] > best[b, src, suit[c]]:
                                best[b, src, suit[c]] = value[c]
                g[b, CUR] = p + 1 if p < P - 1 else 0
                continue
            j = row_at[b, s]
            if j >= 0:
                for i in range(g[b, N]):
                    row_at[b, suit[row[b, i]]] = -1
                    if i < j:
                        _to_nest_a(b, p, row[b, i], nest, nlen, best, suit, value)
                g[b, N] = 0
                g[b, CUR] = p + 1 if p < P - 1 else 0
                continue
            n = g[b, N]
            row[b, n] = card
            row_at[b, s] = n
            g[b, N] = n + 1
            bank = g[b, POS] >= C
            if not bank:
                decisions += 1
                bank = n + 1 >= stop[p]
            if bank:
                for i in range(g[b, N]):
                    row_at[b, suit[row[b, i]]] = -1
                    _to_nest_a(b, p, row[b, i], nest, nlen, best, suit, value)
                g[b, N] = 0
                g[b, CUR] = p + 1 if p < P - 1 else 0
        for q in range(P):
            t = 0
            for s in range(S):
                t += best[b, q, s]
            score[b, q] = t
    return decisions


@njit(cache=True, _nrt=False)
def _to_nest_r(r, p, c, suit, value):
    r.nest[p, r.nlen[p]] = c
    r.nlen[p] += 1
    if value[c] > r.best[p, suit[c]]:
        r.best[p, suit[c]] = value[c]


@njit(cache=True, _nrt=False)
def records(rs, stop, declare, suit, value, die, st, score):
    """One record per game: st[b].pos, st[b].deck[i], ... (the same steps as ``arrays``)."""
    decisions = 0
    for b in range(rs.shape[0]):
        r = st[b]
        for i in range(C):
            r.deck[i] = i
        for i in range(C - 1, 0, -1):
            j = below(rs, b, i + 1)
            t = r.deck[i]
            r.deck[i] = r.deck[j]
            r.deck[j] = t
        r.row_at[:] = -1
        r.nlen[:] = 0
        r.best[:, :] = 0
        r.pos = 0
        r.cur = 0
        r.n = 0
        while r.pos < C:
            card = r.deck[r.pos]
            r.pos += 1
            s = suit[card]
            p = r.cur
            if s < 0:
                for i in range(r.n):
                    r.row_at[suit[r.row[i]]] = -1
                r.n = 0
                target, most = -1, 0
                for q in range(P):
                    if q != p and r.nlen[q] > most:
                        target, most = q, r.nlen[q]
                decisions += 1
                if target >= 0:
                    face = die[below(rs, b, die.shape[0])]
                    src, dst, k = -1, -1, 0
                    if face >= declare[p]:
                        src, dst, k = target, p, declare[p]
                    elif face < 0:
                        src, dst, k = p, target, -face
                    if k > 0:
                        for _ in range(k):
                            m = r.nlen[src]
                            if m == 0:
                                break
                            j = below(rs, b, m)
                            c = r.nest[src, j]
                            r.nest[src, j] = r.nest[src, m - 1]
                            r.nlen[src] = m - 1
                            _to_nest_r(r, dst, c, suit, value)
                        r.best[src, :] = 0
                        for i in range(r.nlen[src]):
                            c = r.nest[src, i]
                            if value[c] > r.best[src, suit[c]]:
                                r.best[src, suit[c]] = value[c]
                r.cur = p + 1 if p < P - 1 else 0
                continue
            j = r.row_at[s]
            if j >= 0:
                for i in range(r.n):
                    r.row_at[suit[r.row[i]]] = -1
                    if i < j:
                        _to_nest_r(r, p, r.row[i], suit, value)
                r.n = 0
                r.cur = p + 1 if p < P - 1 else 0
                continue
            n = r.n
            r.row[n] = card
            r.row_at[s] = n
            r.n = n + 1
            bank = r.pos >= C
            if not bank:
                decisions += 1
                bank = n + 1 >= stop[p]
            if bank:
                for i in range(r.n):
                    r.row_at[suit[r.row[i]]] = -1
                    _to_nest_r(r, p, r.row[i], suit, value)
                r.n = 0
                r.cur = p + 1 if p < P - 1 else 0
        for q in range(P):
            t = 0
            for s in range(S):
                t += r.best[q, s]
            score[b, q] = t
    return decisions


def play(layout: str, keys: np.ndarray, stop: np.ndarray, declare: np.ndarray):
    """(score int64[B, 3], decisions) of the games of ``keys`` with state as ``layout``:
    "arrays" or "records"."""
    games = len(keys)
    suit, value, die = ddb_fused.SUIT, ddb_fused.VALUE, ddb_fused.DIE
    score = np.zeros((games, P), np.int64)
    if layout == "records":
        st = np.zeros(games, RECORD)
        return score, records(keys.copy(), stop, declare, suit, value, die, st, score)
    g = np.zeros((games, 3), np.int32)
    deck, row = np.zeros((games, C), np.int16), np.zeros((games, C), np.int16)
    row_at = np.zeros((games, S), np.int16)
    nest, nlen = np.zeros((games, P, C), np.int16), np.zeros((games, P), np.int16)
    best = np.zeros((games, P, S), np.int16)
    return score, arrays(keys.copy(), stop, declare, suit, value, die, g, deck, row, row_at, nest,
                         nlen, best, score)


def main(games: int = 16_384, rounds: int = 40) -> None:
    keys = game_keys(3, P, games).deal
    stop = np.array([2, 3, 4], np.int64)
    declare = np.ones(P, np.int64)

    def run_arrays():
        return play("arrays", keys, stop, declare)

    def run_records():
        return play("records", keys, stop, declare)

    ref, _ = ddb_fused.play(keys, stop, declare)
    for f in (run_arrays, run_records):
        score, _ = f()
        assert np.array_equal(score, ref), f.__name__   # the same games as the reference
    times = {run_arrays: [], run_records: []}
    for k in range(rounds):
        for f in ((run_arrays, run_records) if k % 2 else (run_records, run_arrays)):
            t0 = time.process_time()
            f()
            times[f].append(time.process_time() - t0)
    a, r = (np.array(times[f]) for f in (run_arrays, run_records))
    print(f"{games:,} games, {rounds} runs each, taken in turn (CPU time, dealing included):")
    print(f"  arrays, g[b, FIELD]:    median {np.median(a) / games * 1e6:.3f} us a game")
    print(f"  one record per game:    median {np.median(r) / games * 1e6:.3f} us a game")
    print(f"  records / arrays, median of paired ratios: {np.median(r / a):.3f}")


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:3]))

"""Deducktion: the deducer's knowledge is complete for what the seat's history implies (issue 29,
item 7). A reference deduction written again in plain Python from the rulebook (sets of places
per card, every rule applied until nothing changes, after every history row and at the end) is
compared with the compiled deducer's card sets (``track_one``, through
``_deducktion_compiled.deductions``) and with the game's ``track`` (what the worlds for search
are dealt within) on positions of random games: each must pin down every card the reference
pins down, and never a card somewhere it is not."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.games import deducktion as dk
from safari_sim.games import get_game
from strategies import _deducktion_compiled as cc

from heuristics import positions

G = get_game("deducktion")
BOX, RES = "box", "reserve"


def _cards(mask):
    return [c for c in range(30) if (int(mask) >> c) & 1]


def _question_cards(q):
    """The cards question q asks about, from the printed shapes (number, sequence, either)."""
    if q < 6:
        return {a * 6 + q for a in range(5)}
    if q < 186:
        a, r = divmod(q - 6, 36)
        s, e = divmod(r, 6)
        out, x = [], s
        while True:
            out.append(a * 6 + x)
            if x == e:
                return set(out)
            x = (x + 1) % 6
    pa, pn = divmod(q - 186, 15)
    pairs_a = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    pairs_n = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    (a1, a2), (n1, n2) = pairs_a[pa], pairs_n[pn]
    return {a * 6 + n for a in (a1, a2) for n in (n1, n2)}


def _settle(know, size):
    """Apply the counting rules until nothing changes: a place holding as many sure cards as
    its size takes no other; a place with exactly as many possible cards as its size has them
    all; the box holds one card of each animal."""
    changed = True
    while changed:
        changed = False
        for x, n in size.items():
            sure = [c for c in know if know[c] == {x}]
            maybe = [c for c in know if x in know[c]]
            if len(sure) >= n:
                for c in maybe:
                    if know[c] != {x}:
                        know[c] = know[c] - {x}
                        changed = True
            maybe = [c for c in know if x in know[c]]
            if len(maybe) == n:
                for c in maybe:
                    if know[c] != {x}:
                        know[c] = {x}
                        changed = True
        for a in range(5):
            cands = [a * 6 + n for n in range(6) if BOX in know.get(a * 6 + n, ())]
            if len(cands) == 1 and know[cands[0]] != {BOX}:
                know[cands[0]] = {BOX}
                changed = True
            elif len(cands) > 1 and any(know[c] == {BOX} for c in cands):
                for c in cands:
                    if know[c] != {BOX}:
                        know[c] = know[c] - {BOX}
                        changed = True


def reference(obs, i):
    """{card: set of places} for observed game i: places are seat offsets (0 this seat), BOX
    and (two players) RES; cards on the table are left out."""
    P = obs.players
    others = set(range(1, P)) | {BOX} | ({RES} if P == 2 else set())
    dealt = _cards(obs.start_hand[i])
    know = {c: ({0} if c in dealt else set(others)) for c in range(30)
            if obs.table[i, c] != P}
    size = {o: len(dealt) for o in range(P)}
    size[BOX] = 5
    if P == 2:
        size[RES] = len(dealt)            # dealt as for three players: the third hand
    for row in obs.hist[i, :int(obs.n_hist[i])]:
        ty, a, t, q, k, hold, got, gave = (int(v) for v in row)
        if ty == dk.H_MELD:
            for c in _cards(got):
                know.pop(c, None)
            size[a] -= k
        elif ty == dk.H_DRAW:
            if a == 0:
                know[_cards(got)[0]] = {0}
            else:
                for c in know:
                    if RES in know[c]:
                        know[c] = know[c] | {a}
            size[a] += 1
            size[RES] -= 1
        elif a == 0 or t == 0:
            other = t if a == 0 else a
            if a == 0:
                for c in _question_cards(q) & know.keys():
                    know[c] = know[c] - {t}
            # the seat knows both sides; a card that went and came back (the asker held fewer
            # than it received) ends where the last pass put it: with the asker the cards it
            # gave back, with the target the cards it got back
            first, last = ((got, 0), (gave, other)) if a == 0 else ((gave, other), (got, 0))
            for mask, where in (first, last):
                for c in _cards(mask):
                    know[c] = {where}
        else:
            Q = _question_cards(q) & know.keys()
            if k == 0:
                for c in Q:
                    know[c] = know[c] - {t}
            else:
                maybe = [c for c in Q if t in know[c]]
                sure = [c for c in Q if know[c] == {t}]
                if len(maybe) == k:
                    for c in maybe:
                        know[c] = {t}
                if len(sure) == k:
                    for c in Q:
                        if know[c] != {t}:
                            know[c] = know[c] - {t}
                # the k cards at t went to a; a passed back k (by choice when it held more,
                # its whole hand when it held as many or fewer, then gave back some of the k)
                for c in know:
                    s = know[c]
                    new = s - {a, t}
                    if a in s:
                        new |= {a, t} if hold > k else {t}
                    if t in s:
                        new |= ({a, t} if hold < k else {a}) if c in Q else {t}
                    know[c] = new
        _settle(know, size)
    for c in know:
        know[c] = {0} if obs.hand[i, c] else know[c] - {0}
    for c in [c for c in know if obs.table[i, c] >= 0]:
        del know[c]
    size = {o: int(obs.hand_size[i, o]) for o in range(P)}
    size[BOX] = 5
    if P == 2:
        size[RES] = 25 - sum(size[o] for o in range(P)) - int((obs.table[i] >= 0).sum())
    _settle(know, size)
    return know


def _places(obs, i, bits):
    P = obs.players
    names = list(range(P)) + [BOX] + ([RES] if P == 2 else [])
    return {names[x] for x in range(len(names)) if (int(bits) >> x) & 1}


def _positions(players, rules, B, seed, every=3):
    """Observations (outside exchanges) of games the three shipped strategies play, with the
    truth: yields (obs, true place of each card by the seat's names, or None on the table, the
    state, the games observed)."""
    for st, step, mv, live in positions(G, G.make_rules(rules), players,
                                        ("naive", "collector", "deducer"), B, seed):
        ph = st.g[live, dk.PHASE]
        look = live[np.isin(ph, [dk.MELD, dk.TARGET, dk.QUESTION, dk.GUESS])]
        if step % every == 0 and look.size:
            obs = G.observe(st, look).freeze()
            truth = []
            for i, b in enumerate(look):
                row = {}
                for c in range(30):
                    x = int(st.loc[b, c])
                    row[c] = ((x - int(mv[b])) % players if x < players else
                              BOX if x == dk.MISSING else RES if x == dk.DRAW else None)
                truth.append(row)
            yield obs, truth, st, look


TRACKERS = {
    "deducer": lambda obs, st, look: cc.deductions(st, look, fallback=False)[0],
    "track": lambda obs, st, look: dk.track(obs, fallback=False),
}


def compare(players, rules, B, seed, trackers=TRACKERS):
    """{tracker: (cards the reference pins down, those it pins down too, its pinned cards)}: and
    asserts each is sound (the truth is always among the places)."""
    counts = {name: [0, 0, 0] for name in trackers}
    for obs, truth, st, look in _positions(players, rules, B, seed):
        sets = {name: tr(obs, st, look) for name, tr in trackers.items()}
        for i in range(len(obs)):
            know = reference(obs, i)
            for c, places in know.items():
                real = truth[i][c]
                assert real in places, ("reference", c, places, real)
                for name, poss in sets.items():
                    got = _places(obs, i, poss[i, c])
                    assert real in got, (name, c, got, real)
                    n = counts[name]
                    if len(got) == 1:
                        n[2] += 1
                    if len(places) == 1:
                        n[0] += 1
                        n[1] += got == places
    return counts


@pytest.mark.parametrize("players,rules", [
    (2, {}), (2, {"two_player_reserve": "draw_when_empty"}), (2, {"two_player_reserve": "aside"}),
    (3, {}), (4, {}), (5, {})])
def test_the_deducer_finds_every_card_the_reference_deduction_pins_down(players, rules):
    for name, (ref_sure, both, mine) in compare(players, rules, B=24, seed=31).items():
        assert ref_sure > 500, name
        assert both == ref_sure, f"{name}: {ref_sure - both} of {ref_sure} certain cards missed"
        assert mine >= ref_sure, name


def _numpy_world_sets(st, games):
    """What ``determinize`` dealt within before ``world_sets`` was compiled: the game's numpy
    ``track`` of the mover's observation (propagated outside an exchange), as W_* bits by
    absolute seat."""
    P = st.n_players
    obs = G.observe(st, games)
    seat = G.to_move(st)[games].astype(np.int64)
    ph = st.g[games, dk.PHASE]
    poss = np.zeros((len(games), 30), np.uint8)
    for rows, prop in ((np.flatnonzero((ph != dk.PASS) & (ph != dk.GIVE)), True),
                       (np.flatnonzero((ph == dk.PASS) | (ph == dk.GIVE)), False)):
        if rows.size:
            poss[rows] = dk.track(obs.take(rows), fallback=False, propagate=prop)
    allowed = np.zeros((len(games), 30), np.int32)
    for o in range(P):
        allowed |= ((poss >> o) & 1).astype(np.int32) << ((seat + o) % P)[:, None].astype(np.int32)
    allowed |= ((poss >> P) & 1).astype(np.int32) << dk.W_MISSING
    if P == 2:
        allowed |= ((poss >> (P + 1)) & 1).astype(np.int32) << dk.W_DRAW
    return allowed


@pytest.mark.parametrize("players,rules", [
    (2, {}), (2, {"two_player_reserve": "draw_when_empty"}), (3, {}), (3, {"add_to_meld": True}),
    (4, {"question_decks": 2}), (5, {})])
def test_compiled_world_sets_are_the_numpy_track(players, rules):
    """``world_sets`` (compiled ``track_one``, what ``determinize`` deals within) gives the sets
    of the game's numpy ``track`` at every decision of every kind (exchanges included, where
    neither propagates by the present sizes) of games the three heuristics play."""
    looked, kinds, pinned = 0, set(), 0
    for st, _, mv, live in positions(G, G.make_rules(rules), players,
                                     ("naive", "collector", "deducer"), 24, 7 + players):
        want = _numpy_world_sets(st, live)
        got = dk.world_sets(st, live, mv[live])
        assert np.array_equal(got, want)
        looked += len(live)
        kinds |= set(st.g[live, dk.PHASE].tolist())
        pinned += int(((got & (got - 1)) == 0).sum())
    assert looked > 500 and pinned > 1000
    assert {dk.MELD, dk.TARGET, dk.QUESTION, dk.PASS, dk.GIVE, dk.GUESS} <= kinds or players == 2

"""Deducktion's legal moves written again from the rulebook (issue 29, item 8), in plain Python from
the state's arrays (whose turn, the decision under way, where each card is, the question deck),
never from the game module's masks or helpers, and compared with the game's legal mask at every
decision of random and strategy-played games, at 2-5 players and under the rules values that
change what is legal."""

from __future__ import annotations

from itertools import combinations

import pytest

from safari_sim.games import deducktion as dk
from safari_sim.games import get_game
from strategies import get_strategy
from tests.legal_oracle import check_legal

G = get_game("deducktion")
EXPLORER = 5
# the question ids (the module's docstring): "how many n's" n - 1; a sequence of animal a from s
# up to e (round from 6 to 1) 6 + a * 36 + s * 6 + e; either of two animals showing either of
# two numbers 186 + pair(a1, a2) * 15 + pair(n1, n2), pairs in lexicographic order
PAIRS5 = {p: i for i, p in enumerate(combinations(range(5), 2))}
PAIRS6 = {p: i for i, p in enumerate(combinations(range(6), 2))}


def question_id(a1, n1, a2, n2):
    """The question two chosen cards ask (animals as assigned, numbers 0-5)."""
    if n1 == n2:                                   # same number: how many of that number
        return n1
    if a1 == a2:                                   # same animal: not one id but two sequences
        raise ValueError
    return 186 + PAIRS5[tuple(sorted((a1, a2)))] * 15 + PAIRS6[tuple(sorted((n1, n2)))]


def sequences(a, n1, n2):
    """Both sequences of animal a between n1 and n2: lower up to higher, and higher up to 6 then
    round from 1 to lower. One that takes all six numbers is the id "1 up to 6"."""
    out = set()
    for s, e in ((n1, n2), (n2, n1)):
        length = (e - s) % 6 + 1
        if length == 6:
            s, e = 0, 5
        out.add(6 + a * 36 + s * 6 + e)
    return out


def questions(three):
    """Every question the three turned-up cards allow: choose two; an explorer becomes the
    animal of either other card (one explorer), both become the third card's (two), or any
    animal but explorer (three)."""
    cards = [(int(q) // 6, int(q) % 6) for q in three]
    animals = {s for s, _ in cards if s != EXPLORER}
    out = set()
    for i, j in ((0, 1), (0, 2), (1, 2)):
        (si, ni), (sj, nj) = cards[i], cards[j]
        if not animals:
            options = [(a, a) for a in range(5)]
        else:
            ai = [si] if si != EXPLORER else sorted(animals)
            aj = [sj] if sj != EXPLORER else sorted(animals)
            options = [(x, y) for x in ai for y in aj]
        for a1, a2 in options:
            if ni != nj and a1 == a2:
                out |= sequences(a1, ni, nj)
            else:
                out.add(question_id(a1, ni, a2, nj))
    return out


def oracle(state, b):
    g, loc, P = state.g[b], state.loc[b], state.n_players
    phase, cur = int(g[dk.PHASE]), int(g[dk.CUR])
    add_to_meld = state.rules.add_to_meld
    if phase == dk.MELD:
        # "If you hold three or more cards of the same rank, you may ... place them on the table"
        # (or, with add_to_meld, add any held to an own meld of that number); or go on
        legal = {dk.A_ASK}
        for n in range(6):
            held = sum(1 for a in range(5) if loc[a * 6 + n] == cur)
            melded = any(loc[a * 6 + n] == dk.MELD0 + cur for a in range(5))
            if held >= 3 or (add_to_meld and melded and held >= 1):
                legal.add(dk.A_MELD + n)
        return legal
    if phase == dk.TARGET:
        # "choose another player to question": every other seat, by offset to the left
        return {dk.A_TARGET + o - 1 for o in range(1, P)}
    if phase == dk.QUESTION:
        i = int(g[dk.QPOS])
        return {dk.A_QUESTION + q for q in questions(state.qdeck[b, i:i + 3])}
    if phase in (dk.PASS, dk.GIVE):
        # pass back (before looking) or give back (after) a card of the own hand; the cards
        # coming in are not in it before looking
        return {dk.A_CARD + c for c in range(30) if loc[c] == cur}
    if phase == dk.GUESS:
        # one number for the animal being guessed, or none
        return {dk.A_GUESS + n for n in range(6)} | {dk.A_NO_GUESS}
    return set()


CASES = [(2, {}), (2, {"two_player_reserve": "draw_when_empty"}),
         (2, {"two_player_reserve": "aside"}), (3, {}), (3, {"add_to_meld": True,
                                                             "final_meld": True}),
         (4, {}), (4, {"question_decks": 2}), (5, {}), (5, {"hand_sizes": (7, 5, 4)})]


@pytest.mark.parametrize("players,rules", CASES)
def test_the_mask_is_the_printed_legal_moves(players, rules):
    r = G.make_rules(rules)
    n = check_legal(G, r, players, oracle, games=30, seed=players)
    shipped = [get_strategy(G.id, s)() for s in ("naive", "collector", "deducer")]
    n += check_legal(G, r, players, oracle, games=30, seed=100 + players, strategies=shipped)
    assert n >= 2000, n

"""Savannah: an independent legal-move oracle against the game's mask (issue 29, item 8).

Savannah's actions are a candidate list (docs/rules/savannah.md, "The action space"): action i
places hand slot ``cand_slot[i]`` (the card ``cand_card[i]``) on space ``cand_cell[i]``, and a
claim's choice is 0 (keep the 1st pile's card) or 1 (the 2nd's). So the oracle works out from the
table as it lies (the face-up and face-down cards of the board, the mover's hand, the rules) the
set of every legal (hand slot, space) the rulebook allows, and then reads what each action number
means: the legal numbers are those that name a legal placement (each placement once, with the
card the slot holds). A legal placement that no action names fails the test at once (the listing
left it out). Nothing of the game module is called.

- "Beginning the First Phase": the dealer's card goes anywhere (the grid has no borders: the game
  puts it in the centre); each other player's opening card must touch "one other card on one
  corner": exactly one card, diagonally, none by a side.
- "Step A": the card "must touch at least one card already on the table -- either on a corner or
  on a side" (a face-down card is one, with ``touch_face_down``; docs/rules/savannah.md). Each
  line it joins (the unbroken run of face-up cards through it along its row, and its column; a
  face-down card or an empty space ends it) must obey A (one animal, no number twice), B (one
  number, no animal twice) or C (no animal twice, no number twice).
- "The second phase": "play cards the same way".
- Step C's claim: keep either drawn card.
"""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.games import get_game
from safari_sim.games.savannah import turn as T
from safari_sim.games.savannah.grid import BLOCKED
from strategies import get_strategy
from tests.legal_oracle import check_legal

G = get_game("savannah")
SHIPPED = ("greedy", "cautious", "space_maker")


def _animal(card: int) -> int:
    return card // 12         # 0 elephant .. 4 zebra, 5 explorer (rules.py's card numbering)


def _number(card: int) -> int:
    return card % 6


def _obeys(line: list[int]) -> bool:
    """Rule A, B or C for the cards of one line (one card alone is no line)."""
    if len(line) < 2:
        return True
    animals = {_animal(c) for c in line}
    numbers = {_number(c) for c in line}
    n = len(line)
    a = len(animals) == 1 and len(numbers) == n
    b = len(numbers) == 1 and len(animals) == n
    c = len(animals) == n and len(numbers) == n
    return a or b or c


def legal_placements(st, b: int) -> set[tuple[int, int]]:
    """Every legal (hand slot, space) of game b's mover, from the table and the rulebook."""
    S = int(st.board.shape[1] ** 0.5 + 0.5)    # the board is a square grid of S * S spaces
    p = int(st.g[b, T.CUR])
    hand = [int(c) for c in st.hand[b, p, :st.hand_n[b, p]]]
    board = st.board[b]
    cells = np.flatnonzero(board > 0)          # face up: card id + 1
    up = dict(zip(cells.tolist(), (board[cells].astype(np.int64) - 1).tolist()))
    down = set(np.flatnonzero(board == BLOCKED).tolist())
    if not up:
        # the dealer's first card: anywhere; the game puts it in the centre of its grid
        centre = (S // 2) * S + S // 2
        return {(s, centre) for s in range(len(hand))}
    sides = (-1, 1, -S, S)
    corners = (-S - 1, -S + 1, S - 1, S + 1)
    on_table = set(up) | (down if st.rules.touch_face_down else set())
    spaces = {q + d for q in on_table for d in sides + corners} - set(up) - down
    opening = int(st.g[b, T.PHASE]) == T.OPENING
    legal = set()
    for q in spaces:
        if opening:
            if not any(q + d in up for d in sides) and sum(q + d in up for d in corners) == 1:
                legal |= {(s, q) for s in range(len(hand))}
            continue
        lines = []
        for step in (1, S):                    # the row, the column
            run = []
            for d in (-step, step):
                e = q + d
                while e in up:
                    run.append(up[e])
                    e += d
            lines.append(run)
        for s, c in enumerate(hand):
            if all(_obeys(run + [c]) for run in lines):
                legal.add((s, q))
    return legal


def oracle(st, b: int) -> set[int]:
    if int(st.g[b, T.KIND]) == T.KEEP:
        return {0, 1}
    legal = legal_placements(st, b)
    p = int(st.g[b, T.CUR])
    named = set()
    acts = set()
    for i in range(int(st.g[b, T.N_CAND])):    # what each action number means
        s, q = int(st.cand_slot[b, i]), int(st.cand_cell[b, i])
        if (s, q) in legal and (s, q) not in named and st.cand_card[b, i] == st.hand[b, p, s]:
            named.add((s, q))
            acts.add(i)
    missing = legal - named
    if missing:  # no action number names them: the mask cannot allow them
        S = int(st.board.shape[1] ** 0.5 + 0.5)
        c = S // 2
        where = sorted((s, int(st.hand[b, p, s]), q // S - c, q % S - c) for s, q in missing)
        raise AssertionError(f"savannah game {b}: legal placements (hand slot, card, row, "
                             f"column) that no action names: {where}")
    return acts


RULES = [
    {},
    {"touch_face_down": False},
    {"buried_on_table": "all", "hand_size": 7},         # more face-down cards, bigger hands
    {"explorer_cards": False, "opening_draw": True, "hand_size": 3},
    {"first_pile": 36, "buried_on_table": "own", "max_claims": 1},
    {"first_pile": 16, "touch_face_down": False, "hand_size": 6},
]


@pytest.mark.parametrize("players", [2, 3])
def test_the_mask_is_the_rulebooks_legal_moves(players):
    compared = 0
    for i, over in enumerate(RULES):
        rules = G.make_rules(over)
        compared += check_legal(G, rules, players, oracle, games=3, seed=i)
        strats = [get_strategy(G.id, n)() for n in SHIPPED]
        compared += check_legal(G, rules, players, oracle, games=3, seed=100 + i,
                                strategies=strats)
    assert compared >= 1500, compared

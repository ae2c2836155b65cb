"""Safari Sprint: an independent oracle of the legal actions (issue 29, item 8), written from the
rulebook's "Choosing Your Animal" and "Step B: Play Cards" and compared with the game's mask at
every decision (tests/legal_oracle.py), at 3-5 players and under every rules value that changes
legality (`steals`, `explorer_start`, the deal of the later races `reset_deal`, `extra_card`),
with random play and with the shipped strategies.

It reads the position's facts only (whose turn and which decision, the duckies' spaces, who holds
each marker, the hands) and the action numbering of docs/rules/safari_sprint.md: a card of type
t (``suit * 6 + number - 1``) is action t; putting animal a on space s is
``36 + a * (explorer_start - 1) + s - 1``."""

from __future__ import annotations

import pytest

from legal_oracle import check_legal
from safari_sim.games import get_game
from safari_sim.games import safari_sprint as ss
from strategies import get_strategy

G = get_game("safari_sprint")
ANIMALS = ("elephant", "lion", "monkey", "tiger", "zebra")
EXPLORER = 5


def broken(b, why):
    """The position itself breaks a rule (no mask can be right)."""
    raise AssertionError(f"game {b}: {why}")


def oracle(st, b):
    r, P = st.rules, st.n_players
    animals = sorted(ANIMALS.index(a) for a in (r.animals or ANIMALS[:P]))
    S = r.explorer_start - 1                       # the spaces behind Ducktor Livingstone
    p = int(st.g[b, ss.CUR])
    phase = int(st.g[b, ss.PHASE])
    owner = {a: int(st.owner[b, a]) for a in animals}
    mine = [a for a in animals if owner[a] == p]
    if phase == ss.CLAIM:
        # "Skip over any players who have a marker card in front of them"
        if mine:
            broken(b, f"seat {p} chooses while holding the {ANIMALS[mine[0]]}")
        on_board = [int(st.pos[b, EXPLORER])] + [int(st.pos[b, a]) for a in animals
                                                 if owner[a] >= 0]
        out = set()
        for a in animals:
            if owner[a] < 0:
                # "put its ducky in any empty space behind Ducktor Livingstone"
                spaces = range(1, S + 1)
            elif r.steals:
                # "move that ducky to a NEW empty space lower than the one it's already in.
                # The 1 space is the lowest space that you can choose"
                spaces = range(1, int(st.pos[b, a]))
            else:
                continue
            out |= {36 + a * S + s - 1 for s in spaces if s not in on_board}
        return out
    if phase == ss.PLAY:
        # "She ... could have played any card from her hand"
        if len(mine) != 1:
            broken(b, f"seat {p} plays without exactly one animal")
        out = {t for t in range(36) if st.hand[b, p, t] > 0}
        if not out:
            broken(b, f"seat {p} must play but holds no card")
        return out
    broken(b, f"unknown decision {phase}")


READINGS = [{}, {"steals": False}, {"explorer_start": 7}, {"reset_deal": "keep"},
            {"extra_card": 0, "rounds": 10, "races": 2}]
STRATS = ("backer", "spoiler", "projector")


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("rules", READINGS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "printed")
def test_oracle_agrees_with_the_mask(players, rules):
    r = G.make_rules(rules)
    n = check_legal(G, r, players, oracle, games=8, seed=players)
    strats = [get_strategy(G.id, s)() for s in STRATS]
    n += check_legal(G, r, players, oracle, games=8, seed=10 + players, strategies=strats)
    assert n >= 1000

"""Paper Safari: an independent legal-move oracle against the game's mask (issue 29, item 8).

The oracle reads the position (the decision in the turn, the mover's grid and which of its cards
lie face up, the card in hand and where it came from, the piles' sizes, the rules) and lists what
the rulebook allows, with no helper of the game module. The turn's steps are those of
docs/rules/paper_safari.md: reveal (setup), draw, peek (the Elephant), place.

- Setup: "each player chooses one of their own cards and turns it face up": a face-down one.
- "Draws the top card from the deck or from the discard pile": either pile that has a card.
- Elephant (with `elephant_look`): "they may look at one of their own face-down cards": any
  face-down card, or not look; no such decision without a face-down card, nor without the rule.
- "Exchanges this card for one of their own": any slot, face up or down ("may not swap the
  positions": no other move). "If a player drew a card from the deck, they may send it to the
  discard pile without exchanging it (exception: the Tarzan card)", and not after a look with
  the Elephant ("they must exchange one of their own cards for the Elephant").
"""

from __future__ import annotations

import pytest

from safari_sim.games import get_game
from safari_sim.games import paper_safari as ps
from strategies import get_strategy
from tests.legal_oracle import check_legal

G = get_game("paper_safari")
SHIPPED = ("threshold", "column_matcher", "closer")


def oracle(st, b: int) -> set[int]:
    r = st.rules
    elephant = len(r.animal_values)   # the card types: the animals, the Elephant, Tarzan, Safari
    tarzan = elephant + 1
    g = st.g[b]
    me = int(g[ps.CUR])
    slots = range(r.rows * r.cols)
    face_down = {ps.SLOT0 + k for k in slots if not st.up[b, me, k]}
    phase = int(g[ps.PHASE])
    if phase == ps.REVEAL:
        return face_down
    if phase == ps.DRAW:
        acts = set()
        if g[ps.DECK_N] > 0:
            acts.add(ps.DECK)
        if g[ps.DISC_N] > 0:
            acts.add(ps.TAKE)
        return acts
    held = int(g[ps.HELD])
    if phase == ps.PEEK:
        if held != elephant or not r.elephant_look or not face_down:
            return set()  # no look to decide on
        return face_down | {ps.NO_PEEK}
    if phase == ps.PLACE:
        acts = {ps.SLOT0 + k for k in slots}
        if g[ps.FROM_DECK] == 1 and held != tarzan and g[ps.PEEKED] == 0:
            acts.add(ps.DISCARD)
        return acts
    return set()


RULES = [
    {},
    {"elephant_look": False, "initial_face_up": 0},
    {"initial_face_up": 2, "chain_face_up": False, "tarzan_cards": 6},
    {"rows": 1, "cols": 2, "tarzan_cards": 0, "safari_cards": 4},
    {"rows": 3, "cols": 4, "cards_per_animal": 6, "initial_face_up": 0},  # 12 spare cards at 5
    {"rows": 1, "cols": 4, "cards_per_animal": 6, "tarzan_cards": 6},
]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_mask_is_the_rulebooks_legal_moves(players):
    compared = 0
    for i, over in enumerate(RULES):
        # one round to win, a shorter cap (random play may throw every card away): more
        # rules, less time
        rules = G.make_rules({"wins_needed": 1, "max_round_turns": 60, **over})
        compared += check_legal(G, rules, players, oracle, games=8, seed=i)
        strats = [get_strategy(G.id, n)() for n in SHIPPED]
        compared += check_legal(G, rules, players, oracle, games=8, seed=100 + i,
                                strategies=strats)
    assert compared >= 3000, compared

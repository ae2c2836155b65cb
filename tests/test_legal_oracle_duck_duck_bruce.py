"""Duck Duck Bruce: an independent legal-move oracle against the game's mask (issue 29, item 8).

The oracle reads the position (the draw pile, how far it has been turned, the row, the rules) and
lists what the rulebook lets the player do, without any helper of the game module:

- "If the card is a duck ... either end your turn by taking the card ... OR continue turning over
  cards": after a fresh duck (its suit not already in the row), take another card or bank.
  The last card of the pile is no decision: "whoever turned over the card can finish the turn"
  (banked, or lost with ``last_card_banks: false``), so a duck decision needs a card left.
- "If you turn over a card showing Bruce ... choose a player and declare how many cards you wish
  to take (from 1 to 3)": every opponent (any nest, even an empty one: the text sets no limit)
  and every number from 1 to ``max_steal``; passing is "the opportunity" declined, allowed only
  with ``bruce_may_pass``.
"""

from __future__ import annotations

import pytest

from safari_sim.games import duck_duck_bruce as ddb
from safari_sim.games import get_game
from strategies import get_strategy
from tests.legal_oracle import check_legal

G = get_game("duck_duck_bruce")
SHIPPED = ("stop_at", "card_counter", "scoreboard", "value_hunter")


def oracle(st, b: int) -> set[int]:
    r = st.rules
    players = st.n_players
    nv = len(r.suit_values)
    nducks = r.suits * nv          # duck c has suit c // nv; the Bruces come after the ducks
    ncards = nducks + r.bruce_cards
    turned = int(st.g[b, ddb.POS])  # cards turned over from the draw pile this round
    assert turned >= 1, "a decision is always about a card just turned over"
    card = int(st.deck[b, turned - 1])
    if card >= nducks:  # Bruce
        acts = {ddb.STEAL0 + (o - 1) * r.max_steal + (k - 1)
                for o in range(1, players) for k in range(1, r.max_steal + 1)}
        if r.bruce_may_pass:
            acts.add(ddb.PASS)
        return acts
    # a duck: it must lie at the end of the row, alone of its suit there (else a double duck
    # would have ended the turn), and the pile must still hold a card to turn over
    row = [int(x) for x in st.row[b, :int(st.g[b, ddb.ROW_LEN])]]
    if not row or row[-1] != card or [c // nv for c in row].count(card // nv) != 1:
        return set()
    if turned >= ncards:
        return set()
    return {ddb.DRAW, ddb.BANK}


RULES = [
    {"rounds": None},
    {"bruce_may_pass": False},
    {"max_steal": 1},
    {"max_steal": 5, "bruce_may_pass": False},
    {"last_card_banks": False, "double_loses": "row"},
    {"bruce_cards": 12, "suits": 5, "rounds": 2},
    {"bruce_cards": 0, "rounds": 1},
]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_mask_is_the_rulebooks_legal_moves(players):
    compared = 0
    for i, over in enumerate(RULES):
        rules = G.make_rules({"rounds": 1, **over})  # one round each: more rules, less time
        compared += check_legal(G, rules, players, oracle, games=12, seed=i)
        strats = [get_strategy(G.id, n)() for n in SHIPPED]
        compared += check_legal(G, rules, players, oracle, games=12, seed=100 + i,
                                strategies=strats)
    assert compared >= 2000, compared

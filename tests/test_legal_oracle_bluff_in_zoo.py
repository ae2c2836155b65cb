"""Bluff in Zoo: an independent legal-move oracle against the game's mask (issue 29, item 8).

The oracle reads the position (the decision in the turn, the last claim, the mover's hand, how
far the draw pile has been dealt, the rules) and lists what the rulebook allows, with no helper
of the game module. A turn is split as docs/rules/bluff_in_zoo.md says: respond (go on or doubt),
the card (a hand card, the draw pile's top card, or none), the number, the animal.

- "Doubt the previous player's claim": always, once there is a claim; going on needs a claim
  that bests it within the claim cap (the cap is not printed: `max_claim`, or when null the most
  animals of one kind a pile can hold, worked out again here from the deck).
- "Place one card ... pick one of your hand cards ... Instead, you may draw a card from the draw
  pile" (only while it has cards) ... "Place no card": not "in the starting player's first
  move", where placing a card "is the only possible action".
- "You always have to best the player before you": more animals of any kind, or as many of a
  bigger animal; "the starting player always has to claim to have seen exactly one animal (of
  any kind)" (`first_claim`).
"""

from __future__ import annotations

import pytest

from safari_sim.games import bluff_in_zoo as bz
from safari_sim.games import get_game
from strategies import get_strategy
from tests.legal_oracle import check_legal

G = get_game("bluff_in_zoo")
SHIPPED = ("honest", "bluffer", "doubter")


def claim_cap(r) -> int:
    """The highest number a claim may name, from the deck (docs/rules/bluff_in_zoo.md)."""
    if r.max_claim is not None:
        return r.max_claim
    wild = sum(v * n for v, n in enumerate(r.wild_cards, start=1))
    one_kind = sum(v * n for v, n in enumerate(r.animal_cards, start=1))
    # "All animals are equal" makes every animal card count as the claimed kind
    animals = one_kind * (len(r.animals) if r.all_equal_cards > 0 else 1)
    return max(wild + animals, r.first_claim)


def oracle(st, b: int) -> set[int]:
    r = st.rules
    kinds = len(r.animals)
    types = kinds * len(r.animal_cards) + len(r.wild_cards) + 3
    cap = claim_cap(r)
    draw_a = bz.HAND0 + types
    no_card, count0 = draw_a + 1, draw_a + 2
    kind0 = count0 + cap
    deck_cards = (sum(r.animal_cards) * kinds + sum(r.wild_cards) + r.count_one_cards
                  + r.all_equal_cards + r.stop_cards)
    g = st.g[b]
    me = int(g[bz.CUR])
    last_n, last_k = int(g[bz.CLAIM_N]), int(g[bz.CLAIM_K])
    first = last_n == 0  # no claim yet this round: the starting player's first move
    if first:
        claims = {(r.first_claim, k) for k in range(kinds)}
    else:
        claims = {(n, k) for n in range(1, cap + 1) for k in range(kinds)
                  if n > last_n or (n == last_n and k > last_k)}
    phase = int(g[bz.PHASE])
    if phase == bz.RESPOND:
        assert not first
        return {bz.DOUBT} | ({bz.CONTINUE} if claims else set())
    if phase == bz.SOURCE:
        acts = {bz.HAND0 + t for t in range(types) if st.hand[b, me, t] > 0}
        if int(g[bz.POS]) < deck_cards:
            acts.add(draw_a)
        if not first:
            acts.add(no_card)
        return acts
    if phase == bz.COUNT:
        return {count0 + n - 1 for n, _ in claims}
    if phase == bz.KIND:
        n = int(g[bz.PENDING])
        return {kind0 + k for m, k in claims if m == n}
    return set()


RULES = [
    {},
    {"first_claim": 3, "next_starter": "loser"},
    {"max_claim": 4, "first_claim": 2},           # the cap binds: forced doubts
    {"max_claim": 20, "hand_size": 8},             # hands run the draw pile dry
    {"all_equal_cards": 0, "hand_size": 3},        # the null cap without "All animals are equal"
    {"animals": ["mouse", "lion"], "animal_cards": [6, 6], "wild_cards": [4], "max_claim": 6},
]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_mask_is_the_rulebooks_legal_moves(players):
    compared = 0
    for i, over in enumerate(RULES):
        rules = G.make_rules({"point_limit": 15, **over})  # shorter games: more rules, less time
        compared += check_legal(G, rules, players, oracle, games=6, seed=i)
        strats = [get_strategy(G.id, n)() for n in SHIPPED]
        compared += check_legal(G, rules, players, oracle, games=6, seed=100 + i,
                                strategies=strats)
    assert compared >= 3000, compared

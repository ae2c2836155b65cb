"""Jungle Thrills: an independent oracle of the legal actions (issue 29, item 8), compared with
the game's mask at every decision (tests/legal_oracle.py), both versions, 2-6 players, under
every rules value that changes what is legal or which positions are reached.

The oracle is written from the rulebook and reads only the position's facts: where every card
lies (``zone``, ``zone_at``), which cards are animals, the decision's asker and the demands made
in the chain so far. It never reads the game's counters of held sets, of sets won per animal, the
pair slots or the decision kind, and calls none of the module's helpers.
"""

from __future__ import annotations

import numpy as np
import pytest

from legal_oracle import check_legal
from safari_sim.games import get_game
from safari_sim.games import jungle_thrills as jt
from strategies import get_strategy

G = get_game("jungle_thrills")


def oracle(st, b: int) -> set[int]:
    r, P = st.rules, st.n_players
    A = r.animals
    per = len(r.animal_values)            # cards of one animal
    nac = A * per                          # animal cards come first, then the Hunters
    zone, at = st.zone[b], st.zone_at[b]
    if r.version == 2:
        # "Any player ... who turns up a card which he thinks will make up one of the pairs on
        # the table ... touch the pair ... which he claims": any pair in the centre, or none
        slots = {int(at[c]) for c in range(nac) if zone[c] == jt.Z_PAIR}
        return {jt.PASS} | {jt.HUNT0 + j for j in slots}
    asker = int(st.g[b, jt.ASKER])
    # the sets each player holds (three cards each, face down to his right)
    held = [sum(1 for c in range(nac) if zone[c] == jt.Z_HELD and at[c] == p) // 3
            for p in range(P)]
    # "No player may ask for a set that has been won outright": an animal is out once every
    # set its cards can make is won
    won = [sum(1 for c in range(x * per, (x + 1) * per) if zone[c] == jt.Z_WON) // 3
           for x in range(A)]
    acts = set()
    for o in range(1, P):                  # never himself: "does not give a player the right
        q = (asker + o) % P                # to ask for any set he holds himself"
        if held[q] > 0:                    # "demand any set of 3 held by any other player"
            acts |= {(o - 1) * A + x for x in range(A) if won[x] < per // 3}
    # the asking phase: "the only cards left in play are the 2 Hunter cards", every animal card
    # in a set; its turn ("the next in turn asks") is the first demand of a chain
    asking = all(zone[c] in (jt.Z_HELD, jt.Z_WON) for c in range(nac))
    turn_asks = asking and st.g[b, jt.CHAIN] == 0
    if r.may_decline and not turn_asks:
        acts.add((P - 1) * A)              # the Hunter's or the refused player's right unused
    if not acts:
        raise AssertionError(f"game {b}: a decision with nothing to choose")
    return acts


V1 = [{}, {"may_decline": True}, {"asking_ends": "no_demand", "may_decline": True},
      {"asking_ends": "sole_holder", "held_count_at_end": True},
      {"set_handed_over": "first", "next_turn": "asker", "rounds": 2},
      # three sets an animal (with three won, the animal is out), more Hunters
      {"animals": 4, "animal_values": [1, 1, 1, 2, 2, 2, 3, 3, 3], "hunter_cards": 4,
       "may_decline": True},
      {"hunter_cards": 0}]
V2 = [{"version": 2}, {"version": 2, "hunt_first": False}, {"version": 2, "missed_calls": 0.3}]


def _strategies():
    return [get_strategy(G.id, "rememberer")(), get_strategy(G.id, "leader_hunter")(),
            get_strategy(G.id, "guesser")(recall=0.5)]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_mask_equals_an_independent_oracle(players):
    n = 0
    for i, rules in enumerate(V1 + V2):
        r = G.make_rules(rules)
        n += check_legal(G, r, players, oracle, games=6, seed=10 * players + i)
        n += check_legal(G, r, players, oracle, games=6, seed=100 + 10 * players + i,
                         strategies=_strategies())
    assert n >= 4000, n

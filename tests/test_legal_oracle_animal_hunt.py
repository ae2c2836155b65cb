"""Animal Hunt: an independent oracle of the legal actions (issue 29, item 8), written from the
rulebook's "On Your Turn" and compared with the game's mask at every decision
(tests/legal_oracle.py), at 2-4 players and under every rules value that changes which
positions arise (`pair_turns_again`, `empty_hand_ends`, `last_pair_takes_ducky`) and a smaller
deck, with random play and with the shipped strategies.

It reads the position's facts only (whose turn and which decision, the card flipped this turn,
the hunting ground, the hands) and the action numbering of docs/rules/animal_hunt.md: a place of
the hunting ground is its own number 0 .. G-1, choice A (show) is G, choice B (ask the player o
seats to the left) is G + o. A card is ``copy * K + kind`` (K = animals x numbers): the two
copies of one kind are a pair."""

from __future__ import annotations

import pytest

from legal_oracle import check_legal
from safari_sim.games import animal_hunt as ah
from safari_sim.games import get_game
from strategies import get_strategy

G = get_game("animal_hunt")


def broken(b, why):
    """The position itself breaks a rule (no mask can be right)."""
    raise AssertionError(f"game {b}: {why}")


def oracle(st, b):
    r, P = st.rules, st.n_players
    K = r.animals * r.numbers
    ground = [int(c) for c in st.ground[b]]
    places = len(ground)
    p = int(st.g[b, ah.CUR])
    phase = int(st.g[b, ah.PHASE])
    holds = {k for k in range(K) if st.hand[b, p, k]}
    sizes = [int(st.hand[b, q].sum()) for q in range(P)]
    # "When any player runs out of cards in their hand, the game ends immediately" (the 'turn'
    # reading: when that player is to move)
    if r.empty_hand_ends == "any" and min(sizes) == 0:
        broken(b, f"a hand is empty ({sizes}) and the game goes on")
    if not holds:
        broken(b, f"seat {p} is to move with no card in hand")
    face_down = {i for i in range(places) if ground[i] >= 0}
    if phase == ah.FLIP:
        # "Flip any card in the hunting ground face up"
        return face_down
    if phase == ah.CHOOSE:
        first = int(st.g[b, ah.FIRST])
        if first not in face_down:
            broken(b, "no card flipped this turn")
        out = face_down - {first}                    # C: flip another card
        if ground[first] % K in holds:               # A: show the matching card
            out.add(places)
        out |= {places + o for o in range(1, P)}     # B: ask any (other) player
        return out
    broken(b, f"unknown decision {phase}")


READINGS = [{}, {"pair_turns_again": False}, {"empty_hand_ends": "turn"},
            {"last_pair_takes_ducky": False},
            {"animals": 3, "numbers": 4, "hand_sizes": [4, 3, 2]}]
STRATS = [("rememberer", {}), ("prober", {}), ("guesser", {}), ("rememberer", {"recall": 0.7})]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", READINGS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "printed")
def test_oracle_agrees_with_the_mask(players, rules):
    r = G.make_rules(rules)
    n = check_legal(G, r, players, oracle, games=4, seed=players)
    strats = [get_strategy(G.id, s)(**kw) for s, kw in STRATS]
    n += check_legal(G, r, players, oracle, games=12, seed=10 + players, strategies=strats)
    assert n >= (600 if "animals" in rules else 1500)  # the small deck plays short games

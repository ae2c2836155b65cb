"""Hi-Lo Hijinks: an independent oracle of the legal actions (issue 29, item 8), written from the
rulebook's "On Your Turn" and compared with the game's mask at every decision
(tests/legal_oracle.py), at 2-4 players, under every rules value that changes legality
(`reverse_on_match`, `give_on_match`, `younger`) and a smaller deck, with random play and with
the shipped strategies.

It reads the position's facts only (whose turn and which decision, the hands, the stacks) and
the action numbering documented in docs/rules/hi_lo_hijinks.md ("Decisions"), recomputed here:
on stack s an animal card numbered v is ``s * 2 * V + v - 1`` and an explorer card numbered v is
``s * 2 * V + V + v - 1``; keep, reverse and give-nothing follow the plays; then a gift of kind
k to the player o seats to the left is ``give0 + k * (P - 1) + o - 1``."""

from __future__ import annotations

import pytest

from legal_oracle import check_legal
from safari_sim.games import get_game
from safari_sim.games import hi_lo_hijinks as hl
from strategies import get_strategy

G = get_game("hi_lo_hijinks")


def broken(b, why):
    """The position itself breaks a rule (no mask can be right)."""
    raise AssertionError(f"game {b}: {why}")


def oracle(st, b):
    r, P = st.rules, st.n_players
    A, V = r.animals, r.values
    keep = 2 * A * V                       # after the plays: keep, reverse, give nothing
    give0 = keep + 3
    p = int(st.g[b, hl.CUR])
    hand = st.hand[b, p]
    phase = int(st.g[b, hl.PHASE])
    explorers = 0 if r.younger else V      # "leave out Ducktor Livingstone and his cards"
    if phase == hl.PLAY:
        # "Play one card": a player with no cards is skipped, so the mover holds one. Each card
        # goes on its own stack, wanted or not (not wanted takes the stack); an explorer card on
        # any stack.
        if hand.sum() == 0:
            broken(b, f"seat {p} must play but holds no card")
        out = set()
        for s in range(A):
            for v in range(1, V + 1):
                if hand[s * V + v - 1] > 0:
                    out.add(s * 2 * V + v - 1)
                if v <= explorers and hand[A * V + v - 1] > 0:
                    out.add(s * 2 * V + V + v - 1)
        return out
    # the two decisions of an exact match: the card just played equals the top card it covered
    s = int(st.g[b, hl.MSTACK])
    n = int(st.slen[b, s]) if s >= 0 else 0
    if n < 2 or st.stack[b, s, n - 1] % V != st.stack[b, s, n - 2] % V:
        broken(b, "a match decision without an exact match")
    if phase == hl.REVERSE:
        # "You may reverse the stack's direction ... if you wish"
        if not r.reverse_on_match:
            broken(b, "a reversal decision without reverse_on_match")
        return {keep, keep + 1}
    if phase == hl.GIVE:
        # "You may also choose a card from your hand and force another player to add it"; not
        # for younger players; with an empty hand there is nothing to give (no decision)
        if not r.give_on_match or r.younger or hand.sum() == 0:
            broken(b, "a gift decision where no gift is allowed or possible")
        out = {keep + 2}
        for k in range((A + 1) * V):
            if hand[k] > 0:
                out |= {give0 + k * (P - 1) + o - 1 for o in range(1, P)}
        return out
    broken(b, f"unknown decision {phase}")


READINGS = [{}, {"reverse_on_match": False}, {"give_on_match": False}, {"younger": True},
            {"reverse_on_match": False, "give_on_match": False},
            {"animals": 3, "values": 4, "copies": 3, "hand_size": 5}]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", READINGS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "printed")
def test_oracle_agrees_with_the_mask(players, rules):
    r = G.make_rules(rules)
    n = check_legal(G, r, players, oracle, games=12, seed=players)
    strats = [get_strategy(G.id, s)() for s in ("safe", "dumper", "giver")]
    n += check_legal(G, r, players, oracle, games=12, seed=10 + players, strategies=strats)
    assert n >= 1200

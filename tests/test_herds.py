"""Herds: the rulebook's trade examples, each rule from a constructed position, and properties
over random games whose oracles (conservation, herd validity, the score recount) are written here
again in plain Python from the rulebook."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import get_game
from safari_sim.games import herds as H
from strategies import get_strategy
from strategies.base import random_legal

from heuristics import check_knowledge as check_heuristics_knowledge
from heuristics import choose, leaky_policy_is_caught

G = get_game("herds")
ELE, LION, MONKEY, TIGER, ZEBRA, EXP = range(6)


def c(animal, number, copy=0):
    return G.card(animal, number, copy)


def position(hands, grass, herds=(), players=2, cur=0, deck_left=None, totals=None, **rules):
    st = G.init(G.make_rules(rules), players, deal_keys(1, 7))
    if totals:
        st.team_total[0, :len(totals)] = totals
    G.position(st, 0, cur, hands, grass, herds, deck_left=deck_left)
    return st


def legal(st):
    return np.flatnonzero(G.legal(st)[0]).tolist()


def act(st, a):
    assert G.legal(st)[0, a], f"{G.action_name(st.rules, st.n_players, a)} is not legal"
    G.step(st, np.array([a]))


def card_a(card):
    return H.A_CARD0 + card


def kind(st):
    return int(st.g[0, H.PHASE])


def hand(st, p):
    return sorted(G.zones(st, 0)[f"hand{p}"])


FILL = "monkey"  # filler cards that take part in nothing


# ---- Step Two B: the rulebook's three trades -------------------------------------------------

def test_trade_james_six_lion_for_four_cards():
    """James plays the 6-Lion and takes 1-Monkey, 1-Elephant, 2-Elephant and 2-Ducktor
    Livingstone, as printed: no herd on the table. The explorer must be played this turn; with
    the cards he holds after the trade (his 3-Elephant kept, the 1-Elephant taken) it makes a
    new elephant herd 1-2-3, standing in for the 2, and a card is left to pass."""
    take = [c("monkey", 1), c("elephant", 1), c("elephant", 2), c("explorer", 2)]
    st = position({0: [c("lion", 6), c("elephant", 3)], 1: [c("lion", 1)]}, take)
    assert H.A_TRADE in legal(st)
    act(st, H.A_TRADE)
    assert kind(st) == H.K_GIVE
    act(st, card_a(c("lion", 6)))
    assert H.A_GIVE_DONE in legal(st)
    act(st, H.A_GIVE_DONE)
    assert kind(st) == H.K_TAKE
    for card in take:
        act(st, card_a(card))
    assert kind(st) == H.K_HERD
    assert hand(st, 0) == sorted(take + [c("elephant", 3)])
    assert sorted(G.zones(st, 0)["grass"]) == [c("lion", 6)]
    # the explorer must go into a herd before the turn ends: "done" is not yet legal
    assert legal(st) == [H.A_NEW0 + ELE * 4 + 0]
    act(st, H.A_NEW0 + ELE * 4 + 0)
    assert G.herds(st, 0)[0][2] == [c("elephant", 1), c("explorer", 2), c("elephant", 3)]
    assert kind(st) == H.K_PASS  # nothing else can be laid: on to step four
    assert hand(st, 0) == sorted([c("monkey", 1), c("elephant", 2)])
    # the older reading ('grows') allows the explorer only to grow a herd on the table: the
    # 6-Lion cannot be traded (6 cannot be made from 1 + 1 + 2 without it)
    st = position({0: [c("lion", 6), c("elephant", 3)]}, take, trade_explorer="grows")
    act(st, H.A_TRADE)
    assert legal(st) == [card_a(c("elephant", 3))]


def test_trade_james_with_a_herd_for_the_explorer_to_grow():
    """Under 'grows' the explorer may be taken when it grows a herd of the side (a zebra herd
    3-5 here): the only placement then uses it."""
    take = [c("monkey", 1), c("elephant", 1), c("elephant", 2), c("explorer", 2)]
    zebra = [c("zebra", 3), c("zebra", 4), c("zebra", 5)]
    for reading in ("grows", "playable"):
        st = position({0: [c("lion", 6), c("tiger", 6)], 1: [c("lion", 1)]},
                      take + [c("lion", 5)], herds=[(0, ZEBRA, zebra)], trade_explorer=reading)
        for a in [H.A_TRADE, card_a(c("lion", 6)), H.A_GIVE_DONE] + [card_a(x) for x in take]:
            act(st, a)
        assert H.A_DONE not in legal(st)
        assert legal(st) == [H.A_GROW0 + 0]  # grow the zebra herd at its low end
        act(st, H.A_GROW0)
        assert G.herds(st, 0)[0][2] == [c("explorer", 2)] + zebra
        assert kind(st) == H.K_PASS  # nothing else can be laid: on to step four


def test_trade_james_explorer_that_could_not_be_played_may_not_be_taken():
    """Without a herd for the 2-explorer to grow and without the cards for a new herd, taking
    it would leave it unplayable: illegal under 'playable' and 'grows'; 'any' lifts it."""
    take = [c("monkey", 1), c("elephant", 1), c("elephant", 2), c("explorer", 2)]
    for reading in ("playable", "grows"):
        st = position({0: [c("lion", 6), c("tiger", 6)]}, take, trade_explorer=reading)
        # 6 cannot be made from 1 + 1 + 2 without the explorer: no trade at all
        assert H.A_TRADE not in legal(st)
    st = position({0: [c("lion", 6), c("tiger", 6)]}, take, trade_explorer="any")
    act(st, H.A_TRADE)
    act(st, card_a(c("lion", 6)))
    act(st, H.A_GIVE_DONE)
    assert card_a(c("explorer", 2)) in legal(st)


def test_trade_explorer_for_a_new_herd_with_the_cards_held_after_the_trade():
    """'playable': the 2-explorer and the 1-Lion taken for the 3-Tiger make, with the 3-Lion
    kept, a lion herd 1-2-3, the 6-Zebra left to pass. Giving the 3-Lion instead would leave no
    herd for the explorer (illegal); without the 6-Zebra no card would be left to pass."""
    grass = [c("explorer", 2), c("lion", 1)]
    st = position({0: [c("lion", 3), c("tiger", 3), c("zebra", 6)]}, grass)
    assert H.A_TRADE in legal(st)
    act(st, H.A_TRADE)
    assert legal(st) == [card_a(c("tiger", 3))]
    act(st, card_a(c("tiger", 3)))
    assert legal(st) == [H.A_GIVE_DONE]
    act(st, H.A_GIVE_DONE)
    assert legal(st) == sorted(card_a(x) for x in grass)
    act(st, card_a(c("explorer", 2)))
    assert legal(st) == [card_a(c("lion", 1))]
    act(st, card_a(c("lion", 1)))
    assert legal(st) == [H.A_NEW0 + LION * 4 + 0]
    act(st, H.A_NEW0 + LION * 4 + 0)
    assert G.herds(st, 0)[0][2] == [c("lion", 1), c("explorer", 2), c("lion", 3)]
    assert hand(st, 0) == [c("zebra", 6)]
    assert H.A_TRADE not in legal(position({0: [c("lion", 3), c("tiger", 3)]}, grass))
    assert H.A_TRADE not in legal(position({0: [c("lion", 3), c("tiger", 3), c("zebra", 6)]},
                                           grass, trade_explorer="grows"))


def test_trade_gene_two_cards_for_one():
    """Gene plays the 2-Lion and 4-Tiger and takes the 6-Elephant."""
    st = position({0: [c("lion", 2), c("tiger", 4), c("monkey", 6)]},
                  [c("elephant", 6), c("zebra", 5)])
    act(st, H.A_TRADE)
    act(st, card_a(c("lion", 2)))
    assert H.A_GIVE_DONE not in legal(st)  # 2 alone matches nothing in the grassland
    act(st, card_a(c("tiger", 4)))
    act(st, H.A_GIVE_DONE)
    assert legal(st) == [card_a(c("elephant", 6))]  # 5 cannot make 6 with what is left
    act(st, card_a(c("elephant", 6)))
    assert hand(st, 0) == sorted([c("elephant", 6), c("monkey", 6)])
    assert sorted(G.zones(st, 0)["grass"]) == sorted([c("lion", 2), c("tiger", 4), c("zebra", 5)])


def test_trade_debra_two_cards_for_three():
    """Debra plays the 5-Tiger and 4-Monkey and takes 2-Elephant, 3-Elephant, 4-Elephant."""
    take = [c("elephant", 2), c("elephant", 3), c("elephant", 4)]
    st = position({0: [c("tiger", 5), c("monkey", 4), c("lion", 1)]}, take + [c("zebra", 6)])
    act(st, H.A_TRADE)
    act(st, card_a(c("tiger", 5)))
    act(st, card_a(c("monkey", 4)))
    act(st, H.A_GIVE_DONE)
    assert st.g[0, H.NEED] == 9
    act(st, card_a(c("elephant", 2)))
    # 7 still to take: the 6-Zebra would leave 1, which the grassland cannot make
    assert card_a(c("zebra", 6)) not in legal(st)
    act(st, card_a(c("elephant", 3)))
    act(st, card_a(c("elephant", 4)))
    assert kind(st) == H.K_HERD
    assert hand(st, 0) == sorted(take + [c("lion", 1)])


def test_no_trade_without_an_exact_total():
    st = position({0: [c("lion", 6), c("tiger", 6)]}, [c("elephant", 1), c("zebra", 2)])
    assert H.A_TRADE not in legal(st)


def test_a_trade_may_give_the_whole_hand():
    """Audit: "play one or more cards from your hand" - the whole hand too; the cards taken
    come into the hand, so a card is left to pass."""
    st = position({0: [c("lion", 6), c("tiger", 6)]},
                  [c("elephant", 6), c("zebra", 6), c("elephant", 6, 1)])
    act(st, H.A_TRADE)
    act(st, card_a(c("lion", 6)))
    act(st, card_a(c("tiger", 6)))
    act(st, H.A_GIVE_DONE)
    act(st, card_a(c("elephant", 6)))
    act(st, card_a(c("zebra", 6)))
    assert hand(st, 0) == sorted([c("elephant", 6), c("zebra", 6)])
    # a one-card hand may be traded too
    st = position({0: [c("lion", 5)]}, [c("elephant", 2), c("zebra", 3)])
    act(st, H.A_TRADE)
    act(st, card_a(c("lion", 5)))
    act(st, H.A_GIVE_DONE)
    act(st, card_a(c("zebra", 3)))
    act(st, card_a(c("elephant", 2)))
    assert hand(st, 0) == sorted([c("elephant", 2), c("zebra", 3)])


def test_a_whole_hand_trade_for_explorers_only_is_illegal():
    """Both explorers could grow a herd, but with nothing else in hand one of them would have
    to stay for step four: unplayable, so that trade is illegal; with an animal card it is not."""
    herds = [(0, ZEBRA, [c("zebra", n) for n in (4, 5, 6)]),
             (0, ELE, [c("elephant", n) for n in (3, 4, 5)])]
    st = position({0: [c("lion", 5)]}, [c("explorer", 2), c("explorer", 3)], herds=herds)
    assert H.A_TRADE not in legal(st)
    st = position({0: [c("lion", 5)]}, [c("explorer", 2), c("explorer", 3), c("monkey", 5)],
                  herds=herds)
    act(st, H.A_TRADE)
    act(st, card_a(c("lion", 5)))
    act(st, H.A_GIVE_DONE)
    assert legal(st) == [card_a(c("monkey", 5))]
    # keeping a card, the two explorers may be taken
    st = position({0: [c("lion", 5), c("tiger", 1)]}, [c("explorer", 2), c("explorer", 3)],
                  herds=herds)
    act(st, H.A_TRADE)
    act(st, card_a(c("lion", 5)))
    act(st, H.A_GIVE_DONE)
    assert legal(st) == [card_a(c("explorer", 2)), card_a(c("explorer", 3))]


# ---- Setup, steps one, two, four, five ----------------------------------------------------------

@pytest.mark.parametrize("players,size", [(2, 6), (3, 5), (4, 4)])
def test_the_deal(players, size):
    st = G.init(G.make_rules(), players, deal_keys(5, 1))
    for b in range(5):
        z = G.zones(st, b)
        # seat 0 (left of the dealer) has drawn its step-one card
        assert [len(z[f"hand{p}"]) for p in range(players)] == [size + 1] + [size] * (players - 1)
        assert len(z["grass"]) == 4
        assert len(z["deck"]) == 66 - players * size - 4 - 1
    assert (G.to_move(st) == 0).all()
    assert (st.g[:, H.PHASE] == H.K_STEP2).all()


def test_step_two_a_draw_from_grassland_or_deck_then_flip():
    st = position({0: [c("lion", 6)], 1: [c("lion", 1)]}, [c("elephant", 1)], deck_left=10)
    top = G.zones(st, 0)["deck"][0]
    act(st, card_a(c("elephant", 1)))
    assert c("elephant", 1) in hand(st, 0)
    assert kind(st) == H.K_PASS  # no herd can be made: straight to step four
    act(st, card_a(c("lion", 6)))  # two players: the receiver is the one opponent
    assert c("lion", 6) in hand(st, 1)
    assert G.zones(st, 0)["grass"] == [top]  # step five: the deck's top into the grassland
    assert G.to_move(st)[0] == 1 and len(hand(st, 1)) == 3  # P1 has drawn (step one)
    st = position({0: [c("lion", 6)]}, [c("elephant", 1)], deck_left=10)
    top = G.zones(st, 0)["deck"][0]
    act(st, H.A_DECK)
    assert top in hand(st, 0)


def test_pass_goes_to_an_opponent_never_a_teammate():
    st = position({0: [c("lion", 6)]}, [c("elephant", 1)], players=4, deck_left=10)
    act(st, H.A_DECK)
    act(st, card_a(c("lion", 6)))
    assert kind(st) == H.K_RECV
    assert legal(st) == [H.A_RECV0 + 0, H.A_RECV0 + 2]  # seats 1 and 3, not partner seat 2
    act(st, H.A_RECV0 + 2)
    assert c("lion", 6) in hand(st, 3)
    st = position({0: [c("lion", 6)]}, [c("elephant", 1)], players=3, deck_left=10)
    act(st, H.A_DECK)
    act(st, card_a(c("lion", 6)))
    assert legal(st) == [H.A_RECV0 + 0, H.A_RECV0 + 1]


# ---- Step three ----------------------------------------------------------------------------------

def herd_phase(hands, herds=(), players=2, **kw):
    """Position at step three: step two takes the grassland's one card (a filler 6-Monkey)."""
    st = position(hands, [c("monkey", 6, 1)], herds, players=players, deck_left=20, **kw)
    act(st, card_a(c("monkey", 6, 1)))
    return st


def new(t, lo):
    return H.A_NEW0 + t * 4 + lo - 1


def test_a_herd_is_three_in_sequence_of_one_animal():
    st = herd_phase({0: [c("elephant", 1), c("elephant", 2), c("elephant", 3), c("lion", 4)]})
    assert kind(st) == H.K_HERD
    assert set(legal(st)) == {new(ELE, 1), H.A_DONE}
    act(st, new(ELE, 1))
    assert G.herds(st, 0) == [(0, ELE, [c("elephant", 1), c("elephant", 2), c("elephant", 3)])]
    # nothing left to place: straight to step four
    assert kind(st) == H.K_PASS


def test_must_keep_a_card_to_pass():
    st = herd_phase({0: [c("elephant", 1), c("elephant", 2), c("elephant", 3)]})
    # the 6-Monkey from the grassland is the fourth card: the herd is legal, keeping it
    assert new(ELE, 1) in legal(st)
    st = position({0: [c("elephant", 1), c("elephant", 2)]}, [c("elephant", 3)], deck_left=20)
    act(st, card_a(c("elephant", 3)))
    assert kind(st) == H.K_PASS  # three cards only: laying them would leave none to pass


def test_grow_at_either_end_no_wrap_around():
    herd = [c("elephant", 4), c("elephant", 5), c("elephant", 6)]
    st = herd_phase({0: [c("elephant", 3), c("elephant", 1), c("lion", 2)]}, [(0, ELE, herd)])
    assert set(legal(st)) == {H.A_GROW0 + 0, H.A_DONE}  # the 3 at the low end; no 6 -> 1
    act(st, H.A_GROW0 + 0)
    assert G.herds(st, 0)[0][2] == [c("elephant", 3)] + herd
    assert kind(st) == H.K_PASS  # the 1 does not fit: 2 is missing


def test_opponents_herds_cannot_be_grown_teammates_can():
    herd = [c("elephant", 2), c("elephant", 3), c("elephant", 4)]
    hand0 = [c("elephant", 5), c("lion", 1)]
    st = herd_phase({0: hand0}, [(1, ELE, herd)], players=3)
    assert kind(st) == H.K_PASS
    # four players: side 0 is seats 0 and 2; the herd laid by the partner is the side's
    st = herd_phase({0: hand0}, [(0, ELE, herd)], players=4)
    assert H.A_GROW0 + 1 in legal(st)
    st = herd_phase({0: hand0}, [(1, ELE, herd)], players=4)
    assert kind(st) == H.K_PASS


def test_explorers_are_a_herd_of_their_own_or_wild_at_the_same_number():
    st = herd_phase({0: [c("explorer", 1), c("explorer", 2), c("explorer", 3), c("lion", 6)]})
    assert new(EXP, 1) in legal(st)
    assert new(LION, 1) not in legal(st)  # a wild herd needs an animal card
    st = herd_phase({0: [c("elephant", 1), c("explorer", 2), c("elephant", 3), c("lion", 6)]})
    assert set(legal(st)) == {new(ELE, 1), H.A_DONE}
    act(st, new(ELE, 1))
    assert G.herds(st, 0)[0][2] == [c("elephant", 1), c("explorer", 2), c("elephant", 3)]
    st = herd_phase({0: [c("elephant", 1), c("explorer", 3), c("elephant", 2), c("lion", 6)]})
    assert new(ELE, 1) in legal(st)  # 3 as the explorer
    st = herd_phase({0: [c("elephant", 1), c("explorer", 4), c("elephant", 2), c("lion", 6)]})
    assert new(ELE, 1) not in legal(st)  # an explorer stands only for its own number


def test_swap_the_real_card_for_the_explorer_which_must_then_be_played():
    wild = [c("elephant", 1), c("explorer", 2), c("elephant", 3)]
    zebra = [c("zebra", 3), c("zebra", 4), c("zebra", 5)]
    hand0 = [c("elephant", 2, 1), c("lion", 6)]
    st = herd_phase({0: hand0}, [(0, ELE, wild), (0, ZEBRA, zebra)])
    assert H.A_SWAP0 + 1 in legal(st)
    act(st, H.A_SWAP0 + 1)
    assert G.herds(st, 0)[0][2] == [c("elephant", 1), c("elephant", 2, 1), c("elephant", 3)]
    assert c("explorer", 2) in hand(st, 0)
    assert H.A_DONE not in legal(st)  # the explorer must be played this turn
    assert legal(st) == [H.A_GROW0 + 2]  # zebra herd, low end
    act(st, H.A_GROW0 + 2)
    assert H.A_DONE in legal(st) or kind(st) == H.K_PASS
    # no place for the explorer after the swap: no swap
    st = herd_phase({0: hand0}, [(0, ELE, wild)])
    assert H.A_SWAP0 + 1 not in legal(st)


def test_swap_in_an_opponents_herd_only_with_the_field():
    """Audit: the text does not say whose herd; by default only the side's own (a card may not
    be added to an opponent's herd); swap_in_opponents_herds allows the opponents' too."""
    wild = [c("elephant", 1), c("explorer", 2), c("elephant", 3)]
    zebra = [c("zebra", 3), c("zebra", 4), c("zebra", 5)]
    hand0 = [c("elephant", 2, 1), c("lion", 6)]
    st = herd_phase({0: hand0}, [(1, ELE, wild), (0, ZEBRA, zebra)])
    assert H.A_SWAP0 + 1 not in legal(st)
    st = herd_phase({0: hand0}, [(1, ELE, wild), (0, ZEBRA, zebra)],
                    swap_in_opponents_herds=True)
    act(st, H.A_SWAP0 + 1)
    assert G.herds(st, 0)[0] == (1, ELE, [c("elephant", 1), c("elephant", 2, 1),
                                          c("elephant", 3)])
    assert legal(st) == [H.A_GROW0 + 2]  # the explorer must now grow the own zebra herd


def test_an_explorer_drawn_may_be_kept():
    st = position({0: [c("elephant", 1), c("elephant", 3)]}, [c("explorer", 2)], deck_left=20)
    act(st, card_a(c("explorer", 2)))  # step two a, not a trade
    # with only three cards nothing can be laid: the explorer stays in hand to step four
    assert kind(st) == H.K_PASS and c("explorer", 2) in hand(st, 0)


def test_an_explorer_taken_from_the_grassland_in_step_two_a_is_kept_unless_the_field():
    """Audit: the must-play sentence names only the trade; grass_draw_explorer_kept false makes
    an explorer taken from the grassland in step two a a must-play card too."""
    zebra = [c("zebra", 3), c("zebra", 4), c("zebra", 5)]
    hand0 = [c("lion", 6), c("tiger", 1)]
    st = position({0: hand0}, [c("explorer", 2), c("monkey", 6)], herds=[(0, ZEBRA, zebra)])
    act(st, card_a(c("explorer", 2)))
    assert set(legal(st)) == {H.A_GROW0 + 0, H.A_DONE}
    st = position({0: hand0}, [c("explorer", 2), c("monkey", 6)], herds=[(0, ZEBRA, zebra)],
                  grass_draw_explorer_kept=False)
    act(st, card_a(c("explorer", 2)))
    assert legal(st) == [H.A_GROW0 + 0]
    # with nowhere to play it, it may not be taken
    st = position({0: hand0}, [c("explorer", 2), c("monkey", 6)], grass_draw_explorer_kept=False)
    assert card_a(c("explorer", 2)) not in legal(st) and card_a(c("monkey", 6)) in legal(st)


# ---- Ending and scoring the hand -------------------------------------------------------------

def recount(herds, side):
    """Points of one side's herds by the rulebook's two tables (plain Python)."""
    explorer_pts = {3: 3, 4: 5, 5: 7, 6: 10}
    animal_pts = {1: 1, 2: 1, 3: 2, 4: 3, 5: 5, 6: 7}
    total = 0
    for s, suit, cards in herds:
        if s != side:
            continue
        if suit == EXP:
            total += explorer_pts[len(cards)]
        else:
            total += animal_pts[sum(1 for x in cards if x < 60)]
    return total


def test_hand_ends_when_a_side_with_a_full_herd_passes_its_last_card():
    full = [c("tiger", n) for n in range(1, 7)]
    exp3 = [c("explorer", n) for n in range(4, 7)]
    wild = [c("elephant", 1), c("explorer", 2), c("explorer", 3)]
    herds = [(0, TIGER, full), (0, EXP, exp3), (0, ELE, wild),
             (1, LION, [c("lion", 1), c("lion", 2), c("lion", 3), c("lion", 4)])]
    st = position({0: [], 1: [c("zebra", 1)]}, [c("monkey", 1)], herds=herds, deck_left=20)
    act(st, card_a(c("monkey", 1)))
    assert kind(st) == H.K_PASS and hand(st, 0) == [c("monkey", 1)]
    act(st, card_a(c("monkey", 1)))
    assert st.g[0, H.HANDNO] == 1 and st.g[0, H.FULLENDS] == 1
    assert st.team_total[0].tolist() == [recount(herds, 0), recount(herds, 1)] == [7 + 3 + 1, 3]
    # a new hand: dealt by seat 0, so seat 1 starts
    assert G.to_move(st)[0] == 1 and len(G.herds(st, 0)) == 0


def test_no_hand_end_with_cards_left_or_without_a_full_herd():
    five = [c("tiger", n) for n in range(1, 6)]
    st = position({0: []}, [c("monkey", 1)], herds=[(0, TIGER, five)], deck_left=20)
    act(st, card_a(c("monkey", 1)))
    act(st, card_a(c("monkey", 1)))
    assert st.g[0, H.HANDNO] == 0 and G.to_move(st)[0] == 1
    # a full herd, but the card passed is not the last in the hand: the hand goes on
    full = [c("tiger", n) for n in range(1, 7)]
    st = position({0: [c("lion", 6)]}, [c("monkey", 1)], herds=[(0, TIGER, full)], deck_left=20)
    act(st, card_a(c("monkey", 1)))
    act(st, card_a(c("monkey", 1)))
    assert hand(st, 0) == [c("lion", 6)]
    assert st.g[0, H.HANDNO] == 0 and G.to_move(st)[0] == 1


def test_flipping_the_last_card_ends_the_hand():
    """Audit: step five takes the deck's last card: the deck has run out (flip_last_ends);
    with the field false the next player plays steps two to four without step one."""
    hands = {0: [c("lion", 6), c("zebra", 1)], 1: [c("lion", 1)]}
    st = position(hands, [c("elephant", 1)], deck_left=1)
    act(st, card_a(c("elephant", 1)))
    act(st, card_a(c("lion", 6)))
    assert st.g[0, H.HANDNO] == 1 and G.to_move(st)[0] == 1  # a new hand, dealt by seat 0
    st = position(hands, [c("elephant", 1)], deck_left=1, flip_last_ends=False)
    act(st, card_a(c("elephant", 1)))
    act(st, card_a(c("lion", 6)))
    assert st.g[0, H.HANDNO] == 0 and G.to_move(st)[0] == 1
    assert hand(st, 1) == sorted([c("lion", 1), c("lion", 6)])  # no step one: the deck is empty
    assert H.A_DECK not in legal(st)
    act(st, legal(st)[0])  # a grassland card
    act(st, card_a(c("lion", 1)))
    assert st.g[0, H.HANDNO] == 1


def test_hand_ends_when_the_deck_runs_out_after_the_pass():
    st = position({0: [c("lion", 6)], 1: [c("lion", 1)]}, [c("elephant", 1)], deck_left=1)
    act(st, H.A_DECK)  # the last card
    act(st, card_a(c("lion", 6)))
    assert st.g[0, H.HANDNO] == 1


def test_game_ends_after_the_hand_a_side_reaches_60():
    herds = [(0, EXP, [c("explorer", n) for n in range(1, 4)])]
    st = position({0: [c("lion", 6)]}, [c("elephant", 1)], herds=herds, deck_left=1,
                  totals=[57, 59])
    act(st, H.A_DECK)
    act(st, card_a(c("lion", 6)))
    assert G.to_move(st)[0] == -1
    out = G.outcome(st)
    assert out.score[0].tolist() == [60, 59] and out.win[0].tolist() == [1, 0]
    st = position({0: [c("lion", 6)]}, [c("elephant", 1)], herds=herds, deck_left=1,
                  totals=[50, 59])
    act(st, H.A_DECK)
    act(st, card_a(c("lion", 6)))
    assert G.to_move(st)[0] == 1  # 53 and 59: a new hand


def test_teams_share_one_score():
    herds = [(0, EXP, [c("explorer", n) for n in range(1, 4)])]
    st = position({0: [c("lion", 6)]}, [c("elephant", 1)], herds=herds, deck_left=1, players=4,
                  totals=[58, 10])
    act(st, H.A_DECK)
    act(st, card_a(c("lion", 6)))
    act(st, H.A_RECV0)
    out = G.outcome(st)
    assert out.score[0].tolist() == [61, 10, 61, 10]
    assert out.win[0].tolist() == [0.5, 0, 0.5, 0]


def test_a_tie_at_the_end_is_shared_or_plays_on():
    """end_tie: sides tied at the top when a side has reached 60 share the win ('shared', the
    default); 'play_on' deals another hand."""
    herds = [(0, EXP, [c("explorer", n) for n in range(1, 4)])]
    for how in ("shared", "play_on"):
        st = position({0: [c("lion", 6)]}, [c("elephant", 1)], herds=herds, deck_left=1,
                      totals=[57, 60], end_tie=how)
        act(st, H.A_DECK)
        act(st, card_a(c("lion", 6)))
        if how == "shared":
            assert G.to_move(st)[0] == -1
            assert G.outcome(st).win[0].tolist() == [0.5, 0.5]
        else:
            assert G.to_move(st)[0] == 1 and int(st.g[0, H.HANDNO]) == 1  # a new hand
            assert st.team_total[0, :2].tolist() == [60, 60]


def test_partners_beside_are_seats_0_1_and_2_3():
    herds = [(0, EXP, [c("explorer", n) for n in range(1, 4)])]
    st = position({0: [c("lion", 6)]}, [c("elephant", 1)], herds=herds, deck_left=1, players=4,
                  totals=[58, 10], partners="beside")
    act(st, H.A_DECK)
    act(st, card_a(c("lion", 6)))
    assert legal(st) == [H.A_RECV0 + 1, H.A_RECV0 + 2]  # seats 2 and 3, not partner seat 1
    act(st, H.A_RECV0 + 1)
    out = G.outcome(st)
    assert out.score[0].tolist() == [61, 61, 10, 10]
    assert out.win[0].tolist() == [0.5, 0.5, 0, 0]
    obs = G.observe(position({0: [c("lion", 6)]}, [], players=4, partners="beside", cur=1),
                    np.array([0]))
    assert obs.partner.tolist() == [3]  # seat 1's partner is seat 0, three seats to its left


def test_rules_errors_name_the_field():
    for field, value in [("hand_sizes", [6, 5]), ("target_score", 0), ("max_hands", 0),
                         ("explorer_herd_points", [1]), ("animal_herd_points", [1, 2])]:
        with pytest.raises(RulesError, match=field):
            G.make_rules({field: value})
    with pytest.raises(RulesError, match="hand_sizes"):
        G.check(G.make_rules(hand_sizes=[6, 5, 16]), 4)


# ---- Properties over random games -------------------------------------------------------------

def check_zones(st, b):
    """Every card in exactly one zone; the draw pile is what the deck order says."""
    z = G.zones(st, b)
    cards = z["deck"] + z["grass"] + z["give"] + z["herds"] + z["aside"] + \
        [x for p in range(st.n_players) for x in z[f"hand{p}"]]
    assert sorted(cards) == list(range(66))
    on_table = sorted(x for _, _, cs in G.herds(st, b) for x in cs)
    assert on_table == sorted(z["herds"])


def check_herds(st, b):
    """Every herd is valid by the rulebook: 3+ cards, consecutive numbers, one animal (explorers
    standing in at their own number) or all explorers, at least one animal card."""
    for side, suit, cards in G.herds(st, b):
        assert len(cards) >= 3
        nums = [x % 6 for x in cards]
        assert nums == list(range(nums[0], nums[0] + len(cards)))
        for x in cards:
            assert x >= 60 or x // 12 == suit
        if suit == EXP:
            assert all(x >= 60 for x in cards)
        else:
            assert any(x < 60 for x in cards)
        sides = 2 if (st.n_players == 4) else st.n_players
        assert 0 <= side < sides


def random_games(players, n, seed, strategies=None, **overrides):
    """Play ``n`` games stepwise with random legal moves (or strategies), checking every step."""
    rules = G.make_rules(overrides)
    keys = game_keys(seed, players, n)
    st = G.init(rules, players, keys.deal)
    seat_rs = keys.seat.reshape(-1).copy()
    steps = 0
    trades = {}  # game -> cards taken so far in the trade being made
    last_gain = {}  # game -> each side's points in its latest hand (recounted from its herds)
    while True:
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        lg = G.legal(st)
        assert lg[live].any(axis=1).all()
        rng = SeatRandom(seat_rs, live * players + mover[live])
        a = np.zeros(n, np.int64)
        if strategies is None:
            a[live] = random_legal(lg[live], rng)
        else:
            s = strategies[steps % len(strategies)]
            a[live] = choose(s, G, st, live, seat_rs, players)
        assert lg[live, a[live]].all()
        before = {b: (G.herds(st, b), int(st.g[b, H.HANDNO]), st.team_total[b].copy(),
                      G.zones(st, b), int(st.g[b, H.PHASE]), int(mover[b])) for b in live}
        G.step(st, a)
        steps += 1
        teams = players == 4 and rules.teams_at_four
        sides = 2 if teams else players
        opponents = 2 if teams else players - 1
        for b in live:
            check_zones(st, b)
            check_herds(st, b)
            herds, hand_no, tot, z0, kind0, p = before[b]
            # the hand ends only after a pass, when the deck has run out (or the flip takes its
            # last card) or the mover's side has a 1-6 herd and the card passed was the last
            side = p % 2 if teams else p
            passing = kind0 == H.K_RECV or (kind0 == H.K_PASS and opponents == 1)
            full = any(s == side and len(cs) == 6 for s, _, cs in herds)
            deck0 = len(z0["deck"])
            ends = passing and ((len(z0[f"hand{p}"]) == 1 and full) or deck0 == 0
                                or (deck0 == 1 and rules.flip_last_ends))
            assert (st.g[b, H.HANDNO] != hand_no) == ends
            if st.g[b, H.HANDNO] != hand_no:
                assert st.g[b, H.HANDNO] == hand_no + 1
                gained = [recount(herds, s) for s in range(sides)]
                assert (st.team_total[b, :sides] - tot[:sides]).tolist() == gained
                last_gain[b] = gained
            else:
                assert (st.team_total[b] == tot).all()
                # a trade once made: the cards given went into the grassland and the cards
                # taken from it add up to exactly the same total
                if kind0 == H.K_TAKE:
                    taken = int(a[b]) - H.A_CARD0
                    assert taken in z0["grass"]
                    trades.setdefault(b, []).append(taken)
                    if not G.zones(st, b)["give"]:
                        assert set(z0["give"]) <= set(G.zones(st, b)["grass"])
                        took = trades.pop(b)
                        assert sum(x % 6 + 1 for x in took) == sum(x % 6 + 1 for x in z0["give"])
        assert steps < 20000
    out = G.outcome(st)
    assert (out.score.max(axis=1) >= 60).all() or out.stats["capped"].any()
    # the measures, from the recounted last hands: the sides leading before it against the
    # winners, and the top total past the target
    sides = 2 if players == 4 and rules.teams_at_four else players
    for b in range(n):
        total = st.team_total[b, :sides].tolist()
        before = [t - x for t, x in zip(total, last_gain[b])]
        lead = lambda sc: {q for q in range(sides) if sc[q] == max(sc)}  # noqa: E731
        assert out.stats["last_hand_decided"][b] == (lead(before) != lead(total))
        assert out.stats["target_overshoot"][b] == max(0, max(total) - rules.target_score)
    return st, out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_properties_over_random_games(players):
    st, out = random_games(players, 12, seed=players)
    sides = 2 if players == 4 else players
    for b in range(12):  # the final score is the sum of the hands' recounts (checked per hand)
        score = st.team_total[b, [p % sides for p in range(players)]]
        assert (out.score[b] == score).all()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_properties_with_the_strategies(players):
    strats = [get_strategy("herds", n)() for n in ("collector", "blocker", "sprinter")]
    random_games(players, 8, seed=10 + players, strategies=strats)


@pytest.mark.parametrize("players", [3, 4])
def test_properties_under_the_other_readings(players):
    """Any explorer may be taken in a trade, and the last flip does not end the hand; swaps in
    opponents' herds, and explorers from the grassland that must be played."""
    strats = [get_strategy("herds", n)() for n in ("collector", "blocker", "sprinter")]
    random_games(players, 8, seed=20 + players, strategies=strats,
                 trade_explorer="any", flip_last_ends=False)
    random_games(players, 8, seed=30 + players, trade_explorer="any",
                 flip_last_ends=False)
    random_games(players, 6, seed=40 + players, strategies=strats, swap_in_opponents_herds=True,
                 grass_draw_explorer_kept=False)


def check_observation_hides(observe):
    """Permute the cards a seat cannot see (the other hands, the deck) in part-played games and
    require ``observe(state, games)`` unchanged, field by field."""
    rng = np.random.default_rng(0)
    for players in (2, 3, 4):
        st = G.init(G.make_rules(), players, deal_keys(6, 3))
        for _ in range(40):  # play a while at random
            G.step(st, random_legal(G.legal(st), np.random.default_rng(1)))
        for b in range(6):
            p = int(G.to_move(st)[b])
            if p < 0:
                continue
            base = observe(st, np.array([b]))
            # permute the cards of every other hand and the deck among those places
            hidden = [x for x in range(66) if st.zone[b, x] == H.Z_DECK
                      or (st.zone[b, x] >= H.Z_HAND0 and st.zone[b, x] != H.Z_HAND0 + p)]
            places = [int(st.zone[b, x]) for x in hidden]
            deck = st.deck[b, st.g[b, H.POS]:].tolist()
            perm = rng.permutation(hidden).tolist()
            mapping = dict(zip(hidden, perm))
            for x, zn in zip(perm, places):
                st.zone[b, x] = zn
            st.deck[b, st.g[b, H.POS]:] = [mapping[x] for x in deck]
            check_zones(st, b)
            now = observe(st, np.array([b]))
            for name, v in vars(base).items():
                if isinstance(v, np.ndarray):
                    assert np.array_equal(v, getattr(now, name)), name
            # and the observation does show the player's own hand, and the herds' open ends
            own = [x for x in range(66) if st.zone[b, x] == H.Z_HAND0 + p]
            assert now.hand[0].nonzero()[0].tolist() == own
            table = [0] * 36
            for x in own:
                table[(x // 12 if x < 60 else EXP) * 6 + x % 6] += 1
            assert now.hand_table[0].tolist() == table
            mine = p % 2 if players == 4 else p
            want = np.zeros((2, 36), bool)
            for side, suit, cards in G.herds(st, b):
                lo, hi = cards[0] % 6, cards[-1] % 6
                for n in (lo - 1, hi + 1):
                    if 0 <= n <= 5:
                        want[int(side == mine), suit * 6 + n] = True
            assert (now.want[0] == want).all()


def test_observation_hides_other_hands_and_the_deck():
    check_observation_hides(G.observe)


def _leaky(field):
    """G.observe with one more field holding something hidden (the positive control)."""
    def observe(st, games):
        obs = G.observe(st, games)
        b = int(games[0])
        p = int(st.g[b, H.CUR])
        if field == "deck_top":
            leak = np.array([st.deck[b, st.g[b, H.POS]]])
        else:  # the next seat's hand
            q = (p + 1) % st.n_players
            leak = (st.zone[b] == H.Z_HAND0 + q)[None, :].copy()
        obs.leak = leak
        return obs
    return observe


@pytest.mark.parametrize("field", ["deck_top", "next_hand"])
def test_the_hiding_check_catches_a_leaky_observation(field):
    with pytest.raises(AssertionError, match="leak"):
        check_observation_hides(_leaky(field))


def test_strategies_play_whole_games_at_every_count():
    for players in (2, 3, 4):
        strats = [get_strategy("herds", n)() for n in ("collector", "blocker", "sprinter")]
        seating = (np.arange(players)[None, :] + np.arange(30)[:, None]) % 3
        res = play_batch(G, G.make_rules(), players, strats, seating, game_keys(4, players, 30))
        assert (res.outcome.score.max(axis=1) >= 60).all()
        assert res.outcome.stats["capped"].sum() == 0


def test_strategies_beat_random():
    strats = [get_strategy("herds", "collector")(), get_strategy("herds", "random")()]
    seating = (np.arange(2)[None, :] + np.arange(60)[:, None]) % 2
    res = play_batch(G, G.make_rules(), 2, strats, seating, game_keys(6, 2, 60))
    assert res.outcome.win[seating == 0].mean() > 0.8


def test_pure_python_mode_plays_the_same_game():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: the game comes out as compiled."""
    args = [sys.executable, "-m", "safari_sim.cli", "trace", "herds", "--seed", "3",
            "--strategies", "collector,blocker,sprinter", "--rule", "target_score=8"]
    cwd = os.path.dirname(os.path.dirname(__file__))
    jit = subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=cwd,
                        timeout=300)
    assert "Game over after" in jit.stdout
    assert py.stdout == jit.stdout


# ---- Worlds for search (issue 16) ---------------------------------------------------------------

from tests.designer_check import assert_drama, search_values  # noqa: E402
from tests.worlds_check import check_worlds, play_out  # noqa: E402


def knowledge_from_log(st, b):
    """What each seat knows of the cards it cannot see, replayed in plain Python from game b's
    event log by perfect memory: a card taken openly (from the grassland, or an explorer taken
    back from a herd) is known to be in the taker's hand; the passer knows where his card went;
    the others, who do not see which card was passed, know only that any card surely in the
    passer's hand may now be in the receiver's. {seat: {card: set of hands}}; a new hand
    forgets all."""
    know = {s: {} for s in range(st.n_players)}
    for t, seat, a, b_, c_, d in st.ev[b, :st.g[b, H.NEV]].tolist():
        if t == H.E_HAND:
            know = {s: {} for s in range(st.n_players)}
        elif t in (H.E_TAKE, H.E_TRADE_TAKE):
            for s in know:
                know[s][a] = {seat}
        elif t == H.E_SWAP:
            for s in know:
                know[s][b_] = {seat}
        elif t == H.E_PASS:
            for s in know:
                if s == seat:
                    know[s][a] = {b_}
                elif s != b_:
                    for x, hands in know[s].items():
                        if seat in hands:
                            hands.add(b_)
    return know


def check_knowledge(st, b):
    """The game's knowledge array equals the replay, for every card a seat cannot see, and is
    true: every such card lies in one of the hands the seat thinks it may be in."""
    know = knowledge_from_log(st, b)
    for s in range(st.n_players):
        for x in range(66):
            zn = int(st.zone[b, x])
            if not (zn == H.Z_DECK or (zn >= H.Z_HAND0 and zn != H.Z_HAND0 + s)):
                continue
            hands = {q for q in range(st.n_players) if st.poss[b, s, x] >> q & 1}
            assert hands == know[s].get(x, set()), (s, x, hands, know[s].get(x))
            assert not hands or zn - H.Z_HAND0 in hands, (s, x, hands, zn)


def permute_hidden(st, games, rng=None):
    """A copy of ``st`` in which, for the seat to move in each of ``games``, the cards it cannot
    see are permuted consistently with what it knows: the ones it knows nothing of among their
    places (the deck's order and the other hands), the ones known to be in one of some hands
    among the others known the same way; the ones whose place it knows stay."""
    perm = G.clone(st, np.arange(len(st.rs)))
    rng = np.random.default_rng(8) if rng is None else rng
    for b in games:
        s = int(G.to_move(st)[b])
        pos = int(perm.g[b, H.POS])
        groups = {}
        for x in range(66):
            zn = int(perm.zone[b, x])
            if zn == H.Z_DECK or (zn >= H.Z_HAND0 and zn != H.Z_HAND0 + s):
                m = int(perm.poss[b, s, x])
                if m == 0 or m & (m - 1):
                    groups.setdefault(m, []).append(x)
        deck = perm.deck[b, pos:].tolist()
        mapping = {}
        for cards in groups.values():
            places = [int(perm.zone[b, x]) for x in cards]
            new = rng.permutation(cards).tolist()
            for x, zn in zip(new, places):
                perm.zone[b, x] = zn
            mapping.update(zip(cards, new))
        perm.deck[b, pos:] = [mapping[x] for x in deck]
        # and what else the real state holds of them: the order the cards were drawn in, the
        # scratch hand counts (last filled for whoever played step three), the card last passed
        perm.deck[b, :pos] = rng.permutation(perm.deck[b, :pos])
        perm.hc[b] = rng.integers(0, 3, perm.hc[b].shape)
        if perm.g[b, H.PHASE] != H.K_RECV:
            perm.g[b, H.PCARD] = rng.integers(0, 66)
        check_zones(perm, b)
    return perm


def _scramble(st, games, rng):
    """What the seat to move in each of ``games`` cannot see, dealt again as it cannot tell
    (``permute_hidden``: the other hands and the deck, within what it knows of them)."""
    return permute_hidden(st, games, rng)


HEURISTICS = [("collector", {}), ("blocker", {}), ("sprinter", {}),
              ("collector", {"wild_grow": True, "lay_deck": 40, "take_at": 1.0}),
              ("blocker", {"block": 1.0, "lay_min_hand": 5})]


@pytest.mark.parametrize("players,rules", [(2, {"target_score": 30}),
                                           (3, {"trade_explorer": "any", "target_score": 30}),
                                           (4, {"target_score": 30}),
                                           (4, {"teams_at_four": False, "target_score": 30})])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """The other hands and the deck dealt again at every decision (as the mover cannot tell):
    no heuristic's action changes."""
    strats = [get_strategy(G.id, n)(**p) for n, p in HEURISTICS]
    n = check_heuristics_knowledge(G, G.make_rules(rules), players, strats, _scramble,
                                   games=6, max_steps=700)
    assert n > 4000


def test_the_knowledge_check_catches_a_policy_that_reads_the_deck():
    def next_card(st, b):
        return st.deck[b, st.g[b, H.POS]] if st.g[b, H.POS] < H.NCARDS else 0

    leaky_policy_is_caught(G, G.make_rules(target_score=30), 3,
                           get_strategy(G.id, "collector")(), next_card, _scramble, games=6,
                           max_steps=300)


def _random_steps(players, n, steps, seed, log=True, **rules):
    st = G.init(G.make_rules(rules), players, deal_keys(n, seed), log=log)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if (G.to_move(st) < 0).all():
            break
        G.step(st, random_legal(G.legal(st), rng))
    return st


@pytest.mark.parametrize("players", [2, 3, 4])
def test_knowledge_of_hidden_cards_is_true_and_equals_a_replay_of_the_log(players):
    st = G.init(G.make_rules(), players, deal_keys(4, 50 + players), log=True)
    rng = np.random.default_rng(players)
    known = several = 0
    for step in range(2500):
        if (G.to_move(st) < 0).all():
            break
        G.step(st, random_legal(G.legal(st), rng))
        if step % 7 == 0:
            for b in range(4):
                check_knowledge(st, b)
            bits = st.poss.astype(np.int64)
            known += ((bits != 0) & (bits & (bits - 1) == 0)).sum()
            several += ((bits & (bits - 1)) != 0).sum()
    assert known > 0 and (several > 0) == (players > 2)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_worlds_of_random_positions(players):
    for steps in (15, 80):
        st = _random_steps(players, 10, steps, seed=60 + players + steps)
        games = np.flatnonzero(G.to_move(st) >= 0)
        assert games.size >= 5
        check_worlds(G, st, permute_hidden(st, games), games)
        n = len(games)
        w = G.determinize(st, games, G.to_move(st)[games], deal_keys(n, 4))
        assert not w.fallback.any()
        for i, b in enumerate(games):
            s = int(G.to_move(st)[b])
            zr, zw = G.zones(st, b), G.zones(w, i)
            # the same hidden cards, each hand and the deck their sizes, the seat's view kept
            hidden = lambda z: sorted(z["deck"] + [x for q in range(players) if q != s
                                                    for x in z[f"hand{q}"]])
            assert hidden(zr) == hidden(zw)
            assert [len(zw[f"hand{q}"]) for q in range(players)] == \
                [len(zr[f"hand{q}"]) for q in range(players)]
            assert len(zw["deck"]) == len(zr["deck"])
            for k in ("grass", "give", "herds", f"hand{s}"):
                assert zr[k] == zw[k]
            # what the seat knows holds in the world
            for x in range(66):
                m = int(w.poss[i, s, x])
                zn = int(w.zone[i, x])
                if m and (zn == H.Z_DECK or (zn >= H.Z_HAND0 and zn != H.Z_HAND0 + s)):
                    assert zn >= H.Z_HAND0 and m >> (zn - H.Z_HAND0) & 1
            check_zones(w, i)


# P0 passes X to P1, P1 passes a card on to P2, P2 passes one to P0: P0 knows X is in P1's or
# P2's hand (not in the deck), and nothing of the rest
X = c("lion", 1)
_HANDS = {0: [X, c("tiger", 4)], 1: [c("zebra", 1), c("elephant", 4)],
          2: [c("monkey", 1), c("tiger", 1, 1)]}
_GRASS = [c("zebra", 6), c("elephant", 6, 1), c("monkey", 6, 1), c("lion", 6, 1)]
_TOP = [c("elephant", 1), c("zebra", 3, 1), c("lion", 3, 1), c("monkey", 3, 1),
        c("tiger", 3), c("elephant", 3), c("zebra", 5), c("lion", 5), c("monkey", 5),
        c("tiger", 5, 1)]


def _plain_turn(st, card, offset):
    """Step two: the deck's top; no herds; pass ``card`` to the player ``offset`` to the left."""
    act(st, H.A_DECK)
    if kind(st) == H.K_HERD:
        act(st, H.A_DONE)
    act(st, card_a(card))
    if kind(st) == H.K_RECV:
        act(st, H.A_RECV0 + offset - 1)


def _passed_on_position():
    st = G.init(G.make_rules(), 3, deal_keys(1, 7), log=True)
    G.position(st, 0, 0, _HANDS, _GRASS, deck_top=_TOP, deck_left=14)
    _plain_turn(st, X, 1)                          # P0 -> P1: X
    _plain_turn(st, c("zebra", 1), 1)              # P1 -> P2
    _plain_turn(st, c("monkey", 1), 1)             # P2 -> P0
    assert G.to_move(st)[0] == 0 and kind(st) == H.K_STEP2
    return st


def test_worlds_keep_a_passed_card_in_the_hands_it_may_be_in():
    st = _passed_on_position()
    assert st.poss[0, 0, X] == 0b110                # P1 or P2
    assert st.poss[0, 1, X] == 0 and st.poss[0, 2, c("zebra", 1)] == 0
    # P1 knows where his pass went, and that P2 may have passed it on to P0
    assert st.poss[0, 1, c("zebra", 1)] == 0b101
    check_knowledge(st, 0)
    check_worlds(G, st, permute_hidden(st, [0]), [0], worlds_per_game=8)
    w = G.determinize(st, np.zeros(200, np.int64), np.zeros(200, np.int64), deal_keys(200, 1))
    assert (w.zone[:, X] != H.Z_DECK).all()
    assert len(set(w.zone[:, X].tolist())) == 2     # both hands occur


def test_worlds_keep_a_card_passed_by_the_seat_where_it_went():
    # P1's view in the same game, after P0 has passed a second card, to P2: the card P1 passed
    # to P2 is in P2's hand or (passed on) in P0's, then maybe back in P2's: never in the deck
    st = _passed_on_position()
    _plain_turn(st, c("tiger", 4), 2)              # P0 -> P2
    assert G.to_move(st)[0] == 1
    check_worlds(G, st, permute_hidden(st, [0]), [0], worlds_per_game=8)
    w = G.determinize(st, np.zeros(100, np.int64), np.ones(100, np.int64), deal_keys(100, 2))
    assert st.poss[0, 1, c("zebra", 1)] == 0b101
    assert set(w.zone[:, c("zebra", 1)].tolist()) == {H.Z_HAND0 + 0, H.Z_HAND0 + 2}
    assert (w.zone[:, X] == H.Z_HAND0 + 1).all()  # P1's own
    assert len(set(w.zone[:, c("tiger", 4)].tolist())) > 1  # P0's pass to P2: not seen by P1


def test_worlds_deal_the_hidden_cards_uniformly_among_the_consistent_ones():
    # the deal is a shuffle: every placing of the hidden cards that agrees with what P0 knows
    # (hand sizes, deck size, X in P1's or P2's hand) is as likely. Listed here in plain Python
    import itertools
    st = _passed_on_position()
    z = G.zones(st, 0)
    n1, n2, nd = len(z["hand1"]), len(z["hand2"]), len(z["deck"])
    hidden = sorted(z["hand1"] + z["hand2"] + z["deck"])
    w_card = c("tiger", 5, 1)  # a card P0 knows nothing of (the deck's last card)
    assert w_card in hidden and X in hidden
    valid = x_in_p1 = w_in_deck = 0
    for h1 in itertools.combinations(hidden, n1):
        rest = [x for x in hidden if x not in h1]
        for h2 in itertools.combinations(rest, n2):
            deck = [x for x in rest if x not in h2]
            if X in deck:
                continue
            valid += 1
            x_in_p1 += X in h1
            w_in_deck += w_card in deck
    p_x, p_w = x_in_p1 / valid, w_in_deck / valid
    assert nd >= 1 and 0 < p_w < 0.5
    n = 5000
    w = G.determinize(st, np.zeros(n, np.int64), np.zeros(n, np.int64), deal_keys(n, 12))
    for got, want in (((w.zone[:, X] == H.Z_HAND0 + 1).mean(), p_x),
                      ((w.zone[:, w_card] == H.Z_DECK).mean(), p_w)):
        se = (want * (1 - want) / n) ** 0.5
        assert abs(got - want) < 4 * se, (got, want)


def strategy_steps(players, B, seed, max_steps=100_000):
    """Play B games with the three strategies taking turns by step; yield (state, step, live
    games, their movers) before each step."""
    strats = [get_strategy("herds", n)() for n in ("collector", "blocker", "sprinter")]
    keys = game_keys(seed, players, B)
    st = G.init(G.make_rules(), players, keys.deal)
    for s in strats:
        s.reset(B, players)
    seat_rs = keys.seat.reshape(-1).copy()
    for step in range(max_steps):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            return
        yield st, step, live, mv[live]
        a = np.zeros(B, np.int64)
        a[live] = choose(strats[step % 3], G, st, live, seat_rs, players)
        G.step(st, a)


def test_worlds_fall_back_rarely_at_four_players():
    """The rejection can only fail at four players (three other hands); measured over worlds of
    positions played deep into hands by the strategies."""
    worlds = fell = constrained = 0
    for st, step, live, mv in strategy_steps(4, 40, 70, max_steps=400):
        if step % 40 == 39:
            w = G.determinize(st, live, mv, deal_keys(len(live), step))
            worlds += len(live)
            fell += int(w.fallback.sum())
            bits = st.poss[live, mv].astype(np.int64)
            constrained += int(((bits & (bits - 1)) != 0).sum())
    assert worlds > 100 and constrained > 0
    assert fell == 0, f"{fell} of {worlds} worlds fell back"


def test_the_first_fallback_places_the_constrained_cards_where_they_may_be():
    # no rejection try at all: every world takes the first fallback, which must still keep
    # every card the seat knows of in a hand it may be in, the sizes, and vary
    st = _random_steps(4, 10, 120, seed=91, teams_at_four=False)
    games = np.flatnonzero(G.to_move(st) >= 0)
    mv = G.to_move(st)[games]
    bits = st.poss[games, mv].astype(np.int64)
    assert ((bits & (bits - 1)) != 0).any()
    w = G.determinize(st, games, mv, deal_keys(len(games), 5), tries=0)
    w2 = G.determinize(st, games, mv, deal_keys(len(games), 6), tries=0)
    assert (w.fallback == 1).all()
    assert not np.array_equal(w.zone, w2.zone)
    for i, b in enumerate(games):
        s = int(mv[i])
        zr, zw = G.zones(st, b), G.zones(w, i)
        assert [len(zw[f"hand{q}"]) for q in range(4)] == [len(zr[f"hand{q}"]) for q in range(4)]
        assert zw["deck"] and len(zw["deck"]) == len(zr["deck"]) and zw[f"hand{s}"] == zr[f"hand{s}"]
        for x in range(66):
            m, zn = int(w.poss[i, s, x]), int(w.zone[i, x])
            if m and (zn == H.Z_DECK or (zn >= H.Z_HAND0 and zn != H.Z_HAND0 + s)):
                assert zn >= H.Z_HAND0 and m >> (zn - H.Z_HAND0) & 1
        check_zones(w, i)
    play_out(G, w)


def test_clone_keeps_the_constants_when_the_batch_equals_their_length():
    for B in (7, 2):  # epts and apts have 7 entries, params 7
        st = G.init(G.make_rules(), 2, deal_keys(B, 1))
        w = G.clone(st, np.array([0, 1, 1]))
        assert w.epts is st.epts and w.params is st.params
        assert (G.to_move(w) == G.to_move(st)[[0, 1, 1]]).all()


# ---- Drama (issue 14) ---------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_drama_columns_equal_a_recount_from_the_scores_after_each_hand(players):
    """The running score is each side's total after each hand (the only moment it moves):
    recorded here from the state whenever a hand has been scored."""
    B = 16
    sides = 2 if players == 4 else players
    hist = [[] for _ in range(B)]
    hands = None
    for st, step, live, mv in strategy_steps(players, B, 80 + players):
        if hands is not None:
            for b in np.flatnonzero(st.g[:, H.HANDNO] != hands):
                hist[b].append(st.team_total[b, :sides].tolist())
        hands = st.g[:, H.HANDNO].copy()
    for b in np.flatnonzero(st.g[:, H.HANDNO] != hands):  # the last step
        hist[b].append(st.team_total[b, :sides].tolist())
    out = G.outcome(st)
    changed = 0
    for b in range(B):
        final = hist[b][-1]
        win = [1.0 * (v == max(final)) / final.count(max(final)) for v in final]
        changed += assert_drama(out.stats, b, hist[b], final, win) > 0
    assert changed > 0


# ---- Searchable rules (issue 14) ----------------------------------------------------------------

def test_every_searchable_value_makes_valid_rules_that_play_to_the_end():
    from safari_sim.engine.protocol import search_space
    space = search_space(H.Rules)
    assert {"grassland", "target_score", "teams_at_four", "flip_last_ends"} <= set(space)
    assert "max_hands" not in space and "hand_sizes" not in space
    for name, values in space.items():
        for v in search_values(values):
            r = G.make_rules({name: v})
            for players in (2, 4):
                G.check(r, players)
                st = _random_steps(players, 2, 100_000, seed=players, log=False, **{name: v})
                assert (G.to_move(st) < 0).all(), (name, v)
                assert (G.outcome(st).win.sum(axis=1) > 0.99).all()


def trades_from_log(st, b):
    """Every trade of game b from its event log: (seat, cards given, cards taken). The takes
    are logged one by one as they are made, the given cards once the trade is made."""
    out = []
    taken = []
    ev = st.ev[b, :int(st.g[b, H.NEV])]
    i = 0
    while i < len(ev):
        t, seat = int(ev[i, 0]), int(ev[i, 1])
        if t == H.E_TRADE_TAKE:
            taken.append(int(ev[i, 2]))
        elif t == H.E_TRADE_GIVE:
            given = []
            while i < len(ev) and int(ev[i, 0]) == H.E_TRADE_GIVE:
                given.append(int(ev[i, 2]))
                i += 1
            out.append((seat, given, taken))
            taken = []
            continue
        i += 1
    assert not taken
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("reading", ["playable", "grows", "any"])
def test_the_strategies_make_only_the_trades_they_plan(players, reading):
    """Step two plans a one-for-one trade: the best grassland card for a held card of the same
    number of another animal, worth less. Every trade of the shipped strategies, read from the
    event log, is such a trade: one card each way, the same number, never the same card back
    (a null trade), and as many trades as the games' trade counters."""
    strats = [get_strategy("herds", n)() for n in ("collector", "blocker", "sprinter")]
    B = 60
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 3
    res = play_batch(G, G.make_rules({"trade_explorer": reading}), players, strats, seating,
                     game_keys(5, players, B), log=True)
    n = 0
    for b in range(B):
        trades = trades_from_log(res.state, b)
        assert len(trades) == int(res.state.pp[b, :, H.TRADES].sum())
        for seat, given, taken in trades:
            assert len(given) == 1 and len(taken) == 1, (b, seat, given, taken)
            g, t = given[0], taken[0]
            assert g % 6 == t % 6  # the same number
            assert min(g // 12, 5) != min(t // 12, 5)  # another animal: not the twin card back
            n += 1
    assert n >= 100

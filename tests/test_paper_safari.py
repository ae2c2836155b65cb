"""Paper Safari: each rule from a constructed position, the rulebook's examples, hidden
information, and properties over many random games."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError, search_space
from safari_sim.games import get_game
from safari_sim.games import paper_safari as ps
from strategies import get_strategy
from heuristics import ask, check_knowledge, choose, leaky_policy_is_caught
from mixed_play import assert_drama, check_search_space
from worlds_check import check_worlds

G = get_game("paper_safari")
R = G.make_rules()


def T(x, r=R):
    """Card type of a value (the animal; 10 is the Elephant) or of 'elephant' / 'tarzan' /
    'safari'."""
    return G.type_of(r, x)


TARZAN, SAFARI, ELEPHANT = T("tarzan"), T("safari"), T(10)
ALL_UP = [True] * 6


def grid(*values, r=R):
    return [T(v, r) for v in values]


def position(grids, up=None, players=None, log=True, **kw):
    rules = kw.pop("rules", {})
    r = G.make_rules(rules)
    st = G.init(r, len(grids), deal_keys(1, 0), log=log)
    st.g[0, ps.NEV] = 0
    G.arrange(st, 0, grids, up=up, **kw)
    return r, st


def act(st, action):
    name = G.action_name(st.rules, st.n_players, action)
    assert G.legal(st)[0, action], f"{name} should be legal"
    G.step(st, np.array([action]))


def slot(k):
    return ps.SLOT0 + k


def conserved(st, b=0):
    """Every card of the rulebook's deck (``Book``, below) is in one zone of game b."""
    cards = sorted(int(c) for zone in G.zones(st, b).values() for c in zone)
    assert cards == sorted(Book(st.rules).cards), "cards lost or created"


def obs_of(st):
    return G.observe(st, np.array([0]))


# ---- End of Round and Scoring ------------------------------------------------------------------

def test_misha_scoring_example():
    # "his two rows are 3, 1, 5 (top) and 0, -2, 5 (bottom). The two 5s share a column ... = 2."
    assert G.field_score(R, grid(3, 1, 5, 0, -2, 5)) == 2
    no_rule = G.make_rules({"equal_column_zero": False})
    assert G.field_score(no_rule, grid(3, 1, 5, 0, -2, 5, r=no_rule)) == 12


def test_misha_example_played_to_the_end_of_a_round():
    # Misha (seat 0) turns up his last card, the second 5, and the round ends at once
    r, st = position([grid(3, 1, 5, 0, -2, 8), grid(7, 8, 6, 6, 7, 8)],
                     up=[[True] * 5 + [False], [False] * 6],
                     phase=ps.PLACE, held=T(5), from_deck=True)
    act(st, slot(5))
    assert st.pp[0, 0, ps.LAST] == 2 and st.pp[0, 1, ps.LAST] == 42
    assert st.pp[0, :, ps.WINS].tolist() == [1, 0]
    assert st.pp[0, 0, ps.CLOSED] == 1
    assert st.g[0, ps.ROUND] == 1
    # he closed the round and won it: the measure counts it; seat 1 holds no victory card
    out = G.outcome(st)
    assert out.stats["rounds_closed_won"][0].tolist() == [1, 0]
    assert out.stats["runner_up_cards"][0] == 0
    # a new round is dealt and the winner chooses first
    assert st.g[0, ps.FIRST] == 0 and G.to_move(st)[0] == 0 and st.g[0, ps.PHASE] == ps.REVEAL
    assert not st.up[0].any() and st.g[0, ps.DISC_N] == 1
    conserved(st)
    assert "P0 scores 2: 3 1 5 / 0 -2 5" in G.describe(st, 0)


def test_round_winner_starts_next_round_and_others_may_win():
    # seat 0 closes with a bad grid; seat 1's face-down grid scores lower and wins
    r, st = position([grid(7, 8, 6, 6, 7, 4), grid(-2, 0, 1, 1, 2, 3)],
                     up=[[True] * 5 + [False], [False] * 6],
                     phase=ps.PLACE, held=T(8), from_deck=True)
    act(st, slot(5))
    assert st.pp[0, :, ps.WINS].tolist() == [0, 1]
    assert st.g[0, ps.FIRST] == 1 and G.to_move(st)[0] == 1
    # seat 0 closed and lost: no round closed and won
    assert G.outcome(st).stats["rounds_closed_won"][0].tolist() == [0, 0]


def test_safari_counts_as_its_owners_best_neighbour():
    # "a Safari card between a card worth 3 and a card worth 5 ... may count as 3 or as 5"
    assert G.field_score(R, grid(3, "safari", 5, 0, 7, -2)) == 3 + 3 + 5 + 0 + 7 - 2
    # as 5 it matches the 5 below it: that column counts 0
    assert G.field_score(R, grid(3, "safari", 5, 0, 5, -2)) == 3 + 0 + 5 + 0 - 2
    # at the end of a row it has only one neighbour, in its row (not the card below it)
    assert G.field_score(R, grid("safari", 4, 1, -2, 0, 6)) == 4 + 4 + 1 - 2 + 0 + 6
    # a Safari next to a Safari takes the value the other one copies
    assert G.field_score(R, grid("safari", "safari", 2, 0, 1, 6)) == 2 + 2 + 2 + 0 + 1 + 6
    # a grid of one column: a Safari has no neighbour and counts 0
    one = G.make_rules({"cols": 1, "rows": 2})
    assert G.field_score(one, [T("safari", one), T(7, one)]) == 7


def test_two_foxes_in_a_column_count_zero_and_a_safari_avoids_that():
    # "if a column contains two cards with the same value, their sum counts as 0": also -2, -2
    assert G.field_score(R, grid(-2, 1, 2, -2, 3, 4)) == 0 + 1 + 3 + 2 + 4
    # a Safari between a 0 and a fox, above a fox: copying the fox would make the column 0, so
    # its owner lets it count as the 0 (column 0 + -2) and not as the lower card
    assert G.field_score(R, grid(0, "safari", -2, 5, -2, 3)) == (0 + 5) + (0 - 2) + (-2 + 3)


def test_two_foxes_keep_their_value_when_negatives_are_not_zeroed():
    r = G.make_rules({"equal_negatives_zero": False})
    assert G.field_score(r, grid(-2, 1, 2, -2, 3, 4, r=r)) == -2 - 2 + 1 + 3 + 2 + 4
    assert G.field_score(r, grid(3, 1, 5, 0, -2, 5, r=r)) == 2       # Misha's 5s still count 0
    # the Safari now gains by copying the fox above the other fox: -2, -2 is -4
    assert G.field_score(r, grid(0, "safari", -2, 5, -2, 3, r=r)) == (0 + 5) + (-2 - 2) + (-2 + 3)


@pytest.mark.parametrize("rules", [{}, {"rows": 2, "cols": 4, "safari_cards": 4},
                                   {"rows": 3, "cols": 3, "safari_cards": 3},
                                   {"equal_column_zero": False},
                                   {"equal_negatives_zero": False, "tie_break_all_cards": False}])
def test_field_score_matches_an_independent_reading(rules):
    r = G.make_rules(rules)
    rng = np.random.default_rng(7)
    n, saf = r.rows * r.cols, T("safari", r)
    for _ in range(300):
        cards = [int(c) for c in rng.integers(0, saf + 1, n)]   # any type, Safaris included
        for i in rng.choice(n, int(rng.integers(0, min(r.safari_cards, n) + 1)), replace=False):
            cards[i] = saf
        assert G.field_score(r, cards) == Book(r).grid(cards)[0], cards


def test_a_safari_takes_the_value_that_also_wins_the_tie_break():
    # seat 0's Safari lies between a 2 and a fox, above a 2: as 2 or as -2 its column scores 0
    # and the grid 5; its owner makes it a 2, which wins the tie with seat 1 (5 too) on cards of
    # the highest value: 5 2 2 2 0 -2 against 5 2 2 1 1 -2 (as a -2 it would lose)
    r, st = position([grid(2, "safari", -2, 0, 2, 5), grid(5, 2, -2, 1, 2, 7)],
                     up=[[False] * 6, [True] * 5 + [False]], cur=1,
                     phase=ps.PLACE, held=T(1), from_deck=True)
    act(st, slot(5))
    assert st.pp[0, :, ps.LAST].tolist() == [5, 5]
    assert st.pp[0, :, ps.WINS].tolist() == [1, 0] and st.g[0, ps.TIE_BREAKS] == 1


def test_equal_values_count_zero_whatever_the_cards():
    # Tarzan lying in a grid is worth 10, like the Elephant: a column of both counts 0
    assert G.field_score(R, [TARZAN] + grid(1, 2) + [ELEPHANT] + grid(3, 4)) == 10
    assert G.field_score(G.make_rules({"tarzan_value": 9}),
                         [TARZAN] + grid(1, 2) + [ELEPHANT] + grid(3, 4)) == 29


def _tie_position(**rules):
    # both 14: seat 0 has a 10, seat 1's highest card is 8
    return position([grid(10, -2, 0, 1, 2, 3), grid(8, 6, 0, -2, 1, 3)],
                    up=[[False] * 6, [True] * 5 + [False]], cur=1,
                    phase=ps.PLACE, held=T(1), from_deck=True, rules=rules)


def test_tie_goes_to_more_cards_of_the_highest_value():
    r, st = _tie_position()
    act(st, slot(5))
    assert st.pp[0, :, ps.LAST].tolist() == [14, 14]
    assert st.pp[0, :, ps.WINS].tolist() == [1, 0]
    assert st.g[0, ps.TIE_BREAKS] == 1 and st.g[0, ps.SHARED] == 0


def test_tie_without_the_tie_break_is_shared():
    r, st = _tie_position(high_card_tie_break=False)
    st.g[0, ps.FIRST] = 1                # this round was started by seat 1
    act(st, slot(5))
    assert st.pp[0, :, ps.WINS].tolist() == [1, 1]
    assert st.g[0, ps.SHARED] == 1
    # the next round starts with the first tied winner in turn order from this round's starter
    # (seat 1 here, not the lowest seat)
    assert st.g[0, ps.FIRST] == 1 and G.to_move(st)[0] == 1


def test_a_tie_still_equal_after_the_tie_break_is_shared():
    # three players; seats 0 and 2 tie on 9 with the same cards, seat 1 (who closes) scores more
    r, st = position([grid(5, 1, 0, -2, 2, 3), grid(8, 7, 6, 6, 7, 1), grid(-2, 0, 1, 5, 2, 3)],
                     up=[[False] * 6, [True] * 5 + [False], [False] * 6], cur=1, first=1,
                     phase=ps.PLACE, held=T(8), from_deck=True)
    act(st, slot(5))
    assert st.pp[0, :, ps.LAST].tolist() == [9, 28, 9]
    assert st.pp[0, :, ps.WINS].tolist() == [1, 0, 1]
    assert st.g[0, ps.TIE_BREAKS] == 1 and st.g[0, ps.SHARED] == 1
    assert st.g[0, ps.FIRST] == 2        # from seat 1 in turn order: seat 2 comes before seat 0


def _zero_column_tie(**rules):
    # both 10. Seat 0's highest cards, two 8s, lie in a column that scores 0; seat 1's is a 7
    return position([grid(8, 1, 2, 8, 3, 4), grid(7, 0, 1, -2, 2, 5)],
                    up=[[False] * 6, [True] * 5 + [False]], cur=1,
                    phase=ps.PLACE, held=T(2), from_deck=True, rules=rules)


def test_the_tie_break_counts_the_cards_of_a_zero_column_unless_told_not_to():
    r, st = _zero_column_tie()
    act(st, slot(5))
    assert st.pp[0, :, ps.LAST].tolist() == [10, 10]
    assert st.pp[0, :, ps.WINS].tolist() == [1, 0]      # 8, 8 beat 7
    r, st = _zero_column_tie(tie_break_all_cards=False)
    act(st, slot(5))
    assert st.pp[0, :, ps.WINS].tolist() == [0, 1]      # 7 beats 4 (the 8s do not score)


def test_the_round_ends_at_once_without_a_last_turn_for_the_others():
    # "The round ends when one of the players has all 6 of their cards face up. At that point,
    # the other players also turn all of their cards face up": seat 1 closes, seats 2 and 0 do
    # not play again, and their face-down cards count at their value
    r, st = position([grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 1, -2, 0, 6), grid(8, 7, 6, 5, 4, 3)],
                     up=[[False] * 6, [True] * 5 + [False], [True] + [False] * 5], cur=1,
                     phase=ps.PLACE, held=T(1), from_deck=True)
    act(st, slot(5))
    assert st.g[0, ps.TURNS] == 1 and st.g[0, ps.ROUND] == 1
    assert st.pp[0, :, ps.LAST].tolist() == [15, 0, 33]
    assert st.pp[0, :, ps.WINS].tolist() == [0, 1, 0] and st.pp[0, 1, ps.CLOSED] == 1
    assert st.g[0, ps.PHASE] == ps.REVEAL and G.to_move(st)[0] == 1


def test_match_ends_at_wins_needed():
    r, st = position([grid(3, 1, 5, 0, -2, 8), grid(7, 8, 6, 6, 7, 8)],
                     up=[[True] * 5 + [False], [False] * 6],
                     phase=ps.PLACE, held=T(5), from_deck=True)
    st.pp[0, 0, ps.WINS] = 2
    act(st, slot(5))
    assert G.to_move(st)[0] == -1
    out = G.outcome(st)
    assert out.score[0].tolist() == [3, 0] and out.win[0].tolist() == [1, 0]
    assert out.rank[0].tolist() == [1, 2]


# ---- Turn of Play ------------------------------------------------------------------------------

def test_deck_card_may_be_thrown_away_but_a_discard_must_be_exchanged():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, deck_top=[T(7)], discard=[T(8)])
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PLACE and obs_of(st).held[0] == T(7)
    act(st, ps.DISCARD)
    assert st.disc[0, st.g[0, ps.DISC_N] - 1] == T(7) and not st.up[0].any()
    assert G.to_move(st)[0] == 1
    act(st, ps.TAKE)
    assert not G.legal(st)[0, ps.DISCARD]
    act(st, slot(2))
    assert st.grid[0, 1, 2] == T(7) and st.up[0, 1, 2]
    assert st.disc[0, st.g[0, ps.DISC_N] - 1] == T(2)  # the replaced card goes on the pile face up
    conserved(st)


def _reshuffled_position():
    """Two players, every card outside the grids discarded but one in the deck: seat 0 draws
    it and throws it away, the deck is made again from the 38 discards (foxes, Tarzans, Safaris
    among them), one is turned over, seat 1 is to move."""
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr)
    rest = G.zones(st, 0)["deck"]
    r, st = position(gr, deck_top=[rest[-1]], discard=rest[:-1])
    act(st, ps.DECK)
    act(st, ps.DISCARD)
    assert st.g[0, ps.DECK_PUB] == 1 and G.to_move(st)[0] == 1
    return r, st


def test_deck_running_out_is_reshuffled_from_the_discards():
    r, st = _reshuffled_position()
    n = 50 - 12
    assert st.g[0, ps.DECK_N] == n - 1 and st.g[0, ps.DISC_N] == 1
    assert st.g[0, ps.RESHUFFLES] == 1 and G.to_move(st)[0] == 1
    assert G.legal(st)[0, ps.DECK]
    conserved(st)


def test_setup_each_player_turns_one_card_up():
    st = G.init(R, 3, deal_keys(1, 3))
    assert st.g[0, ps.PHASE] == ps.REVEAL and st.g[0, ps.DISC_N] == 1
    assert st.g[0, ps.DECK_N] == 50 - 18 - 1
    for seat in (0, 1, 2):
        assert G.to_move(st)[0] == seat
        act(st, slot(seat))
        assert st.up[0, seat, seat]
    assert st.g[0, ps.PHASE] == ps.DRAW and G.to_move(st)[0] == 0
    assert st.up[0].sum() == 3
    conserved(st)


# ---- Special Cards: Tarzan ---------------------------------------------------------------------

def test_tarzan_chain_passes_cards_left_and_the_last_goes_under_the_discards():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 8, 7, 6, 5)]
    r, st = position(gr, cur=1, discard=[T(0), T(7)], deck_top=[TARZAN])
    act(st, ps.DECK)
    assert not G.legal(st)[0, ps.DISCARD]  # Tarzan MUST be exchanged
    act(st, slot(2))
    assert st.grid[0, 1, 2] == TARZAN              # the drawer's slot
    assert st.grid[0, 2, 2] == T(2)                # seat 1's card went to seat 2 (its left)
    assert st.grid[0, 0, 2] == T(8)                # seat 2's card went to seat 0
    assert st.disc[0, :3].tolist() == [T(3), T(0), T(7)]  # seat 0's card under the pile
    assert st.up[0, :, 2].all() and st.up[0].sum() == 3
    assert st.g[0, ps.TARZANS] == 1 and G.to_move(st)[0] == 2
    conserved(st)
    text = G.describe(st, 0)
    assert "P1 puts Tarzan at row 1 column 3" in text and "3 goes under the discard pile" in text


def test_nastya_tarzan_example_four_players():
    # "Nastya draws the Tarzan card from the deck and uses it to replace the first card in her
    # top row. The other players exchange cards around the table in turn, each passing their own
    # displaced card to the player on their left, until the chain returns to the player on
    # Nastya's right, whose displaced card goes to the discard pile."  Nastya is seat 2: her left
    # is seat 3, then seat 0; her right is seat 1.
    gr = [grid(5, 0, 1, 2, 3, 4), grid(6, 0, 1, 2, 3, 4), grid(7, 0, 1, 2, 3, 4),
          grid(8, 5, 6, 7, -2, 10)]
    r, st = position(gr, cur=2, discard=[T(-2), T(-2)], deck_top=[TARZAN])
    act(st, ps.DECK)
    assert not G.legal(st)[0, ps.DISCARD]             # Tarzan MUST be exchanged
    act(st, slot(0))
    assert st.grid[0, :, 0].tolist() == [T(8), T(5), TARZAN, T(7)]
    assert st.up[0, :, 0].all() and st.up[0].sum() == 4  # only the first slots moved, face up
    assert (st.grid[0, :, 1:] == np.array(gr)[:, 1:]).all()
    # seat 1's 6 went under the pile; its top is unchanged
    assert st.disc[0, :st.g[0, ps.DISC_N]].tolist() == [T(6), T(-2), T(-2)]
    assert G.to_move(st)[0] == 3 and st.g[0, ps.PHASE] == ps.DRAW
    conserved(st)


def test_tarzan_from_the_discard_pile_two_players():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, discard=[T(7), TARZAN])
    act(st, ps.TAKE)
    assert not G.legal(st)[0, ps.DISCARD]
    act(st, slot(0))
    assert st.grid[0, 0, 0] == TARZAN and st.grid[0, 1, 0] == T(1)
    assert st.disc[0, :2].tolist() == [T(0), T(7)]
    conserved(st)


def test_a_tarzan_chain_can_end_the_round_for_another_player():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, up=[[False] * 6, [True] * 5 + [False]], deck_top=[TARZAN])
    act(st, ps.DECK)
    act(st, slot(5))
    assert st.g[0, ps.ROUND] == 1 and st.pp[0, 1, ps.CLOSED] == 1


def test_chain_cards_keep_the_face_of_their_spot_when_told():
    # three players, seat 0 draws Tarzan into slot 2. Seat 1's slot 2 is face down, seat 2's
    # face up: seat 0's face-down 3 lies face down at seat 1 (nobody saw it), seat 1's card
    # (face down, unseen) goes face up to seat 2's face-up spot, seat 2's 8 under the pile
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 8, 7, 6, 5)]
    up = [[False] * 6, [False] * 6, [False, False, True, False, False, False]]
    r, st = position(gr, up=up, deck_top=[TARZAN], rules={"chain_face_up": False})
    act(st, ps.DECK)
    act(st, slot(2))
    assert st.grid[0, :, 2].tolist() == [TARZAN, T(3), T(2)]
    assert st.up[0, :, 2].tolist() == [True, False, True]
    assert st.known[0, :, 2].tolist() == [True, False, True]
    assert st.disc[0, 0] == T(8) and st.up[0].sum() == 2
    # a card that was face up keeps being known to its new owner, face down in its spot
    up = [[False, False, True] + [False] * 3, [False] * 6, [False] * 6]
    r, st = position(gr, up=up, deck_top=[TARZAN], cur=2, rules={"chain_face_up": False})
    act(st, ps.DECK)
    act(st, slot(2))            # seat 2 -> seat 0 (face up spot) -> seat 1 (face down spot)
    assert st.grid[0, :, 2].tolist() == [T(8), T(3), TARZAN]
    assert st.up[0, :, 2].tolist() == [True, False, True]
    assert st.known[0, :, 2].tolist() == [True, True, True]
    o = G.observe(st, np.array([0]))   # seat 0 to move: it knows its 8, not seat 1's card
    assert o.seat[0] == 0 and o.grid[0, 1, 2] == -1 and o.grid[0, 0, 2] == T(8)
    conserved(st)


def test_a_chain_keeping_faces_closes_no_other_grid():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    up = [[False] * 6, [True] * 5 + [False]]
    r, st = position(gr, up=up, deck_top=[TARZAN], rules={"chain_face_up": False})
    act(st, ps.DECK)
    act(st, slot(5))
    assert st.g[0, ps.ROUND] == 0 and not st.up[0, 1, 5] and G.to_move(st)[0] == 1


# ---- Special Cards: Elephant -------------------------------------------------------------------

def test_elephant_look_forces_an_exchange_and_only_its_owner_sees():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    up0 = [True, False, False, False, False, False]
    r, st = position(gr, up=[up0, [False] * 6], deck_top=[ELEPHANT])
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PEEK
    lg = G.legal(st)[0]
    assert lg[ps.NO_PEEK] and not lg[slot(0)] and lg[slot(1):].all()
    act(st, slot(4))
    o = obs_of(st)
    assert o.grid[0, 0, 4] == T(5) and not o.up[0, 0, 4]      # seen, still face down
    assert not G.legal(st)[0, ps.DISCARD]                     # looking forces the exchange
    act(st, slot(1))                                          # not necessarily the one seen
    assert st.grid[0, 0, 1] == ELEPHANT and st.pp[0, 0, ps.PEEKS] == 1
    o1 = obs_of(st)                                           # seat 1 to move
    assert o1.seat[0] == 1 and o1.grid[0, 1, 4] == -1         # seat 0's looked card is hidden
    assert o1.grid[0, 1, 1] == ELEPHANT                       # the exchanged one is face up
    conserved(st)


def test_elephant_from_the_discard_pile():
    # "draws the Elephant card from the deck or the discard pile": the look is offered either way;
    # a card taken from the discard pile must be exchanged, looked or not
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    for look in (False, True):
        r, st = position(gr, discard=[T(7), ELEPHANT])
        act(st, ps.TAKE)
        assert st.g[0, ps.PHASE] == ps.PEEK
        act(st, slot(3) if look else ps.NO_PEEK)
        assert not G.legal(st)[0, ps.DISCARD] and G.legal(st)[0, slot(0):].all()
        act(st, slot(3))
        assert st.grid[0, 0, 3] == ELEPHANT and st.disc[0, st.g[0, ps.DISC_N] - 1] == T(4)
        assert st.pp[0, 0, ps.PEEKS] == int(look) and st.pp[0, 0, ps.TAKEN] == 1
        conserved(st)


def test_elephant_without_a_look_may_be_thrown_away():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, deck_top=[ELEPHANT])
    act(st, ps.DECK)
    act(st, ps.NO_PEEK)
    assert G.legal(st)[0, ps.DISCARD]
    act(st, ps.DISCARD)
    assert G.to_move(st)[0] == 1


def test_no_elephant_power_when_switched_off():
    r = G.make_rules({"elephant_look": False})
    gr = [grid(1, 2, 3, 4, 5, 6, r=r), grid(0, 1, 2, 3, 4, 5, r=r)]
    r, st = position(gr, deck_top=[T("elephant", r)], rules={"elephant_look": False})
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PLACE and G.legal(st)[0, ps.DISCARD]


def test_elephant_value_is_the_value_of_the_elephant():
    # one field changes the Elephant's value, and nothing else: still 4 Elephants, still a look
    r = G.make_rules({"elephant_value": 12})
    e = T("elephant", r)
    assert G.card_name(r, e) == "Elephant (12)" and r.n_cards() == R.n_cards() == 50
    assert G.field_score(r, [e] + grid(1, 2, 0, 3, 4, r=r)) == 12 + 1 + 2 + 0 + 3 + 4
    assert G.field_score(r, [e] + grid(1, 2, r=r) + [e] + grid(3, 4, r=r)) == 1 + 2 + 3 + 4
    gr = [grid(1, 2, 3, 4, 5, 6, r=r), grid(0, 1, 2, 3, 4, 5, r=r)]
    r, st = position(gr, deck_top=[e], rules={"elephant_value": 12})
    assert np.bincount(st.base)[e] == 4
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PEEK
    # an Elephant worth what another animal is worth is still the Elephant, and pairs with it
    r = G.make_rules({"elephant_value": 8})
    e, eight = T("elephant", r), T(8, r)
    assert e != eight and G.field_score(r, [e] + grid(0, 1, 8, 0, 1, r=r)) == 0


# ---- Hidden information ------------------------------------------------------------------------

def _equal_obs(a, b):
    for name, x in vars(a).items():
        y = getattr(b, name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), name
        else:
            assert x == y, name


def observation_does_not_depend_on_hidden_cards(observe):
    """``observe(state, games)`` must not change with the face-down cards (the mover's own too),
    the deck's order, or another player's look."""
    obs_of = lambda st: observe(st, np.array([0]))  # noqa: E731 - this check's observation
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 8, 7, 6, 5)]
    up = [[True, False, False, False, False, False], [False, True] + [False] * 4, [False] * 6]
    _, a = position(gr, up=up, discard=[T(7)])
    # the same position with other face-down cards (own and others') and another deck order
    gr2 = [grid(1, 8, 3, 4, 5, 6), grid(0, 1, 10, 3, 4, 5), grid(-2, 0, 8, 7, 6, "tarzan")]
    _, b = position(gr2, up=up, discard=[T(7)], deck_top=[T(2), T(5)])
    for seat in range(3):
        a.g[0, ps.CUR] = b.g[0, ps.CUR] = seat
        _equal_obs(obs_of(a), obs_of(b))
    # and a card's owner sees it once looked at, no one else does
    a.known[0, 0, 1] = True
    a.g[0, ps.CUR] = 0
    o = obs_of(a)
    assert o.grid[0, 0, 1] == T(2)
    a.g[0, ps.CUR] = 1
    assert obs_of(a).grid[0, 2, 1] == -1
    assert obs_of(a).unseen[0].sum() == 50 - 1 - 2  # all but the discard and two face-up cards
    # what another player has looked at changes nothing for the others
    b.g[0, ps.CUR] = 1
    before = obs_of(b)
    b.known[0, 0, 1] = True
    _equal_obs(obs_of(b), before)


def test_observation_does_not_depend_on_hidden_cards():
    observation_does_not_depend_on_hidden_cards(G.observe)


def test_observation_subsets_and_shared_values():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    st = G.init(R, 2, deal_keys(3, 0))
    G.arrange(st, 1, gr, up=[[True] + [False] * 5, [False] * 6], discard=[T(7)])
    o = G.observe(st, np.array([0, 1, 2]))
    sub = o.take(np.array([1]))
    assert sub.game.tolist() == [1] and sub.grid[0, 0].tolist() == [T(1)] + [-1] * 5
    assert np.array_equal(sub.card_value, st.card_value)     # shared, not sliced
    with pytest.raises(ValueError):
        o.card_value[0] = 99                                 # the game's table is read-only


# ---- Rules -------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    {"animal_values": [1, 1, 2]}, {"elephant_value": None}, {"elephant_value": 5000},
    {"rows": 0}, {"initial_face_up": 6},
    {"wins_needed": 0}, {"cards_per_animal": 0}, {"tarzan_cards": -1}, {"max_round_turns": 0},
])
def test_impossible_rules_are_refused(bad):
    with pytest.raises(RulesError):
        G.make_rules(bad)


def test_too_few_cards_for_the_table():
    r = G.make_rules({"cards_per_animal": 2, "tarzan_cards": 0, "safari_cards": 0})
    with pytest.raises(RulesError):
        G.init(r, 5, deal_keys(1, 0))
    with pytest.raises(RulesError):
        G.init(R, 6, deal_keys(1, 0))


# ---- The rulebook again, in plain Python (the oracle of the property tests) -------------------
#
# Written from the rulebook and docs/rules/paper_safari.md, never from the module: card kinds
# and values from the Rules fields, the score of a grid (every choice of every Safari), the
# round's winner and tie-break, the next starter, the shuffle (the engine's documented
# splitmix64 stream: draw n of a key is mix(key + n * GOLDEN), an integer below m is
# (bits >> 32) * m >> 32, Fisher-Yates from the last card down), and the deal (the deck's top is
# its last card; each player in turn from seat 0 gets their cards slot by slot from the top;
# the next card starts the discard pile).

MASK = (1 << 64) - 1
GOLDEN, MIX1, MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


class Stream:
    """One game's chance stream."""

    def __init__(self, state):
        self.state = int(state)

    def below(self, m):
        self.state = (self.state + GOLDEN) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * MIX1) & MASK
        z = ((z ^ (z >> 27)) * MIX2) & MASK
        z ^= z >> 31
        return ((z >> 32) * m) >> 32

    def shuffled(self, cards):
        cards = list(cards)
        for i in range(len(cards) - 1, 0, -1):
            j = self.below(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        return cards


class Book:
    """The printed rules (with the documented readings) for one Rules value."""

    def __init__(self, r):
        self.r = r
        nv = len(r.animal_values)   # the other animals, then the Elephant, Tarzan, Safari
        self.elephant, self.tarzan, self.safari = nv, nv + 1, nv + 2
        self.values = list(r.animal_values) + [r.elephant_value, r.tarzan_value]
        self.looks = r.elephant_look
        self.cards = ([t for t in range(nv + 1) for _ in range(r.cards_per_animal)]
                      + [self.tarzan] * r.tarzan_cards + [self.safari] * r.safari_cards)
        self.slots = r.rows * r.cols

    def value(self, t):
        return self.values[t]

    def pair_is_zero(self, v):
        return self.r.equal_column_zero and (v >= 0 or self.r.equal_negatives_zero)

    def _scored(self, vals):
        """Which cards score: not one of equal cards in a column when such pairs count 0."""
        rows, cols = self.r.rows, self.r.cols
        out = []
        for i, v in enumerate(vals):
            col = [vals[q * cols + i % cols] for q in range(rows)]
            out.append(not (self.pair_is_zero(v) and col.count(v) > 1))
        return out

    def grid(self, cards):
        """(score, the cards it brings to the tie-break) of one grid: each Safari copies its left
        or right neighbour in its row, through other Safaris; with no real card to reach it counts
        0, and such circles only when nothing else is possible; its owner picks the lowest score,
        then the best standing in the tie-break."""
        cols = self.r.cols
        pos = [i for i, c in enumerate(cards) if c == self.safari]
        choices = [[j for j in (i - 1, i + 1) if 0 <= j < len(cards) and j // cols == i // cols]
                   or [None] for i in pos]
        best = None
        for choice in itertools.product(*choices):
            to = dict(zip(pos, choice))
            vals, circle = [None] * len(cards), False
            for i, c in enumerate(cards):
                if c != self.safari:
                    vals[i] = self.value(c)
                    continue
                t, been = to[i], {i}
                while t is not None and cards[t] == self.safari and t not in been:
                    been.add(t)
                    t = to[t]
                if t is None or cards[t] == self.safari:
                    circle = circle or t is not None
                    vals[i] = 0
                else:
                    vals[i] = self.value(cards[t])
            scored = self._scored(vals)
            total = sum(v for v, s in zip(vals, scored) if s)
            tie = vals if self.r.tie_break_all_cards else [v for v, s in zip(vals, scored) if s]
            if (best is None or (circle, total) < (best[0], best[1])
                    or ((circle, total) == (best[0], best[1]) and more_high_cards(tie, best[2]))):
                best = (circle, total, tie)
        return best[1], best[2]

    def round_end(self, grids, first):
        """Scores, the round's winners (in turn order from ``first``), whether the tie-break was
        used, and who starts the next round."""
        n = len(grids)
        scored = [self.grid(g) for g in grids]
        scores = [s for s, _ in scored]
        low = min(scores)
        order = [(first + j) % n for j in range(n)]
        tied = [p for p in order if scores[p] == low]
        tie_break = len(tied) > 1 and self.r.high_card_tie_break
        winners = tied
        if tie_break:
            top = tied[0]
            for q in tied[1:]:
                if more_high_cards(scored[q][1], scored[top][1]):
                    top = q
            winners = [p for p in tied if not more_high_cards(scored[top][1], scored[p][1])]
        return scores, winners, tie_break, winners[0]


def more_high_cards(a, b):
    """The printed tie-break: a has more cards of the highest value (value by value down)."""
    for v in sorted(set(a) | set(b), reverse=True):
        if a.count(v) != b.count(v):
            return a.count(v) > b.count(v)
    return False


# ---- Properties over many games: every step against the book ----------------------------------


class Table:
    """Game b of a state as plain lists (what the reference step reads and writes)."""

    FIELDS = ("turns", "rturns", "round", "tarzans", "reshuffles", "chain_closed", "tie_breaks",
              "shared")
    PLAYER = ("wins", "last", "sum", "closed", "peeks", "taken", "closed_won")

    def __init__(self, st, b):
        g, pp = st.g[b], st.pp[b]
        self.n = st.n_players
        self.grid = st.grid[b].tolist()
        self.up = st.up[b].tolist()
        self.known = st.known[b].tolist()
        self.deck = st.deck[b, :g[ps.DECK_N]].tolist()
        self.disc = st.disc[b, :g[ps.DISC_N]].tolist()
        self.cur, self.phase, self.held = int(g[ps.CUR]), int(g[ps.PHASE]), int(g[ps.HELD])
        self.first, self.reveals = int(g[ps.FIRST]), int(g[ps.REVEAL_K])
        self.from_deck, self.peeked = bool(g[ps.FROM_DECK]), bool(g[ps.PEEKED])
        self.c = {k: int(g[i]) for k, i in zip(self.FIELDS, (
            ps.TURNS, ps.RTURNS, ps.ROUND, ps.TARZANS, ps.RESHUFFLES, ps.CHAIN_CLOSED,
            ps.TIE_BREAKS, ps.SHARED))}
        self.pc = {k: pp[:, i].tolist() for k, i in zip(self.PLAYER, (
            ps.WINS, ps.LAST, ps.SUM, ps.CLOSED, ps.PEEKS, ps.TAKEN, ps.CLOSED_WON))}
        self.stream = Stream(st.rs[b])
        self.over = self.phase == ps.OVER

    def same(self, other):
        """The fields that differ between two tables (the kernel's and the reference's)."""
        out = [k for k in ("grid", "up", "known", "deck", "disc", "cur", "phase", "held",
                           "first", "reveals", "from_deck", "peeked", "c", "pc")
               if getattr(self, k) != getattr(other, k)]
        if self.stream.state != other.stream.state:
            out.append("chance stream")
        return out


def reference_legal(t, book):
    """The legal actions of the player to move, from the rulebook."""
    p = t.cur
    down = [ps.SLOT0 + k for k in range(book.slots) if not t.up[p][k]]
    if t.over:
        return set()
    if t.phase == ps.REVEAL:
        return set(down)
    if t.phase == ps.PEEK:
        return set(down) | {ps.NO_PEEK}
    if t.phase == ps.DRAW:
        return {a for a, pile in ((ps.DECK, t.deck), (ps.TAKE, t.disc)) if pile}
    slots = {ps.SLOT0 + k for k in range(book.slots)}
    # only a card drawn from the deck may be thrown away; not Tarzan, not after a look
    if t.from_deck and t.held != book.tarzan and not t.peeked:
        slots.add(ps.DISCARD)
    return slots


def _begin_turn(t):
    if not t.deck:   # "If the deck runs out, shuffle the discard pile ... turn over one card"
        t.deck = t.stream.shuffled(t.disc)
        t.disc = [t.deck.pop()]
        t.c["reshuffles"] += 1
    t.phase = ps.DRAW


def _new_round(t, book, starter):
    """'Shuffle all the cards together and begin a new round': the deal of Game Setup."""
    deck = t.stream.shuffled(book.cards)
    t.grid = [[deck.pop() for _ in range(book.slots)] for _ in range(t.n)]
    t.up = [[False] * book.slots for _ in range(t.n)]
    t.known = [[False] * book.slots for _ in range(t.n)]
    t.disc = [deck.pop()]
    t.deck = deck
    t.first = t.cur = starter
    t.c["rturns"] = 0
    t.held = -1
    t.reveals = 0
    if book.r.initial_face_up > 0:
        t.phase = ps.REVEAL
    else:
        _begin_turn(t)


def _end_round(t, book, closer, log):
    """End of Round and Scoring, then Game End or the next round."""
    scores, winners, tie_break, starter = book.round_end(t.grid, t.first)
    log.append((scores, winners))
    for p in range(t.n):
        t.pc["last"][p] = scores[p]
        t.pc["sum"][p] += scores[p]
        for k in range(book.slots):
            t.up[p][k] = t.known[p][k] = True
    if closer is not None:
        t.pc["closed"][closer] += 1
    t.c["tie_breaks"] += tie_break
    t.c["shared"] += len(winners) > 1
    t.c["round"] += 1
    for p in winners:
        t.pc["wins"][p] += 1
    if closer is not None and closer in winners:   # the player who closed the round won it
        t.pc["closed_won"][closer] += 1
    if max(t.pc["wins"]) >= book.r.wins_needed:   # "the first player to collect three"
        t.phase, t.cur, t.over = ps.OVER, -1, True
        return
    _new_round(t, book, starter)


def reference_step(t, a, book, log):
    """Table t after action a of the player to move, played from the rulebook (in place)."""
    r, n, p = book.r, t.n, t.cur
    if t.phase == ps.REVEAL:
        k = a - ps.SLOT0
        t.up[p][k] = t.known[p][k] = True
        t.reveals += 1
        if t.reveals == n * r.initial_face_up:
            t.cur = t.first
            _begin_turn(t)
        else:   # each player in turn turns up their cards, from the round's first player
            t.cur = (t.first + t.reveals // r.initial_face_up) % n
        return
    if t.phase == ps.DRAW:
        if a == ps.DECK:
            t.held = t.deck.pop()
        else:
            t.held = t.disc.pop()
            t.pc["taken"][p] += 1
        t.from_deck, t.peeked = a == ps.DECK, False
        has_down = not all(t.up[p])
        t.phase = ps.PEEK if t.held == book.elephant and book.looks and has_down else ps.PLACE
        return
    if t.phase == ps.PEEK:
        if a != ps.NO_PEEK:
            t.known[p][a - ps.SLOT0] = True
            t.peeked = True
            t.pc["peeks"][p] += 1
        t.phase = ps.PLACE
        return
    card, t.held = t.held, -1
    if a == ps.DISCARD:
        t.disc.append(card)
    else:
        k = a - ps.SLOT0
        out, came_up = t.grid[p][k], t.up[p][k]
        t.grid[p][k], t.up[p][k], t.known[p][k] = card, True, True
        if card == book.tarzan:
            # the replaced card goes to the left, into the same spot, and so on round the table
            for j in range(1, n):
                q = (p + j) % n
                t.grid[q][k], out = out, t.grid[q][k]
                if r.chain_face_up:
                    t.up[q][k] = t.known[q][k] = True
                else:   # the spot keeps its face; its owner saw the card if it came face up
                    t.known[q][k] = t.up[q][k] or came_up
                    came_up = t.up[q][k]
            t.disc.insert(0, out)       # the right-hand neighbour's card: under the pile
            t.c["tarzans"] += 1
        else:
            t.disc.append(out)
    t.c["rturns"] += 1
    t.c["turns"] += 1
    order = [(p + j) % n for j in range(n)]
    closer = next((q for q in order if all(t.up[q])), None)
    if closer is not None:
        t.c["chain_closed"] += closer != p
        _end_round(t, book, closer, log)
    elif t.c["rturns"] >= r.max_round_turns:
        _end_round(t, book, None, log)
    else:
        t.cur = (p + 1) % n
        _begin_turn(t)


def _play_against_the_book(rules, players, strategies, batch, seed):
    """Play ``batch`` matches, checking every step of every game against the reference; returns
    the final state, each game's round log (scores, winners) and what was exercised."""
    r = G.make_rules(rules)
    book = Book(r)
    keys = game_keys(seed, players, batch)
    seat_rs = keys.seat.reshape(-1).copy()
    strats = [get_strategy("paper_safari", name)() for name in strategies]
    st = G.init(r, players, keys.deal)
    for b in range(batch):   # the first deal, from the game's own stream
        t = Table(st, b)
        want = copy.deepcopy(t)
        want.stream = Stream(keys.deal[b])
        _new_round(want, book, 0)
        assert not t.same(want), (b, t.same(want))
    for s in strats:
        s.reset(batch, players)
    logs = [[] for _ in range(batch)]
    for _ in range(50000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        acts = np.zeros(batch, np.int64)
        for seat, strat in enumerate(strats):
            idx = live[mover[live] == seat]
            if idx.size:
                acts[idx] = choose(strat, G, st, idx, seat_rs, players)
        tables = {}
        for b in live:
            t = Table(st, b)
            assert set(np.flatnonzero(legal[b])) == reference_legal(t, book), (b, t.phase)
            reference_step(t, int(acts[b]), book, logs[b])
            tables[b] = t
        G.step(st, acts)
        for b, want in tables.items():
            got = Table(st, b)
            assert not got.same(want), (b, got.same(want))
        assert not G.legal(st)[G.to_move(st) < 0].any()
    assert (G.to_move(st) == -1).all(), "every match ends"
    return r, book, st, logs


def _check_outcome(r, st, logs):
    """The dataset's figures against the reference's round log of each match."""
    out = G.outcome(st)
    for b, log in enumerate(logs):
        wins = [sum(p in winners for _, winners in log) for p in range(st.n_players)]
        assert out.score[b].tolist() == wins
        assert out.stats["rounds"][b] == len(log)
        assert out.stats["last_round_score"][b].tolist() == log[-1][0]
        assert out.stats["round_score_sum"][b].tolist() == [
            sum(scores[p] for scores, _ in log) for p in range(st.n_players)]
        assert out.stats["runner_up_cards"][b] == sorted(wins)[-2]
        top = [p for p in range(st.n_players) if wins[p] >= r.wins_needed]
        assert top and out.win[b].tolist() == [1 / len(top) if p in top else 0
                                               for p in range(st.n_players)]
    return out


HEURISTICS = ("random", "threshold", "column_matcher", "closer", "random")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_step_of_random_and_heuristic_games_follows_the_rulebook(players):
    """Every decision of 40 matches checked against the plain-Python reading: the legal actions,
    the whole table after it (grids, faces, knowledge, deck and discard order, who moves, every
    counter), including the steps that end a round (scoring, the winner, the next starter, the
    new deal from the game's own stream) and the match; then the dataset's figures."""
    r, book, st, logs = _play_against_the_book({}, players, HEURISTICS[:players], 40, players)
    check_drama(_check_outcome(r, st, logs), logs, players)
    g = st.g
    assert g[:, ps.TARZANS].sum() > 0 and st.pp[:, :, ps.PEEKS].sum() > 0
    if players >= 4:   # Tarzan chains that turn up another player's last card were checked
        assert g[:, ps.CHAIN_CLOSED].sum() > 0
    assert sum(len(x) for x in logs) > 100                     # many round ends were checked
    won = st.pp[:, :, ps.CLOSED_WON]   # checked at every step against the reference's count
    assert 0 < won.sum() < st.pp[:, :, ps.CLOSED].sum()


@pytest.mark.parametrize("players,rules", [
    # a small deck: reshuffles, ties and shared rounds are common
    (2, {"animal_values": [-2, 0, 1], "cards_per_animal": 3, "tarzan_cards": 2}),
    (3, {"chain_face_up": False, "equal_negatives_zero": False, "tie_break_all_cards": False,
         "elephant_value": 12}),
    (3, {"high_card_tie_break": False, "initial_face_up": 0, "max_round_turns": 30}),
    (4, {"initial_face_up": 2, "rows": 3, "cols": 3, "safari_cards": 3, "wins_needed": 2}),
])
def test_every_step_follows_the_rulebook_with_other_rules(players, rules):
    r, book, st, logs = _play_against_the_book(rules, players, HEURISTICS[:players], 24, 11)
    check_drama(_check_outcome(r, st, logs), logs, players)
    if "cards_per_animal" in rules:
        assert st.g[:, ps.RESHUFFLES].sum() > 0 and st.g[:, ps.TIE_BREAKS].sum() > 0
    if "max_round_turns" in rules:
        assert st.g[:, ps.CAPPED].sum() > 0 and st.g[:, ps.SHARED].sum() > 0


def permuted(st, games, seats, rng):
    """A copy of ``st`` in which, for each game b of ``games``, every card ``seats`` cannot see is
    moved among the places it cannot see (written from the rulebook, not from the module): the
    face-down cards of the others, its own face-down cards it has not seen, and the deck; after a
    reshuffle this round the deck (the discards everyone saw) only among itself. Other players'
    looks are changed too."""
    other = copy.deepcopy(st)
    for b, p in zip(games, seats):
        n_slots = st.grid.shape[2]
        grid = [("grid", q, k) for q in range(st.n_players) for k in range(n_slots)
                if not st.up[b, q, k] and not (q == p and st.known[b, q, k])]
        deck = [("deck", i, None) for i in range(st.g[b, ps.DECK_N])]
        pools = [grid, deck] if st.g[b, ps.DECK_PUB] else [grid + deck]
        for places in pools:
            cards = [st.grid[b, q, k] if z == "grid" else st.deck[b, q] for z, q, k in places]
            for (z, q, k), c in zip(places, rng.permutation(cards)):
                if z == "grid":
                    other.grid[b, q, k] = c
                else:
                    other.deck[b, q] = c
        for q in range(st.n_players):
            if q != p:
                other.known[b, q] = st.up[b, q] | (rng.random(n_slots) < 0.5)
    return other


def permuting_hidden_cards_leaves_the_observation_unchanged(observe):
    """From positions of random play: every card the mover cannot see (other players' face-down
    cards, its own face-down cards it has not looked at, the deck) shuffled among those places,
    and other players' looks changed: the mover's observation is the same, field by field."""
    rng = np.random.default_rng(4)
    checked = 0
    for players in (2, 3, 5):
        keys = game_keys(40 + players, players, 24)
        seat_rs = keys.seat.reshape(-1).copy()
        st = G.init(R, players, keys.deal)
        strat = get_strategy("paper_safari", "random")()
        for step in range(3000):
            mover = G.to_move(st)
            live = np.flatnonzero(mover >= 0)
            if live.size == 0:
                break
            if step % 5 == 0:
                other = permuted(st, live, mover[live], rng)
                checked += len(live)
                _equal_obs(observe(st, live), observe(other, live))
            legal = G.legal(st)
            acts = np.zeros(len(mover), np.int64)
            acts[live] = strat.act(G.observe(st, live), legal[live],
                                   SeatRandom(seat_rs, live * players + mover[live]))
            G.step(st, acts)
    return checked


def test_permuting_every_hidden_card_leaves_the_observation_unchanged():
    assert permuting_hidden_cards_leaves_the_observation_unchanged(G.observe) > 2000


@dataclasses.dataclass
class _LeakyObs(ps.Obs):
    leak: np.ndarray = None  # something the mover must not know


def _leaky(what):
    """``G.observe`` with one more field holding ``what(state, games)``: a hidden fact."""
    def observe(st, games):
        o = G.observe(st, games)
        return _LeakyObs(**{f.name: getattr(o, f.name) for f in dataclasses.fields(o)},
                         leak=np.array(what(st, games)))
    return observe


def test_the_hidden_card_checks_catch_a_leak():
    """The positive controls: the same checks on an observation that also carries a hidden
    card (the top of the deck; the mover's own grid, face-down cards included) must fail."""
    deck_top = _leaky(lambda st, games: st.deck[games, st.g[games, ps.DECK_N] - 1])
    own_grid = _leaky(lambda st, games: st.grid[games, st.g[games, ps.CUR]])
    with pytest.raises(AssertionError, match="leak"):
        permuting_hidden_cards_leaves_the_observation_unchanged(deck_top)
    with pytest.raises(AssertionError, match="leak"):
        permuting_hidden_cards_leaves_the_observation_unchanged(own_grid)
    with pytest.raises(AssertionError, match="leak"):
        observation_does_not_depend_on_hidden_cards(own_grid)


def _scramble(st, games, rng):
    """``permuted`` for the seat to move in each game of ``games``."""
    return permuted(st, games, G.to_move(st)[games], rng)


KNOWLEDGE_SPECS = [("threshold", {}), ("column_matcher", {}), ("closer", {}),
           ("closer", {"margin": -1.0, "rush": 2.0, "safari_worth": 0.3}),
           ("column_matcher", {"match_bonus": 5.0, "keep_below": 5.0, "patience": 2.0})]


@pytest.mark.parametrize("players,rules", [
    (2, {}),
    (3, {"elephant_look": True, "initial_face_up": 0}),
    (4, {"rows": 3, "cols": 2, "equal_negatives_zero": False, "chain_face_up": False}),
    (5, {"initial_face_up": 2, "wins_needed": 1}),
])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """At every decision, every card the mover cannot see (the others' face-down cards, its
    own unseen ones, the deck) dealt again among those places, and the others' looks changed:
    no heuristic's action changes (rules that hide more or less: no card up at the start,
    Elephant looks, a 3-row grid, face-down chain cards)."""
    strats = [get_strategy(G.id, n)(**p) for n, p in KNOWLEDGE_SPECS]
    assert check_knowledge(G, G.make_rules(rules), players, strats, _scramble,
                           games=16) > 4000


def test_the_knowledge_check_catches_a_policy_that_reads_the_deck():
    def deck_top(st, b):
        return st.deck[b, st.g[b, ps.DECK_N] - 1] if st.g[b, ps.DECK_N] > 0 else 0

    def own_hidden(st, b):   # the mover's own first card, seen or not
        return st.grid[b, st.g[b, ps.CUR], 0]

    for peek in (deck_top, own_hidden):
        leaky_policy_is_caught(G, R, 3, get_strategy(G.id, "threshold")(), peek, _scramble,
                               games=6, max_steps=300)


def test_a_table_that_never_turns_cards_up_is_stopped_by_the_cap():
    # first_legal always draws from the deck and throws the card away
    r = G.make_rules({"max_round_turns": 40})
    res = play_batch(G, r, 2, [get_strategy("paper_safari", "first_legal")()],
                     np.zeros((16, 2), np.int64), game_keys(1, 2, 16))
    assert (res.outcome.stats["capped_rounds"] > 0).all()
    assert (G.to_move(res.state) == -1).all()


def test_same_seed_same_games():
    strats = [get_strategy("paper_safari", "threshold")(), get_strategy("paper_safari", "closer")()]
    seating = np.tile([0, 1], (64, 1))
    a = play_batch(G, R, 2, strats, seating, game_keys(9, 2, 64)).outcome
    b = play_batch(G, R, 2, strats, seating, game_keys(9, 2, 64)).outcome
    assert np.array_equal(a.score, b.score) and np.array_equal(a.turns, b.turns)
    assert np.array_equal(a.stats["round_score_sum"], b.stats["round_score_sum"])


def test_column_matcher_does_not_swap_a_tarzan_for_its_twin():
    # the loop behind the "stuck" two-player matches: seat 0 has a Tarzan above a Tarzan (an
    # equal column, 0) and the discard pile is a lone Tarzan. Taking it to swap for one of its
    # Tarzans changes nothing in its own grid, so it is no new equal column: it draws instead
    # (it used to take it, push a Tarzan onto seat 1, whose card went under the empty pile,
    # seat 1 took that card back and threw the Tarzan out again, 150 times in a round)
    gr = [[TARZAN] + grid(5, 6) + [TARZAN] + grid(7, 8), grid(0, 1, 2, 3, 4, 5)]
    up = [[True, False, False, True, False, False], [True] + [False] * 5]
    r, st = position(gr, up=up, discard=[TARZAN])
    matcher = get_strategy("paper_safari", "column_matcher")()
    assert ask(matcher, G, st, [0], deal_keys(2, 0), 2).tolist() == [ps.DECK]
    # a Tarzan that does make a new equal column is still taken
    gr = [[TARZAN] + grid(5, 6, 7, 8, 2), grid(0, 1, 2, 3, 4, 5)]
    up = [[True] + [False] * 5, [True] + [False] * 5]
    r, st = position(gr, up=up, discard=[TARZAN])
    assert ask(matcher, G, st, [0], deal_keys(2, 0), 2).tolist() == [ps.TAKE]


def test_no_tarzan_loops_between_the_shipped_heuristics():
    strats = [get_strategy("paper_safari", "column_matcher")(),
              get_strategy("paper_safari", "threshold")()]
    seating = np.tile([[0, 1], [1, 0]], (500, 1))
    out = play_batch(G, R, 2, strats, seating, game_keys(3, 2, 1000)).outcome
    assert out.stats["tarzan_chains"].max() < 30 and (out.stats["capped_rounds"] == 0).all()


def test_heuristics_beat_random_play():
    for name in ("threshold", "column_matcher", "closer"):
        strats = [get_strategy("paper_safari", name)(), get_strategy("paper_safari", "random")()]
        seating = np.tile([[0, 1], [1, 0]], (64, 1))
        out = play_batch(G, R, 2, strats, seating, game_keys(5, 2, 128)).outcome
        share = (out.win * (seating == 0)).sum() / len(seating)
        assert share > 0.9, f"{name} wins only {share:.0%} against random play"


def test_strategy_knobs_are_validated():
    cls = get_strategy("paper_safari", "closer")
    assert cls(margin=2.0, rush=0.5).params.rush == 0.5
    with pytest.raises(Exception):
        cls(nonsense=1)
    with pytest.raises(Exception):
        get_strategy("paper_safari", "column_matcher")(match_bonus=-1)


def test_describe_and_action_names():
    res = play_batch(G, R, 3, [get_strategy("paper_safari", "threshold")()],
                     np.zeros((1, 3), np.int64), game_keys(2, 3, 1), log=True)
    text = G.describe(res.state, 0)
    assert "-- Round 1: P0 plays first --" in text and "wins the round" in text
    assert "Match over" in text
    assert G.action_name(R, 3, ps.DECK) == "draw from the deck"
    assert G.action_name(R, 3, slot(4)) == "slot row 2 column 2"
    assert len(G.decision_kinds) == 4


def test_runs_without_numba():
    code = ("import numpy as np; from safari_sim.games import get_game; "
            "from safari_sim.engine.play import play_batch; from strategies import get_strategy; "
            "from safari_sim.engine.chance import game_keys; "
            "g = get_game('paper_safari'); r = g.make_rules({'wins_needed': 1}); "
            "res = play_batch(g, r, 2, [get_strategy('paper_safari', 'column_matcher')()], "
            "np.zeros((2, 2), np.int64), game_keys(0, 2, 2)); "
            "assert (res.outcome.score.max(axis=1) == 1).all(); print('ok')")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ok" in out.stdout


# ---- Worlds for search (issue 16) ---------------------------------------------------------------

def _assert_worlds(st, games, rng, **kw):
    mover = G.to_move(st)
    check_worlds(G, st, permuted(st, games, mover[games], rng), games, **kw)


SMALL_DECK = {"animal_values": [-2, 0, 1], "cards_per_animal": 3, "tarzan_cards": 2}


@pytest.mark.parametrize("players,rules", [(2, {}), (3, {}), (4, {}), (5, {}), (2, SMALL_DECK)])
def test_worlds_of_random_positions(players, rules):
    """Positions several steps into heuristic and random play (rounds after the first
    included; with a small deck, after reshuffles): the worlds depend only on what the mover
    may know, keep it exactly, vary, and play to their end (tests/worlds_check.py)."""
    rng = np.random.default_rng(players)
    keys = game_keys(70 + players, players, 6)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(G.make_rules(rules), players, keys.deal)
    strats = [get_strategy("paper_safari", n)() for n in HEURISTICS[:players]]
    checked = pub = 0
    for step in range(400):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        if step in (3, 25, 90, 250):
            _assert_worlds(st, live, rng, worlds_per_game=2, seed=step)
            checked += 1
            pub += int(st.g[live, ps.DECK_PUB].sum())
        legal = G.legal(st)
        acts = np.zeros(len(mover), np.int64)
        for seat, strat in enumerate(strats):
            idx = live[mover[live] == seat]
            if idx.size:
                acts[idx] = choose(strat, G, st, idx, seat_rs, players)
        G.step(st, acts)
    assert checked >= 3
    assert pub > 0 or rules != SMALL_DECK    # worlds of a deck made from the discards


def _worlds(st, n, seat=None, seed=0, b=0):
    seat = G.to_move(st)[[b]] if seat is None else np.array([seat])
    return G.determinize(st, np.full(n, b), np.repeat(seat, n), deal_keys(n, seed))


def test_worlds_keep_what_an_elephant_look_showed():
    """Seat 0 looked at its slot 4 (a 5) with an Elephant it still holds; seat 1 once looked at
    its slot 3. In every world seat 0's 5 and Elephant stay; seat 1's look is not seat 0's
    knowledge (its card is dealt again and, in a world, seat 1 knows only its face-up cards)."""
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 8, 7, 6, 5)]
    up = [[True] + [False] * 5, [False] * 6, [False] * 6]
    r, st = position(gr, up=up, deck_top=[ELEPHANT])
    st.known[0, 1, 3] = True
    act(st, ps.DECK)
    act(st, slot(4))
    assert st.g[0, ps.PHASE] == ps.PLACE
    _assert_worlds(st, np.array([0]), np.random.default_rng(1))
    w = _worlds(st, 200)
    assert (w.grid[:, 0, 4] == T(5)).all() and (w.g[:, ps.HELD] == ELEPHANT).all()
    assert (w.grid[:, 0, 0] == T(1)).all() and w.known[:, 0].tolist() == [
        [True, False, False, False, True, False]] * 200
    assert not w.known[:, 1:].any()
    assert len(set(w.grid[:, 1, 3].tolist())) > 3            # seat 1's looked card: any card
    assert (w.disc[:, :w.g[0, ps.DISC_N]] == st.disc[0, :st.g[0, ps.DISC_N]]).all()
    conserved(w, 7)


def test_worlds_keep_a_card_passed_face_down_from_a_face_up_spot():
    """chain_face_up off: seat 2's Tarzan goes to its slot 2, its card to seat 0's face-up spot,
    seat 0's face-up 3 to seat 1's face-down spot, where it lies face down: seat 1 knows it.
    Seat 1's worlds keep it; seat 0's worlds deal that place again (the observation does not
    carry the public fact that the 3 went there)."""
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 8, 7, 6, 5)]
    up = [[False, False, True] + [False] * 3, [False] * 6, [False] * 6]
    r, st = position(gr, up=up, deck_top=[TARZAN], cur=2, rules={"chain_face_up": False})
    act(st, ps.DECK)
    act(st, slot(2))            # seat 2 -> seat 0 (face up spot) -> seat 1 (face down spot)
    assert st.known[0, 1, 2] and not st.up[0, 1, 2] and st.grid[0, 1, 2] == T(3)
    _assert_worlds(st, np.array([0]), np.random.default_rng(2))
    w1 = _worlds(st, 300, seat=1)
    assert (w1.grid[:, 1, 2] == T(3)).all() and w1.known[:, 1, 2].all()
    w0 = _worlds(st, 300, seat=0)
    assert len(set(w0.grid[:, 1, 2].tolist())) > 3 and not w0.known[:, 1, 2].any()


def test_worlds_after_a_reshuffle_keep_the_decks_cards():
    """After the deck is made again from the discard pile (whose every card everyone saw), the
    deck holds exactly those cards: a world shuffles the deck among itself and deals the
    face-down cards among themselves."""
    r, st = _reshuffled_position()
    _assert_worlds(st, np.array([0]), np.random.default_rng(3))
    w = _worlds(st, 300)
    n = st.g[0, ps.DECK_N]
    real_deck = sorted(st.deck[0, :n].tolist())
    real_down = sorted(st.grid[0][~st.up[0]].tolist())
    for i in range(300):
        assert sorted(w.deck[i, :n].tolist()) == real_deck
        assert sorted(w.grid[i][~w.up[i]].tolist()) == real_down
    assert len({tuple(w.deck[i, :n]) for i in range(300)}) > 250
    assert not any(T(-2) in w.grid[i][~w.up[i]] for i in range(300))   # every fox is in the deck


def test_world_frequencies_match_the_rulebook():
    """A hand-built position (2 players, seat 1 to move, seat 0 has looked at its slot 1): the
    frequency of a fox in seat 0's face-down slot 5 and on top of the deck, over 6,000 worlds of
    seat 1, against the probability worked out from the rulebook: every card seat 1 has not seen
    is equally likely in every place it has not seen. Then after a reshuffle: a face-down card is
    drawn from the cards neither face up, nor discarded, nor in the (public) deck."""
    gr = [grid(-2, 3, 4, 5, 6, 7), grid(-2, 1, 2, 3, 4, 5)]
    up = [[True, False, False, False, False, False], [False, True, False, True, False, True]]
    r, st = position(gr, up=up, discard=[T(-2), T(8)], cur=1)
    st.known[0, 0, 1] = True
    book = Book(r)
    seen = [T(-2), T(1), T(3), T(5), T(-2), T(8)]   # face up, and the discards
    unseen = list(book.cards)
    for c in seen:
        unseen.remove(c)
    p_fox = unseen.count(T(-2)) / len(unseen)       # 1 of 44
    n = 6000
    w = _worlds(st, n, seed=11)
    se = np.sqrt(p_fox * (1 - p_fox) / n)
    for freq in ((w.grid[:, 0, 5] == T(-2)).mean(),
                 (w.deck[np.arange(n), w.g[:, ps.DECK_N] - 1] == T(-2)).mean()):
        assert abs(freq - p_fox) < 4 * se + 1e-9, (freq, p_fox)
    p_five = unseen.count(T(5)) / len(unseen)       # 3 of 44
    freq = (w.grid[:, 1, 0] == T(5)).mean()
    assert abs(freq - p_five) < 4 * np.sqrt(p_five * (1 - p_five) / n)
    # after a reshuffle: seat 1's own face-down slots hold what is neither up, discarded nor in
    # the deck
    r, st = _reshuffled_position()
    deck = st.deck[0, :st.g[0, ps.DECK_N]].tolist()
    rest = list(book.cards)
    for c in deck + st.disc[0, :st.g[0, ps.DISC_N]].tolist() + st.grid[0][st.up[0]].tolist():
        rest.remove(c)
    target = T(4)
    p4 = rest.count(target) / len(rest)
    w = _worlds(st, n, seed=12)
    freq = (w.grid[:, 1, 2] == target).mean()
    assert 0 < p4 < 1 and abs(freq - p4) < 4 * np.sqrt(p4 * (1 - p4) / n), (freq, p4)


# ---- Drama (issue 14) ---------------------------------------------------------------------------

def check_drama(out, logs, n_players):
    """Drama is kept per round, in round wins: the running wins after each round, from the
    reference's round log, against the dataset's four columns (tests/mixed_play.py)."""
    for b, log in enumerate(logs):
        wins, running = [0] * n_players, []
        for _, winners in log:
            for p in winners:
                wins[p] += 1
            running.append(list(wins))
        assert_drama(out, b, running, lower_wins=False)
    assert out.stats["lead_changes"].sum() > 0


# ---- Searchable rules (issue 14) ----------------------------------------------------------------

def test_every_search_value_plays():
    """Every field but the deck's list of values and the safety stop declares its values; each
    alone makes valid rules at 2 and 5 players and a small batch of two players plays to the
    end (the 5-player deal needs the most cards)."""
    check_search_space(G, (2,), left_out=("animal_values", "max_round_turns"))
    for name, values in search_space(ps.Rules).items():
        for v in values:
            G.check(G.make_rules({name: v}), 5)

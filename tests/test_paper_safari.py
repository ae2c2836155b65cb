"""Paper Safari: each rule from a constructed position, the rulebook's examples, hidden
information, and properties over many random games."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import get_game
from safari_sim.games import paper_safari as ps
from strategies import get_strategy

G = get_game("paper_safari")
R = G.make_rules()


def T(x, r=R):
    """Card type of a value (the animal) or of 'tarzan' / 'safari'."""
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
    cards = sorted(int(c) for zone in G.zones(st, b).values() for c in zone)
    assert cards == sorted(int(c) for c in st.base), "cards lost or created"


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


def _oracle_score(cards, r):
    """Independent reading of the scoring: every choice of neighbour for every Safari (a Safari
    copying a Safari takes its value; no real card reachable: 0; circles only as a last resort),
    the lowest total, then the most high cards."""
    cv = G.card_values(r).astype(int)
    saf, rows, cols = T("safari", r), r.rows, r.cols
    pos = [i for i, c in enumerate(cards) if c == saf]
    nbs = [[j for j in (i - 1, i + 1) if 0 <= j < len(cards) and j // cols == i // cols] or [-1]
           for i in pos]
    best = None
    for choice in itertools.product(*nbs):
        to = dict(zip(pos, choice))
        vals, circle = [int(cv[c]) for c in cards], False
        for i in pos:
            t, seen = to[i], set()
            while t >= 0 and cards[t] == saf and t not in seen:
                seen.add(t)
                t = to[t]
            circle |= t >= 0 and cards[t] == saf
            vals[i] = int(cv[cards[t]]) if t >= 0 and cards[t] != saf else 0
        total = 0
        for c in range(cols):
            col = [vals[q * cols + c] for q in range(rows)]
            total += sum(v for v in col if col.count(v) == 1 or not r.equal_column_zero)
        key = (circle, total, [-v for v in sorted(vals, reverse=True)])
        best = key if best is None or key < best else best
    return best[1]


@pytest.mark.parametrize("rules", [{}, {"rows": 2, "cols": 4, "safari_cards": 4},
                                   {"rows": 3, "cols": 3, "safari_cards": 3},
                                   {"equal_column_zero": False}])
def test_field_score_matches_an_independent_reading(rules):
    r = G.make_rules(rules)
    rng = np.random.default_rng(7)
    n, saf = r.rows * r.cols, T("safari", r)
    for _ in range(300):
        cards = [int(c) for c in rng.integers(0, saf + 1, n)]   # any type, Safaris included
        for i in rng.choice(n, int(rng.integers(0, min(r.safari_cards, n) + 1)), replace=False):
            cards[i] = saf
        assert G.field_score(r, cards) == _oracle_score(cards, r), cards


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


def test_deck_running_out_is_reshuffled_from_the_discards():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr)
    rest = G.zones(st, 0)["deck"]
    r, st = position(gr, deck_top=[rest[-1]], discard=rest[:-1])
    act(st, ps.DECK)
    act(st, ps.DISCARD)
    n = len(rest)
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
    r = G.make_rules({"elephant_value": None})
    gr = [grid(1, 2, 3, 4, 5, 6, r=r), grid(0, 1, 2, 3, 4, 5, r=r)]
    r, st = position(gr, deck_top=[T(10, r)], rules={"elephant_value": None})
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PLACE


# ---- Hidden information ------------------------------------------------------------------------

def _equal_obs(a, b):
    for name, x in vars(a).items():
        y = getattr(b, name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), name
        else:
            assert x == y, name


def test_observation_does_not_depend_on_hidden_cards():
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
    {"animal_values": [1, 1, 2]}, {"elephant_value": 9}, {"rows": 0}, {"initial_face_up": 6},
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


# ---- Properties over many games ----------------------------------------------------------------

def _counts(st):
    """Cards of each type in every zone of every game: [B, T]."""
    nt = len(st.card_value)
    b = st.g.shape[0]
    n = st.deck.shape[1]
    cnt = np.zeros((b, nt), np.int64)
    live = np.arange(n)[None, :]
    for arr, k in ((st.deck, ps.DECK_N), (st.disc, ps.DISC_N)):
        mask = live < st.g[:, k, None]
        np.add.at(cnt, (np.nonzero(mask)[0], arr[mask].astype(np.int64)), 1)
    gr = st.grid.reshape(b, -1).astype(np.int64)
    np.add.at(cnt, (np.repeat(np.arange(b), gr.shape[1]), gr.ravel()), 1)
    held = st.g[:, ps.HELD]
    h = held >= 0
    np.add.at(cnt, (np.nonzero(h)[0], held[h]), 1)
    return cnt


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_and_heuristic_games_keep_every_rule(players):
    names = ["random", "threshold", "column_matcher", "closer", "random"][:players]
    strats = [get_strategy("paper_safari", n)() for n in names]
    batch = 96
    keys = game_keys(players, players, batch)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(R, players, keys.deal, log=True)
    for s in strats:
        s.reset(batch, players)
    want = np.bincount(st.base, minlength=len(st.card_value))
    for _ in range(20000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        acts = np.zeros(batch, np.int64)
        for k, s in enumerate(strats):
            idx = live[mover[live] == k]
            if idx.size:
                acts[idx] = s.act(G.observe(st, idx), legal[idx],
                                  SeatRandom(seat_rs, idx * players + k))
        assert legal[live, acts[live]].all(), "an illegal action was chosen"
        G.step(st, acts)
        assert (_counts(st) == want).all(), "cards lost or created"
        assert (st.up <= st.known).all()
        drawing = st.g[:, ps.PHASE] == ps.DRAW
        assert (st.g[drawing, ps.DISC_N] + st.g[drawing, ps.DECK_N] > 0).all()
    assert (G.to_move(st) == -1).all(), "a game did not end"
    out = G.outcome(st)
    rules = st.rules
    for b in range(batch):
        # the final grids score what was recorded; round wins match the log
        for p in range(players):
            assert G.field_score(rules, st.grid[b, p]) == st.pp[b, p, ps.LAST]
        ev = st.ev[b, :st.g[b, ps.NEV]]
        won = np.bincount(ev[ev[:, 0] == ps.E_ROUND_WIN, 1], minlength=players)
        assert won.tolist() == out.score[b].tolist()
        assert (ev[:, 0] == ps.E_ROUND).sum() == out.stats["rounds"][b]
    assert out.score.max(axis=1).min() == rules.wins_needed
    assert np.allclose(out.win.sum(axis=1), 1)
    assert (out.stats["rounds"] >= rules.wins_needed).all()
    assert (out.stats["capped_rounds"] == 0).all()


def _reference_step(st, b, a):
    """The printed rules for one decision of game b, written out independently of the kernel:
    the expected (grid, up, known, deck, discard, current player, phase) after action a, or
    None when the step ends a round (dealt anew by chance)."""
    r, n = st.rules, st.n_players
    grid, up, known = st.grid[b].copy(), st.up[b].copy(), st.known[b].copy()
    deck, disc = list(st.deck[b, :st.g[b, ps.DECK_N]]), list(st.disc[b, :st.g[b, ps.DISC_N]])
    p, phase, held = int(st.g[b, ps.CUR]), int(st.g[b, ps.PHASE]), int(st.g[b, ps.HELD])
    if phase == ps.REVEAL:
        up[p, a - ps.SLOT0] = known[p, a - ps.SLOT0] = True
        k = st.g[b, ps.REVEAL_K] + 1
        done = k == n * r.initial_face_up
        cur = st.g[b, ps.FIRST] if done else (st.g[b, ps.FIRST] + k // r.initial_face_up) % n
        return grid, up, known, deck, disc, cur, ps.DRAW if done else ps.REVEAL
    if phase == ps.DRAW:
        card = (deck if a == ps.DECK else disc).pop()
        elephant = card == T(r.elephant_value, r) and not up[p].all()
        return grid, up, known, deck, disc, p, ps.PEEK if elephant else ps.PLACE
    if phase == ps.PEEK:
        if a != ps.NO_PEEK:
            known[p, a - ps.SLOT0] = True
        return grid, up, known, deck, disc, p, ps.PLACE
    if a == ps.DISCARD:
        disc.append(held)
    else:
        k = a - ps.SLOT0
        out = grid[p, k]
        grid[p, k], up[p, k], known[p, k] = held, True, True
        if held == TARZAN:            # the displaced cards go round to the left, same slot
            for j in range(1, n):
                q = (p + j) % n
                grid[q, k], out = out, grid[q, k]
                up[q, k] = known[q, k] = True
            disc.insert(0, out)       # the last one under the discard pile
        else:
            disc.append(out)
    if up.all(axis=1).any() or st.g[b, ps.RTURNS] + 1 >= r.max_round_turns:
        return None
    return grid, up, known, deck, disc, (p + 1) % n, ps.DRAW


@pytest.mark.parametrize("players", [2, 5])
def test_every_step_follows_an_independent_reading_of_the_rules(players):
    strats = [get_strategy("paper_safari", n)() for n in ("random", "closer", "threshold",
                                                          "column_matcher", "threshold")[:players]]
    batch = 16
    keys = game_keys(20 + players, players, batch)
    seat_rs = keys.seat.reshape(-1).copy()
    # with 2 players the deck rarely runs out: a smaller deck makes it
    r = G.make_rules({"cards_per_animal": 2} if players == 2 else {})
    st = G.init(r, players, keys.deal)
    for s in strats:
        s.reset(batch, players)
    seen = {"tarzan": 0, "peek": 0, "reshuffle": 0, "round": 0}
    for _ in range(20000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        acts = np.zeros(batch, np.int64)
        for k, s in enumerate(strats):
            idx = live[mover[live] == k]
            if idx.size:
                acts[idx] = s.act(G.observe(st, idx), legal[idx],
                                  SeatRandom(seat_rs, idx * players + k))
        want = {b: _reference_step(st, b, acts[b]) for b in live}
        seen["tarzan"] += sum(st.g[b, ps.HELD] == TARZAN and acts[b] >= ps.SLOT0 for b in live)
        seen["peek"] += sum(st.g[b, ps.PHASE] == ps.PEEK and acts[b] >= ps.SLOT0 for b in live)
        G.step(st, acts)
        for b, w in want.items():
            if w is None:
                seen["round"] += 1
                continue
            grid, up, known, deck, disc, cur, phase = w
            assert (st.grid[b] == grid).all() and (st.up[b] == up).all()
            assert (st.known[b] == known).all()
            assert st.g[b, ps.CUR] == cur and st.g[b, ps.PHASE] == phase
            got_deck = list(st.deck[b, :st.g[b, ps.DECK_N]])
            got_disc = list(st.disc[b, :st.g[b, ps.DISC_N]])
            if phase == ps.DRAW and not deck:   # the deck ran out: the discards reshuffled
                seen["reshuffle"] += 1
                assert sorted(got_deck + got_disc) == sorted(disc) and len(got_disc) == 1
            else:
                assert got_deck == deck and got_disc == disc
    assert (G.to_move(st) == -1).all()
    assert min(seen.values()) > 0, seen      # every rule above was exercised


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

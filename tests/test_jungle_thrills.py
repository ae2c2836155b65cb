"""Jungle Thrills: each rule from a constructed position (both versions), the rulebook's examples,
properties over many random games at every player count, a plain-Python reference game, the
hidden-card permutation test and the memory of the strategies."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest

from safari_sim.engine.chance import deal_keys, game_keys, shuffle_row, uniform
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import get_game
from safari_sim.games import jungle_thrills as jt
from strategies import get_strategy

import heuristics

G = get_game("jungle_thrills")
LION, TIGER, ELEPHANT, MONKEY, HIPPO, GIRAFFE, ZEBRA = range(7)
A = 7
R1 = G.make_rules()


def c(animal, slot):
    """Card of ``animal``; slots 0, 1 show one animal, 2, 3 two, 4, 5 three."""
    return G.card(R1, animal, slot)


def H(i=0):
    return G.hunter(R1, i)


def animal_set(animal, half=0):
    return tuple(c(animal, s) for s in ((0, 2, 4) if half == 0 else (1, 3, 5)))


def position(players=3, seed=0, **kw):
    rules = {k: kw.pop(k) for k in list(kw) if k in {f.name for f in dataclasses.fields(jt.Rules)}}
    r = G.make_rules(rules)
    st = G.init(r, players, deal_keys(1, seed), log=True)
    G.position(st, 0, **kw)
    return r, st


def act(st, action):
    assert G.legal(st)[0, action], f"action {action} should be legal"
    G.step(st, np.array([action]))


def demand(offset, animal):
    return (offset - 1) * A + animal


def mover(st):
    return int(G.to_move(st)[0])


def obs(st):
    return G.observe(st, np.array([0]))


def conserved(st, b=0):
    """Every card in exactly one zone, and the zone array says the same."""
    z = G.zones(st, b)
    cards = [x for zone in z.values() for x in zone]
    assert sorted(cards) == list(range(st.zone.shape[1])), "cards lost, created or doubled"
    code = {"stack": jt.Z_STACK, "pile": jt.Z_PILE, "held": jt.Z_HELD, "won": jt.Z_WON}
    for name, zone in z.items():
        for x in zone:
            kind = name.rstrip("0123456789")
            want = code.get(kind, jt.Z_PAIR if kind == "pairs" else jt.Z_ASIDE)
            assert st.zone[b, x] == want, (name, x)


def log(st):
    return G.describe(st, 0)


# ---- The pack and the deal ---------------------------------------------------------------------

def test_the_pack_has_44_cards_seven_animals_of_six():
    st = G.init(R1, 3, deal_keys(1, 0))
    assert st.zone.shape[1] == 44
    assert (st.card_animal == -1).sum() == 2
    for x in range(7):
        assert sorted(st.card_value[st.card_animal == x].tolist()) == [1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize("players,sizes", [(3, [15, 15, 14]), (6, [8, 8, 7, 7, 7, 7]),
                                           (2, [22, 22]), (5, [9, 9, 9, 9, 8])])
def test_all_cards_are_dealt_round_from_the_dealers_left(players, sizes):
    # "deals all the cards face downwards round the players. If the number of players does not
    # divide exactly into the number of cards, each player will not receive an equal number"
    r = G.make_rules()
    st = G.init(r, players, deal_keys(1, 3), log=True)
    text = log(st)
    assert text.splitlines()[0] == f"-- Deal 1: P{players - 1} deals 44 card(s) --"
    first_turns = [ln for ln in text.splitlines() if "turns up" in ln][:players]
    # "The player on the left of the dealer begins"; the others in turn
    assert [int(ln[1]) for ln in first_turns] == list(range(players))
    # deal 1's stacks: the cards each player turned in it, plus what is left in his stack if
    # that deal is not over yet
    lines = text.splitlines()
    end = next((i for i, ln in enumerate(lines) if ln.startswith("-- Deal 2")), len(lines))
    left = [int(st.pp[0, p, jt.NSTACK]) if end == len(lines) else 0 for p in range(players)]
    dealt = [sum(1 for ln in lines[:end] if ln.startswith(f"P{p} turns up")) + left[p]
             for p in range(players)]
    assert dealt == sizes


def test_second_version_discards_the_hunters():
    r = G.make_rules(version=2)
    st = G.init(r, 3, deal_keys(1, 0), log=True)
    assert log(st).splitlines()[0] == "-- Deal 1: P2 deals 42 card(s) --"
    z = G.zones(st, 0)
    assert sorted(z["aside"]) == [H(0), H(1)]
    assert G.n_actions(r, 3) == 1 + 21


# ---- Method of play --------------------------------------------------------------------------

def test_a_card_matching_another_players_exposed_card_makes_a_pair_in_the_middle():
    # P0 turns a lion, P1 a lion: the pair goes to the middle ("two 3-animal cards, or two 2's,
    # or singles, or any combination": here a 3 and a 1)
    r, st = position(stacks={0: [H(0), c(LION, 4)], 1: [c(ZEBRA, 0), c(LION, 0)],
                             2: [c(ZEBRA, 2), c(TIGER, 0)]},
                     held={1: [animal_set(GIRAFFE)]})
    # P0 lion, P1 lion -> pair, P2 tiger, P0 Hunter: the demand
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_HUNTER
    z = G.zones(st, 0)
    assert sorted(z["pairs"]) == sorted([c(LION, 4), c(LION, 0)])
    assert z["pile0"] == [H(0)] and z["pile1"] == [] and z["pile2"] == [c(TIGER, 0)]
    assert obs(st).pair_animal[0, 0] == LION
    conserved(st)


def test_a_players_own_earlier_card_is_covered_and_does_not_pair():
    r, st = position(stacks={0: [H(0), c(LION, 1), c(LION, 0)], 1: [c(ZEBRA, 0), c(TIGER, 0)],
                             2: [c(HIPPO, 0), c(MONKEY, 0)]},
                     held={1: [animal_set(GIRAFFE)]})
    z = G.zones(st, 0)
    assert z["pairs"] == []
    assert z["pile0"] == [c(LION, 0), c(LION, 1), H(0)]
    conserved(st)


def test_note_1_the_card_underneath_may_never_be_taken():
    # P0's pile holds a tiger under a lion; P1's lion takes the lion: the tiger is now exposed
    # but P2's tiger does not pair with it
    r, st = position(stacks={0: [H(0)], 1: [c(ZEBRA, 0), c(LION, 1)], 2: [c(ZEBRA, 2), c(TIGER, 1)]},
                     piles={0: [c(TIGER, 0), c(LION, 0)]}, held={2: [animal_set(GIRAFFE)]},
                     cur=1)
    z = G.zones(st, 0)
    assert sorted(z["pairs"]) == sorted([c(LION, 0), c(LION, 1)])
    assert z["pile0"] == [c(TIGER, 0), H(0)] and z["pile2"] == [c(TIGER, 1)]
    o = obs(st)
    assert o.live[0, 2] == c(TIGER, 1)  # P2's tiger (offset 2 from P0) may still be taken
    conserved(st)


def test_the_third_card_makes_a_set_held_by_the_player_who_turned_it():
    r, st = position(stacks={0: [H(0)], 1: [c(ZEBRA, 0), c(LION, 2)], 2: [c(ZEBRA, 2)]},
                     pairs=[(c(LION, 0), c(LION, 4))], cur=1)
    # P1's lion completes the pair into a set: P1 holds it; then P2, then P0's Hunter
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_HUNTER
    z = G.zones(st, 0)
    assert sorted(z["held1"]) == sorted([c(LION, 0), c(LION, 4), c(LION, 2)])
    assert z["pairs"] == [] and st.pp[0, 1, jt.SETS_MADE] == 1
    o = obs(st)
    s = int(np.flatnonzero(o.set_animal[0] == LION)[0])
    assert o.set_holder[0, s] == 1 and o.set_points[0, s] == 1 + 3 + 2
    assert "P1 makes a set of lions" in log(st)
    conserved(st)


def test_all_stacks_turned_the_piles_are_gathered_and_dealt_again_by_the_next_dealer():
    # every stack is turned: the upturned cards (covered ones too) are gathered, shuffled and
    # dealt again; deal 2 is dealt by P0 (left of the first dealer, P2), beginning with P1
    r, st = position(stacks={}, piles={0: [c(LION, 0), H(0)], 1: [c(TIGER, 0)], 2: [c(ZEBRA, 0)]},
                     held={0: [animal_set(HIPPO)], 1: [animal_set(GIRAFFE)],
                           2: [animal_set(MONKEY)]}, deals=1)
    lines = log(st).splitlines()
    assert lines[0] == "-- Deal 2: P0 deals 4 card(s) --"
    assert lines[1].startswith("P1 turns up")
    assert mover(st) >= 0 and obs(st).kind[0] == jt.K_HUNTER   # the Hunter, whoever has it
    conserved(st)


# ---- The Hunter card ---------------------------------------------------------------------------

def test_a_hunter_with_no_set_held_by_another_player_passes_the_turn():
    r, st = position(players=2, stacks={0: [c(LION, 5), H(0)], 1: [c(LION, 1), c(LION, 3)]},
                     won={0: [animal_set(LION)]})
    # P0 Hunter (no one holds a set: on), P1 lion, P0 lion: pair, P1 lion: set held by P1;
    # only the Hunters are left: the asking begins with the next in turn, P0
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_ASK
    z = G.zones(st, 0)
    assert sorted(z["held1"]) == sorted([c(LION, 1), c(LION, 3), c(LION, 5)])
    assert H(0) in z["aside"]
    assert "Only Hunters left" in log(st)
    act(st, demand(1, LION))
    assert mover(st) == -1
    out = G.outcome(st)
    assert out.score[0].tolist() == [12.0, 0.0]  # both lion sets: 1+1+2+2+3+3
    conserved(st)


def test_a_correct_demand_wins_the_set_outright():
    r, st = position(stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)]},
                     held={1: [animal_set(TIGER)], 2: [animal_set(LION)]})
    assert obs(st).kind[0] == jt.K_HUNTER
    act(st, demand(2, LION))
    z = G.zones(st, 0)
    assert sorted(z["won0"]) == sorted(animal_set(LION)) and z["held2"] == []
    assert st.pp[0, 0, jt.WONPTS] == 6 and st.pp[0, 0, jt.DEMANDS_WON] == 1
    conserved(st)


def test_a_wrong_demand_is_refused_and_the_refused_player_asks_anyone_until_one_succeeds():
    r, st = position(players=4, stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)],
                                        3: [c(ZEBRA, 4)]},
                     held={0: [animal_set(HIPPO)], 1: [animal_set(TIGER)], 2: [animal_set(LION)]})
    act(st, demand(1, LION))           # P0 asks P1 for lions: refused
    assert mover(st) == 1 and obs(st).kind[0] == jt.K_REFUSED
    assert obs(st).refused[0, 0, LION] >= 0   # offset 0 from P1 = P1 refused lions
    act(st, demand(3, GIRAFFE))        # P1 asks P0 (3 to his left) for giraffes: refused
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_REFUSED
    act(st, demand(2, LION))           # P0 asks P2 for lions: handed over
    z = G.zones(st, 0)
    assert sorted(z["won0"]) == sorted(animal_set(LION))
    # "Play then continues as before, the turn passing to the next player after the one who
    # turned up the Hunter card": P1 turns up its zebra next
    text = log(st).splitlines()
    i = text.index("   P0: 'I am hunting lions' from P2: hands it over")
    assert text[i + 1] == "P1 turns up 1 zebra"
    conserved(st)


def test_no_player_may_ask_for_a_set_won_outright_nor_ask_himself():
    r, st = position(stacks={}, held={1: [animal_set(TIGER)], 0: [animal_set(ZEBRA)]},
                     won={2: [animal_set(LION), animal_set(LION, 1)]}, asking=True)
    legal = G.legal(st)[0]
    assert mover(st) == 0
    assert legal[demand(1, TIGER)] and legal[demand(1, ZEBRA)]
    assert not legal[demand(1, LION)]        # both lion sets are won outright
    assert not legal[demand(2, TIGER)]       # P2 holds no set
    assert legal.shape[0] == 2 * 7


def test_the_right_to_demand_is_used_by_default_and_may_be_declined_as_a_variant():
    kw = dict(players=3, stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)]},
              held={0: [animal_set(HIPPO)], 1: [animal_set(TIGER)], 2: [animal_set(LION)]})
    r, st = position(**kw)
    # "This continues until whoever is asking has made a correct request": each must ask
    assert G.legal(st).shape[1] == 2 * 7 and G.legal(st)[0].sum() == 14
    r, st = position(may_decline=True, **kw)
    decline = 2 * 7
    assert G.legal(st).shape[1] == 15 and G.legal(st)[0, decline]
    act(st, demand(1, LION))             # refused by P1: P1 may ask anyone, or decline
    assert mover(st) == 1 and G.legal(st)[0, decline]
    act(st, decline)
    # the turn passes to the player after the Hunter's: P1 turns his zebra
    text = log(st).splitlines()
    i = text.index("   P1 does not demand")
    assert text[i + 1] == "P1 turns up 1 zebra"
    assert st.pp[0, 1, jt.DEMANDS] == 0 and st.pp[0, 0, jt.DEMANDS] == 1
    assert G.zones(st, 0)["held1"] and G.zones(st, 0)["held2"]
    # the asking phase's turn must ask even so
    r, st = position(may_decline=True, **dict(_ASK4, asking=True))
    assert obs(st).kind[0] == jt.K_ASK and not G.legal(st)[0, 3 * 7]


def test_a_cautious_player_declines_a_blind_demand_when_it_may():
    r, st = position(players=3, may_decline=True, stacks={0: [H(0)], 1: [c(ZEBRA, 0)],
                                                           2: [c(ZEBRA, 2)]},
                     held={0: [animal_set(HIPPO)], 1: [animal_set(TIGER)]})
    rs = game_keys(5, 3, 1).seat.reshape(-1).copy()
    blind = get_strategy(G.id, "rememberer")(recall=0.0, decline=1.0)
    blind.reset(1, 3)
    assert heuristics.ask(blind, G, st, [0], rs, 3)[0] == 2 * 7
    sure = get_strategy(G.id, "rememberer")(recall=1.0, decline=1.0)
    sure.reset(1, 3)
    assert heuristics.ask(sure, G, st, [0], rs, 3)[0] == demand(1, TIGER)


# ---- The asking phase --------------------------------------------------------------------------

_ASK4 = dict(players=4, stacks={},
             held={1: [animal_set(TIGER)], 3: [animal_set(LION)], 2: [animal_set(HIPPO)]})


def _asking4(**rules):
    return position(asking=True, **_ASK4, **rules)


def test_asking_a_success_passes_the_turn_on_in_rotation():
    r, st = _asking4()
    act(st, demand(1, LION))          # P0 asks P1 for lions: refused, P1 asks
    act(st, demand(2, LION))          # P1 asks P3: success
    # "the turn goes to the player whose turn it is next in normal rotation": P1
    assert mover(st) == 1 and obs(st).kind[0] == jt.K_ASK


def test_asking_next_turn_after_the_asker_variant():
    r, st = _asking4(next_turn="asker")
    act(st, demand(1, LION))
    act(st, demand(2, LION))
    assert mover(st) == 2


def test_asking_ends_when_no_set_is_held_and_held_sets_do_not_count_by_default():
    r, st = position(players=2, stacks={}, asking=True, held={1: [animal_set(TIGER)]},
                     won={1: [animal_set(LION)]})
    act(st, demand(1, ZEBRA))   # refused; P1 can ask no one (the only set is his): turn passes
    # note 2: P1 holds every set and cannot ask; his turn passes back to P0
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_ASK
    assert "P1 can ask no one" in log(st)
    act(st, demand(1, TIGER))
    assert mover(st) == -1
    assert G.outcome(st).score[0].tolist() == [6.0, 6.0]


@pytest.mark.parametrize("count,expect", [(False, [0.0, 6.0]), (True, [0.0, 12.0])])
def test_note_2_as_an_end_and_held_sets_at_the_end(count, expect):
    r, st = position(players=2, stacks={}, asking=True, held={1: [animal_set(TIGER)]},
                     won={1: [animal_set(LION)]}, asking_ends="sole_holder",
                     held_count_at_end=count)
    assert mover(st) == -1
    out = G.outcome(st)
    assert out.score[0].tolist() == expect
    assert out.stats["held_at_end"][0].tolist() == [0, 6]


# 3 players asking, P1 holds the only held set (tigers), P2 has won the lions
_SOLE3 = dict(players=3, stacks={}, asking=True, held={1: [animal_set(TIGER)]},
              won={2: [animal_set(LION)]})


@pytest.mark.parametrize("ends", ["no_set_held", "no_demand", "sole_holder"])
def test_asking_ends_each_reading_when_the_next_in_turn_holds_every_set(ends):
    # P1, the sole holder, is next in turn
    r, st = position(cur=1, asking_ends=ends, **_SOLE3)
    if ends == "no_set_held":
        # note 2: his turn passes, P2 asks him
        assert mover(st) == 2 and obs(st).kind[0] == jt.K_ASK
        assert "P1 can ask no one" in log(st)
        act(st, demand(2, TIGER))
        assert mover(st) == -1
        assert G.outcome(st).score[0].tolist() == [0.0, 0.0, 12.0]
    else:
        # no demand of his can succeed (no_demand); one player holds every set (sole_holder)
        assert mover(st) == -1
        assert G.outcome(st).score[0].tolist() == [0.0, 0.0, 6.0]
        assert G.outcome(st).stats["held_at_end"][0].tolist() == [0, 6, 0]


@pytest.mark.parametrize("ends", ["no_set_held", "no_demand", "sole_holder"])
def test_asking_ends_each_reading_when_a_refused_player_holds_every_set(ends):
    # P0 is next in turn; P2 holds the only held set (tigers), P1 has won the lions
    r, st = position(players=3, stacks={}, asking=True, held={2: [animal_set(TIGER)]},
                     won={1: [animal_set(LION)]}, cur=0, asking_ends=ends)
    if ends == "sole_holder":
        assert mover(st) == -1   # one player holds every set: over at once
        return
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_ASK
    act(st, demand(2, ZEBRA))    # refused by P2, who must ask and can ask no one
    if ends == "no_demand":
        # over at once, though the next in turn (P1) could still ask P2
        assert mover(st) == -1 and "P2 can ask no one" in log(st)
        assert G.outcome(st).score[0].tolist() == [0.0, 6.0, 0.0]
    else:
        # the turn goes on in rotation to P1, who asks P2
        assert mover(st) == 1 and obs(st).kind[0] == jt.K_ASK
        act(st, demand(1, TIGER))
        assert G.outcome(st).score[0].tolist() == [0.0, 12.0, 0.0]


# two lion sets held by P1, the bigger one made first: 2+3+3 = 8 animals, then 1+1+2 = 4
_BIG, _SMALL = (c(LION, 3), c(LION, 4), c(LION, 5)), (c(LION, 0), c(LION, 1), c(LION, 2))


@pytest.mark.parametrize("given,won", [("fewest", _SMALL), ("first", _BIG)],
                         ids=["fewest", "first"])
def test_holding_both_sets_of_the_named_animal_the_holder_hands_over_one(given, won):
    r, st = position(players=3, stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)]},
                     held={1: [_BIG, _SMALL]}, set_handed_over=given)
    act(st, demand(1, LION))
    z = G.zones(st, 0)
    assert sorted(z["won0"]) == sorted(won)
    assert sorted(z["held1"]) == sorted(set(_BIG + _SMALL) - set(won))
    assert st.pp[0, 0, jt.WONPTS] == (4 if given == "fewest" else 8)
    conserved(st)


def test_holding_both_sets_of_equal_worth_the_first_made_is_handed_over():
    first, second = animal_set(LION, 1), animal_set(LION, 0)   # 6 animals each
    r, st = position(players=3, stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)]},
                     held={1: [first, second]})
    act(st, demand(1, LION))
    assert sorted(G.zones(st, 0)["won0"]) == sorted(first)


# ---- The winner and the match ------------------------------------------------------------------

def test_points_are_animals_not_cards_and_ties_share():
    r, st = position(players=3, stacks={}, asking=True, held={},
                     won={0: [animal_set(LION)], 1: [(c(TIGER, 4), c(TIGER, 5), c(TIGER, 0))],
                          2: [(c(ZEBRA, 0), c(ZEBRA, 1), c(ZEBRA, 2))]})
    out = G.outcome(st)
    assert out.score[0].tolist() == [6.0, 7.0, 4.0]
    assert out.rank[0].tolist() == [2, 1, 3] and out.win[0].tolist() == [0, 1, 0]
    r, st = position(players=2, stacks={}, asking=True,
                     won={0: [animal_set(LION)], 1: [animal_set(TIGER)]})
    assert G.outcome(st).win[0].tolist() == [0.5, 0.5]


def _play(rules, players, n, strategies=("rememberer",), seed=1, log=False):
    strats = [get_strategy(G.id, s)() for s in strategies]
    seating = (np.arange(players)[None, :] + np.arange(n)[:, None]) % len(strats)
    return play_batch(G, rules, players, strats, seating, game_keys(seed, players, n), log=log)


def test_a_match_of_several_games_adds_the_points():
    res = _play(G.make_rules(rounds=3), 3, 40)
    assert (res.outcome.stats["rounds"] == 3).all()
    # the first version ends with every set won outright: 84 animals a game
    assert (res.outcome.score.sum(axis=1) == 3 * 84).all()


def test_a_match_to_100_ends_after_the_game_in_which_someone_reaches_it():
    res = _play(G.make_rules(rounds=None), 4, 20, log=True)
    out = res.outcome
    assert (out.score.max(axis=1) >= 100).all()
    for b in range(20):
        lines = G.describe(res.state, b).splitlines()
        totals = [int(ln.split("total ")[1].split(";")[0]) for ln in lines if "scores" in ln]
        per_game = np.array(totals).reshape(-1, 4)
        assert (per_game[:-1].max(axis=1) < 100).all() and per_game[-1].max() >= 100
        assert out.stats["rounds"][b] == len(per_game)
        # the deal passes to the left from game to game too
        deals = [ln for ln in lines if ln.startswith("-- Deal")]
        for k, ln in enumerate(deals):
            assert ln.startswith(f"-- Deal {k + 1}: P{(3 + k) % 4} deals")


# ---- Second version ----------------------------------------------------------------------------

def _v2(**kw):
    return position(version=2, **kw)


def test_v2_a_card_that_may_complete_a_pair_may_go_hunting():
    r, st = _v2(stacks={0: [c(ZEBRA, 0), c(LION, 4)], 1: [c(ZEBRA, 1)], 2: [c(ZEBRA, 2)]},
                pairs=[(c(TIGER, 0), c(TIGER, 1)), (c(LION, 0), c(LION, 2))])
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_HUNT
    o = obs(st)
    assert o.card[0] == c(LION, 4) and o.card_animal_now[0] == LION
    assert G.legal(st)[0].tolist()[:3] == [True, True, True] and not G.legal(st)[0, 3]
    act(st, jt.HUNT0 + 1)            # "I am going hunting lions", touching the lion pair
    z = G.zones(st, 0)
    assert sorted(z["won0"]) == sorted([c(LION, 0), c(LION, 2), c(LION, 4)])
    assert st.pp[0, 0, jt.WONPTS] == 1 + 2 + 3
    conserved(st)


def test_v2_a_wrong_hunt_passes_the_turn_and_bars_hunting_next_turn():
    r, st = _v2(stacks={0: [c(LION, 5), c(LION, 4)], 1: [c(ZEBRA, 1), c(ZEBRA, 3)],
                        2: [c(ZEBRA, 2), c(ZEBRA, 4)]},
                pairs=[(c(TIGER, 0), c(TIGER, 1)), (c(LION, 0), c(LION, 2))], hunt_first=False)
    act(st, jt.HUNT0 + 0)            # lions, touching the tigers: wrong
    assert "wrong, they are tigers" in log(st)
    assert st.pp[0, 0, jt.BARRED] == 1
    # P1 and P2 turn zebras: P1 may hunt (pairs are there)
    assert mover(st) == 1 and obs(st).kind[0] == jt.K_HUNT
    # the wrong hunt turned the tigers up for all to see: seen after they were made
    o = obs(st)
    assert o.pair_seen[0, 0] > o.pair_formed[0, 0]
    act(st, jt.PASS)
    # P2's zebra pairs with P1's exposed zebra (no hunting), then P0 turns its second lion and
    # may not go hunting: the next decision is P1's (its zebra was taken, the next is turned)
    assert mover(st) == 1
    z = G.zones(st, 0)
    assert z["pile0"] == [c(LION, 4), c(LION, 5)] and st.pp[0, 0, jt.BARRED] == 0
    conserved(st)


def test_v2_pair_first_variant_a_card_that_pairs_with_an_exposed_card_does_not_hunt():
    r, st = _v2(stacks={0: [c(ZEBRA, 0), c(LION, 4)], 1: [c(ZEBRA, 5), c(LION, 3)], 2: []},
                pairs=[(c(LION, 0), c(LION, 2))], hunt_first=False)
    # P0's lion: may hunt the pair
    assert mover(st) == 0
    act(st, jt.PASS)
    # P1's lion pairs with P0's exposed lion at once: a second lion pair, face down
    assert mover(st) == 0
    o = obs(st)
    assert sorted(o.pair_animal[0][o.pair_animal[0] >= 0].tolist()) == [LION, LION]
    conserved(st)


def test_v2_game_ends_when_every_set_is_won_or_nothing_can_complete_the_pairs():
    r, st = _v2(players=2, stacks={0: [c(LION, 4)], 1: []}, pairs=[(c(LION, 0), c(LION, 2))],
                won={1: [animal_set(LION, 1)]})
    act(st, jt.HUNT0)
    assert mover(st) == -1 and G.outcome(st).score[0].tolist() == [6.0, 6.0]
    r, st = _v2(players=2, stacks={0: [c(LION, 4)], 1: [c(LION, 5)]},
                pairs=[(c(LION, 0), c(LION, 2)), (c(LION, 1), c(LION, 3))])
    act(st, jt.PASS)   # P0 does not hunt
    act(st, jt.PASS)   # nor P1 (hunt_first): his lion pairs with P0's: three lion pairs
    assert mover(st) == -1
    assert G.outcome(st).score[0].tolist() == [0.0, 0.0]


def _hunt_first_position():
    # P0's lion lies exposed; a lion pair lies face down in the centre; P1 turns a lion
    return _v2(stacks={0: [c(ZEBRA, 0)], 1: [c(ZEBRA, 1), c(LION, 3)], 2: [c(ZEBRA, 2)]},
               piles={0: [c(LION, 4)]}, pairs=[(c(TIGER, 0), c(TIGER, 1)),
                                              (c(LION, 0), c(LION, 2))], cur=1)


def test_v2_a_card_that_could_pair_may_go_hunting_first():
    # "Any player, however, who turns up a card which he thinks will make up one of the pairs
    # on the table into a set of 3": his lion could also pair with P0's exposed lion, but he
    # may hunt first (rules.hunt_first, the default)
    r, st = _hunt_first_position()
    assert mover(st) == 1 and obs(st).kind[0] == jt.K_HUNT and obs(st).card[0] == c(LION, 3)
    act(st, jt.HUNT0 + 1)
    z = G.zones(st, 0)
    assert sorted(z["won1"]) == sorted([c(LION, 0), c(LION, 2), c(LION, 3)])
    assert z["pile0"] == [c(LION, 4)] and obs(st).live[0].tolist().count(c(LION, 4)) == 1
    conserved(st)


@pytest.mark.parametrize("action", [jt.PASS, jt.HUNT0 + 0])
def test_v2_not_hunting_or_hunting_wrongly_the_card_then_pairs(action):
    r, st = _hunt_first_position()
    act(st, action)
    z = G.zones(st, 0)
    assert sorted(z["pairs"]) == sorted([c(TIGER, 0), c(TIGER, 1), c(LION, 0), c(LION, 2),
                                         c(LION, 4), c(LION, 3)])
    assert z["pile0"] == [] and z["pile1"] == [] and z["won1"] == []
    assert st.pp[0, 1, jt.BARRED] == (action != jt.PASS)
    conserved(st)


def test_v2_pair_first_variant_pairs_at_once():
    r, st = _v2(stacks={0: [c(ZEBRA, 0)], 1: [c(ZEBRA, 1), c(LION, 3)], 2: [c(ZEBRA, 2)]},
                piles={0: [c(LION, 4)]}, pairs=[(c(LION, 0), c(LION, 2))], cur=1,
                hunt_first=False)
    # P1's lion pairs with P0's at once; P2's zebra may then hunt (pairs lie in the centre)
    assert mover(st) == 2
    assert sorted(G.zones(st, 0)["pairs"]) == sorted([c(LION, 0), c(LION, 2), c(LION, 4),
                                                      c(LION, 3)])


# ---- Rules fields ------------------------------------------------------------------------------

def test_rules_errors_name_the_field():
    with pytest.raises(RulesError, match="rules.version"):
        G.make_rules(version=3)
    with pytest.raises(RulesError, match="rules.animal_values"):
        G.make_rules(animal_values=[1, 2])
    with pytest.raises(RulesError, match="rules.animal_values"):
        G.make_rules(animal_values=[1, 1, 2000])
    with pytest.raises(RulesError, match="rules.next_turn"):
        G.make_rules(next_turn="left")
    with pytest.raises(RulesError, match="rules.missed_calls"):
        G.make_rules(missed_calls=1.5)
    with pytest.raises(RulesError, match="rules.rounds"):
        G.make_rules(rounds=0)
    with pytest.raises(RulesError, match="did you mean 'target'"):
        G.make_rules(targett=50)
    with pytest.raises(RulesError, match="2 to 6 players"):
        G.check(R1, 7)


def test_missed_calls_leave_cards_exposed():
    res = _play(G.make_rules(missed_calls=0.5), 3, 50, log=True)
    text = G.describe(res.state, 0)
    assert "nobody calls" in text
    assert (res.outcome.stats["capped"] == 0).all()


# ---- Properties over many random games ---------------------------------------------------------

def _recount(st, b, players, rules):
    """Points from the final zones, by the rulebook: animals on won cards (and held)."""
    z = G.zones(st, b)
    pts = []
    for p in range(players):
        cards = z[f"won{p}"] + (z[f"held{p}"] if rules.held_count_at_end else [])
        pts.append(sum(rules.animal_values[x % len(rules.animal_values)] for x in cards))
    return pts


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_properties_over_random_games(players, version):
    B = 60
    keys = game_keys(10 + players, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    names = ["random", "rememberer", "leader_hunter", "guesser"]
    strats = [get_strategy(G.id, n)() for n in names]
    for s in strats:
        s.reset(B, players)
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(strats)
    r = G.make_rules(version=version, held_count_at_end=(players % 2 == 0),
                     may_decline=players in (3, 5), hunt_first=players != 4)
    st = G.init(r, players, keys.deal)
    steps = 0
    while True:
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        assert legal[live].any(axis=1).all()
        assert not legal[mv < 0].any()
        actions = np.zeros(B, np.int64)
        for k, s in enumerate(strats):
            idx = live[seating[live, mv[live]] == k]
            if idx.size:
                a = heuristics.choose(s, G, st, idx, seat_rs, players)
                assert legal[idx, a].all()
                actions[idx] = a
        G.step(st, actions)
        steps += 1
        for b in range(0, B, 7):
            conserved(st, b)
    out = G.outcome(st)
    assert (out.stats["capped"] == 0).all(), "every game ends by the rules"
    for b in range(B):
        assert out.score[b].tolist() == _recount(st, b, players, r)
    if version == 1:
        assert (out.score.sum(axis=1) == 84).all()
    assert np.allclose(out.win.sum(axis=1), 1)
    # the measures, recounted from the final position: pairs left in the centre, and the
    # points of every animal card less the players' scores
    for b in range(B):
        left = [slot for slot in st.pair[b].tolist() if slot[0] >= 0]
        assert out.stats["pairs_stranded"][b] == len(left)
        assert out.stats["points_unwon"][b] == 7 * sum(r.animal_values) - sum(out.score[b])
        assert out.stats["points_unwon"][b] >= sum(int(st.card_value[c]) for s_ in left for c in s_)
    if version == 1:
        assert (out.stats["pairs_stranded"] == 0).all() and (out.stats["points_unwon"] == 0).all()


# ---- A reference game in plain Python ----------------------------------------------------------

def reference_game(rules, players, key, choose, clock_now):
    """The first or second version played again from the rulebook, in plain Python, drawing
    the same shuffles from the game's stream; ``choose(kind, who, legal)`` plays for everyone.
    Returns the points, the sets won by each player (as card sets) and the clock."""
    k = len(rules.animal_values)
    nac = rules.animals * k
    ncards = nac + rules.hunter_cards
    animal = [x // k if x < nac else -1 for x in range(ncards)]
    value = [rules.animal_values[x % k] if x < nac else 0 for x in range(ncards)]
    rs = np.array([key], np.uint64)
    stacks = [[] for _ in range(players)]
    piles = [[] for _ in range(players)]
    live = [None] * players
    pairs = []           # list of [card, card] (None when won), slots in order
    held = [[] for _ in range(players)]
    won = [[] for _ in range(players)]
    barred = [False] * players
    deals = [0]

    def deal(cards):
        row = np.array(cards, np.int8)
        shuffle_row(row, len(row), rs, 0)
        first = deals[0] % players
        for i, x in enumerate(row.tolist()):
            stacks[(first + i) % players].append(x)
        deals[0] += 1
        return first

    cur = deal([x for x in range(ncards) if rules.version == 1 or animal[x] >= 0])
    clock = 0

    def in_sets():
        return sum(len(s) for p in range(players) for s in held[p] + won[p])

    def chain(asker):
        nonlocal clock
        while True:
            opts = [(o, x) for o in range(1, players) for x in range(rules.animals)
                    if held[(asker + o) % players]
                    and sum(animal[s[0]] == x for p in range(players) for s in won[p]) < k // 3]
            if not opts:
                return False  # he can ask no one: no demand of his can succeed
            clock_now["c"] = clock
            o, x = choose("demand", asker, opts)
            q = (asker + o) % players
            clock += 1
            assert clock < rules.max_turns, "the reference game does not end"
            hit = [s for s in held[q] if animal[s[0]] == x]   # in the order made
            if hit:
                if rules.set_handed_over == "fewest":
                    hit.sort(key=lambda s: sum(value[c] for c in s))   # stable: first on ties
                held[q].remove(hit[0])
                won[asker].append(hit[0])
                return True
            asker = q

    while True:
        if in_sets() == nac:
            break
        if not any(stacks):
            cards = [x for p in range(players) for x in piles[p]]
            piles = [[] for _ in range(players)]
            live = [None] * players
            if not cards:
                break
            cur = deal(cards)
            continue
        p = cur
        cur = (p + 1) % players
        if not stacks[p]:
            continue
        x = stacks[p].pop()
        piles[p].append(x)
        clock += 1
        assert clock < rules.max_turns, "the reference game does not end"
        if animal[x] < 0:
            live[p] = None
            if any(held[q] for q in range(players) if q != p):
                chain(p)
            continue
        live[p] = x
        b = barred[p]
        barred[p] = False
        if rules.version == 1:
            j = [i for i, pr in enumerate(pairs) if pr and animal[pr[0]] == animal[x]]
            if j:
                piles[p].pop()
                live[p] = None
                held[p].append(pairs[j[0]] + [x])
                pairs[j[0]] = None
                continue
        def pair_up():
            prev = [(p - i) % players for i in range(1, players)]
            q = [r for r in prev if live[r] is not None and animal[live[r]] == animal[x]]
            if not q:
                return False
            q = q[0]
            piles[q].pop()
            piles[p].pop()
            pr = [live[q], x]
            live[q] = live[p] = None
            if None in pairs:
                pairs[pairs.index(None)] = pr
            else:
                pairs.append(pr)
            return True

        def go_hunting():
            """True if the set was won."""
            opts = [i for i, pr in enumerate(pairs) if pr]
            clock_now["c"] = clock
            j = choose("hunt", p, opts)
            if j is None:
                return False
            if animal[pairs[j][0]] == animal[x]:
                piles[p].pop()
                live[p] = None
                won[p].append(pairs[j] + [x])
                pairs[j] = None
                return True
            barred[p] = True
            return False

        may_hunt = rules.version == 2 and not b and any(pairs)
        if may_hunt and rules.hunt_first:
            # he may hunt before the table calls a pair with an exposed card
            if go_hunting():
                if in_sets() == nac:
                    break
                continue
            pair_up()
            continue
        if pair_up():
            continue
        if may_hunt and go_hunting() and in_sets() == nac:
            break
    if rules.version == 1 and in_sets() == nac:
        # the asking phase, beginning with the next in turn
        t = cur
        while any(held):
            holders = sum(1 for q in range(players) if held[q])
            if rules.asking_ends == "sole_holder" and holders == 1:
                break
            if any(held[q] for q in range(players) if q != t):
                if not chain(t) and rules.asking_ends == "no_demand":
                    break
            elif rules.asking_ends == "no_demand":
                break
            t = (t + 1) % players
    pts = [sum(value[x] for s in won[p] for x in s) for p in range(players)]
    return pts, [sorted(sorted(s) for s in won[p]) for p in range(players)], clock


def _mix(clock):
    return (clock * 2654435761) % 2**32 >> 8


@pytest.mark.parametrize("version,rules", [
    (1, {}), (1, {"set_handed_over": "first", "asking_ends": "no_demand"}),
    (1, {"asking_ends": "sole_holder"}), (2, {}), (2, {"hunt_first": False})],
    ids=["v1", "v1-first-no_demand", "v1-sole_holder", "v2", "v2-pair_first"])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_game_equals_a_plain_python_reference(players, version, rules):
    # both engines play the same scripted choices: the (hash of the clock mod count)-th legal
    # option, in action order (demands by offset then animal; not hunting, then pairs by slot)
    r = G.make_rules(version=version, **rules)
    n = 12
    keys = game_keys(7, players, n)
    st = G.init(r, players, keys.deal)
    for _ in range(100_000):
        mv = G.to_move(st)
        if (mv < 0).all():
            break
        legal = G.legal(st)
        k = _mix(st.g[:, jt.CLOCK].astype(np.int64)) % np.maximum(legal.sum(axis=1), 1)
        G.step(st, np.argmax(np.cumsum(legal, axis=1) > k[:, None], axis=1))
    out = G.outcome(st)
    clock_now = {}

    def choose(kind, who, opts):
        opts = ([None] + opts) if kind == "hunt" else opts
        return opts[_mix(clock_now["c"]) % len(opts)]

    compared = 0
    for b in range(n):
        if out.stats["capped"][b]:
            continue
        compared += 1
        pts, won, clock = reference_game(r, players, keys.deal[b], choose, clock_now)
        z = G.zones(st, b)
        assert out.score[b].tolist() == pts, b
        for p in range(players):
            mine = sorted(sorted(z[f"won{p}"][i:i + 3]) for i in range(0, len(z[f"won{p}"]), 3))
            assert mine == won[p], (b, p)
        assert out.turns[b] == clock
    assert compared >= n // 2


# ---- Observations ------------------------------------------------------------------------------

def _fields(o):
    return {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}


def _deal_stacks(st, b, order):
    """Put the cards ``order`` into game b's face-down stacks, bottom first, sizes kept."""
    i = 0
    for p in range(st.n_players):
        for j in range(st.pp[b, p, jt.NSTACK]):
            st.stack[b, p, j] = order[i]
            st.zone_at[b, order[i]] = p
            i += 1


def check_hidden_cards_do_not_show(observe, version):
    """Mid-game decisions: shuffle every face-down stack card among the stacks (sizes kept):
    ``observe(st, games)`` (a dict of fields) of the player to move must be the same."""
    players, B = 4, 40
    r = G.make_rules(version=version)
    rng = np.random.default_rng(0)
    st = G.init(r, players, game_keys(3, players, B).deal)
    checked = 0
    for step in range(40):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        for b in live[:5]:
            hidden = [x for p in range(players) for x in st.stack[b, p, :st.pp[b, p, jt.NSTACK]]]
            if len(hidden) < 2:
                continue
            before = observe(st, np.array([b]))
            saved = st.stack[b].copy(), st.zone_at[b].copy()
            perm = rng.permutation(hidden)
            if (perm == np.array(hidden)).all():
                perm = np.roll(perm, 1)
            _deal_stacks(st, b, perm)
            assert not np.array_equal(st.stack[b], saved[0])
            after = observe(st, np.array([b]))
            for name in before:
                assert np.array_equal(np.asarray(before[name]), np.asarray(after[name])), name
            st.stack[b], st.zone_at[b] = saved
            checked += 1
        legal = G.legal(st)
        G.step(st, np.argmax(legal, axis=1))
    assert checked > 20


@pytest.mark.parametrize("version", [1, 2])
def test_observation_unchanged_when_every_hidden_card_is_permuted(version):
    check_hidden_cards_do_not_show(lambda st, games: _fields(G.observe(st, games)), version)


@pytest.mark.parametrize("version", [1, 2])
def test_the_permutation_check_catches_a_leaky_observation(version):
    """The positive control: the same check on an observation with one more field, the card
    each player turns up next (the top of his face-down stack), must fail."""
    def leaky(st, games):
        tops = [[int(st.stack[b, p, st.pp[b, p, jt.NSTACK] - 1]) if st.pp[b, p, jt.NSTACK] else -1
                 for p in range(st.n_players)] for b in games]
        return {**_fields(G.observe(st, games)), "next_cards": np.array(tops)}

    with pytest.raises(AssertionError, match="next_cards"):
        check_hidden_cards_do_not_show(leaky, version)


def test_observation_is_rotated_and_carries_the_public_history():
    r, st = position(players=4, stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)],
                                        3: [c(ZEBRA, 4)]},
                     held={2: [animal_set(LION)], 3: [animal_set(TIGER)]}, cur=0)
    o = obs(st)
    assert o.held_count[0].tolist() == [0, 0, 1, 1]
    act(st, demand(2, TIGER))    # P0 asks P2 for tigers: refused; P2 asks
    o = obs(st)
    assert o.seat[0] == 2 and o.kind[0] == jt.K_REFUSED
    assert o.held_count[0].tolist() == [1, 1, 0, 0]          # rotated: P2, P3, P0, P1
    assert o.refused[0, 0, TIGER] == o.clock[0]              # P2 itself refused tigers just now
    s = int(np.flatnonzero(o.set_animal[0] == TIGER)[0])
    assert o.set_holder[0, s] == 1                           # P3 is 1 to P2's left
    assert o.zone_at[0, H(0)] == 2 and o.zone[0, H(0)] == jt.Z_PILE   # on P0's pile
    assert (o.zone_at[0][o.zone[0] == jt.Z_STACK] == -1).all()


# ---- Strategies and memory ---------------------------------------------------------------------

def test_perfect_memory_demands_the_right_set_and_no_memory_guesses():
    r, st = position(players=3, stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)]},
                     held={1: [animal_set(TIGER)], 2: [(c(LION, 4), c(LION, 5), c(LION, 3))]})
    assert mover(st) == 0
    perfect = get_strategy(G.id, "rememberer")(recall=1.0)
    perfect.reset(1, 3)
    rs = game_keys(5, 3, 1).seat.reshape(-1).copy()
    assert heuristics.ask(perfect, G, st, [0], rs, 3)[0] == demand(2, LION)   # the richer set
    hits = 0
    for seed in range(60):
        blank = get_strategy(G.id, "rememberer")(recall=0.0)
        blank.reset(1, 3)
        a = heuristics.ask(blank, G, st, [0], game_keys(seed, 3, 1).seat.reshape(-1).copy(),
                           3)[0]
        hits += a in (demand(2, LION), demand(1, TIGER))
    assert 0 < hits < 40


def test_forgetting_follows_recall_to_the_power_of_the_turns_passed():
    n = 4000
    st = G.init(R1, 3, deal_keys(n, 0))
    for b in range(n):   # n copies of one position
        G.position(st, b, stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)]},
                   held={1: [animal_set(TIGER)]})
    o = G.observe(st, np.arange(n))
    assert (o.clock == 1).all() and (o.set_since[:, 0] == 0).all() and (o.seat == 0).all()
    s = get_strategy(G.id, "rememberer")(recall=0.5)
    s.reset(n, 3)
    heuristics.ask(s, G, st, np.arange(n), game_keys(1, 3, n).seat.reshape(-1).copy(), 3)
    kept = s.mem.facts["sets"][:, 0, 0].mean()
    assert abs(kept - 0.5) < 0.04   # one turn since the set was made


def test_memory_pays():
    r = G.make_rules()
    B, P = 600, 3
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 2
    strats = [get_strategy(G.id, "rememberer")(recall=1.0), get_strategy(G.id, "rememberer")(recall=0.0)]
    res = play_batch(G, r, P, strats, seating, game_keys(4, P, B))
    w = [res.outcome.win[seating == k].mean() for k in range(2)]
    assert w[0] > 2 * w[1]


def test_bold_hunts_more():
    r = G.make_rules(version=2)
    B, P = 300, 3
    seating = np.zeros((B, P), np.int64)
    a = play_batch(G, r, P, [get_strategy(G.id, "guesser")(bold=0.2)], seating, game_keys(5, P, B))
    b = play_batch(G, r, P, [get_strategy(G.id, "guesser")(bold=0.9)], seating, game_keys(5, P, B))
    # hunts per decision to hunt or not (a timid table plays longer games)
    rate = [x.outcome.stats["hunts"].sum() / x.decisions for x in (a, b)]
    assert rate[1] > 2 * rate[0]


def test_strategy_knobs_are_validated():
    with pytest.raises(Exception):
        get_strategy(G.id, "rememberer")(recall=1.5)
    with pytest.raises(Exception):
        get_strategy(G.id, "guesser")(no_such_knob=1)


# ---- Determinism, trace, no-JIT ----------------------------------------------------------------

def test_trace_describes_a_whole_game():
    res = _play(G.make_rules(), 3, 1, log=True)
    text = G.describe(res.state, 0)
    assert text.startswith("-- Deal 1: P2 deals 44 card(s) --")
    assert "Only Hunters left" in text and "== Game 1 over ==" in text


def test_runs_without_numba_and_gives_the_same_trace():
    # both versions in one process per mode: starting Python and numba is most of the cost
    code = ("import numpy as np; from safari_sim.games import get_game; "
            "from safari_sim.engine.play import play_batch; from strategies import get_strategy; "
            "from safari_sim.engine.chance import game_keys; "
            "g = get_game('jungle_thrills'); s = get_strategy('jungle_thrills', 'rememberer')(); "
            "[print(g.describe(play_batch(g, g.make_rules(version=v), 3, [s], np.zeros((1, 3), int), "
            "game_keys(9, 3, 1), log=True).state, 0)) for v in (1, 2)]")
    outs = []
    for jit in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=jit)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        outs.append(out.stdout)
    assert outs[0] == outs[1] and "turns up" in outs[0]


# ---- Worlds for search (issue 16) ---------------------------------------------------------------

from tests.designer_check import assert_drama, search_values  # noqa: E402
from tests.worlds_check import check_worlds  # noqa: E402


def _permute_stacks(st, rng, games=None):
    """A copy of ``st`` in which, in every game, the face-down stack cards (the only hidden
    cards, hidden from every seat) are permuted among the stack places, sizes kept (as in the
    observation permutation test)."""
    perm = G.clone(st, np.arange(len(st.rs)))
    players = st.n_players
    for b in (range(len(st.rs)) if games is None else games):
        hidden = [x for p in range(players) for x in perm.stack[b, p, :perm.pp[b, p, jt.NSTACK]]]
        _deal_stacks(perm, b, rng.permutation(hidden))
        perm.tmp[b] = rng.permutation(perm.tmp[b])  # the scratch row keeps the last shuffle
    return perm


def _random_steps(r, players, B, steps, seed):
    st = G.init(r, players, game_keys(seed, players, B).deal)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mv = G.to_move(st)
        if (mv < 0).all():
            break
        legal = G.legal(st)
        a = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in legal])
        G.step(st, a)
    return st


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_worlds_of_random_positions(players, version):
    r = G.make_rules(version=version)
    st = _random_steps(r, players, 12, 4, seed=20 + players)
    mv = G.to_move(st)
    hidden = (st.zone == jt.Z_STACK).sum(axis=1)
    games = np.flatnonzero((mv >= 0) & (hidden >= 2))
    assert games.size >= 3
    check_worlds(G, st, _permute_stacks(st, np.random.default_rng(players)), games)
    # the world's stacks hold exactly the real game's face-down cards, each stack its size
    w = G.determinize(st, games, mv[games], deal_keys(len(games), 9))
    for i, b in enumerate(games):
        assert sorted(w.stack[i][w.stack[i] >= 0].tolist()) == sorted(
            np.flatnonzero(st.zone[b] == jt.Z_STACK).tolist())
        assert (w.pp[i, :, jt.NSTACK] == st.pp[b, :, jt.NSTACK]).all()
        conserved(w, i)


def test_worlds_keep_refusals_held_sets_and_pairs():
    # P0's Hunter demands lions from P1: refused; P1 (to move) now knows who holds what, who
    # refused what and which pair lies where; only the order of the stacks is dealt again
    r, st = position(players=4, stacks={0: [H(0)], 1: [c(ZEBRA, 0), c(MONKEY, 1)],
                                        2: [c(ZEBRA, 2), c(HIPPO, 0), c(MONKEY, 4)],
                                        3: [c(ZEBRA, 4), c(HIPPO, 3)]},
                     pairs=[(c(GIRAFFE, 0), c(GIRAFFE, 2))],
                     held={0: [animal_set(ELEPHANT)], 1: [animal_set(TIGER)],
                           2: [animal_set(LION)]})
    act(st, demand(1, LION))
    assert mover(st) == 1 and obs(st).kind[0] == jt.K_REFUSED
    check_worlds(G, st, _permute_stacks(st, np.random.default_rng(1)), [0], worlds_per_game=8)
    w = G.determinize(st, np.zeros(8, np.int64), np.ones(8, np.int64), deal_keys(8, 2))
    assert (w.refused[:, 1, LION] == st.refused[0, 1, LION]).all()
    assert (w.pair[:, 0] == st.pair[0, 0]).all() and (w.setc == st.setc[0]).all()
    assert len({tuple(row.ravel()) for row in w.stack}) > 1


def test_worlds_second_version_face_down_pairs_kept():
    r, st = position(players=3, version=2, stacks={0: [c(LION, 4), c(TIGER, 1)],
                                                   1: [c(ZEBRA, 0), c(HIPPO, 1)],
                                                   2: [c(ZEBRA, 2), c(HIPPO, 2)]},
                     pairs=[(c(TIGER, 0), c(TIGER, 2)), (c(LION, 0), c(LION, 2))])
    assert mover(st) == 0 and obs(st).kind[0] == jt.K_HUNT
    check_worlds(G, st, _permute_stacks(st, np.random.default_rng(2)), [0], worlds_per_game=8)


def test_worlds_deal_the_stacks_uniformly():
    # P0's Hunter is up; face down: P1 holds 1 card, P2 holds 3, of {1 lion, 3 lions, 1 tiger,
    # 1 hippo}. By the rulebook the deal was a shuffle, so every order of those four cards in
    # the four places is as likely: worked out here by listing the 24 of them
    import itertools
    cards = [c(LION, 0), c(LION, 5), c(TIGER, 0), c(HIPPO, 0)]
    r, st = position(players=3, stacks={0: [H(0)], 1: [cards[0]], 2: cards[1:]},
                     held={1: [animal_set(ZEBRA)]})
    assert mover(st) == 0
    orders = list(itertools.permutations(cards))
    p_lion_alone = sum(o[0] == cards[0] for o in orders) / len(orders)        # 1/4
    p_both_lions_p2 = sum(cards[0] in o[1:] and cards[1] in o[1:] for o in orders) / len(orders)
    p_tiger_top_p2 = sum(o[3] == cards[2] for o in orders) / len(orders)      # top: last dealt
    n = 6000
    w = G.determinize(st, np.zeros(n, np.int64), np.zeros(n, np.int64), deal_keys(n, 11))
    alone = w.stack[:, 1, 0] == cards[0]
    p2 = w.stack[:, 2, :3]
    both = (p2 == cards[0]).any(axis=1) & (p2 == cards[1]).any(axis=1)
    top = w.stack[:, 2, 2] == cards[2]
    for got, want in ((alone.mean(), p_lion_alone), (both.mean(), p_both_lions_p2),
                      (top.mean(), p_tiger_top_p2)):
        se = (want * (1 - want) / n) ** 0.5
        assert abs(got - want) < 4 * se, (got, want)
    assert np.array_equal(st.stack[0, 1, :1], [cards[0]])   # the real game is untouched


def test_clone_keeps_the_constants_when_the_batch_equals_the_pack():
    # a batch of 44 games (the pack's size) and of 13 (the params' length): constants shared
    for B in (44, 13):
        st = G.init(R1, 3, deal_keys(B, 1))
        w = G.clone(st, np.array([0, 0, 1]))
        assert w.card_animal is st.card_animal and w.params is st.params
        assert (G.to_move(w) == G.to_move(st)[[0, 0, 1]]).all()


# ---- Drama (issue 14) ---------------------------------------------------------------------------

def _running(st, b, players, rules):
    """The running score from the state, by the rulebook: points of the finished games of the
    match, plus the animals on the sets won outright in this game (the final totals at the
    end)."""
    if G.to_move(st)[b] < 0:
        return [int(x) for x in st.pp[b, :, jt.TOTAL]]
    z = G.zones(st, b)
    k = len(rules.animal_values)
    return [int(st.pp[b, p, jt.TOTAL]) + sum(rules.animal_values[x % k] for x in z[f"won{p}"])
            for p in range(players)]


@pytest.mark.parametrize("version,rounds,players", [(1, 1, 3), (2, 1, 4), (1, 2, 2), (2, 3, 3)])
def test_drama_columns_equal_a_recount_from_the_running_scores(version, rounds, players):
    r = G.make_rules(version=version, rounds=rounds)
    B = 24
    st = G.init(r, players, game_keys(40 + players, players, B).deal)
    strat = get_strategy(G.id, "rememberer")()
    strat.reset(B, players)
    seat_rs = game_keys(40 + players, players, B).seat.reshape(-1).copy()
    hist = [[] for _ in range(B)]
    last = [_running(st, b, players, r) for b in range(B)]
    assert all(sum(x) == 0 for x in last)
    while True:
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        actions = np.zeros(B, np.int64)
        actions[live] = heuristics.ask(strat, G, st, live, seat_rs, players)
        G.step(st, actions)
        for b in live:
            now = _running(st, b, players, r)
            if now != last[b]:
                hist[b].append(now)
                last[b] = now
    out = G.outcome(st)
    changed = 0
    for b in range(B):
        changed += assert_drama(out.stats, b, hist[b], out.score[b].tolist(),
                                out.win[b].tolist()) > 0
    assert changed > 0


# ---- Searchable rules (issue 14) ----------------------------------------------------------------

def test_every_searchable_value_makes_valid_rules_that_play_to_the_end():
    from safari_sim.engine.protocol import search_space
    space = search_space(jt.Rules)
    assert {"version", "animals", "hunter_cards", "missed_calls", "rounds"} <= set(space)
    assert "max_turns" not in space and "animal_values" not in space
    for name, values in space.items():
        for v in search_values(values):
            r = G.make_rules({name: v})
            for players in (2, 5):
                G.check(r, players)
                st = _random_steps(r, players, 3, 100_000, seed=players)
                assert (G.to_move(st) < 0).all(), (name, v)
                out = G.outcome(st)
                assert (out.win.sum(axis=1) > 0.99).all()


@pytest.mark.parametrize("players", [3, 5])
def test_drama_with_held_sets_counted_replayed_from_the_log(players):
    # with held_count_at_end the running score moves at every set made (held), and a demand
    # moves a set from holder to asker; several moves may fall in one step, so the running
    # score is replayed from the event log: E_SET (maker, animal, slot), E_DEMAND (asker,
    # asked, animal, handed over, slot); a slot's cards never change within a game
    r = G.make_rules(held_count_at_end=True)
    B = 16
    res = _play(r, players, B, strategies=("rememberer", "guesser"), seed=3, log=True)
    st, out = res.state, res.outcome
    k = len(r.animal_values)
    changed = 0
    for b in range(B):
        pts = [sum(r.animal_values[x % k] for x in st.setc[b, s]) for s in range(st.setc.shape[1])]
        score, hist = [0] * players, []
        for t, seat, a, b_, c_, d in st.ev[b, :st.g[b, jt.NEV]].tolist():
            if t == jt.E_SET:
                score[seat] += pts[b_]
            elif t == jt.E_DEMAND and c_ == 1:
                score[a] -= pts[d]
                score[seat] += pts[d]
            else:
                continue
            hist.append(list(score))
        assert hist[-1] == out.score[b].tolist()
        changed += assert_drama(out.stats, b, hist, out.score[b].tolist(),
                                out.win[b].tolist()) > 0
    assert changed > 0


# ---- the running score (issue 16: what a depth-limited search scores its worlds by) -------------

def _animals_on(cards):
    """THE WINNER, in plain Python: one point per animal pictured (slots 0, 1 show one, 2, 3 two,
    4, 5 three)."""
    return sum((1, 1, 2, 2, 3, 3)[x % 6] for x in cards)


@pytest.mark.parametrize("held_count", [False, True])
def test_running_score_mid_game_counts_won_sets_and_the_finished_games(held_count):
    # game 2 of a match of 2: the first game left P0 20, P1 31, P2 7. Now P0 has won a hippo set
    # outright, P1 holds a tiger set, P2 a lion set; a monkey pair lies in the centre and the
    # zebras are still in the stacks: none of those counts, held sets only with held_count
    r, st = position(rounds=2, held_count_at_end=held_count,
                     stacks={0: [H(0)], 1: [c(ZEBRA, 0)], 2: [c(ZEBRA, 2)]},
                     pairs=[(c(MONKEY, 0), c(MONKEY, 5))],
                     held={1: [animal_set(TIGER)], 2: [animal_set(LION, 1)]},
                     won={0: [animal_set(HIPPO)]})
    st.pp[0, :, jt.TOTAL] = [20, 31, 7]
    st.g[0, jt.ROUND] = 1
    assert obs(st).kind[0] == jt.K_HUNTER

    def recount():
        z = G.zones(st, 0)
        return [[[20, 31, 7][p] + _animals_on(z[f"won{p}"])
                 + (_animals_on(z[f"held{p}"]) if held_count else 0) for p in range(3)]]

    want = [[20 + 6, 31 + 6 * held_count, 7 + 6 * held_count]]
    assert G.running_score(st).tolist() == want == recount()
    act(st, demand(2, LION))            # P0's Hunter: P2 hands over the lions, won outright
    assert G.running_score(st).tolist() == [[20 + 12, 31 + 6 * held_count, 7]] == recount()
    assert mover(st) >= 0                # the game goes on


# ---- The compiled heuristics --------------------------------------------------------------------
# Each shipped heuristic is one compiled policy (strategies/_jungle_thrills_compiled.py): the
# lockstep loop asks it for its rows (``decide``), a table of nothing else plays whole games in
# ``play_compiled``; both must give the same games, the same memories and the same draws.

from safari_sim.engine.play import _compiled_play, play_on  # noqa: E402
from strategies import _jungle_thrills_compiled as compiled  # noqa: E402

# the three shipped heuristics with their knobs moved (perfect and no memory among them)
SPECS = [("rememberer", {"recall": 0.9, "bold": 0.45, "decline": 0.3}),
         ("leader_hunter", {"recall": 0.7, "bold": 0.2, "decline": 0.8, "chase": 0.1}),
         ("guesser", {"recall": 0.85, "bold": 0.6, "decline": 0.5}),
         ("rememberer", {"recall": 1.0}),
         ("guesser", {"recall": 0.0, "bold": 0.9})]

RULES = [{}, {"version": 2}, {"may_decline": True, "next_turn": "asker",
          "asking_ends": "no_demand", "set_handed_over": "first"},
         {"version": 2, "hunt_first": False, "rounds": 2},
         {"held_count_at_end": True, "asking_ends": "sole_holder", "missed_calls": 0.1},
         {"animals": 5, "animal_values": [1, 2, 3], "hunter_cards": 3, "rounds": None,
          "target": 40}]


def _strats(specs=SPECS):
    return [get_strategy(G.id, n)(**p) for n, p in specs]


def _seating(players, n, k):
    return (np.arange(players)[None, :] + np.arange(n)[:, None]) % k


def _both(rules, players, specs=SPECS, n=160, seed=3, prefix=0):
    """Play the same games compiled and through the lockstep loop (after ``prefix`` lockstep
    steps for both); returns, per path, the state, decisions, strategies and seat streams."""
    r = G.make_rules(rules)
    keys = game_keys(seed, players, n)
    seating = _seating(players, n, len(specs))
    out = []
    for fast in (True, False):
        st = G.init(r, players, keys.deal)
        strats = _strats(specs)
        for s in strats:
            s.reset(n, players)
        rs = keys.seat.reshape(-1).copy()
        if prefix:
            with pytest.raises(RuntimeError, match="still running"):  # stopped part-way
                play_on(G, st, strats, seating, rs, max_steps=prefix, compiled=False)
            assert (st.mover >= 0).any()
        d = play_on(G, st, strats, seating, rs, compiled=fast)
        out.append((st, d, strats, rs))
    return out


def _same_games(fast, slow):
    (fs, fd, fstr, frs), (ss, sd, sstr, srs) = fast, slow
    assert fd == sd
    assert (fs.mover < 0).all() and (ss.mover < 0).all()
    fo, so = G.outcome(fs), G.outcome(ss)
    assert np.array_equal(fo.score, so.score)
    assert np.array_equal(fo.turns, so.turns)
    assert set(fo.stats) == set(so.stats)
    for k in so.stats:
        assert np.array_equal(fo.stats[k], so.stats[k], equal_nan=True), k
    assert np.array_equal(fs.dr, ss.dr)
    # the same draws from every seat's stream, to the last one
    assert np.array_equal(frs, srs)
    # and the same memory left in every strategy
    for a, b in zip(fstr, sstr):
        assert np.array_equal(a.mem.last, b.mem.last)
        assert set(a.mem.facts) == set(b.mem.facts) == set(compiled.FACTS)
        for name in compiled.FACTS:
            assert np.array_equal(a.mem.facts[name], b.mem.facts[name]), name


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(players, rules):
    """The three heuristics, knobs moved, at one table: the whole-game kernel and the lockstep
    loop (each heuristic's ``decide`` for its rows) give the same games, draws and memories."""
    fast, slow = _both(rules, players)
    _same_games(fast, slow)
    st, decisions = slow[0], slow[1]
    assert decisions > 0
    o = G.outcome(st)
    if G.make_rules(rules).version == 1:
        assert o.stats["demands"].sum() > 0
    else:
        assert o.stats["hunts_won"].sum() > 0


@pytest.mark.parametrize("rules", [{}, {"version": 2}])
def test_compiled_play_goes_on_from_a_game_the_loop_began(rules):
    """Part-played by the lockstep loop, finished by the kernel: the memory the loop built is
    the one the kernel goes on with."""
    fast, slow = _both(rules, 3, prefix=4)
    _same_games(fast, slow)


def test_play_batch_takes_the_compiled_path_for_the_shipped_table():
    strats = _strats()
    assert _compiled_play(strats) is not None
    assert _compiled_play([strats[0], get_strategy(G.id, "random")()]) is None
    r = G.make_rules()
    seating = _seating(3, 64, len(strats))
    a = play_batch(G, r, 3, strats, seating, game_keys(8, 3, 64))
    b = play_batch(G, r, 3, _strats(), seating, game_keys(8, 3, 64), compiled=False)
    assert a.times["observe"] == 0.0 and b.times["strategies"] > 0.0   # the kernel played a
    assert a.decisions == b.decisions
    assert np.array_equal(a.outcome.score, b.outcome.score)
    with pytest.raises(TypeError, match="compiled heuristic"):
        strats[0].act(None, None, None)


def test_reading_a_stream_ahead_gives_its_next_draws():
    rs = np.array([5, 77, 2**63 + 9], np.uint64)
    ahead = [compiled._u(rs, 1, i) for i in range(1, 9)]
    copy = rs.copy()
    drawn = [uniform(copy, 1) for _ in range(8)]
    assert ahead == drawn
    compiled._skip(rs, 1, 8)
    assert np.array_equal(rs, copy)


def test_the_powers_table_is_the_c_librarys_pow():
    import math

    recall = np.array([0.95, 0.8, 0.123456789])
    pw = compiled._powers(recall)
    d = np.arange(compiled.NPOW, dtype=np.float64)
    for k, x in enumerate(recall):
        assert np.array_equal(pw[k], [math.pow(x, v) for v in d])   # the C library's pow
        assert compiled._pow(pw[k], x, 3 * compiled.NPOW) == x ** float(3 * compiled.NPOW)


def _scramble(st, games, rng):
    """What no seat sees (the face-down stacks: their cards, sizes kept) dealt again."""
    return _permute_stacks(st, rng, games)


def _scramble_memory(strat, games, movers, rng):
    """Every other seat's memory of these games drawn at random."""
    mem = strat.mem
    if mem.last is None:
        return
    for b, p in zip(games, movers):
        for q in range(mem.last.shape[1]):
            if q != p:
                mem.last[b, q] = rng.integers(-1, max(int(mem.last[b, q]), 0) + 1)
                for m in mem.facts.values():
                    m[b, q] = rng.random(m[b, q].shape) < 0.5


@pytest.mark.parametrize("players,rules", [(2, {}), (3, {"version": 2}),
                                           (4, {"may_decline": True, "next_turn": "asker"}),
                                           (5, {"version": 2, "hunt_first": False}),
                                           (6, {"animals": 5, "hunter_cards": 3})])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """The face-down stacks dealt again, and the other seats' memories drawn at random, at
    every decision: no heuristic's action changes."""
    checked = heuristics.check_knowledge(G, G.make_rules(rules), players, _strats(), _scramble,
                                         games=24, scramble_memory=_scramble_memory)
    assert checked > 1500


@pytest.mark.parametrize("version", [1, 2])
def test_the_knowledge_check_catches_a_policy_that_reads_its_next_card(version):
    def next_card(st, b):
        p = int(G.to_move(st)[b])
        n = int(st.pp[b, p, jt.NSTACK])
        return int(st.stack[b, p, n - 1]) if n else 0

    heuristics.leaky_policy_is_caught(G, G.make_rules(version=version), 3,
                                      get_strategy(G.id, "rememberer")(), next_card, _scramble,
                                      games=4)

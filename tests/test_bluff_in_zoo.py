"""Bluff in Zoo: each rule from a constructed deal, the rulebook's example, hidden information,
and properties over many random games."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections import Counter
from math import comb
import subprocess
import sys

import numpy as np
import pydantic
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import Observation, RulesError, search_space
from safari_sim.games import bluff_in_zoo as bz
from safari_sim.games import get_game
from strategies import _bluff_in_zoo_compiled as cbz
from strategies import get_strategy
from strategies.base import Strategy, random_legal
from clone_check import check_clone_plays_on
from heuristics import ask, check_knowledge, choose, leaky_policy_is_caught, shipped
from mixed_play import assert_drama
from worlds_check import check_worlds, play_out

G = get_game("bluff_in_zoo")
R = G.make_rules()
MOUSE, RABBIT, FOX, LION, ELEPHANT = range(5)


def c(name, r=R):
    return G.card(r, name)


def position(hands, top=(), players=None, **rules):
    r = G.make_rules(rules)
    st = G.init(r, players or len(hands), deal_keys(1, 0), log=True)
    G.deal(st, 0, [[c(x, r) for x in h] for h in hands], [c(x, r) for x in top])
    return r, st


def act(st, action):
    name = G.action_name(st.rules, st.n_players, action)
    assert G.legal(st)[0, action], f"{name} should be legal"
    G.step(st, np.array([action]))


def seat_rng(st, seed=0):
    """The strategy stream of the seat to move in game 0 of a one-game position."""
    keys = game_keys(seed, st.n_players, 1)
    return SeatRandom(keys.seat.reshape(-1).copy(), np.array([G.to_move(st)[0]]))


def obs(st):
    return G.observe(st, np.array([0]))


def decide(strat, st, seed=0):
    """A heuristic's action in game 0 of a one-game position, from the seat stream
    ``seat_rng(st, seed)`` holds."""
    keys = game_keys(seed, st.n_players, 1)
    return int(ask(strat, G, st, [0], keys.seat.reshape(-1).copy(), st.n_players)[0])


def place(st, name):
    act(st, bz.HAND0 + c(name, st.rules))


def draw(st):
    act(st, obs(st).draw_action())


def no_card(st):
    act(st, obs(st).no_card_action())


def claim(st, count, kind):
    act(st, int(obs(st).count_action(count)))
    assert obs(st).kind[0] == bz.KIND and obs(st).pending[0] == count
    act(st, int(obs(st).kind_action(kind)))


def pile_of(*names, r=R):
    pile = np.zeros(G.n_types(r), np.int16)
    for x in names:
        pile[c(x, r)] += 1
    return pile


def count(pile, kind, st):
    return bz.count_animals(pile, kind, st.t_cls, st.t_kind, st.t_val)


def conserved(st, b=0):
    z = G.zones(st, b)
    assert (sum(z.values()) == st.comp).all(), "cards lost or created"
    assert st.g[b, bz.PILE_N] == st.pile[b].sum()
    assert (st.placed[b].sum(axis=0) == st.pile[b]).all()
    assert (st.pp[b, :, bz.HAND_N] == st.hand[b].sum(axis=1)).all()
    assert (st.pp[b, :, bz.POINTS] == st.taken[b].sum(axis=1)).all()


HANDS3 = [["mouse 3", "lion 1", "fox 2", "rabbit 1", "stop"],
          ["elephant 1", "lion 2", "mouse 1", "rabbit 2", "wild 1"],
          ["'All cards count 1'", "fox 3", "elephant 3", "mouse 2", "rabbit 3"]]


# ---- Components --------------------------------------------------------------------------------

def test_deck_follows_the_printed_components():
    st = G.init(R, 4, deal_keys(2, 1))
    assert st.comp.sum() == 107                        # 108 cards minus the starting player card
    assert (st.comp[:15] == 5).all()                   # 5 kinds x values 1-3, five cards each
    assert list(st.comp[15:]) == [6, 6, 6, 6, 8]       # wild 1, wild 2, two actions, stop
    assert [G.card_name(R, t) for t in (0, 2, 14, 15, 16, 17, 18, 19)] == [
        "mouse 1", "mouse 3", "elephant 3", "wild 1", "wild 2", "'All cards count 1'",
        "'All animals are equal'", "stop"]
    for b in range(2):
        assert (st.pp[b, :, bz.HAND_N] == 5).all()     # each player draws five
        conserved(st, b)


def test_deck_follows_the_rules_fields():
    r = G.make_rules({"animals": ["ant", "bear"], "animal_cards": [2, 1], "wild_cards": [3],
                      "count_one_cards": 1, "all_equal_cards": 0, "stop_cards": 2})
    st = G.init(r, 2, deal_keys(1, 0))
    assert list(st.comp) == [2, 1, 2, 1, 3, 1, 0, 2]
    assert G.card_name(r, 3) == "bear 2" and G.card_name(r, 4) == "wild 1"
    # the claim cap: at most 3 wild animals and 2 + 2 of one kind (no "All animals are equal")
    assert r.claim_cap() == 3 * 1 + (2 * 1 + 1 * 2)
    assert G.n_actions(r, 2) == 2 + 8 + 2 + 7 + 2


@pytest.mark.parametrize("fields, players, message", [
    ({"hand_size": 0}, None, "rules.hand_size: must be at least 1"),
    ({"next_starter": "right"}, None, "rules.next_starter: must be 'left' or 'loser', not 'right'"),
    ({"first_claim": 5, "max_claim": 4}, None,
     "rules.first_claim: must be between 1 and the claim cap (4, rules.max_claim)"),
    ({"max_claim": 0}, None, "rules.max_claim: must be at least 1"),
    ({"animal_cards": [5, -1]}, None, "rules.animal_cards: counts must be 0 or more"),
    ({"stop_cards": -2}, None, "rules.stop_cards: must be 0 or more"),
    ({"point_limit": 0}, None, "rules.point_limit: must be at least 1"),
    ({"animals": []}, None, "rules.animals: needs at least one animal kind"),
    ({"max_claim": "many"}, None, "rules.max_claim: expected"),
    ({"max_clam": 9}, None, "rules.max_clam: no such rules field; did you mean 'max_claim'?"),
    ({"hand_size": 20}, 6, "rules.hand_size: 6 hands of 20 need more than the 107 cards"),
    ({}, 7, "bluff_in_zoo is for 2 to 6 players, not 7"),
    ({}, 1, "bluff_in_zoo is for 2 to 6 players, not 1"),
])
def test_rules_errors_name_the_field(fields, players, message):
    with pytest.raises(RulesError) as err:
        G.check(G.make_rules(fields), players or 4)
    assert str(err.value).startswith(message), str(err.value)
    assert err.value.field == (message.split(":")[0][6:] if message.startswith("rules.") else "")


# ---- How to Play ---------------------------------------------------------------------------------

def test_first_move_must_place_a_card_and_claim_exactly_one_animal():
    r, st = position(HANDS3, top=["elephant 2"])
    lg = G.legal(st)[0]
    o = obs(st)
    assert o.kind[0] == bz.SOURCE and G.to_move(st)[0] == 0
    assert not lg[bz.DOUBT] and not lg[bz.CONTINUE]
    assert not lg[o.no_card_action()] and lg[o.draw_action()]
    assert set(np.flatnonzero(lg[bz.HAND0:bz.HAND0 + 20])) == {c(x) for x in HANDS3[0]}
    place(st, "lion 1")
    lg = G.legal(st)[0]
    assert list(np.flatnonzero(lg)) == [o.count_action(1)]   # "one ...", nothing else
    act(st, int(o.count_action(1)))
    lg = G.legal(st)[0]
    assert list(np.flatnonzero(lg)) == list(o.kind_action(np.arange(5)))  # any animal
    act(st, int(o.kind_action(ELEPHANT)))              # a lie is allowed
    assert G.to_move(st)[0] == 1 and obs(st).kind[0] == bz.RESPOND


def opened(kind, count=3):
    """P0 places a lion and says "one mouse"; P1 places nothing and says ``count`` of ``kind``;
    P2 goes on."""
    r, st = position(HANDS3)
    place(st, "lion 1")
    claim(st, 1, MOUSE)
    act(st, bz.CONTINUE)
    no_card(st)
    claim(st, count, kind)
    act(st, bz.CONTINUE)
    return st


def test_claims_must_beat_the_last_by_number_or_by_size():
    st = opened(LION)
    lg = G.legal(st)[0]
    o = obs(st)
    assert lg[o.no_card_action()]                        # later moves may place no card
    place(st, "fox 3")
    lg = G.legal(st)[0]
    counts = [n for n in range(1, R.claim_cap() + 1) if lg[int(o.count_action(n))]]
    assert counts == list(range(3, R.claim_cap() + 1))   # as many (of a bigger kind), or more
    act(st, int(o.count_action(3)))
    lg = G.legal(st)[0]
    assert list(np.flatnonzero(lg)) == [o.kind_action(ELEPHANT)]   # three: only bigger than lions
    st2 = opened(ELEPHANT)
    no_card(st2)
    lg = G.legal(st2)[0]
    assert not lg[int(o.count_action(3))] and lg[int(o.count_action(4))]
    act(st2, int(o.count_action(4)))
    assert G.legal(st2)[0, o.kind_action(np.arange(5))].all()   # more animals: any kind
    conserved(st)


def test_placing_from_the_draw_pile_keeps_the_hand():
    r, st = position(HANDS3, top=["wild 2", "stop"])
    draw(st)
    assert st.hand[0, 0].sum() == 5 and st.pile[0, c("wild 2")] == 1
    assert st.g[0, bz.POS] == 16
    o = obs(st)
    assert o.my_pile[0, c("wild 2")] == 1 and o.just[0] == c("wild 2")
    claim(st, 1, FOX)
    conserved(st)


def test_the_highest_claim_leaves_only_a_doubt():
    r, st = position(HANDS3, players=3, max_claim=3)
    place(st, "mouse 3")
    claim(st, 1, MOUSE)
    act(st, bz.CONTINUE)
    no_card(st)
    claim(st, 3, ELEPHANT)
    lg = G.legal(st)[0]
    assert lg[bz.DOUBT] and not lg[bz.CONTINUE] and lg.sum() == 1
    act(st, bz.DOUBT)
    assert G.outcome(st).stats["forced_doubts"][0] == 1


def test_the_claim_cap_is_the_most_animals_a_pile_can_hold():
    """Every claim that can be true can be made: under "All animals are equal" a pile of every
    animal and wild card holds 5 x (5 + 10 + 15) + 6 + 12 = 168 animals of any kind, the most
    there can be; "168 elephants" is then the top claim and the next player must doubt it."""
    cards = card_list(R)
    box = G.init(R, 2, deal_keys(1)).comp
    most = [t for t, (what, _, _) in enumerate(cards) if what in ("animal", "wild")
            for _ in range(int(box[t]))] + [c("'All animals are equal'")]
    for kind in range(5):
        assert ref_count([cards[t] for t in most], kind) == 168
    assert R.claim_cap() == 168 and R.max_claim is None
    assert G.n_actions(R, 3) == 2 + 20 + 2 + 168 + 5
    r, st = position(HANDS3[:2])
    place(st, "lion 1")
    claim(st, 1, MOUSE)
    act(st, bz.CONTINUE)
    no_card(st)
    lg = G.legal(st)[0]
    o = obs(st)
    assert lg[int(o.count_action(168))] and lg.shape[0] == int(o.kind0) + 5
    claim(st, 168, ELEPHANT)
    lg = G.legal(st)[0]
    assert np.flatnonzero(lg).tolist() == [bz.DOUBT]
    act(st, bz.DOUBT)
    out = G.outcome(st)
    assert out.stats["forced_doubts"][0] == 1 and out.stats["claims_at_cap"][0] == 1
    assert list(out.score[0]) == [0, 1]                   # one lion: P1 lied


# ---- Doubting, Wild Cards, Action Cards, The Stop Cards ---------------------------------------

def test_counting_by_face_value_and_wild_cards_as_the_claimed_kind():
    st = G.init(R, 2, deal_keys(1, 0))
    pile = pile_of("mouse 3", "mouse 1", "fox 2", "wild 2", "wild 1")
    assert count(pile, MOUSE, st) == 3 + 1 + 2 + 1
    assert count(pile, FOX, st) == 2 + 2 + 1
    assert count(pile, ELEPHANT, st) == 3                # only the wild cards


@pytest.mark.parametrize("action, expected", [("'All cards count 1'", 2),
                                              ("'All animals are equal'", 6)])
def test_rulebook_example_count(action, expected):
    # Paul opens the four cards: 1 fox, a wild card showing 2, the action card, 3 mice
    st = G.init(R, 3, deal_keys(1, 0))
    assert count(pile_of("fox 1", "wild 2", action, "mouse 3"), MOUSE, st) == expected


def test_action_cards_combine_and_repeat_without_effect():
    st = G.init(R, 2, deal_keys(1, 0))
    both = ["'All cards count 1'", "'All animals are equal'"]
    pile = pile_of("fox 3", "mouse 2", "wild 2", "elephant 3", *both)
    assert count(pile, MOUSE, st) == 4                   # every card one animal, all mice
    twice = pile_of("fox 3", "mouse 2", "wild 2", "elephant 3", *both, *both)
    assert count(twice, MOUSE, st) == 4
    assert count(pile_of("mouse 3", "mouse 2", "'All cards count 1'", "'All cards count 1'"),
                 MOUSE, st) == 2


def test_stop_cards_by_parity():
    st = G.init(R, 2, deal_keys(1, 0))
    one = "'All cards count 1'"
    assert count(pile_of("mouse 3", one), MOUSE, st) == 1
    assert count(pile_of("mouse 3", one, "stop"), MOUSE, st) == 3           # odd: ignored
    assert count(pile_of("mouse 3", one, "stop", "stop"), MOUSE, st) == 1   # even: cancel out
    assert count(pile_of("mouse 3", one, "stop", "stop", "stop"), MOUSE, st) == 3
    equal = "'All animals are equal'"
    assert count(pile_of("lion 3", equal, "stop"), MOUSE, st) == 0
    # no action cards: stop cards do nothing; wild cards are not action cards
    assert count(pile_of("mouse 2", "wild 2", "stop"), MOUSE, st) == 4
    # a stop card switches "All cards count 1" off: the wild card shows its 2 again
    assert count(pile_of("mouse 2", "wild 2", one), MOUSE, st) == 2
    assert count(pile_of("mouse 2", "wild 2", one, "stop"), MOUSE, st) == 4


def example_game(action):
    """The rulebook's example: Thomas (seat 0), Eva (1), Paul (2)."""
    hands = [["mouse 3", "lion 1", "fox 2", "rabbit 1", "stop"],
             ["elephant 1", "lion 2", "mouse 1", "rabbit 2", "wild 1"],
             [action, "fox 3", "elephant 3", "mouse 2", "rabbit 3"]]
    r, st = position(hands, top=["fox 1", "wild 2"])
    place(st, "mouse 3")             # Thomas: "One mouse."
    claim(st, 1, MOUSE)
    act(st, bz.CONTINUE)             # Eva draws, looks, places: "Two lions."
    draw(st)
    claim(st, 2, LION)
    act(st, bz.CONTINUE)             # Paul places from his hand: "Two elephants."
    place(st, action)
    claim(st, 2, ELEPHANT)
    act(st, bz.CONTINUE)             # Thomas draws, places: "Three mice."
    draw(st)
    claim(st, 3, MOUSE)
    act(st, bz.CONTINUE)             # Eva places no card: "Five mice."
    no_card(st)
    claim(st, 5, MOUSE)
    assert st.g[0, bz.PILE_N] == 4
    conserved(st)
    act(st, bz.DOUBT)                # Paul doubts her
    conserved(st)
    return st


def test_rulebook_example_eva_lies_under_all_cards_count_1():
    st = example_game("'All cards count 1'")
    assert list(st.pp[0, :, bz.POINTS]) == [0, 4, 0]    # two mice only: Eva takes the 4 cards
    assert st.taken[0, 1, c("'All cards count 1'")] == 1
    assert G.outcome(st).stats["caught_lying"][0, 1] == 1
    assert G.outcome(st).stats["doubts_right"][0, 2] == 1
    assert "the pile holds 2 mouse" in G.describe(st, 0)


def test_rulebook_example_paul_pays_under_all_animals_are_equal():
    st = example_game("'All animals are equal'")
    assert list(st.pp[0, :, bz.POINTS]) == [0, 0, 4]    # six mice: the claim was true
    assert "the pile holds 6 mouse" in G.describe(st, 0)
    # the starting player card goes from Thomas to his left (Eva), not to Paul who took the points
    assert st.g[0, bz.STARTER] == 1 and G.to_move(st)[0] == 1


@pytest.mark.parametrize("claimed, taker", [(4, 2), (5, 1)])
def test_a_claim_met_exactly_is_true(claimed, taker):
    # "equal to or higher than the number claimed": the doubter takes the pile
    r, st = position(HANDS3)
    place(st, "mouse 3")
    claim(st, 1, MOUSE)
    act(st, bz.CONTINUE)
    place(st, "mouse 1")
    claim(st, claimed, MOUSE)                             # the pile holds exactly 4 mice
    act(st, bz.DOUBT)
    assert list(st.pp[0, :, bz.POINTS]) == [2 if p == taker else 0 for p in range(3)]
    assert st.g[0, bz.STARTER] == 1                       # passes left whoever took the points


# ---- End of Turn, End of Game ------------------------------------------------------------------

def test_after_a_doubt_hands_refill_and_the_starting_card_passes_left():
    st = example_game("'All cards count 1'")
    assert (st.pp[0, :, bz.HAND_N] == 5).all()            # everyone back to five
    assert st.g[0, bz.POS] == 15 + 2 + 2                  # two drawn-and-placed, two refilled
    assert st.g[0, bz.STARTER] == 1 and G.to_move(st)[0] == 1
    assert obs(st).kind[0] == bz.SOURCE and obs(st).claims[0] == 0
    assert st.pile[0].sum() == 0 and st.placed[0].sum() == 0


def test_loser_starts_variant():
    hands = [["mouse 3", "lion 1", "fox 2", "rabbit 1", "stop"],
             ["elephant 1", "lion 2", "mouse 1", "rabbit 2", "wild 1"]]
    r, st = position(hands, next_starter="loser")
    place(st, "lion 1")
    claim(st, 1, MOUSE)
    act(st, bz.DOUBT)                                     # a lie: P0 takes the card, P0 starts
    assert st.pp[0, 0, bz.POINTS] == 1 and G.to_move(st)[0] == 0


def test_point_limit_ends_the_game_and_ties_share_the_win():
    r, st = position(HANDS3, point_limit=1)
    place(st, "lion 1")
    claim(st, 1, ELEPHANT)
    act(st, bz.DOUBT)                                     # P0 lied: one point, limit reached
    assert G.to_move(st)[0] == -1
    out = G.outcome(st)
    assert list(out.score[0]) == [1, 0, 0]
    assert list(out.win[0]) == [0, 0.5, 0.5] and list(out.rank[0]) == [3, 1, 1]
    assert out.stats["ended_by_deck"][0] == 0
    assert "point limit" in G.describe(st, 0)


def test_game_ends_when_the_draw_pile_cannot_fill_every_hand():
    # 11 cards: two hands of five and one card in the draw pile
    small = dict(animals=["mouse", "lion"], animal_cards=[3, 2], wild_cards=[1],
                 count_one_cards=0, all_equal_cards=0, stop_cards=0)
    hands = [["mouse 1", "mouse 1", "mouse 2", "lion 1", "lion 2"],
             ["mouse 1", "mouse 2", "lion 1", "lion 1", "wild 1"]]
    r, st = position(hands, top=["lion 2"], **small)     # kinds: mouse 0, lion 1
    assert st.comp.sum() == 11
    place(st, "mouse 2")
    claim(st, 1, MOUSE)
    act(st, bz.DOUBT)                                     # true: P1 takes one card
    assert G.to_move(st)[0] == 1                          # one card refills P0's hand
    assert st.pp[0, 0, bz.HAND_N] == 5 and st.g[0, bz.POS] == 11
    place(st, "lion 1")
    claim(st, 1, 1)
    act(st, bz.CONTINUE)
    assert not G.legal(st)[0, obs(st).draw_action()]        # the draw pile is empty
    no_card(st)
    claim(st, 2, 1)
    act(st, bz.DOUBT)                                     # 1 lion < 2: P0 takes the card
    assert G.to_move(st)[0] == -1                         # P1 cannot fill up: game over
    out = G.outcome(st)
    assert out.stats["ended_by_deck"][0] == 1
    assert list(out.score[0]) == [1, 1] and list(out.win[0]) == [0.5, 0.5]
    conserved(st)


# ---- What a player knows -----------------------------------------------------------------------

def _mid_game(seed, players=4):
    st = G.init(R, players, deal_keys(1, seed))
    strat = get_strategy("bluff_in_zoo", "random")()
    for _ in range(6 + seed % 5):
        if G.to_move(st)[0] < 0:
            break
        G.step(st, strat.act(obs(st), G.legal(st), seat_rng(st, seed)))
    return st


def _swap_hidden(st, rng, games=(0,)):
    """Another game the mover cannot tell apart: every card hidden from it (the other players'
    hands, the cards they put on the current pile, the draw pile) gathered, shuffled and dealt
    back into zones of the same sizes (in each of ``games``; the rest are copied)."""
    other = st.__class__(**{k: (v.copy() if isinstance(v, np.ndarray) else v)
                            for k, v in st.__dict__.items()})
    for b in games:
        me = G.to_move(st)[b]
        pos = other.g[b, bz.POS]
        zones = [other.hand[b, q] for q in range(st.n_players) if q != me]
        zones += [other.placed[b, q] for q in range(st.n_players) if q != me]
        pool = np.concatenate([np.repeat(np.arange(len(z)), z) for z in zones]
                              + [other.deck[b, pos:]]).astype(np.int64)
        pool = rng.permutation(pool)
        i = 0
        for z in zones:
            n = int(z.sum())
            z[:] = np.bincount(pool[i:i + n], minlength=len(z))
            i += n
        other.deck[b, pos:] = pool[i:]
        other.pile[b] = other.placed[b].sum(axis=0)
    return other


def _same(a, b):
    for f in dataclasses.fields(a):      # every field, so that a new one cannot slip past
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


def test_observation_is_an_engine_observation_and_take_keeps_every_row_field():
    st = _mid_game(1)
    o = G.observe(st, np.array([0, 0]))
    assert isinstance(o, Observation) and len(o) == 2
    sub = o.take(np.array([1]))
    _same(sub, obs(st))
    for f in dataclasses.fields(o):
        v = getattr(sub, f.name)
        if isinstance(v, np.ndarray):
            assert not v.flags.writeable, f"take() left {f.name} writable"
            if f.name not in o.shared:
                assert len(v) == 1, f"take() did not slice {f.name}"


def _state_arrays(st):
    return {k: v for k, v in vars(st).items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("kind", ["respond", "source", "count", "kind"])
def test_observation_is_a_snapshot_sharing_no_memory_with_the_state(kind):
    """No array of an observation (nor a value it works out) is a view of the state: a strategy
    that keeps it sees what it saw, and one that writes into a copy of it changes nothing."""
    want = {"respond": bz.RESPOND, "source": bz.SOURCE, "count": bz.COUNT, "kind": bz.KIND}[kind]
    st = G.init(R, 4, deal_keys(1, 3))
    strat = get_strategy("bluff_in_zoo", "random")()
    while obs(st).kind[0] != want:
        G.step(st, strat.act(obs(st), G.legal(st), seat_rng(st)))
    o = G.observe(st, np.array([0])).freeze()
    derived = {"min_raise": o.min_raise(), "count_action": o.count_action(np.array([1])),
               "kind_action": o.kind_action(np.array([0]))}
    held = {f.name: getattr(o, f.name) for f in dataclasses.fields(o)
            if isinstance(getattr(o, f.name), np.ndarray)}
    for name, v in list(held.items()) + list(derived.items()):
        assert not v.flags.writeable, f"{name} is writable"
        for sname, sv in _state_arrays(st).items():
            assert not np.shares_memory(v, sv), f"obs.{name} is a view of state.{sname}"
    before = {k: v.copy() for k, v in held.items()}
    for _ in range(12):
        if G.to_move(st)[0] < 0:
            break
        G.step(st, strat.act(obs(st), G.legal(st), seat_rng(st)))
    for k, v in before.items():
        assert np.array_equal(getattr(o, k), v), f"{k} changed after later steps"


def hides_other_hands_pile_cards_and_the_draw_pile(seed, observe=obs):
    """Every card hidden from the mover dealt again into zones of the same sizes: the
    observation (``observe(state)``, game 0) and the legal actions must not change; a change of
    the mover's own hand must change exactly ``hand`` and ``unseen``."""
    st = _mid_game(seed)
    if G.to_move(st)[0] < 0:
        pytest.skip("game over")
    rng = np.random.default_rng(seed)
    other = _swap_hidden(st, rng)
    conserved(other)
    assert not (np.array_equal(other.hand, st.hand) and np.array_equal(other.deck, st.deck))
    _same(observe(st), observe(other))
    assert np.array_equal(G.legal(st), G.legal(other))
    # and the observation does see what the player knows: its own hand
    me = G.to_move(st)[0]
    t = np.flatnonzero(other.hand[0, me])[0]
    other.hand[0, me, t] -= 1
    other.hand[0, me, (t + 1) % 20] += 1
    a, b = observe(st), observe(other)
    differ = [f.name for f in dataclasses.fields(a)
              if not np.array_equal(getattr(a, f.name), getattr(b, f.name))]
    assert differ == ["hand", "unseen"]                   # and nothing else
    assert b.hand[0, t] == a.hand[0, t] - 1 and b.unseen[0, t] == a.unseen[0, t] + 1


@pytest.mark.parametrize("seed", range(8))
def test_observation_hides_other_hands_pile_cards_and_the_draw_pile(seed):
    hides_other_hands_pile_cards_and_the_draw_pile(seed)


def next_player_cannot_tell_which_card_was_placed(how, observe=obs):
    """Two games that differ only in P0's card: P0 places it (or draws it) and says "one lion";
    what P1 then observes (``observe(state)``, game 0) must be the same in both."""
    views = []
    for card in ("lion 3", "'All animals are equal'"):
        first = [card, "mouse 1", "mouse 1", "mouse 1", "mouse 1"]
        if how == "hand":
            r, st = position([first, HANDS3[1], HANDS3[2]], top=["fox 1"])
            place(st, card)
        else:
            r, st = position([HANDS3[0], HANDS3[1], HANDS3[2]], top=[card])
            draw(st)
        claim(st, 1, LION)
        views.append(observe(st))
        act(st, bz.CONTINUE)
        views.append(observe(st))
    _same(views[0], views[2])
    _same(views[1], views[3])
    assert views[0].just[0] == -1


@pytest.mark.parametrize("how", ["hand", "draw"])
def test_the_next_player_cannot_tell_which_card_was_placed(how):
    next_player_cannot_tell_which_card_was_placed(how)


@dataclasses.dataclass
class _LeakyObs(bz.Obs):
    leak: np.ndarray = None  # something the mover must not know


def _leaky(what):
    """``obs`` with one more field holding ``what(state)``: a hidden fact."""
    def observe(st):
        o = obs(st)
        return _LeakyObs(**{f.name: getattr(o, f.name) for f in dataclasses.fields(o)},
                         leak=np.asarray(what(st)).copy())
    return observe


@pytest.mark.parametrize("what", ["left_hand", "draw_pile"])
def test_the_hidden_cards_check_catches_a_leak(what):
    """The positive control: the same check on an observation that also carries the hand of the
    player to the mover's left (or the draw pile) must fail, for every seed."""
    def hidden(st):
        me = G.to_move(st)[0]
        if what == "left_hand":
            return st.hand[0, (me + 1) % st.n_players]
        return st.deck[0, st.g[0, bz.POS]:]
    for seed in range(8):
        with pytest.raises(AssertionError, match="leak"):
            hides_other_hands_pile_cards_and_the_draw_pile(seed, _leaky(hidden))


@pytest.mark.parametrize("how", ["hand", "draw"])
def test_the_placed_card_check_catches_a_leak(how):
    """The positive control: an observation that also carries the discard pile's cards fails."""
    with pytest.raises(AssertionError, match="leak"):
        next_player_cannot_tell_which_card_was_placed(how, _leaky(lambda st: st.pile[0]))


def test_drawn_card_is_seen_by_its_player_only_and_a_doubt_makes_the_pile_public():
    r, st = position(HANDS3, top=["elephant 3"])
    draw(st)
    assert obs(st).my_pile[0, c("elephant 3")] == 1
    claim(st, 1, ELEPHANT)
    o = obs(st)                                            # P1 sees one pile card, placed unseen
    assert o.my_pile[0].sum() == 0 and o.pile_n[0] == 1 and o.pile_drawn[0] == 1
    assert o.pile_by[0, 2] == 1 and o.claimant[0] == 2     # P0 is 2 seats to P1's left
    assert o.said_n[0, 2] == 1 and o.said_k[0, 2] == ELEPHANT and o.said_n[0, 0] == 0
    assert o.unseen[0, c("elephant 3")] == 5
    act(st, bz.DOUBT)
    o = obs(st)
    assert o.revealed[0, c("elephant 3")] == 1 and o.unseen[0, c("elephant 3")] == 4 - \
        o.hand[0, c("elephant 3")]
    assert o.points[0, 0] == 1                              # the doubter took it: true claim
    assert (o.said_n[0] == 0).all() and (o.said_k[0] == -1).all()   # a new round


# ---- Properties over many random games: a plain-Python reference of the rulebook --------
#
# Written again from the rulebook (and the decisions of docs/rules/bluff_in_zoo.md), sharing no
# code with the kernel: cards are tuples, piles are lists, hands are Counters. It knows only the
# documented encodings (card type order, action layout) and takes the kernel's shuffled deck as
# the deal. The properties below play random games through the kernel and the reference side by
# side and compare everything after every decision.

CONTINUE, DOUBT = 0, 1          # the documented action layout: then 2 + t places a card of type t


def card_list(r):
    """The card of each type, in the documented type order: every animal kind from the smallest
    with its values 1, 2, 3 ..., the wild cards by value, 'All cards count 1', 'All animals are
    equal', stop."""
    cards = [("animal", k, v + 1) for k in range(len(r.animals))
             for v in range(len(r.animal_cards))]
    cards += [("wild", None, v + 1) for v in range(len(r.wild_cards))]
    return cards + [("one", None, 0), ("equal", None, 0), ("stop", None, 0)]


def ref_count(cards, kind):
    """Animals of ``kind`` in a flipped pile (a list of card tuples), as the rulebook counts."""
    one = any(c[0] == "one" for c in cards)          # more of the same add nothing
    equal = any(c[0] == "equal" for c in cards)
    if sum(c[0] == "stop" for c in cards) % 2 == 1:  # an odd number: every action card ignored
        one = equal = False
    total = 0
    for what, k, value in cards:
        if what == "wild" or (what == "animal" and (equal or k == kind)):
            total += 1 if one else value
    return total


class RefGame:
    """One game of Bluff in Zoo in plain Python."""

    def __init__(self, r, players, deck):
        self.r, self.P = r, players
        self.cards = card_list(r)
        self.K = len(r.animals)
        self.cap = r.max_claim if r.max_claim is not None else max(
            sum((v + 1) * n for v, n in enumerate(r.wild_cards))
            + sum((v + 1) * n for v, n in enumerate(r.animal_cards))
            * (self.K if r.all_equal_cards else 1), r.first_claim)
        nt = len(self.cards)
        self.draw_a, self.none_a, self.count0 = 2 + nt, 3 + nt, 4 + nt
        self.kind0 = self.count0 + self.cap
        self.draw = [int(t) for t in deck]            # the top card first
        self.hands = [Counter() for _ in range(players)]
        for p in range(players):                      # each player draws five
            for _ in range(r.hand_size):
                self.hands[p][self.draw.pop(0)] += 1
        self.stacks = [[] for _ in range(players)]    # point cards in front of each player
        self.stats = Counter()
        self.per = {k: [0] * players for k in ("claims", "false_claims", "doubts", "doubts_right",
                                               "caught_lying", "cards_drawn",
                                               "claims_without_card")}
        self.over, self.ended_by_deck, self.rounds, self.turns = False, 0, 0, 0
        self.starter = 0
        self.new_round()

    def new_round(self):
        self.turn = self.starter
        self.phase = "source"
        self.pile = []                                # (card type, who placed it)
        self.drawn = 0                                # of them, drawn from the draw pile
        self.just = -1                                # the card placed this turn, until claimed
        self.claim = None                             # (count, kind, claimant)
        self.said = [None] * self.P
        self.pending = None
        self.round_claims = 0

    def to_move(self):
        return -1 if self.over else self.turn

    def legal(self):
        if self.over:
            return set()
        if self.phase == "respond":
            n, k, _ = self.claim
            bigger = n < self.cap or k < self.K - 1
            return {DOUBT} | ({CONTINUE} if bigger else set())
        if self.phase == "source":
            out = {2 + t for t, n in self.hands[self.turn].items() if n > 0}
            if self.draw:
                out.add(self.draw_a)
            if self.claim is not None:               # the starting player must place a card
                out.add(self.none_a)
            return out
        if self.phase == "count":
            if self.claim is None:                    # "exactly one animal"
                return {self.count0 + self.r.first_claim - 1}
            n, k, _ = self.claim
            return {self.count0 + c - 1 for c in range(1, self.cap + 1)
                    if c > n or (c == n and k < self.K - 1)}
        low = 0
        if self.claim is not None and self.pending == self.claim[0]:
            low = self.claim[1] + 1                   # as many animals: a bigger one
        return {self.kind0 + k for k in range(low, self.K)}

    def apply(self, a):
        p = self.turn
        if self.phase == "respond":
            if a == CONTINUE:
                self.phase = "source"
            else:
                self.doubt(p)
        elif self.phase == "source":
            if a == self.draw_a:
                self.pile.append((self.draw.pop(0), p))
                self.drawn += 1
                self.just = self.pile[-1][0]
                self.per["cards_drawn"][p] += 1
            elif a == self.none_a:
                self.per["claims_without_card"][p] += 1
            else:
                self.hands[p][a - 2] -= 1
                self.pile.append((a - 2, p))
                self.just = a - 2
            self.phase = "count"
        elif self.phase == "count":
            self.pending = a - self.count0 + 1
            self.phase = "kind"
        else:
            n, k = self.pending, a - self.kind0
            self.per["claims"][p] += 1
            self.per["false_claims"][p] += ref_count(self.shown(), k) < n
            self.stats["claims_at_cap"] += n == self.cap
            self.claim = (n, k, p)
            self.just = -1
            self.said[p] = (n, k)
            self.round_claims += 1
            self.pending = None
            self.turns += 1
            self.turn = (p + 1) % self.P
            self.phase = "respond"

    def shown(self):
        return [self.cards[t] for t, _ in self.pile]

    def doubt(self, p):
        n, k, liar = self.claim
        assert liar == (p - 1) % self.P               # the previous player's claim
        self.turns += 1
        self.per["doubts"][p] += 1
        self.stats["forced_doubts"] += (n, k) == (self.cap, self.K - 1)
        if ref_count(self.shown(), k) >= n:           # "equal to or higher": the doubter takes
            taker = p
        else:
            taker = liar
            self.per["doubts_right"][p] += 1
            self.per["caught_lying"][liar] += 1
        self.stacks[taker] += [t for t, _ in self.pile]
        self.pile = []
        self.rounds += 1
        if len(self.stacks[taker]) >= self.r.point_limit:
            self.over = True
            return
        need = sum(self.r.hand_size - sum(h.values()) for h in self.hands)
        if need > len(self.draw):                     # not all players can fill up their hand
            self.over, self.ended_by_deck = True, 1
            return
        self.starter = taker if self.r.next_starter == "loser" else (self.starter + 1) % self.P
        for i in range(self.P):                       # refill clockwise from the new starter
            q = (self.starter + i) % self.P
            while sum(self.hands[q].values()) < self.r.hand_size:
                self.hands[q][self.draw.pop(0)] += 1
        self.new_round()

    def view(self):
        """What the player to move knows, rotated as the observation documents."""
        p, P, nt = self.turn, self.P, len(self.cards)
        rot = [(p + o) % P for o in range(P)]
        hand = np.array([self.hands[p][t] for t in range(nt)])
        mine = np.bincount([t for t, q in self.pile if q == p], minlength=nt)
        shown = np.bincount([t for s in self.stacks for t in s], minlength=nt)
        return dict(
            seat=p, round=self.rounds, pending=self.pending or 0, just=self.just,
            kind=["respond", "source", "count", "kind"].index(self.phase),
            hand=hand, my_pile=mine, revealed=shown, pile_n=len(self.pile), pile_drawn=self.drawn,
            claim_n=self.claim[0] if self.claim else 0,
            claim_k=self.claim[1] if self.claim else -1,
            claimant=(self.claim[2] - p) % P if self.claim else -1,
            claims=self.round_claims,
            points=[len(self.stacks[q]) for q in rot],
            hand_n=[sum(self.hands[q].values()) for q in rot],
            pile_by=[sum(1 for _, w in self.pile if w == q) for q in rot],
            said_n=[self.said[q][0] if self.said[q] else 0 for q in rot],
            said_k=[self.said[q][1] if self.said[q] else -1 for q in rot],
            draw_left=len(self.draw))

    def outcome(self):
        pts = [len(s) for s in self.stacks]           # each card received: one point
        best = min(pts)                               # fewest points wins; ties all win
        win = [(x == best) / pts.count(best) for x in pts]
        rank = [1 + sum(y < x for y in pts) for x in pts]
        return pts, win, rank


REF_CASES = [(2, {}), (3, {"next_starter": "loser"}), (4, {}), (5, {"max_claim": 12}),
             (6, {"hand_size": 4, "point_limit": 15})]


@pytest.mark.parametrize("players, rules", REF_CASES)
def test_random_games_follow_a_plain_python_reference(players, rules):
    """Random, honest, bluffer and doubter players at every table size: after every decision the
    kernel and the reference agree on who moves, the legal actions, every hand, the pile, the
    point stacks and what the mover observes; at the end on the scores (a recount of the point
    cards by the rulebook: one point per card received), the winners, the ranks and every
    statistic. Every game ends, and cards are conserved in every zone after every step."""
    r = G.make_rules(rules)
    names = ["random", "honest", "bluffer", "doubter"]
    strats = [get_strategy("bluff_in_zoo", n)() for n in names]
    batch = 14
    seating = np.random.default_rng(players).integers(0, len(strats), size=(batch, players))
    keys = game_keys(players, players, batch)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(r, players, keys.deal)
    for s in strats:
        s.reset(batch, players)
    refs = [RefGame(r, players, st.deck[b]) for b in range(batch)]
    nt = G.n_types(r)
    comp = np.bincount(st.deck[0], minlength=nt)
    steps = doubts = 0
    watch = list(range(batch))                       # games live at the last step
    while True:
        mover = G.to_move(st)
        legal = G.legal(st)
        hands, pile, taken = st.hand.tolist(), st.pile.tolist(), st.taken.tolist()
        draw = [st.deck[b, st.g[b, bz.POS]:].tolist() for b in range(batch)]
        for b in watch:
            ref = refs[b]
            assert mover[b] == ref.to_move(), f"game {b} step {steps}: who moves"
            assert set(np.flatnonzero(legal[b]).tolist()) == ref.legal(), f"game {b}: legal"
            assert ref.over or ref.legal(), "a player to move has no legal action"
            # every zone holds what the reference says (the reference moves cards, never makes
            # or loses one: so the kernel conserves them too)
            assert hands[b] == [[ref.hands[p][t] for t in range(nt)] for p in range(players)]
            assert pile[b] == np.bincount([t for t, _ in ref.pile], minlength=nt).tolist()
            assert taken[b] == [np.bincount(x, minlength=nt).tolist() for x in ref.stacks]
            assert draw[b] == ref.draw
        live = np.flatnonzero(mover >= 0)
        watch = live.tolist()
        if live.size == 0:
            break
        o = G.observe(st, live).freeze()
        seen = {name: getattr(o, name).tolist() for name in refs[0].view()}
        unseen = o.unseen.tolist()
        for i, b in enumerate(live):
            view = refs[b].view()
            for name, want in view.items():
                assert seen[name][i] == (want.tolist() if isinstance(want, np.ndarray) else want
                                         ), f"game {b}: obs.{name}"
            assert unseen[i] == (comp - view["hand"] - view["my_pile"] - view["revealed"]).tolist()
        actions = np.zeros(batch, np.int64)
        who = seating[live, mover[live]]
        for k, s in enumerate(strats):
            idx = live[who == k]
            if idx.size:
                actions[idx] = choose(s, G, st, idx, seat_rs, players)
        for b in live:
            assert actions[b] in refs[b].legal(), "an illegal action was chosen"
            doubts += refs[b].phase == "respond" and actions[b] == bz.DOUBT
            refs[b].apply(int(actions[b]))
        G.step(st, actions)
        steps += 1
        assert steps < 20000, "games do not end"
    out = G.outcome(st)
    for b, ref in enumerate(refs):
        pts, win, rank = ref.outcome()
        assert out.score[b].tolist() == pts
        assert np.allclose(out.win[b], win) and out.rank[b].tolist() == rank
        assert out.turns[b] == ref.turns
        assert out.stats["rounds"][b] == ref.rounds
        assert out.stats["ended_by_deck"][b] == ref.ended_by_deck
        for name in ("forced_doubts", "claims_at_cap"):
            assert out.stats[name][b] == ref.stats[name], name
        for name, per in ref.per.items():
            assert out.stats[name][b].tolist() == per, name
        # the measures, recounted from the reference's final position: the most points, and
        # the cards still in the draw pile and the hands (the pile is empty after a doubt)
        assert out.stats["most_honest_points"][b] == max(pts)
        assert out.stats["cards_untaken"][b] == (
            len(ref.draw) + sum(sum(h.values()) for h in ref.hands) + len(ref.pile))
        assert sum(pts) + out.stats["cards_untaken"][b] == sum(r.animal_cards) * len(r.animals) \
            + sum(r.wild_cards) + r.count_one_cards + r.all_equal_cards + r.stop_cards
    assert doubts > 50


@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_doubt_in_the_event_log_follows_the_rulebook(players):
    """Replays the event log behind `describe` of whole games: each doubt is counted again
    from the shown cards by `ref_count`, the right player takes the pile, the claimant is the
    doubter's right-hand neighbour, the starting player card moves one seat left per round,
    and the points add up."""
    strats = [get_strategy("bluff_in_zoo", n)() for n in ("random", "honest", "bluffer",
                                                          "doubter")]
    rng = np.random.default_rng(100 + players)
    seating = rng.integers(0, len(strats), size=(10, players))
    st = play_batch(G, R, players, strats, seating, game_keys(100 + players, players, 10),
                    log=True).state
    doubts = 0
    for b in range(len(seating)):
        ev = st.ev[b, :st.g[b, bz.NEV]]
        assert len(ev) < st.ev.shape[1]
        points = np.zeros(players, int)
        starters = []
        i = 0
        while i < len(ev):
            t, seat, a, n, k, counted = (int(x) for x in ev[i])
            if t == bz.E_ROUND:
                starters.append(seat)
            elif t == bz.E_DOUBT:
                assert a == (seat - 1) % players               # the previous player's claim
                shown = []
                i += 1
                while ev[i, 0] == bz.E_SHOW:
                    shown += [card_list(R)[int(ev[i, 2])]] * int(ev[i, 3])
                    i += 1
                assert counted == ref_count(shown, k)
                take = ev[i]
                assert take[0] == bz.E_TAKE and take[2] == len(shown)
                assert take[1] == (seat if counted >= n else a)
                points[take[1]] += take[2]
                doubts += 1
            i += 1
        assert starters == [r % players for r in range(len(starters))]
        assert list(points) == list(st.pp[b, :, bz.POINTS])
    assert doubts > 100


def test_play_batch_with_every_strategy_and_a_tiny_cap():
    # a cap of 2 forces doubts all the time; games still end and stay legal
    r = G.make_rules({"max_claim": 2})
    strats = [get_strategy("bluff_in_zoo", n)() for n in ("honest", "bluffer", "doubter")]
    seating = np.arange(3 * 24).reshape(24, 3) % 3
    res = play_batch(G, r, 3, strats, seating, game_keys(5, 3, 24))
    assert (G.to_move(res.state) == -1).all()
    assert res.outcome.stats["forced_doubts"].sum() > 0


def test_same_seed_same_games():
    strats = [get_strategy("bluff_in_zoo", "bluffer")(), get_strategy("bluff_in_zoo", "doubter")()]
    seating = np.arange(16 * 4).reshape(16, 4) % 2
    a = play_batch(G, R, 4, strats, seating, game_keys(9, 4, 16))
    b = play_batch(G, R, 4, strats, seating, game_keys(9, 4, 16))
    assert np.array_equal(a.outcome.score, b.outcome.score)
    assert np.array_equal(a.outcome.turns, b.outcome.turns)


def test_trace_describes_a_whole_game():
    strats = [get_strategy("bluff_in_zoo", "bluffer")()]
    res = play_batch(G, R, 3, strats, np.zeros((2, 3), int), game_keys(2, 3, 2), log=True)
    text = G.describe(res.state, 0)
    assert text.startswith("-- Round 1: P0 has the starting player card --")
    assert "doubts" in text and "claims" in text and "== Game over" in text
    assert G.action_name(R, 3, bz.DOUBT) == "doubt the last claim"
    assert G.action_name(R, 3, bz.HAND0 + c("wild 2")) == "place the hand card wild 2"
    o = obs(res.state)
    assert G.action_name(R, 3, o.draw_action()) == \
        "draw a card from the draw pile, look at it and place it"
    assert G.action_name(R, 3, int(o.count_action(3))) == "claim 3 animals (the kind comes next)"
    assert G.action_name(R, 3, int(o.kind_action(LION))) == "name the animal: lion"


# ---- Strategies --------------------------------------------------------------------------------

@pytest.mark.parametrize("name, knobs, field, words", [
    ("bluffer", {"bluff_rate": 2.0}, "bluff_rate", "less than or equal to 1"),
    ("doubter", {"no_such_knob": 1}, "no_such_knob", "Extra inputs are not permitted"),
    ("honest", {"recall": -0.1}, "recall", "greater than or equal to 0"),
    ("honest", {"trust": 1.5}, "trust", "less than or equal to 1"),
    ("bluffer", {"bluff_raise": 0}, "bluff_raise", "greater than or equal to 1"),
])
def test_strategy_knobs_are_validated(name, knobs, field, words):
    with pytest.raises(pydantic.ValidationError) as err:
        get_strategy("bluff_in_zoo", name)(**knobs)
    (e,) = err.value.errors()
    assert e["loc"] == (field,) and words in e["msg"]


class Recorder(Strategy):
    """Plays ``inner`` and keeps a copy of every position it was asked in (``G.clone`` of its
    games) with the legal masks it was shown."""

    name = "recorder"
    reads_state = True

    def __init__(self, inner):
        super().__init__()
        self.inner, self.seen = inner, []

    def compiled_policy(self):
        return None

    def decide(self, state, games, rng, legal):
        self.seen.append((G.clone(state, games), np.array(legal)))
        if getattr(self.inner, "reads_state", False):
            return self.inner.decide(state, games, rng, legal)
        return self.inner.act(G.observe(state, games).freeze(), legal, rng)


@functools.lru_cache(maxsize=None)
def recorded(kind, players=4, games=24):
    """Positions at decision ``kind``, as [(state: each game one position, legal masks)], from
    games of random, honest, bluffer and doubter players."""
    recs = [Recorder(get_strategy("bluff_in_zoo", n)())
            for n in ("random", "honest", "bluffer", "doubter")]
    seating = (np.arange(players)[None, :] + np.arange(games)[:, None]) % len(recs)
    play_batch(G, R, players, recs, seating, game_keys(77, players, games))
    out = []
    for rec in recs:
        for st, lg in rec.seen:
            rows = np.flatnonzero(st.g[:, bz.PHASE] == kind)
            if rows.size:
                out.append((G.clone(st, rows), lg[rows]))
    return out


def _claim_false(st, trust, recall):
    """float32[n]: the pile model's chance (trust, recall) that the last claim in each game of
    ``st`` is false (0 where there is none), as the mover works it out."""
    o = G.observe(st, np.arange(len(st.g)))
    rows = np.arange(len(o))
    kind = np.maximum(o.claim_k, 0).astype(np.int64)
    counts = np.repeat(o.claim_n.astype(np.int64)[:, None], o.n_kinds, axis=1)
    model = cbz.pile_models(st, rows, trust, recall)
    true = np.where(o.claim_n > 0, cbz.odds_table(model, counts)[rows, kind], np.float32(1))
    return np.float32(1) - true


def test_honest_doubts_exactly_the_claims_it_thinks_false_and_doubter_doubts_more():
    honest = get_strategy("bluff_in_zoo", "honest")()
    doubter = get_strategy("bluff_in_zoo", "doubter")()
    h, d, false, forced = [], [], [], []
    for st, legal in recorded(bz.RESPOND):
        n = len(legal)
        rs = game_keys(1, st.n_players, n).seat.reshape(-1).copy()
        forced.append(~legal[:, bz.CONTINUE])
        false.append(_claim_false(st, honest.params.trust, honest.params.recall))
        h.append(ask(honest, G, st, np.arange(n), rs, st.n_players, legal) == bz.DOUBT)
        d.append(ask(doubter, G, st, np.arange(n), rs, st.n_players, legal) == bz.DOUBT)
    h, d, false, forced = (np.concatenate(x) for x in (h, d, false, forced))
    # honest: a doubt exactly where it thinks the claim false, or where it cannot go on
    assert np.array_equal(h, (false > np.float32(honest.params.doubt_at)) | forced)
    assert (~h[(false < 0.5) & ~forced]).all(), "honest doubted a claim it believes"
    # doubter: every claim honest doubts, and more (the same model, a lower threshold)
    assert honest.params.trust == doubter.params.trust
    assert honest.params.recall == doubter.params.recall
    assert (d | ~h).all() and d.sum() > 1.2 * h.sum(), (d.sum(), h.sum())


@pytest.mark.parametrize("opponent", ["bluffer", "honest"])
def test_doubter_doubts_more_claims_than_honest_in_play(opponent):
    """Over whole two-player games against the same opponent, the doubter doubts a larger share
    of the claims it faces than honest does (its own play changes the claims it faces, so the
    per-observation test above is not enough)."""
    rate = {}
    for me in ("honest", "doubter"):
        strats = [get_strategy("bluff_in_zoo", me)(), get_strategy("bluff_in_zoo", opponent)()]
        seating = (np.arange(2)[None, :] + np.arange(300)[:, None]) % 2
        s = play_batch(G, R, 2, strats, seating, game_keys(8, 2, 300)).outcome.stats
        rate[me] = s["doubts"][seating == 0].sum() / s["claims"][seating == 1].sum()
    assert rate["doubter"] > 1.1 * rate["honest"], rate


def test_honest_claims_the_highest_claim_it_believes():
    """Its bisection against every count tried one by one: the claim is legal, believed with
    chance ``belief`` or more, and no higher legal claim is."""
    honest = get_strategy("bluff_in_zoo", "honest")()
    belief = np.float32(honest.params.belief)
    found = total = 0
    for st, legal in recorded(bz.COUNT):
        n = len(legal)
        o = G.observe(st, np.arange(n))
        model = cbz.pile_models(st, np.arange(n), honest.params.trust, honest.params.recall)
        rs = game_keys(2, st.n_players, n).seat.reshape(-1).copy()
        count = ask(honest, G, st, np.arange(n), rs, st.n_players, legal) - o.count0 + 1
        cap = o.max_claim
        believed = np.zeros((n, cap + 1, o.n_kinds), bool)
        for c in range(1, cap + 1):
            believed[:, c] = cbz.odds_table(model, np.full((n, o.n_kinds), c)) >= belief
        low = o.min_raise()
        low_odds = cbz.odds_table(model, np.minimum(low, cap))
        for i in range(n):
            assert legal[i, o.count0 + count[i] - 1]
            ok = [(c, k) for c in range(1, cap + 1) for k in range(o.n_kinds)
                  if believed[i, c, k] and legal[i, o.count0 + c - 1]
                  and (o.claims[i] == 0 or c > o.claim_n[i] or k > o.claim_k[i])]
            if ok:
                found += 1
                assert count[i] == max(ok)[0]
            else:               # none believed: the smallest raise of the kind most likely there
                assert count[i] == low[i, np.argmax(np.where(low[i] <= cap, low_odds[i], -1))]
        total += n
    assert found > total // 4


@pytest.mark.parametrize("cap", [None, 60])
def test_all_honest_tables_seldom_reach_the_claim_cap(cap):
    """Four honest players (the tables that reached the old cap of 60 in 31% of games): with the
    printed cap and even with 60, nearly no game has a claim at the cap."""
    r = G.make_rules(max_claim=cap)
    res = play_batch(G, r, 4, [get_strategy("bluff_in_zoo", "honest")()],
                     np.zeros((200, 4), int), game_keys(31, 4, 200))
    assert (res.outcome.stats["claims_at_cap"] > 0).mean() < 0.02
    assert res.outcome.stats["doubts"].sum() > 3 * 200


def test_recall_is_the_share_of_the_doubted_piles_remembered():
    n = 0
    for st, _ in recorded(bz.RESPOND):
        o = G.observe(st, np.arange(len(st.g)))
        rows = np.flatnonzero(o.revealed.sum(axis=1) > 0)
        if not rows.size:
            continue
        o = o.take(rows)
        n += len(rows)
        for recall in (0.0, 0.5, 1.0):
            want = o.unseen + (1 - recall) * o.revealed
            assert np.allclose(cbz.pile_models(st, rows, 0.0, recall)[0], want)
        # a perfect memory knows the cards shown are not in the pile; no memory thinks they may
        # be
        full = cbz.pile_models(st, rows, 0.0, 1.0)
        none = cbz.pile_models(st, rows, 0.0, 0.0)
        assert not np.allclose(full[3], none[3])
    assert n > 10


def test_doubter_doubts_a_claim_it_knows_is_false_and_not_one_it_thinks_true():
    r, st = position(HANDS3[:2])
    doubter = get_strategy("bluff_in_zoo", "doubter")()
    place(st, "mouse 3")
    claim(st, 1, MOUSE)
    act(st, bz.CONTINUE)
    place(st, "mouse 1")
    claim(st, 2, MOUSE)
    # P0 knows its own 3 mice are in the pile: only an action card could make this false
    assert decide(doubter, st) == bz.CONTINUE
    act(st, bz.CONTINUE)
    no_card(st)
    claim(st, 9, ELEPHANT)
    # P1 knows one of the two cards: nine elephants cannot be there
    assert decide(doubter, st) == bz.DOUBT


def test_honest_claims_the_animal_it_placed_and_bluffer_raises_by_its_knob():
    r, st = position([["elephant 3", "stop", "stop", "'All cards count 1'", "'All cards count 1'"],
                      ["mouse 1", "mouse 1", "mouse 1", "mouse 2", "mouse 2"]])
    honest = get_strategy("bluff_in_zoo", "honest")(draw_rate=0.0)
    a = decide(honest, st)
    assert a == bz.HAND0 + c("elephant 3")
    act(st, a)
    act(st, decide(honest, st))    # "one ..." (the only count)
    a = decide(honest, st)
    assert a == obs(st).kind_action(ELEPHANT)
    act(st, a)
    act(st, bz.CONTINUE)
    place(st, "mouse 2")
    bluffer = get_strategy("bluff_in_zoo", "bluffer")(bluff_rate=1.0, bluff_raise=3, trust=0.0)
    a = decide(bluffer, st)
    assert a == obs(st).count_action(2 + 3)               # smallest raise "2 mice", plus 3
    act(st, a)
    assert decide(bluffer, st) == obs(st).kind_action(MOUSE)


def _scramble(st, games, rng):
    """What the mover of each of ``games`` cannot see dealt again (``_swap_hidden``)."""
    return _swap_hidden(st, rng, games)


@pytest.mark.parametrize("players, rules", [
    (2, {}), (3, {"hand_size": 4, "next_starter": "loser"}), (5, {"max_claim": 12})])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """The other hands, the cards the others put on the pile and the draw pile dealt again at
    every decision: no heuristic's action changes (nor its draws); knobs moved too."""
    strats = [cls() for cls in shipped(G.id)]
    strats += [get_strategy(G.id, n)(**p) for n, p in (
        ("honest", {"trust": 1.0, "recall": 0.0, "belief": 0.6}),
        ("bluffer", {"bluff_rate": 0.7, "draw_rate": 0.5, "recall": 1.0}),
        ("doubter", {"trust": 0.0, "skip_rate": 0.6}))]
    assert {s.name for s in strats} == {"honest", "bluffer", "doubter"}
    checked = check_knowledge(G, G.make_rules(rules), players, strats, _scramble, games=8)
    assert checked > 3000, checked


def test_the_knowledge_check_catches_a_policy_that_reads_the_draw_pile():
    def top_card(st, b):
        pos = int(st.g[b, bz.POS])
        return int(st.deck[b, pos]) if pos < st.deck.shape[1] else 0

    leaky_policy_is_caught(G, R, 3, get_strategy(G.id, "honest")(), top_card, _scramble,
                           games=6)


def test_runs_without_numba():
    code = ("import numpy as np; from safari_sim.games import get_game; "
            "from safari_sim.engine.play import play_batch; from strategies import get_strategy; "
            "from safari_sim.engine.chance import game_keys; "
            "g = get_game('bluff_in_zoo'); s = get_strategy('bluff_in_zoo', 'doubter')(); "
            "r = play_batch(g, g.make_rules(), 3, [s], np.zeros((4, 3), int), "
            "game_keys(0, 3, 4)); print(r.outcome.score.sum(axis=1))")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr


@pytest.mark.slow
def test_knobs_move_the_numbers_the_way_they_say():
    # more bluffing: more false claims and more of them caught; a lower doubt threshold: more doubts
    seating = np.arange(2048 * 2).reshape(2048, 2) % 2

    def stats(a, b):
        res = play_batch(G, R, 2, [a, b], seating, game_keys(11, 2, 2048))
        s = res.outcome.stats
        return {k: [float(s[k][seating == i].sum()) for i in range(2)] for k in s if s[k].ndim == 2}

    bluffer = get_strategy("bluff_in_zoo", "bluffer")
    s = stats(bluffer(bluff_rate=0.0), bluffer(bluff_rate=0.8))
    assert s["false_claims"][1] / s["claims"][1] > 1.5 * s["false_claims"][0] / s["claims"][0]
    assert s["caught_lying"][1] > 1.5 * s["caught_lying"][0]
    doubter = get_strategy("bluff_in_zoo", "doubter")
    s = stats(doubter(doubt_at=0.8), doubter(doubt_at=0.3))
    assert s["doubts"][1] > 1.5 * s["doubts"][0]


# ---- Worlds for search (determinize) -----------------------------------------------------------

class _NpRng:
    def __init__(self, seed):
        self.g = np.random.default_rng(seed)

    def random(self, size=None):
        return self.g.random(size)


def _random_positions(players, steps, batch=10, seed=0):
    """``batch`` games played ``steps`` random decisions in (games already over stay over)."""
    st = G.init(R, players, deal_keys(batch, 100 + seed))
    rng = _NpRng(seed)
    for _ in range(steps):
        mover = G.to_move(st)
        live = mover >= 0
        a = np.zeros(batch, np.int64)
        a[live] = random_legal(G.legal(st)[live], rng)
        G.step(st, a)
    return st


def _world_conserved(w, i, seat, st, b):
    """World i of real game b, for ``seat``: every zone the size it was, the seat's own cards and
    every shown card where they were, and cards conserved."""
    conserved(w, i)
    assert np.array_equal(w.hand[i, seat], st.hand[b, seat])
    assert np.array_equal(w.placed[i, seat], st.placed[b, seat])
    assert np.array_equal(w.taken[i], st.taken[b])
    assert np.array_equal(w.pp[i, :, bz.HAND_N], st.pp[b, :, bz.HAND_N])
    assert np.array_equal(w.pp[i, :, bz.PILE_BY], st.pp[b, :, bz.PILE_BY])
    assert (w.placed[i].sum(axis=1) == st.placed[b].sum(axis=1)).all()
    assert w.g[i, bz.POS] == st.g[b, bz.POS]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_worlds_of_random_positions_depend_only_on_what_the_seat_knows(players):
    for steps in (3, 17, 60):
        st = _random_positions(players, steps, seed=players * 10 + steps)
        games = np.flatnonzero(G.to_move(st) >= 0)
        if len(games) == 0:
            continue
        permuted = _swap_hidden(st, np.random.default_rng(steps), games)
        check_worlds(G, st, permuted, games)
        seat = G.to_move(st)[games]
        w = G.determinize(st, games, seat, deal_keys(len(games), 7))
        for i, b in enumerate(games):
            _world_conserved(w, i, seat[i], st, b)


def _learnt_position():
    """3 players. P0 places the stop card and claims one mouse; P1 doubts: the stop card is
    shown and goes to P0's points. P0 refills with the fox 1; P1 starts the round, draws the
    second stop card, looks at it and places it: P1 is about to claim."""
    r, st = position(HANDS3, top=["fox 1", "stop"])
    place(st, "stop")
    claim(st, 1, MOUSE)
    act(st, bz.DOUBT)
    assert list(st.pp[0, :, bz.POINTS]) == [1, 0, 0] and G.to_move(st)[0] == 1
    draw(st)
    assert obs(st).kind[0] == bz.COUNT and obs(st).my_pile[0, c("stop")] == 1
    return st


def test_worlds_keep_the_shown_cards_and_the_card_the_seat_drew():
    st = _learnt_position()
    permuted = _swap_hidden(st, np.random.default_rng(1))
    assert not np.array_equal(permuted.hand, st.hand)
    check_worlds(G, st, permuted, [0])
    n = 200
    w = G.determinize(st, np.zeros(n, np.int64), np.ones(n, np.int64), deal_keys(n, 4))
    for i in range(n):
        _world_conserved(w, i, 1, st, 0)
        assert w.taken[i, 0, c("stop")] == 1 and w.placed[i, 1, c("stop")] == 1
    # the others' hands and the draw pile really are dealt again
    assert len({w.hand[i, 0].tobytes() for i in range(n)}) > n // 2
    assert len({w.deck[i, w.g[i, bz.POS]] for i in range(n)}) > 5


def test_worlds_deal_the_unseen_cards_uniformly():
    """P1 (above) has seen its five cards, the stop card it drew and the stop card a doubt
    showed: 107 - 7 = 100 cards it cannot place, 8 - 2 = 6 of them stop cards (the printed
    box: 5 animals x 15, 12 wild, 12 action, 8 stop). So the draw pile's top is a stop card with
    chance 6/100, and P0's five cards hold one with chance 1 - C(94, 5) / C(100, 5)."""
    box = 5 * 15 + 12 + 12 + 8
    hidden = box - 5 - 1 - 1
    stops = 8 - 2
    p_top = stops / hidden
    p_hand = 1 - comb(hidden - stops, 5) / comb(hidden, 5)
    st = _learnt_position()
    n = 6000
    w = G.determinize(st, np.zeros(n, np.int64), np.ones(n, np.int64), deal_keys(n, 11))
    top = w.deck[np.arange(n), w.g[:, bz.POS]] == c("stop")
    held = w.hand[:, 0, c("stop")] > 0
    for freq, p in ((top.mean(), p_top), (held.mean(), p_hand)):
        se = np.sqrt(p * (1 - p) / n)
        assert abs(freq - p) < 4 * se, (freq, p)


def test_worlds_do_not_carry_the_event_log_and_play_on_their_own_stream():
    st = _learnt_position()               # made with log=True: the log names P0's hand cards
    w = G.determinize(st, np.array([0, 0]), np.array([1, 1]), deal_keys(2, 2))
    assert w.ev.shape[1] == 0
    assert not np.array_equal(w.rs, st.rs[[0, 0]])


# ---- Drama --------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 4, 6])
def test_drama_columns_follow_the_points_round_by_round(players):
    """The running score is the points taken after each doubt (one update per round), read here
    from the event log: who took how many cards."""
    names = ("honest", "bluffer", "doubter")
    strats = [get_strategy("bluff_in_zoo", n)() for n in names]
    n = 12
    seating = (np.arange(n * players).reshape(n, players) + np.arange(n)[:, None]) % 3
    res = play_batch(G, R, players, strats, seating, game_keys(21, players, n), log=True)
    changes_seen = 0
    for b in range(n):
        pts, history = [0] * players, []
        for t, seat, a, *_ in res.state.ev[b, :res.state.g[b, bz.NEV]]:
            if t == bz.E_TAKE:
                pts[seat] += a
                history.append(tuple(pts))
        assert list(history[-1]) == list(res.outcome.score[b])
        changes_seen += assert_drama(res.outcome, b, history, lower_wins=True)
    assert changes_seen > 0 or players == 6   # six players seldom have a sole leader


# ---- Searchable rules ---------------------------------------------------------------------------

def test_every_searchable_rules_value_makes_a_game_that_plays_to_its_end():
    space = search_space(bz.Rules)
    assert {"point_limit", "hand_size", "next_starter", "stop_cards", "max_claim"} <= set(space)
    for name, values in space.items():
        assert getattr(R, name) in values, f"{name}: the printed value is not among its search"
        for v in values:
            r = G.make_rules({name: v})
            for players in range(2, 7):
                G.check(r, players)
            players = 6 if name == "hand_size" else 3
            st = G.init(r, players, deal_keys(3, 3))
            play_out(G, st)                   # random legal moves until every game is over
            assert (G.to_move(st) == -1).all(), (name, v)
            assert (G.outcome(st).score.sum(axis=1) > 0).all()


def test_a_clone_plays_on_as_the_game_does():
    check_clone_plays_on(G, lambda: _random_positions(4, 25, batch=6, seed=2), [3, 0, 3, 5])

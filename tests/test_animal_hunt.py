"""Animal Hunt: each rule from a constructed position, the setup, a plain-Python reference game as
the oracle of the step kernel over many random games, observations and memories."""

from __future__ import annotations

import copy
import dataclasses
from itertools import permutations

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError, search_space
from safari_sim.games import animal_hunt as ah
from safari_sim.games import get_game
from strategies import get_strategy
import heuristics
from clone_check import check_clone_plays_on
from compiled_check import assert_same_games
from mixed_play import assert_drama
from worlds_check import check_worlds, play_out

G = get_game("animal_hunt")
K = 30                      # kinds: 5 animals x numbers 1-6
ELEPHANT, LION, MONKEY, TIGER, ZEBRA = range(5)


def kind(animal, number):
    return animal * 6 + number - 1


def twin(k):
    """The card of kind k from the deck that is not dealt (copy 1)."""
    return K + k


def position(hands, ground, players=3, cur=0, seed=0, **kw):
    rules = {k: v for k, v in kw.items() if k in {f.name for f in dataclasses.fields(ah.Rules)}}
    extra = {k: v for k, v in kw.items() if k not in rules}
    r = G.make_rules(rules)
    st = G.init(r, players, deal_keys(1, seed), log=True)
    G.position(st, 0, hands, ground, cur=cur, **extra)
    return r, st


def places(st):
    return st.ground.shape[1]


def act(st, action):
    assert G.legal(st)[0, action], f"action {action} should be legal"
    G.step(st, np.array([action]))


def show(st):
    return places(st)


def ask(st, offset):
    return places(st) + offset


def phase(st):
    return int(st.g[0, ah.PHASE])


# ---- Setup --------------------------------------------------------------------------------------

@pytest.mark.parametrize("players,hand,ground", [(2, 10, 40), (3, 7, 39), (4, 5, 40)])
def test_setup_two_identical_decks_hands_and_hunting_ground(players, hand, ground):
    st = G.init(G.make_rules(), players, deal_keys(50, players))
    assert places(st) == ground
    for b in range(50):
        z = G.zones(st, b)
        hands = [z[f"hand{p}"] for p in range(players)]
        assert [len(h) for h in hands] == [hand] * players
        dealt = [k for h in hands for k in h]
        # one deck of 30 (one of each card) was dealt: no kind twice among the hands
        assert len(set(dealt)) == len(dealt)
        # the other deck and the leftovers: every card not dealt, face down, none seen
        assert sorted(z["ground"]) == sorted(set(range(60)) - set(dealt))
        assert all(twin(k) in z["ground"] for k in dealt)
        assert (st.known[b] == -1).all() and st.g[b, ah.DOWN] == ground
        # no Ducktor Livingstone card: 60 cards of 5 animals numbered 1-6
        assert len(z["ground"]) + len(dealt) == 60
    assert (G.to_move(st) == 0).all()      # seat 0 starts
    # the deal is shuffled: different games, different hands and layouts
    assert len({tuple(st.ground[b]) for b in range(50)}) == 50


def test_three_players_leave_one_place_empty_compared_with_two_and_four():
    # "If you are playing a three-player game, the circled card below will be missing."
    sizes = {p: G.n_actions(G.make_rules(), p) - p for p in (2, 3, 4)}
    assert sizes == {2: 40, 3: 39, 4: 40}


# ---- On Your Turn: flip any card -------------------------------------------------------------------

def test_first_flip_any_face_down_card_then_only_the_choices():
    r, st = position({0: [kind(LION, 3)], 1: [kind(ZEBRA, 1)], 2: [kind(TIGER, 2)]},
                     [twin(kind(LION, 3)), twin(kind(ZEBRA, 1)), twin(kind(TIGER, 2)), -1,
                      kind(MONKEY, 5), twin(kind(MONKEY, 5))])
    legal = G.legal(st)[0]
    assert legal[[0, 1, 2, 4, 5]].all() and not legal[3]          # an empty place
    assert not legal[show(st):].any()                               # no choice before a flip
    act(st, 1)
    assert phase(st) == ah.CHOOSE and G.to_move(st)[0] == 0
    legal = G.legal(st)[0]
    assert not legal[1]                     # the card flipped cannot be flipped again
    assert legal[[0, 2, 4, 5]].all()        # C: flip another
    assert not legal[show(st)]              # A only with the match in hand
    assert legal[ask(st, 1)] and legal[ask(st, 2)]   # B: any other player
    assert st.known[0, 1] == kind(ZEBRA, 1)          # the flipped card is public


# ---- Choice A -------------------------------------------------------------------------------------

def test_choice_a_show_the_match_pair_ducky_and_another_turn():
    hands = {0: [kind(LION, 3), kind(ELEPHANT, 1)], 1: [kind(ZEBRA, 1)], 2: [kind(TIGER, 2)]}
    r, st = position(hands, [twin(kind(ZEBRA, 1)), twin(kind(LION, 3)), twin(kind(TIGER, 2)),
                             twin(kind(ELEPHANT, 1))])
    act(st, 1)
    assert G.legal(st)[0, show(st)]
    act(st, show(st))
    z = G.zones(st, 0)
    assert z["pile0"] == sorted([kind(LION, 3), twin(kind(LION, 3))])
    assert z["hand0"] == [kind(ELEPHANT, 1)] and twin(kind(LION, 3)) not in z["ground"]
    assert st.ducky[0, LION] == 0
    assert G.to_move(st)[0] == 0 and phase(st) == ah.FLIP       # another turn
    assert st.g[0, ah.TURNS] == 1 and st.pp[0, 0, ah.BY_SHOW] == 1


def test_choice_a_holding_the_match_the_player_may_still_ask_or_flip():
    hands = {0: [kind(LION, 3)], 1: [kind(ZEBRA, 1)], 2: [kind(TIGER, 2)]}
    r, st = position(hands, [twin(kind(LION, 3)), twin(kind(ZEBRA, 1)), twin(kind(TIGER, 2))])
    act(st, 0)
    assert G.legal(st)[0, [show(st), ask(st, 1), ask(st, 2), 1, 2]].all()
    act(st, ask(st, 1))     # asks P1 for the lion 3 it holds itself: P1 has none
    assert G.to_move(st)[0] == 1 and G.zones(st, 0)["hand0"] == [kind(LION, 3)]


# ---- Choice B -------------------------------------------------------------------------------------

def test_choice_b_asked_player_must_give_the_match():
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6), kind(MONKEY, 2)]}
    ground = [twin(kind(ELEPHANT, 1)), twin(kind(TIGER, 4)), twin(kind(ZEBRA, 6)),
              twin(kind(MONKEY, 2))]
    r, st = position(hands, ground)
    act(st, 2)               # zebra 6
    act(st, ask(st, 2))      # P2 (two to the left) holds it
    z = G.zones(st, 0)
    assert z["pile0"] == sorted([kind(ZEBRA, 6), twin(kind(ZEBRA, 6))])
    assert z["hand2"] == [kind(MONKEY, 2)]
    assert st.ducky[0, ZEBRA] == 0 and st.pp[0, 0, ah.BY_ASK] == 1 and st.pp[0, 2, ah.GAVE] == 1
    assert G.to_move(st)[0] == 0 and phase(st) == ah.FLIP       # another turn


def test_choice_b_asked_player_without_it_card_turns_back_turn_over_and_all_know():
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6)]}
    ground = [twin(kind(ELEPHANT, 1)), twin(kind(TIGER, 4)), twin(kind(ZEBRA, 6)),
              kind(MONKEY, 2), twin(kind(MONKEY, 2))]
    r, st = position(hands, ground, turns=4)
    act(st, 3)               # monkey 2: both copies lie in the hunting ground
    act(st, ask(st, 1))
    assert G.to_move(st)[0] == 1 and phase(st) == ah.FLIP        # the turn is over
    assert st.ground[0, 3] == kind(MONKEY, 2)                       # face down, same place
    assert st.known[0, 3] == kind(MONKEY, 2) and st.seen[0, 3] == 4
    assert st.lack[0, 1, kind(MONKEY, 2)] == 4                      # P1 lacks it, from turn 4
    assert st.asked[0, 0, kind(MONKEY, 2)] == 4                     # and P0 asked for it
    assert (st.scored[0] == -1).all() and st.pp[0, 0, ah.ASKS_FAILED] == 1
    # what P1 now sees: itself (offset 0) known to lack the monkey 2, and where it lies
    o = G.observe(st, np.array([0]))
    assert o.lacks[0, 0, kind(MONKEY, 2)] and o.known[0, 3] == kind(MONKEY, 2)
    assert o.asked[0, 2, kind(MONKEY, 2)] == 4 and (o.asked >= 0).sum() == 1   # P0: 2 to the left
    # neither holds it: P1 was asked in vain, P0 asked (holding it, it would have shown it)
    assert o.not_holding[0, 0, kind(MONKEY, 2)] == 4 and o.not_holding[0, 2, kind(MONKEY, 2)] == 4


# ---- Choice C -------------------------------------------------------------------------------------

def _lions_apart():
    """Two players; both lion 5s lie in the hunting ground, at places 1 and 3."""
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)]}
    ground = [twin(kind(ELEPHANT, 1)), kind(LION, 5), twin(kind(TIGER, 4)), twin(kind(LION, 5))]
    return ground, position(hands, ground, players=2)[1]


def test_choice_c_a_match_scores_both_cards_and_another_turn():
    ground, st = _lions_apart()
    act(st, 1)
    act(st, 3)
    z = G.zones(st, 0)
    assert z["pile0"] == sorted([kind(LION, 5), twin(kind(LION, 5))])
    assert st.ground[0, 1] == -1 and st.ground[0, 3] == -1 and st.g[0, ah.DOWN] == 2
    assert st.ducky[0, LION] == 0 and st.pp[0, 0, ah.BY_FLIP] == 1
    assert G.to_move(st)[0] == 0 and phase(st) == ah.FLIP


def test_choice_c_no_match_both_turn_face_down_and_the_turn_ends():
    ground, st = _lions_apart()
    act(st, 1)
    act(st, 2)
    assert G.to_move(st)[0] == 1 and phase(st) == ah.FLIP
    assert st.ground[0].tolist()[:4] == ground                     # nothing moved
    assert st.known[0, 1] == kind(LION, 5) and st.known[0, 2] == kind(TIGER, 4)
    assert (st.scored[0] == -1).all()


def test_choice_c_second_card_matching_the_hand_does_not_count():
    # "If this card matches the first card you flipped": only the first card can be matched
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)]}
    ground = [kind(LION, 5), twin(kind(ELEPHANT, 1)), twin(kind(TIGER, 4)), twin(kind(LION, 5))]
    r, st = position(hands, ground, players=2)
    act(st, 0)
    act(st, 1)               # the elephant 1 matches P0's hand, not the first card
    assert G.to_move(st)[0] == 1 and G.zones(st, 0)["hand0"] == [kind(ELEPHANT, 1)]
    assert (st.scored[0] == -1).all()


# ---- Catching Duckies ----------------------------------------------------------------------------

def test_a_ducky_is_taken_from_another_player_by_the_latest_pair():
    hands = {0: [kind(LION, 1), kind(ZEBRA, 1)], 1: [kind(LION, 2), kind(ZEBRA, 2)]}
    ground = [twin(kind(LION, 1)), twin(kind(LION, 2)), twin(kind(ZEBRA, 1)), twin(kind(ZEBRA, 2))]
    r, st = position(hands, ground, players=2, ducky={LION: 1})
    act(st, 0)
    act(st, show(st))
    assert st.ducky[0, LION] == 0
    assert "takes the lion ducky from P1" in G.describe(st, 0)
    out = G.outcome(st)
    assert out.stats["duckies"][0].tolist() == [1, 0]


# ---- Ending the Game / Winning -------------------------------------------------------------------

def test_the_game_ends_immediately_when_the_mover_runs_out():
    hands = {0: [kind(LION, 1)], 1: [kind(LION, 2), kind(ZEBRA, 2)]}
    ground = [twin(kind(LION, 1)), twin(kind(LION, 2)), twin(kind(ZEBRA, 2))]
    r, st = position(hands, ground, players=2)
    act(st, 0)
    act(st, show(st))
    assert G.to_move(st)[0] == -1 and st.g[0, ah.END] == ah.END_HAND
    out = G.outcome(st)
    # the last pair counts, and its ducky: 2 cards + 2 points; P1's hand is discarded
    assert out.score[0].tolist() == [4, 0] and out.win[0].tolist() == [1, 0]
    assert out.stats["cards_left"][0].tolist() == [0, 2]


def test_an_asked_player_giving_up_the_last_card_ends_the_game():
    hands = {0: [kind(LION, 1), kind(MONKEY, 1)], 1: [kind(ZEBRA, 2)]}
    ground = [twin(kind(LION, 1)), twin(kind(ZEBRA, 2)), twin(kind(MONKEY, 1))]
    r, st = position(hands, ground, players=2)
    act(st, 1)
    act(st, ask(st, 1))
    assert G.to_move(st)[0] == -1
    assert G.outcome(st).score[0].tolist() == [4, 0]


def test_empty_hand_ends_on_its_turn_variant():
    hands = {0: [kind(LION, 1), kind(MONKEY, 1)], 1: [kind(ZEBRA, 2)], 2: [kind(TIGER, 3)]}
    ground = [twin(kind(LION, 1)), twin(kind(ZEBRA, 2)), twin(kind(MONKEY, 1)),
              twin(kind(TIGER, 3))]
    r, st = position(hands, ground, empty_hand_ends="turn")
    act(st, 1)
    act(st, ask(st, 1))      # P1 gives its last card: the game goes on
    assert G.to_move(st)[0] == 0
    act(st, 3)
    act(st, ask(st, 1))      # P1 has nothing: the turn passes to P1, whose hand is empty
    assert G.to_move(st)[0] == -1 and st.g[0, ah.END] == ah.END_HAND


def test_last_pair_without_its_ducky_variant():
    hands = {0: [kind(LION, 1)], 1: [kind(LION, 2), kind(ZEBRA, 2)]}
    ground = [twin(kind(LION, 1)), twin(kind(LION, 2)), twin(kind(ZEBRA, 2))]
    r, st = position(hands, ground, players=2, last_pair_takes_ducky=False, ducky={LION: 1})
    act(st, 0)
    act(st, show(st))
    assert G.to_move(st)[0] == -1
    assert G.outcome(st).score[0].tolist() == [2, 2]       # P1 keeps the lion ducky
    assert G.outcome(st).win[0].tolist() == [0.5, 0.5]     # a tie shares the win


def test_the_game_ends_when_no_face_down_card_is_left():
    hands = {0: [kind(LION, 1)], 1: [kind(LION, 2)]}
    ground = [kind(TIGER, 6), twin(kind(TIGER, 6))]
    r, st = position(hands, ground, players=2)
    act(st, 0)
    act(st, 1)
    assert G.to_move(st)[0] == -1 and st.g[0, ah.END] == ah.END_GROUND
    assert G.outcome(st).score[0].tolist() == [4, 0]


def test_no_second_turn_variant():
    hands = {0: [kind(LION, 1), kind(ZEBRA, 1)], 1: [kind(LION, 2)]}
    ground = [twin(kind(LION, 1)), twin(kind(LION, 2)), twin(kind(ZEBRA, 1))]
    r, st = position(hands, ground, players=2, pair_turns_again=False)
    act(st, 0)
    act(st, show(st))
    assert G.to_move(st)[0] == 1


def test_score_is_cards_plus_two_per_ducky_and_ties_share():
    hands = {0: [kind(LION, 1)], 1: [kind(LION, 2)], 2: [kind(LION, 3)]}
    ground = [twin(kind(LION, 1)), twin(kind(LION, 2)), twin(kind(LION, 3))]
    # P0: 3 pairs, no ducky = 6; P1: 2 pairs + 1 ducky = 6; P2: 1 pair + 2 duckies = 6... and
    # then P0 pairs the lion 1 and takes the lion ducky from P2: 8, 6, 4
    scored = {kind(ZEBRA, 1): 0, kind(ZEBRA, 2): 0, kind(ZEBRA, 3): 0,
              kind(MONKEY, 1): 1, kind(MONKEY, 2): 1, kind(TIGER, 1): 2}
    r, st = position(hands, ground, scored=scored, ducky={MONKEY: 1, TIGER: 2, LION: 2})
    assert G.outcome(st).score[0].tolist() == [6, 6, 6]
    assert G.outcome(st).win[0].tolist() == pytest.approx([1 / 3] * 3)
    act(st, 0)
    act(st, show(st))
    out = G.outcome(st)
    assert out.score[0].tolist() == [10, 6, 4]
    assert out.rank[0].tolist() == [1, 2, 3]


def test_safety_stop_is_counted():
    strat = [get_strategy(G.id, "first_legal")()]
    res = play_batch(G, G.make_rules(max_turns=50), 3, strat, np.zeros((8, 3), int),
                     game_keys(1, 3, 8))
    out = res.outcome
    # first_legal flips places 0 and 1 again and again: the game only ends at the stop
    assert (out.turns == 50).all() and (out.stats["capped"] == 1).all()


def test_rules_errors_name_the_field():
    with pytest.raises(RulesError, match="did you mean 'hand_sizes'"):
        G.make_rules({"hand_size": [1, 2, 3]})
    with pytest.raises(RulesError, match="rules.hand_sizes"):
        G.make_rules({"hand_sizes": [10, 7]})
    with pytest.raises(RulesError, match="rules.hand_sizes"):
        G.make_rules({"hand_sizes": [16, 7, 5]})
    with pytest.raises(RulesError, match="rules.empty_hand_ends"):
        G.make_rules({"empty_hand_ends": "never"})
    with pytest.raises(RulesError, match="rules.max_turns"):
        G.make_rules({"max_turns": 0})
    with pytest.raises(RulesError, match="rules.animals"):
        G.make_rules({"animals": 0})
    with pytest.raises(RulesError, match="2 to 4 players"):
        G.check(G.make_rules(), 5)
    r = G.make_rules({"animals": 3, "numbers": 4, "hand_sizes": [4, 3, 2]})
    st = G.init(r, 3, deal_keys(2, 0))
    assert places(st) == 24 - 9 and st.hand.shape[2] == 12


# ---- A reference game, written again from the rulebook ---------------------------------------------

class Ref:
    """Animal Hunt in plain Python from the printed rules, started from game b's deal."""

    def __init__(self, st, b, rules):
        self.players = st.n_players
        self.places = st.ground.shape[1]
        self.hands = [set(np.flatnonzero(st.hand[b, p]).tolist()) for p in range(self.players)]
        self.ground = [None if c < 0 else int(c) for c in st.ground[b]]
        self.piles = [[] for _ in range(self.players)]
        self.ducky = {}
        self.cur, self.first, self.turns, self.over = 0, None, 0, False
        self.rules = rules
        # the public record, kept from the events a player at the table sees and hears
        self.seen_kind = {}             # place -> (kind turned up there, turn it was face up)
        self.refused = {}               # (player, kind) -> turn it was asked for it in vain
        self.asked_for = {}             # (player, kind) -> turn it asked someone for it
        self.paired_by = {}             # kind -> player who made its pair

    def saw(self, place):
        self.seen_kind[place] = (self.kind(self.ground[place]), self.turns)

    def gone(self, place):
        self.seen_kind.pop(place, None)
        self.ground[place] = None

    def public(self, seat):
        """What ``seat`` may know, as the observation should hold it (other players as offsets
        to the left): the record above, its own hand, hand sizes and pairs."""
        P, G_, rel = self.players, self.places, lambda q: (q - seat) % P
        known, seen = [-1] * G_, [-1] * G_
        for place, (k, t) in self.seen_kind.items():
            known[place], seen[place] = k, t
        lack = [[-1] * K for _ in range(P)]
        asked = [[-1] * K for _ in range(P)]
        for (q, k), t in self.refused.items():
            lack[rel(q)][k] = t
        for (q, k), t in self.asked_for.items():
            asked[rel(q)][k] = t
        scored = [rel(self.paired_by[k]) if k in self.paired_by else -1 for k in range(K)]
        ducky = [rel(self.ducky[a]) if a in self.ducky else -1 for a in range(5)]
        first = -1 if self.first is None else self.first
        return {
            "seat": seat, "kind": int(self.first is not None), "turn": self.turns,
            "first": first, "first_kind": -1 if first < 0 else self.kind(self.ground[first]),
            "down": [c is not None for c in self.ground], "known": known, "seen": seen,
            "hand": [k in self.hands[seat] for k in range(K)],
            "hand_size": [len(self.hands[(seat + o) % P]) for o in range(P)],
            "pairs": [len(self.piles[(seat + o) % P]) // 2 for o in range(P)],
            "lack": lack, "asked": asked, "scored": scored, "ducky": ducky,
            "ground_left": sum(c is not None for c in self.ground),
        }

    def kind(self, card):
        return card % K

    def legal(self):
        if self.over:
            return set()
        down = {i for i, c in enumerate(self.ground) if c is not None}
        if self.first is None:
            return down
        acts = (down - {self.first}) | {self.places + o for o in range(1, self.players)}
        if self.kind(self.ground[self.first]) in self.hands[self.cur]:
            acts.add(self.places)
        return acts

    def pair(self, cards, ducky=True):
        self.piles[self.cur] += cards
        self.paired_by[self.kind(cards[0])] = self.cur
        if ducky:
            self.ducky[self.kind(cards[0]) // 6] = self.cur

    def end_turn(self, again):
        self.turns += 1
        self.first = None
        if not (again and self.rules.pair_turns_again):
            self.cur = (self.cur + 1) % self.players
        if all(c is None for c in self.ground) or self.turns >= self.rules.max_turns:
            self.over = True
        elif self.rules.empty_hand_ends == "turn" and not self.hands[self.cur]:
            self.over = True                         # the variant: ends on that player's turn

    def step(self, a):
        if self.first is None:
            self.first = a
            self.saw(a)                              # everyone sees the card turned up
            return
        card = self.ground[self.first]
        k = self.kind(card)
        if a < self.places:                          # C
            self.saw(a)
            if self.kind(self.ground[a]) == k:
                self.pair([card, self.ground[a]])
                self.gone(self.first)
                self.gone(a)
                self.end_turn(True)
            else:
                self.end_turn(False)
            return
        if a == self.places:                         # A
            giver = self.cur
        else:                                         # B
            giver = (self.cur + a - self.places) % self.players
            self.asked_for[self.cur, k] = self.turns     # everyone hears the question
            if k not in self.hands[giver]:
                self.refused[giver, k] = self.turns      # ... and the answer
                self.end_turn(False)
                return
        self.hands[giver].remove(k)
        self.gone(self.first)
        ends = not self.hands[giver] and self.rules.empty_hand_ends == "any"
        self.pair([card, k], ducky=not ends or self.rules.last_pair_takes_ducky)
        if ends:
            self.over = True
            self.turns += 1
            return
        self.end_turn(True)

    def scores(self):
        return [len(self.piles[p]) + 2 * sum(1 for h in self.ducky.values() if h == p)
                for p in range(self.players)]


def conserved(st, b):
    z = G.zones(st, b)
    cards = [c for zone in z.values() for c in zone]
    assert len(cards) == len(set(cards)) == 60, "cards lost, created or in two zones"


VARIANTS = {"turn_no_again": {"empty_hand_ends": "turn", "pair_turns_again": False},
            "last_pair_no_ducky": {"last_pair_takes_ducky": False}}


@pytest.mark.parametrize("players,variant", [(2, None), (3, None), (4, None),
                                             (3, "turn_no_again"), (4, "last_pair_no_ducky")])
def test_properties_over_random_games(players, variant):
    """Mixed strategies (and recalls) at every player count: every action legal, every step the
    same as the reference game's, every observation the reference's public record (cards turned
    up and where, questions and refusals with their turns, pairs, duckies, hand sizes), cards
    conserved in every zone after every step, every game ends, and the final scores are a
    recount of the piles and duckies."""
    B = 120 if variant is None else 60
    keys = game_keys(10 + players, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    pool = [("rememberer", {}), ("prober", {"recall": 0.7}), ("guesser", {"recall": 0.9}),
            ("random", {}), ("rememberer", {"recall": 0.3})]
    strats = [get_strategy(G.id, n)(**p) for n, p in pool]
    for s in strats:
        s.reset(B, players)
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(strats)
    r = G.make_rules(VARIANTS.get(variant, {}))
    st = G.init(r, players, keys.deal)
    refs = [Ref(st, b, r) for b in range(B)]
    for _ in range(20_000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        for b in range(B):
            assert (mover[b] < 0) == refs[b].over
            assert set(np.flatnonzero(G.legal(st)[b]).tolist()) == refs[b].legal()
            if not refs[b].over:
                assert mover[b] == refs[b].cur
        if live.size == 0:
            break
        legal = G.legal(st)
        actions = np.zeros(B, np.int64)
        who = seating[live, mover[live]]
        for k, s in enumerate(strats):
            idx = live[who == k]
            if idx.size:
                obs = G.observe(st, idx).freeze()
                # the summary of known places is a recount of them
                recount = (obs.known[:, :, None] == np.arange(K)[None, None, :]).sum(axis=1)
                assert np.array_equal(obs.known_count, recount)
                # the observation is exactly the public record (and the own hand), no more
                for j, b in enumerate(idx):
                    for name, want in refs[b].public(int(mover[b])).items():
                        got = np.asarray(getattr(obs, name)[j]).tolist()
                        assert got == want, (name, b)
                a = heuristics.choose(s, G, st, idx, seat_rs, players)
                assert legal[idx, a].all()
                actions[idx] = a
        G.step(st, actions)
        for b in live:
            refs[b].step(int(actions[b]))
            conserved(st, b)
            z = G.zones(st, b)
            for p in range(players):
                assert z[f"hand{p}"] == sorted(refs[b].hands[p])
                assert z[f"pile{p}"] == sorted(refs[b].piles[p])
            assert [c if c >= 0 else None for c in st.ground[b].tolist()] == refs[b].ground
    assert (G.to_move(st) == -1).all(), "every game ends"
    out = G.outcome(st)
    assert out.stats["capped"].sum() == 0
    for b in range(B):
        assert out.score[b].tolist() == refs[b].scores()
        assert out.turns[b] == refs[b].turns
    assert np.allclose(out.win.sum(axis=1), 1) and (out.rank.min(axis=1) == 1).all()
    # the statistics add up: every pair was made by one of the three choices
    s = out.stats
    assert (s["pairs"] == s["pairs_shown"] + s["pairs_asked"] + s["pairs_flipped"]).all()
    # the measures, recounted from the reference's final position: the 60 cards and 5 duckies
    # less what the piles and duckies scored; the duckies decided when the most cards in a pile
    # (ties share) are not the winners
    decided = 0
    for b in range(B):
        pile = [len(refs[b].piles[p]) for p in range(players)]
        held = [sum(1 for h in refs[b].ducky.values() if h == p) for p in range(players)]
        assert s["points_unwon"][b] == 60 + 2 * 5 - sum(pile) - 2 * sum(held)
        total = [c + 2 * d for c, d in zip(pile, held)]
        by_cards = {p for p in range(players) if pile[p] == max(pile)}
        by_total = {p for p in range(players) if total[p] == max(total)}
        assert s["ducky_decided"][b] == (by_cards != by_total)
        decided += by_cards != by_total
    assert 0 < decided < B


# ---- Observations -----------------------------------------------------------------------------------

def _obs_arrays(o):
    names = [f.name for f in dataclasses.fields(o) if isinstance(getattr(o, f.name), np.ndarray)]
    return {n: np.asarray(getattr(o, n)) for n in names + ["lacks"]}


def check_hidden_cards_do_not_show(observe):
    """Other players' hands and the face-down cards never seen, shuffled among themselves at
    positions of random games: ``observe(state, games)`` must give the player to move exactly
    the same arrays."""
    players, B = 3, 40
    keys = game_keys(4, players, B)
    strat = get_strategy(G.id, "rememberer")()
    strat.reset(B, players)
    st = G.init(G.make_rules(), players, keys.deal)
    rng = np.random.default_rng(0)
    checked = 0
    for step in range(60):
        live = np.flatnonzero(G.to_move(st) >= 0)
        if live.size == 0:
            break
        if step % 5 == 3:
            for b in live[:10]:
                p = int(G.to_move(st)[b])
                other = copy.deepcopy(st)
                slots = [("h", q, k) for q in range(players) if q != p
                         for k in np.flatnonzero(st.hand[b, q])]
                slots += [("g", i, None) for i in range(places(st))
                          if st.ground[b, i] >= 0 and st.known[b, i] < 0]
                cards = [k if t == "h" else int(st.ground[b, i]) for t, i, k in slots]
                for _ in range(200):
                    perm = rng.permutation(cards)
                    hands = {q: [c % K for (t, qq, _), c in zip(slots, perm) if t == "h" and qq == q]
                             for q in range(players) if q != p}
                    if all(len(set(h)) == len(h) for h in hands.values()) and \
                            not np.array_equal(perm, cards):
                        break
                for q, h in hands.items():
                    other.hand[b, q] = False
                    other.hand[b, q, h] = True
                for (t, i, _), c in zip(slots, perm):
                    if t == "g":
                        other.ground[b, i] = c
                assert not (np.array_equal(other.hand, st.hand)
                            and np.array_equal(other.ground, st.ground))
                oa, ob = _obs_arrays(observe(st, np.array([b]))), \
                    _obs_arrays(observe(other, np.array([b])))
                for name in oa:
                    assert np.array_equal(oa[name], ob[name]), name
                checked += 1
        legal = G.legal(st)
        a = np.zeros(B, np.int64)
        a[live] = heuristics.ask(strat, G, st, live, keys.seat.reshape(-1).copy(), players)
        G.step(st, a)
    assert checked >= 50


def test_observation_unchanged_when_every_hidden_card_is_permuted():
    check_hidden_cards_do_not_show(G.observe)


@dataclasses.dataclass
class _LeakyObs(ah.Obs):
    peek: np.ndarray = None  # the leak: a hidden fact


@pytest.mark.parametrize("leak", ["next_hand", "unseen_place"])
def test_the_permutation_check_catches_a_leaky_observation(leak):
    """The positive control: the same check on an observation with one hidden fact added (the
    hand of the next seat, or the card at the first place nobody has seen) must fail."""
    def leaky(st, games):
        o = G.observe(st, games)
        fields = {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}
        if leak == "next_hand":
            peek = st.hand[games, (G.to_move(st)[games] + 1) % st.n_players]
        else:
            hidden = (st.ground[games] >= 0) & (st.known[games] < 0)
            peek = st.ground[games, hidden[0].argmax()] % K
        return _LeakyObs(**fields, peek=np.array(peek))
    with pytest.raises(AssertionError, match="peek"):
        check_hidden_cards_do_not_show(leaky)


def test_observation_is_rotated_and_holds_the_public_history():
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4), kind(LION, 1)], 2: [kind(ZEBRA, 6)]}
    ground = [twin(kind(ELEPHANT, 1)), twin(kind(TIGER, 4)), twin(kind(ZEBRA, 6)),
              kind(MONKEY, 2), twin(kind(MONKEY, 2)), twin(kind(LION, 1))]
    r, st = position(hands, ground, cur=1, scored={kind(LION, 6): 0}, ducky={LION: 0},
                     lacks={(2, kind(MONKEY, 2)): 0}, known={3: 0})
    o = G.observe(st, np.array([0]))
    assert o.seat[0] == 1 and o.kind[0] == ah.FLIP and o.first[0] == -1
    assert o.hand[0].tolist() == [k in (kind(TIGER, 4), kind(LION, 1)) for k in range(K)]
    assert o.hand_size[0].tolist() == [2, 1, 1]          # P1, P2, P0
    assert o.pairs[0].tolist() == [0, 0, 1]
    assert o.scored[0, kind(LION, 6)] == 2 and o.ducky[0, LION] == 2
    assert o.lacks[0, 1, kind(MONKEY, 2)] and o.lacks[0].sum() == 1
    assert o.known[0].tolist()[:7] == [-1, -1, -1, kind(MONKEY, 2), -1, -1, -1]
    assert o.ground_left[0] == 6 and o.down[0, :6].all() and not o.down[0, 6:].any()
    act(st, 1)
    o = G.observe(st, np.array([0]))
    assert o.kind[0] == ah.CHOOSE and o.first[0] == 1 and o.first_kind[0] == kind(TIGER, 4)


# ---- Memories and strategies ------------------------------------------------------------------------

def _memory_obs(n, seen_turn, turn):
    """n copies of one position where place 0 was seen at ``seen_turn`` and P1 was asked in vain
    for the lion 1 then, now at ``turn``."""
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6)]}
    ground = [kind(MONKEY, 2), twin(kind(MONKEY, 2)), twin(kind(ELEPHANT, 1)),
              twin(kind(TIGER, 4)), twin(kind(ZEBRA, 6)), kind(LION, 1), twin(kind(LION, 1))]
    st = G.init(G.make_rules(), 3, deal_keys(n, 0))
    for b in range(n):
        G.position(st, b, hands, ground, turns=turn, known={0: seen_turn},
                   lacks={(1, kind(LION, 1)): seen_turn})
    return st, G.observe(st, np.arange(n)).freeze()


def _recall(strat, st, keys):
    """What ``strat`` remembers in each game of ``st`` (seat 0 to move) at the start of a
    decision, its memory updated (the compiled memory every decision begins with)."""
    n = len(st.g)
    rng = SeatRandom(keys, np.arange(n) * 3)
    rs = rng.states()
    known, lacks = strat.compiled().recall_now(st, np.arange(n), strat.policy(), rs)
    rng.advance(rs)
    return known, lacks


def test_memory_forgets_each_fact_with_chance_one_minus_recall_per_turn():
    n = 4000
    strat = get_strategy(G.id, "rememberer")(recall=0.6)
    strat.reset(n, 3)
    keys = game_keys(1, 3, n).seat.reshape(-1).copy()
    st, obs = _memory_obs(n, 0, 2)
    known, lacks = _recall(strat, st, keys)
    kept = (known[:, 0] == kind(MONKEY, 2)).mean()
    assert abs(kept - 0.36) < 4 * np.sqrt(0.36 * 0.64 / n)
    assert abs(lacks[:, 1, kind(LION, 1)].mean() - 0.36) < 4 * np.sqrt(0.36 * 0.64 / n)
    assert (known[:, 1:] == -1).all()       # nothing else was ever seen
    # three turns later, without seeing it again: 0.36 * 0.6**3 remain, and only those
    st2, obs2 = _memory_obs(n, 0, 5)
    known2, _ = _recall(strat, st2, keys)
    still = known2[:, 0] == kind(MONKEY, 2)
    assert not (still & (known[:, 0] < 0)).any()
    assert abs(still.mean() - 0.36 * 0.216) < 4 * np.sqrt(0.078 * 0.92 / n)
    # seen again now: remembered by all
    st3, obs3 = _memory_obs(n, 5, 5)
    known3, _ = _recall(strat, st3, keys)
    assert (known3[:, 0] == kind(MONKEY, 2)).all()


def test_perfect_memory_is_the_observation_and_no_memory_lasts_one_turn():
    n = 50
    keys = game_keys(1, 3, n).seat.reshape(-1).copy()
    st, obs = _memory_obs(n, 3, 3)
    perfect = get_strategy(G.id, "rememberer")(recall=1.0)
    perfect.reset(n, 3)
    k, l = _recall(perfect, st, keys)
    assert np.array_equal(k, obs.known) and np.array_equal(l, obs.not_holding >= 0)
    none = get_strategy(G.id, "rememberer")(recall=0.0)
    none.reset(n, 3)
    k, _ = _recall(none, st, keys)
    assert (k[:, 0] == kind(MONKEY, 2)).all()           # seen this turn: still in mind
    st, obs = _memory_obs(n, 3, 4)
    k, l = _recall(none, st, keys)
    assert (k == -1).all() and not l.any()


def _decide(st, name, **params):
    s = get_strategy(G.id, name)(**params)
    s.reset(1, st.n_players)
    keys = game_keys(0, st.n_players, 1).seat.reshape(-1).copy()
    return int(heuristics.ask(s, G, st, [0], keys, st.n_players)[0])


def test_rememberer_flips_a_remembered_match_then_a_twin_else_an_unknown_card():
    hands = {0: [kind(ELEPHANT, 1), kind(LION, 3)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6)]}
    ground = [twin(kind(TIGER, 4)), kind(MONKEY, 2), twin(kind(ZEBRA, 6)),
              twin(kind(MONKEY, 2)), twin(kind(ELEPHANT, 1)), twin(kind(LION, 3))]
    r, st = position(hands, ground, known={1: 0, 3: 0, 4: 0})
    assert _decide(st, "rememberer") == 4          # the match of its elephant 1
    act(st, 4)
    assert _decide(st, "rememberer") == show(st)
    act(st, show(st))
    assert _decide(st, "rememberer") in (1, 3)     # the monkey 2 twins
    act(st, 1)
    assert _decide(st, "rememberer") == 3
    act(st, 3)
    assert _decide(st, "rememberer") == 0          # the first card never seen


def paired_elsewhere(hands, ground, seat=1):
    """Every kind not in these hands and ground, as paired by ``seat`` (a consistent late game)."""
    used = {k for h in hands.values() for k in h} | {c % K for c in ground if c >= 0}
    return {k: seat for k in range(K) if k not in used}


def test_rememberer_asks_the_opponent_who_may_hold_the_match():
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6)]}
    ground = [twin(kind(ZEBRA, 6)), twin(kind(TIGER, 4)), twin(kind(ELEPHANT, 1))]
    r, st = position(hands, ground, lacks={(1, kind(ZEBRA, 6)): 0},
                     scored=paired_elsewhere(hands, ground))
    act(st, 0)
    assert _decide(st, "rememberer") == ask(st, 2)   # P1 is known to lack it
    assert _decide(st, "prober") == ask(st, 2)


def test_prober_flips_a_remembered_card_to_ask_for_it():
    # P2 is the only one who can hold the zebra 6 (P1 lacks it); the rememberer flips an unknown
    # card, the prober flips the zebra 6 it remembers to ask P2 for it
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6)]}
    ground = [twin(kind(TIGER, 4)), twin(kind(ELEPHANT, 1)), twin(kind(ZEBRA, 6))]
    r, st = position(hands, ground, known={2: 0}, lacks={(1, kind(ZEBRA, 6)): 0},
                     scored=paired_elsewhere(hands, ground))
    assert _decide(st, "rememberer") == 0
    assert _decide(st, "prober", probe_min=0.5) == 2


def test_guesser_shows_and_takes_remembered_twins():
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6)]}
    ground = [twin(kind(TIGER, 4)), twin(kind(ELEPHANT, 1)), twin(kind(ZEBRA, 6)),
              kind(LION, 2), twin(kind(LION, 2))]
    r, st = position(hands, ground, known={4: 0})
    act(st, 1)
    assert _decide(st, "guesser") == show(st)
    r, st = position(hands, ground, known={4: 0})
    act(st, 3)
    assert _decide(st, "guesser") == 4


def test_memory_pays():
    """Against two perfect rememberers, a rememberer that forgets wins less."""
    players, B = 3, 600
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % players
    wins = []
    for recall in (0.8, 1.0):
        strats = [get_strategy(G.id, "rememberer")(recall=recall),
                  get_strategy(G.id, "rememberer")(), get_strategy(G.id, "rememberer")()]
        res = play_batch(G, G.make_rules(), players, strats, seating, game_keys(9, players, B))
        wins.append(res.outcome.win[seating == 0].sum() / B)
    assert wins[0] < 0.2 < wins[1]


# ---- Runs -----------------------------------------------------------------------------------------

def test_same_seed_same_games():
    strat = [get_strategy(G.id, "guesser")(recall=0.5)]
    a = play_batch(G, G.make_rules(), 4, strat, np.zeros((30, 4), int), game_keys(11, 4, 30))
    b = play_batch(G, G.make_rules(), 4, strat, np.zeros((30, 4), int), game_keys(11, 4, 30))
    assert np.array_equal(a.outcome.score, b.outcome.score)
    assert np.array_equal(a.outcome.turns, b.outcome.turns)


def test_trace_describes_a_whole_game():
    strat = [get_strategy(G.id, "rememberer")()]
    res = play_batch(G, G.make_rules(), 3, strat, np.zeros((1, 3), int), game_keys(2, 3, 1),
                     log=True)
    text = G.describe(res.state, 0)
    out = res.outcome
    assert text.startswith("-- Turn 1: P0 --")
    assert text.count("-- Turn ") == out.turns[0]
    assert text.count("scores the pair") == out.stats["pairs"][0].sum()
    assert "== Game over after" in text


def test_pure_python_mode_plays_the_same_game():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: the game comes out as compiled."""
    import os
    import subprocess
    import sys

    args = [sys.executable, "-m", "safari_sim.cli", "trace", "animal_hunt", "--seed", "3",
            "--strategies", "rememberer,prober,guesser"]
    cwd = os.path.dirname(os.path.dirname(__file__))
    jit = subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=cwd,
                        timeout=120)
    assert "Game over" in jit.stdout and "scores the pair" in jit.stdout
    assert py.stdout == jit.stdout


@pytest.mark.parametrize("players", [2, 3, 4])
def test_baseline_experiments_sweep_the_forgetful_players_recall(players):
    """Each baseline study is the printed game at its player count, every shipped heuristic at the
    table, and a sweep of one rememberer's recall up to a perfect memory."""
    from pathlib import Path

    from safari_sim.run.config import load_experiment

    path = Path(__file__).resolve().parents[1] / "experiments" / f"animal_hunt-{players}p.yaml"
    exp = load_experiment(path)
    assert exp.game.id == G.id and exp.players == players
    assert 20_000 <= exp.spec.games <= 50_000
    recalls = [{s.name: s.params for s in v.strategies}["forgetful"]["recall"] for v in exp.variants]
    assert recalls == sorted(recalls) and recalls[0] == 0.0 and recalls[-1] == 1.0
    assert all(v.rules == G.make_rules() for v in exp.variants)
    used = {s.use for s in exp.variants[0].strategies}
    assert "rememberer" in used and (players == 2 or "prober" in used)


def test_guesser_flips_at_random_and_asks_a_random_opponent_with_chance_ask():
    """The guesser's summary, over many copies of one position: its first card is any face-down
    card alike; without the match in hand or a remembered twin it asks with chance ``ask``, each
    opponent alike, and otherwise flips another card at random."""
    n, players = 3000, 3
    hands = {0: [kind(ELEPHANT, 1)], 1: [kind(TIGER, 4)], 2: [kind(ZEBRA, 6)]}
    ground = [twin(kind(TIGER, 4)), twin(kind(ELEPHANT, 1)), twin(kind(ZEBRA, 6)),
              kind(LION, 2), twin(kind(LION, 2)), kind(MONKEY, 3), twin(kind(MONKEY, 3))]
    st = G.init(G.make_rules(), players, deal_keys(n, 0))
    for b in range(n):
        G.position(st, b, hands, ground)
    keys = game_keys(5, players, n).seat.reshape(-1).copy()
    s = get_strategy(G.id, "guesser")(ask=0.3)
    s.reset(n, players)
    a = heuristics.ask(s, G, st, np.arange(n), keys, players)
    freq = np.bincount(a, minlength=7) / n
    assert a.max() < 7 and np.allclose(freq, 1 / 7, atol=4 * np.sqrt(1 / 7 * 6 / 7 / n))
    G.step(st, np.full(n, 3))            # the lion 2: not in the hand, its twin never seen
    a = heuristics.ask(s, G, st, np.arange(n), keys, players)
    assert G.legal(st)[np.arange(n), a].all()
    asks = a > places(st)
    assert abs(asks.mean() - 0.3) < 4 * np.sqrt(0.21 / n)
    assert abs((a[asks] == ask(st, 1)).mean() - 0.5) < 4 * np.sqrt(0.25 / asks.sum())
    flips = a[~asks]
    assert (flips != 3).all() and set(flips.tolist()) == {0, 1, 2, 4, 5, 6}


# ---- Worlds for search (determinize) -----------------------------------------------------------------

def _facts(st, b, seat):
    """What ``seat`` knows of game b, read from the state in plain Python: its hand, the kind at
    each place seen, who was asked for what in vain, what is paired, hand sizes."""
    nk = st.hand.shape[2]
    return {"hand": set(np.flatnonzero(st.hand[b, seat]).tolist()),
            "known": {j: int(st.known[b, j]) for j in range(places(st)) if st.known[b, j] >= 0},
            "lack": {(q, k) for q in range(st.n_players) for k in range(nk) if st.lack[b, q, k] >= 0},
            "scored": set(np.flatnonzero(st.scored[b] >= 0).tolist()),
            "sizes": st.hand[b].sum(axis=1).tolist(),
            "down": set(np.flatnonzero(st.ground[b] >= 0).tolist())}


def _consistent(st, b, seat):
    """Whether game b is a deal ``seat`` cannot tell from what it knows: each unpaired kind has its
    two cards in play (a hand holds copy 0, its twin copy 1 is in the ground), no kind is in two
    hands, nobody holds a kind it was asked for in vain, and the kinds at the places seen are as
    seen."""
    nk = st.hand.shape[2]
    f = _facts(st, b, seat)
    where = {k: [] for k in range(nk)}
    for q in range(st.n_players):
        for k in np.flatnonzero(st.hand[b, q]):
            where[int(k)].append(("h", q, 0))
            if (q, int(k)) in f["lack"]:
                return False
    for j in f["down"]:
        c = int(st.ground[b, j])
        where[c % nk].append(("g", j, c // nk))
        if j in f["known"] and f["known"][j] != c % nk:
            return False
    for k, locs in where.items():
        if k in f["scored"]:
            if locs:
                return False
        elif len(locs) != 2 or sorted(x[2] for x in locs) != [0, 1] or \
                sum(x[0] == "h" for x in locs) > 1:
            return False
    return True


def _permute_hidden(st, games, rng, moves=400):
    """The same positions with every card hidden from the seat to move (other hands, places never
    seen) moved by random swaps that keep what it knows (each hand a set, no kind in two hands,
    no refused kind held), and every copy label in the ground drawn again."""
    other = copy.deepcopy(st)
    nk = st.hand.shape[2]
    for b in games:
        p = int(G.to_move(st)[b])
        slots = [("h", q) for q in range(st.n_players) if q != p
                 for _ in range(int(st.hand[b, q].sum()))]
        kinds = [int(k) for q in range(st.n_players) if q != p for k in np.flatnonzero(st.hand[b, q])]
        slots += [("g", j) for j in range(places(st)) if st.ground[b, j] >= 0 and st.known[b, j] < 0]
        kinds += [int(st.ground[b, j]) % nk for t, j in slots if t == "g"]
        lack = {(q, k) for q in range(st.n_players) for k in range(nk) if st.lack[b, q, k] >= 0}
        mine = set(np.flatnonzero(st.hand[b, p]).tolist())

        def valid(ks):
            held = [k for (t, _), k in zip(slots, ks) if t == "h"]
            by = [(q, k) for (t, q), k in zip(slots, ks) if t == "h"]
            return (len(set(held)) == len(held) and not set(held) & mine
                    and not set(by) & lack)

        for _ in range(moves):
            i, j = rng.integers(len(slots), size=2)
            trial = list(kinds)
            trial[i], trial[j] = trial[j], trial[i]
            if valid(trial):
                kinds = trial
        for q in range(st.n_players):
            if q != p:
                other.hand[b, q] = False
        for (t, j), k in zip(slots, kinds):
            if t == "h":
                other.hand[b, j, k] = True
            else:
                other.ground[b, j] = k
        for j in range(places(st)):
            if other.ground[b, j] >= 0 and st.known[b, j] >= 0:
                other.ground[b, j] = st.known[b, j]
        in_hand = set(np.flatnonzero(other.hand[b].any(axis=0)).tolist())
        ground = [j for j in range(places(st)) if other.ground[b, j] >= 0]
        for k in range(nk):
            at = [j for j in ground if other.ground[b, j] == k]
            labels = [1] if k in in_hand else list(rng.permutation([0, 1]))
            for j, c in zip(at, labels):
                other.ground[b, j] = k + nk * c
        assert _consistent(other, b, p)
    G._refresh(other, np.arange(len(other.g)))
    return other


def _strategy_positions(players, steps, batch=12, seed=0):
    """Games played ``steps`` decisions in by probers and rememberers (who ask, so players are
    seen to lack kinds)."""
    keys = game_keys(50 + seed, players, batch)
    strats = [get_strategy(G.id, "prober")(), get_strategy(G.id, "rememberer")(recall=0.8)]
    for s in strats:
        s.reset(batch, players)
    st = G.init(G.make_rules(), players, keys.deal)
    seat_rs = keys.seat.reshape(-1).copy()
    for _ in range(steps):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        a = np.zeros(batch, np.int64)
        for k, s in enumerate(strats):
            idx = live[(live + mover[live]) % 2 == k]
            if idx.size:
                a[idx] = heuristics.ask(s, G, st, idx, seat_rs, players)
        G.step(st, a)
    return st


def _world_keeps(w, i, st, b, seat):
    conserved(w, i)
    assert _consistent(w, i, seat)
    assert _facts(w, i, seat) == _facts(st, b, seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_worlds_of_played_positions_depend_only_on_what_the_seat_knows(players):
    lacks = 0
    for steps in (1, 12, 45):
        st = _strategy_positions(players, steps, seed=steps)
        games = np.flatnonzero(G.to_move(st) >= 0)
        permuted = _permute_hidden(st, games, np.random.default_rng(steps))
        check_worlds(G, st, permuted, games)
        seat = G.to_move(st)[games]
        w = G.determinize(st, games, seat, deal_keys(len(games), 5))
        for i, b in enumerate(games):
            _world_keeps(w, i, st, b, int(seat[i]))
        lacks += int((st.lack[games] >= 0).sum())
    assert lacks > 0


def _refused_position():
    """3 players, P0 to move. P0 holds the elephant 1 and the lion 1; P1 the tiger 4, the monkey 2
    and the zebra 6 (and was asked for the lion 2 and the zebra 5 in vain); P2 the lion 2, the
    elephant 2 and the zebra 5. Places 0-3 were seen: the lion 1's twin, a lion 2, a zebra 5 and
    an elephant 3. Every other kind is already paired."""
    hands = {0: [kind(ELEPHANT, 1), kind(LION, 1)],
             1: [kind(TIGER, 4), kind(MONKEY, 2), kind(ZEBRA, 6)],
             2: [kind(LION, 2), kind(ELEPHANT, 2), kind(ZEBRA, 5)]}
    ground = [twin(kind(LION, 1)), twin(kind(LION, 2)), twin(kind(ZEBRA, 5)), kind(ELEPHANT, 3),
              twin(kind(ELEPHANT, 3)), twin(kind(ELEPHANT, 1)), twin(kind(TIGER, 4)),
              twin(kind(MONKEY, 2)), twin(kind(ZEBRA, 6)), twin(kind(ELEPHANT, 2)),
              kind(TIGER, 1), twin(kind(TIGER, 1))]
    in_play = {k for h in hands.values() for k in h} | {c % K for c in ground}
    scored = {k: k % 3 for k in range(K) if k not in in_play}   # every other kind is paired
    return position(hands, ground, players=3, cur=0, turns=6, scored=scored,
                    known={0: 1, 1: 2, 2: 3, 3: 4},
                    lacks={(1, kind(LION, 2)): 2, (1, kind(ZEBRA, 5)): 3})


def test_worlds_keep_the_places_seen_and_every_refusal():
    r, st = _refused_position()
    permuted = _permute_hidden(st, [0], np.random.default_rng(3))
    assert not np.array_equal(permuted.hand, st.hand)
    check_worlds(G, st, permuted, [0])
    n = 400
    w = G.determinize(st, np.zeros(n, np.int64), np.zeros(n, np.int64), deal_keys(n, 8))
    held = {q: set() for q in (1, 2)}
    for i in range(n):
        _world_keeps(w, i, st, 0, 0)
        assert not w.hand[i, 1, kind(LION, 2)] and not w.hand[i, 1, kind(ZEBRA, 5)]
        assert not w.hand[i, 1:, kind(LION, 1)].any()          # P0 holds it: its twin is down
        for q in (1, 2):
            held[q] |= set(np.flatnonzero(w.hand[i, q]).tolist())
    # the seat's knowledge is all that is kept: the lion 2 and zebra 5 may be with P2 or down
    assert kind(LION, 2) in held[2] and kind(ZEBRA, 5) in held[2]
    assert kind(ELEPHANT, 3) in held[1] | held[2] and kind(TIGER, 1) in held[1] | held[2]
    assert not (w.hand[:, 2, kind(LION, 2)]).all()


def _tiny_position():
    """One animal numbered 1-5 (five kinds, ten cards), three players with one card each, a
    hunting ground of 10 - 3 = 7 places. P0 holds kind 0, P1 kind 3, P2 kind 1. Place 0 was seen
    (kind 1) and place 2 (kind 2); P1 was asked for kind 2 in vain."""
    r = G.make_rules(animals=1, numbers=5, hand_sizes=[2, 1, 1])
    st = G.init(r, 3, deal_keys(1, 0))
    G.position(st, 0, {0: [0], 1: [3], 2: [1]}, [5 + 1, 5 + 0, 5 + 2, 5 + 3, 5 + 4, 2, 4],
               cur=0, turns=3, known={0: 1, 2: 2}, lacks={(1, 2): 2})
    return st


def test_worlds_deal_the_hidden_cards_as_a_fair_deal_would():
    """The chance of each kind in each other hand, and at an unseen place, over every deal the
    rulebook can make (the dealt deck in any order, one card to each player, its two leftovers
    shuffled with the other deck into the seven places, every labelled card apart) that agrees
    with what P0 knows, against the frequency over 6,000 worlds."""
    want = {}
    total = 0
    for deal in permutations(range(5)):
        h0, h1, h2, *left = deal
        if h0 != 0 or h1 == 2:
            continue
        for ground in permutations([(left[0], 0), (left[1], 0)] + [(k, 1) for k in range(5)]):
            if ground[0][0] != 1 or ground[2][0] != 2:
                continue
            total += 1
            for key in (("P1", h1), ("P2", h2), ("place 3", ground[3][0])):
                want[key] = want.get(key, 0) + 1
    st = _tiny_position()
    n = 6000
    w = G.determinize(st, np.zeros(n, np.int64), np.zeros(n, np.int64), deal_keys(n, 13))
    assert w.hand[:, 1].sum(axis=1).tolist() == [1] * n
    got = {}
    for i in range(n):
        for key in (("P1", int(np.flatnonzero(w.hand[i, 1])[0])),
                    ("P2", int(np.flatnonzero(w.hand[i, 2])[0])),
                    ("place 3", int(w.ground[i, 3]) % 5)):
            got[key] = got.get(key, 0) + 1
    assert set(got) <= set(want)
    for key, count in want.items():
        p = count / total
        se = np.sqrt(p * (1 - p) / n)
        assert abs(got.get(key, 0) / n - p) < 4 * se + 1e-12, (key, got.get(key, 0) / n, p)
    # not the uniform choice of hand kinds: a kind never seen (two cards hidden) is likelier
    assert want[("P1", 4)] > want[("P1", 1)]


# ---- Drama ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_drama_columns_follow_the_score_turn_by_turn(players):
    """The running score (2 per pair, 2 per ducky held) after every turn, read from the event
    log: a turn ends at the next turn's start or at the end; each pair scores and moves its
    animal's ducky to the pair's maker when the event says it took it."""
    names = ("rememberer", "prober", "guesser")
    strats = [get_strategy(G.id, n)() for n in names]
    n = 12
    seating = (np.arange(n * players).reshape(n, players) + np.arange(n)[:, None]) % 3
    res = play_batch(G, G.make_rules(), players, strats, seating, game_keys(31, players, n),
                     log=True)
    changes_seen = 0
    for b in range(n):
        score, holder, history, started = [0] * players, {}, [], False
        for t, seat, a, before, took, _ in res.state.ev[b, :res.state.g[b, ah.NEV]]:
            if t in (ah.E_TURN, ah.E_END):
                if started:
                    history.append(tuple(score))
                started = True
            elif t == ah.E_PAIR:
                score[seat] += 2
                if took:
                    animal = a // 6
                    if animal in holder:
                        score[holder[animal]] -= 2
                    holder[animal] = seat
                    score[seat] += 2
        assert len(history) == res.outcome.turns[b]
        assert list(history[-1]) == res.outcome.score[b].tolist()
        changes_seen += assert_drama(res.outcome, b, history, lower_wins=False)
    assert changes_seen > 0


# ---- Searchable rules -----------------------------------------------------------------------------

def test_every_searchable_rules_value_makes_a_game_that_plays_to_its_end():
    space = search_space(ah.Rules)
    assert {"pair_turns_again", "ducky_points", "empty_hand_ends", "numbers"} <= set(space)
    printed = G.make_rules()
    strat = [get_strategy(G.id, "rememberer")()]
    for name, values in space.items():
        assert getattr(printed, name) in values, f"{name}: the printed value is not searched"
        for v in values:
            r = G.make_rules({name: v})
            for players in (2, 3, 4):
                G.check(r, players)
            res = play_batch(G, r, 3, strat, np.zeros((3, 3), int), game_keys(4, 3, 3))
            assert (G.to_move(res.state) == -1).all(), (name, v)
            assert res.outcome.stats["capped"].sum() == 0


def test_a_clone_plays_on_as_the_game_does():
    check_clone_plays_on(G, lambda: _strategy_positions(3, 20, batch=6, seed=4), [5, 1, 5, 0])


# ---- the running score (issue 16: what a depth-limited search scores its worlds by) -------------

def _running_recount(st, players):
    """Plain Python, from "Winning" applied now: the cards in each score pile, two for each
    ducky in front of the player; cards still in hand are discarded, so they count nothing."""
    z = G.zones(st, 0)
    return [len(z[f"pile{p}"]) + 2 * sum(1 for a in range(5) if st.ducky[0, a] == p)
            for p in range(players)]


def test_running_score_mid_game_counts_piles_and_duckies_never_hands():
    hands = {0: [kind(LION, 1), kind(ZEBRA, 4)], 1: [kind(MONKEY, 5), kind(TIGER, 6)],
             2: [kind(ELEPHANT, 2), kind(LION, 2), kind(ZEBRA, 3)]}
    ground = [twin(kind(LION, 1)), twin(kind(MONKEY, 5)), twin(kind(ELEPHANT, 2)),
              twin(kind(ZEBRA, 4)), twin(kind(TIGER, 6))]
    # P0 has paired two zebras (4 cards, and the zebra ducky), P1 a monkey (2 cards; its ducky
    # went to P2 with P2's later monkey pair), P2 that pair and the ducky: 4 + 2, 2, 2 + 2
    scored = {kind(ZEBRA, 1): 0, kind(ZEBRA, 2): 0, kind(MONKEY, 1): 1, kind(MONKEY, 2): 2}
    r, st = position(hands, ground, scored=scored, ducky={ZEBRA: 0, MONKEY: 2})
    assert G.running_score(st).tolist() == [[6, 2, 4]] == [_running_recount(st, 3)]
    act(st, 1)                       # P0 flips the monkey 5 and asks P1 (one to the left) for it
    assert G.running_score(st).tolist() == [[6, 2, 4]]
    act(st, ask(st, 1))              # a pair (2 cards) and the monkey ducky, taken from P2
    assert st.ducky[0, MONKEY] == 0
    assert G.running_score(st).tolist() == [[10, 2, 2]] == [_running_recount(st, 3)]
    act(st, 0)                       # another turn: the lion 1 it holds, shown
    act(st, show(st))
    assert G.running_score(st).tolist() == [[14, 2, 2]] == [_running_recount(st, 3)]
    assert G.to_move(st)[0] == 0     # the game goes on: hands still hold cards


# ---- The compiled heuristics --------------------------------------------------------------------
# Each shipped heuristic is one compiled policy (strategies/_animal_hunt_compiled.py): the
# lockstep loop asks it for its rows (``decide``), a table of nothing else plays whole games in
# ``play_compiled``; both must give the same games, the same memories and the same draws.

# the three shipped heuristics, forgetful and with their knobs moved, and each at its defaults
FORGETFUL = [("rememberer", {"recall": 0.8, "ask_min": 0.1}),
             ("prober", {"recall": 0.9, "probe_min": 0.5}),
             ("guesser", {"recall": 0.7, "ask": 0.3})]
# ask_min 0.7: float32(0.7) < 0.7, and a chance of 7/10 lands on it (compared in float32)
PERFECT = [("rememberer", {"ask_min": 0.7}), ("prober", {}), ("guesser", {})]
SPECS = FORGETFUL + PERFECT


def _strategies(specs=SPECS):
    return [get_strategy(G.id, n)(**p) for n, p in specs]


def _seating(players, games, n):
    return (np.arange(players)[None, :] + np.arange(games)[:, None]) % n


def _both_ways(players, rules, specs=SPECS, games=200, seed=9, log=False):
    r = G.make_rules(rules)
    keys = game_keys(seed, players, games)
    out = []
    for compiled in (True, False):
        strats = _strategies(specs)
        out.append(play_batch(G, r, players, strats, _seating(players, games, len(strats)),
                              keys, log=log, compiled=compiled))
    return out


def _assert_same(fast, slow):
    assert_same_games(fast, slow, ("g", "pp", "hand", "ground", "known", "seen", "lack", "asked",
                                   "scored", "ducky", "rs"))


@pytest.mark.parametrize("players,rules", [
    (2, {}),
    (3, {}),
    (4, {}),
    (3, {"pair_turns_again": False, "empty_hand_ends": "turn", "ducky_points": 3}),
    (4, {"animals": 4, "numbers": 5, "hand_sizes": [8, 6, 4], "last_pair_takes_ducky": False}),
])
def test_the_lockstep_loop_plays_the_heuristics_as_the_whole_game_kernel_does(players, rules):
    """The three heuristics, forgetful with their knobs moved and perfect, at one table: the
    whole-game kernel and the lockstep loop (each heuristic's ``decide`` for its rows) give the
    same games, to the last state array and seat stream."""
    from safari_sim.engine.play import _compiled_play

    assert _compiled_play(_strategies()) is not None     # the whole-game kernel is taken
    fast, slow = _both_ways(players, rules)
    assert fast.times["observe"] == 0.0 and fast.times["strategies"] == 0.0
    assert slow.times["strategies"] > 0.0
    _assert_same(fast, slow)
    stats = slow.outcome.stats
    for k in ("pairs_shown", "pairs_asked", "pairs_flipped", "asks_failed"):
        assert stats[k].sum() > 0, k


@pytest.mark.parametrize("players", [3, 4])
def test_memories_and_seat_streams_end_the_same(players):
    """30 steps in lockstep (the memories filled), then the rest of the batch compiled, against
    all of it in lockstep: the games, the memories and the streams end the same (the way a
    search plays its worlds out, from the middle of games)."""
    from safari_sim.engine.play import play_on

    r = G.make_rules()
    games = 48
    keys = game_keys(5, players, games)
    ends = []
    for compiled in (True, False):
        st = G.init(r, players, keys.deal)
        strats = _strategies(FORGETFUL)
        for s in strats:
            s.reset(games, players)
        seat_rs = keys.seat.reshape(-1).copy()
        seating = _seating(players, games, len(strats))
        with pytest.raises(RuntimeError, match="still running"):
            play_on(G, st, strats, seating, seat_rs, compiled=False, max_steps=30)
        assert all(s.memory.facts.any() for s in strats)
        n = play_on(G, st, strats, seating, seat_rs, compiled=compiled)
        ends.append((n, st, seat_rs, [(s.memory.facts.copy(), s.memory.turn.copy())
                                      for s in strats]))
    (n1, a, rs1, m1), (n2, b, rs2, m2) = ends
    assert n1 == n2 > 0
    for name in ("g", "pp", "hand", "ground", "known", "lack", "asked", "dr"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(rs1, rs2)
    for (f1, t1), (f2, t2) in zip(m1, m2):
        assert np.array_equal(f1, f2) and np.array_equal(t1, t2)


def test_the_fused_kernel_writes_the_same_log():
    fast, slow = _both_ways(3, {}, games=6, log=True)
    _assert_same(fast, slow)
    for b in range(6):
        assert G.describe(fast.state, b) == G.describe(slow.state, b)


def _play_in_batches(players, specs, size, compiled, games=24, seed=11):
    """Games 0..games-1 played with ``play_on`` in batches of ``size`` (each batch dealt from
    ``keys.take``, its strategies reset for it): every state array, the seat streams and the
    strategies' memories, joined in game order (a memory row is b * P + seat, so the rows of
    consecutive batches join into the rows of the whole batch)."""
    from safari_sim.engine.play import play_on

    r = G.make_rules()
    keys = game_keys(seed, players, np.arange(games))
    parts = []
    for f in range(0, games, size):
        idx = np.arange(f, min(f + size, games))
        part = keys.take(idx)
        st = G.init(r, players, part.deal)
        strats = _strategies(specs)
        for s in strats:
            s.reset(len(idx), players)
        seat_rs = part.seat.reshape(-1).copy()
        seating = (np.arange(players)[None, :] + idx[:, None]) % len(strats)
        play_on(G, st, strats, seating, seat_rs, compiled=compiled)
        arrays = {name: getattr(st, name) for name in ("g", "pp", "hand", "ground", "known",
                                                       "seen", "lack", "asked", "scored",
                                                       "ducky", "dr", "rs")}
        arrays["seat_rs"] = seat_rs
        nf = int(st.params[ah.P_GROUND]) + players * int(st.params[ah.P_KINDS])
        for i, s in enumerate(strats):
            if s.memory.recall < 1.0:   # not sized when the strategy never sat in this batch
                none = s.memory.facts is None
                arrays[f"facts{i}"] = np.zeros((len(idx) * players, nf), bool) if none \
                    else s.memory.facts
                arrays[f"turn{i}"] = np.zeros(len(idx) * players, np.int32) if none \
                    else s.memory.turn
        parts.append((arrays, G.outcome(st)))
    joined = {k: np.concatenate([a[k] for a, _ in parts]) for k in parts[0][0]}
    for name in ("score", "turns"):
        joined[name] = np.concatenate([getattr(o, name) for _, o in parts])
    return joined


@pytest.mark.parametrize("players", [3, 4])
def test_the_heuristics_play_each_game_the_same_in_any_batch(players):
    """Forgetful and perfect, seated in rotation: games 0..23 in batches of 1, 5 and 24,
    compiled, end exactly as the whole batch played in lockstep: the games, the scores, the
    seat streams and every seat's memory row (a memory or stream indexed by anything but the
    batch row and seat, or scratch left over from another game, would show here)."""
    ref = _play_in_batches(players, SPECS, 24, compiled=False)
    assert any(k.startswith("facts") and ref[k].any() for k in ref)   # memories were used
    for compiled, size in ((True, 24), (True, 5), (True, 1), (False, 5), (False, 1)):
        got = _play_in_batches(players, SPECS, size, compiled=compiled)
        assert set(got) == set(ref)
        for k in ref:
            assert np.array_equal(got[k], ref[k]), (compiled, size, k)


def test_one_strategy_seated_under_two_indices_keeps_one_memory():
    """The same forgetful instance at two seating indices (one Memory): the kernel keeps a copy
    per index, and the memory it leaves is every seat's, as the lockstep loop leaves it."""
    from safari_sim.engine.play import play_on

    players, n = 3, 10
    keys = game_keys(3, players, np.arange(n))
    out = []
    for compiled in (True, False):
        s = get_strategy(G.id, "rememberer")(recall=0.8)
        s.reset(n, players)
        st = G.init(G.make_rules(), players, keys.deal)
        seat_rs = keys.seat.reshape(-1).copy()
        play_on(G, st, [s, s], _seating(players, n, 2), seat_rs, compiled=compiled)
        out.append((G.outcome(st).score, seat_rs, s.memory.facts.copy(), s.memory.turn.copy()))
    (a, rs1, f1, t1), (b, rs2, f2, t2) = out
    assert f2.any()
    assert np.array_equal(a, b) and np.array_equal(rs1, rs2)
    assert np.array_equal(f1, f2) and np.array_equal(t1, t2)


def test_a_heuristic_has_no_act():
    with pytest.raises(TypeError, match="compiled heuristic"):
        get_strategy(G.id, "prober")().act(None, None, None)


def _scramble(st, games, rng):
    """What the seat to move in each game cannot see (the other hands, the places nobody has
    seen, the copy labels in the ground) dealt again as it could be."""
    return _permute_hidden(st, games, rng, moves=40)


def _scramble_memory(players):
    def scramble(strat, games, movers, rng):
        """Every other seat's memory row of these games drawn at random."""
        mem = strat.memory
        if mem.facts is None:
            return
        for b, p in zip(games, movers):
            for q in range(players):
                if q != p:
                    r = b * players + q
                    mem.facts[r] = rng.random(mem.facts.shape[1]) < 0.5
                    mem.turn[r] = rng.integers(0, mem.turn[r] + 1)
    return scramble


@pytest.mark.parametrize("players,rules", [(2, {}), (3, {"pair_turns_again": False}),
                                           (4, {"animals": 4, "numbers": 5,
                                                "hand_sizes": [8, 6, 4]})])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """The other hands and the unseen places dealt again, and the other seats' memories drawn
    at random, at every decision: no heuristic's action (forgetful or perfect) changes."""
    checked = heuristics.check_knowledge(G, G.make_rules(rules), players, _strategies(),
                                         _scramble, games=8,
                                         scramble_memory=_scramble_memory(players))
    assert checked > 2000


def test_the_knowledge_check_catches_a_policy_that_reads_an_unseen_place():
    def unseen_kind(st, b):
        hidden = np.flatnonzero((st.ground[b] >= 0) & (st.known[b] < 0))
        return int(st.ground[b, hidden[0]]) % K if hidden.size else 0

    heuristics.leaky_policy_is_caught(G, G.make_rules(), 3,
                                      get_strategy(G.id, "rememberer")(recall=0.8), unseen_kind,
                                      _scramble, games=4)

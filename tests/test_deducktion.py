"""Deducktion: the printed examples 1 to 4 (the set of questions three cards allow), each rule from
a constructed position, properties over many random games at every player count with plain-Python
oracles (the answer's count recounted from the printed question shapes, cards and hand sizes
conserved, scores recounted), the hidden-card permutation test and the deducer's soundness."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import deducktion as dk
from safari_sim.games import get_game
from strategies import _deducktion_compiled as cc
from strategies import get_strategy
from tests.mixed_play import assert_drama, check_search_space

from heuristics import ask, check_knowledge, choose, leaky_policy_is_caught, shipped

G = get_game("deducktion")
ELEPHANT, LION, MONKEY, TIGER, ZEBRA, EXPLORER = range(6)


def card(animal, number):
    return animal * 6 + number - 1


def qc(suit, number):
    return suit * 6 + number - 1


# ---- the printed question shapes, written again from the rulebook ----------------------------------

def how_many(n):
    """'How many 5s do you have?': every animal's n."""
    return frozenset(card(a, n) for a in range(5))


def sequence(animal, numbers):
    """'How many Tiger cards 2, 3, 4 or 5': the numbers as printed."""
    return frozenset(card(animal, n) for n in numbers)


def either(a1, a2, n1, n2):
    """'How many 2s and 5s do you have on Tiger or Elephant cards?'"""
    return frozenset(card(a, n) for a in (a1, a2) for n in (n1, n2))


def cards_of(mask):
    return frozenset(c for c in range(30) if (int(mask) >> c) & 1)


# ---- positions ----------------------------------------------------------------------------------------

def position(hands, missing, faceup=(), questions=None, players=3, cur=0, pile=(), seed=0,
             qpos=0, **rules):
    r = G.make_rules(rules)
    st = G.init(r, players, deal_keys(1, seed), log=True)
    G.position(st, 0, hands, missing, faceup=faceup, questions=questions, cur=cur, pile=pile,
               qpos=qpos)
    return r, st


def act(st, a):
    assert G.legal(st)[0, a], f"{G.action_name(st.rules, st.n_players, a)} should be legal"
    G.step(st, np.array([a]))


def phase(st):
    return int(st.g[0, dk.PHASE])


MISSING5 = [card(a, 6) for a in range(5)]


def spread(players=3, keep=()):
    """Hands for a position: the 25 cards that are not sixes dealt round, minus ``keep``."""
    cards = [c for c in range(30) if c not in MISSING5 and c not in keep]
    return cards


def allowed_by(three):
    """The set of questions (as card sets) the legal mask allows after turning up ``three``."""
    cards = spread()
    hands = {0: cards[:8], 1: cards[8:16], 2: cards[16:24]}
    _, st = position(hands, MISSING5, faceup=cards[24:], questions=list(three))
    assert phase(st) == dk.TARGET
    act(st, dk.A_TARGET)
    assert phase(st) == dk.QUESTION
    qs = np.flatnonzero(G.legal(st)[0, dk.A_QUESTION:dk.A_CARD])
    return {cards_of(dk.QMASK[q]) for q in qs}, qs


def test_example_1_five_elephant_five_tiger_two_tiger():
    got, qs = allowed_by([qc(ELEPHANT, 5), qc(TIGER, 5), qc(TIGER, 2)])
    printed = {how_many(5), sequence(TIGER, [2, 3, 4, 5]), sequence(TIGER, [5, 6, 1, 2]),
               either(TIGER, ELEPHANT, 2, 5)}
    assert got == printed and len(qs) == 4


def test_example_2_explorer_takes_either_other_animal():
    got, qs = allowed_by([qc(EXPLORER, 1), qc(TIGER, 2), qc(LION, 4)])
    printed = {either(TIGER, LION, 2, 4),
               either(LION, TIGER, 1, 2),          # 1 Explorer (as Lion) and 2 Tiger
               either(LION, TIGER, 1, 4),          # 1 Explorer (as Tiger) and 4 Lion
               sequence(TIGER, [1, 2]),
               sequence(TIGER, [2, 3, 4, 5, 6, 1]),
               sequence(LION, [1, 2, 3, 4]),
               sequence(LION, [4, 5, 6, 1])}
    assert got == printed and len(qs) == 7


def test_example_3_two_explorers_become_the_third_cards_animal():
    got, _ = allowed_by([qc(EXPLORER, 1), qc(EXPLORER, 3), qc(TIGER, 5)])
    printed = {sequence(TIGER, [1, 2, 3]), sequence(TIGER, [3, 4, 5, 6, 1])}
    # the pairs that use the 5 Tiger: both explorers are Tigers too
    with_the_tiger = {sequence(TIGER, [1, 2, 3, 4, 5]), sequence(TIGER, [5, 6, 1]),
                      sequence(TIGER, [3, 4, 5]), sequence(TIGER, [5, 6, 1, 2, 3])}
    assert got == printed | with_the_tiger


def test_example_4_three_explorers_any_animal_but_explorer():
    got, qs = allowed_by([qc(EXPLORER, 1), qc(EXPLORER, 3), qc(EXPLORER, 5)])
    tiger_1_3 = {q for q in got if q <= sequence(TIGER, range(1, 7))
                 and (card(TIGER, 1) in q and card(TIGER, 3) in q)
                 and (q in (sequence(TIGER, [1, 2, 3]), sequence(TIGER, [3, 4, 5, 6, 1])))}
    assert tiger_1_3 == {sequence(TIGER, [1, 2, 3]), sequence(TIGER, [3, 4, 5, 6, 1])}
    expected = set()
    for a in range(5):
        for lo, hi in ((1, 3), (1, 5), (3, 5)):
            expected.add(sequence(a, range(lo, hi + 1)))
            expected.add(sequence(a, list(range(hi, 7)) + list(range(1, lo + 1))))
    assert got == expected and len(qs) == 30


def _printed_questions(three):
    """The questions three question cards allow, written again from the rulebook's bullets: each
    pair of the three; an explorer takes the animal of either other card (one explorer), of the
    third card (two), or any animal (three); then the pair's shape."""
    cards = [(q // 6, q % 6 + 1) for q in three]
    animals = [s for s, _ in cards if s != EXPLORER]
    out = set()
    for i, j in ((0, 1), (0, 2), (1, 2)):
        (si, ni), (sj, nj) = cards[i], cards[j]
        if len(animals) == 0:
            choices = [(a, a) for a in range(5)]
        else:
            ai = [si] if si != EXPLORER else sorted(set(animals))
            aj = [sj] if sj != EXPLORER else sorted(set(animals))
            choices = [(x, y) for x in ai for y in aj]
        for a1, a2 in choices:
            if ni == nj:
                out.add(how_many(ni))
            elif a1 == a2:
                lo, hi = min(ni, nj), max(ni, nj)
                out.add(sequence(a1, range(lo, hi + 1)))
                out.add(sequence(a1, list(range(hi, 7)) + list(range(1, lo + 1))))
            else:
                out.add(either(a1, a2, ni, nj))
    return out


def test_every_three_question_cards_allow_exactly_the_printed_questions():
    """All 7,140 sets of three question cards, in two orders: the allowed questions (as card
    sets, no two ids for one set) are the printed shapes, explorers wild as printed."""
    import itertools
    triples = np.array(list(itertools.combinations(range(36), 3)))
    for order in ([0, 1, 2], [2, 0, 1]):
        allowed = dk.allowed_questions(triples[:, order])
        for three, row in zip(triples, allowed):
            qs = np.flatnonzero(row)
            got = [cards_of(dk.QMASK[q]) for q in qs]
            assert len(set(got)) == len(got)
            assert set(got) == _printed_questions(three.tolist()), three


# ---- Setup ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players,hand,up", [(2, 8, 1), (3, 8, 1), (4, 6, 1), (5, 5, 0)])
def test_setup(players, hand, up):
    st = G.init(G.make_rules(), players, deal_keys(200, 1))
    loc = st.loc
    miss = loc == dk.MISSING
    assert (miss.reshape(-1, 5, 6).sum(axis=2) == 1).all()      # one from each animal set
    for p in range(players):
        assert ((loc == p).sum(axis=1) == hand).all()
    assert ((loc == dk.FACEUP).sum(axis=1) == up).all()
    assert ((loc == dk.DRAW).sum(axis=1) == (8 if players == 2 else 0)).all()
    assert (np.sort(st.qdeck, axis=1) == np.arange(36)).all()
    # the deal is shuffled: every card lands in every zone sometimes
    assert (miss.mean(axis=0) > 0.05).all()


# ---- Melding --------------------------------------------------------------------------------------------

def test_meld_three_four_five_of_a_rank_score_3_5_7():
    hands = {0: [card(a, 2) for a in range(5)] + [card(a, 3) for a in range(4)]
             + [card(a, 4) for a in range(3)] + [card(ELEPHANT, 5)],
             1: [card(a, 1) for a in range(5)] + [card(LION, 5), card(MONKEY, 5)],
             2: [card(TIGER, 5), card(ZEBRA, 5), card(TIGER, 4), card(ZEBRA, 4), card(ZEBRA, 3)]}
    _, st = position(hands, MISSING5)
    assert phase(st) == dk.MELD
    legal = G.legal(st)[0]
    assert legal[dk.A_MELD + 1] and legal[dk.A_MELD + 2] and legal[dk.A_MELD + 3]
    assert not legal[dk.A_MELD + 4] and not legal[dk.A_MELD + 0] and legal[dk.A_ASK]
    act(st, dk.A_MELD + 1)
    act(st, dk.A_MELD + 2)
    act(st, dk.A_MELD + 3)
    assert phase(st) == dk.TARGET                       # nothing left to meld: ask
    assert st.pp[0, 0, dk.MELD_PTS] == 7 + 5 + 3
    assert (st.loc[0] == dk.MELD0).sum() == 12
    assert st.pp[0, 0, dk.HAND_N] == 1


def test_meld_is_optional():
    hands = {0: [card(a, 2) for a in range(3)], 1: [card(ZEBRA, 2)], 2: [card(MONKEY, 3)]}
    rest = [c for c in range(30) if c not in MISSING5 and c not in sum(hands.values(), [])]
    hands[1] += rest[:10]
    hands[2] += rest[10:]
    _, st = position(hands, MISSING5)
    act(st, dk.A_ASK)
    assert phase(st) == dk.TARGET and st.pp[0, 0, dk.MELD_PTS] == 0


# ---- the answer and the pass -------------------------------------------------------------------------

def _ask_position(asker_hand, target_hand, questions, **kw):
    others = [c for c in range(30) if c not in MISSING5 and c not in asker_hand + target_hand]
    hands = {0: asker_hand, 1: target_hand, 2: others}
    return position(hands, MISSING5, questions=questions, **kw)


EX1 = [qc(ELEPHANT, 5), qc(TIGER, 5), qc(TIGER, 2)]
Q_FIVES = 4        # "how many 5s?"


def test_answer_counts_passes_and_asker_passes_back_before_looking():
    asker = [card(LION, 1), card(LION, 2), card(MONKEY, 1), card(ZEBRA, 3)]
    target = [card(ELEPHANT, 5), card(TIGER, 5), card(ZEBRA, 2)]
    _, st = _ask_position(asker, target, EX1)
    act(st, dk.A_TARGET)                        # the player to the left
    act(st, dk.A_QUESTION + Q_FIVES)
    assert phase(st) == dk.PASS
    obs = G.observe(st, np.array([0]))
    assert obs.count[0] == 2 and obs.need[0] == 2
    # before looking: the two fives are not in the asker's hand yet
    assert not obs.hand[0, card(ELEPHANT, 5)] and not obs.hand[0, card(TIGER, 5)]
    assert not G.legal(st)[0, dk.A_CARD + card(TIGER, 5)]
    act(st, dk.A_CARD + card(LION, 1))
    act(st, dk.A_CARD + card(ZEBRA, 3))
    loc = st.loc[0]
    assert loc[card(ELEPHANT, 5)] == 0 and loc[card(TIGER, 5)] == 0
    assert loc[card(LION, 1)] == 1 and loc[card(ZEBRA, 3)] == 1
    assert st.pp[0, 0, dk.HAND_N] == 4 and st.pp[0, 1, dk.HAND_N] == 3
    assert st.g[0, dk.CUR] == 1 and st.g[0, dk.QPOS] == 3     # the three cards are used


def test_answer_zero_nothing_passes_and_the_turn_ends():
    asker = [card(LION, 1)]
    target = [card(ZEBRA, 2), card(ZEBRA, 3)]
    _, st = _ask_position(asker, target, EX1)
    act(st, dk.A_TARGET)
    act(st, dk.A_QUESTION + Q_FIVES)
    assert st.g[0, dk.CUR] == 1 and st.hist[0, 0, 4] == 0
    assert st.loc[0, card(LION, 1)] == 0


def test_receiving_more_than_held_passes_the_whole_hand_then_gives_back_the_difference():
    # the printed case: receive 3 cards holding 2: give both, look at the 3, give one back
    asker = [card(LION, 1), card(LION, 2)]
    target = [card(ELEPHANT, 5), card(TIGER, 5), card(LION, 5), card(ZEBRA, 2)]
    _, st = _ask_position(asker, target, EX1)
    act(st, dk.A_TARGET)
    act(st, dk.A_QUESTION + Q_FIVES)
    assert phase(st) == dk.GIVE
    loc = st.loc[0]
    assert loc[card(LION, 1)] == 1 and loc[card(LION, 2)] == 1          # whole hand passed
    obs = G.observe(st, np.array([0]))
    assert obs.hand[0].sum() == 3 and obs.need[0] == 1                  # looked at the three
    act(st, dk.A_CARD + card(TIGER, 5))
    assert st.loc[0, card(TIGER, 5)] == 1
    assert st.pp[0, 0, dk.HAND_N] == 2 and st.pp[0, 1, dk.HAND_N] == 4
    assert st.g[0, dk.CUR] == 1


def test_empty_hand_asker_sees_the_cards_and_gives_them_all_back():
    target = [card(ELEPHANT, 5), card(ZEBRA, 2)]
    _, st = _ask_position([], target, EX1)
    act(st, dk.A_TARGET)
    act(st, dk.A_QUESTION + Q_FIVES)
    assert st.loc[0, card(ELEPHANT, 5)] == 1 and st.g[0, dk.CUR] == 1
    assert st.hist[0, 0, 6] == 1 << card(ELEPHANT, 5) == st.hist[0, 0, 7]


def test_holding_exactly_as_many_as_received_passes_the_hand_without_a_choice():
    asker = [card(LION, 1)]
    target = [card(TIGER, 5), card(ZEBRA, 2)]
    _, st = _ask_position(asker, target, EX1)
    act(st, dk.A_TARGET)
    act(st, dk.A_QUESTION + Q_FIVES)
    assert st.loc[0, card(TIGER, 5)] == 0 and st.loc[0, card(LION, 1)] == 1
    assert st.g[0, dk.CUR] == 1


# ---- Ending the game and winning ------------------------------------------------------------------------

def test_game_ends_when_the_deck_cannot_supply_three_then_guesses_score_5_and_minus_3():
    strat = [get_strategy(G.id, "naive")()]
    res = play_batch(G, G.make_rules(), 3, strat, np.zeros((50, 3), int), game_keys(4, 3, 50))
    assert (res.outcome.turns == 12).all()
    st = res.state
    # plain recount of the scores from the final state
    for b in range(50):
        for p in range(3):
            melds = [int(((st.loc[b] == dk.MELD0 + p).reshape(5, 6)[:, n]).sum()) for n in range(6)]
            pts = sum({3: 3, 4: 5, 5: 7}[m] for m in melds if m)
            for a in range(5):
                gnum = int(st.guess[b, p, a])
                if gnum > 0:
                    pts += 5 if st.loc[b, card(a, gnum)] == dk.MISSING else -3
            assert res.outcome.score[b, p] == pts


def test_guesses_are_sealed_unless_seen():
    strat = [get_strategy(G.id, "naive")()]
    for seen in (False, True):
        r = G.make_rules(guesses_seen=seen)
        st = G.init(r, 3, deal_keys(5, 2))
        while True:
            mv = G.to_move(st)
            if (mv < 0).all():
                break
            live = np.flatnonzero(mv >= 0)
            obs = G.observe(st, live)
            late = (obs.kind == dk.GUESS) & (obs.seat == 2)
            if late.any():
                i = np.flatnonzero(late)[0]
                others = obs.guess[i, 1:]
                assert ((others >= 0).all() if seen else (others == -1).all())
            a = np.zeros(5, np.int64)
            a[live] = choose(strat[0], G, st, live, np.arange(15, dtype=np.uint64), 3)
            G.step(st, a)


def test_question_decks_reshuffle_lengthens_the_game():
    strat = [get_strategy(G.id, "naive")()]
    res = play_batch(G, G.make_rules(question_decks=2), 4, strat, np.zeros((20, 4), int),
                     game_keys(4, 4, 20))
    assert (res.outcome.turns == 24).all()


def test_final_meld_lets_players_meld_after_the_last_question():
    hands = {0: [card(a, 2) for a in range(3)], 1: [card(a, 3) for a in range(3)]}
    rest = [c for c in range(30) if c not in MISSING5 and c not in sum(hands.values(), [])]
    hands[2] = rest[:16]
    _, st = position(hands, MISSING5, faceup=rest[16:], final_meld=True)
    st.g[0, dk.QPOS] = 36                            # the deck is used up
    from safari_sim.games.deducktion import _start_turn
    st.g[0, dk.PHASE] = 0
    _start_turn(0, st.g, st.pp, st.loc, st.qdeck, st.pile, st.hist, st.ev, st.rs, st.params)
    G._refresh(st, np.array([0]), fresh=False)
    assert phase(st) == dk.MELD and G.to_move(st)[0] == 0
    act(st, dk.A_MELD + 1)
    assert phase(st) == dk.MELD and G.to_move(st)[0] == 1
    act(st, dk.A_ASK)                                # P1 declines
    assert phase(st) == dk.MELD and G.to_move(st)[0] == 2     # P2 holds five 1s
    act(st, dk.A_ASK)
    assert phase(st) == dk.GUESS and G.to_move(st)[0] == 0
    assert st.pp[0, 0, dk.MELD_PTS] == 3 and st.pp[0, 1, dk.MELD_PTS] == 0


# ---- Two-player variant -------------------------------------------------------------------------------

def _two_player_ask(pile_n=8, **rules):
    """Two players, P0 to ask after turning up EX1 (5 Elephant, 5 Tiger, 2 Tiger): P0 holds a
    lion 1 and a zebra 3, P1 a zebra 2 and the elephant 5; the reserve's top ``pile_n`` cards."""
    p0 = [card(LION, 1), card(ZEBRA, 3)]
    p1 = [card(ZEBRA, 2), card(ELEPHANT, 5)]
    rest = [c for c in range(30) if c not in MISSING5 + p0 + p1]
    pile = rest[:pile_n]
    _, st = position({0: p0, 1: p1}, MISSING5, faceup=rest[pile_n:], players=2, pile=pile,
                     questions=EX1, **rules)
    assert phase(st) == dk.QUESTION                  # one opponent: no choice of target
    return st, p0, pile


def _draw_rows(st):
    rows = st.hist[0, :int(st.g[0, dk.NH])]
    return rows[rows[:, 0] == dk.H_DRAW]


def test_two_players_a_question_answered_zero_draws_one_reserve_card():
    """Two-Player Variant, as printed (the default): "Any time you ask a question and your
    opponent replies with 'zero,' draw a card from the reserve and add it to your hand." """
    assert G.make_rules().two_player_reserve == "zero_answer"
    st, p0, pile = _two_player_ask()
    act(st, dk.A_QUESTION + 6 + TIGER * 36 + 1 * 6 + 4)    # "how many tiger 2, 3, 4, 5?": 0
    assert st.hist[0, 0, 0] == dk.H_ASK and st.hist[0, 0, 4] == 0
    # exactly one card, the reserve's top one, went to the asker's hand
    assert sorted(np.flatnonzero(st.loc[0] == 0)) == sorted(p0 + [pile[0]])
    assert st.pp[0, 0, dk.HAND_N] == 3 and st.pp[0, 1, dk.HAND_N] == 2
    assert (st.loc[0] == dk.DRAW).sum() == 7 and st.pp[0, 0, dk.DRAWS] == 1
    assert len(_draw_rows(st)) == 1 and st.g[0, dk.CUR] == 1
    # the drawer sees the card, the opponent only that one was drawn
    st.g[0, dk.CUR] = 0
    mine = G.observe(st, np.array([0]))
    st.g[0, dk.CUR] = 1
    theirs = G.observe(st, np.array([0]))
    assert mine.hist[0, 1, 0] == theirs.hist[0, 1, 0] == dk.H_DRAW
    assert mine.hist[0, 1, 6] == 1 << pile[0] and theirs.hist[0, 1, 6] == 0
    assert mine.draw_left[0] == theirs.draw_left[0] == 7


def test_two_players_a_zero_answer_with_an_empty_reserve_draws_nothing():
    st, p0, _ = _two_player_ask(pile_n=0)
    act(st, dk.A_QUESTION + 6 + TIGER * 36 + 1 * 6 + 4)    # answered 0
    assert st.hist[0, 0, 4] == 0 and len(_draw_rows(st)) == 0
    assert sorted(np.flatnonzero(st.loc[0] == 0)) == sorted(p0) and st.pp[0, 0, dk.DRAWS] == 0
    assert st.g[0, dk.CUR] == 1


def test_two_players_a_non_zero_answer_draws_nothing():
    st, p0, pile = _two_player_ask()
    act(st, dk.A_QUESTION + Q_FIVES)                  # "how many 5s?": 1 (the elephant 5)
    assert st.g[0, dk.KCOUNT] == 1 and phase(st) == dk.PASS
    act(st, dk.A_CARD + card(LION, 1))
    assert len(_draw_rows(st)) == 0 and (st.loc[0] == dk.DRAW).sum() == 8
    assert st.pp[0, 0, dk.HAND_N] == 2 and st.pp[0, 0, dk.DRAWS] == 0


def test_two_player_reserve_readings_that_are_not_printed():
    """'draw_when_empty': an empty hand draws at the start of the turn and a zero answer draws
    nothing; 'aside': no draws at all."""
    rest = [c for c in range(30) if c not in MISSING5]
    hands = {0: [], 1: rest[:10]}
    pile = rest[10:18]
    r, st = position(hands, MISSING5, faceup=rest[18:], players=2, pile=pile,
                     two_player_reserve="draw_when_empty")
    assert st.loc[0, pile[0]] == 0 and st.pp[0, 0, dk.HAND_N] == 1
    r2, st2 = position(hands, MISSING5, faceup=rest[18:], players=2, pile=pile,
                       two_player_reserve="aside")
    assert st2.pp[0, 0, dk.HAND_N] == 0 and st2.loc[0, pile[0]] == dk.DRAW
    r3, st3 = position(hands, MISSING5, faceup=rest[18:], players=2, pile=pile)
    assert st3.pp[0, 0, dk.HAND_N] == 0                 # printed: no draw for an empty hand
    for reading in ("draw_when_empty", "aside"):
        st4, p0, _ = _two_player_ask(two_player_reserve=reading)
        act(st4, dk.A_QUESTION + 6 + TIGER * 36 + 1 * 6 + 4)    # answered 0
        assert len(_draw_rows(st4)) == 0 and (st4.loc[0] == dk.DRAW).sum() == 8


def test_rules_errors_name_the_field():
    for field, value in (("hand_sizes", [9, 6, 5]), ("meld_points", [3, 5]),
                         ("question_decks", 0), ("two_player_reserve", "burn")):
        with pytest.raises(RulesError) as e:
            G.make_rules({field: value})
        assert e.value.field == field


# ---- properties over random games -------------------------------------------------------------------

def _decode(q):
    """The question's cards, from its number, written again from the printed shapes."""
    if q < 6:
        return how_many(q + 1)
    if q < 186:
        a, r = divmod(q - 6, 36)
        s, e = divmod(r, 6)
        nums, x = [], s
        while True:
            nums.append(x + 1)
            if x == e:
                break
            x = (x + 1) % 6
        return sequence(a, nums)
    pa, pn = divmod(q - 186, 15)
    pairs_a = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    pairs_n = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    (a1, a2), (n1, n2) = pairs_a[pa], pairs_n[pn]
    return either(a1, a2, n1 + 1, n2 + 1)


def _seated_actions(st, strats, seating, seat_rs, live, mover, legal, actions):
    """Each live game's mover plays the strategy seated there (seating[b, seat] indexes strats)."""
    for k, s in enumerate(strats):
        idx = live[seating[live, mover[live]] == k]
        if idx.size:
            actions[idx] = choose(s, G, st, idx, seat_rs, st.n_players)


@pytest.mark.parametrize("players,rules", [(2, {}), (3, {}), (4, {}), (5, {}),
                                           (3, {"add_to_meld": True})])
def test_properties_over_random_games(players, rules):
    B = 150
    names = ["naive", "collector", "deducer"]
    strats = [get_strategy(G.id, n)() for n in names]
    keys = game_keys(17, players, B)
    st = G.init(G.make_rules(rules), players, keys.deal)
    seat_rs = keys.seat.reshape(-1).copy()
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 3
    up0 = (st.loc == dk.FACEUP).sum(axis=1)
    asks = exchanges = 0
    at_q = np.zeros((B, players), np.int64)
    asker = np.zeros(B, np.int64)
    for _ in range(2000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        actions = np.zeros(B, np.int64)
        _seated_actions(st, strats, seating, seat_rs, live, mover, legal, actions)
        assert legal[live, actions[live]].all()
        before_n = st.pp[:, :, dk.HAND_N].copy()
        before_draws = st.pp[:, :, dk.DRAWS].copy()
        before_loc = st.loc.copy()
        ph = st.g[:, dk.PHASE].copy()
        tgt = st.g[:, dk.TGT].copy()
        cur = st.g[:, dk.CUR].copy()
        G.step(st, actions)
        for b in live:
            if ph[b] == dk.QUESTION:
                q = actions[b] - dk.A_QUESTION
                want = sum(1 for c in _decode(q) if before_loc[b, c] == tgt[b])
                assert st.g[b, dk.KCOUNT] == want
                asks += 1
            if ph[b] == dk.QUESTION:
                at_q[b] = before_n[b] - before_draws[b]
                asker[b] = cur[b]
            # an exchange never changes hand sizes: once it is over both hands are as before
            if ph[b] in (dk.QUESTION, dk.PASS, dk.GIVE) and st.g[b, dk.PHASE] not in (dk.PASS, dk.GIVE):
                now = st.pp[b, :, dk.HAND_N] - st.pp[b, :, dk.DRAWS]
                assert now[asker[b]] == at_q[b, asker[b]] and now[tgt[b]] == at_q[b, tgt[b]]
                exchanges += 1
        loc = st.loc
        # every card in exactly one known place; counters agree with the places
        assert ((loc >= 0) & (loc < dk.MELD0 + players)).all()
        assert (loc == dk.MISSING).reshape(B, 5, 6).sum(axis=2).min() == 1
        assert ((loc == dk.FACEUP).sum(axis=1) == up0).all()
        for p in range(players):
            assert (st.pp[:, p, dk.HAND_N] == (loc == p).sum(axis=1)).all()
        transit_a = (loc == dk.TO_ASKER).sum(axis=1)
        transit_t = (loc == dk.TO_TARGET).sum(axis=1)
        in_pass = st.g[:, dk.PHASE] == dk.PASS
        assert (transit_a[~in_pass] == 0).all() and (transit_t[~in_pass] == 0).all()
        assert (transit_a[in_pass] == st.g[in_pass, dk.KCOUNT]).all()
        assert (transit_t[in_pass] == st.g[in_pass, dk.KCOUNT] - st.g[in_pass, dk.NEED]).all()
        # melded cards stay melded; the box never changes
        was_meld = before_loc >= dk.MELD0
        assert (loc[was_meld] == before_loc[was_meld]).all()
        assert ((before_loc == dk.MISSING) == (loc == dk.MISSING)).all()
    else:
        pytest.fail("games did not end")
    assert asks > 0 and exchanges == asks
    out = G.outcome(st)
    assert (out.turns == 12).all()
    # scores recounted in plain Python from the final places and guesses
    for b in range(B):
        melds = []
        for p in range(players):
            pts = 0
            for n in range(6):
                m = int(sum(st.loc[b, card(a, n + 1)] == dk.MELD0 + p for a in range(5)))
                pts += {0: 0, 3: 3, 4: 5, 5: 7}[m]
            melds.append(pts)
            for a in range(5):
                gnum = int(st.guess[b, p, a])
                assert gnum >= 0
                if gnum:
                    pts += 5 if st.loc[b, card(a, gnum)] == dk.MISSING else -3
            assert out.score[b, p] == pts
        # the measures, recounted from the final places and guesses: the animals whose boxed
        # card some player named, and whether the winners on melds alone are the winners
        found = sum(1 for a in range(5) if any(
            st.guess[b, p, a] > 0 and st.loc[b, card(a, int(st.guess[b, p, a]))] == dk.MISSING
            for p in range(players)))
        assert out.stats["missing_found"][b] == found
        total = out.score[b].tolist()
        lead = lambda sc: {q for q in range(players) if sc[q] == max(sc)}  # noqa: E731
        assert out.stats["guesses_decided"][b] == (lead(melds) != lead(total))
    assert 0 < out.stats["guesses_decided"].sum() < B and out.stats["missing_found"].max() > 0


# ---- observations --------------------------------------------------------------------------------------

def _play_to(st, strat, steps, keys, players):
    seat_rs = keys.seat.reshape(-1).copy()
    for _ in range(steps):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            return
        a = np.zeros(len(mv), np.int64)
        a[live] = choose(strat, G, st, live, seat_rs, players)
        G.step(st, a)


def _same(o1, o2):
    import dataclasses
    for f in dataclasses.fields(o1):
        v1, v2 = getattr(o1, f.name), getattr(o2, f.name)
        if isinstance(v1, np.ndarray):
            assert np.array_equal(v1, v2), f.name
        else:
            assert v1 == v2, f.name


def permute_hidden(alt, b, p, rng, same_animal=False, keep=()):
    """Move the cards seat ``p`` of game ``b`` cannot see (other hands, the box, the reserve
    hand, the cards coming to it in an exchange) to one another's places, in place, with the
    others' exchanges, draws and dealt hands relabelled alike; shuffle the question deck's unseen
    part and the others' sealed guesses. ``same_animal``: only cards of one animal trade places
    (the box keeps one of each: a state the seat cannot tell from the real one); ``keep``: cards
    left where they are (what a hand-built position lets the seat know)."""
    players = alt.n_players
    loc = alt.loc[b]
    known = int(alt.g[b, dk.OUTM]) if alt.g[b, dk.PHASE] in (dk.PASS, dk.GIVE) else 0
    hidden = np.array([c for c in range(30) if loc[c] < dk.MELD0 and loc[c] not in (p, dk.FACEUP)
                       and loc[c] != dk.TO_TARGET and not (known >> c) & 1 and c not in keep],
                      np.int64)
    mapping = {}
    for group in ([hidden[hidden // 6 == a] for a in range(5)] if same_animal else [hidden]):
        mapping.update(zip(group.tolist(), rng.permutation(group).tolist()))
    newloc = loc.copy()
    for c, d in mapping.items():
        newloc[d] = loc[c]
    alt.loc[b] = newloc
    alt.pile[b] = [mapping.get(int(c), int(c)) for c in alt.pile[b]]
    relabel = lambda m: sum(1 << mapping.get(c, c) for c in range(30) if (int(m) >> c) & 1)
    for j in range(int(alt.g[b, dk.NH])):
        row = alt.hist[b, j]
        mine = row[0] == dk.H_ASK and p in (row[1], row[2])
        if row[0] == dk.H_ASK and not mine or (row[0] == dk.H_DRAW and row[1] != p):
            for col in (6, 7):
                row[col] = relabel(row[col])
    for p2 in range(players):
        if p2 != p:
            alt.start[b, p2] = relabel(alt.start[b, p2])
    q0 = int(alt.g[b, dk.QPOS]) + 3
    alt.qdeck[b, q0:] = rng.permutation(alt.qdeck[b, q0:])
    if not alt.rules.guesses_seen:
        alt.guess[b, [s for s in range(players) if s != p]] = rng.integers(-1, 7)
    return mapping


def check_observation_hides(players, observe=G.observe):
    """Swap the cards the mover cannot see (other hands, the box, the reserve hand, the rest of
    the question deck, others' exchanges) for other cards: ``observe`` must give the same
    observation (an AssertionError names the field that moved)."""
    import copy
    B = 40
    keys = game_keys(8, players, B)
    st = G.init(G.make_rules(), players, keys.deal)
    strat = get_strategy(G.id, "deducer")()
    rng = np.random.default_rng(0)
    for steps in (0, 5, 8, 10):
        _play_to(st, strat, steps, keys, players)
        mv = G.to_move(st)
        games = np.flatnonzero(mv >= 0)
        base = observe(st, games)
        alt = copy.deepcopy(st)
        for b in games:
            permute_hidden(alt, b, mv[b], rng)
        assert not np.array_equal(alt.loc[games], st.loc[games])
        _same(base, observe(alt, games))
        # the face-up leftover is in every seat's view
        assert ((base.table == players) == (st.loc[games] == dk.FACEUP)).all()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_observation_unchanged_when_every_hidden_card_is_permuted(players):
    check_observation_hides(players)


def _leaky(leak):
    """An observe that adds one field of hidden facts (a deliberate leak)."""
    import dataclasses

    @dataclasses.dataclass
    class Leaky(dk.Obs):
        leak: np.ndarray = None

    def observe(state, games):
        o = G.observe(state, games)
        fields = {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}
        return Leaky(**fields, leak=leak(state, np.asarray(games)))
    return observe


LEAKS = {
    "the box": lambda st, g: st.loc[g] == dk.MISSING,
    "the next seat's hand": lambda st, g: st.loc[g] == ((G.to_move(st)[g] + 1)
                                                        % st.n_players)[:, None],
    "the reserve's next card": lambda st, g: st.pile[g, np.minimum(st.g[g, dk.DRAWPOS],
                                                                   st.pile.shape[1] - 1)],
    "the next question card": lambda st, g: st.qdeck[g, np.minimum(st.g[g, dk.QPOS] + 3, 35)],
}


@pytest.mark.parametrize("players,leak", [(3, "the box"), (4, "the next seat's hand"),
                                          (2, "the reserve's next card"),
                                          (5, "the next question card")])
def test_the_permutation_check_catches_a_leaky_observation(players, leak):
    """The positive control: the same check on an observation with a field of hidden facts
    fails."""
    with pytest.raises(AssertionError, match="^leak"):
        check_observation_hides(players, _leaky(LEAKS[leak]))


def _scramble(st, games, rng):
    """What the mover of each of ``games`` cannot see dealt again (``permute_hidden``: every
    hidden card to another hidden place, the question deck's unseen part, the sealed guesses)."""
    for b in games:
        permute_hidden(st, int(b), int(st.mover[b]), rng)
    return st


@pytest.mark.parametrize("players,rules", [
    (2, {}), (2, {"two_player_reserve": "aside", "guesses_seen": True}),
    (3, {"add_to_meld": True}), (5, {"hand_sizes": (7, 5, 4)})])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """The hidden cards, the question deck and the others' sealed guesses dealt again at every
    decision: no heuristic's action changes (nor its draws); knobs moved too."""
    strats = [cls() for cls in shipped(G.id)]
    strats += [get_strategy(G.id, n)(**p) for n, p in (
        ("collector", {"meld_at": 4, "max_unseen": 6}),
        ("deducer", {"guess_at": 0.2, "meld_weight": 2.0, "draw_weight": 1.0}))]
    assert {s.name for s in strats} == {"naive", "collector", "deducer"}
    checked = check_knowledge(G, G.make_rules(rules), players, strats, _scramble, games=16)
    assert checked > 2500, checked


def test_the_knowledge_check_catches_a_policy_that_reads_the_box():
    def first_missing(st, b):     # the first card in the box
        return int(np.flatnonzero(st.loc[b] == dk.MISSING)[0])

    leaky_policy_is_caught(G, G.make_rules(), 3, get_strategy(G.id, "deducer")(),
                           first_missing, _scramble, games=6)


def test_the_deducer_never_rules_out_where_a_card_really_is():
    """The deducer's card sets (``track_one``) over-approximate: the true place of every card is
    always among its possible places, at every decision where the deducer looks (and its
    chances sum to 1 over each card's places). The sets are taken without the fallback (a
    contradiction would show as an empty set, not as "anywhere but here"), while all three
    strategies play, so the questions, passes and whole-hand exchanges are the ones the deducer
    really meets."""
    names = ["naive", "collector", "deducer"]
    strats = [get_strategy(G.id, n)() for n in names]
    for players, rules in ((2, {}), (2, {"two_player_reserve": "aside"}),
                           (2, {"two_player_reserve": "draw_when_empty"}), (3, {}), (4, {}),
                           (5, {})):
        B = 90
        keys = game_keys(21, players, B)
        st = G.init(G.make_rules(rules), players, keys.deal)
        seat_rs = keys.seat.reshape(-1).copy()
        seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 3
        narrowed = 0
        while True:
            mv = G.to_move(st)
            live = np.flatnonzero(mv >= 0)
            if live.size == 0:
                break
            obs = G.observe(st, live).freeze()
            look = np.isin(obs.kind, [dk.MELD, dk.TARGET, dk.QUESTION, dk.GUESS])
            poss, _ = cc.deductions(st, live, fallback=False)
            loc = st.loc[live].astype(int)
            off = (loc - mv[live][:, None]) % players
            truth = np.where(loc < 5, off, np.where(loc == dk.MISSING, players,
                             np.where(loc == dk.DRAW, players + 1, -1)))
            inside = np.where(truth >= 0, (poss >> np.maximum(truth, 0)) & 1, poss == 0)
            assert inside[look].all()
            narrowed += int(((poss > 0) & ((poss & (poss - 1)) == 0) & (loc != mv[live][:, None]))[look].sum())
            _, w = cc.deductions(st, live)
            assert np.allclose(w.sum(axis=2)[(obs.table < 0) & look[:, None]], 1)
            legal = G.legal(st)
            a = np.zeros(B, np.int64)
            _seated_actions(st, strats, seating, seat_rs, live, mv, legal, a)
            G.step(st, a)
        assert narrowed > 0          # it does pin cards down that are not its own


@pytest.mark.parametrize("players", [3, 4])
def test_deduction_pays(players):
    """The deducer against the naive player (who guesses among the cards it never saw)."""
    strats = [get_strategy(G.id, "naive")(), get_strategy(G.id, "deducer")()]
    B = 600
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 2
    res = play_batch(G, G.make_rules(), players, strats, seating, game_keys(5, players, B))
    o = res.outcome
    ded, nai = seating == 1, seating == 0
    assert o.win[ded].mean() > o.win[nai].mean() + 0.05
    wrong = o.stats["guesses_wrong"]
    assert wrong[ded].mean() < wrong[nai].mean()


def test_same_seed_same_games():
    strat = [get_strategy(G.id, "deducer")()]
    a = play_batch(G, G.make_rules(), 4, strat, np.zeros((30, 4), int), game_keys(11, 4, 30))
    b = play_batch(G, G.make_rules(), 4, strat, np.zeros((30, 4), int), game_keys(11, 4, 30))
    assert np.array_equal(a.outcome.score, b.outcome.score)


def test_trace_describes_a_whole_game():
    strat = [get_strategy(G.id, "collector")()]
    res = play_batch(G, G.make_rules(), 3, strat, np.zeros((1, 3), int), game_keys(2, 3, 1),
                     log=True)
    text = G.describe(res.state, 0)
    assert text.startswith("-- Turn 1: P0 --")
    assert text.count("-- Turn ") == res.outcome.turns[0] == 12
    assert text.count("guesses the missing") == 15
    assert "== The question deck is used up" in text


def test_pure_python_mode_plays_the_same_game():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: the game comes out as compiled."""
    import os
    import subprocess
    import sys

    args = [sys.executable, "-m", "safari_sim.cli", "trace", "deducktion", "--seed", "3",
            "--strategies", "naive,collector,deducer"]
    cwd = os.path.dirname(os.path.dirname(__file__))
    jit = subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=cwd,
                        timeout=120)
    assert "guesses the missing" in jit.stdout and "asks P" in jit.stdout
    assert py.stdout == jit.stdout


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_baseline_experiments(players):
    from pathlib import Path

    from safari_sim.run.config import load_experiment

    path = Path(__file__).resolve().parents[1] / "experiments" / f"deducktion-{players}p.yaml"
    exp = load_experiment(path)
    assert exp.game.id == G.id and exp.players == players
    assert 20_000 <= exp.spec.games <= 50_000
    used = {s.use for s in exp.variants[0].strategies}
    assert {"naive", "deducer"} <= used


# ---- found in the audit -------------------------------------------------------------------------

def test_two_player_draw_left_counts_the_reserve_hand_dealt():
    """The observation's draw_left is the reserve hand's real size (hand_sizes[0]), not 8."""
    for sizes, want in (((8, 6, 5), 8), ((7, 6, 5), 7)):
        st = G.init(G.make_rules(hand_sizes=sizes), 2, deal_keys(4, 1))
        obs = G.observe(st, np.arange(4))
        assert (obs.draw_left == want).all()
        assert ((st.loc == dk.DRAW).sum(axis=1) == want).all()


def test_trace_names_the_cards_the_target_passes():
    strat = [get_strategy(G.id, "collector")()]
    res = play_batch(G, G.make_rules(), 3, strat, np.zeros((1, 3), int), game_keys(2, 3, 1),
                     log=True)
    text = G.describe(res.state, 0)
    rows = res.state.hist[0, :int(res.state.g[0, dk.NH])]
    asks = rows[(rows[:, 0] == dk.H_ASK) & (rows[:, 4] > 0)]
    assert len(asks) > 0
    lines = [ln for ln in text.splitlines() if ln.endswith("face down")]
    assert len(lines) == len(asks)
    for ln, row in zip(lines, asks):
        named = ln.split("passes the ", 1)[1][:-len(" face down")].split(", ")
        assert sorted(named) == sorted(G.card_name(c) for c in cards_of(row[6]))


def _melded_twos_position(**rules):
    """P0 has melded the lion, monkey and tiger 2 (3 points) and holds the elephant 2."""
    melded = [card(LION, 2), card(MONKEY, 2), card(TIGER, 2)]
    rest = [c for c in range(30) if c not in MISSING5 and c not in melded + [card(ELEPHANT, 2)]]
    hands = {0: [card(ELEPHANT, 2)] + rest[:4], 1: rest[4:12], 2: rest[12:20]}
    _, st = position(hands, MISSING5, faceup=melded + rest[20:], **rules)
    for c in melded:
        st.loc[0, c] = dk.MELD0
    st.pp[0, 0, dk.MELD_PTS], st.pp[0, 0, dk.MELDS], st.pp[0, 0, dk.MELD_CARDS] = 3, 1, 3
    from safari_sim.games.deducktion import _start_turn
    st.g[0, dk.PHASE] = 0
    _start_turn(0, st.g, st.pp, st.loc, st.qdeck, st.pile, st.hist, st.ev, st.rs, st.params)
    G._refresh(st, np.array([0]), fresh=False)
    return st


def test_adding_to_an_own_meld_only_with_add_to_meld():
    st = _melded_twos_position()
    assert phase(st) == dk.TARGET                # printed: a meld needs three cards held
    st = _melded_twos_position(add_to_meld=True)
    assert phase(st) == dk.MELD and G.legal(st)[0, dk.A_MELD + 1]
    assert not G.legal(st)[0, dk.A_MELD + 0]
    act(st, dk.A_MELD + 1)
    assert st.pp[0, 0, dk.MELD_PTS] == 5 and st.pp[0, 0, dk.MELDS] == 1
    assert st.loc[0, card(ELEPHANT, 2)] == dk.MELD0 and phase(st) == dk.TARGET


# ---- worlds for search (determinize) ------------------------------------------------------------------

def _world_invariants(st, games, w):
    """Every world is a whole game: each card in one place, the hand sizes of the real game, the
    box one card of each animal, the face-up and melded cards where they really are, and each
    card ``track`` pins to one place there."""
    from safari_sim.games.deducktion import track
    loc = w.loc
    players = st.n_players
    assert ((loc >= 0) & (loc < dk.MELD0 + players)).all()
    assert ((loc == dk.MISSING).reshape(len(games), 5, 6).sum(axis=2) == 1).all()
    for p in range(players):
        assert (w.pp[:, p, dk.HAND_N] == (loc == p).sum(axis=1)).all()
    real = st.loc[games]
    table = (real == dk.FACEUP) | (real >= dk.MELD0)
    assert (loc[table] == real[table]).all()
    mv = G.to_move(st)[games]
    mine = real == mv[:, None]
    assert ((loc == mv[:, None]) == mine).all()
    plain = ~np.isin(st.g[games, dk.PHASE], [dk.PASS, dk.GIVE])
    if plain.any():
        poss = track(G.observe(st, games[plain]), fallback=False)
        off = (loc[plain] - mv[plain][:, None]) % players
        where = np.where(loc[plain] < 5, off, np.where(loc[plain] == dk.MISSING, players, players + 1))
        one = (poss > 0) & ((poss & (poss - 1)) == 0)
        assert (((poss >> where) & 1) | ~one | (where > players + 1)).all()
        assert (where[one] == np.log2(poss[one]).astype(int)).all()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_worlds_of_random_positions(players):
    """check_worlds at positions several steps into random games (every decision kind, the
    guesses included), with the hidden cards of each animal permuted among their places."""
    import copy
    from tests.worlds_check import check_worlds
    B = 24
    keys = game_keys(31, players, B)
    st = G.init(G.make_rules(), players, keys.deal)
    strats = [get_strategy(G.id, n)() for n in ("naive", "collector", "deducer")]
    seat_rs = keys.seat.reshape(-1).copy()
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 3
    rng = np.random.default_rng(players)
    kinds, how, checked = set(), [], 0
    for step in range(400):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        ph = st.g[:, dk.PHASE]
        if step in (0, 4, 9, 17, 30) or (step > 30 and (ph[live] == dk.GUESS).any() and
                                         dk.GUESS not in kinds):
            games = live[np.argsort(rng.random(live.size))[:8]]
            if step > 30:
                games = live[ph[live] == dk.GUESS][:8]
            alt = copy.deepcopy(st)
            for b in games:
                permute_hidden(alt, b, mv[b], rng, same_animal=True)
            check_worlds(G, st, alt, games)
            w = G.determinize(st, np.repeat(games, 5), np.repeat(mv[games], 5),
                              deal_keys(5 * len(games), step))
            _world_invariants(st, np.repeat(games, 5), w)
            how.append(w.dealt)
            kinds |= set(ph[games].tolist())
            checked += len(games)
        a = np.zeros(B, np.int64)
        _seated_actions(st, strats, seating, seat_rs, live, mv, G.legal(st), a)
        G.step(st, a)
    assert checked >= 40 and dk.GUESS in kinds and (dk.QUESTION in kinds or dk.TARGET in kinds)
    how = np.concatenate(how)
    assert (how == 0).mean() >= 0.9, np.bincount(how)


def _target_position():
    """Three players; P2 asks P0 'how many 1s?' (P0 gives the elephant and lion 1), passes back
    the tiger 2 and 3; then P0's turn (it melds the 2s or asks)."""
    cards = spread()
    hands = {0: cards[:8], 1: cards[8:16], 2: cards[16:24]}
    _, st = position(hands, MISSING5, faceup=cards[24:], cur=2,
                     questions=[qc(ELEPHANT, 1), qc(LION, 1), qc(MONKEY, 2)])
    act(st, dk.A_TARGET + 0)
    act(st, dk.A_QUESTION + 0)
    assert st.g[0, dk.KCOUNT] == 2
    act(st, dk.A_CARD + card(TIGER, 2))
    act(st, dk.A_CARD + card(TIGER, 3))
    assert G.to_move(st)[0] == 0
    return st


def _zero_answer_position():
    """Two players, the last turn: P0 asks P1 'how many 3s?', P1 has none, so P0 draws the
    reserve's top card (the zebra 4, printed rule); the deck is used up and P0 is the first to
    guess. P0 knows its hand (the drawn card too), the face-up tiger 2, and that none of the
    five 3s is in P1's hand."""
    E, L, M, T, Z = ELEPHANT, LION, MONKEY, TIGER, ZEBRA
    mine = [card(E, 1), card(E, 2), card(L, 1), card(L, 4), card(M, 2), card(M, 5), card(T, 4),
            card(Z, 5)]
    p1 = [card(E, 4), card(E, 5), card(L, 2), card(L, 5), card(M, 1), card(M, 4), card(T, 1),
          card(T, 5)]
    up = [card(T, 2)]
    pile = [c for c in range(30) if c not in mine + p1 + up + MISSING5][::-1]
    _, st = position({0: mine, 1: p1}, MISSING5, faceup=up, players=2, pile=pile, qpos=33,
                     questions=[qc(E, 3), qc(L, 3), qc(M, 1)])
    assert phase(st) == dk.QUESTION
    act(st, dk.A_QUESTION + 2)
    assert st.g[0, dk.KCOUNT] == 0 and phase(st) == dk.GUESS and G.to_move(st)[0] == 0
    assert pile[0] == card(Z, 4) and st.loc[0, card(Z, 4)] == 0
    return st, mine + [card(Z, 4)], up


def test_worlds_keep_what_the_seat_learnt():
    """The target knows where the cards it gave are (P2 has not traded since); the asker of an
    empty answer knows the target holds none of the question's cards."""
    import copy
    from tests.worlds_check import check_worlds
    st = _target_position()
    given = [card(ELEPHANT, 1), card(LION, 1)]
    alt = copy.deepcopy(st)
    permute_hidden(alt, 0, 0, np.random.default_rng(1), same_animal=True, keep=given)
    check_worlds(G, st, alt, [0], worlds_per_game=6)
    w = G.determinize(st, np.zeros(200, np.int64), np.zeros(200, np.int64), deal_keys(200, 2))
    _world_invariants(st, np.zeros(200, np.int64), w)
    assert (w.loc[:, given] == 2).all() and (w.dealt == 0).all()
    assert len({w.loc[i].tobytes() for i in range(200)}) > 150

    st, mine, up = _zero_answer_position()
    threes = [card(a, 3) for a in range(5)]
    alt = copy.deepcopy(st)
    permute_hidden(alt, 0, 0, np.random.default_rng(2), same_animal=True, keep=threes)
    check_worlds(G, st, alt, [0], worlds_per_game=6)
    w = G.determinize(st, np.zeros(200, np.int64), np.zeros(200, np.int64), deal_keys(200, 3))
    _world_invariants(st, np.zeros(200, np.int64), w)
    assert (w.loc[:, threes] != 1).all() and (w.dealt == 0).all()
    # the reserve is the cards where the world put them, in a new order
    top = int(st.g[0, dk.DRAWPOS])
    assert all(sorted(w.pile[i, top:].tolist()) == np.flatnonzero(w.loc[i] == dk.DRAW).tolist()
               for i in range(200))


def test_worlds_of_two_player_draws_keep_the_own_card_and_deal_the_others():
    """Both players draw after a zero answer (P0 the reserve's top card, then P1 the next); at
    P0's turn its worlds keep its drawn card in its hand and deal P1's as one of the cards P0
    cannot tell apart (P1's hand, the reserve, the box), P1's hand one card larger, the draw row
    of P1 emptied of its card."""
    st, p0, pile = _two_player_ask()
    act(st, dk.A_QUESTION + 6 + TIGER * 36 + 1 * 6 + 4)    # answered 0: P0 draws pile[0]
    if phase(st) == dk.MELD:
        act(st, dk.A_ASK)
    assert phase(st) == dk.QUESTION and G.to_move(st)[0] == 1
    mine = {c for c in range(30) if st.loc[0, c] == 0}
    zero = [q for q in np.flatnonzero(G.legal(st)[0, dk.A_QUESTION:dk.A_CARD])
            if not cards_of(dk.QMASK[q]) & mine]
    assert zero
    act(st, dk.A_QUESTION + int(zero[0]))                  # answered 0: P1 draws pile[1]
    if phase(st) == dk.MELD:
        act(st, dk.A_ASK)
    assert G.to_move(st)[0] == 0 and st.loc[0, pile[0]] == 0 and st.loc[0, pile[1]] == 1
    N = 300
    w = G.determinize(st, np.zeros(N, np.int64), np.zeros(N, np.int64), deal_keys(N, 5))
    _world_invariants(st, np.zeros(N, np.int64), w)
    assert (w.loc[:, pile[0]] == 0).all()                  # P0's own draw: its hand
    assert (w.pp[:, 1, dk.HAND_N] == st.pp[0, 1, dk.HAND_N]).all()
    theirs = w.loc[:, pile[1]]
    assert set(theirs.tolist()) <= {1, dk.DRAW, dk.MISSING} and 1 in set(theirs.tolist())
    rows = w.hist[:, :int(st.g[0, dk.NH])]
    draws = rows[:, :, 0] == dk.H_DRAW
    assert (rows[draws & (rows[:, :, 1] == 1)][:, 6] == 0).all()
    assert (rows[draws & (rows[:, :, 1] == 0)][:, 6] == 1 << pile[0]).all()


def test_a_drawn_card_counts_as_seen_for_the_guesses():
    """Two players, the last two turns: P0's question is answered 0, it draws the tiger 4; P1
    asks P0 'how many 4s?' and gets it. Guessing the missing tiger, naive and collector (among
    the cards they never saw) never name the tiger 4: P0 saw it when it drew it."""
    x = card(TIGER, 4)
    unseen = [card(TIGER, 2), card(TIGER, 3), card(TIGER, 5)]        # in the reserve
    others = [c for c in range(30) if c not in MISSING5 + unseen + [x] and c // 6 != TIGER]
    p0 = [c for c in others if c % 6 != 3][:8]                       # no 4s
    p1 = [c for c in others if c not in p0][:8]
    pile = [x] + unseen + [c for c in others if c not in p0 + p1][:4]
    up = [c for c in range(30) if c not in MISSING5 + p0 + p1 + pile]
    _, st = position({0: p0, 1: p1}, MISSING5, faceup=up, players=2, pile=pile,
                     questions=EX1 + [qc(TIGER, 4), qc(LION, 4), qc(MONKEY, 1)], qpos=30)
    act(st, dk.A_QUESTION + 6 + TIGER * 36 + 1 * 6 + 4)    # "tiger 2, 3, 4, 5?": 0, draws
    assert st.loc[0, x] == 0
    if phase(st) == dk.MELD:
        act(st, dk.A_ASK)
    act(st, dk.A_QUESTION + 3)                             # P1: "how many 4s?": the tiger 4
    while phase(st) in (dk.PASS, dk.GIVE):
        act(st, int(np.flatnonzero(G.legal(st)[0])[0]))
    assert st.loc[0, x] == 1 and phase(st) == dk.GUESS and G.to_move(st)[0] == 0
    for _ in range(TIGER):
        act(st, dk.A_NO_GUESS)
    obs = G.observe(st, np.array([0])).freeze()
    assert obs.seen[0, x] and not obs.hand[0, x]
    keys = np.arange(400, dtype=np.uint64) * np.uint64(7919) + np.uint64(1)
    for s in (get_strategy(G.id, "naive")(), get_strategy(G.id, "collector")(max_unseen=6)):
        picks = {int(ask(s, G, st, [0], keys[i:i + 1].copy(), 2)[0]) for i in range(400)}
        assert dk.A_GUESS + 3 not in picks and len(picks) > 1, (s.name, picks)


def test_worlds_deal_as_the_rulebook_deals():
    """In the zero-answer position the chance that the elephant 3 is the missing elephant, and
    that the elephant 4 is in P1's hand, worked out from the printed deal (one card of each
    animal removed at random, the rest dealt at random) and the answer (P1 had no 3), by
    enumerating the box: every deal consistent with what P0 saw is equally likely."""
    import itertools
    from math import comb
    st, mine, up = _zero_answer_position()
    seen = set(mine) | set(up)
    unseen = [[card(a, n) for n in range(1, 7) if card(a, n) not in seen] for a in range(5)]
    e3, e4 = card(ELEPHANT, 3), card(ELEPHANT, 4)
    tot = p_e3 = p_e4 = 0.0
    for box in itertools.product(*unseen):
        threes_left = 5 - sum(1 for c in box if c % 6 == 2)
        rest = sum(map(len, unseen)) - 5
        ways = comb(rest - threes_left, 8)          # P1's 8 cards, none a 3; the reserve the rest
        tot += ways
        p_e3 += ways * (e3 in box)
        p_e4 += ways * (e4 not in box) * 8 / (rest - threes_left)
    p_e3, p_e4 = p_e3 / tot, p_e4 / tot
    N = 4000
    w = G.determinize(st, np.zeros(N, np.int64), np.zeros(N, np.int64), deal_keys(N, 11))
    for f, p in (((w.loc[:, e3] == dk.MISSING).mean(), p_e3), ((w.loc[:, e4] == 1).mean(), p_e4)):
        se = np.sqrt(p * (1 - p) / N)
        assert abs(f - p) < 4 * se, (f, p, se)


# ---- drama --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players,rules", [(2, {}), (3, {}), (5, {"final_meld": True})])
def test_drama_recounted_from_the_running_score(players, rules):
    """After every turn the running score is the melded cards' points (recounted from the table:
    3 / 5 / 7 for 3 / 4 / 5 of a number); at the end the final score (melds and guesses). The
    four drama columns of the outcome are those numbers."""
    B = 60
    keys = game_keys(41, players, B)
    st = G.init(G.make_rules(rules), players, keys.deal)
    strats = [get_strategy(G.id, n)() for n in ("naive", "collector", "deducer")]
    seat_rs = keys.seat.reshape(-1).copy()
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % 3
    runs = [[] for _ in range(B)]
    meld_value = {0: 0, 3: 3, 4: 5, 5: 7}

    def melded(b):
        return [sum(meld_value[int(sum(st.loc[b, card(a, n)] == dk.MELD0 + p for a in range(5)))]
                    for n in range(1, 7)) for p in range(players)]
    while True:
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        turns = st.g[:, dk.TURNS].copy()
        a = np.zeros(B, np.int64)
        _seated_actions(st, strats, seating, seat_rs, live, mv, G.legal(st), a)
        G.step(st, a)
        for b in live:
            if st.g[b, dk.TURNS] > turns[b]:
                runs[b].append(melded(b))
    out = G.outcome(st)
    changes = 0
    for b in range(B):
        final = [int(sum(meld_value[int(sum(st.loc[b, card(a, n)] == dk.MELD0 + p for a in range(5)))]
                         for n in range(1, 7))
                     + sum((5 if st.loc[b, card(a, int(st.guess[b, p, a]))] == dk.MISSING else -3)
                           for a in range(5) if st.guess[b, p, a] > 0)) for p in range(players)]
        assert len(runs[b]) == 12 and final == out.score[b].tolist()
        changes += assert_drama(out, b, runs[b] + [final], lower_wins=False)
    assert changes > 0


# ---- searchable rules ---------------------------------------------------------------------------------

def test_every_searchable_value_makes_rules_that_play():
    """Each declared search value of each field (the others printed) is valid rules and a small
    batch plays to the end, at every player count."""
    check_search_space(G, (2, 3, 4, 5))


# ---- the running score (issue 16: what a depth-limited search scores its worlds by) -----------------

def _running_recount(st, b, players):
    """Plain Python, from "Ending the Game and Winning": each melded rank 3 / 5 / 7 for 3 / 4 / 5
    cards, each guess made so far +5 right (the card is in the box), -3 wrong; cards in hand
    nothing."""
    out = []
    for p in range(players):
        pts = 0
        for n in range(1, 7):
            k = sum(1 for a in range(5) if st.loc[b, card(a, n)] == dk.MELD0 + p)
            pts += {0: 0, 3: 3, 4: 5, 5: 7}[k]
        for a in range(5):
            gnum = int(st.guess[b, p, a])
            if gnum > 0:
                pts += 5 if st.loc[b, card(a, gnum)] == dk.MISSING else -3
        out.append(pts)
    return out


def test_running_score_mid_game_melds_then_the_guesses_as_they_are_made():
    # seat 0 holds four 2s and three 3s; two turns of question cards are left (qpos 30 of 36)
    mine = [card(a, 2) for a in range(4)] + [card(a, 3) for a in range(3)] + [card(ZEBRA, 5)]
    rest = [c for c in range(30) if c not in MISSING5 and c not in mine]
    hands = {0: mine, 1: rest[:8], 2: rest[8:16]}
    _, st = position(hands, MISSING5, faceup=rest[16:], qpos=30)
    assert G.running_score(st).tolist() == [[0, 0, 0]]
    act(st, dk.A_MELD + 1)                   # the four 2s: 5
    assert G.running_score(st).tolist() == [[5, 0, 0]]
    act(st, dk.A_MELD + 2)                   # the three 3s: 3
    assert G.running_score(st).tolist() == [[8, 0, 0]] == [_running_recount(st, 0, 3)]
    # the two last turns (no more melds), to the guesses
    while phase(st) != dk.GUESS:
        legal = G.legal(st)[0]
        a = dk.A_ASK if phase(st) == dk.MELD else int(np.flatnonzero(legal)[0])
        act(st, a)
        assert G.running_score(st).tolist() == [_running_recount(st, 0, 3)]
    assert st.g[0, dk.GUESSER] == 0 and st.g[0, dk.GANIMAL] == ELEPHANT
    before = G.running_score(st)[0].tolist()
    act(st, dk.A_GUESS + 5)                  # elephant 6: in the box, +5
    act(st, dk.A_GUESS + 0)                  # lion 1: wrong, -3
    now = G.running_score(st)[0].tolist()
    assert now == [before[0] + 5 - 3, before[1], before[2]] == _running_recount(st, 0, 3)
    act(st, dk.A_NO_GUESS)                   # monkey: no guess, nothing
    assert G.running_score(st)[0].tolist() == now
    while phase(st) != dk.OVER:
        act(st, dk.A_NO_GUESS)
    assert G.running_score(st).tolist() == G.outcome(st).score.tolist() == [now]

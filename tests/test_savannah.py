"""Savannah: the rulebook's worked examples (B: phase one; C: phase two) from constructed
positions, each rule on its own, the unbounded grid, hidden information, and properties over many
random games checked against an independent re-implementation of the rules (below)."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import get_game
from safari_sim.games.savannah import card_of, turn as T
from safari_sim.games.savannah.rules import card_name
from strategies import get_strategy

G = get_game("savannah")
R = G.make_rules()


def C(name, second=False):
    return card_of(name, second)


def cards(*names):
    """Card ids for names, taking the second copy when a name repeats."""
    seen, out = set(), []
    for n in names:
        out.append(C(n, n in seen))
        seen.add(n)
    return out


def cands(st, b=0):
    o = G.observe(st, np.array([b]))
    n = int(o.n_cand[0])
    return [(int(o.slot[0, j]), int(o.card[0, j]), int(o.y[0, j]), int(o.x[0, j]),
             int(o.points[0, j])) for j in range(n)]


def play(st, card, y, x):
    """The current player plays ``card`` at (y, x); returns the points the candidate listed and
    the player's score change."""
    p = int(G.to_move(st)[0])
    before = int(st.score[0, p])
    found = [j for j, c in enumerate(cands(st)) if c[1] == card and (c[2], c[3]) == (y, x)]
    assert found, f"{card_name(card)} at ({y},{x}) should be legal"
    j = found[0]
    listed = cands(st)[j][4]
    assert G.legal(st)[0, j]
    G.step(st, np.array([j]))
    return listed, int(st.score[0, p]) - before


def legal_at(st, card, y, x):
    return any(c[1] == card and (c[2], c[3]) == (y, x) for c in cands(st))


def conserved(st, b=0):
    z = G.zones(st, b)
    allc = sorted(c for zone in z.values() for c in zone)
    assert allc == list(range(st.rules.n_cards)), z


# ---- Example B (phase one), three players: Debra seat 0, Kevin 1, Amy 2 --------------------------

def example_b():
    E = {"E2": C("2-Elephant"), "E2b": C("2-Elephant", True)}
    layout = {(-1, 0): C("4-Lion"), (0, 1): C("5-Elephant"), (1, 2): E["E2"],
              (2, 2): C("2-Tiger"), (3, 3): C("2-Lion"), (3, 4): C("2-Tiger", True)}
    hands = [[C("3-Elephant"), C("2-Monkey"), C("1-Zebra"), C("3-Zebra")],
             [C("2-Zebra"), C("1-Monkey"), C("3-Monkey"), C("4-Monkey")],
             [E["E2b"], C("6-Lion"), C("5-Monkey"), C("6-Monkey")]]
    pile1 = [C("2-Explorer"), C("3-Explorer"), C("1-Tiger"), C("3-Tiger"), C("4-Tiger"),
             C("5-Tiger")]
    pile2 = [C("6-Tiger"), C("1-Explorer"), C("6-Zebra")]
    st = G.arrange(R, 3, layout, hands, pile1, pile2, phase=T.ONE, cur=0)
    return st


def test_example_b_phase_one_scores():
    st = example_b()
    conserved(st)
    # Debra: 3-Elephant, 2 for the row of elephants and 2 for the column of elephants
    assert play(st, C("3-Elephant"), 1, 1) == (4, 4)
    assert st.g[0, T.KIND] == T.PLACE and G.to_move(st)[0] == 1
    # Kevin: 2-Zebra, 3 for the row of 2s
    assert play(st, C("2-Zebra"), 3, 5) == (3, 3)
    # Amy: 2-Elephant, 2 for the row of 2s and 3 for the column of elephants
    assert play(st, C("2-Elephant", True), 2, 1) == (5, 5)
    # Debra: 2-Monkey, 3 for the column of 2s and 1 for the all-different row 5-Elephant 2-Monkey
    assert play(st, C("2-Monkey"), 0, 2) == (4, 4)
    conserved(st)
    assert st.g[0, T.N_FD] == 0, "no space was unplayable so far"
    # the text has Amy follow (Kevin's turn is not told): give Amy the turn
    st.g[0, T.CUR] = 2
    G.relist(st)
    # Amy: 6-Lion, 2 for the column of lions and 2 for extending the all-different row
    listed, gained = play(st, C("6-Lion"), 0, 0)
    assert listed == 4
    # ...and the space at the left of the top elephants' row is no longer playable: a lion (its
    # column) and an elephant (its row) at once. One point, and a card from each pile to choose.
    assert gained == 4 + 1
    assert st.g[0, T.KIND] == T.KEEP and G.to_move(st)[0] == 2
    o = G.observe(st, np.array([0]))
    assert o.kind[0] == 1 and o.n_cand[0] == 2
    assert (o.card[0, 0], o.card[0, 1]) == (C("3-Explorer"), C("6-Zebra"))
    assert (o.y[0, 0], o.x[0, 0]) == (1, 0)
    conserved(st)
    # keep the 2nd pile's 6-Zebra (back on top of the 1st pile); 3-Explorer goes face down
    G.step(st, np.array([1]))
    assert st.board[0, st.cell(1, 0)] == -1                      # BLOCKED
    assert st.fd_card[0, 0] == C("3-Explorer") and st.g[0, T.N_FD] == 1
    # Step D: Amy draws the top of the 1st pile, the card she kept
    assert C("6-Zebra") in st.hand[0, 2].tolist()
    assert (st.g[0, T.N1], st.g[0, T.N2]) == (1, 2) and st.g[0, T.PHASE] == T.ONE
    assert G.to_move(st)[0] == 0
    assert st.score[0].tolist() == [8, 3, 10]
    conserved(st)
    # the blocked space takes no card now
    assert not any((c[2], c[3]) == (1, 0) for c in cands(st))


# ---- Example C (phase two): Kevin seat 0, Debra 1, Amy 2 -----------------------------------------

def example_c():
    layout = {(0, 1): C("6-Elephant"), (0, 2): C("5-Elephant"),
              (1, 0): C("1-Elephant"), (1, 1): C("3-Lion"), (1, 2): C("6-Monkey"),
              (2, 0): C("2-Lion"), (2, 1): C("2-Monkey"), (2, 2): C("2-Zebra")}
    hands = [[C("2-Tiger"), C("1-Tiger")], [C("4-Zebra"), C("3-Tiger")],
             [C("4-Elephant"), C("5-Tiger")]]
    return G.arrange(R, 3, layout, hands, pile1=[C("6-Tiger"), C("4-Tiger")], phase=T.TWO, cur=0)


def test_example_c_phase_two_removals():
    st = example_c()
    conserved(st)
    # Kevin: 2-Tiger ends the row of 2s: the whole matching line goes, 4 points
    assert play(st, C("2-Tiger"), 2, 3) == (4, 4)
    table = {tuple(map(int, st.xy(q))) for q in st.up_pos[0, :st.g[0, T.N_UP]]}
    assert table == {(0, 1), (0, 2), (1, 0), (1, 1), (1, 2)}
    conserved(st)
    # Debra: 4-Zebra makes the all-different row 1-E 3-L 6-M 4-Z: all but her card go, 3 points
    assert play(st, C("4-Zebra"), 1, 3) == (3, 3)
    table = {tuple(map(int, st.xy(q))) for q in st.up_pos[0, :st.g[0, T.N_UP]]}
    assert table == {(0, 1), (0, 2), (1, 3)}
    # Amy: 4-Elephant crosses the elephants' row and the 4s' column: both go, 4 points
    assert play(st, C("4-Elephant"), 0, 3) == (4, 4)
    assert st.g[0, T.N_UP] == 0
    # "The board is now empty": the game is over
    assert G.to_move(st)[0] == -1 and st.g[0, T.CLEARED] == 1
    assert st.score[0].tolist() == [4, 3, 4]
    assert G.outcome(st).win[0].tolist() == [0.5, 0, 0.5]
    conserved(st)


# ---- Beginning the First Phase -----------------------------------------------------------------

def test_the_66_cards():
    """Components: five animals with two sets of 1-6 each, and one set of explorer cards 1-6
    (a sixth kind in Savannah, see docs/rules/savannah.md)."""
    from safari_sim.games.savannah.rules import copies
    names = [card_name(c) for c in range(66)]
    count = {}
    for n in names:
        count[n] = count.get(n, 0) + 1
    for a in ("Elephant", "Lion", "Monkey", "Tiger", "Zebra"):
        for k in range(1, 7):
            assert count.pop(f"{k}-{a}") == 2
    for k in range(1, 7):
        assert count.pop(f"{k}-Explorer") == 1
    assert not count
    assert copies(R).sum() == 66 and copies(G.make_rules({"explorer_cards": False})).sum() == 60
    # the engine reads animal and number off the card the way the names do
    for c in range(66):
        assert (c // 12, c % 6 + 1) == (ANIMAL_NAMES.index(kind(c)[0]), kind(c)[1])
        assert card_of(card_name(c), c % 12 >= 6) == c


def test_deal_piles_and_opening():
    st = G.init(R, 3, deal_keys(5, 3))
    assert (st.hand_n == 5).all()
    n1, n2 = R.pile_sizes(3)
    assert (n1, n2) == (26, 25) and (st.g[:, T.N1] == 26).all() and (st.g[:, T.N2] == 25).all()
    for b in range(5):
        conserved(st, b)
    # the dealer (seat 0) places any card: one space, each card of the hand
    c = cands(st)
    assert len(c) == 5 and {(y, x) for _, _, y, x, _ in c} == {(0, 0)}
    G.step(st, np.zeros(5, np.int64))
    # seat 1: touching that card on one corner only
    assert {(y, x) for _, _, y, x, _ in cands(st)} == {(-1, -1), (-1, 1), (1, -1), (1, 1)}
    first = [j for j, cc in enumerate(cands(st)) if (cc[2], cc[3]) == (1, 1)][0]
    G.step(st, np.full(5, first))
    # seat 2: on a corner of exactly one card, touching no other (so not (0, 1) / (1, 0) etc.)
    assert {(y, x) for _, _, y, x, _ in cands(st)} == {(-1, -1), (-1, 1), (1, -1), (2, 0), (2, 2),
                                                       (0, 2)}
    G.step(st, np.zeros(5, np.int64))
    # no draw in the opening; the game begins with the dealer
    assert (st.hand_n == 4).all() and (G.to_move(st) == 0).all()
    assert (st.g[:, T.PHASE] == T.ONE).all() and (st.score == 0).all()


def test_opening_draw_option():
    r = G.make_rules({"opening_draw": True})
    st = G.init(r, 2, deal_keys(3, 3))
    G.step(st, np.zeros(3, np.int64))
    G.step(st, np.zeros(3, np.int64))
    assert (st.hand_n == 5).all()


# ---- Step A: placement legality ----------------------------------------------------------------

@pytest.mark.parametrize("line, card, ok, pts", [
    (["1-Elephant", "2-Elephant"], "3-Elephant", True, 3),     # A: same animal
    (["1-Elephant", "2-Elephant"], "2-Elephant", False, 0),    # number repeated
    (["1-Elephant", "2-Elephant"], "3-Lion", False, 0),
    (["2-Elephant", "2-Lion"], "2-Monkey", True, 3),           # B: same number
    (["2-Elephant", "2-Lion"], "2-Elephant", False, 0),        # animal repeated
    (["1-Elephant", "2-Lion"], "3-Monkey", True, 2),           # C: all different, one less
    (["1-Elephant", "2-Lion"], "3-Elephant", False, 0),
    (["1-Elephant", "2-Lion"], "2-Monkey", False, 0),
    (["4-Lion"], "4-Lion", False, 0),                           # the other copy: identical
    (["4-Lion"], "4-Explorer", True, 2),                        # explorers: a sixth animal
    (["4-Lion"], "1-Explorer", True, 1),
])
def test_line_rules(line, card, ok, pts):
    layout = {(0, i): c for i, c in enumerate(cards(*line))}
    c = C(card, card in line)
    st = G.arrange(R, 2, layout, [[c], [C("6-Zebra")]], pile1=[C("5-Zebra")], pile2=[])
    assert legal_at(st, c, 0, len(line)) == ok
    assert legal_at(st, c, 0, -1) == ok                         # either end of the row
    if ok:
        assert [cc[4] for cc in cands(st) if (cc[2], cc[3]) == (0, len(line))] == [pts]
    # on a corner only, any card goes, for no points
    assert legal_at(st, c, 1, len(line)) and legal_at(st, c, -1, -1)
    assert not legal_at(st, c, 2, 0) and not legal_at(st, c, 0, 0)   # not touching / taken


def test_both_lines_must_hold_and_gaps_join_lines():
    # a card at (0,0) joins the row 2-L 3-L and the column under 1-L
    layout = {(-1, 0): C("1-Lion"), (0, 1): C("2-Lion"), (0, 2): C("3-Lion")}
    h = [C("4-Lion"), C("1-Lion", True), C("5-Elephant")]
    st = G.arrange(R, 2, layout, [h, [C("6-Zebra")]], pile1=[C("5-Zebra")], pile2=[])
    assert [c[4] for c in cands(st) if (c[1], c[2], c[3]) == (C("4-Lion"), 0, 0)] == [3 + 2]
    assert not legal_at(st, C("1-Lion", True), 0, 0)   # the row is fine, the column is not
    assert not legal_at(st, C("5-Elephant"), 0, 0)     # the column is fine, the row is not
    # a space between two runs joins them into one line: 2-L 3-L _ 5-L
    layout = {(0, 0): C("2-Lion"), (0, 1): C("3-Lion"), (0, 3): C("5-Lion")}
    st = G.arrange(R, 2, layout, [[C("4-Lion"), C("6-Lion"), C("4-Tiger")], [C("6-Zebra")]],
                   pile1=[C("5-Zebra")], pile2=[])
    assert [c[4] for c in cands(st) if (c[1], c[2], c[3]) == (C("4-Lion"), 0, 2)] == [4]
    assert not legal_at(st, C("4-Tiger"), 0, 2)


# ---- Step C: unplayable spaces -----------------------------------------------------------------

def test_unplayable_when_only_cards_on_the_table_fit():
    # (0,2) must be an elephant with a number other than 1-2 (row) and a 3 (column of 3s)...:
    # the only fitting card type is 3-Elephant; both copies face up elsewhere -> unplayable.
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("3-Lion"),
              (5, 5): C("3-Elephant"), (7, 7): C("3-Elephant", True)}
    # (the far cards just lie on the table; this test is about the definition)
    hand = [C("3-Tiger"), C("6-Zebra")]
    st = G.arrange(R, 2, layout, [hand, [C("6-Monkey")]], pile1=[C("5-Zebra"), C("4-Zebra")],
                   pile2=[C("1-Zebra")])
    # play 3-Tiger at (2,2): column 3-L 3-T (B); now (0,2) needs a 3, an elephant, not L/T
    play(st, C("3-Tiger"), 2, 2)
    assert st.g[0, T.KIND] == T.KEEP
    assert {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]} == {(0, 2)}
    # with one 3-Elephant in a hand instead of on the table, the space is playable
    layout2 = dict(layout)
    del layout2[(7, 7)]
    st = G.arrange(R, 2, layout2, [hand, [C("3-Elephant", True)]],
                   pile1=[C("5-Zebra"), C("4-Zebra")], pile2=[C("1-Zebra")])
    play(st, C("3-Tiger"), 2, 2)
    assert st.g[0, T.KIND] == T.PLACE and st.g[0, T.N_UNPL] == 0


def buried_position(mode, buried_by):
    """(0,2) takes only a 3-Elephant once 3-Tiger goes to (2,2); one 3-Elephant is face up, the
    other lies face down (buried by seat ``buried_by``)."""
    r = G.make_rules({"buried_on_table": mode})
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("3-Lion"),
              (5, 5): C("3-Elephant")}
    return G.arrange(r, 2, layout, [[C("3-Tiger"), C("6-Zebra")], [C("6-Monkey")]],
                     pile1=[C("5-Zebra"), C("4-Zebra")], pile2=[C("1-Zebra")],
                     face_down={(5, 6): C("3-Elephant", True)}, buried_by={(5, 6): buried_by})


@pytest.mark.parametrize("mode, buried_by, claimed", [
    ("none", 0, False),     # the default: only face-up cards are "already on the table"
    ("own", 0, True),       # the finder buried it: it knows the card is on the table
    ("own", 1, False),      # the other player's face-down card: the finder cannot know it
    ("all", 1, True),
])
def test_face_down_cards_on_the_table(mode, buried_by, claimed):
    st = buried_position(mode, buried_by)
    play(st, C("3-Tiger"), 2, 2)
    found = {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]}
    assert (st.g[0, T.KIND] == T.KEEP) == claimed
    assert found == ({(0, 2)} if claimed else set())
    assert int(st.score[0, 0]) == 2 + claimed


def test_a_card_buried_now_can_make_another_space_unplayable():
    """With ``own``, the card a claim buries counts at once: (-6,-6) takes only the single
    1-Explorer, which the first claim buries, so the finder claims (-6,-6) too."""
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("3-Lion"),
              (5, 5): C("3-Elephant"), (7, 7): C("3-Elephant", True),
              (-6, -5): C("2-Explorer"), (-6, -4): C("3-Explorer"), (-5, -6): C("1-Lion"),
              (-4, -6): C("1-Monkey")}
    for mode, n in (("none", 1), ("own", 2), ("all", 2)):
        r = G.make_rules({"buried_on_table": mode})
        st = G.arrange(r, 2, layout, [[C("3-Tiger"), C("5-Zebra")], [C("6-Monkey")]],
                       pile1=[C("4-Zebra"), C("6-Zebra")],
                       pile2=[C("2-Zebra"), C("1-Explorer")])
        play(st, C("3-Tiger"), 2, 2)
        o = G.observe(st, np.array([0]))
        assert (o.card[0, 0], o.card[0, 1]) == (C("6-Zebra"), C("1-Explorer"))
        G.step(st, np.array([0]))      # bury the 1-Explorer
        claimed = 1
        while st.g[0, T.KIND] == T.KEEP:
            assert {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]} == {
                (-6, -6)}
            G.step(st, np.array([0]))
            claimed += 1
        assert claimed == n and st.g[0, T.N_FD] == n and int(st.score[0, 0]) == 2 + n
        conserved(st)


def two_unplayable(**rules):
    """Lions' columns above and below a gap at (0,0)-(1,0); 6-Elephant at (1,1) makes (1,0) need
    an elephant (row) and a lion (column); (0,0) needs both already."""
    r = G.make_rules(rules)
    layout = {(-2, 0): C("1-Lion"), (-1, 0): C("2-Lion"), (0, 1): C("1-Elephant"),
              (0, 2): C("2-Elephant"), (2, 0): C("3-Lion"), (3, 0): C("4-Lion"),
              (1, 2): C("5-Elephant")}
    hand = [C("6-Elephant"), C("6-Zebra")]
    return r, G.arrange(r, 2, layout, [hand, [C("6-Monkey")]],
                        pile1=[C("1-Zebra"), C("2-Zebra")],
                        pile2=[C("3-Zebra"), C("4-Zebra"), C("5-Zebra")])


def test_every_unplayable_space_is_claimed_one_by_one():
    r, st = two_unplayable()
    listed, gained = play(st, C("6-Elephant"), 1, 1)
    assert listed == 4
    spaces = {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]}
    assert spaces == {(0, 0), (1, 0)}
    claimed = 0
    while st.g[0, T.KIND] == T.KEEP:
        G.step(st, np.array([0]))
        claimed += 1
        conserved(st)
    assert claimed == 2 == st.g[0, T.N_FD] and int(st.score[0, 0]) == 4 + 2
    assert st.g[0, T.N2] == 1                   # a card from the 2nd pile for each
    # the rules field: at most one a turn
    r, st = two_unplayable(max_claims=1)
    play(st, C("6-Elephant"), 1, 1)
    G.step(st, np.array([0]))
    assert st.g[0, T.KIND] == T.PLACE and st.g[0, T.N_FD] == 1
    # no claim without a card in the 2nd pile
    r = G.make_rules()
    st = G.arrange(r, 2, {(k[0], k[1]): v for k, v in zip(
        [(-2, 0), (-1, 0), (0, 1), (0, 2), (2, 0), (3, 0), (1, 2)],
        cards("1-Lion", "2-Lion", "1-Elephant", "2-Elephant", "3-Lion", "4-Lion",
              "5-Elephant"))}, [[C("6-Elephant")], [C("6-Monkey")]],
        pile1=[C("1-Zebra"), C("2-Zebra")], pile2=[])
    play(st, C("6-Elephant"), 1, 1)
    assert st.g[0, T.KIND] == T.PLACE and st.score[0, 0] == 4


# ---- Ending the First Phase / the Second Phase -------------------------------------------------

def test_phase_one_ends_with_the_first_pile_and_spaces_reopen():
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant")}
    st = G.arrange(R, 2, layout, [[C("3-Elephant"), C("1-Lion")], [C("6-Zebra")]],
                   pile1=[C("5-Zebra")], pile2=[C("1-Zebra"), C("2-Zebra")],
                   face_down={(1, 1): C("4-Tiger")})
    play(st, C("3-Elephant"), 0, 2)
    assert st.g[0, T.PHASE] == T.TWO and st.g[0, T.N_FD] == 0
    assert st.board[0, st.cell(1, 1)] == -2                    # reopened (OPEN)
    assert sorted(st.pile1[0, :st.g[0, T.N1]].tolist()) == sorted(
        [C("1-Zebra"), C("2-Zebra"), C("4-Tiger")]) and st.g[0, T.N2] == 0
    assert G.to_move(st)[0] == 1                                # play continues with the next
    assert legal_at(st, C("6-Zebra"), 1, 1)
    conserved(st)
    # "Shuffle these cards into the second deck": the new draw pile's order depends on chance
    orders = set()
    for seed in range(12):
        st = G.arrange(R, 2, layout, [[C("3-Elephant"), C("1-Lion")], [C("6-Zebra")]],
                       pile1=[C("5-Zebra")], pile2=[C("1-Zebra"), C("2-Zebra")],
                       face_down={(1, 1): C("4-Tiger")}, seed=seed)
        play(st, C("3-Elephant"), 0, 2)
        orders.add(tuple(st.pile1[0, :st.g[0, T.N1]].tolist()))
    assert len(orders) > 2


def test_phase_two_ends_when_every_hand_is_empty():
    layout = {(0, 0): C("1-Elephant")}
    st = G.arrange(R, 2, layout, [[C("3-Tiger")], [C("6-Zebra")]], phase=T.TWO)
    play(st, C("3-Tiger"), 1, 1)        # a corner: nothing removed
    assert G.to_move(st)[0] == 1
    play(st, C("6-Zebra"), -1, -1)
    assert G.to_move(st)[0] == -1 and st.g[0, T.CLEARED] == 0 and st.g[0, T.N_UP] == 3
    # a player with no cards is skipped
    st = G.arrange(R, 3, layout, [[C("3-Tiger")], [], [C("6-Zebra")]], phase=T.TWO)
    play(st, C("3-Tiger"), 1, 1)
    assert G.to_move(st)[0] == 2


def test_phase_two_single_line_all_different_keeps_the_played_card():
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Lion")}
    st = G.arrange(R, 2, layout, [[C("3-Monkey")], [C("6-Zebra")]], pile1=[C("4-Tiger")],
                   phase=T.TWO)
    assert play(st, C("3-Monkey"), 0, 2) == (2, 2)
    assert st.g[0, T.N_UP] == 1 and st.board[0, st.cell(0, 2)] == C("3-Monkey") + 1
    assert C("4-Tiger") in st.hand[0, 0].tolist()              # draw a card to end the turn
    # a crossing of two all-different lines: all but the played card
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Lion"), (1, 2): C("4-Tiger"),
              (2, 2): C("5-Zebra")}
    st = G.arrange(R, 2, layout, [[C("3-Monkey")], [C("6-Zebra")]], phase=T.TWO)
    assert play(st, C("3-Monkey"), 0, 2) == (4, 4)
    assert st.g[0, T.N_UP] == 1
    # a crossing of a matching row (elephants) and an all-different column: "at least one of
    # them is a matching line": both lines go, the played card too (3 + 2 - 1 shared = 4)
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("4-Lion"),
              (3, 3): C("6-Zebra")}
    st = G.arrange(R, 2, layout, [[C("3-Elephant")], [C("6-Monkey")]], phase=T.TWO)
    assert play(st, C("3-Elephant"), 0, 2) == (4, 4)
    assert st.g[0, T.N_UP] == 1 and st.board[0, st.cell(3, 3)] == C("6-Zebra") + 1
    conserved(st)


# ---- The Playing Space: no borders -------------------------------------------------------------

def test_a_diagonal_of_every_card_fits():
    # the most spread-out layout there is: every card on one diagonal, touching by corners
    deck = list(range(66))
    layout = {(i, i): deck[i] for i in range(65)}
    st = G.arrange(R, 2, layout, [[deck[65]], []], phase=T.TWO)
    spots = {(c[2], c[3]) for c in cands(st)}
    assert (65, 65) in spots and (-1, -1) in spots and (64, 63) in spots
    assert st.S >= 2 * 66 + 3
    play(st, deck[65], 65, 65)          # the farthest space there can ever be
    assert st.g[0, T.ERR] == 0


class Farthest:
    """Always the candidate farthest down and right: stretches the layout as far as it goes."""
    label = "farthest"

    def reset(self, batch, n_players):
        pass

    def act(self, obs, legal, rng):
        return np.argmax(np.where(obs.valid, obs.y + obs.x, -10**6), axis=1)


def test_layout_stretched_to_the_limit_plays_out():
    res = play_batch(G, R, 2, [Farthest()], np.zeros((8, 2), int), game_keys(1, 2, 8),
                     log=True)
    ev = res.state.ev
    reach = max(int(ev[b, i, 3]) + int(ev[b, i, 4]) for b in range(8)
                for i in range(res.state.g[b, T.NEV]) if ev[b, i, 0] == T.E_PLACE)
    assert reach >= 60 and (res.state.g[:, T.ERR] == 0).all()


# ---- An independent reading of the rules, to check whole games against -----------------------

ANIMAL_NAMES = ["Elephant", "Lion", "Monkey", "Tiger", "Zebra", "Explorer"]
COPIES = {(a, n): (1 if a == "Explorer" else 2) for a in ANIMAL_NAMES for n in range(1, 7)}


def kind(c):
    """(animal, number) of card c, read from its printed name."""
    n, a = card_name(c).split("-")
    return a, int(n)


def line_rule(line):
    """(obeys A, B or C, matches in a feature) for a list of (animal, number)."""
    an = {a for a, _ in line}
    nn = {n for _, n in line}
    a_ = len(an) == 1 and len(nn) == len(line)
    b_ = len(nn) == 1 and len(an) == len(line)
    c_ = len(an) == len(line) and len(nn) == len(line)
    return a_ or b_ or c_, a_ or b_


def runs(board, y, x, card=None):
    """The row and the column through (y, x) (with ``card`` there if given), as lists of spaces."""
    out = []
    for dy, dx in ((0, 1), (1, 0)):
        line = [(y, x)]
        for s in (-1, 1):
            k = 1
            while (y + s * k * dy, x + s * k * dx) in board:
                line.append((y + s * k * dy, x + s * k * dx))
                k += 1
        out.append(line)
    return out


def fits(board, y, x, kd):
    look = lambda sp: kd if sp == (y, x) else kind(board[sp])  # noqa: E731
    for line in runs(board, y, x):
        if len(line) > 1 and not line_rule([look(sp) for sp in line])[0]:
            return False
    return True


def touching(board, y, x):
    return [(y + dy, x + dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dy or dx) and (y + dy, x + dx) in board]


def open_spaces(board, blocked):
    return {(y + dy, x + dx) for (y, x) in board for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (y + dy, x + dx) not in board and (y + dy, x + dx) not in blocked}


def unplayable(board, blocked):
    up = {}
    for c in board.values():
        up[kind(c)] = up.get(kind(c), 0) + 1
    return {sp for sp in open_spaces(board, blocked)
            if not any(fits(board, *sp, kd) for kd, n in COPIES.items() if up.get(kd, 0) < n)}


def legal_placements(board, blocked, hand, n_placed, n_players):
    """Every (card, space) the rules allow (the engine's list must be exactly this)."""
    if not board:
        return {(c, "first") for c in hand}
    out = set()
    for y, x in open_spaces(board, blocked):
        t = touching(board, y, x)
        if n_placed < n_players:      # the opening: one card, on one corner
            if len(t) == 1 and t[0][0] != y and t[0][1] != x:
                out |= {(c, (y, x)) for c in hand}
            continue
        out |= {(c, (y, x)) for c in hand if fits(board, y, x, kind(c))}
    return out


def replay(ev, n_players, n1, n2, hand_size=5):
    """Re-play game's event log with the reading above; returns the recounted scores. Checks
    every placement is legal, scores as the text says, and every unplayable space (while the 2nd
    pile has cards) is found; who plays when (the dealer, then to the left; in phase two, the
    next player with cards); that phase one lasts exactly until Step D takes the 1st pile's last
    card; and that the game ends exactly when the table is clear or every hand is empty."""
    board, blocked = {}, set()
    score = [0] * n_players
    hands = [hand_size] * n_players
    placed, phase, due = 0, 1, set()
    turns1 = 0                  # phase-one turns (each ends with Step D drawing from the 1st pile)
    draw2 = n2                  # phase two's draw pile: the 2nd pile and the buried cards
    expect = 0                  # the seat to play next
    should_end = got_end = False
    for t, seat, a, b_, c, d, e in ev:
        assert not got_end, "events after the end"
        assert t == T.E_END or not should_end, "the game goes on after it should have ended"
        if t == T.E_PLACE:
            if due:   # the previous player left unplayable spaces unclaimed with cards to spare
                raise AssertionError(f"unclaimed unplayable spaces {due}")
            assert seat == expect, ("turn order", seat, expect)
            assert hands[seat] > 0
            y, x, card = int(b_), int(c), int(a)
            assert (y, x) not in board and (y, x) not in blocked
            if placed == 0:
                pass
            elif placed < n_players:
                tt = touching(board, y, x)
                assert len(tt) == 1 and tt[0][0] != y and tt[0][1] != x, "opening: one corner"
            else:
                assert touching(board, y, x), "must touch a card"
            board[(y, x)] = card
            hands[seat] -= 1
            lines = [ln for ln in runs(board, y, x) if len(ln) > 1]
            rules = [line_rule([kind(board[sp]) for sp in ln]) for ln in lines]
            assert all(ok for ok, _ in rules), "every line obeys A, B or C"
            if placed < n_players:
                pts = 0
            elif phase == 1:
                pts = sum(len(ln) if m else len(ln) - 1 for ln, (_, m) in zip(lines, rules))
            else:
                gone = set()
                for ln in lines:
                    gone |= set(ln)
                if lines and not any(m for _, m in rules):
                    gone.discard((y, x))
                for sp in gone:
                    del board[sp]
                pts = len(gone)
                assert pts == e
            assert pts == d, (pts, d)
            score[seat] += pts
            placed += 1
            if placed <= n_players:                 # the opening: no draw, then the dealer
                expect = placed % n_players
            elif phase == 1:
                assert turns1 < n1, "a phase-one turn after the 1st pile ran out"
                turns1 += 1
                hands[seat] += 1                    # Step D
                expect = (seat + 1) % n_players
                found = unplayable(board, blocked)
                due = found if len(found) <= n2 else set()
            else:
                if draw2:
                    draw2 -= 1
                    hands[seat] += 1
                should_end = not board or not any(hands)
                if not should_end:
                    expect = next((seat + i) % n_players for i in range(1, n_players + 1)
                                  if hands[(seat + i) % n_players])
        elif t == T.E_CLAIM:
            y, x = int(a), int(b_)
            assert phase == 1 and (y, x) in unplayable(board, blocked)
            due.discard((y, x))
            blocked.add((y, x))
            n2 -= 1
            score[seat] += e
        elif t == T.E_PHASE2:
            assert not due
            assert phase == 1 and turns1 == n1, "phase one ends when the 1st pile runs out"
            assert int(a) == draw2, "the new draw pile: the 2nd pile and the buried cards"
            blocked.clear()
            phase = 2
        elif t == T.E_END:
            assert phase == 2 and should_end, "the game ends only with a clear table or no cards"
            assert bool(a) == (not board)
            got_end = True
    assert got_end, "the game ended"
    return score


def engine_placements(st, b):
    """{(card, space): points listed} of the player to move in game b."""
    o = G.observe(st, np.array([b]))
    out = {}
    for j in range(int(o.n_cand[0])):
        sp = (int(o.y[0, j]), int(o.x[0, j]))
        out[(int(o.card[0, j]), "first" if st.g[b, T.N_UP] == 0 else sp)] = int(o.points[0, j])
    return out


def ref_points(board, y, x, card, phase):
    """What playing ``card`` at (y, x) scores: phase one's lines, phase two's removals."""
    b2 = dict(board)
    b2[(y, x)] = card
    lines = [ln for ln in runs(b2, y, x) if len(ln) > 1]
    rules = [line_rule([kind(b2[sp]) for sp in ln]) for ln in lines]
    if phase == 1:
        return sum(len(ln) if m else len(ln) - 1 for ln, (_, m) in zip(lines, rules))
    gone = set().union(*lines) if lines else set()
    if lines and not any(m for _, m in rules):
        gone.discard((y, x))
    return len(gone)


def public_board(st, b):
    o = G.observe(st, np.array([b]))
    tab = o.table[0]
    c = st.S // 2
    ys, xs = np.nonzero(tab >= 0)
    board = {(int(y) - c, int(x) - c): int(tab[y, x]) for y, x in zip(ys, xs)}
    ys, xs = np.nonzero(tab == -2)
    return board, {(int(y) - c, int(x) - c) for y, x in zip(ys, xs)}


@pytest.mark.parametrize("players", [2, 3])
def test_random_games_every_step(players):
    """Cards conserved after every step; the candidate list is exactly the legal placements (none
    left out, none added); every game ends."""
    B = 12
    keys = game_keys(players, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(R, players, keys.deal)
    rand = get_strategy("savannah", "random")()
    for _ in range(400):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        for b in live:
            conserved(st, b)
            if st.g[b, T.KIND] == T.PLACE:
                board, blocked = public_board(st, b)
                hand = st.hand[b, mv[b], :st.hand_n[b, mv[b]]].tolist()
                want = legal_placements(board, blocked, hand, int(st.g[b, T.TURNS]), players)
                got = engine_placements(st, b)
                assert set(got) == want
                phase = int(st.g[b, T.PHASE])
                for (card, sp), pts in got.items():
                    assert pts == (0 if phase == T.OPENING else ref_points(board, *sp, card, phase))
        legal = G.legal(st)
        assert (legal.sum(axis=1)[live] == st.g[live, T.N_CAND]).all()
        a = np.zeros(B, np.int64)
        a[live] = rand.act(G.observe(st, live), legal[live],
                           SeatRandom(seat_rs, live * players + mv[live]))
        G.step(st, a)
    assert (G.to_move(st) == -1).all(), "every game ends"
    for b in range(B):
        conserved(st, b)


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("who", ["random", "greedy", "cautious", "space_maker"])
def test_scores_recount_from_the_history(players, who):
    B = 24
    strat = get_strategy("savannah", who)()
    res = play_batch(G, R, players, [strat], np.zeros((B, players), int),
                     game_keys(7, players, B), log=True)
    st = res.state
    assert (G.to_move(st) == -1).all()
    n1, n2 = R.pile_sizes(players)
    for b in range(B):
        ev = st.ev[b, :st.g[b, T.NEV]]
        assert replay(ev, players, n1, n2) == st.score[b].tolist()
        assert ev[-1, 0] == T.E_END
        conserved(st, b)
    out = G.outcome(st)
    assert (out.score == st.score).all() and np.allclose(out.win.sum(axis=1), 1)
    assert (out.stats["laps"] == st.score // 20).all()
    assert "P0 (dealer) opens with" in G.describe(st, 0)


def test_hidden_information_is_absent():
    """Two games that differ only in what the player to move cannot see (the other hand, the
    piles' order, the face-down cards) give equal observations."""
    keys = game_keys(11, 2, 1)
    seat_rs = keys.seat.reshape(-1).copy()
    strat = get_strategy("savannah", "greedy")()
    st = G.init(R, 2, keys.deal)
    # play until a face-down card lies on the table
    for _ in range(200):
        if st.g[0, T.N_FD] > 0 and st.g[0, T.KIND] == T.PLACE and st.g[0, T.PHASE] == T.ONE:
            break
        o = G.observe(st, np.array([0]))
        G.step(st, strat.act(o, G.legal(st)[[0]], SeatRandom(seat_rs, G.to_move(st) + 0)))
    assert st.g[0, T.N_FD] > 0
    import copy
    st2 = copy.deepcopy(st)
    me = int(st.g[0, T.CUR])
    other = 1 - me
    # swap a face-down card, a card of the other hand and the top cards of both piles around
    fd = int(st2.fd_card[0, 0])
    oh = int(st2.hand[0, other, 0])
    p1 = int(st2.pile1[0, st2.g[0, T.N1] - 1])
    p2 = int(st2.pile2[0, st2.g[0, T.N2] - 1])
    st2.fd_card[0, 0], st2.hand[0, other, 0] = oh, p1
    st2.pile1[0, st2.g[0, T.N1] - 1], st2.pile2[0, st2.g[0, T.N2] - 1] = p2, fd
    conserved(st2)
    a, b = G.observe(st, np.array([0])), G.observe(st2, np.array([0]))
    for name in ("seat", "kind", "phase", "n_cand", "points", "pile1", "pile2", "blocked",
                 "slot", "card", "y", "x", "hand", "score", "hand_size", "table", "unseen"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert not np.array_equal(st.fd_card, st2.fd_card)
    # and nothing the observation keeps (or works out) is a view of the state: a snapshot
    live = [v for v in vars(st).values() if isinstance(v, np.ndarray)]
    assert not np.shares_memory(G.legal(st), st.legal_mask)
    held = [v for v in vars(a).values() if isinstance(v, np.ndarray)]
    held += [getattr(a, n) for n in ("slot", "card", "y", "x", "valid", "table", "unseen", "grid")]
    assert len(held) > 15
    for arr in held:
        assert not any(np.shares_memory(arr, h) for h in live)


def test_a_kept_observation_shows_nothing_later():
    """An observation (and legal mask) a strategy keeps from its turn must not turn into a view
    of the next player's hand once the state moves on: the candidate lists are copies."""
    st = G.init(R, 2, deal_keys(1, 3))
    for _ in range(3):
        G.step(st, np.zeros(1, np.int64))
    me = int(G.to_move(st)[0])
    o = G.observe(st, np.array([0]))
    lg = G.legal(st)
    before = {name: np.array(getattr(o, name)) for name in ("slot", "card", "y", "x", "points")}
    lg_before = lg.copy()
    mine = set(o.card[0, :o.n_cand[0]].tolist())
    assert mine <= set(st.hand[0, me, :st.hand_n[0, me]].tolist())
    G.step(st, np.zeros(1, np.int64))
    other = 1 - me
    assert int(G.to_move(st)[0]) == other
    theirs = set(st.hand[0, other, :st.hand_n[0, other]].tolist())
    assert not (mine & theirs)
    for name, v in before.items():
        assert np.array_equal(getattr(o, name), v), name
    assert np.array_equal(lg, lg_before)
    assert not (set(o.card[0, :o.n_cand[0]].tolist()) & theirs)
    sub = o.take(np.array([0]))
    assert np.array_equal(sub.card, before["card"])


def test_observation_take_keeps_rows_aligned():
    st = G.init(R, 3, deal_keys(6, 2))
    G.step(st, np.zeros(6, np.int64))
    o = G.observe(st, np.arange(6))
    sub = o.take(np.array([4, 1]))
    assert sub.game.tolist() == [4, 1] and len(sub) == 2
    assert np.array_equal(sub.card, o.card[[4, 1]]) and np.array_equal(sub.hand, o.hand[[4, 1]])
    assert np.array_equal(sub.points, o.points[[4, 1]])


def test_same_seed_same_games():
    outs = [play_batch(G, R, 3, [get_strategy("savannah", "random")()], np.zeros((16, 3), int),
                       game_keys(5, 3, 16)).outcome.score for _ in range(2)]
    assert np.array_equal(*outs)


def test_pure_python_mode_plays_the_same_game():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: the game comes out as compiled."""
    import os
    import subprocess
    import sys

    args = [sys.executable, "-m", "safari_sim.cli", "trace", "savannah", "--seed", "2",
            "--strategies", "greedy,cautious,space_maker"]
    cwd = os.path.dirname(os.path.dirname(__file__))
    jit = subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=cwd,
                        timeout=120)
    assert "Game over" in jit.stdout and "finds the unplayable space" in jit.stdout
    assert py.stdout == jit.stdout


def test_rules_checks():
    with pytest.raises(RulesError):
        G.make_rules({"hand_size": 0})
    with pytest.raises(RulesError):
        G.check(G.make_rules({"hand_size": 30}), 3)
    with pytest.raises(RulesError):
        G.check(G.make_rules({"first_pile": 60}), 2)
    with pytest.raises(RulesError):
        G.check(R, 4)
    with pytest.raises(RulesError):
        G.make_rules({"buried_on_table": "mine"})
    r = G.make_rules({"explorer_cards": False})
    st = G.init(r, 2, deal_keys(4, 0))
    assert st.rules.n_cards == 60 and (st.hand < 60).all()
    res = play_batch(G, r, 2, [get_strategy("savannah", "greedy")()], np.zeros((8, 2), int),
                     game_keys(1, 2, 8))
    assert (G.to_move(res.state) == -1).all()


def test_scoring_fields_change_the_points():
    r = G.make_rules({"line_point": 2, "all_different_less": 0, "claim_point": 3})
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Lion")}
    st = G.arrange(r, 2, layout, [[C("3-Monkey")], [C("6-Zebra")]], pile1=[C("4-Tiger")],
                   pile2=[])
    assert play(st, C("3-Monkey"), 0, 2) == (6, 6)


def test_strategies_prefer_what_they_say():
    # greedy takes a best-scoring play; cautious weighs what the play opens for the next player
    st = example_b()
    o = G.observe(st, np.array([0]))
    lg = G.legal(st)[[0]]
    rng = SeatRandom(game_keys(0, 3, 1).seat.reshape(-1).copy(), np.array([0]))
    g = get_strategy("savannah", "greedy")().act(o, lg, rng)
    assert o.points[0, g[0]] == o.points[0, :o.n_cand[0]].max() == 6
    from safari_sim.games.savannah import lookahead
    th = lookahead.threat(o)
    assert th.shape == o.points.shape and th[0, :o.n_cand[0]].max() > 0
    k = get_strategy("savannah", "cautious")(caution=10.0).act(o, lg, rng)
    value = o.points[0] - 10.0 * th[0]
    assert value[k[0]] == value[:o.n_cand[0]].max()
    # e.g. Debra's 3-Elephant at (1,1) scores 4 but opens a 3-elephant row and column
    j = [i for i in range(o.n_cand[0]) if o.card[0, i] == C("3-Elephant")
         and (o.y[0, i], o.x[0, i]) == (1, 1)][0]
    assert th[0, j] >= 3
    # new_unplayable against the rules' definition: the ends of the placement's lines that are
    # unplayable after it and were not before
    sm = lookahead.new_unplayable(o)[0]
    board, blocked = public_board(st, 0)
    was = unplayable(board, blocked)
    for i in range(int(o.n_cand[0])):
        y, x, card = int(o.y[0, i]), int(o.x[0, i]), int(o.card[0, i])
        b2 = dict(board)
        b2[(y, x)] = card
        now = unplayable(b2, blocked) - was
        ends = set()
        for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            e = (y + dy, x + dx)
            while e in b2:
                e = (e[0] + dy, e[1] + dx)
            ends.add(e)
        assert sm[i] == len(now & ends), (card_name(card), y, x)
    assert sm[:o.n_cand[0]].max() >= 1
    # Amy's 6-Lion at (0,0) in example B makes (1,0) unplayable: the space maker sees it
    st = example_b()
    for card, y, x in ((C("3-Elephant"), 1, 1), (C("2-Zebra"), 3, 5),
                       (C("2-Elephant", True), 2, 1), (C("2-Monkey"), 0, 2)):
        play(st, card, y, x)
    st.g[0, T.CUR] = 2
    G.relist(st)
    o = G.observe(st, np.array([0]))
    j = [k for k in range(o.n_cand[0]) if o.card[0, k] == C("6-Lion") and (o.y[0, k], o.x[0, k])
         == (0, 0)][0]
    assert lookahead.new_unplayable(o)[0, j] == 1


def test_threat_is_the_best_reply_at_the_line_ends():
    """lookahead.threat against a brute force over every unseen card type."""
    from safari_sim.games.savannah import lookahead
    st = example_b()
    o = G.observe(st, np.array([0]))
    th = lookahead.threat(o)[0]
    unseen = o.unseen[0]
    board, blocked = public_board(st, 0)
    kinds = [(a, n) for a in ANIMAL_NAMES for n in range(1, 7)]
    for j in range(int(o.n_cand[0])):
        y, x, card = int(o.y[0, j]), int(o.x[0, j]), int(o.card[0, j])
        b2 = dict(board)
        b2[(y, x)] = card
        best = 0
        for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            e = (y + dy, x + dx)
            while e in b2:
                e = (e[0] + dy, e[1] + dx)
            if e in blocked:
                continue
            for t, kd in enumerate(kinds):
                if unseen[t] > 0 and fits(b2, *e, kd):
                    look = lambda sp: kd if sp == e else kind(b2[sp])  # noqa: E731
                    pts = 0
                    for ln in runs(b2, *e):
                        if len(ln) > 1:
                            pts += len(ln) - (0 if line_rule([look(sp) for sp in ln])[1] else 1)
                    best = max(best, pts)
        assert th[j] == best, (card_name(card), y, x, th[j], best)

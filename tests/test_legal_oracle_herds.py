"""Herds: an independent legal-move oracle (issue 29, item 8), compared with the game's mask.

``oracle(state, b)`` lists the legal actions of game b's mover in plain Python from the rulebook
("Herds", On Your Turn) and the readings of docs/rules/herds.md. It reads the position's facts
(where each card is, the herds' cards, whose turn and which decision, the trade's totals, the
must-play explorers) and the rules; it calls nothing of safari_sim/games/herds.py but its
action-number offsets, zone codes and decision codes. The trade is found by brute force over
the subsets of the hand and of the grassland (the game uses subset-sum bitsets and a witness
search); step three by trying each placement on the cards themselves.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from safari_sim.games import get_game
from safari_sim.games import herds as H
from strategies import get_strategy

from legal_oracle import check_legal

G = get_game("herds")
EXPLORER = 5


def suit(c):
    return c // 12 if c < 60 else EXPLORER


def num(c):  # number - 1
    return c % 6


def value(c):
    return c % 6 + 1


class Pos:
    """The facts of game b's position, read from the state arrays."""

    def __init__(self, st, b):
        self.rules = st.rules
        self.P = st.n_players
        self.p = int(st.g[b, H.CUR])
        self.kind = int(st.g[b, H.PHASE])
        zone = st.zone[b].tolist()
        self.hand = [c for c in range(66) if zone[c] == H.Z_HAND0 + self.p]
        self.grass = [c for c in range(66) if zone[c] == H.Z_GRASS]
        self.given = [c for c in range(66) if zone[c] == H.Z_GIVE]
        self.deck_left = 66 - int(st.g[b, H.POS])
        self.gsum = int(st.g[b, H.GSUM])
        self.need = int(st.g[b, H.NEED])
        self.must = [e for e in range(6) if int(st.g[b, H.MUST]) >> e & 1]
        # herds: (side, suit, {number: card}) from the cards laid in them
        self.herds = []
        for h in range(int(st.g[b, H.HN])):
            cards = {n: int(st.hcard[b, h, n]) for n in range(6) if st.hcard[b, h, n] >= 0}
            self.herds.append((int(st.hown[b, h]), int(st.hsuit[b, h]), cards))
        self.teams = self.P == 4 and self.rules.teams_at_four

    def side(self, q):
        if not self.teams:
            return q
        return q // 2 if self.rules.partners == "beside" else q % 2

    def grows(self, e):
        """An explorer of number e+1 grows a herd of the mover's side at an open end."""
        me = self.side(self.p)
        return any(s == me and (min(cs) - 1 == e or max(cs) + 1 == e)
                   for s, _, cs in self.herds)


# ---- step three, on the cards themselves ------------------------------------------------------

def herd_cards(hand, t, lo, forced):
    """The three cards the hand lays as a new herd of suit t at numbers lo..lo+2 (a forced
    explorer at its own number; elsewhere the real card before the explorer), or None."""
    out = []
    real = 0
    for n in range(lo, lo + 3):
        if n == forced:
            out.append(60 + n)
            continue
        reals = [x for x in hand if x < 60 and suit(x) == t and num(x) == n] if t < 5 else []
        if reals:
            out.append(min(reals))
            real += 1
        elif 60 + n in hand:
            out.append(60 + n)
        else:
            return None
    if t < 5 and real == 0:
        return None
    if forced >= 0 and not lo <= forced <= lo + 2:
        return None
    return out


def placements(pos, hand, herds, forced):
    """New herds and growths legal with this hand and table (a card must stay for step four)."""
    me = pos.side(pos.p)
    acts = set()
    if len(hand) >= 4:
        for t in range(6):
            for lo in range(4):
                if herd_cards(hand, t, lo, forced) is not None:
                    acts.add(H.A_NEW0 + t * 4 + lo)
    if len(hand) >= 2:
        for h, (s, t, cs) in enumerate(herds):
            if s != me:
                continue
            for end, n in ((0, min(cs) - 1), (1, max(cs) + 1)):
                if not 0 <= n <= 5:
                    continue
                if forced >= 0:
                    ok = n == forced
                else:
                    ok = 60 + n in hand or (t < 5 and any(
                        x < 60 and suit(x) == t and num(x) == n for x in hand))
                if ok:
                    acts.add(H.A_GROW0 + 2 * h + end)
    return acts


def step_three(pos):
    forced = min(pos.must) if pos.must else -1
    acts = placements(pos, pos.hand, pos.herds, forced)
    if forced < 0:
        me = pos.side(pos.p)
        for h, (s, t, cs) in enumerate(pos.herds):
            if t == EXPLORER or (s != me and not pos.rules.swap_in_opponents_herds):
                continue
            for n, x in cs.items():
                if x != 60 + n:
                    continue
                reals = [y for y in pos.hand if y < 60 and suit(y) == t and num(y) == n]
                if not reals:
                    continue
                # the explorer comes back and must be placed at once
                hand = [y for y in pos.hand if y != min(reals)] + [x]
                herds = [(s2, t2, dict(cs2)) for s2, t2, cs2 in pos.herds]
                herds[h][2][n] = min(reals)
                if placements(pos, hand, herds, n):
                    acts.add(H.A_SWAP0 + n)
        acts.add(H.A_DONE)
    return acts


# ---- the trade -------------------------------------------------------------------------------

def new_herd_with(e, held):
    """Explorer e laid in a new herd of three with two other cards of ``held``, one kept."""
    if len(held) < 4:
        return False
    for lo in range(max(0, e - 2), min(3, e) + 1):
        others = [n for n in range(lo, lo + 3) if n != e]
        for t in range(6):
            fits = []
            for n in others:
                real = t < 5 and any(x < 60 and suit(x) == t and num(x) == n for x in held)
                fits.append((real, 60 + n in held))
            if all(r or x for r, x in fits) and (t == EXPLORER and all(x for _, x in fits)
                                                 or t < 5 and any(r for r, _ in fits)):
                return True
    return False


def valid(pos, taken, held):
    """Whether the explorers ``taken`` in a trade can all be played, the player then holding
    ``held``: the reading of docs/rules/herds.md ('playable', 'grows', 'any')."""
    how = pos.rules.trade_explorer
    xs = [x - 60 for x in taken if x >= 60]
    if how == "any" or not xs:
        return True
    if all(pos.grows(e) for e in xs) and len(held) > len(xs):
        return True
    return how == "playable" and len(xs) == 1 and new_herd_with(xs[0], held)


def subsets_by_sum(cards):
    out = {}
    for k in range(len(cards) + 1):
        for sub in combinations(cards, k):
            out.setdefault(sum(value(c) for c in sub), []).append(sub)
    return out


def sums(cards):
    """Every total of a subset of ``cards`` (the empty one too)."""
    out = {0}
    for c in cards:
        out |= {x + value(c) for x in out}
    return out


def trade_exists(pos, give_fixed, give_from, take_fixed, take_from, total=None):
    """Some E (``give_fixed`` and a subset of ``give_from``) and T (``take_fixed`` and a subset
    of ``take_from``) of equal totals (``total`` when the give is settled) making a valid trade."""
    g0 = sum(value(c) for c in give_fixed)
    t0 = sum(value(c) for c in take_fixed)
    animals = [c for c in take_from if c < 60]
    if not any(c >= 60 for c in take_fixed):
        # taking animal cards only, every trade of equal totals is valid
        es = {g0 + x for x in sums(give_from)} if total is None else {total}
        ts = {t0 + x for x in sums(animals)}
        if any(x > 0 for x in es & ts):
            return True
    # else some explorer is taken: every subset, card by card
    gsub = subsets_by_sum(give_from)
    asub = subsets_by_sum(animals)
    xs = [c for c in take_from if c >= 60]
    for k in range(0 if any(c >= 60 for c in take_fixed) else 1, len(xs) + 1):
        for X in combinations(xs, k):
            tx = t0 + sum(value(c) for c in X)
            for ge, es in gsub.items():
                s = g0 + ge
                if s == 0 or (total is not None and s != total):
                    continue
                for A in asub.get(s - tx, ()):
                    taken = list(take_fixed) + list(X) + list(A)
                    for E in es:
                        held = [c for c in pos.hand if c not in E and c not in give_fixed] + \
                            list(X) + list(A)
                        if valid(pos, taken, held):
                            return True
    return False


def step_two(pos):
    acts = set()
    if pos.deck_left > 0:
        acts.add(H.A_DECK)
    for c in pos.grass:
        if c >= 60 and not pos.rules.grass_draw_explorer_kept and \
                pos.rules.trade_explorer != "any":
            held = pos.hand + [c]
            if not valid(pos, [c], held):
                continue
        acts.add(H.A_CARD0 + c)
    if trade_exists(pos, [], pos.hand, [], pos.grass):
        acts.add(H.A_TRADE)
    return acts


def give(pos):
    acts = set()
    for c in pos.hand:
        rest = [x for x in pos.hand if x != c]
        if trade_exists(pos, pos.given + [c], rest, [], pos.grass):
            acts.add(H.A_CARD0 + c)
    if pos.given and trade_exists(pos, pos.given, [], [], pos.grass):
        acts.add(H.A_GIVE_DONE)
    return acts


def take(pos):
    # the cards taken so far are in the hand (held either way); the must-play explorers among
    # them are the explorers this trade took
    taken = [60 + e for e in pos.must]
    acts = set()
    for c in pos.grass:
        if value(c) <= pos.need:
            rest = [x for x in pos.grass if x != c]
            if take_exists(pos, taken + [c], rest, pos.need - value(c)):
                acts.add(H.A_CARD0 + c)
    return acts


def take_exists(pos, taken, rest, left):
    """The give settled: some T of the rest of the grassland, of total ``left``, valid."""
    if all(c < 60 for c in taken) and left in sums([x for x in rest if x < 60]):
        return True  # animal cards only: valid
    for T in subsets_by_sum(rest).get(left, ()):
        held = pos.hand + [c for c in taken if c not in pos.hand] + list(T)
        if valid(pos, taken + list(T), held):
            return True
    return False


def receivers(pos):
    me = pos.side(pos.p)
    return {H.A_RECV0 + o - 1 for o in range(1, pos.P) if pos.side((pos.p + o) % pos.P) != me}


def oracle(st, b):
    pos = Pos(st, b)
    if pos.kind == H.K_STEP2:
        return step_two(pos)
    if pos.kind == H.K_GIVE:
        return give(pos)
    if pos.kind == H.K_TAKE:
        return take(pos)
    if pos.kind == H.K_HERD:
        return step_three(pos)
    if pos.kind == H.K_PASS:
        return {H.A_CARD0 + c for c in pos.hand}
    if pos.kind == H.K_RECV:
        return receivers(pos)
    raise AssertionError(f"decision kind {pos.kind}")


# ---- the comparisons ---------------------------------------------------------------------------

SHORT = {"target_score": 15}  # short games: more deals, fewer hours

READINGS = [
    {},
    {"trade_explorer": "grows"},
    {"trade_explorer": "any"},
    {"swap_in_opponents_herds": True, "grass_draw_explorer_kept": False},
    {"grass_draw_explorer_kept": False, "trade_explorer": "grows"},
    {"flip_last_ends": False, "trade_explorer": "any"},
]


def _strategies():
    return [get_strategy("herds", n)() for n in ("collector", "blocker", "sprinter")]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("reading", range(len(READINGS)))
def test_oracle_equals_the_mask_with_random_play(players, reading):
    rules = G.make_rules({**SHORT, **READINGS[reading]})
    n = check_legal(G, rules, players, oracle, games=8, seed=10 * players + reading)
    assert n >= 800


@pytest.mark.parametrize("players", [2, 3, 4])
def test_oracle_equals_the_mask_with_the_strategies(players):
    rules = G.make_rules(SHORT)
    n = check_legal(G, rules, players, oracle, games=12, seed=7 + players,
                    strategies=_strategies())
    assert n >= 800


@pytest.mark.parametrize("extra", [{"partners": "beside"}, {"teams_at_four": False}])
def test_oracle_equals_the_mask_at_four_players_with_other_partners(extra):
    rules = G.make_rules({**SHORT, **extra})
    n = check_legal(G, rules, 4, oracle, games=8, seed=3, strategies=_strategies())
    assert n >= 800


def _random_position(rng, players, rules):
    """A turn's step two in a made-up position: a few herds on the table, a hand and a
    grassland that often hold the explorers and their neighbours (where the trade readings
    differ)."""
    st = G.init(rules, players, np.array([int(rng.integers(1 << 62))], np.uint64))
    free = set(range(66))
    herds = []
    for _ in range(int(rng.integers(0, 3))):
        t = int(rng.integers(0, 6))
        lo = int(rng.integers(0, 4))
        cards = []
        for n in range(lo, lo + 3):
            opts = [60 + n] if t == EXPLORER else [t * 12 + n, t * 12 + 6 + n]
            opts = [x for x in opts if x in free]
            if not opts:
                break
            cards.append(opts[0])
        if len(cards) == 3:
            free -= set(cards)
            herds.append((int(rng.integers(0, 2)) if players > 2 else int(rng.integers(0, 2)),
                          t, cards))
    pool = sorted(free)
    rng.shuffle(pool)
    explorers = [x for x in pool if x >= 60][:int(rng.integers(1, 3))]
    rest = [x for x in pool if x not in explorers]
    nh = int(rng.integers(1, 7))
    hand = rest[:nh]
    grass = explorers + rest[nh:nh + int(rng.integers(1, 7))]
    G.position(st, 0, 0, {0: hand}, grass, herds)
    return st


def check_positions(rules, players, n, seed):
    """The oracle against the mask through the turns of ``n`` made-up positions (a trade
    chosen whenever it is legal, else random moves), until step four. Returns the decisions."""
    rng = np.random.default_rng(seed)
    compared = 0
    for _ in range(n):
        st = _random_position(rng, players, rules)
        while int(st.g[0, H.PHASE]) in (H.K_STEP2, H.K_GIVE, H.K_TAKE, H.K_HERD):
            got = set(np.flatnonzero(G.legal(st)[0]).tolist())
            want = oracle(st, 0)
            assert got == want, (G.zones(st, 0), G.herds(st, 0), sorted(got - want),
                                 sorted(want - got), int(st.g[0, H.PHASE]))
            compared += 1
            acts = sorted(got)
            a = H.A_TRADE if H.A_TRADE in got else acts[int(rng.integers(len(acts)))]
            G.step(st, np.array([a]))
    return compared


@pytest.mark.parametrize("reading", ["playable", "grows", "any"])
@pytest.mark.parametrize("players", [2, 4])
def test_oracle_equals_the_mask_in_made_up_trade_positions(reading, players):
    rules = G.make_rules({"trade_explorer": reading, "grass_draw_explorer_kept":
                          players == 2})
    assert check_positions(rules, players, 150, seed=5 + players) >= 800

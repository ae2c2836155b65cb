"""Safari Sprint strategies: how people play the race.

Two decisions: while choosing, which animal to claim (or take from its owner) and on which space;
in a round, which card to put into the line. Every card moves the ducky of its own animal, so a
player pushes their own animal with its cards and holds back the others by playing their cards
where the racing card moves little. Each strategy below scores the candidate cards with the
moves the line gives every ducky if it is played now (the cards still to come unknown), and
claims by the `claim` knob shared by all of them. With `expect_later` (the backer's default)
a card's spot is an expectation over the players still to play this round, so that a low card
played first is known to end low in the line.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.games.safari_sprint import CLAIM, CLAIM0, EXPLORER, NTYPES, NV, Obs

from .base import Strategy

SUIT = np.arange(NTYPES) // NV
VALUE = np.arange(NTYPES) % NV + 1
NEG = -1e9


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    claim: Literal["hand", "space", "leader"] = Field(
        "hand", description="choosing: 'hand' the animal whose cards this hand is strongest in "
                            "(then the highest free space), 'space' the highest free space for "
                            "any animal, 'leader' take the claimed animal furthest ahead when it "
                            "can (else as 'hand')")
    hand_weight: float = Field(1.0, ge=0, description="with 'hand': spaces one point of hand "
                                                      "strength (sum of that animal's numbers "
                                                      "in hand) is worth")
    expect_later: bool = Field(True, description="count on the cards still to be played this "
                                                 "round pushing a card down the line (odds from "
                                                 "the numbers of the cards not seen); false: "
                                                 "as if nobody played after it")


# ---- choosing -------------------------------------------------------------------------------

def claim_actions(obs: Obs, legal: np.ndarray, mode: str, hand_weight: float) -> np.ndarray:
    """The claim per the knobs: each animal on its highest legal space, scored."""
    n, S = len(obs.game), obs.spaces
    lg = legal[:, CLAIM0:CLAIM0 + 5 * S].reshape(n, 5, S)
    any_space = lg.any(axis=2)
    best_space = S - np.argmax(lg[:, :, ::-1], axis=2)           # highest legal space, 1-based
    hand = obs.hand.reshape(n, 6, NV).astype(np.float64)
    strength = (hand * np.arange(1, NV + 1)).sum(axis=2)[:, :5] + obs.extra_card
    claimed = obs.owner[:, :5] >= 0
    if mode == "space":
        score = best_space.astype(np.float64) - 0.01 * claimed
    else:
        score = best_space + hand_weight * strength - 1000.0 * claimed  # unclaimed first
        if mode == "leader":
            lead = np.where(claimed & any_space, obs.pos[:, :5] + 1e6, NEG)
            score = np.where((claimed & any_space).any(axis=1)[:, None], lead, score)
    score = np.where(any_space, score, NEG)
    a = np.argmax(score, axis=1)
    rows = np.arange(n)
    return CLAIM0 + a * S + best_space[rows, a] - 1


# ---- a round --------------------------------------------------------------------------------

_COMB = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0],
                  [1, 4, 6, 4, 1]], np.float64)  # C(m, j), m players still to play (0-4)


class LineEffect:
    """What the line gives each ducky this round for a card of each number played now.
    ``own[n, v]``: the move of a card numbered v + 1; ``other[n, v, d]``: what the cards already
    in the line then give ducky d. The game works out the line as it stands (``obs.ifplay``);
    with ``expect_later`` each card's spot is then an expectation over the players still to
    play: each of them goes ahead of a card numbered w with the chance that a card not seen is
    numbered w or more (more than w with ``tie_order: earlier_ahead``), so a low card played
    early counts on ending low in the line. Pushes are left out. ``own_now``: the move if
    nobody played after it."""

    def __init__(self, obs: Obs, expect_later: bool = True):
        self.own_now = obs.ifplay[:, :, 6]
        later = obs.to_play > 0
        if not expect_later or not later.any():
            self.own = self.own_now
            self.other = obs.ifplay[:, :, :6]
            return
        n = len(obs.game)
        u = obs.unseen.reshape(n, 6, NV).sum(axis=1).astype(np.float64)     # by number
        ge = np.cumsum(u[:, ::-1], axis=1)[:, ::-1]                         # numbered >= v+1
        ahead = ge if obs.tie_order != "earlier_ahead" else np.concatenate(
            [ge[:, 1:], np.zeros((n, 1))], axis=1)
        q = ahead / np.maximum(ge[:, :1], 1.0)                              # [n, 6 numbers]
        m = np.asarray(obs.to_play, np.int64)
        j = np.arange(5)
        comb = _COMB[np.clip(m, 0, 4)]                                      # [n, 5]
        pmf = (comb[:, None, :] * q[:, :, None] ** j
               * (1 - q[:, :, None]) ** np.maximum(m[:, None, None] - j, 0))  # [n, 6, 5]
        sv = np.concatenate([obs.spot_values.astype(np.float64), np.zeros((n, 5))], axis=1)
        rows = np.arange(n)[:, None, None]
        k = obs.ifplay[:, :, 7].astype(np.int64)                            # [n, 6]
        self.own = (pmf * sv[rows, k[:, :, None] + j]).sum(axis=2)
        other = np.zeros((n, NV, 6))
        for i in range(int(obs.line_len.max(initial=0))):
            t = obs.line[:, i].astype(np.int64)
            live = t >= 0
            w, suit = np.maximum(t, 0) % NV, np.maximum(t, 0) // NV
            spot = i + (i >= k)                                             # [n, 6]
            e = (pmf[np.arange(n), w][:, None, :] * sv[rows, spot[:, :, None] + j]).sum(axis=2)
            e = np.where(live[:, None], e, 0.0)
            for d in range(6):
                other[:, :, d] += np.where((suit == d)[:, None], e, 0.0)
        self.other = other

    def to(self, d: np.ndarray) -> np.ndarray:
        """[n, 6]: what the line already gives ducky d[n] for a card of each number."""
        return np.take_along_axis(self.other, d[:, None, None].astype(np.int64), axis=2)[:, :, 0]

    def weighted(self, w: np.ndarray) -> np.ndarray:
        """float[n, 36]: sum over the duckies of w[n, d] times its move, for each card type."""
        base = self.other[:, :, 0] * w[:, :1]                          # [n, 6 values]
        for d in range(1, 6):  # six [n, 6] products: cheaper than one reduction over [n, 6, 6]
            base += self.other[:, :, d] * w[:, d:d + 1]
        return (base[:, None, :] + w[:, :, None] * self.own[:, None, :]).reshape(len(w), NTYPES)


def rivals(obs: Obs) -> np.ndarray:
    """bool[n, 6]: the animals in play that are not this player's."""
    animals = obs.in_play & (np.arange(6) != EXPLORER)
    return animals[None, :] & (np.arange(6)[None, :] != obs.mine[:, None])


def pick(score: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The best-scored legal card (a subtraction: cheaper than np.where on the strided mask)."""
    return np.argmax(score - 1e9 * ~legal[:, :NTYPES], axis=1)


class SprintStrategy(Strategy):
    """``act``: ``claim_actions`` while choosing, ``play`` (the best of ``score``) in a round.

    The shipped ones also have a compiled twin (``policy``: its number and knobs for
    ``strategies/_safari_sprint_compiled.py``), so a table of them plays whole games in one
    kernel; a subclass that overrides ``act``, ``play`` or ``score`` is played through ``act``
    unless it also overrides ``policy``."""

    game = "safari_sprint"

    twin_methods = ("play", "score")

    play_compiled = staticmethod(lambda *a, **k: _compiled().play_compiled(*a, **k))

    def _claim_knobs(self) -> tuple[float, float, float]:
        p = self.params
        return (CLAIM_MODES.index(p.claim), p.hand_weight, float(p.expect_later))

    def act(self, obs, legal, rng):
        choosing = obs.kind == CLAIM
        if not choosing.any():  # nearly every step: every game plays a card
            return self.play(obs, legal, rng)
        out = np.empty(len(obs.game), np.int64)
        if choosing.any():
            rows = np.flatnonzero(choosing)
            sub = obs.take(rows)
            out[rows] = claim_actions(sub, np.take(legal, rows, axis=0), self.params.claim,
                                      self.params.hand_weight)
        if not choosing.all():
            rows = np.flatnonzero(~choosing)
            sub = obs if rows.size == len(obs.game) else obs.take(rows)
            lg = legal if rows.size == len(obs.game) else np.take(legal, rows, axis=0)
            out[rows] = self.play(sub, lg, rng)
        return out

    def play(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        """The card type to play, per observed game (default: the best of ``score``)."""
        return pick(self.score(obs, legal, rng), legal)

    def score(self, obs: Obs, legal: np.ndarray, rng) -> np.ndarray:
        raise NotImplementedError


def _thrift(obs: Obs, thrift: float) -> np.ndarray:
    """float[n]: the cost per number of an own card spent: none in a race's last round."""
    return np.where(obs.round < obs.rounds - 1, thrift, 0.0)


class Backer(SprintStrategy):
    name = "backer"
    summary = ("backs its animal: plays its own cards where the racing card moves them most, "
               "its rivals' (and the explorer's) where it moves them least, counting on the "
               "cards still to come pushing a low card down the line, and keeps its own high "
               "cards for the spots that move most (thrift)")

    class Params(_Params):
        rival_weight: float = Field(0.6, ge=0, description="cost of a space a rival animal moves, "
                                                           "against one of its own")
        explorer_weight: float = Field(0.4, ge=0, description="cost of a space the explorer moves")
        thrift: float = Field(1.0, ge=0, description="cost per number of an own card spent "
                                                     "(keeps high cards for better spots; none "
                                                     "in a race's last round, when the card "
                                                     "kept is never played)")

    def play(self, obs, legal, rng):
        # Every rival animal weighs the same, so the best card is the best of three [n, 6]
        # choices by number: its own animal's, a rival's, the explorer's (cheaper than scoring
        # all 36 types at once)
        p = self.params
        n = len(obs.game)
        rows = np.arange(n)
        eff = LineEffect(obs, self.params.expect_later)
        mine = np.maximum(obs.mine, 0)
        other, own = eff.other, eff.own
        # what the line already gives my animal, the other animals and the explorer, by the
        # number of the card played
        to_me = eff.to(mine)
        to_animals = other[:, :, 0] + other[:, :, 1] + other[:, :, 2] + other[:, :, 3] + other[:, :, 4]
        base = ((1 + p.rival_weight) * to_me - p.rival_weight * to_animals
                - p.explorer_weight * other[:, :, EXPLORER])
        lg = legal[:, :NTYPES].reshape(n, 6, NV)
        mine_ok = lg[rows, mine]
        held = lg.view(np.int8)  # the animals' cards of each number held, as 0/1 sums
        rival_ok = (held[:, 0] + held[:, 1] + held[:, 2] + held[:, 3] + held[:, 4]) > mine_ok
        values = np.arange(1, NV + 1)
        choice = np.concatenate([
            np.where(mine_ok, base + own - _thrift(obs, p.thrift)[:, None] * values, NEG),
            np.where(rival_ok, base - p.rival_weight * own, NEG),
            np.where(lg[:, EXPLORER], base - p.explorer_weight * own, NEG)], axis=1)
        best = np.argmax(choice, axis=1)
        kind, v = best // NV, best % NV
        # a rival card of that number: the first rival suit holding one
        col = lg[rows, :EXPLORER, v].copy()
        col[rows, mine] = False
        suit = np.where(kind == 0, mine, np.where(kind == 2, EXPLORER, np.argmax(col, axis=1)))
        return suit * NV + v

    def policy(self):
        p = self.params
        return K_BACKER, self._claim_knobs() + (p.rival_weight, p.explorer_weight, p.thrift)

    def score(self, obs, legal, rng):
        """float[n, 36]: the same choice scored for every card type (for tests and tools)."""
        p = self.params
        n = len(obs.game)
        mine = np.maximum(obs.mine, 0)
        mine_c = (np.arange(6)[None, :] == mine[:, None])
        rest = np.where(obs.in_play, -p.rival_weight, 0.0)
        rest[EXPLORER] = -p.explorer_weight
        w = np.where(mine_c, 1.0, rest[None, :])
        thrift = np.where(mine_c[:, :, None],
                          _thrift(obs, p.thrift)[:, None, None] * np.arange(1, NV + 1), 0.0)
        return LineEffect(obs, self.params.expect_later).weighted(w) - thrift.reshape(n, NTYPES)


class Spoiler(SprintStrategy):
    name = "spoiler"
    summary = ("holds the leading rival back: plays its low cards where they move least, lands "
               "a ducky on it to push it back, and keeps its highest card to the end (and, with "
               "save_six, its own 6s for the last rounds)")

    class Params(_Params):
        leader_weight: float = Field(1.0, ge=0, description="cost of a space the leading rival "
                                                            "moves")
        own_weight: float = Field(0.5, ge=0, description="worth of a space its own animal moves")
        push_bonus: float = Field(2.0, ge=0, description="worth of a card whose ducky lands on "
                                                         "the leader (pushing it back)")
        hold: bool = Field(True, description="never play the leader's highest card in hand while "
                                             "another card is legal (the last card held)")
        save_six: int = Field(0, ge=0, description="keep its own animal's 6s for the last this many "
                                                   "rounds of a race (0: play them any time)")
        expect_later: bool = Field(False, description="count on the cards still to be played "
                                                      "this round pushing a card down the line "
                                                      "(measured weaker for this strategy: it "
                                                      "then spends its high cards early)")

    def score(self, obs, legal, rng):
        p = self.params
        n = len(obs.game)
        rows = np.arange(n)
        eff = LineEffect(obs, self.params.expect_later)
        own = eff.own
        mine = np.maximum(obs.mine, 0)
        lead = np.argmax(np.where(rivals(obs), obs.pos, -(1 << 30)), axis=1)  # leading rival
        base = p.own_weight * eff.to(mine) - p.leader_weight * eff.to(lead)
        w = np.zeros((n, 6))
        w[rows, mine] = p.own_weight
        w[rows, lead] -= p.leader_weight
        s = w[:, :, None] * own[:, None, :]                             # [n, 6 suits, 6 values]
        s += base[:, None, :]
        if p.push_bonus:
            # a card whose ducky lands on the leader's space with the move of the spot it takes
            gap = obs.pos[rows, lead][:, None] - obs.pos                # [n, 6 suits]
            hits = eff.own_now[:, None, :] == gap[:, :, None]
            hits[rows, lead] = False
            s += p.push_bonus * hits
        if p.hold:
            lg = legal[:, :NTYPES].reshape(n, 6, NV)
            lead_cards = lg[rows, lead]                                 # [n, 6 values]
            top = NV - 1 - np.argmax(lead_cards[:, ::-1], axis=1)
            held = lead_cards[rows, top] & (lg.reshape(n, -1).sum(axis=1) > 1)
            s[rows[held], lead[held], top[held]] -= 1e6
        if p.save_six:
            early = obs.round < obs.rounds - p.save_six
            s[rows[early], mine[early], NV - 1] -= 1e5
        return s.reshape(n, NTYPES)

    def policy(self):
        p = self.params
        return K_SPOILER, self._claim_knobs() + (p.leader_weight, p.own_weight, p.push_bonus,
                                                 float(p.hold), p.save_six)


class Projector(SprintStrategy):
    name = "projector"
    summary = ("plays for the place: the card that gives its animal the best place (race "
               "points) on the board the line so far makes, then the widest margin")

    class Params(_Params):
        margin_weight: float = Field(0.2, ge=0, description="worth of a space of lead over the "
                                                            "next ducky, against a race point")
        late_only: int = Field(0, ge=0, description="play for the place only in the last this "
                                                    "many rounds (0: every round); before, "
                                                    "play for spaces gained over the rivals")
        expect_later: bool = Field(False, description="count on the cards still to be played "
                                                      "this round pushing a card down the line "
                                                      "(measured weaker for this strategy: it "
                                                      "then spends its high cards early)")

    def score(self, obs, legal, rng):
        p = self.params
        n = len(obs.game)
        rows = np.arange(n)
        eff = LineEffect(obs, self.params.expect_later)
        mine = np.maximum(obs.mine, 0)
        own = eff.own
        top = len(obs.race_points) - 1
        # P[n, v, d]: where ducky d stands after the line's cards if a card numbered v + 1
        # goes in (its own move not yet added); mine apart, the others with mine left out
        far = -(1 << 30)
        P = np.where(obs.in_play[None, None, :], obs.pos[:, None, :] + eff.other, far)
        Pm = np.take_along_axis(P, mine[:, None, None].astype(np.int64), axis=2)[:, :, 0]
        P[rows, :, mine] = far
        ahead0 = (P > Pm[:, :, None]).sum(axis=2)
        best_other = P.max(axis=2)
        # a card of my own animal: it moves me
        me = Pm + own
        place_own = (obs.race_points[np.minimum((P > me[:, :, None]).sum(axis=2), top)]
                     + p.margin_weight * (me - best_other))                     # [n, v]
        # a card of ducky s: it moves s
        raised = P + own[:, :, None]                                            # [n, v, s]
        ahead = ahead0[:, :, None] + (raised > Pm[:, :, None]) - (P > Pm[:, :, None])
        place_other = (obs.race_points[np.minimum(ahead, top)]
                       + p.margin_weight * (Pm[:, :, None] - np.maximum(best_other[:, :, None],
                                                                        raised)))
        place = place_other.transpose(0, 2, 1).copy()                           # [n, s, v]
        place[rows, mine] = place_own
        place = place.reshape(n, NTYPES)
        if p.late_only:
            riv = rivals(obs)
            w = np.where(riv, -1.0 / np.maximum(riv.sum(axis=1), 1)[:, None], 0.0)
            w[rows, mine] = 1.0
            late = obs.round >= obs.rounds - p.late_only
            return np.where(late[:, None], place, eff.weighted(w))
        return place

    def policy(self):
        p = self.params
        return K_PROJECTOR, self._claim_knobs() + (p.margin_weight, p.late_only)


K_BACKER, K_SPOILER, K_PROJECTOR = range(3)
CLAIM_MODES = ("hand", "space", "leader")
CLAIM_HAND, CLAIM_SPACE, CLAIM_LEADER = range(3)


@functools.lru_cache(maxsize=None)
def _compiled():
    from . import _safari_sprint_compiled as mod  # numba: compiled on first use

    return mod


STRATEGIES = [Backer, Spoiler, Projector]
BENCHMARK = {"strategy": "backer", "params": {}, "players": 4,
             "mix": [("backer", {}), ("spoiler", {}), ("projector", {}),
                     ("backer", {"claim": "leader"})]}

"""Savannah's printed numbers and the cards (duck! duck! SAFARI!, "Components" and "Savannah").

Every number and option of the printed text is a field with the printed default; every reading
of a gap is explained in docs/rules/savannah.md.

Cards are small integers. The box holds five animals with two sets each of 1-6 (cards 0-59) and
one set of Ducktor Livingstone explorer cards 1-6 (cards 60-65). Card ``c`` has animal ``c // 12``
(0 elephant .. 4 zebra, 5 explorer: the explorer cards count as a sixth kind of animal) and number
``c % 6 + 1``. A card *type* (animal, number) is ``t = animal * 6 + number - 1`` (36 types).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine.protocol import RulesError, rule

ANIMALS = ("Elephant", "Lion", "Monkey", "Tiger", "Zebra", "Explorer")
N_TYPES = 36
BURIED = ("none", "own", "all")     # Rules.buried_on_table, in the order of turn.P_BURIED


@dataclass(frozen=True)
class Rules:
    # ---- Components / Setup
    explorer_cards: bool = rule(
        True, "the six Ducktor Livingstone explorer cards are in the deck (66 cards), as a sixth "
              "kind of animal; false plays with the 60 animal cards", search=[True, False])
    hand_size: int = rule(5, "cards dealt to each player ('deals five to each player')",
        search=range(3, 8))
    first_pile: int = rule(
        0, "cards in the 1st pile after the deal; 0 = half of the rest, the odd card to the 1st "
           "pile ('divide the deck into two roughly equal piles')", search=[0, 16, 20, 24, 32, 36])
    opening_draw: bool = rule(
        False, "players draw a card from the 1st pile after their opening placement (the text "
               "mentions no draw there)", search=[False, True])
    # ---- Step A: Play a card
    touch_face_down: bool = rule(
        True, "a face-down card (in an unplayable space) is a card 'already on the table' that a "
              "new card may touch: a card may go where it touches only face-down cards; false: "
              "only face-up cards count", search=[True, False])
    # ---- Step B: Score your play (phase one)
    line_point: int = rule(1, "phase one: points per card in a line the played card joins",
        search=range(1, 4))
    all_different_less: int = rule(
        1, "phase one: an all-different line (rule C) scores this many points less",
        search=range(0, 3))
    lap_points: int = rule(20, "points per lap of the scoring track (one +20 lap card a lap)")
    # ---- Step C: Find unplayable spaces
    claim_point: int = rule(1, "points for each unplayable space found", search=range(0, 4))
    max_claims: int = rule(
        0, "unplayable spaces a player may claim in one turn; 0 = every one on the table",
        search=range(0, 4))
    buried_on_table: str = rule(
        "none", "which face-down cards count as 'already on the table' when finding unplayable "
                "spaces: none (the test uses face-up cards only), own (also those the finder "
                "buried: it knows them), all (every face-down card)",
                search=["none", "own", "all"])
    # ---- The second phase
    removal_point: int = rule(1, "phase two: points per card removed from the table",
        search=range(0, 4))

    def validate(self) -> None:
        if self.hand_size < 1:
            raise RulesError("hand_size", "must be at least 1")
        if self.first_pile < 0:
            raise RulesError("first_pile", "must be 0 (half) or a number of cards")
        for name in ("line_point", "all_different_less", "claim_point", "removal_point",
                     "max_claims"):
            if getattr(self, name) < 0:
                raise RulesError(name, "must be 0 or more")
        if self.lap_points < 1:
            raise RulesError("lap_points", "must be at least 1")
        if self.buried_on_table not in BURIED:
            raise RulesError("buried_on_table", f"must be one of {', '.join(BURIED)}")

    # derived numbers ------------------------------------------------------------------------
    @property
    def n_cards(self) -> int:
        return 66 if self.explorer_cards else 60

    def pile_sizes(self, n_players: int) -> tuple[int, int]:
        rest = self.n_cards - n_players * self.hand_size
        first = self.first_pile or (rest + 1) // 2
        return first, rest - first

    def check(self, n_players: int) -> None:
        rest = self.n_cards - n_players * self.hand_size
        if rest < 1:
            raise RulesError("hand_size", f"{n_players} hands of {self.hand_size} need more than "
                                          f"the {self.n_cards} cards")
        first, _ = self.pile_sizes(n_players)
        if first > rest:
            raise RulesError("first_pile", f"only {rest} cards are left after the deal")
        if first < 1 + (n_players if self.opening_draw else 0):
            raise RulesError("first_pile", "the 1st pile must outlast the opening placements")


def copies(rules: Rules) -> np.ndarray:
    """int8[36]: how many cards of each type the deck holds."""
    c = np.zeros(N_TYPES, np.int8)
    c[:30] = 2
    if rules.explorer_cards:
        c[30:] = 1
    return c


def card_type(card: int) -> int:
    return (card // 12) * 6 + card % 6


def card_name(card: int) -> str:
    return f"{card % 6 + 1}-{ANIMALS[card // 12]}"


def card_of(name: str, second: bool = False) -> int:
    """The card called e.g. '3-Elephant' (the copy from the second set with ``second``)."""
    num, animal = name.split("-")
    a = [x.lower() for x in ANIMALS].index(animal.lower())
    return a * 12 + (6 if second else 0) + int(num) - 1

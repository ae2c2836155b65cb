"""Strategies that play every game."""

from __future__ import annotations

from .base import Strategy, first_legal, random_legal


class Random(Strategy):
    name = "random"
    summary = "uniform over the legal actions"

    def act(self, obs, legal, rng):
        return random_legal(legal, rng)


class FirstLegal(Strategy):
    name = "first_legal"
    summary = "always the lowest-numbered legal action (a fixed, predictable baseline)"

    def act(self, obs, legal, rng):
        return first_legal(legal)


STRATEGIES = [Random, FirstLegal]

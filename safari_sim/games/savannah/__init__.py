"""Savannah (duck! duck! SAFARI!): the grid game. See game.py."""

from .game import GAME, Obs, Savannah, State
from .rules import Rules, card_name, card_of

__all__ = ["GAME", "Obs", "Rules", "Savannah", "State", "card_name", "card_of"]

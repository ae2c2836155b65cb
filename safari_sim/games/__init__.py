"""The games. Each module here that defines ``GAME`` (a ``Game`` instance) is registered by its id."""

from __future__ import annotations

import importlib
import pkgutil

from ..engine.protocol import Game

_GAMES: dict[str, Game] | None = None


def all_games() -> dict[str, Game]:
    global _GAMES
    if _GAMES is None:
        found = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            mod = importlib.import_module(f"{__name__}.{info.name}")
            game = getattr(mod, "GAME", None)
            if isinstance(game, Game):
                found[game.id] = game
        _GAMES = found
    return _GAMES


def get_game(game_id: str) -> Game:
    games = all_games()
    if game_id not in games:
        import difflib

        near = difflib.get_close_matches(game_id, list(games), n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise KeyError(f"unknown game '{game_id}'{hint} (known: {', '.join(games)})")
    return games[game_id]

"""The games. Each module (or package) here named by a game id defines ``GAME``, a ``Game``
instance with that id. Modules are imported on first use, so one game never pays for another."""

from __future__ import annotations

import difflib
import importlib
import pkgutil

from ..engine.protocol import Game

_LOADED: dict[str, Game] = {}


def game_ids() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def get_game(game_id: str) -> Game:
    if game_id in _LOADED:
        return _LOADED[game_id]
    ids = game_ids()
    if game_id not in ids:
        near = difflib.get_close_matches(game_id, ids, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise KeyError(f"unknown game '{game_id}'{hint} (known: {', '.join(ids)})")
    _refresh_caches(game_id)
    game = getattr(importlib.import_module(f"{__name__}.{game_id}"), "GAME", None)
    if not isinstance(game, Game) or game.id != game_id:
        raise KeyError(f"module safari_sim.games.{game_id} does not define GAME with id '{game_id}'")
    _LOADED[game_id] = game
    return game


def _refresh_caches(game_id: str) -> None:
    """A game's kernels inline the engine's chance and event helpers: recompile them when those
    changed (engine/jit.py says why)."""
    import re
    from pathlib import Path

    from ..engine.jit import KERNEL_HELPERS, refresh_cache

    here = Path(__file__).parent
    files = [here / f"{game_id}.py"] if (here / f"{game_id}.py").exists() else \
        sorted((here / game_id).glob("*.py"))
    for f in files:
        text = f.read_text()
        # a module that keeps its own cache (its own deps: Savannah's turn, worlds, lookahead)
        # must not be stamped here with fewer: two stamps for one file would each find the
        # other's and delete its kernels on every import
        if "refresh_cache(__file__" in text:
            continue
        # a package's module depends on the siblings it imports too (their constants and
        # kernels are compiled into its own)
        near = {m for pair in re.findall(r"^from \.(\w*) import \(?(\w+)", text, re.M)
                for m in pair if m}
        refresh_cache(f, KERNEL_HELPERS + tuple(f.with_name(f"{m}.py") for m in sorted(near)
                                                if f.with_name(f"{m}.py").exists()
                                                and f.with_name(f"{m}.py") != f))


def all_games() -> dict[str, Game]:
    return {gid: get_game(gid) for gid in game_ids()}

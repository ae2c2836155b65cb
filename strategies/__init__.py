"""Strategy registry: the generic strategies, each game's own (module ``strategies/<game id>.py``
with a ``STRATEGIES`` list), and a user's own from a file (``path/to/bots.py:Name``: a class, or a
function of one game, ``fn(view, legal, rng, **knobs)``)."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import pkgutil
import sys
from pathlib import Path

from .base import Strategy, per_game

_CACHE: dict[str | None, dict[str, type[Strategy]]] = {}


class StrategyNotFound(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0])


def _module_strategies(modname: str) -> list[type[Strategy]]:
    try:
        mod = importlib.import_module(f"{__name__}.{modname}")
    except ModuleNotFoundError as e:
        if e.name == f"{__name__}.{modname}":
            return []
        raise
    return list(getattr(mod, "STRATEGIES", []))


def strategies_for(game_id: str) -> dict[str, type[Strategy]]:
    """Every strategy that can play ``game_id``: the generic ones first, then the game's own."""
    if game_id not in _CACHE:
        found = {s.name: s for m in ("generic", "search") for s in _module_strategies(m)}
        found.update({s.name: s for s in _module_strategies(game_id)})
        _CACHE[game_id] = found
    return _CACHE[game_id]


def load_module(path_s: str, base_dir: Path | None = None, what: str = "file"):
    """The Python file ``path_s`` (relative to ``base_dir``) as a module, loaded once per
    process; FileNotFoundError or ImportError with one plain message."""
    path = Path(path_s)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    if not path.is_file():
        raise FileNotFoundError(f"{what} '{path_s}' not found")
    modname = f"_safari_user_{abs(hash(str(path.resolve())))}"
    if modname not in sys.modules:
        spec_ = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec_)
        sys.modules[modname] = mod
        try:
            spec_.loader.exec_module(mod)
        except Exception as e:
            del sys.modules[modname]
            raise ImportError(f"{what} '{path_s}' failed to load: {e}") from e
    return sys.modules[modname]


def load_named(spec: str, base_dir: Path | None, what: str, form: str):
    """(module, file, name) of ``path/to/file.py:NAME``; ValueError with one plain message."""
    if ":" not in spec:
        raise ValueError(f"'{spec}' should be path/to/file.py:{form}")
    path_s, name = spec.rsplit(":", 1)
    try:
        return load_module(path_s, base_dir, what), path_s, name
    except (FileNotFoundError, ImportError) as e:
        raise ValueError(str(e)) from e


def load_user_strategy(spec: str, base_dir: Path | None = None) -> type[Strategy]:
    """``path/to/bots.py:Name``, a Strategy subclass or a per-game function (``per_game``); a
    relative path is taken from ``base_dir``."""
    try:
        mod, path_s, cls_name = load_named(spec, base_dir, "strategy file",
                                           "Name (a class or a function)")
    except ValueError as e:
        raise StrategyNotFound(str(e)) from e
    cls = getattr(mod, cls_name, None)
    if cls is None:
        found = sorted(n for n, v in vars(mod).items()
                       if getattr(v, "__module__", "") == mod.__name__ and not n.startswith("_")
                       and (inspect.isfunction(v) and len(inspect.signature(v).parameters) >= 3
                            or inspect.isclass(v) and issubclass(v, Strategy)))
        near = difflib.get_close_matches(cls_name, found, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise StrategyNotFound(f"'{path_s}' has no strategy '{cls_name}'{hint} (its strategies: "
                               f"{', '.join(found) or 'none'})")
    if inspect.isfunction(cls):  # a designer's per-game function: fn(view, legal, rng, **knobs)
        try:
            return per_game(cls)
        except TypeError as e:
            raise StrategyNotFound(f"'{path_s}': {e}") from None
    if not (inspect.isclass(cls) and issubclass(cls, Strategy)):
        raise StrategyNotFound(f"'{cls_name}' in '{path_s}' is neither a strategies.base.Strategy "
                               f"subclass nor a function (view, legal, rng)")
    return cls


def get_strategy(game_id: str, use: str, base_dir: Path | None = None) -> type[Strategy]:
    if ":" in use or use.endswith(".py"):
        cls = load_user_strategy(use, base_dir)
    else:
        known = strategies_for(game_id)
        if use not in known:
            other = _other_games_with(use, game_id)
            if other:
                raise StrategyNotFound(
                    f"'{use}' is a strategy of {' and '.join(other)}, not of {game_id} "
                    f"(known for {game_id}: {', '.join(known)})")
            near = difflib.get_close_matches(use, list(known), n=1)
            hint = f"; did you mean '{near[0]}'?" if near else ""
            raise StrategyNotFound(
                f"unknown strategy '{use}' for {game_id}{hint} (known: {', '.join(known)})")
        cls = known[use]
    if cls.game is not None and cls.game != game_id:
        raise StrategyNotFound(f"strategy '{use}' plays {cls.game}, not {game_id}")
    return cls


def _other_games_with(name: str, game_id: str) -> list[str]:
    """The other games that have a strategy of this name (a strategy asked of the wrong game)."""
    from safari_sim.games import game_ids

    return [g for g in game_ids() if g != game_id
            and any(s.name == name for s in _module_strategies(g))]


def all_strategy_modules() -> list[str]:
    return [m.name for m in pkgutil.iter_modules(__path__) if m.name != "base" and not m.name.startswith("_")]

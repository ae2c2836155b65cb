"""A designer's own measures: ``measures: [FILE.py:FUNCTION, ...]`` in an experiment file.

Each is a plain function of one finished game, ``fn(game) -> number`` (or one number per seat),
given a ``FinishedGame``: its outcome (``score``, ``rank``, ``win`` per seat, ``turns``,
``stats``: the game's own statistics) and its final position with everything revealed
(``position.FIELD``: the game's state arrays, this game's row, read-only), ``rules`` and
``players``. The dataset gets a column named after the function, which ``tune`` can take as
its objective (``kind: column``), ``sensitivity`` as a measure, and ``compare`` and the report
show. It runs as plain Python once per game, after each batch: the designer's choice, like a
per-game strategy.
"""

from __future__ import annotations

import difflib
import inspect
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from ..engine.protocol import sealed_copy


class MeasureError(ValueError):
    pass


# the dataset's own columns: a measure named like one would hide it
CORE = ("variant", "variant_id", "game", "deal", "seat", "strategy", "score", "rank", "win",
        "players", "turns", "team", "decisions")


def load_measure(spec: str, base_dir: Path | None) -> Callable[[Any], Any]:
    """The function ``spec`` names (``path/to/file.py:FUNCTION``, relative to ``base_dir``)."""
    from strategies import load_named

    try:
        mod, path_s, name = load_named(spec, base_dir, "measure file", "FUNCTION")
    except ValueError as e:
        raise MeasureError(str(e)) from None
    fn = getattr(mod, name, None)
    if fn is None or not callable(fn):
        found = sorted(n for n, v in vars(mod).items() if inspect.isfunction(v)
                       and v.__module__ == mod.__name__ and not n.startswith("_"))
        near = difflib.get_close_matches(name, found, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise MeasureError(f"'{path_s}' has no function '{name}'{hint} (its functions: "
                           f"{', '.join(found) or 'none'})")
    params = [p for p in inspect.signature(fn).parameters.values() if p.default is p.empty]
    if len(params) != 1:
        raise MeasureError(f"'{name}' should take one argument, the finished game "
                           f"(fn(game) -> number), not {len(params)}")
    if name in CORE:
        raise MeasureError(f"'{name}' is a column of the dataset already: name the function "
                           "otherwise (the column is named after it)")
    return fn


def position_rows(state: Any, constants: tuple[str, ...] = ()) -> tuple[dict, dict]:
    """(rows, constants): the state's arrays whose first axis is the batch (each game's row:
    everything it holds, revealed), and the arrays every game shares (card tables, rules
    numbers), which a game names in ``constant_fields`` where their length could pass for one."""
    n = len(state.rs)
    rows, shared = {}, {}
    for k, v in vars(state).items():
        if not isinstance(v, np.ndarray) or k.startswith("_"):
            continue
        if v.ndim and v.shape[0] == n and k not in constants:
            rows[k] = v
        else:
            shared[k] = v
    return rows, shared


def compute(fns: dict[str, Callable[[Any], Any]], outcome: Any, state: Any, rules: Any,
            players: int, constants: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """{name: float64[n] or [n, P]}: each measure of each finished game of the batch."""
    if not fns:
        return {}
    n = outcome.score.shape[0]
    rows, shared = position_rows(state, constants)
    shared = {k: sealed_copy(v) for k, v in shared.items()}
    stats = {k: np.asarray(v) for k, v in outcome.stats.items()}
    out: dict[str, np.ndarray] = {}
    for name, fn in fns.items():
        if name in stats:
            raise MeasureError(f"measures: '{name}' is a statistic of the game already: name "
                               "the function otherwise (the column is named after it)")
        values = []
        for b in range(n):
            game = SimpleNamespace(
                score=outcome.score[b].tolist(), rank=outcome.rank[b].tolist(),
                win=outcome.win[b].tolist(), turns=int(outcome.turns[b]),
                stats={k: (v[b].tolist() if v.ndim > 1 else v[b].item()) for k, v in stats.items()},
                position=SimpleNamespace(**shared, **{k: sealed_copy(v[b]) for k, v in rows.items()}),
                rules=rules, players=players)
            try:
                v = fn(game)
            except Exception as e:
                e.add_note(f"(measure '{name}', game {b} of the batch)")
                raise
            values.append(_number(name, v, players))
        if len({isinstance(v, list) for v in values}) > 1:
            raise MeasureError(f"measure '{name}' returned a number in some games and one per "
                               "seat in others: one kind, every game")
        out[name] = np.array(values, dtype=np.float64)
    return out


def _number(name: str, v: Any, players: int) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    try:
        seq = [float(x) for x in v]
    except TypeError:
        raise MeasureError(f"measure '{name}' returned {v!r}: a number, or one number per "
                           "seat, is what a column holds") from None
    if len(seq) != players:
        raise MeasureError(f"measure '{name}' returned {len(seq)} numbers for {players} seats")
    return seq

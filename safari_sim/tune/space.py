"""What a tune searches: one ``Param`` per key (``rules.FIELD`` or ``strategies.NAME.params.KNOB``).

A rules field's values come from its declared ``search`` (``rule(default, doc, search=...)``: a
``range`` of whole numbers, a ``(lo, hi)`` pair of floats, or a list of choices) unless the tune
file gives them; a strategy knob's from the bounds its Params declare (``Field(ge=..., le=...)``)
unless the file gives them. The file's form: ``{low: a, high: b}`` (with ``step`` or ``log``),
``{choices: [...]}``, a plain list of choices, or nothing (null) to take the declared values.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import annotated_types


class SpaceError(ValueError):
    """A search key whose values cannot be known or are not usable; the message names the key."""


@dataclass(frozen=True)
class Param:
    key: str                    # rules.FIELD or strategies.NAME.params.KNOB
    kind: str                   # "int", "float" or "choice"
    low: float | None = None
    high: float | None = None
    step: float | None = None
    log: bool = False
    choices: tuple | None = None
    source: str = "tune file"   # or "declared" (the rules field) or "knob bounds"

    def labels(self) -> list[Any]:
        """The choices as Optuna stores them: None, bool, int, float or str; a list (a die's
        faces) as its JSON text."""
        if all(c is None or isinstance(c, (bool, int, float, str)) for c in self.choices):
            return list(self.choices)
        return [json.dumps(list(c)) if isinstance(c, (list, tuple)) else json.dumps(c) for c in self.choices]

    def decode(self, stored: Any) -> Any:
        """The value of a trial's stored parameter (``trial.params[key]``)."""
        if self.kind != "choice":
            return stored
        return self.choices[self.labels().index(stored)]

    def suggest(self, trial: Any) -> Any:
        """The value of this parameter for an Optuna trial."""
        if self.kind == "choice":
            return self.decode(trial.suggest_categorical(self.key, self.labels()))
        if self.kind == "int":
            return trial.suggest_int(self.key, int(self.low), int(self.high),
                                     step=int(self.step or 1), log=self.log)
        return trial.suggest_float(self.key, float(self.low), float(self.high), step=self.step,
                                   log=self.log)

    def corners(self) -> list[Any]:
        """Values worth checking before a search starts: the ends of a range, every choice."""
        if self.kind == "choice":
            return list(self.choices)
        if self.kind == "int":
            step = int(self.step or 1)
            last = int(self.low) + (int(self.high) - int(self.low)) // step * step
            return [int(self.low), last]
        return [float(self.low), float(self.high)]

    def describe(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(map(str, self.choices))
        step = f" step {self.step:g}" if self.step else ""
        return f"{self.low:g} to {self.high:g}{step}{' (log)' if self.log else ''}"


def declared_text(search: Any) -> str:
    """A field's declared ``search`` as `safari-sim rules` shows it."""
    if search is None:
        return "-"
    if isinstance(search, range):
        last = search.start + (len(search) - 1) * search.step if len(search) else search.start
        return f"{search.start} to {last}" + (f" step {search.step}" if search.step != 1 else "")
    if _is_float_pair(search):
        return f"{search[0]:g} to {search[1]:g}"
    return "one of " + ", ".join("null" if v is None else json.dumps(list(v)) if isinstance(v, (list, tuple))
                                 else str(v) for v in search)


def _is_float_pair(search: Any) -> bool:
    return (isinstance(search, tuple) and len(search) == 2
            and all(isinstance(v, float) for v in search))


def from_declared(key: str, search: Any, field_type: Any = None) -> Param:
    """A Param from a rules field's declared ``search``."""
    if isinstance(search, range):
        if len(search) == 0:
            raise SpaceError(f"{key}: its declared search range is empty")
        last = search.start + (len(search) - 1) * search.step
        return Param(key, "int", search.start, last, search.step if search.step != 1 else None,
                     source="declared")
    if _is_float_pair(search) or (field_type is float and isinstance(search, tuple) and len(search) == 2
                                  and all(isinstance(v, (int, float)) for v in search)):
        return Param(key, "float", float(search[0]), float(search[1]), source="declared")
    if isinstance(search, tuple) and search:
        return Param(key, "choice", choices=tuple(_choice(v) for v in search), source="declared")
    raise SpaceError(f"{key}: its declared search {search!r} is not a range, a (lo, hi) pair or a "
                     "list of choices")


def _choice(v: Any) -> Any:
    # Optuna's categorical values are None, bool, int, float or str; a list (a tuple field's
    # value) travels as a tuple and comes back a list
    return tuple(v) if isinstance(v, list) else v


def knob_bounds(key: str, field_info: Any) -> Param | None:
    """A Param from a pydantic field's ``ge``/``le`` (or ``gt``/``lt``) bounds, or None when the
    knob is unbounded on a side (then the tune file must give the range)."""
    ann = field_info.annotation
    lo = hi = None
    for m in field_info.metadata:
        if isinstance(m, annotated_types.Ge):
            lo = m.ge
        elif isinstance(m, annotated_types.Gt):
            lo = m.gt
        elif isinstance(m, annotated_types.Le):
            hi = m.le
        elif isinstance(m, annotated_types.Lt):
            hi = m.lt
    if ann is bool:
        return Param(key, "choice", choices=(False, True), source="knob bounds")
    if lo is None or hi is None or ann not in (int, float):
        return None
    return Param(key, "int" if ann is int else "float", lo, hi, source="knob bounds")


def from_file(key: str, spec: Any, integer: bool) -> Param:
    """A Param from the tune file's value of ``search.KEY`` (not null)."""
    if isinstance(spec, list):
        spec = {"choices": spec}
    if not isinstance(spec, dict):
        raise SpaceError(f"search.{key}: give {{low: A, high: B}}, {{choices: [...]}}, a list of "
                         f"choices, or nothing (the declared values); got {spec!r}")
    unknown = sorted(set(spec) - {"low", "high", "step", "log", "choices"})
    if unknown:
        raise SpaceError(f"search.{key}.{unknown[0]}: unknown key; known keys: low, high, step, log, "
                         "choices")
    if "choices" in spec:
        if set(spec) != {"choices"}:
            raise SpaceError(f"search.{key}: give choices or low/high, not both")
        c = spec["choices"]
        if not isinstance(c, list) or not c:
            raise SpaceError(f"search.{key}.choices: give a list of at least one value")
        return Param(key, "choice", choices=tuple(_choice(v) for v in c))
    for end in ("low", "high"):
        if end not in spec:
            raise SpaceError(f"search.{key}.{end}: required key is missing")
        v = spec[end]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise SpaceError(f"search.{key}.{end}: expected a number, got {v!r}")
    low, high = spec["low"], spec["high"]
    if not low < high:
        raise SpaceError(f"search.{key}: low ({low}) must be below high ({high})")
    step = spec.get("step")
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise SpaceError(f"search.{key}.log: expected true or false, got {log!r}")
    if step is not None and (isinstance(step, bool) or not isinstance(step, (int, float)) or step <= 0):
        raise SpaceError(f"search.{key}.step: expected a number above 0, got {step!r}")
    if log and (low <= 0 or step is not None):
        raise SpaceError(f"search.{key}.log: a log scale needs low above 0 and no step")
    if integer:
        for end, v in (("low", low), ("high", high), ("step", step)):
            if v is not None and float(v) != int(v):
                raise SpaceError(f"search.{key}.{end}: the value is a whole number, got {v!r}")
        return Param(key, "int", int(low), int(high), int(step) if step else None, log)
    return Param(key, "float", float(low), float(high), float(step) if step else None, log)

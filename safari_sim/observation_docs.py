"""What each game's observation holds, field by field, read from the game's source.

A game documents its observation (a subclass of ``engine.protocol.Observation``, named ``Obs``)
the way the code reads: the class docstring, then one line per field with a comment after it
(continued on comment lines below), and properties computed on demand with docstrings. This
module reads that text back with ``ast`` and ``tokenize``, so ``safari-sim strategies GAME
--observation`` and docs/observations.md always say what the source says:

    python -m safari_sim.observation_docs > docs/observations.md
"""

from __future__ import annotations

import ast
import inspect
import io
import sys
import textwrap
import tokenize
from dataclasses import dataclass

from .engine.protocol import Observation

# Fields every observation carries (engine.protocol), described once when a game leaves them bare.
COMMON = {
    "game": "int[n] batch index of each observed game (for strategies that keep memory)",
    "seat": "this player's seat (0 = the game's first player)",
    "kind": "the kind of decision to make (the game's decision kinds)",
}


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    doc: str
    on_demand: bool = False


def observation_class(game) -> type:
    """The game's observation class: the Observation subclass its module defines."""
    module = sys.modules[type(game).__module__]
    found = [v for v in vars(module).values()
             if isinstance(v, type) and issubclass(v, Observation) and v is not Observation]
    if not found:
        raise LookupError(f"{game.id}: no Observation subclass in {module.__name__}")
    return found[0]


def _comments(source: str) -> dict[int, str]:
    """Comment text by line number (1-based, within ``source``)."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string.lstrip("#").strip()
    return out


def _comment_after(line: int, comments: dict[int, str], lines: list[str]) -> str:
    """The comment on ``line`` and its continuation: the comment-only lines right below it."""
    parts = [comments[line]] if line in comments else []
    k = line + 1
    while parts and k <= len(lines) and lines[k - 1].strip().startswith("#"):
        parts.append(comments[k])
        k += 1
    return " ".join(p for p in parts if p)


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())


def fields(cls: type) -> list[Field]:
    """Every public field of the observation, in the source's order, then what it works out on
    demand (properties), each with the text the source gives it."""
    source = textwrap.dedent(inspect.getsource(cls))
    lines = source.splitlines()
    comments = _comments(source)
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.ClassDef)
    out: list[Field] = []
    seen: set[str] = set()

    def add(name: str, type_: str, doc: str, on_demand: bool = False) -> None:
        if name.startswith("_") or name in seen or name == "shared" or name.endswith("_action"):
            return
        seen.add(name)
        out.append(Field(name, type_, doc or COMMON.get(name, ""), on_demand))

    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            ann = ast.unparse(item.annotation)
            if not ann.startswith("ClassVar"):
                add(item.target.id, ann, _comment_after(item.lineno, comments, lines))
    init = next((i for i in node.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None)
    if init is not None:  # an observation that is not a dataclass: its fields are set in __init__
        for stmt in ast.walk(init):
            if isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        add(t.attr, "", _comment_after(stmt.lineno, comments, lines))
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and any(
                (isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
                or (isinstance(d, ast.Attribute) and d.attr == "cached_property") for d in item.decorator_list):
            add(item.name, "", _first_paragraph(ast.get_docstring(item)), on_demand=True)
    return out


@dataclass(frozen=True)
class Helper:
    call: str    # how a strategy writes it: view.steal_action(offset, k)
    doc: str


def helpers(cls: type) -> list[Helper]:
    """The observation's action helpers (its methods and properties named ``*_action``), in the
    source's order: each builds an action number from its meaning."""
    out = []
    for name, v in vars(cls).items():
        if name.startswith("_") or not name.endswith("_action"):
            continue
        if isinstance(v, property):   # read as a value, no call
            out.append(Helper(f"view.{name}", _first_paragraph(v.__doc__)))
        elif callable(v):
            args = list(inspect.signature(v).parameters)[1:]
            out.append(Helper(f"view.{name}({', '.join(args)})", _first_paragraph(v.__doc__)))
    return out


def _rules_meanings(game) -> dict[str, str]:
    import dataclasses

    try:
        return {f.name: f.metadata.get("doc", "") for f in dataclasses.fields(game.Rules)}
    except TypeError:
        return {}


def describe(game) -> tuple[str, list[Field]]:
    """(the class docstring, its fields) for a game. A field the source leaves bare that carries
    a rules field of the same name gets that field's meaning (``safari-sim rules GAME``)."""
    cls = observation_class(game)
    meanings = _rules_meanings(game)
    doc = inspect.cleandoc(cls.__doc__ or "")

    def text(f: Field) -> str:
        if f.doc:
            return f.doc
        if _from_docstring(f.name, doc):
            return _from_docstring(f.name, doc)
        if f.type in ("int", "bool", "float", "str", "int | None") and meanings.get(f.name):
            return f"the rules' `{f.name}`: {meanings[f.name]}"
        return ""

    return doc, [Field(f.name, f.type, text(f), f.on_demand) for f in fields(cls)]


def _from_docstring(name: str, doc: str) -> str:
    """For a field the class docstring names (``name``): its parenthesis there, if any, else a
    pointer to that text; empty when the docstring does not name it."""
    flat = " ".join(doc.split())
    at = flat.find(f"``{name}``")
    if at < 0:
        return ""
    rest = flat[at + len(name) + 4:]
    if rest.startswith(" ("):
        depth, end = 0, 1
        for end, ch in enumerate(rest[1:], 1):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                break
        return rest[2:end] + " (see the text above)"
    return "named in the text above"


def markdown(game) -> str:
    doc, rows = describe(game)
    cls = observation_class(game)
    shared = [s for s in getattr(cls, "shared", ()) if not s.startswith("_")]
    out = [f"## {game.name} (`{game.id}`)", "",
           f"`{cls.__module__}.{cls.__qualname__}`" + (f"; shared by all observed games: "
                                                        f"{', '.join(f'`{s}`' for s in shared)}"
                                                        if shared else ""), ""]
    if doc:
        out += [doc, ""]
    out += ["| field | type | what it holds |", "| --- | --- | --- |"]
    for f in rows:
        what = f.doc or "(not described in the source)"
        if f.on_demand:
            what = "(worked out on demand) " + what
        out.append(f"| `{f.name}` | {f.type or '-'} | {what.replace('|', '/')} |")
    helps = helpers(cls)
    if helps:
        out += ["", "Action helpers (the action number of a meaning; on the batch observation "
                "each argument may be an array, one entry per game):", "",
                "| helper | the action |", "| --- | --- |"]
        out += [f"| `{h.call}` | {h.doc.replace('|', '/')} |" for h in helps]
    return "\n".join(out) + "\n"


def document() -> str:
    """docs/observations.md: every game's observation."""
    from .games import all_games

    head = ("# What a strategy sees: each game's observation\n\n"
            "Generated from the games' source by `python -m safari_sim.observation_docs > "
            "docs/observations.md` (tests/test_report.py checks it is up to date); "
            "`safari-sim strategies GAME --observation` prints the same for one game.\n\n"
            "A strategy's `act(obs, legal, rng)` gets one observation for all the games where this "
            "seat is to move: every array's first axis is those games (`n`), except the fields "
            "shared by all of them. Shapes name the game's sizes: P players, T card types, and so "
            "on, as the game's module defines them. \"On demand\" fields are worked out from the "
            "snapshot when first read. A function written for one game (`fn(view, legal, rng)`, "
            "`use: FILE.py:FUNCTION`) reads the same fields on `view`, that game's values: a "
            "number where the array is `[n]`, a row where it is `[n, P]`, and a row padded to "
            "the batch's widest game (Savannah's candidate lists, and its `width`) cut to that "
            "game's own entries.\n")
    return head + "".join("\n" + markdown(g) for g in all_games().values())


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(document())

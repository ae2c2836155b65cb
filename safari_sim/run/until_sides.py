"""The two sides of ``until: {compare: [A, B]}``: a strategy, or in a game played in teams a pair
of partners written "a + b" (two strategies that partner each other, in either order).

``sides`` reads what the designer wrote; ``problem`` says, before any game is played, why the
comparison could never be made (a name the experiment does not have, a pair that is never seated
as partners, two sides that never meet as opponents), or None. Whether two strategies are
partners or opponents is read from the seating plan the run will play and the game's teams
(``Game.teams``) in each variant, so the answer is exact for every seating.
"""

from __future__ import annotations

import difflib
import math
from typing import Any

JOIN = "+"


def sides(compare: list[str], known: list[str] | None = None) -> list[tuple[str, ...]]:
    """Each side's strategy names: ("a",) or ("a", "b") for "a + b". A name the experiment
    has whole (``known``) is one strategy, even with a "+" in it."""
    out = []
    for text in compare:
        if known is not None and text in known:
            out.append((text,))
        else:
            out.append(tuple(n.strip() for n in str(text).split(JOIN)))
    return out


def side_text(side: tuple[str, ...]) -> str:
    return " + ".join(side)


def problem(compare: list[str], seating: str, players: int, game: Any, variants: list[Any]) -> str | None:
    """Why ``compare`` cannot be played as written (one message naming it), or None."""
    from .runner import seating_plan

    known = list(dict.fromkeys(s.name for v in variants for s in v.strategies))
    parsed = sides(compare, known)
    for text, side in zip(compare, parsed):
        if any(not n for n in side):
            return (f"until.compare: '{text}' is not a strategy or a pair of partners: write a name, "
                    f"or two joined by +, as 'collector + patient'")
        for name in side:
            if name not in known:
                near = difflib.get_close_matches(name, known, n=1)
                hint = f"; did you mean '{near[0]}'?" if near else f" (strategies: {', '.join(known)})"
                within = f" (in '{text}')" if len(side) > 1 else ""
                return f"until.compare: no strategy named '{name}'{within}{hint}"
        twice = [n for n in dict.fromkeys(side) if side.count(n) > 1]
        if twice:
            return (f"until.compare: '{text}' names {twice[0]} twice: a pair of partners is two "
                    f"strategies of the experiment, each seated once at a table")
    a, b = parsed
    if set(a) & set(b):
        return (f"until.compare: '{side_text(a)}' and '{side_text(b)}' share "
                f"{sorted(set(a) & set(b))[0]}, so they never play against each other")
    team_game = any(game.teams(v.rules, players) is not None for v in variants)
    pair = next((s for s in parsed if len(s) > 1), None)
    if pair is not None and not team_game:
        return (f"until.compare: '{side_text(pair)}' is a pair of partners, but {game.name} at {players} "
                f"players is not played in teams here; compare two strategies")
    seen = _seen(a, b, seating, players, game, variants, seating_plan)
    for side in parsed:
        if len(side) > 1 and not seen["partners"][side]:
            pairs = ", ".join(sorted(seen["pairs"])) or "none"
            return (f"until.compare: {side_text(side)} are never partners (seating: {seating}), so no game "
                    f"has them in one team; the pairs of partners that play: {pairs}")
    if seen["opponents"]:
        return None
    if len(a) == 1 and len(b) == 1:
        return (f"until.compare: {a[0]} and {b[0]} are partners in every game (seating: {seating}), and "
                "partners win and lose together, so the comparison can never end; compare two strategies "
                "of opposing teams, or use seating: permute")
    return (f"until.compare: {side_text(a)} and {side_text(b)} never meet as opponents (seating: {seating}), so "
            "the comparison can never end; compare two sides that play against each other")


def _seen(a: tuple[str, ...], b: tuple[str, ...], seating: str, players: int, game: Any, variants: list[Any],
          seating_plan) -> dict:
    """Over every table the run seats (one cycle of its seating plan, in every variant): whether
    each side sits as one team ("partners"), whether the two meet in opposing teams
    ("opponents"), and the pairs of partners that play ("pairs")."""
    cycle = {"fixed": 1, "permute": math.factorial(players)}.get(seating, players)
    out = {"partners": {a: False, b: False}, "opponents": False, "pairs": set()}
    for v in variants:
        teams = game.teams(v.rules, players)
        teams = list(range(players)) if teams is None else [int(t) for t in teams]
        names = [s.name for s in v.strategies]
        for row in seating_plan(seating, players, 0, cycle):
            team_of = {names[int(i)]: teams[seat] for seat, i in enumerate(row)}
            for t in set(teams):
                members = sorted(n for n, k in team_of.items() if k == t)
                if len(members) > 1:
                    out["pairs"].add(" + ".join(members))
            one = {}
            for side in (a, b):
                at = {team_of[n] for n in side if n in team_of}
                one[side] = len(at) == 1 and all(n in team_of for n in side)
                out["partners"][side] |= one[side] and len(side) > 1
            if one[a] and one[b] and team_of[a[0]] != team_of[b[0]]:
                out["opponents"] = True
    return out

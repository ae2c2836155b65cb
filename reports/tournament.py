"""The report's experiment-design sections: the tournament over a pool, whether neighbours
matter (under ``seating: permute``) and why a run with ``until:`` stopped.

``design_view`` returns what ``tournament.html.j2`` renders and the bullets for "What this says";
every number comes from ``safari_sim.stats.tournament`` and ``safari_sim.stats.neighbours``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from safari_sim.stats import teams
from safari_sim.stats.neighbours import neighbour_sentence, neighbour_tests
from safari_sim.stats.tournament import best_sentence, is_tournament, tournament


def stopped_sentence(experiment: dict[str, Any]) -> str | None:
    """Why a run with ``until:`` stopped (from experiment.json "stopped"), or None."""
    s = experiment.get("stopped")
    if not s:
        return None
    budget = experiment.get("games_per_variant")
    played = s.get("games_per_variant")
    if s.get("early"):
        of = f" of its budget of {budget:,}" if budget else ""
        chunk = f" (at the end of chunk {s['after_chunk']})" if s.get("after_chunk") is not None else ""
        return f"The run stopped early, after {played:,}{of} games per variant{chunk}: {s.get('reason', '')}."
    return f"The run played its whole budget of {played:,} games per variant: {s.get('reason', '')}."


def design_view(lf: pl.LazyFrame, experiment: dict[str, Any]) -> dict[str, Any]:
    """{"tournament": ratings, matrix and verdict or None, "neighbours": the tests (one, or in
    a mixed experiment one for the variants in teams and one for the others) with their
    sentences, or None, "stopped": a sentence or None, "bullets": for the summary}."""
    out: dict[str, Any] = {"tournament": None, "neighbours": None, "stopped": stopped_sentence(experiment),
                           "bullets": []}
    if out["stopped"]:
        out["bullets"].append([out["stopped"]])
    if is_tournament(experiment):
        from .view import _cell_colour  # late: view imports this module

        # in a team game the unit is a pair of partners (stats/teams.py)
        team_lf, lay = teams.read_as_teams(lf, experiment)
        t = tournament(team_lf)
        cells = {(r["strategy"], r["opponent"]): {**r, "style": _cell_colour(r["rate"])}
                 for r in t["matrix"].to_dicts()}
        verdict = best_sentence(t, teams=bool(len(lay)))
        out["tournament"] = {"ratings": t["ratings"].to_dicts(), "names": t["names"], "cells": cells,
                             "best": t["best"], "verdict": verdict,
                             "partners": bool(len(lay))}
        out["bullets"].append(["Tournament: ", *verdict])
    if experiment.get("seating") == "permute":
        # one test per way of playing: a mixed experiment's team variants and its others apart
        out["neighbours"] = [{**n, "sentence": neighbour_sentence(n)} for n in neighbour_tests(lf, experiment)]
        out["bullets"] += [[n["sentence"]] for n in out["neighbours"]]
    return out

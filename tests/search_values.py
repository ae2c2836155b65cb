"""The values a game's Rules declare for tuning (issue 14), as test cases: each declared value of
each field, alone (the other fields printed)."""

from __future__ import annotations

from safari_sim.engine.protocol import search_space


def search_cases(rules_cls) -> list[tuple[str, object]]:
    """(field, value) for every declared search value."""
    return [(name, v) for name, vals in search_space(rules_cls).items() for v in vals]


def case_ids(cases) -> list[str]:
    return [f"{n}={v}" for n, v in cases]


def check_declared(game, required) -> None:
    """The fields ``required`` declare values, and every declared field's printed value is one
    of its values (a tuner starts from the printed game)."""
    space = search_space(game.Rules)
    printed = game.make_rules()
    assert set(required) <= set(space), set(required) - set(space)
    for name, vals in space.items():
        assert getattr(printed, name) in vals, f"{name}: the printed value is not among its values"

"""Numbers as a designer reads them: percentages, percentage points, p-values, and the seat verdict."""

from __future__ import annotations

import math


def pct(x: float, digits: int = 1) -> str:
    """0.3691 -> '36.9%'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.{digits}f}%"


def pm(lo: float, hi: float) -> str:
    """Half the width of an interval of shares, for table cells: '± 0.7%' (percentage points:
    36.9% ± 0.7% runs from 36.2% to 37.6%), with the decimals ``digits_for`` gives the interval.
    Sentences use ``ci`` instead."""
    return f"± {100 * (hi - lo) / 2:.{digits_for(hi - lo)}f}%"


def decimals(width: float, least: int = 0, most: int = 3) -> int:
    """Decimals that print the two ends of an interval ``width`` wide (in the unit printed) apart:
    ``least`` while it is 5 units or more, one more for each tenfold narrower, at most ``most``
    (an Elo interval 2 points wide is "-0.9 to +1.1", not "-0 to +0")."""
    w = abs(width)
    if not w or not math.isfinite(w):  # an exact number (or none): the ends are equal anyway
        return least
    d = least
    while d < most and w < 5 * 10.0 ** -d:
        d += 1
    return d


def digits_for(width: float) -> int:
    """Decimals of a percentage that show an interval ``width`` (a share) wide: one while it is
    half a percentage point or more, then two, then three (at 100 M games an interval is a few
    hundredths of a point wide: one decimal would print it as "44.7% to 44.7%"). Tables and
    sentences both use it."""
    return decimals(100 * width, 1, 3)


def ci(lo: float, hi: float) -> str:
    """An interval of shares in words: '(interval 36.2% to 37.6%)', with as many decimals as
    its width needs."""
    d = digits_for(hi - lo)
    return f"(interval {interval(lo, hi)})"


def rate_ci(rate: float, lo: float, hi: float) -> str:
    """A share with its interval: '53.01% (interval 52.78% to 53.14%)', the estimate with its
    interval's decimals (not '53.0% (interval 52.78% to 53.14%)')."""
    return f"{pct(rate, digits_for(hi - lo))} {ci(lo, hi)}"


def share_of_games(rate: float, lo: float, hi: float, games: int, owner: str = "their",
                   together: str = " together", label: str = "interval ", bottom: bool = True) -> str:
    """"62.1% (interval ...) of their games together", said as a finding at the ends: "every one
    of their 3,000 games together" (not "100.0%", which reads as rounding), "more than 99.9%",
    "fewer than 0.1%", "none of their ... games" (docs/reports.md, "Certain margins"). ``label``
    starts the parentheses ("" for "(98.1% to 100.0%)"); ``bottom=False`` for a number whose
    zero is not "none" (a share of games skill decides can go below it)."""
    d = digits_for(hi - lo)
    inside = f"({label}{pct(lo, d)} to {pct(hi, d)})"
    if rate >= 1:
        return f"every one of {owner} {games:,} games{together} {inside}"
    if pct(rate) == pct(1.0):
        return f"more than 99.9% {inside} of {owner} {games:,} games{together}"
    if bottom and rate <= 0:
        return f"none of {owner} {games:,} games{together} {inside}"
    if bottom and pct(rate) == pct(0.0):
        return f"fewer than 0.1% {inside} of {owner} {games:,} games{together}"
    return f"{pct(rate, d)} {inside} of {owner} games{together}"


def share_cell(rate: float, lo: float, hi: float, games: int, bottom: bool = True) -> str:
    """The same share in a table cell: 'all 400' (every game), '> 99.9%', '< 0.1%', 'none',
    else the share with the decimals its interval needs ('62.1%')."""
    if rate >= 1:
        return f"all {games:,}"
    if pct(rate) == pct(1.0):
        return "> 99.9%"
    if bottom and rate <= 0:
        return "none"
    if bottom and pct(rate) == pct(0.0):
        return "< 0.1%"
    return pct(rate, digits_for(hi - lo))


def interval(lo: float, hi: float) -> str:
    """An interval of shares without the parentheses: '36.2% to 37.6%' (decimals as ``ci``)."""
    d = digits_for(hi - lo)
    return f"{pct(lo, d)} to {pct(hi, d)}"


def points(x: float, digits: int | None = None) -> str:
    """The size of a difference of two shares in percentage points: 0.036 -> '3.6' (write
    "percentage points" after it; "game points" are the game's own score); below half a point
    with the decimals ``digits_for`` gives it (0.0004 -> '0.040', not '0.0')."""
    if digits is None:
        digits = digits_for(x) if x else 1
    return f"{abs(100 * x):.{digits}f}"


def signed(x: float, digits: int = 0) -> str:
    """With its sign and a real minus: -40.2 -> '−40'; a number that rounds to zero has no sign
    ('0.0', not '−0.0': the end of an interval at -0.03 printed with one decimal)."""
    if round(x, digits) == 0:
        return f"{0:.{digits}f}"
    return f"{x:+,.{digits}f}".replace("-", "\u2212")


def signed_points(x: float, digits: int = 1) -> str:
    """A share difference in percentage points with its sign: 0.036 -> '+3.6'."""
    return signed(100 * x, digits)


def pvalue(p: float) -> str:
    """'p = 0.042', 'p = 3.1e-07', 'p < 1e-300'."""
    if p is None or math.isnan(p):
        return "p = –"
    if p == 0:
        return "p < 1e-300"
    if p >= 0.001:
        return f"p = {p:.3f}"
    return f"p = {p:.1e}"


def number(x: float, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


def seat_label(seat: int) -> str:
    """Seat 0 is the player who starts: '1st', '2nd', ..."""
    n = seat + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def seat_verdict(outcome: str, first: dict, furthest: dict, fair: float, seating: str | None = None) -> str:
    """The seat verdict in words, from one ``outcome`` ("differ", "no evidence", "no verdict")
    so that no sentence can contradict another. ``first`` and ``furthest`` are rows of the
    per-seat win rates (the first seat, and the seat furthest from fair)."""
    rate, lo, hi = first["rate"], first["lo"], first["hi"]
    head = f"the first seat wins {rate_ci(rate, lo, hi)} against a fair {pct(fair)}"
    if outcome == "no verdict":
        why = ("seating is fixed, so each strategy always sits in the same seat"
               if seating in (None, "fixed") else "no strategy ever sits in more than one seat")
        return (f"there is no seat verdict: {why}, and a seat's win rate is the win rate of the strategy "
                f"in it; seat and strategy cannot be told apart (rotate or duplicate the seating to "
                f"measure the seat)")
    if outcome == "no evidence":
        return f"no evidence that the seats differ: {head}"
    edge = rate - fair
    if lo > fair or hi < fair:
        kind = "an edge" if edge > 0 else "a disadvantage"
        return (f"the seats are not equally placed to win: {head}, {kind} of {points(edge)} "
                f"percentage points")
    gap = furthest["rate"] - fair
    return (f"the seats are not equally placed to win: {head}, itself within reach of fair; the "
            f"{seat_label(furthest['seat'])} seat is furthest from fair at {pct(furthest['rate'])} "
            f"({signed_points(gap)} percentage points)")


def seat_test_sentence(outcome: str, statistic: float, df: int, p: float, p_adjusted: float | None = None,
                       family: int = 1, teams: bool = False) -> str:
    """The test of all seats together, in words, agreeing with the verdict's ``outcome``; with
    ``teams`` the test of the teams' places in the turn order (the seat test on teams)."""
    if outcome == "no verdict":
        if teams:
            return ("No test of the team that plays first: the same partners always played first, so the "
                    "order's effect and the partners' are the same number.")
        return ("No test of equal seats: every strategy kept one seat, so the seat's effect and the "
                "strategy's are the same number.")
    what = ("a score test of the team's place in the turn order with the partners accounted for" if teams
            else "a score test of seat with the strategies accounted for")
    what += f", games of one deal counted together (χ² = {statistic:.1f} on {df} df)"
    adjusted = ""
    if family > 1 and p_adjusted is not None:
        adjusted = f", adjusted {pvalue(p_adjusted)} after Holm's correction for the {family} variants"
    if teams:
        verdict = ("the teams are not equally placed to win" if outcome == "differ"
                   else "no evidence that the team that plays first has an edge")
    else:
        verdict = ("the seats are not equally placed to win" if outcome == "differ"
                   else "no evidence that the seats differ")
    return f"Against {'teams equally placed' if teams else 'equal seats'}, {what}: {pvalue(p)}{adjusted}, so {verdict}."


# ---- teams (stats/teams.py): partners win together --------------------------------------------

def seats_text(seats: list[int]) -> str:
    """[0, 2] -> '1st and 3rd seats'; [0, 1, 2] -> '1st, 2nd and 3rd seats'."""
    names = [seat_label(int(s)) for s in seats]
    body = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{body} seat" + ("s" if len(names) > 1 else "")


def team_label(position: int, seats: list[int], starts: bool = False) -> str:
    """A team by its place in the turn order: '1st team (1st and 3rd seats)', with ``starts``
    '1st team (1st and 3rd seats; starts)'."""
    return f"{seat_label(position)} team ({seats_text(seats)}{'; starts' if starts else ''})"


def team_verdict(outcome: str, first: dict, furthest: dict, fair: float, members: list[list[int]],
                 seating: str | None = None) -> str:
    """The answer to "does the team that plays first have an edge?", in one sentence with its
    interval, from the same ``outcome`` as the seat verdict (``first`` and ``furthest`` are rows
    of the teams' win rates, ``members`` the seats of each team in turn order)."""
    rate, lo, hi = first["rate"], first["lo"], first["hi"]
    who = f"the team that plays first ({seats_text(members[0])})"
    wins = f"it wins {rate_ci(rate, lo, hi)} of its games against a fair {pct(fair)}"
    if outcome == "no verdict":
        why = ("seating is fixed, so the same partners always play first"
               if seating in (None, "fixed") else "the same partners always play first")
        return (f"there is no verdict on whether {who} has an edge: {why}, and the first team's win rate "
                f"is those partners' win rate; team order and partners cannot be told apart (rotate or "
                f"duplicate the seating to measure it)")
    if outcome == "no evidence":
        return f"{who} has no edge that these games can show: {wins}"
    edge = rate - fair
    if lo > fair or hi < fair:
        if edge > 0:
            return f"{who} has an edge: {wins}, {points(edge)} percentage points more"
        return f"{who} is at a disadvantage: {wins}, {points(edge)} percentage points less"
    gap = furthest["rate"] - fair
    return (f"the teams are not equally placed to win, though {who} is itself within reach of fair: "
            f"{wins}; the {team_label(int(furthest['seat']), members[int(furthest['seat'])])} is "
            f"furthest from fair at {pct(furthest['rate'])} ({signed_points(gap)} percentage points)")

"""Render the report: one jinja2 template to a self-contained HTML page, and the same page to PDF."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from safari_sim.files import atomic_write_bytes
from safari_sim.stats import words

from .compute import ReportError, open_results
from .view import Report, build_view

TEMPLATES = Path(__file__).parent / "templates"
FORMATS = ("html", "pdf")


def _fixed(x, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:,.{digits}f}"


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=False, lstrip_blocks=False)
    env.filters.update(pct=words.pct, pvalue=words.pvalue, num=words.number, fixed=_fixed, signed=words.signed,
                       signed_points=words.signed_points)
    env.globals.update(pm=words.pm, interval=words.interval, digits_for=words.digits_for, decimals=words.decimals)
    return env


def render_html(report: Report) -> str:
    return environment().get_template("report.html.j2").render(**report.context)


def html_to_pdf(html: str) -> bytes:
    from weasyprint import HTML  # imported late: it is slow to import and only the PDF needs it

    return HTML(string=html, base_url=str(TEMPLATES)).write_pdf()


def build_report(results_dir: str | Path, formats: Sequence[str] = FORMATS,
                 out: str | Path | None = None, seconds_per_decision: float | None = None) -> list[Path]:
    """Write report.html and/or report.pdf for a results directory into ``out`` (default: the
    results directory) and return the paths written. Reads only the dataset and experiment.json.
    ``seconds_per_decision`` sets the play-time estimate (default compute.SECONDS_PER_DECISION)."""
    formats = [f.strip().lower() for f in ([formats] if isinstance(formats, str) else formats) if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ReportError(f"unknown report format {', '.join(bad) or '(none)'}; use html, pdf or both")
    lf, experiment = open_results(results_dir)
    if seconds_per_decision is not None:
        if not seconds_per_decision > 0:
            raise ReportError(f"seconds per decision must be above 0, got {seconds_per_decision}")
        experiment = {**experiment, "seconds_per_decision": float(seconds_per_decision)}
    report = build_view(lf, experiment)
    html = render_html(report)
    target = Path(out) if out is not None else Path(results_dir)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        path = target / f"report.{fmt}"
        atomic_write_bytes(path, html.encode("utf-8") if fmt == "html" else html_to_pdf(html))
        written.append(path)
    return written

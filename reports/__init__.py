"""Strategy reports: HTML and PDF built from a results directory (the dataset and experiment.json).

    from reports import build_report
    build_report("results/quickstart")                 # report.html and report.pdf beside the data
    build_report("results/quickstart", ["html"], out="/tmp")
"""

from .compute import ReportError, compute_tables, open_results, summarise
from .render import FORMATS, build_report, render_html
from .view import Report, build_view

__all__ = ["FORMATS", "Report", "ReportError", "build_report", "build_view", "compute_tables", "open_results",
           "render_html", "summarise"]

"""What the HTML pages of the reports share: the page's head and style, a figure inlined as a base64 PNG,
tables, and labels cut short."""

from __future__ import annotations

import base64
import html
import io


def png_base64(fig):
    """The figure as a base64 PNG, for an ``<img src="data:image/png;base64,...">``."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


PAGE_HEAD = ("<!doctype html><html><head><meta charset='utf-8'><title>nbparallel model report</title>"
             "<style>body{font-family:sans-serif;margin:2em} table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right} th{background:#eee}"
             "img{max-width:100%}</style></head><body>")


def html_table(header, rows):
    """An HTML table; cells are escaped."""
    esc = html.escape
    return ("<table><tr>" + "".join(f"<th>{esc(str(h))}</th>" for h in header) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in row) + "</tr>" for row in rows)
            + "</table>")


def short_label(text, width=24):
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[: width - 1] + "\u2026"

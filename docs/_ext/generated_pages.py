"""Sphinx extension: pages written at build time from the code and the results, never by hand.

- ``generated/cli.md``: every command and option of ``nbparallel``, read from its argparse parser.
- ``generated/api.rst``: the API reference, an entry per public name.
- ``generated/benchmarks.md``: the tables and figures of ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(DOCS / "tools"))


def _options(parser):
    lines = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        names = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.dest}`"
        if action.option_strings and action.nargs != 0:
            names += f" `{action.metavar or action.dest.upper()}`"
        text = (action.help or "").replace("%(default)s", str(action.default)).replace("\n", " ")
        lines.append(f"- {names}: {text}" if text else f"- {names}")
    return lines


def cli_page():
    """Markdown of every ``nbparallel`` command and its options."""
    from nbparallel.cli.parser import build_parser

    parser = build_parser()
    out = ["# Command-line reference", "",
           "Generated from the argparse parser of `nbparallel` when the documentation is built.", "",
           "```text", parser.format_usage().strip(), "```", ""]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += [f"## nbparallel {name}", "", (sub.description or "").strip(), "",
                        "```text", sub.format_usage().strip(), "```", ""] + _options(sub) + [""]
    return "\n".join(out)


def write_pages(app):
    from results_tables import benchmarks_page

    target = DOCS / "generated"
    target.mkdir(exist_ok=True)
    (target / "cli.md").write_text(cli_page())
    (target / "api.rst").write_text(api_page())
    (target / "benchmarks.md").write_text(benchmarks_page().replace("](../benchmarks/", "](../../benchmarks/"))


def setup(app):
    app.connect("builder-inited", write_pages, priority=100)
    return {"parallel_read_safe": True}


#: packages whose ``__all__`` joins the reference beside ``nbparallel.__all__``
PACKAGES = ("nbparallel.analysis", "nbparallel.kernels")


def api_names():
    """``{section title: [qualified names]}`` of the public API: ``nbparallel.__all__`` and each package's."""
    import importlib

    import nbparallel

    sections = {"nbparallel": [f"nbparallel.{n}" for n in nbparallel.__all__ if not n.startswith("__")]}
    for package in PACKAGES:
        module = importlib.import_module(package)
        sections[package] = [f"{package}.{n}" for n in module.__all__]
    return sections


def api_page():
    """reStructuredText of the API reference: an autosummary table per package, a page per name."""
    out = ["API reference", "=============", "",
           "Generated from the docstrings when the documentation is built: every name of ``nbparallel.__all__``",
           "and of the public packages' ``__all__``.", ""]
    for title, names in api_names().items():
        out += [title, "-" * len(title), "", ".. autosummary::", "   :toctree: api", ""]
        out += [f"   {name}" for name in names] + [""]
    return "\n".join(out)

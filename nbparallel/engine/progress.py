"""The labelled progress line of the engine's passes: each pass's label (``count``, ``EM iteration 12/100``)
and its share of tasks done, drawn on one line of stderr, for a command's whole run or a model's ``verbose``."""

from __future__ import annotations

import sys
import time

#: pass kinds (the ``name`` a model gives its passes) -> the label a progress line shows
PASS_LABELS = {"schema": "schema", "cv-schema": "schema", "count": "count", "cv-count": "count",
               "text-count": "count", "cv-text-count": "count", "score": "score", "evaluate": "score",
               "cv-score": "score", "cv-text-score": "score", "predict": "score", "cli-predict": "score",
               "select": "select step", "select-test": "test data", "em": "EM iteration", "boost": "boosting round",
               "autoclass-predict": "score", "boost-predict": "score"}

#: kinds that repeat, shown with their number (``boosting round 3``)
NUMBERED = ("em", "boost", "select")


class ProgressLine:
    """One progress line for all the passes it is shown, on stderr: each pass's label and its share of tasks done.

    An observer of the engine's pass events (``nbparallel.observe_passes``): every pass is drawn on this
    one line (``count``, ``EM iteration 12/100``, ``boosting round 3/10``) instead of a bar per pass.
    ``totals`` gives the number of passes of an iterative kind (``{"em": 100}``); ``numbered=False`` leaves
    out the number of a repeated kind (a line that sees one pass cannot count them).
    """

    def __init__(self, totals=None, out=None, width=30, numbered=True):
        self.totals, self.out, self.width = dict(totals or {}), out or sys.stderr, width
        self.numbered = numbered
        self.seen = {}
        self.label = ""
        self.drawn = 0.0
        self.used = False

    def pass_started(self, kind):
        kind = kind or "pass"
        self.seen[kind] = self.seen.get(kind, 0) + 1
        label = PASS_LABELS.get(kind, kind)
        if kind in self.totals:
            label = f"{label} {self.seen[kind]}/{self.totals[kind]}"
        elif kind in NUMBERED and self.numbered:
            label = f"{label} {self.seen[kind]}"
        self.label = label
        self.draw(0.0, force=True)

    def pass_progressed(self, done, total):
        self.draw(done / max(total, 1))

    def pass_finished(self):
        """Erase the line: the next pass, or the command's output, takes its place."""
        if self.used:
            self.out.write("\r" + " " * (self.width + 32) + "\r")
            self.out.flush()
            self.used = False

    def draw(self, fraction, force=False):
        now = time.monotonic()
        if not force and now - self.drawn < 0.1 and fraction < 1:
            return
        self.drawn, self.used = now, True
        done = int(round(self.width * fraction))
        self.out.write(f"\r{self.label:<24} [{'#' * done}{' ' * (self.width - done)}] {fraction:4.0%}")
        self.out.flush()

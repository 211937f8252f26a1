"""Warnings shown at the user's line: the first caller outside the package, however deep the warning is raised."""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_stacklevel():
    """The ``stacklevel`` that :func:`warnings.warn`, called where this function is, takes to show the nearest
    frame outside the nbparallel package (the outermost frame when every one is in it)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def warn(message, category=UserWarning):
    """:func:`warnings.warn` of ``message`` at the nearest line outside the package (the user's call)."""
    warnings.warn(message, category, stacklevel=caller_stacklevel())

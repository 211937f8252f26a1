"""The ``nbparallel`` command line: a parser and one small command per verb, over public library functions."""

from nbparallel.cli.commands import main, run

__all__ = ["main", "run"]

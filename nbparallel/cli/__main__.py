"""``python -m nbparallel.cli``: the command line."""

from nbparallel.cli.commands import run

run()

"""``python -m nbparallel``: the command line, as the ``nbparallel`` command."""

from nbparallel.cli.commands import run

run()

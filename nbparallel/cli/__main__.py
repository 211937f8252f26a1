"""``python -m nbparallel.cli``: the command line."""

import sys

from nbparallel.cli.commands import main

sys.exit(main())

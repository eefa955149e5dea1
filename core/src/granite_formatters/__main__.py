"""``python -m granite_formatters`` runs the ``granite-format`` command."""

import sys

from ._cli import main

sys.exit(main())

"""``python -m selectools``: the ``selectools`` command."""

import sys

from .serve.cli import main

sys.exit(main())

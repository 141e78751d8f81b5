"""``python -m warckit.cli``."""

import sys

from . import main

sys.exit(main())

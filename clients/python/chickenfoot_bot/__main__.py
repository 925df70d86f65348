"""``python -m chickenfoot_bot``: the same as the ``chickenfoot-bot`` command."""

import sys

from chickenfoot_bot.cli import main

sys.exit(main())

"""``python -m tools.arena --seats strong,greedy,greedy,greedy --matches 200``: no Django needed."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())

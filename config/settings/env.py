"""What every settings module shares: the one reader of the environment, and the repository's root."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent  # the repository (config/settings/ is two below it)

env = environ.Env()

"""``manage.py arena``: strategies against each other on the pure engine, no server.

The same as ``python -m tools.arena`` (see ``tools/arena``): a line-up per seat,
duplicate deals (each played once per rotation), every core; prints per strategy
the win rate per seat with its 95% interval over deals, the t test against an
average seat, mean points and CPU per decision (mean, p99). ``--json`` keeps it all.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tools.arena.cli import EXAMPLES, add_arguments, execute


class Command(BaseCommand):
    help = "Play strategies against each other on the pure engine (duplicate format) and print their results."
    epilog = EXAMPLES

    def add_arguments(self, parser: Any) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            execute(options, self.stdout.write, self.stderr.write)
        except ValueError as error:
            raise CommandError(str(error)) from error

"""``manage.py add_moderator <username>``: staff, in the Moderators group."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from moderation import services
from players import selectors


class Command(BaseCommand):
    help = "Make an account a moderator: staff, and a member of the Moderators group."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        user = selectors.player_get(username=username)
        if user is None:
            raise CommandError(f"There is no account {username!r}.")
        changed = services.moderator_add(user=user)
        self.stdout.write(f"{user.username} is {'now' if changed else 'already'} a moderator.")

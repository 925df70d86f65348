"""The Django admin is the moderators' tool, so all of it lives here: games,
accounts and tokens, and the audit trail, each in a module of its own, with the
shared action plumbing in ``actions``. ``games`` and ``players`` know nothing of
the admin; it reads them through their selectors and changes them only through
``moderation.services``."""

from moderation.admin import appeals, audit, chat, games, players, ratings, reports

__all__ = ["appeals", "audit", "chat", "games", "players", "ratings", "reports"]

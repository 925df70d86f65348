"""Where quick play meets the apps built beside it: the ratings (the rating window,
the bots' level) and the bot ladder (the accounts server bots play under).

* ``rating_of(user, players)``: the account's rating (openskill ordinal) in the
  pool of a table of ``players`` (ratings' "2", "3-4" or "5-8"); 0.0 without one
  (a new account's ordinal), the scale the rating window
  (``matchmaking.matching.RatingWindow``) is set in.
* ``level_for(user, players)``: the bot level (a strategy) that plays against the
  account when its wait runs out and it did not choose one: the ladder level whose
  rating in that pool is nearest the account's (``DEFAULT_LEVEL`` while no level
  has a rating there).
* ``level_account(strategy, number)``: the bot account a server bot of ``strategy``
  plays under: the ladder's account of that level for the first (so that its
  rating is the level's), and for a table that needs more bots of one level (an
  account holds one seat per table) ``ladder-<strategy>-<number>``.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from ladder import services as ladder_services
from players.models import User
from ratings import selectors as rating_selectors

DEFAULT_LEVEL = "greedy"


def rating_of(user: User, players: int) -> float:
    return rating_selectors.ordinals(user_ids=[user.pk], players=players).get(user.pk, 0.0)


def level_for(user: User, players: int) -> str:
    entries = ladder_services.level_entries_ensure()
    # The levels' ratings and the account's own in one read (a seek's path).
    ratings = rating_selectors.ordinals(user_ids=[*(e.user_id for e in entries), user.pk], players=players)
    rated = [(ratings[e.user_id], e.level) for e in entries if e.user_id in ratings]
    if not rated:
        return DEFAULT_LEVEL
    own = ratings.get(user.pk, 0.0)
    return min(rated, key=lambda r: (abs(r[0] - own), r[1]))[1]


def level_account_name(strategy: str, number: int = 1) -> str:
    return f"ladder-{strategy}" if number == 1 else f"ladder-{strategy}-{number}"


def level_account(strategy: str, number: int = 1) -> User:
    """Get or create the bot account (``is_bot``, no usable password: nobody logs in
    as it, the server plays it)."""
    if number == 1:
        for entry in ladder_services.level_entries_ensure():
            if entry.level == strategy:
                return entry.user
    username = level_account_name(strategy, number)
    account = User.objects.filter(username__iexact=username).first()
    if account is not None:
        return account
    account = User(username=username, is_bot=True)
    account.set_unusable_password()
    try:
        with transaction.atomic():
            account.save()
    except IntegrityError:  # created by another process since the read above
        return User.objects.get(username__iexact=username)
    return account

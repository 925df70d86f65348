"""Where quick play meets the apps built beside it (ratings, the bot ladder), which
it may not import: small functions the lead wires to them after the merge. Until
then they give what a server without those apps would.

* ``rating_of(user, players)``: the account's rating for a table of ``players``
  (the ratings app's pool "2", "3-4" or "5-8"), on the scale the rating window
  (``matchmaking.matching.RatingWindow``) is set in.
* ``level_for(user, players)``: the bot level (a strategy) that plays against the
  account when its wait runs out and it did not choose one.
* ``level_account(strategy, number)``: the bot account a server bot of ``strategy``
  plays under (the ladder's ``ladder-<strategy>``). A table may need several bots
  of one level, and an account holds one seat per table: the ``number``-th (1, 2,
  ...) is ``ladder-<strategy>`` for 1, ``ladder-<strategy>-<number>`` after.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from players.models import User

DEFAULT_LEVEL = "greedy"


def rating_of(user: User, players: int) -> float:
    return 0.0


def level_for(user: User, players: int) -> str:
    return DEFAULT_LEVEL


def level_account_name(strategy: str, number: int = 1) -> str:
    return f"ladder-{strategy}" if number == 1 else f"ladder-{strategy}-{number}"


def level_account(strategy: str, number: int = 1) -> User:
    """Get or create the bot account (``is_bot``, no usable password: nobody logs in
    as it, the server plays it)."""
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

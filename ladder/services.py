"""Every change the ladder makes: entries in and out, the server's own accounts, rounds.

A round (``round_play``) is one transaction: its row first (the unique ``slot``
makes a second round for the same slot fail there, whoever asked), then the
participants' entries locked (two rounds never count the same outside bot's free
places at once), then one savepoint per table - ``games.services`` open it as a
rated game under the ladder's own account, seat the participants and start it. A
table that cannot be opened (an account suspended meanwhile ...) is left out and
the others go on. The games' follow-up tasks (bot turns, clocks) are sent when the
round commits, as for any game.

The built-in levels' accounts are made when a round (or ``manage.py ladder_play``)
first needs them (``level_entries_ensure``), not by a data migration: a strategy
registered later gets its account at the next round, with no migration to write.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from bots.strategies import STRATEGIES
from games import services as game_services
from games.errors import GameError
from ladder import selectors
from ladder.errors import LadderCode, LadderError
from ladder.models import LEVEL_ACCOUNT_PREFIX, TABLE_SIZES, LadderEntry, LadderGame, LadderRound
from players.models import User

log = logging.getLogger(__name__)

#: The account that opens every ladder game (a bot account nobody can log in to).
LADDER_ACCOUNT = "ladder"
#: The table's bot level: it plays for an outside bot whose clock ran out.
FALLBACK_LEVEL = game_services.FALLBACK_STRATEGY


# -- the server's own accounts ------------------------------------------------------


def _is_ours(user: User) -> bool:
    """A bot account the ladder made: nobody can log in to it or hold a token for it."""
    return user.is_bot and not user.has_usable_password() and not user.api_tokens.exists()


def _own_bot_account(name: str, *, participant: bool) -> User:
    """The ladder's own bot account ``name``; when someone else registered that name
    first, ``name-2``, ``name-3`` ... (made here when missing)."""
    for n in range(1, 100):
        username = name if n == 1 else f"{name}-{n}"
        user = User.objects.filter(username__iexact=username).first()
        if user is None:
            user = User(username=username, is_bot=True)
            user.set_unusable_password()
            try:
                with transaction.atomic():
                    user.save()
            except IntegrityError:  # made by someone else just now: look again
                user = User.objects.get(username__iexact=username)
            else:
                return user
        entered = LadderEntry.objects.filter(user=user).exists()
        if _is_ours(user) and (not participant or not entered):
            return user
    raise RuntimeError(f"no free name for the ladder's account {name!r}")


def ladder_account() -> User:
    """The account that opens the ladder's games (not a participant)."""
    return _own_bot_account(LADDER_ACCOUNT, participant=True)


def level_entries_ensure() -> list[LadderEntry]:
    """An entry and an account (``ladder-<level>``) for every server strategy, made
    if missing; returns them all. Idempotent."""
    entries = {e.level: e for e in LadderEntry.objects.exclude(level="").select_related("user")}
    for level in sorted(STRATEGIES):
        if level in entries:
            continue
        account = _own_bot_account(LEVEL_ACCOUNT_PREFIX + level, participant=True)
        try:
            with transaction.atomic():
                entries[level] = LadderEntry.objects.create(user=account, level=level, max_games=None)
        except IntegrityError:  # another round made it first
            entries[level] = LadderEntry.objects.select_related("user").get(level=level)
    return [entries[level] for level in sorted(entries)]


# -- outside bots opting in and out --------------------------------------------------


def _require_outside_bot(user: User) -> None:
    if not user.is_bot:
        raise LadderError(
            LadderCode.LADDER_BOTS_ONLY,
            gettext(
                "%(username)s is not a bot account: only bots play on the ladder. Ask a moderator to mark your bot's account as a bot (is_bot), then opt in with its token."
            )
            % {"username": user.username},
        )
    if LadderEntry.objects.filter(user=user).exclude(level="").exists():
        raise LadderError(
            LadderCode.LADDER_LEVEL_ACCOUNT,
            gettext("%(username)s is a server level's account.") % {"username": user.username},
        )


def entry_join(*, user: User, table_sizes: Sequence[int], max_games: int) -> LadderEntry:
    """The caller's bot account enters the ladder (or changes its terms): it is
    seated in rounds of ``table_sizes`` players, in at most ``max_games`` games at once."""
    _require_outside_bot(user)
    sizes = sorted(set(table_sizes))
    entry, created = LadderEntry.objects.get_or_create(
        user=user, defaults={"table_sizes": sizes, "max_games": max_games, "active": True}
    )
    if not created:
        entry.table_sizes, entry.max_games, entry.active = sizes, max_games, True
        entry.save(update_fields=["table_sizes", "max_games", "active"])
    return entry


def entry_leave(*, user: User) -> None:
    """The caller's bot account leaves the ladder: no new games (those it is in go on,
    on their clock). Its record stays: it may come back with ``entry_join``."""
    _require_outside_bot(user)
    entry = LadderEntry.objects.filter(user=user).first()
    if entry is None or not entry.active:
        raise LadderError(
            LadderCode.NOT_ON_LADDER, gettext("%(username)s is not on the ladder.") % {"username": user.username}
        )
    entry.active = False
    entry.save(update_fields=["active"])


# -- rounds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A participant a round may seat: ``played`` ladder games so far."""

    entry: LadderEntry
    played: int

    @property
    def user_id(self) -> int:
        return self.entry.user_id


def tables_choose(
    candidates: Iterable[Candidate], *, size: int, max_tables: int, rng: random.Random
) -> list[list[LadderEntry]]:
    """The round's tables: as many tables of ``size`` as the candidates fill (at most
    ``max_tables``), seating those with the fewest ladder games first, ties in the
    order of ``rng``; each candidate at most once, so no account has two seats at a
    table. Who sits with whom, and where, is ``rng``'s too."""
    ordered = sorted(candidates, key=lambda c: c.user_id)  # the rng's draws follow a fixed order
    keys = {c.user_id: (c.played, rng.random()) for c in ordered}
    ordered.sort(key=lambda c: keys[c.user_id])
    tables = min(max_tables, len(ordered) // size)
    chosen = [c.entry for c in ordered[: tables * size]]
    rng.shuffle(chosen)
    return [chosen[i * size : (i + 1) * size] for i in range(tables)]


def _candidates(size: int, *, outside: bool) -> list[Candidate]:
    """Who may play a round of ``size``: active entries of active bot accounts that
    take this size, with a free place under their ``max_games``. The entries are
    locked (in id order) until the round commits."""
    entries = list(
        LadderEntry.objects.select_for_update(of=("self",))
        .filter(active=True, user__is_active=True, user__is_bot=True)
        .select_related("user")
        .order_by("pk")
    )
    entries = [e for e in entries if size in e.table_sizes and (outside or e.level)]
    played, running = selectors.ladder_game_counts(user_ids=[e.user_id for e in entries])
    return [
        Candidate(e, played.get(e.user_id, 0))
        for e in entries
        if e.max_games is None or running.get(e.user_id, 0) < e.max_games
    ]


def _table_open(*, ladder_round: LadderRound, creator: User, seats: list[LadderEntry]) -> int:
    """One rated game with ``seats`` in seat order, started; returns its id."""
    outside = any(not e.level for e in seats)
    opened = game_services.game_create(
        creator=creator,
        ruleset={**settings.LADDER_RULESET, "players": len(seats)},
        turn_time_limit=settings.LADDER_TURN_SECONDS if outside else None,
        bot_delay_ms=0,
        bot_strategy=FALLBACK_LEVEL,
        sit=False,
        rated=True,
    )
    for number, entry in enumerate(seats):
        if entry.level:
            game_services.game_add_bot(
                game_id=opened.pk, by=creator, strategy=entry.level, seat=number, account=entry.user
            )
        else:
            game_services.game_join(game_id=opened.pk, player=entry.user, seat=number)
    LadderGame.objects.create(round=ladder_round, game_id=opened.pk)
    game_services.game_start(game_id=opened.pk, by=creator)
    return opened.pk


def round_play(
    *,
    slot: int | None,
    seed: str,
    table_size: int | None = None,
    outside: bool = True,
    max_tables: int | None = None,
) -> LadderRound | None:
    """Play a ladder round: open and start its rated games. ``slot``: the scheduled
    slot it is for (None: a round of ``manage.py ladder_play``); a slot that already
    has its round gives None and changes nothing. ``table_size``: 2 or 4 (default:
    the sizes in turn); ``outside``: seat outside bots too (``ladder_play`` does not:
    nobody would move them in its process)."""
    with transaction.atomic():
        size = table_size or TABLE_SIZES[LadderRound.objects.count() % len(TABLE_SIZES)]
        try:
            with transaction.atomic():
                ladder_round = LadderRound.objects.create(slot=slot, table_size=size, seed=seed)
        except IntegrityError:
            log.info("ladder slot %s already has its round", slot)
            return None
        level_entries_ensure()
        creator = ladder_account()
        rng = random.Random(seed)
        limit = settings.LADDER_MAX_TABLES if max_tables is None else max_tables
        tables = tables_choose(_candidates(size, outside=outside), size=size, max_tables=limit, rng=rng)
        opened = 0
        for seats in tables:
            try:
                with transaction.atomic():
                    _table_open(ladder_round=ladder_round, creator=creator, seats=seats)
                    opened += 1
            except (GameError, ValueError) as error:
                log.warning(
                    "ladder round %s: a table of %s was left out: %s",
                    ladder_round.pk,
                    ", ".join(e.user.username for e in seats),
                    error,
                )
        log.info("ladder round %s (slot %s): %s tables of %s", ladder_round.pk, slot, opened, size)
        return ladder_round


def round_due(*, now: datetime | None = None) -> LadderRound | None:
    """The current slot's round if it has not been played yet (the beat task); None
    when the ladder is off or the slot has its round."""
    interval = settings.LADDER_INTERVAL_SECONDS
    if interval <= 0:
        return None
    slot = selectors.slot_of(now or timezone.now(), interval)
    if LadderRound.objects.filter(slot=slot).exists():
        return None
    return round_play(slot=slot, seed=f"slot:{slot}")

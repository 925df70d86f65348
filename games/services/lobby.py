"""Tables before and at the start: open, sit, leave, add bots, start, abort."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext

from bots.strategies import STRATEGIES
from core.errors import CoreCode
from games import engine
from games.engine import Match, Ruleset
from games.errors import GameCode, GameError, engine_refusals
from games.models import Game, GameStatus, Seat
from games.services.commit import GameChange, game_change, game_change_new, game_changes_new, locked_seats
from games.services.guards import require_creator, require_status
from players.models import User

# The largest whole number a JSON number keeps exactly in every language (JavaScript's
# Number.MAX_SAFE_INTEGER): a seed shown to a client must replay the same deal there.
MAX_SEED = 2**53 - 1


def game_create(
    *,
    creator: User,
    ruleset: dict[str, Any] | None = None,
    turn_time_limit: int | None = None,
    bot_delay_ms: int = 0,
    bot_strategy: str = "greedy",
    seed: int | None = None,
    setup: dict[str, Any] | None = None,
    sit: bool = True,
    rated: bool = False,
) -> Game:
    """Open a table. A fixed seed or a set-up position makes it a practice game, which
    cannot be ``rated``; ``bot_strategy`` is the table's bot level (it plays for absent
    and resigned players)."""
    if bot_strategy not in STRATEGIES:
        raise GameError(
            GameCode.UNKNOWN_STRATEGY,
            gettext("There is no bot strategy '%(bot_strategy)s' (see GET /bots/).") % {"bot_strategy": bot_strategy},
        )
    with engine_refusals():  # invalid_ruleset / invalid_setup -> 400
        rules = Ruleset.from_dict(ruleset)
        if setup is not None:
            engine.Setup.from_dict(setup, rules)  # validate now, not at the start
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise GameError(
            CoreCode.VALIDATION_ERROR,
            gettext("seed must be 0 to %(max_seed)s.") % {"max_seed": MAX_SEED},
            errors={"seed": [gettext("out of range")]},
        )
    practice = seed is not None or setup is not None
    if rated and practice:
        raise GameError(
            CoreCode.VALIDATION_ERROR,
            gettext("A practice game (a fixed seed or a set-up position) cannot be rated."),
            errors={"rated": [gettext("A practice game cannot be rated.")]},
        )
    with game_change_new(
        seats=rules.players,
        creator=creator,
        ruleset=rules.to_dict(),
        seed=secrets.randbelow(MAX_SEED) if seed is None else seed,
        setup=setup,
        practice=practice,
        rated=rated,
        turn_time_limit=turn_time_limit,
        bot_delay_ms=bot_delay_ms,
        bot_strategy=bot_strategy,
    ) as change:
        game = change.game
        events = [
            {
                "type": "game_created",
                "creator": creator.username,
                "ruleset": rules.to_dict(),
                "practice": game.practice,
                "rated": game.rated,
            }
        ]
        if sit:
            change.seat_update(game.seats.get(number=0), player=creator)
            events.append({"type": "seat_taken", "seat": 0, "player": creator.username, "is_bot": creator.is_bot})
        change.events_append(*events)
    return game


@dataclass(frozen=True)
class FullTable:
    """A table to open full and start (``games_open_full``): ``players`` (the first
    one creates it) and then ``bots`` (each a strategy and the bot account it plays
    under, or None) take the seats in that order."""

    players: list[User]
    bots: Sequence[tuple[str, User | None]] = ()
    ruleset: dict[str, Any] | None = None
    turn_time_limit: int | None = None
    bot_strategy: str = "greedy"
    rated: bool = False


def game_open_full(
    *,
    players: list[User],
    bots: Sequence[tuple[str, User | None]] = (),
    ruleset: dict[str, Any] | None = None,
    turn_time_limit: int | None = None,
    bot_strategy: str = "greedy",
    rated: bool = False,
) -> Game:
    """Open a table, seat ``players`` (the first one creates it) and then ``bots``
    (each a strategy and the bot account it plays under, or None), and start it - in
    one change, with the same events as ``game_create``, ``game_join``,
    ``game_add_bot`` and ``game_start`` one after the other (quick play's tables)."""
    table = FullTable(players, bots, ruleset, turn_time_limit, bot_strategy, rated)
    (opened,) = games_open_full([table])
    if isinstance(opened, GameError):
        raise opened
    return opened


def games_open_full(tables: Sequence[FullTable]) -> list[Game | GameError]:
    """Open, fill and start each of ``tables`` as ``game_open_full`` does, all in one
    transaction whose rows are written together (``commit.game_changes_new``: three
    statements for any number of tables). A table the rules refuse is not opened: its
    place in the answer holds the error; the others are."""
    answers: list[Game | GameError | None] = []
    prepared = []
    for table in tables:
        try:
            prepared.append(_full_table(table))
            answers.append(None)
        except GameError as error:
            answers.append(error)
    with game_changes_new([(seat_fields, fields) for seat_fields, fields, *_ in prepared]) as changes:
        for change, (_, _, events, match, payloads) in zip(changes, prepared, strict=True):
            change.events_append(*events)
            change.match_store(match, payloads, change.seats)
    games = iter(change.game for change in changes)
    return [next(games) if answer is None else answer for answer in answers]


def _full_table(
    table: FullTable,
) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]], Match, list[dict[str, Any]]]:
    """A full table's seats, game fields, lobby events and dealt match; ``GameError``
    if the rules refuse it (nothing is written here)."""
    players, bots, bot_strategy, rated = table.players, table.bots, table.bot_strategy, table.rated
    seated = [p.pk for p in players] + [a.pk for _, a in bots if a is not None]
    if not players or len(set(seated)) != len(seated):
        raise GameError(GameCode.ALREADY_SEATED, gettext("You already have a seat at this game."))
    for strategy in {bot_strategy, *(strategy for strategy, _ in bots)}:
        if strategy not in STRATEGIES:
            raise GameError(
                GameCode.UNKNOWN_STRATEGY,
                gettext("There is no bot strategy '%(bot_strategy)s' (see GET /bots/).") % {"bot_strategy": strategy},
            )
    if any(account is not None and not account.is_bot for _, account in bots):
        raise ValueError("a server bot plays only under a bot account")
    with engine_refusals():
        rules = Ruleset.from_dict(table.ruleset)
    if rules.players != len(players) + len(bots):
        raise GameError(
            GameCode.SEATS_NOT_FILLED,
            gettext("Seat(s) %(seats)s still empty: fill them (or add bots) first.")
            % {"seats": ", ".join(map(str, range(len(players) + len(bots), rules.players)))},
        )
    creator = players[0]
    seat_fields: list[dict[str, Any]] = [{"player": p} for p in players]
    seat_fields += [{"player": account, "bot_strategy": strategy} for strategy, account in bots]
    events: list[dict[str, Any]] = [
        {"type": "game_created", "creator": creator.username, "ruleset": rules.to_dict(), "practice": False,
         "rated": rated},
    ]  # fmt: skip
    for number, player in enumerate(players):
        events.append({"type": "seat_taken", "seat": number, "player": player.username, "is_bot": player.is_bot})
    for number, (strategy, account) in enumerate(bots, len(players)):
        event = {"type": "bot_added", "seat": number, "strategy": strategy}
        if account is not None:
            event["player"] = account.username
        events.append(event)
    events.append({"type": "game_started"})
    seed = secrets.randbelow(MAX_SEED)
    with engine_refusals():
        match, payloads = Match.new(rules, seed)
    fields = {
        "creator": creator,
        "ruleset": rules.to_dict(),
        "seed": seed,
        "rated": rated,
        "turn_time_limit": table.turn_time_limit,
        "bot_strategy": bot_strategy,
        "status": GameStatus.RUNNING,
        "started_at": timezone.now(),
    }
    return seat_fields, fields, events, match, payloads


def _free_seat(change: GameChange, number: int | None) -> Seat:
    seats = locked_seats(change)
    if number is None:
        free = next((s for s in seats if not s.is_taken), None)
        if free is None:
            raise GameError(GameCode.GAME_FULL, gettext("Every seat is taken."))
        return free
    if not 0 <= number < len(seats):
        raise GameError(GameCode.NO_SUCH_SEAT, gettext("Seats are numbered 0 to %(last)s.") % {"last": len(seats) - 1})
    if seats[number].is_taken:
        raise GameError(GameCode.SEAT_TAKEN, gettext("Seat %(number)s is taken.") % {"number": number})
    return seats[number]


def game_join(*, game_id: int, player: User, seat: int | None = None) -> Game:
    with game_change(game_id) as change:
        require_status(change.game, GameStatus.OPEN)
        if change.game.seats.filter(player=player).exists():
            raise GameError(GameCode.ALREADY_SEATED, gettext("You already have a seat at this game."))
        free = _free_seat(change, seat)
        change.seat_update(free, player=player)
        change.events_append(
            {"type": "seat_taken", "seat": free.number, "player": player.username, "is_bot": player.is_bot}
        )
    return change.game


def game_leave(*, game_id: int, player: User) -> Game:
    with game_change(game_id) as change:
        require_status(change.game, GameStatus.OPEN)
        seat = change.game.seats.filter(player=player).first()
        if seat is None:
            raise GameError(GameCode.NOT_SEATED, gettext("You have no seat at this game."))
        change.seat_update(seat, player=None)
        change.events_append({"type": "seat_left", "seat": seat.number, "player": player.username})
    return change.game


def game_add_bot(
    *, game_id: int, by: User, strategy: str, seat: int | None = None, account: User | None = None
) -> Game:
    """A server bot playing ``strategy`` takes a seat. With ``account`` (a bot account
    that holds no seat at the table), it plays under that account - which is then
    what the table, the standings and ratings show - instead of as a nameless bot
    (the bot ladder's and quick play's server bots)."""
    if strategy not in STRATEGIES:
        raise GameError(
            GameCode.UNKNOWN_STRATEGY,
            gettext("No bot strategy '%(strategy)s'; there are: %(strategies)s.")
            % {"strategy": strategy, "strategies": ", ".join(sorted(STRATEGIES))},
        )
    if account is not None and not account.is_bot:
        raise ValueError(f"{account.username} is not a bot account: a server bot plays only under a bot account")
    with game_change(game_id) as change:
        require_creator(change.game, by)
        require_status(change.game, GameStatus.OPEN)
        if account is not None and change.game.seats.filter(player=account).exists():
            raise GameError(
                GameCode.ALREADY_SEATED,
                gettext("%(username)s already has a seat at this game.") % {"username": account.username},
            )
        free = _free_seat(change, seat)
        change.seat_update(free, bot_strategy=strategy, player=account)
        event = {"type": "bot_added", "seat": free.number, "strategy": strategy}
        if account is not None:
            event["player"] = account.username
        change.events_append(event)
    return change.game


def game_start(*, game_id: int, by: User) -> Game:
    with game_change(game_id) as change:
        game = change.game
        require_creator(game, by)
        require_status(game, GameStatus.OPEN)
        empty = [s.number for s in game.seats.all() if not s.is_taken]
        if empty:
            raise GameError(
                GameCode.SEATS_NOT_FILLED,
                gettext("Seat(s) %(seats)s still empty: fill them (or add bots) first.")
                % {"seats": ", ".join(map(str, empty))},
            )
        with engine_refusals():
            match, payloads = Match.new(Ruleset.from_dict(game.ruleset), game.seed, game.setup)
        change.update(status=GameStatus.RUNNING, started_at=timezone.now())
        change.events_append({"type": "game_started"})
        change.match_store(match, payloads)
    return game


def game_abort(*, game_id: int, by: User, reason: str = "") -> Game:
    """The creator aborts a table in the lobby (a moderator aborts any unfinished
    game with ``games.services.moderation.game_abort_as_moderator``)."""
    with game_change(game_id) as change:
        require_creator(change.game, by)
        require_status(change.game, GameStatus.OPEN)
        abort(change, by=by, reason=reason, moderator=False)
    return change.game


def abort(change: GameChange, *, by: User, reason: str, moderator: bool) -> None:
    """End the game without a result (inside a change that has checked who may)."""
    change.update(
        status=GameStatus.ABORTED, abort_reason=reason, finished_at=timezone.now(), turn_seat=None, turn_deadline=None
    )
    # A moderator stays nameless in the public log ("by" is empty; the name is in the audit trail).
    change.events_append(
        {"type": "game_aborted", "by": "" if moderator else by.username, "moderator": moderator, "reason": reason}
    )

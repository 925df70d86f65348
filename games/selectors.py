"""Read queries shaped for the API, with what each viewer may see.

Hidden information is decided here and only here: a caller gets its own hand and
legal moves when seated; nobody gets another hand or the boneyard, and before the
end nobody gets the seed or a set-up (with either, every hand and the boneyard's
order follow) - but the creator of a practice game, who supplied them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.utils.translation import gettext

from core.errors import CoreCode
from games import engine
from games.engine import Match
from games.errors import GameCode, GameError
from games.models import Event, Game, GameStatus, Move, Seat
from players.models import User


def _seats_prefetch() -> Prefetch:
    return Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number"))


def game_list(*, status: str | None = None, mine_of: User | None = None, player: User | None = None) -> QuerySet[Game]:
    """Newest first; ``mine_of``: the games that account created or sits in;
    ``player``: the finished, non-practice games that account sat in (anyone's
    view of a player's record, e.g. a profile's recent games)."""
    games = Game.objects.select_related("creator").prefetch_related(_seats_prefetch()).defer("state").order_by("-id")
    if status:
        games = games.filter(status=status)
    if mine_of is not None:
        # A subquery (no join, no duplicates), the union of two index lookups: an OR of
        # "created" and "seated" tested every game of the site (docs/performance.md,
        # "Hot paths on a large database").
        seated = Seat.objects.filter(player=mine_of).order_by().values("game_id")
        created = Game.objects.filter(creator=mine_of).order_by().values("pk")
        games = games.filter(pk__in=seated.union(created))
    if player is not None:
        sat = Seat.objects.filter(player=player).values("game_id")
        games = games.filter(pk__in=sat, status=GameStatus.FINISHED, practice=False)
    return games


def _listed_game_of_seat() -> Subquery:
    """The seat's game if ``game_list(player=...)`` lists it (finished, not practice),
    looked up by key: a subquery per seat (its LIMIT keeps the planner from turning it
    into a join), for counting and paging one player's games from their seats."""
    return Subquery(
        Game.objects.filter(pk=OuterRef("game_id"), status=GameStatus.FINISHED, practice=False)
        .order_by()
        .values("pk")[:1]
    )


def player_game_count(*, player: User) -> int:
    """How many games ``game_list(player=player)`` lists, counted from the player's
    seats: each seat looks its game up by key (a subquery per seat, which the
    planner cannot turn into a join), so the count costs the player's games, not
    the site's - as a semi-join of the games it read the whole games table for a
    busy player (docs/performance.md, "Hot paths on a large database")."""
    return (
        Seat.objects.filter(player=player)
        .order_by()
        .annotate(listed=_listed_game_of_seat())
        .filter(listed__isnull=False)
        .count()
    )


def player_game_page(*, player: User, limit: int, offset: int) -> list[int]:
    """The ids of ``game_list(player=player)[offset:offset + limit]``, newest first,
    read from the player's seats backwards along ``seat_player_game`` (player, game),
    each looking its game up by key until the page is full: ``offset + limit`` games
    read, whatever the player's history - where a join walked the games table
    backwards by key until it had met the page's (1,816 games for 50 of a busy
    account's: docs/performance.md, "Hot paths on a large database")."""
    seats = (
        Seat.objects.filter(player=player)
        .annotate(listed=_listed_game_of_seat())
        .filter(listed__isnull=False)
        .order_by("-game_id")
        .values_list("game_id", flat=True)
    )
    return list(seats[offset : offset + limit])


def mine_game_page(*, user: User, limit: int, offset: int) -> list[int]:
    """The ids of ``game_list(mine_of=user)[offset:offset + limit]``, newest first: the
    first ``offset + limit`` of the account's seats (``seat_player_game``) and of the
    games it created (``game_creator``, (creator, id)), each read backwards from its
    index alone, merged here (a seat's game may be one it created)."""
    wanted = offset + limit
    seated = Seat.objects.filter(player=user).order_by("-game_id").values_list("game_id", flat=True)[:wanted]
    created = Game.objects.filter(creator=user).order_by("-id").values_list("pk", flat=True)[:wanted]
    return sorted({*seated, *created}, reverse=True)[offset:wanted]


def games_by_ids(*, ids: list[int]) -> list[Game]:
    """The games ``ids`` names, as ``game_list`` shapes them, newest first."""
    return list(game_list().filter(pk__in=ids))


def mine_game_count(*, user: User) -> int:
    """How many games ``game_list(mine_of=user)`` lists: the union of the account's
    seats and the games it created, counted as ids from the two indexes (no game row
    read: a seat's game and a created game always exist)."""
    seated = Seat.objects.filter(player=user).order_by().values("game_id")
    created = Game.objects.filter(creator=user).order_by().values("pk")
    return seated.union(created).count()


def game_get(*, game_id: int) -> Game:
    game = Game.objects.select_related("creator").prefetch_related(_seats_prefetch()).filter(pk=game_id).first()
    if game is None:
        raise GameError(CoreCode.NOT_FOUND, gettext("There is no game %(game_id)s.") % {"game_id": game_id})
    return game


def seat_of(seats: Iterable[Seat], user: User | None) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in seats if s.player_id == user.pk), None)


def seed_visible(game: Game, viewer: User | None) -> bool:
    """May ``viewer`` see the seed and the set-up? After the end, everyone; before,
    only the creator of a practice game (who chose them)."""
    if game.status in (GameStatus.FINISHED, GameStatus.ABORTED):
        return True
    return game.practice and viewer is not None and viewer.is_authenticated and viewer.pk == game.creator_id


@dataclass
class GameView:
    """A game as one caller may see it."""

    game: Game
    seats: list[Seat]
    state: dict[str, Any] | None  # the engine's public view (no hands)
    you: dict[str, Any] | None  # the caller's seat: hand, legal moves, deadline
    seed: int | None


def game_view(
    *, game: Game, viewer: User | None, seats: list[Seat] | None = None, match: Match | None = None
) -> GameView:
    """``seats`` (in seat order, players loaded) and ``match`` (the engine state):
    when the caller has them, else read from ``game``."""
    seats = list(game.seats.all()) if seats is None else seats
    state: dict[str, Any] | None = None
    you: dict[str, Any] | None = None
    if match is None and game.state:
        match = Match.from_dict(game.state)
    if match is not None:
        state = engine.public_view(match)
        if not seed_visible(game, viewer) and state.get("result"):
            state["result"]["seed"] = None  # pragma: no cover - a finished game always shows its seed
    seat = seat_of(seats, viewer)
    if seat is not None:
        you = {
            "seat": seat.number,
            "resigned": seat.resigned,
            "hand": None,
            "drawn_tile": None,
            "legal_moves": [],
            "your_turn": False,
            "turn_deadline": None,
        }
        if match is not None:
            private = engine.private_view(match, seat.number)
            # A seat a server bot plays (resigned, away) is not the player's to move:
            # offering moves the server would refuse (seat_resigned, seat_away) misleads.
            playing = game.status == GameStatus.RUNNING and not seat.bot_controlled
            your_turn = playing and match.turn == seat.number
            you.update(
                hand=private["hand"],
                drawn_tile=private["drawn_tile"],
                legal_moves=private["legal_moves"] if playing else [],
                your_turn=your_turn,
                turn_deadline=game.turn_deadline if your_turn else None,
            )
    return GameView(
        game=game, seats=seats, state=state, you=you, seed=game.seed if seed_visible(game, viewer) else None
    )


def event_list(*, game: Game, after: int = 0, limit: int = 500) -> list[Event]:
    return list(Event.objects.filter(game=game, seq__gt=after).order_by("seq")[:limit])


EVENT_PAGE_SIZE = 500  # events per page of the long-poll and per read of a game's stream


def event_page(*, game_id: int, after: int) -> dict[str, Any]:
    """The game's seq and status and its events after seq ``after``, at most
    ``EVENT_PAGE_SIZE`` of them (``has_more``: ask again after the last one).
    Reads only the game's head row (not its state), in a statement written out
    once: streams ask this at every read, their once-a-minute safety net included,
    and most of those find nothing new."""
    with connection.cursor() as cursor:
        cursor.execute(_game_head_sql(), [game_id])
        head = cursor.fetchone()
    if head is None:
        raise GameError(CoreCode.NOT_FOUND, gettext("There is no game %(game_id)s.") % {"game_id": game_id})
    seq, status = head
    events = (
        list(Event.objects.filter(game_id=game_id, seq__gt=after).order_by("seq")[: EVENT_PAGE_SIZE + 1])
        if seq > after
        else []
    )
    return {
        "seq": seq,
        "status": status,
        "events": events[:EVENT_PAGE_SIZE],
        "has_more": len(events) > EVENT_PAGE_SIZE,
    }


@cache
def _game_head_sql() -> str:
    return f"SELECT seq, status FROM {connection.ops.quote_name(Game._meta.db_table)} WHERE id = %s"


def event_tail(*, game_id: int, count: int) -> tuple[int, str, list[Event]] | None:
    """The game's seq and status and its last ``count`` events, ascending, read in one
    statement (one snapshot: the events end at that seq); None if it has no events
    (or no such game). What a game's notice carries (``live.dispatch``): on the path
    of every change, so on PostgreSQL the statement is written out (the ORM's
    query building cost three times the round trip)."""
    if connection.vendor != "postgresql":
        found = list(
            Event.objects.filter(game_id=game_id, seq__lte=F("game__seq"))
            .select_related("game")
            .only("seq", "type", "data", "created_at", "game__seq", "game__status")
            .order_by("-seq")[:count]
        )
        if not found:
            return None
        found.reverse()
        head = found[-1].game
        return head.seq, head.status, found
    quote = connection.ops.quote_name
    event, game = Event._meta, Game._meta
    sql = (
        f"SELECT e.seq, e.type, e.data, e.created_at, g.seq, g.status FROM {quote(event.db_table)} e "
        f"JOIN {quote(game.db_table)} g ON g.id = e.game_id WHERE e.game_id = %s AND e.seq <= g.seq "
        f"ORDER BY e.seq DESC LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id, count])
        rows = cursor.fetchall()
    if not rows:
        return None
    # Django has psycopg hand jsonb over as text (JSONField decodes it); Event.data has no decoder of its own.
    events = [
        Event(
            game_id=game_id,
            seq=seq,
            type=kind,
            data=json.loads(value) if isinstance(value, str) else value,
            created_at=at,
        )
        for seq, kind, value, at, _, _ in reversed(rows)
    ]
    return rows[0][4], rows[0][5], events


def account_game_list(*, user: User, also: Iterable[int] = ()) -> list[dict[str, Any]]:
    """The account's open and running games, and the games ``also`` names (whatever
    their status: a stream follows its known games to their end), as ``AccountGameOutput``
    rows in game order. ``your_turn`` only where the player (not a bot) is to move."""
    seated = Seat.objects.filter(player=user).values("game_id")  # a subquery: no join, no duplicates to remove
    current = Q(pk__in=seated, status__in=(GameStatus.OPEN, GameStatus.RUNNING))
    games = Game.objects.filter(current | Q(pk__in=list(also))).defer("state").prefetch_related("seats")
    rows = []
    for game in games:
        seat = next((s for s in game.seats.all() if s.player_id == user.pk), None)
        if seat is None:
            continue
        your_turn = game.status == GameStatus.RUNNING and game.turn_seat == seat.number and not seat.bot_controlled
        rows.append(
            {
                "game": game.pk,
                "status": game.status,
                "seq": game.seq,
                "seat": seat.number,
                "your_turn": your_turn,
                "turn_deadline": game.turn_deadline if your_turn else None,
                "result": game.result,
            }
        )
    return sorted(rows, key=lambda r: r["game"])


def move_list(*, game: Game, after: int = 0, limit: int = 500) -> list[Move]:
    """Moves after move number ``after``."""
    return list(Move.objects.filter(game=game, number__gt=after).select_related("actor").order_by("number")[:limit])


def hand_list(*, game: Game) -> list[dict[str, Any]]:
    """The match's hands (rounds): finished ones with scores, then the running one."""
    if not game.state:
        return []
    match = Match.from_dict(game.state)
    hands = [_hand_summary(r, status="ended") for r in match.rounds]
    if match.status == engine.PLAYING:
        hands.append(
            {
                "number": match.round_number,
                "starting_double": engine.tile_text((match.ruleset.starting_double(match.round_index),) * 2),
                "starter": match.starter,
                "status": "playing" if game.status == GameStatus.RUNNING else "abandoned",
                "reason": None,
                "went_out": None,
                "scores": None,
            }
        )
    return hands


def _hand_summary(summary: dict[str, Any], *, status: str) -> dict[str, Any]:
    return {
        "number": summary["number"],
        "starting_double": summary["starting_double"],
        "starter": summary["starter"],
        "status": status,
        "reason": summary["reason"],
        "went_out": summary["went_out"],
        "scores": summary["scores"],
    }


def hand_detail(*, game: Game, number: int) -> dict[str, Any]:
    """One hand with its moves and, once it has ended, every player's revealed tiles."""
    hands = hand_list(game=game)
    if not 1 <= number <= len(hands):
        raise GameError(
            CoreCode.NOT_FOUND, gettext("Game %(pk)s has no hand %(number)s (yet).") % {"pk": game.pk, "number": number}
        )
    hand = dict(hands[number - 1])
    ended = game.state["rounds"]  # the stored summaries of the finished rounds, hands revealed
    hand["revealed_hands"] = ended[number - 1]["hands"] if number <= len(ended) else None
    hand["moves"] = list(Move.objects.filter(game=game, round=number).select_related("actor").order_by("number"))
    return hand


def game_record(*, game: Game, viewer: User | None) -> dict[str, Any]:
    """Everything the engine needs to replay the match exactly: after the end (and,
    in a practice game, to its creator at any time)."""
    if not seed_visible(game, viewer):
        raise GameError(
            GameCode.GAME_NOT_FINISHED, gettext("The record (with the seed) is published when the game is over.")
        )
    moves = Move.objects.filter(game=game).order_by("number").values_list("seat", "payload")
    return {
        "ruleset": game.ruleset,
        "seed": game.seed,
        "setup": None if game.setup is None else {"hands": game.setup["hands"], "boneyard": game.setup.get("boneyard")},
        "moves": [{"seat": seat, "move": payload} for seat, payload in moves],
        "result": game.result,
    }

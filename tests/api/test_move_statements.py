"""The PostgreSQL-only statements of the commit path against their portable twins:
the one that locks a game and reads what a change needs with it
(``games.services.commit._lock_with_seats``) reads the same game, creator and seats
as the ORM, and the lock and the one-statement write (``_write``) leave the same rows
as the ORM's lock, reads and writes."""

from __future__ import annotations

import json

import pytest
from django.db import connection, transaction

from games import selectors, services
from games.models import Event, Game, Move, Seat
from games.services import commit

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]  # SQLite takes the ORM's way


def test_the_lock_gives_the_creator_and_the_seats_in_order_with_their_players(make_table):
    table = make_table(players=3, seated=2, start=False)
    with transaction.atomic():
        game, seats, replayed = commit._lock_with_seats(table.game_id, None)
    creator = table.users[0]
    assert (game.creator.pk, game.creator.username, game.creator.is_bot) == (creator.pk, creator.username, False)
    expected = list(Seat.objects.filter(game=game).select_related("player").order_by("number"))
    assert [s.number for s in seats] == [s.number for s in expected] == [0, 1, 2]
    assert [s.player and (s.player.pk, s.player.username, s.player.is_bot) for s in seats] == [
        s.player and (s.player.pk, s.player.username, s.player.is_bot) for s in expected
    ]
    assert seats[2].player is None and seats[2].player_id is None
    assert replayed is None


class _Portable:
    """The real connection under another vendor's name: ``commit`` then takes its
    portable branches (the ORM's lock, reads and writes) on the same PostgreSQL."""

    vendor = "portable"

    def __getattr__(self, name):
        return getattr(connection, name)


def _record(table) -> str:
    """A game's rows as a change leaves them, without what differs between two games
    (keys, times, and the players' names, written as their seats)."""
    game_id = table.game_id
    game = Game.objects.values().get(pk=game_id)
    skip = {"id", "creator_id", "created_at", "started_at", "finished_at", "last_move_at", "turn_deadline"}
    rows = {
        "game": {k: v for k, v in game.items() if k not in skip},
        "moves": list(
            Move.objects.filter(game_id=game_id)
            .order_by("number")
            .values("number", "seq", "round", "seat", "payload", "source", "idempotency_key")
        ),
        "events": list(Event.objects.filter(game_id=game_id).order_by("seq").values("seq", "type", "data")),
        "seats": list(
            Seat.objects.filter(game_id=game_id)
            .order_by("number")
            .values("number", "bot_strategy", "resigned", "away", "timeouts_in_row")
        ),
    }
    text = json.dumps(rows, sort_keys=True, default=str)
    for seat, user in enumerate(table.users):
        text = text.replace(json.dumps(user.username), json.dumps(f"seat {seat}"))
    return text


def test_the_postgresql_statements_write_what_the_portable_path_writes(make_table, monkeypatch):
    """``_lock_with_seats`` and ``_write`` each do in one statement on PostgreSQL what
    their portable branch does through the ORM: the same moves played on two games
    dealt alike, one each way, leave the same rows."""
    tables = [make_table(players=2, seed=11) for _ in range(2)]
    for way, table in zip(("postgresql", "portable"), tables, strict=True):
        if way == "portable":
            monkeypatch.setattr(commit, "connection", _Portable())
        for n in range(6):  # the first legal move each time, with a key (the replay check reads it)
            game = Game.objects.get(pk=table.game_id)
            seat = game.turn_seat
            view = selectors.game_view(game=game, viewer=table.users[seat])
            assert view.you is not None
            services.move_submit(
                game_id=table.game_id,
                player=table.users[seat],
                move=view.you["legal_moves"][0],
                expected_seq=game.seq,
                idempotency_key=f"key-{n}",
            )
        monkeypatch.undo()
    first, second = (_record(t) for t in tables)
    assert '"moves": [{' in first and "tile_played" in first
    assert first == second


def test_a_moves_rows_are_made_as_the_models_own_constructor_makes_them(make_player):
    """``commit._new_row`` (a move's and its events' rows, without ``Model.__init__``)
    gives the instance ``Move(game=..., actor=...)`` would: the same fields, the same
    related objects at hand, nothing left to load; and it is ``__init__`` again once
    something listens to ``post_init``."""
    from django.db.models.signals import post_init
    from django.utils import timezone

    player = make_player("alice")
    game = Game(id=12345, creator=player)  # a row's object, as the lock reads it
    now = timezone.now()
    columns = {"number": 1, "seq": 2, "round": 0, "seat": 1, "payload": {"type": "draw"}}
    columns |= {"source": "player", "idempotency_key": "k", "created_at": now}
    for actor in (player, None):
        made = commit._new_row(
            Move, {"game": game, "actor": actor}, id=None, game_id=game.pk, actor_id=actor and actor.pk, **columns
        )
        expected = Move(game=game, actor=actor, **columns)
        assert {k: v for k, v in made.__dict__.items() if k != "_state"} == {
            k: v for k, v in expected.__dict__.items() if k != "_state"
        }
        assert made._state.__dict__ == expected._state.__dict__  # adding, db, and the related objects' cache
        assert made.game is game and made.actor is actor  # at hand, not read
    event = commit._new_row(Event, {"game": game}, id=None, game_id=game.pk, seq=3, type="t", data={}, created_at=now)
    expected_event = Event(game=game, seq=3, type="t", data={}, created_at=now)
    assert {k: v for k, v in event.__dict__.items() if k != "_state"} == {
        k: v for k, v in expected_event.__dict__.items() if k != "_state"
    }
    assert event._state.__dict__ == expected_event._state.__dict__

    seen = []

    def listener(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(listener, sender=Event)
    try:
        event = commit._new_row(
            Event, {"game": game}, id=None, game_id=game.pk, seq=4, type="t", data={}, created_at=now
        )
    finally:
        post_init.disconnect(listener, sender=Event)
    assert seen == [event] and event.game is game and event.seq == 4

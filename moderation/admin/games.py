"""Games in the admin: find a stuck or abusive game, look at it, act on it.

Read-only by design: nothing here edits a game's fields or state. Every change
is one of the moderation actions (abort, hand a seat to a bot, remove a player
before the start), which go through ``moderation.services`` - the same games
services as the API, so clients get the events - and leave an audit entry.
Opening the hidden hands is an action too: it is recorded.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy

from bots.strategies import STRATEGIES
from core.errors import ApiError
from games import engine, selectors
from games import services as game_services
from games.engine import Match
from games.models import Game, Move, MoveSource, Seat
from live import turns
from moderation import evidence
from moderation import services as moderation
from moderation.admin.actions import ModeratorPagesMixin, ReasonForm, error_text, reason_action, render_action_page
from moderation.admin.audit import AuditEntryInline, ReadOnlyAdminMixin
from moderation.admin.chat import ChatMessageInline
from players.authentication import request_account

#: A game is "stuck" when its follow-up work is this late (a turn clock past its
#: deadline, a bot that has not moved): the worker or the sweep should have acted.
STUCK_GRACE = timedelta(seconds=5)


def seat_label(seat: Seat) -> str:
    """``alice``, ``alice (bot: greedy)`` for a player a bot stands in for,
    ``bot: greedy`` for a server bot, ``(empty)``."""
    player = seat.player
    if player is None:
        return gettext("bot: %(level)s") % {"level": seat.bot_strategy} if seat.bot_strategy else gettext("(empty)")
    name = player.username + (gettext(" [bot account]") if player.is_bot else "")
    if seat.bot_strategy:
        return gettext("%(name)s (bot: %(level)s)") % {"name": name, "level": seat.bot_strategy}
    return name


def seat_names(game: Game) -> dict[int, str]:
    """Seat number -> the name a moderator reads (``seat_label``)."""
    return {seat.number: seat_label(seat) for seat in game.seats.all()}


def _spinner_arms(game: Game) -> int:
    return int((game.ruleset or {}).get("spinner_arms", 4))


def move_sentence(move: Move, names: dict[int, str], arms: int) -> str:
    """A move as a moderator reads it: "alice played 6-4 on arm 2", "bob drew a
    tile", "carol passed (turn clock)". Each hand's layout numbers the spinner's
    arms first (e1..e4, or e6), so those ends are named as arms."""
    who = names.get(move.seat) or gettext("seat %(number)s") % {"number": move.seat}
    payload = move.payload
    kind = payload.get("type")
    if kind == "play":
        end = str(payload.get("end", ""))
        number = int(end[1:]) if end[1:].isdigit() else None
        if number is not None and number <= arms:
            text = gettext("%(who)s played %(tile)s on arm %(arm)s") % {
                "who": who,
                "tile": payload.get("tile"),
                "arm": number,
            }
        else:
            text = gettext("%(who)s played %(tile)s on end %(end)s") % {
                "who": who,
                "tile": payload.get("tile"),
                "end": end,
            }
    elif kind == "draw":
        text = gettext("%(who)s drew a tile") % {"who": who}
    elif kind == "pass":
        text = gettext("%(who)s passed") % {"who": who}
    else:
        text = f"{who}: {kind}"
    if move.source == MoveSource.TIMEOUT:
        text += gettext(" (turn clock)")
    elif move.source == MoveSource.BOT:
        text += gettext(" (server bot)")
    return text


def _is_bot(seat: Seat) -> bool:
    return bool(seat.bot_strategy) or (seat.player is not None and seat.player.is_bot)


def _public_view(game: Game) -> dict[str, Any] | None:
    """The engine's public view (no hidden tiles), computed once per object."""
    if not game.state:
        return None
    if not hasattr(game, "_admin_public_view"):
        game._admin_public_view = engine.public_view(Match.from_dict(game.state))  # type: ignore[attr-defined]
    return game._admin_public_view  # type: ignore[attr-defined]


def _at(values: list[Any], index: int) -> Any:
    return values[index] if index < len(values) else None


def replay_context(game: Game, step_text: str | None) -> dict[str, Any]:
    """The replay page's data at ``step`` (0: the deal, before any move)."""
    moves = list(game.moves.order_by("number"))
    names = seat_names(game)
    arms = _spinner_arms(game)
    try:
        step = int(step_text) if step_text is not None else len(moves)
    except ValueError:
        step = len(moves)
    step = max(0, min(step, len(moves)))
    view = None
    if game.state or moves:
        match, _ = Match.new(engine.Ruleset.from_dict(game.ruleset), game.seed, game.setup)
        for move in moves[:step]:
            match.apply(move.seat, move.payload)
        view = engine.public_view(match)
    think = {row.number: row.think_seconds for row in evidence.move_rows(game)}
    lines = [
        {
            "number": m.number,
            "round": m.round,
            "text": move_sentence(m, names, arms),
            "done": m.number <= step,
            "at": m.created_at,
            "think": think.get(m.number),
        }
        for m in moves
    ]
    turn = view["turn"] if view else None
    sizes, totals = (view["hand_sizes"], view["totals"]) if view else ([], [])
    return {
        "step": step,
        "last": len(moves),
        "previous": step - 1 if step > 0 else None,
        "next": step + 1 if step < len(moves) else None,
        "view": view,
        "lines": lines,
        "current": lines[step - 1]["text"] if step > 0 else gettext("The deal (before any move)."),
        "turn_name": names.get(turn, "-") if turn is not None else "-",
        "seats": [(number, name, _at(sizes, number), _at(totals, number)) for number, name in sorted(names.items())],
    }


# -- list filters -------------------------------------------------------------


class HasBotsFilter(admin.SimpleListFilter):
    title = gettext_lazy("bots")
    parameter_name = "has_bots"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", gettext("with bots")), ("no", gettext("humans only"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        bots = Exists(Seat.objects.filter(Q(bot_strategy__gt="") | Q(player__is_bot=True), game=OuterRef("pk")))
        if self.value() == "yes":
            return queryset.filter(bots)
        if self.value() == "no":
            return queryset.filter(~bots)
        return queryset


class StuckFilter(admin.SimpleListFilter):
    title = gettext_lazy("stuck")
    parameter_name = "stuck"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", gettext("stuck: no move past its deadline"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        if self.value() != "yes":
            return queryset
        late = turns.overdue_turns(now=timezone.now() - STUCK_GRACE)
        return queryset.filter(pk__in={turn.game_id for turn in late})


# -- inlines ------------------------------------------------------------------


class _GameInline(ReadOnlyAdminMixin, admin.TabularInline):
    """A read-only part of a game: whoever may view the game may view it."""

    extra = 0
    can_delete = False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm("games.view_game")


class SeatInline(_GameInline):
    model = Seat
    fields = ("number", "player", "bot_strategy", "resigned", "away", "timeouts_in_row")
    readonly_fields = fields


class MoveInline(_GameInline):
    model = Move
    fields = ("number", "round", "move_text", "source", "move_time", "think_time")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("move log")

    @admin.display(description=gettext_lazy("time (UTC)"))
    def move_time(self, move: Move) -> str:
        """To the second: "plays instantly" and "stalls" are checked on it."""
        return f"{move.created_at:%Y-%m-%d %H:%M:%S}"

    @admin.display(description=gettext_lazy("think time"))
    def think_time(self, move: Move) -> str:
        game = move.game
        if not hasattr(game, "_admin_think"):
            game._admin_think = {row.number: row.think_seconds for row in evidence.move_rows(game)}  # type: ignore[attr-defined]
        seconds = game._admin_think.get(move.number)  # type: ignore[attr-defined]
        return "-" if seconds is None else gettext("%(seconds).1f s") % {"seconds": seconds}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Move]:
        seats = Prefetch("game__seats", queryset=Seat.objects.select_related("player"))
        return super().get_queryset(request).select_related("game").prefetch_related(seats)

    @admin.display(description=gettext_lazy("move"))
    def move_text(self, move: Move) -> str:
        game = move.game
        if not hasattr(game, "_admin_seat_names"):
            game._admin_seat_names = seat_names(game)  # type: ignore[attr-defined]
        return move_sentence(move, game._admin_seat_names, _spinner_arms(game))  # type: ignore[attr-defined]


# -- forms of the game actions -----------------------------------------------


class SeatReasonForm(ReasonForm):
    seat = forms.TypedChoiceField(label=gettext_lazy("Seat"), coerce=int, choices=())
    field_order = ["seat", "strategy", "reason"]

    def __init__(self, *args: Any, seats: list[Seat], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        seat_field: forms.TypedChoiceField = self.fields["seat"]  # type: ignore[assignment]  # declared above
        seat_field.choices = [
            (s.number, gettext("seat %(number)s: %(name)s") % {"number": s.number, "name": seat_label(s)})
            for s in seats
        ]


class SeatToBotForm(SeatReasonForm):
    strategy = forms.ChoiceField(
        label=gettext_lazy("Bot level"),
        choices=[(name, name) for name in sorted(STRATEGIES)],
        initial=game_services.FALLBACK_STRATEGY,
        help_text=gettext_lazy("The server bot that plays the seat until the end."),
    )


def _form_data(request: HttpRequest) -> Any:
    return request.POST if request.method == "POST" else None


# -- the admin ------------------------------------------------------------------


@admin.register(Game)
class GameAdmin(ModeratorPagesMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "status", "players", "bots", "created_at", "last_move_at", "turn_deadline", "moderated")
    list_filter = ("status", HasBotsFilter, StuckFilter, "moderated", "practice", "rated")
    search_fields = ("seats__player__username", "creator__username")
    date_hierarchy = "created_at"
    actions = ["abort_selected", "void_rating_selected"]
    inlines = [SeatInline, MoveInline, ChatMessageInline, AuditEntryInline]
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "status",
                    "creator",
                    "practice",
                    "rated",
                    "ruleset",
                    "turn_time_limit",
                    "bot_delay_ms",
                    "seq",
                    "turn",
                    "turn_deadline",
                    "moderated",
                    "abort_reason",
                    "seed_shown",
                    "api",
                )
            },
        ),
        (gettext_lazy("Times"), {"fields": ("created_at", "started_at", "finished_at", "last_move_at")}),
        (gettext_lazy("Scores"), {"fields": ("scores",)}),
        (gettext_lazy("Layout"), {"fields": ("layout_picture",)}),
    )
    readonly_fields = tuple(str(f) for _name, spec in fieldsets for f in spec["fields"])

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number"))
        return super().get_queryset(request).select_related("creator").prefetch_related(seats)

    # -- columns and read-only fields ---------------------------------------------
    @admin.display(description=gettext_lazy("players"))
    def players(self, game: Game) -> str:
        return ", ".join(seat_label(s) for s in game.seats.all())

    @admin.display(description=gettext_lazy("turn"))
    def turn(self, game: Game) -> str:
        if game.turn_seat is None:
            return "-"
        return gettext("%(name)s (seat %(number)s)") % {
            "name": seat_names(game).get(game.turn_seat, "?"),
            "number": game.turn_seat,
        }

    @admin.display(description=gettext_lazy("bots"))
    def bots(self, game: Game) -> int:
        return sum(1 for s in game.seats.all() if _is_bot(s))

    @admin.display(description=gettext_lazy("seed"))
    def seed_shown(self, game: Game) -> str:
        return (
            str(game.seed)
            if selectors.seed_visible(game, None)
            else gettext("hidden until the end (see “Reveal hands”)")
        )

    @admin.display(description=gettext_lazy("public API"))
    def api(self, game: Game) -> SafeString:
        return render_to_string("admin/games/game/api_links.html", {"game": game})

    @admin.display(description=gettext_lazy("scores"))
    def scores(self, game: Game) -> SafeString:
        view = _public_view(game)
        seats = [seat_label(s) for s in game.seats.all()]
        return render_to_string("admin/games/game/scores.html", {"view": view, "seats": seats, "game": game})

    @admin.display(description=gettext_lazy("layout"))
    def layout_picture(self, game: Game) -> SafeString:
        view = _public_view(game)
        return render_to_string("admin/games/game/layout.html", {"view": view})

    # -- pages ------------------------------------------------------------------------
    moderator_pages = (
        ("abort", "abort_view"),
        ("seat-to-bot", "seat_to_bot_view"),
        ("seat-remove", "seat_remove_view"),
        ("hands", "hands_view"),
        ("replay", "replay_view"),
    )

    def _game_to_moderate(self, request: HttpRequest, object_id: str) -> Game:
        game = self.get_object(request, unquote(object_id))
        if game is None:
            raise Http404(gettext("There is no game %(id)s.") % {"id": object_id})
        if not (self.has_view_permission(request, game) and self.has_moderate_permission(request)):
            raise PermissionDenied
        return game

    def _act(self, request: HttpRequest, game: Game, form: ReasonForm, perform: Any, **page: Any) -> HttpResponse:
        """Show ``form``; once valid, ``perform(cleaned_data)`` -> a message (then back
        to the game) or a response of its own. A refusal is shown on the form."""
        if form.is_bound and form.is_valid():
            try:
                outcome = perform(form.cleaned_data)
            except ApiError as error:
                form.add_error(None, error_text(error))
            else:
                if isinstance(outcome, HttpResponse):
                    return outcome
                self.message_user(request, outcome, messages.SUCCESS)
                return redirect(reverse("admin:games_game_change", args=[game.pk]))
        return render_action_page(request, self, form=form, objects=[], original=game, **page)

    def abort_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        game = self._game_to_moderate(request, object_id)

        def perform(data: dict[str, Any]) -> str:
            moderation.moderation_game_abort(game_id=game.pk, by=request_account(request), reason=data["reason"])
            return gettext("Game %(id)s aborted.") % {"id": game.pk}

        return self._act(
            request,
            game,
            ReasonForm(_form_data(request)),
            perform,
            title=gettext("Abort game %(id)s") % {"id": game.pk},
            submit=gettext("Abort the game"),
            note=gettext("The game ends now, without a result; its players see the reason."),
        )

    def seat_to_bot_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        game = self._game_to_moderate(request, object_id)
        seats = [s for s in game.seats.all() if not s.bot_controlled]
        form = SeatToBotForm(_form_data(request), seats=seats)

        def perform(data: dict[str, Any]) -> str:
            moderation.moderation_seat_to_bot(
                game_id=game.pk,
                seat_number=data["seat"],
                by=request_account(request),
                reason=data["reason"],
                strategy=data["strategy"],
            )
            return gettext("Seat %(seat)s of game %(id)s is now played by a bot (%(level)s).") % {
                "seat": data["seat"],
                "id": game.pk,
                "level": data["strategy"],
            }

        return self._act(
            request,
            game,
            form,
            perform,
            title=gettext("Hand a seat of game %(id)s to a bot") % {"id": game.pk},
            submit=gettext("Hand the seat to a bot"),
            note=gettext("A server bot plays the seat until the end; the player cannot take it back."),
        )

    def seat_remove_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        game = self._game_to_moderate(request, object_id)
        form = SeatReasonForm(_form_data(request), seats=[s for s in game.seats.all() if s.is_taken])

        def perform(data: dict[str, Any]) -> str:
            moderation.moderation_seat_remove(
                game_id=game.pk, seat_number=data["seat"], by=request_account(request), reason=data["reason"]
            )
            return gettext("Seat %(seat)s of game %(id)s is empty again.") % {"seat": data["seat"], "id": game.pk}

        return self._act(
            request,
            game,
            form,
            perform,
            title=gettext("Remove a player from game %(id)s") % {"id": game.pk},
            submit=gettext("Empty the seat"),
            note=gettext("Only before the start: the seat becomes free again."),
        )

    def hands_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        game = self._game_to_moderate(request, object_id)

        def perform(data: dict[str, Any]) -> HttpResponse:
            full = moderation.moderation_hands_view(game_id=game.pk, by=request_account(request), reason=data["reason"])
            seats = list(game.seats.all())
            context = {
                **self.admin_site.each_context(request),
                "title": gettext("Hands of game %(id)s") % {"id": game.pk},
                "opts": self.opts,
                "original": game,
                "full": full,
                "rows": [(seat_label(seat), full["hands"][seat.number]) for seat in seats],
            }
            return TemplateResponse(request, "admin/games/game/hands.html", context)

        return self._act(
            request,
            game,
            ReasonForm(
                _form_data(request),
                reason_required=False,
                help_text=gettext("Kept in the audit trail with your name; the game's players are not shown it."),
            ),
            perform,
            title=gettext("Reveal the hands of game %(id)s") % {"id": game.pk},
            submit=gettext("Reveal the hands"),
            note=gettext(
                "Every hand, the boneyard and the seed are shown. This look is recorded in the audit trail with your name."
            ),
        )

    def replay_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Step through the match, move by move: the public layout after each one
        (replayed with the engine from ruleset, seed, setup and the move log). Only
        public information: hands are shown through "Reveal hands" (audited)."""
        game = self.get_object(request, unquote(object_id))
        if game is None:
            raise Http404(gettext("There is no game %(id)s.") % {"id": object_id})
        if not self.has_view_permission(request, game):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            **replay_context(game, request.GET.get("step")),
            "title": gettext("Replay of game %(id)s") % {"id": game.pk},
            "opts": self.opts,
            "original": game,
            "can_moderate": self.has_moderate_permission(request),
        }
        return TemplateResponse(request, "admin/games/game/replay.html", context)

    @admin.action(description=gettext_lazy("Abort selected games (asks for a reason)"), permissions=["moderate"])
    def abort_selected(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        def perform(game: Game, reason: str) -> str:
            moderation.moderation_game_abort(game_id=game.pk, by=request_account(request), reason=reason)
            return gettext("aborted.")

        return reason_action(
            self,
            request,
            queryset,
            name="abort_selected",
            title=gettext("Abort games"),
            perform=perform,
            note=gettext("These games end now, without a result; their players see the reason."),
        )

    @admin.action(description=gettext_lazy("Void the rating effect (asks for a reason)"), permissions=["moderate"])
    def void_rating_selected(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        def perform(game: Game, reason: str) -> str:
            outcome = moderation.moderation_rating_void(game_id=game.pk, by=request_account(request), reason=reason)
            if not outcome.voided:
                return gettext("no rating change left to void.")
            return gettext("rating effect voided for %(players)s.") % {"players": ", ".join(outcome.players)}

        return reason_action(
            self,
            request,
            queryset,
            name="void_rating_selected",
            title=gettext("Void the rating effect"),
            perform=perform,
            note=gettext(
                "Each player's rating loses what these rated games changed; the games themselves stay as they are."
            ),
        )

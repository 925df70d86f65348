"""The runner: follow the account's stream and play every turn with the author's ``choose``.

``GET /me/stream/`` sends a ``snapshot`` of the account's open and running games
on every (re)connect, then ``your_turn``, ``game_started`` and ``game_over`` as
they happen. On a turn the runner reads the game (``GET /games/{id}/``), asks
``choose(state)`` for a move and submits it with ``expected_seq`` and an
``Idempotency-Key``; it keeps going from the move's answer while it is still its
turn (a draw, then the drawn tile), and from a ``409 stale_seq`` answer's own
``game`` when the game moved on meanwhile. A dropped stream is resumed with
``Last-Event-ID`` after a back-off; since every reconnect starts with a fresh
snapshot, a turn or an end missed while away is found again there.

With ``accept_challenges``, it also accepts every challenge the account is
invited to (``POST /challenges/{id}/accept/``): those waiting in the snapshot's
``challenges`` and each ``challenge_received``; the table that starts when
everyone has accepted then arrives as ``game_started`` like any other.

A mute or a suspension of the account (``sanction_imposed``, ``sanction_appealed``,
``sanction_lifted``, and those in force in the snapshot's ``sanctions``) is logged
as a warning with its reason and end.
"""

from __future__ import annotations

import http.client
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from chickenfoot_bot.api import ApiError, Client
from chickenfoot_bot.sse import SseEvent, SseParser, open_stream
from chickenfoot_bot.state import GameState, Move

log = logging.getLogger("chickenfoot_bot")

Choose = Callable[[GameState], "Move | dict[str, Any]"]
OVER = ("finished", "aborted")
#: The account's mutes and suspensions on its stream (``Sanction``): imposed, appealed, lifted.
SANCTION_EVENTS = ("sanction_imposed", "sanction_appealed", "sanction_lifted")


class Runner:
    """Plays the account's seats. ``game_id``: only that game, and stop when it ends;
    ``games``: stop after that many games have ended; neither: run until stopped."""

    def __init__(
        self,
        client: Client,
        choose: Choose,
        *,
        game_id: int | None = None,
        games: int | None = None,
        read_timeout: float = 45,
        max_backoff: float = 30,
        sleep: Callable[[float], None] = time.sleep,
        accept_challenges: bool = False,
    ) -> None:
        self.client = client
        self.accept_challenges = accept_challenges
        self.accepted: set[int] = set()  # the challenges we accepted
        self.choose = choose
        self.only = game_id
        self.limit = games
        self.read_timeout = read_timeout
        self.max_backoff = max_backoff
        self.sleep = sleep
        self.parser = SseParser()
        self.known: set[int] = set()  # the games in play, as the stream last told
        self.acted_at: dict[int, int] = {}  # game -> its seq when it was last not our turn
        self.ended: dict[int, dict[str, Any]] = {}  # game -> its summary (status, result)
        self.moves = 0

    @property
    def done(self) -> bool:
        if self.only is not None:
            return self.only in self.ended
        return self.limit is not None and len(self.ended) >= self.limit

    def run(self) -> dict[int, dict[str, Any]]:
        """Follow the stream until done; returns the games that ended meanwhile."""
        failures = 0
        while not self.done:
            connected = time.monotonic()
            try:
                for event in open_stream(self.client, "/me/stream/", self.parser, read_timeout=self.read_timeout):
                    if event.event == "snapshot":
                        failures = 0  # connected and answered: the next drop starts the back-off afresh
                    self.on_event(event)
                    if self.done:
                        return self.ended
                # A stream the server closes on purpose (LIVE_STREAM_MAX_SECONDS) is resumed at
                # once; its retry: hint is kept as the least time between two connects.
                delay = max(0.0, (self.parser.retry or 1.0) - (time.monotonic() - connected))
                log.info("the stream was closed by the server; resuming after id %s", self.parser.last_id)
            except ApiError as error:
                if error.status == 429:
                    delay = error.retry_after or 1.0
                    log.warning("the stream is rate limited; resuming in %.1f s as Retry-After says", delay)
                elif error.status >= 500:
                    failures += 1
                    delay = self._backoff(failures)
                    log.warning("the stream answered %s; resuming in %.1f s", error, delay)
                else:
                    raise  # 401 (a revoked token, a suspended account) and the like: retrying cannot help
            except (OSError, http.client.HTTPException) as error:
                failures += 1
                delay = self._backoff(failures)
                log.warning(
                    "the stream dropped (%s); resuming after id %s in %.1f s", error, self.parser.last_id, delay
                )
            self.sleep(delay)
        return self.ended

    def _backoff(self, failures: int) -> float:
        return min(self.max_backoff, (self.parser.retry or 1.0) * 2 ** (failures - 1))

    # -- what the stream says ------------------------------------------------------

    def on_event(self, event: SseEvent) -> None:
        try:
            self._on_event(event)
        except ApiError as error:
            if error.status == 401 or error.status >= 500:
                raise  # the stream's loop stops (401) or reconnects, and the snapshot says what is due
            log.error("%s event: %s; going on with the next one", event.event, error)

    def _on_event(self, event: SseEvent) -> None:
        data = event.json()
        if event.event == "snapshot":
            rows = data["games"]
            present = {row["game"] for row in rows}
            expected = self.known | ({self.only} if self.only is not None else set())
            for game_id in expected - present:  # it ended while we were away (or before we came)
                self.check_ended(game_id)
            for row in rows:
                self.on_row(row)
            for challenge in data.get("challenges", []):
                self.on_challenge(challenge)
            for sanction in data.get("sanctions", []):
                self.on_sanction("sanction_imposed", sanction)
        elif event.event in SANCTION_EVENTS:
            self.on_sanction(event.event, data)
        elif event.event == "challenge_received":
            self.on_challenge(data)
        elif event.event in ("your_turn", "game_started"):
            self.on_row(data)
        elif event.event == "game_over":
            self.game_over(data["game"], data)

    def on_sanction(self, event: str, sanction: dict[str, Any]) -> None:
        """A mute or a suspension of the account (a ``Sanction``): logged for the author to read
        (a suspension also closes the stream; its log-in refusal then says the same)."""
        until = sanction.get("ends_at") or "until lifted"
        if event == "sanction_lifted":
            log.warning("the %s (%s) was lifted", sanction["kind"], sanction["reason"])
        elif event == "sanction_appealed" and sanction.get("appeal"):
            appeal = sanction["appeal"]
            log.warning("appeal against the %s: %s %s", sanction["kind"], appeal["status"], appeal.get("answer", ""))
        else:
            log.warning("a moderator imposed a %s (%s): %s", sanction["kind"], until, sanction["reason"])

    def on_row(self, row: dict[str, Any]) -> None:
        """One of the account's games (an ``AccountGame``): play it if it is our turn there."""
        game_id = row["game"]
        if self.only is not None and game_id != self.only:
            return
        self.known.add(game_id)
        if row["status"] in OVER:
            self.game_over(game_id, row)
        elif row["your_turn"] and row["seq"] > self.acted_at.get(game_id, -1):
            self.play(game_id)

    def on_challenge(self, challenge: dict[str, Any]) -> None:
        """A challenge we are invited to and have not answered: accept it (``accept_challenges``)."""
        if not self.accept_challenges or challenge.get("your_invite") != "pending":
            return
        if challenge["id"] in self.accepted:
            return
        try:
            answer = self.client.post(f"/challenges/{challenge['id']}/accept/")
        except ApiError as error:
            if error.status == 401 or error.status >= 500:
                raise
            # challenge_expired, challenge_closed, already_answered ...: nothing left to do
            log.warning("challenge %d: %s", challenge["id"], error)
            self.accepted.add(challenge["id"])
            return
        self.accepted.add(challenge["id"])
        log.info(
            "accepted challenge %d from %s: %s", challenge["id"], challenge["creator"]["username"], answer["status"]
        )

    def check_ended(self, game_id: int) -> None:
        summary = self.client.game(game_id)["game"]
        if summary["status"] in OVER:
            self.game_over(game_id, summary)

    def game_over(self, game_id: int, summary: dict[str, Any]) -> None:
        self.known.discard(game_id)
        if game_id in self.ended or (self.only is not None and game_id != self.only):
            return
        self.ended[game_id] = summary
        result = summary.get("result") or {}
        log.info(
            "game %d %s: winners %s, totals %s (%d moves of ours so far)",
            game_id,
            summary["status"],
            result.get("winners"),
            result.get("totals"),
            self.moves,
        )

    # -- playing one game ----------------------------------------------------------

    def play(self, game_id: int) -> None:
        """Move in ``game_id`` for as long as it is our turn there."""
        view = self.client.game(game_id)
        refusals = 0
        while True:
            state = GameState.from_view(view)
            if state.over:
                self.game_over(game_id, view["game"])
                return
            if not state.your_turn:
                self.acted_at[game_id] = state.seq
                return
            move = self.decide(state)
            try:
                answer = self.client.post(
                    f"/games/{game_id}/moves/",
                    {**move.to_dict(), "expected_seq": state.seq},
                    headers={"Idempotency-Key": uuid.uuid4().hex},
                )
            except ApiError as error:
                if error.code == "stale_seq" and "game" in error.body:
                    log.info("game %d moved on to seq %s: deciding again", game_id, error.body.get("current_seq"))
                    view = error.body["game"]  # the fresh view comes with the refusal: no need to read it
                    continue
                refusals += 1
                if refusals > 3:
                    log.error("game %d: %s; leaving the turn to the server's clock", game_id, error)
                    return
                if error.code == "seat_away":
                    log.warning("game %d: the seat was handed to a bot; taking it back", game_id)
                    self.client.post(f"/games/{game_id}/return/")
                else:
                    log.warning("game %d: %s (move %s); reading the game again", game_id, error, move.to_dict())
                view = self.client.game(game_id)
                continue
            self.moves += 1
            log.info("game %d seq %d seat %d: %s", game_id, state.seq, state.seat, _describe(move))
            view = answer["game"]

    def decide(self, state: GameState) -> Move:
        """The author's choice, checked: a move that is not legal (or a crash) is logged
        and replaced by the first legal move, so a bug never lets the clock run out."""
        try:
            chosen = self.choose(state)
            move = chosen if isinstance(chosen, Move) else Move.from_dict(chosen)
        except Exception:
            log.exception("game %d: choose() failed; playing the first legal move", state.game_id)
            return state.legal_moves[0]
        if move not in state.legal_moves:
            log.error(
                "game %d: choose() returned %s, not a legal move; playing the first legal one", state.game_id, move
            )
            return state.legal_moves[0]
        return move


def _describe(move: Move) -> str:
    return f"play {move.tile} on {move.end}" if move.type == "play" else move.type

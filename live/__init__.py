"""Live play: the games API's views, the streams and long-polls, the fan-out hub, what
happens after a change commits (notices, follow-up tasks), the turn clocks and the
bots' turns. It sits above the game record (``games``) and may import it; the record
never imports it (docs/architecture.md, "games and live")."""

"""Every state change of a game, by use: the lobby, play (moves, bots, clocks),
moderators' actions. All of them go through ``games.services.commit``: one
transaction, the game row locked and re-read, the engine asked, the new state,
moves and events stored together, live notices and follow-up tasks sent after the
commit. Import from here: ``from games import services; services.move_submit(...)``.
"""

from games.services.commit import GameChange, GameGone, MoveResult, game_change, game_change_new, games_purge
from games.services.lobby import (
    MAX_SEED,
    FullTable,
    game_abort,
    game_add_bot,
    game_create,
    game_join,
    game_leave,
    game_open_full,
    game_start,
    games_open_full,
)
from games.services.moderation import (
    SeatChanged,
    game_abort_as_moderator,
    player_withdraw,
    seat_hand_to_bot,
    seat_remove,
)
from games.services.play import (
    AWAY_AFTER_TIMEOUTS,
    FALLBACK_STRATEGY,
    bot_move,
    game_resign,
    move_submit,
    seat_return,
    turn_timeout,
)

__all__ = [
    "AWAY_AFTER_TIMEOUTS",
    "FALLBACK_STRATEGY",
    "MAX_SEED",
    "FullTable",
    "GameChange",
    "GameGone",
    "MoveResult",
    "SeatChanged",
    "bot_move",
    "game_abort",
    "game_abort_as_moderator",
    "game_add_bot",
    "game_change",
    "game_change_new",
    "game_create",
    "game_join",
    "game_leave",
    "game_open_full",
    "game_resign",
    "game_start",
    "games_open_full",
    "games_purge",
    "move_submit",
    "player_withdraw",
    "seat_hand_to_bot",
    "seat_remove",
    "seat_return",
    "turn_timeout",
]

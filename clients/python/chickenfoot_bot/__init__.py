"""chickenfoot_bot: write a Chicken Foot bot as one function, ``choose(state) -> move``.

    from chickenfoot_bot import GameState, Move

    def choose(state: GameState) -> Move:
        return max(state.legal_moves, key=lambda move: move.weight)

Run it with ``chickenfoot-bot --url URL --token TOKEN mybot:choose`` (or
``python -m chickenfoot_bot``): the runner follows your account's stream and plays
every turn of yours, in every game (see ``chickenfoot_bot.runner``). The kit uses
only the server's public HTTP API and the Python standard library.
"""

from chickenfoot_bot.api import ApiError, Client
from chickenfoot_bot.runner import Runner
from chickenfoot_bot.state import GameState, Move, OpenEnd, pips

__all__ = ["ApiError", "Client", "GameState", "Move", "OpenEnd", "Runner", "pips"]
__version__ = "0.1.0"

"""A complete Chicken Foot bot with the kit: it sheds its heaviest tile.

pip install ./clients/python
chickenfoot-bot --url http://127.0.0.1:8000 --token cf_... --new-vs-bots 3 examples/kit_bot.py:choose
"""

from chickenfoot_bot import GameState, Move


def choose(state: GameState) -> Move:
    """Play the tile with the most pips; draw or pass only when no tile can go down."""
    return max(state.legal_moves, key=lambda move: (move.type == "play", move.weight))

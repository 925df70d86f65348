"""What games tell the apps built on them (ratings, matchmaking ...), which may not
be imported from here.

``match_finished`` is sent inside the transaction of the change that finished the
match (``games.services.commit``), with the game row still locked: a receiver's
writes commit or roll back with the final move, so what it derives from a finished
match happens exactly once. A receiver that raises rolls the move back, so
receivers must only do what cannot be refused (and keep it quick: the final move
waits for them). Arguments: ``game`` (the ``Game``, status ``finished``, ``result``
set) and ``seats`` (its ``Seat`` rows in seat order, players loaded).
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()

"""Celery broker transports: kombu's own, with the failures that stopped our workers fixed.

``settings.CELERY_BROKER_TRANSPORT`` picks one of these by the broker URL's scheme
(``redis``/``rediss``, ``filesystem``).

* ``FilesystemTransport`` - the embedded broker (``make serve``, no Redis): a
  folder of message files. kombu's filesystem transport creates a message file
  under its final name and writes it afterwards, so a consumer polling the folder
  can read an empty or half-written file; the worker then dies with
  ``Unrecoverable error: JSONDecodeError('Expecting value: line 1 column 1 (char
  0)')`` (kombu issue #1551, open). It creates an exchange table the same way
  (truncated, then written). Here a message is written under a temporary name in
  a folder of its own and renamed into place, which is atomic, so a consumer sees
  a whole message or none; a new exchange table is linked into place whole; a
  consumer claims a message by renaming it (so two consumers never both take
  it) and sets aside a file it cannot parse instead of dying on it.
* ``RedisTransport`` - kombu's Redis transport. When the connection to Redis is
  lost while the worker holds unacknowledged messages (acks_late tasks, ETA
  tasks such as our turn clocks and paced bot turns), Celery's consumer first
  tears the transport down (``Connection.collect`` sets its ``client`` to None)
  and then closes the channel, whose close tries to put those messages back
  through the torn-down transport: ``AttributeError: 'NoneType' object has no
  attribute 'hostname'`` in ``restore_unacked``, which is not a connection
  error, so the worker exits instead of reconnecting (reproduced with celery and
  kombu 5.7.0, redis-py 8.1.0; the same path as kombu issues #582 and #970).
  Here that case raises a connection error, which the close already ignores:
  the worker reconnects. The messages it held are not lost - still in Redis's
  unacked set, they come back after the visibility timeout (and with a Redis that
  restarted empty they are gone anyway) - and the worker re-sends every due
  turn when it reconnects (``ops.worker``), so nothing waits for them.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from pathlib import Path
from queue import Empty
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.transport import redis as kombu_redis
from kombu.transport.virtual import BrokerState
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads
from redis.exceptions import ConnectionError as RedisConnectionError

log = logging.getLogger(__name__)

TMP_FOLDER = "tmp"  # messages being written (not yet in the queue)
CLAIMED_FOLDER = "claimed"  # messages a consumer has taken (being read)
REJECTED_FOLDER = "rejected"  # files that were not a message, kept for a person to look at


class FilesystemChannel(filesystem.Channel):
    def _folder(self, name: str) -> str:
        folder = os.path.join(self.data_folder_in, name)
        os.makedirs(folder, exist_ok=True)
        return folder

    # The signatures of kombu.transport.filesystem.Channel (its stubs ignore the override too).
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Write the message aside, then rename it into the queue: atomic."""
        # Named by the time it was sent, zero-padded so that names sort in that order
        # (kombu's unpadded milliseconds since boot sort wrongly when they gain a digit,
        # and start again at a reboot), then unique.
        name = f"{time.time_ns():020d}_{uuid.uuid4()}.{queue}.msg"
        staged = os.path.join(self._folder(TMP_FOLDER), name)
        try:
            with open(staged, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(staged, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add message {name!r} to the broker folder") from exc

    def _get(self, queue: str) -> Any:  # type: ignore[override]
        """Take the oldest message of ``queue``: claim it by renaming (one consumer
        wins), read it, delete it. A file that is not a message is set aside."""
        wanted = f"{queue}.msg"
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.partition(".")[2] != wanted:
                continue
            claimed = os.path.join(self._folder(CLAIMED_FOLDER), name)
            try:
                os.replace(os.path.join(self.data_folder_in, name), claimed)
            except FileNotFoundError:  # another consumer took it
                continue
            try:
                with open(claimed, "rb") as file:
                    payload = file.read()
                message = loads(bytes_to_str(payload))
            except (OSError, ValueError) as exc:
                os.replace(claimed, os.path.join(self._folder(REJECTED_FOLDER), name))
                log.error("broker: set aside %s, which is not a message (%s)", name, exc)
                continue
            os.remove(claimed)
            return message
        raise Empty()

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str | None, queue: str) -> None:
        """Create a new exchange table whole (linked into place), never empty; an
        existing one is updated by kombu under its file lock."""
        table: Path = self._exchange_file(exchange)  # type: ignore[attr-defined]  # kombu, not in its stubs
        self.control_folder.mkdir(parents=True, exist_ok=True)
        if not table.exists():
            staged = Path(self._folder(TMP_FOLDER)) / f"{uuid.uuid4()}.exchange"
            staged.write_text(json.dumps([[routing_key or "", pattern or "", queue or ""]]))
            try:
                os.link(staged, table)  # fails if another process created it meanwhile
                return
            except FileExistsError:
                pass
            finally:
                staged.unlink()
        super()._queue_bind(exchange, routing_key, pattern, queue)


class FilesystemTransport(filesystem.Transport):
    Channel = FilesystemChannel
    global_state = BrokerState()


class RedisChannel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            # The transport was torn down before this channel was closed (see the
            # module docstring; kombu #582, #970): a connection error, which the
            # consumer's clean-up ignores before it reconnects.
            raise RedisConnectionError("the broker connection was closed; reconnecting")
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]  # not in kombu's stubs


class RedisTransport(kombu_redis.Transport):
    Channel = RedisChannel


class RedisSentinelChannel(RedisChannel, kombu_redis.SentinelChannel):
    """kombu's Sentinel channel (each connection asks the sentinels for the master)
    with ``RedisChannel``'s fix."""


class RedisSentinelTransport(kombu_redis.SentinelTransport):
    Channel = RedisSentinelChannel

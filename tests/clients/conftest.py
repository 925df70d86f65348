from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.clients.fake_server import FakeServer


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    server = FakeServer()
    yield server
    server.stop()

"""The kit's HTTP client: 429 waited out as Retry-After says, problem documents
raised with their code, transient failures repeated only when that is safe."""

from __future__ import annotations

import pytest
from chickenfoot_bot.api import ApiError, Client, retry_after_seconds

from tests.clients.fake_server import FakeServer, Reply


def client_of(fake: FakeServer, sleeps: list[float], **options) -> Client:
    return Client(fake.url, "cf_test", sleep=sleeps.append, **options)


def test_429_is_waited_out_as_retry_after_says_then_sent_again(fake):
    limited = Reply(429, {"code": "rate_limited", "retry_after": 9}, {"Retry-After": "0.25"})
    fake.script("GET", "/me/", limited, limited, Reply(200, {"username": "kit"}))
    sleeps: list[float] = []
    assert client_of(fake, sleeps).get("/me/") == {"username": "kit"}
    assert sleeps == [0.25, 0.25]  # the header wins over the body
    assert len(fake.requests("GET", "/me/")) == 3
    assert fake.seen[0].headers["Authorization"] == "Bearer cf_test"


def test_a_429_without_the_header_waits_the_bodys_retry_after():
    assert retry_after_seconds({}, {"retry_after": 3}) == 3.0
    assert retry_after_seconds({"Retry-After": "x"}, {"retry_after": 4}) == 4.0
    assert retry_after_seconds({}, None) == 1.0


def test_a_429_that_never_ends_is_raised_with_its_wait(fake):
    fake.script("POST", "/games/", Reply(429, {"code": "rate_limited"}, {"Retry-After": "7"}))
    sleeps: list[float] = []
    with pytest.raises(ApiError) as raised:
        client_of(fake, sleeps, max_attempts=3).post("/games/", {})
    assert raised.value.code == "rate_limited" and raised.value.retry_after == 7.0
    assert sleeps == [7.0, 7.0]


def test_a_problem_is_raised_with_its_code_and_body(fake):
    fake.script("POST", "/games/3/join/", Reply(409, {"code": "already_seated", "detail": "You sit here."}))
    with pytest.raises(ApiError) as raised:
        client_of(fake, []).post("/games/3/join/")
    assert (raised.value.status, raised.value.code) == (409, "already_seated")
    assert "You sit here." in str(raised.value)


def test_a_503_is_repeated_for_a_move_with_an_idempotency_key_but_not_for_a_bare_post(fake):
    fake.script("POST", "/games/1/moves/", Reply(503, {"code": "unavailable"}), Reply(201, {"ok": True}))
    sleeps: list[float] = []
    client = client_of(fake, sleeps)
    assert client.post("/games/1/moves/", {"type": "draw"}, headers={"Idempotency-Key": "k1"}) == {"ok": True}
    assert [s.headers["Idempotency-Key"] for s in fake.requests("POST", "/games/1/moves/")] == ["k1", "k1"]
    fake.script("POST", "/games/", Reply(503, {"code": "unavailable"}))
    with pytest.raises(ApiError):
        client.post("/games/", {})  # creating a game twice is worse than failing once
    assert len(fake.requests("POST", "/games/")) == 1

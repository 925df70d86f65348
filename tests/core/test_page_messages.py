"""Django's messages (the admin's notes between pages) are the pages' alone:
``core.middleware.PageMessages`` gives no request under /api/ a message store, and
a note a page queued waits for the next page, whatever API requests come between."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.test import RequestFactory

from core.middleware import PageMessages


def _serve(request: HttpRequest, view: Any) -> HttpResponseBase:
    SessionMiddleware(lambda r: HttpResponse()).process_request(request)
    answer = PageMessages(view)(request)
    assert isinstance(answer, HttpResponseBase)
    return answer


def test_a_note_queued_by_a_page_waits_through_api_requests_for_the_next_page() -> None:
    factory = RequestFactory()

    def saves(request: HttpRequest) -> HttpResponse:
        messages.success(request, "Saved.")
        return HttpResponse()

    cookie = _serve(factory.post("/admin/players/user/1/change/"), saves).cookies["messages"].value

    seen_by_api: list[bool] = []

    def api(request: HttpRequest) -> HttpResponse:
        seen_by_api.append(hasattr(request, "_messages"))
        return HttpResponse()

    answer = _serve(factory.get("/api/v1/me/", HTTP_COOKIE=f"messages={cookie}"), api)
    assert seen_by_api == [False] and "messages" not in answer.cookies  # neither read nor cleared

    shown: list[str] = []

    def page(request: HttpRequest) -> HttpResponse:
        shown.extend(str(message) for message in messages.get_messages(request))
        return HttpResponse()

    answer = _serve(factory.get("/admin/", HTTP_COOKIE=f"messages={cookie}"), page)
    assert shown == ["Saved."]
    assert answer.cookies["messages"].value == ""  # shown once, then gone

"""Session authentication whose CSRF refusal is a problem of its own
(``csrf_failed``), so that a browser client can tell it from a missing permission."""

from __future__ import annotations

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from core.errors import CsrfFailed


class SessionAuthentication(authentication.SessionAuthentication):
    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied as refused:
            raise CsrfFailed(str(refused.detail).removeprefix("CSRF Failed: ")) from refused

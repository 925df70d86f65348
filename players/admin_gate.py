"""The admin's second factor (docs/security.md, docs/moderation.md): no admin page
answers a staff account until its session gave a code of its second factor.

``SecondFactorGate`` (a middleware) sends a signed-in staff account that has not
given a code in this session to ``/admin/second-factor/`` (the code, after the
admin's password log-in) or, without a confirmed second factor, to
``/admin/second-factor/set-up/`` (the secret and its ``otpauth://`` URI, confirmed
with a code; then the recovery codes, shown once). Only the admin's log-in and
log-out pages and these pages answer before. Wrong codes count towards the log-in
lock (``players.login``) like wrong passwords.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, cast
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache

from players import second_factor
from players.authentication import request_account
from players.errors import PlayerError
from players.models import User

app_name = "second_factor"


def _gated(user: Any) -> bool:
    return isinstance(user, User) and user.is_active and user.is_staff


def _admin_prefix() -> str | None:
    """Where the admin's pages are (None under a URL map without the admin, some
    tests'), under this request's URL map and script prefix: worked out once for
    each pair, not reversed (a walk of the URL map) on every request of the site
    (docs/performance.md, "Measurements behind the code")."""
    return _admin_prefix_under(get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())


@lru_cache(maxsize=32)
def _admin_prefix_under(urlconf: Any, script_prefix: str) -> str | None:
    try:
        return reverse("admin:index", urlconf=urlconf)
    except NoReverseMatch:
        return None


def _open_paths() -> tuple[str, ...]:
    return (reverse("admin:login"), reverse("admin:logout"), reverse("second_factor:verify"))


class SecondFactorGate:
    """Under the admin's prefix: a staff session without its second factor's code
    goes to the code's page (or the set-up page) and comes back after."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path_ = request.path
        if (prefix := _admin_prefix()) is not None and path_.startswith(prefix) and _gated(request.user):
            user = cast(User, request.user)
            enabled = second_factor.is_enabled(user)
            # Checked on every admin page: a second factor reset (or turned off) since the
            # code was given ends the session's passage at once.
            passed = enabled and request.session.get(second_factor.SESSION_KEY) == user.pk
            if not passed and not path_.startswith(_open_paths()):
                page = "second_factor:verify" if enabled else "second_factor:set-up"
                return redirect(f"{reverse(page)}?{urlencode({'next': request.get_full_path()})}")
        return self.get_response(request)


class CodeForm(forms.Form):
    code = forms.CharField(
        max_length=32,
        label="Code",
        help_text="The 6 digits your authenticator app shows, or an unused recovery code.",
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "autofocus": True, "inputmode": "numeric"}),
    )


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return reverse("admin:index")


def _page(request: HttpRequest, template: str, title: str, **context: Any) -> HttpResponse:
    return render(
        request,
        f"players/{template}",
        {**admin.site.each_context(request), "title": title, "next": _next(request), **context},
    )


def _staff_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    def wrapped(request: HttpRequest) -> HttpResponse:
        if not _gated(request.user):
            return redirect(f"{reverse('admin:login')}?{urlencode({'next': request.get_full_path()})}")
        return view(request)

    return never_cache(login_required(wrapped, login_url="admin:login"))


@_staff_only
def verify_view(request: HttpRequest) -> HttpResponse:
    """The admin log-in's second step: a code of the confirmed second factor."""
    user = request_account(request)
    if not second_factor.is_enabled(user):
        return redirect(f"{reverse('second_factor:set-up')}?{urlencode({'next': _next(request)})}")
    form = CodeForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            second_factor.verify(user=user, code=form.cleaned_data["code"], address=request.META.get("REMOTE_ADDR"))
        except PlayerError as error:
            form.add_error("code", str(error.detail))
        else:
            request.session.cycle_key()
            request.session[second_factor.SESSION_KEY] = user.pk
            return redirect(_next(request))
    return _page(request, "second_factor_verify.html", "Second factor", form=form)


@_staff_only
def set_up_view(request: HttpRequest) -> HttpResponse:
    """Staff without a confirmed second factor: the secret, then a code to confirm it,
    then the recovery codes (shown this once)."""
    user = request_account(request)
    if second_factor.is_enabled(user):
        return redirect(f"{reverse('second_factor:verify')}?{urlencode({'next': _next(request)})}")
    factor = second_factor.device(user)
    if factor is None:
        second_factor.set_up(user=user)
        factor = second_factor.device(user)
    assert factor is not None
    form = CodeForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            codes = second_factor.confirm(user=user, code=form.cleaned_data["code"])
        except PlayerError as error:
            form.add_error("code", str(error.detail))
        else:
            request.session.cycle_key()
            request.session[second_factor.SESSION_KEY] = user.pk
            return _page(request, "second_factor_codes.html", "Your recovery codes", codes=codes)
    setup = second_factor.provisioning(factor)
    return _page(request, "second_factor_set_up.html", "Set up a second factor", form=form, setup=setup)


urlpatterns = [
    path("", verify_view, name="verify"),
    path("set-up/", set_up_view, name="set-up"),
]

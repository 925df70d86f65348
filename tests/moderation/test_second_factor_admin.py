"""The admin's second factor (players.admin_gate): no admin page answers a staff
account before its session gave a code; without a confirmed second factor it is
sent to set one up; recovery codes work once; wrong codes count towards the log-in
lock; a moderator's reset of another's second factor is audited and nobody resets
their own. (In Chromium: test_second_factor_browser.py.)"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse, set_script_prefix

from moderation.models import AuditEntry
from players import login
from players.admin_gate import _admin_prefix
from players.models import RecoveryCode, SecondFactor, User
from tests.conftest import PASSWORD
from tests.moderation.admin_login import second_factor_secret
from tests.moderation.conftest import audit_actions, run_list_action
from tests.totp import code, fresh_step

pytestmark = pytest.mark.django_db

VERIFY = "/admin/second-factor/"
SET_UP = "/admin/second-factor/set-up/"
ADMIN_PAGES = ["/admin/", "/admin/players/user/", "/admin/moderation/auditentry/", "/admin/games/game/"]


def moderator_named(make_player: Any, name: str) -> User:
    make_player(name)
    call_command("add_moderator", name, stdout=open("/dev/null", "w"))  # noqa: SIM115
    return User.objects.get(username=name)


def shown_secret(content: bytes) -> str:
    found = re.search(rb'id="second-factor-secret">([A-Z2-7]+)<', content)
    assert found is not None, content[:2000]
    return found.group(1).decode()


def password_only(username: str) -> Client:
    """An admin session after the password (the admin's log-in form), no code yet."""
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def test_without_a_second_factor_no_admin_page_answers_but_the_set_up(make_player):
    maria = moderator_named(make_player, "maria")
    client = password_only("maria")
    for page in ADMIN_PAGES:
        response = client.get(page)
        assert response.status_code == 302, page
        assert response["Location"] == f"{SET_UP}?next={page.replace('/', '%2F')}", page
    set_up = client.get(SET_UP + "?next=/admin/players/user/")
    assert set_up.status_code == 200
    secret = shown_secret(set_up.content)
    assert SecondFactor.objects.get(user=maria).confirmed_at is None  # made by the page, not confirmed yet
    assert b"otpauth://totp/" in set_up.content
    assert shown_secret(client.get(SET_UP).content) == secret  # a reload: the same
    step = fresh_step()
    wrong = client.post(SET_UP, {"code": code(secret, step + 4), "next": "/admin/players/user/"})
    assert wrong.status_code == 200 and b"wrong or expired" in wrong.content
    assert client.get("/admin/").status_code == 302
    done = client.post(SET_UP, {"code": code(secret, step), "next": "/admin/players/user/"})
    assert done.status_code == 200
    codes = re.findall(rb"<li><code>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})</code></li>", done.content)
    assert len(codes) == 10 and RecoveryCode.objects.filter(user=maria).count() == 10
    for page in ADMIN_PAGES:
        assert client.get(page).status_code == 200, page


def test_staff_outside_the_group_need_it_too(make_player):
    staff = make_player("root")
    staff.is_staff = staff.is_superuser = True
    staff.save(update_fields=["is_staff", "is_superuser"])
    response = password_only("root").get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith(SET_UP)


def test_players_are_sent_to_the_admin_log_in_as_before(make_player):
    make_player("mallory")
    response = password_only("mallory").get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert password_only("mallory").get(SET_UP).status_code == 302  # no set-up page for players


def test_with_a_second_factor_the_admin_asks_for_its_code(make_player):
    maria = moderator_named(make_player, "maria")
    secret = second_factor_secret(maria)
    client = password_only("maria")
    response = client.get("/admin/games/game/")
    assert response.status_code == 302 and response["Location"] == f"{VERIFY}?next=%2Fadmin%2Fgames%2Fgame%2F"
    assert client.get(SET_UP).status_code == 302  # confirmed already: nothing to set up
    step = fresh_step()
    assert b"wrong, expired" in client.post(VERIFY, {"code": code(secret, step + 5)}).content
    passed = client.post(VERIFY, {"code": code(secret, step), "next": "/admin/games/game/"})
    assert passed.status_code == 302 and passed["Location"] == "/admin/games/game/"
    assert client.get("/admin/games/game/").status_code == 200
    # Elsewhere, a code used once is refused.
    other = password_only("maria")
    assert b"wrong, expired" in other.post(VERIFY, {"code": code(secret, step)}).content
    assert other.get("/admin/").status_code == 302


def test_a_foreign_next_is_not_followed(make_player):
    maria = moderator_named(make_player, "maria")
    secret = second_factor_secret(maria)
    client = password_only("maria")
    passed = client.post(VERIFY, {"code": code(secret, fresh_step()), "next": "https://evil.example/"})
    assert passed["Location"] == "/admin/"


def test_a_recovery_code_works_once(make_player):
    maria = moderator_named(make_player, "maria")
    client = password_only("maria")
    secret = shown_secret(client.get(SET_UP).content)
    done = client.post(SET_UP, {"code": code(secret, fresh_step())})
    recovery = re.findall(rb"<li><code>([a-z2-9-]{14})</code></li>", done.content)[0].decode()
    first = password_only("maria")
    assert first.post(VERIFY, {"code": recovery})["Location"] == "/admin/"
    assert first.get("/admin/").status_code == 200
    second = password_only("maria")
    assert b"wrong, expired" in second.post(VERIFY, {"code": recovery}).content
    assert second.get("/admin/").status_code == 302
    assert RecoveryCode.objects.filter(user=maria, used_at__isnull=True).count() == 9


def test_wrong_codes_lock_the_log_in(make_player, settings):
    maria = moderator_named(make_player, "maria")
    secret = second_factor_secret(maria)
    client = password_only("maria")
    step = fresh_step()
    for _ in range(settings.LOGIN_FREE_FAILURES):
        client.post(VERIFY, {"code": code(secret, step + 6)})
    locked = client.post(VERIFY, {"code": code(secret, step)})
    assert b"locked" in locked.content
    assert client.get("/admin/").status_code == 302
    # The password form is locked too now, from that address.
    assert login.locked_for(maria, address="127.0.0.1") > 0


def test_a_moderator_resets_anothers_second_factor_with_a_reason_audited(make_player):
    maria = moderator_named(make_player, "maria")
    olav = moderator_named(make_player, "olav")
    second_factor_secret(olav)
    olav_admin = Client()
    olav_admin.force_login(olav)
    assert olav_admin.get("/admin/").status_code == 200
    admin = Client()
    admin.force_login(maria)  # with her own code given (tests/conftest.py)
    changelist = reverse("admin:players_user_changelist")
    response = run_list_action(admin, changelist, "reset_second_factor", [olav.pk], reason="Lost phone and codes.")
    assert response.status_code == 302
    assert not SecondFactor.objects.filter(user=olav).exists() and not RecoveryCode.objects.filter(user=olav).exists()
    entry = AuditEntry.objects.get(action="second_factor_reset")
    assert (entry.moderator, entry.player, entry.reason) == (maria, olav, "Lost phone and codes.")
    assert entry.details == {"had_second_factor": True}
    # Olav's open admin session stops at once, and his next log-in sets up a new one.
    assert olav_admin.get("/admin/")["Location"].startswith(SET_UP)
    assert password_only("olav").get("/admin/")["Location"].startswith(SET_UP)


def test_nobody_resets_their_own_second_factor(make_player):
    maria = moderator_named(make_player, "maria")
    second_factor_secret(maria)
    admin = Client()
    admin.force_login(maria)
    changelist = reverse("admin:players_user_changelist")
    run_list_action(admin, changelist, "reset_second_factor", [maria.pk], reason="Mine.")
    assert SecondFactor.objects.filter(user=maria, confirmed_at__isnull=False).exists()
    assert audit_actions(action="second_factor_reset") == []


def test_a_reset_needs_a_reason_and_the_moderate_permission(make_player, make_staff):
    olav = moderator_named(make_player, "olav")
    second_factor_secret(olav)
    watcher = Client()
    watcher.force_login(make_staff("watcher", moderate=False))
    changelist = reverse("admin:players_user_changelist")
    response = watcher.post(changelist, {"action": "reset_second_factor", "_selected_action": [str(olav.pk)]})
    assert response.status_code in (200, 302)
    assert SecondFactor.objects.filter(user=olav).exists()
    maria = Client()
    maria.force_login(moderator_named(make_player, "maria"))
    run_list_action(maria, changelist, "reset_second_factor", [olav.pk], reason="   ")
    assert SecondFactor.objects.filter(user=olav).exists()
    assert audit_actions(action="second_factor_reset") == []


def test_a_superuser_may_reset_a_moderators_second_factor(make_player):
    olav = moderator_named(make_player, "olav")
    second_factor_secret(olav)
    root = make_player("root")
    root.is_staff = root.is_superuser = True
    root.save(update_fields=["is_staff", "is_superuser"])
    admin = Client()
    admin.force_login(root)
    changelist = reverse("admin:players_user_changelist")
    run_list_action(admin, changelist, "reset_second_factor", [olav.pk], reason="Asked by Olav in person.")
    assert not SecondFactor.objects.filter(user=olav).exists()
    assert audit_actions(action="second_factor_reset") == ["second_factor_reset"]


def test_the_gate_finds_the_admin_under_each_url_map_and_script_prefix(settings) -> None:
    """The admin's prefix is worked out once per URL map and script prefix
    (players.admin_gate), and is still the right one for each."""
    assert _admin_prefix() == "/admin/"
    set_script_prefix("/chicken/")
    try:
        assert _admin_prefix() == "/chicken/admin/"
    finally:
        set_script_prefix("/")
    assert _admin_prefix() == "/admin/"
    settings.ROOT_URLCONF = "tests.api.error_urls"  # a map without the admin
    assert _admin_prefix() is None

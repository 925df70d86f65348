"""Alt accounts: API log-ins and sign-ups keep a keyed hash of the client's address
(as ``NUM_PROXIES`` says to read it), and the admin's account page lists the other
accounts seen at one of its addresses in the last 30 days - to moderators only,
never the address itself."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from players.models import AddressSighting, LoginAddress, User
from players.tasks import address_hashes_purge
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

PROXY = "203.0.113.250"  # the deployment's proxy (NUM_PROXIES=1) appends what it saw


def account_page(client: Client, user: Any) -> str:
    answer = client.get(reverse("admin:players_user_change", args=[user.pk]))
    assert answer.status_code == 200, answer.status_code
    return answer.content.decode()


def alts_table(page: str) -> str:
    start = page.index('id="account-alts"')
    return page[start : page.index("</table>", start)]


def token_log_in(username: str, address: str) -> None:
    answer = APIClient().post(
        "/api/v1/tokens/",
        {"username": username, "password": PASSWORD, "name": "bot"},
        format="json",
        HTTP_X_FORWARDED_FOR=f"198.51.100.99, {address}",  # the first entry is the client's to forge
        REMOTE_ADDR=PROXY,
    )
    assert answer.status_code == 201, answer.content


def session_log_in(username: str, address: str) -> None:
    answer = APIClient().post(
        "/api/v1/session/",
        {"username": username, "password": PASSWORD},
        format="json",
        HTTP_X_FORWARDED_FOR=address,
        REMOTE_ADDR=PROXY,
    )
    assert answer.status_code == 200, answer.content


def register(username: str, address: str) -> Any:
    answer = APIClient().post(
        "/api/v1/players/",
        {"username": username, "password": PASSWORD},
        format="json",
        HTTP_X_FORWARDED_FOR=address,
        REMOTE_ADDR=PROXY,
    )
    assert answer.status_code == 201, answer.content
    return User.objects.get(username=username)


@pytest.fixture
def behind_proxy(settings: Any) -> None:
    settings.NUM_PROXIES = 1


def test_accounts_from_one_address_are_listed_and_others_not(
    behind_proxy: None, make_player: Any, mod_client: Client
) -> None:
    main, alt, elsewhere = make_player("main"), make_player("alt"), make_player("elsewhere")
    token_log_in("main", "192.0.2.10")
    session_log_in("alt", "192.0.2.10")  # the same client address behind the proxy
    token_log_in("elsewhere", "192.0.2.11")  # another one (and the same forged first entry)
    newcomer = register("newcomer", "192.0.2.10")  # a sign-up counts too

    shown = alts_table(account_page(mod_client, main))
    assert "alt" in shown and "newcomer" in shown
    assert "elsewhere" not in shown
    assert "192.0.2" not in account_page(mod_client, main)
    assert "main" in alts_table(account_page(mod_client, newcomer))
    assert "No other account" in alts_table(account_page(mod_client, elsewhere))
    assert alt.pk != main.pk


def test_only_rows_within_thirty_days_count_and_older_ones_are_purged(
    behind_proxy: None, make_player: Any, mod_client: Client
) -> None:
    main, old = make_player("main"), make_player("old")
    token_log_in("main", "192.0.2.20")
    token_log_in("old", "192.0.2.20")
    AddressSighting.objects.filter(account=old).update(seen_at=timezone.now() - timedelta(days=31))
    assert "old" not in alts_table(account_page(mod_client, main))

    assert address_hashes_purge() == 1
    assert list(AddressSighting.objects.values_list("account__username", flat=True)) == ["main"]


def test_not_for_staff_without_the_view_permission(behind_proxy: None, make_player: Any) -> None:
    main = make_player("main")
    make_player("alt")
    token_log_in("main", "192.0.2.30")
    token_log_in("alt", "192.0.2.30")
    staff = make_player("helper")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    client = Client()
    client.force_login(staff)
    answer = client.get(reverse("admin:players_user_change", args=[main.pk]))
    assert answer.status_code in (302, 403)
    # Nor through the API: the account's own data download has no address hashes.
    player = APIClient()
    player.force_authenticate(main)
    download = player.get("/api/v1/me/data/")
    assert download.status_code == 200
    assert AddressSighting.objects.get(account=main).address_hash not in download.content.decode()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # committed: pg_dump reads from its own connection
def test_the_address_itself_is_nowhere_in_the_database(behind_proxy: None, make_player: Any) -> None:
    make_player("main")
    make_player("alt")
    token_log_in("main", "192.0.2.77")
    session_log_in("alt", "192.0.2.77")
    register("newcomer", "192.0.2.77")
    session_log_in("main", "192.0.2.78")  # and a wrong password from a third: the log-in lock's row
    APIClient().post(
        "/api/v1/tokens/",
        {"username": "alt", "password": "wrong", "name": "x"},
        format="json",
        HTTP_X_FORWARDED_FOR="192.0.2.79",
        REMOTE_ADDR=PROXY,
    )
    assert AddressSighting.objects.count() == 4
    assert LoginAddress.objects.filter(failures=1).count() == 1
    params = connection.settings_dict
    dump = subprocess.run(
        [
            "pg_dump",
            "--data-only",
            f"--host={params.get('HOST') or '127.0.0.1'}",
            f"--port={params.get('PORT') or 5432}",
            f"--username={params.get('USER') or 'postgres'}",
            str(params["NAME"]),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "players_addresssighting" in dump and "players_loginaddress" in dump
    assert "192.0.2." not in dump  # in no table: the sightings, the log-in lock, sessions, the trail
    assert django_settings.SECRET_KEY not in dump

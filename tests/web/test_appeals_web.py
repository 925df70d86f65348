"""Sanctions and appeals in real browsers (headless Chromium against the embedded
``manage.py serve``), in both languages:

* a mute arrives live as a notice on the open page (the account stream's
  ``sanction_imposed``) with its reason; "Your account" lists it with its reason and
  end and an appeal form; the appeal sent shows as waiting, and the moderator's
  answer appears on the open page (``sanction_appealed``);
* a suspended player at the log-in form sees the reason, the end and an appeal form
  (the refusal's appeal token), in Estonian; the appeal is sent without signing in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import PASSWORD, base_url, check_requests_against_contract, sign_in, until
from tests.web.talk import manage_shell, moderate

pytestmark = [pytest.mark.slow]


def text_of(driver: Any, selector: str) -> str:
    return str(driver.execute_script("return document.querySelector(arguments[0])?.textContent || ''", selector))


def notices(driver: Any) -> str:
    """The live region every notice goes to (and the toasts still shown)."""
    return text_of(driver, "#notices") + " " + text_of(driver, "#toasts")


def write_appeal(driver: Any, scope: str, text: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.CSS_SELECTOR, f"{scope} [data-testid=appeal-text]")
    box.clear()
    box.send_keys(text)
    driver.find_element(By.CSS_SELECTOR, f"{scope} [data-testid=appeal-submit]").click()


def answer_appeal(server: Serve, username: str, answer: str, *, lift: bool = False) -> None:
    """Another moderator than the one who imposed it answers the account's appeal."""
    manage_shell(
        server,
        "from moderation import services as moderation\n"
        "from moderation.models import Appeal\n"
        "from players import services as players\n"
        "from players.models import User\n"
        "other = User.objects.filter(username='second_mod').first()\n"
        "if other is None:\n"
        "    other = players.user_register(username='second_mod', password='a long passphrase 42')\n"
        "    moderation.moderator_add(user=other)\n"
        "    other = User.objects.get(pk=other.pk)\n"
        f"appeal = Appeal.objects.get(sanction__player__username={username!r})\n"
        f"moderation.appeal_answer(appeal_id=appeal.pk, by=other, lift={lift!r}, answer={answer!r})\n",
    )


def test_a_mute_is_told_live_listed_and_appealed_on_the_account_page(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    browser = make_browser()
    sign_in(browser, embedded, "appeal_ann")
    until(browser, "the lobby", lambda d: d.execute_script("return document.body.dataset.route") == "lobby")
    until(browser, "the account stream", lambda d: d.execute_script("return Boolean(window.django)"))
    browser.get(base_url(embedded) + "/account/")
    until(browser, "the account page", lambda d: "Warnings and sanctions" in text_of(d, "[data-testid=standing]"))

    moderate(
        embedded,
        "moderation.moderation_player_mute(player=ann, by=mod, reason='Flooding the chat', "
        "until=timezone.now() + timedelta(hours=3)).pk",
        ann="appeal_ann",
    )
    # Live: the notice (every page) and the account page's list, without a reload.
    until(browser, "the notice", lambda d: "A moderator muted you until" in notices(d))
    assert "Flooding the chat" in notices(browser)
    item = "[data-testid=sanction-list] li[data-kind=mute]"
    until(browser, "the mute listed", lambda d: "Flooding the chat" in text_of(d, item))
    assert "until" in text_of(browser, item)
    assert browser.execute_script(f"return document.querySelector('{item}').dataset.inForce") == "true"

    write_appeal(browser, item, "It was a song, not spam.")
    until(browser, "the appeal sent", lambda d: d.execute_script(
        f"return document.querySelector('{item} [data-testid=appeal]')?.dataset.status === 'open'"
    ))  # fmt: skip
    assert "It was a song, not spam." in text_of(browser, item)
    assert not browser.execute_script(f"return Boolean(document.querySelector('{item} [data-testid=appeal-form]'))")

    answer_appeal(embedded, "appeal_ann", "The rules say no flooding, songs too.")
    until(browser, "the answer, live", lambda d: "songs too" in text_of(d, f"{item} [data-testid=appeal-answer]"))
    until(browser, "the answer's notice", lambda d: "the sanction stays" in notices(d))
    browser.refresh()  # and after a reload, from GET /me/sanctions/
    until(browser, "the answer kept", lambda d: "songs too" in text_of(d, f"{item} [data-testid=appeal-answer]"))
    check_requests_against_contract(browser)


def test_a_suspended_player_sees_why_at_the_log_in_form_and_appeals_in_estonian(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    port = embedded.port
    status, _ = request(port, "POST", "/api/v1/players/", {"username": "appeal_sid", "password": PASSWORD})
    assert status == 201
    moderate(
        embedded,
        "moderation.moderation_player_suspend(player=sid, by=mod, reason='Bots at the table', "
        "until=timezone.now() + timedelta(days=3))",
        sid="appeal_sid",
    )
    browser = make_browser()
    browser.get(base_url(embedded) + "/login/")
    browser.execute_script("document.cookie = 'language=et; path=/';")
    browser.get(base_url(embedded) + "/login/")
    until(browser, "the form in Estonian", lambda d: d.execute_script("return document.documentElement.lang") == "et")

    from selenium.webdriver.common.by import By

    browser.find_element(By.ID, "login-username").send_keys("appeal_sid")
    browser.find_element(By.ID, "login-password").send_keys(PASSWORD)
    browser.find_element(By.ID, "login-submit").click()
    panel = "[data-testid=suspension]"
    until(browser, "the suspension panel", lambda d: "Bots at the table" in text_of(d, panel))
    shown = text_of(browser, panel)
    assert "Konto on peatatud kuni" in shown and "Põhjus: Bots at the table" in shown, shown
    assert browser.find_element(By.CSS_SELECTOR, f"{panel} [data-testid=appeal-submit]").text == "Vaidlusta"

    write_appeal(browser, panel, "Mina mängisin ise.")
    until(browser, "the appeal sent", lambda d: d.execute_script(
        f"return document.querySelector('{panel} [data-testid=appeal]')?.dataset.status === 'open'"
    ))  # fmt: skip
    assert "Mina mängisin ise." in text_of(browser, panel)
    assert browser.execute_script("return document.body.dataset.route") == "login"  # still signed out
    printed = manage_shell(
        embedded,
        "from moderation.models import Appeal\n"
        "print(list(Appeal.objects.filter(sanction__player__username='appeal_sid').values_list('text', flat=True)))\n",
    )
    assert "Mina mängisin ise." in printed
    check_requests_against_contract(browser)


def page_in(language: str) -> Callable[[Any], bool]:
    return lambda driver: bool(driver.execute_script("return document.documentElement.lang") == language)


def test_ended_sanctions_stay_on_the_account_page_with_how_they_ended_in_both_languages(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    """A mute lifted on appeal and one that ran out: "Your account" keeps both,
    marked as ended, with when and how, and the moderator's answer - in English and
    in Estonian."""
    browser = make_browser()
    sign_in(browser, embedded, "ended_eve")
    lifted = moderate(
        embedded,
        "moderation.moderation_player_mute(player=eve, by=mod, reason='Shouting at the table').pk",
        eve="ended_eve",
    ).strip()
    manage_shell(
        embedded,
        "from moderation import services as moderation\n"
        "from players.models import User\n"
        f"moderation.appeal_create(player=User.objects.get(username='ended_eve'), sanction_id={lifted}, "
        "text='I was cheering, not shouting.')\n",
    )
    answer_appeal(embedded, "ended_eve", "Cheering is fine: lifted.", lift=True)
    ran_out = moderate(
        embedded,
        "moderation.moderation_player_mute(player=eve, by=mod, reason='Spamming emotes', "
        "until=timezone.now() + timedelta(hours=1)).pk",
        eve="ended_eve",
    ).strip()
    manage_shell(  # its hour has passed
        embedded,
        "from datetime import timedelta\n"
        "from django.utils import timezone\n"
        "from moderation.models import Sanction\n"
        "end = timezone.now() - timedelta(minutes=10)\n"
        f"Sanction.objects.filter(pk={ran_out}).update(starts_at=end - timedelta(hours=1), ends_at=end)\n",
    )

    appealed, expired = f"li[data-sanction='{lifted}']", f"li[data-sanction='{ran_out}']"
    for language, words in (
        ("en", ("(ended)", "a moderator lifted it on your appeal", "its time ran out", "the sanction was lifted")),
        (
            "et",
            (
                "(lõppenud)",
                "moderaator tühistas selle sinu vaidlustuse peale",
                "selle aeg sai täis",
                "karistus tühistati",
            ),
        ),
    ):
        browser.get(base_url(embedded) + "/account/")
        browser.execute_script(f"document.cookie = 'language={language}; path=/';")
        browser.get(base_url(embedded) + "/account/")
        until(browser, f"the page in {language}", page_in(language))
        until(browser, "both ended sanctions", lambda d: text_of(d, appealed) and text_of(d, expired))
        ended, answered, ran, status = words
        shown = text_of(browser, appealed)
        assert ended in shown and answered in shown and status in shown, shown
        assert "Shouting at the table" in shown and "I was cheering, not shouting." in shown
        assert "Cheering is fine: lifted." in text_of(browser, f"{appealed} [data-testid=appeal-answer]")
        assert ran in text_of(browser, f"{expired} [data-testid=sanction-end]"), text_of(browser, expired)
        data = browser.execute_script(
            "return [...document.querySelectorAll('[data-testid=sanction-list] li')]"
            ".map((li) => [li.dataset.sanction, li.dataset.inForce, li.dataset.endedHow])"
        )
        assert sorted(data) == sorted([[lifted, "false", "appeal"], [ran_out, "false", "expired"]]), data
        assert not browser.execute_script("return Boolean(document.querySelector('[data-testid=appeal-form]'))")
    check_requests_against_contract(browser)

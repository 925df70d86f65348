"""Helpers of the browser tests of the chat, reports, "Your account" and the table's
layout: moderator actions on the embedded server's database (as the admin's actions
do them: the same moderation services), and page queries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.web.conftest import PASSWORD, base_url, session_sign_in

ROOT = Path(__file__).resolve().parents[2]


def manage_shell(server: Any, code: str) -> str:
    """Run ``code`` in ``manage.py shell`` on the server's database (its environment);
    answers what it printed."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=server.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # (Django's shell first says how many names it imported: not the code's output.)
    return "".join(line for line in done.stdout.splitlines(keepends=True) if "imported automatically" not in line)


def moderate(server: Any, call: str, **names: str) -> str:
    """``call`` (a moderation service call, e.g. ``moderation.moderation_chat_remove(...)``)
    by a moderator account made on the spot, after ``names`` (variable -> username)
    are looked up; prints and answers its result's repr."""
    lookups = "".join(f"{var} = User.objects.get(username={username!r})\n" for var, username in names.items())
    code = (
        "from moderation import services as moderation\n"
        "from players.models import User\n"
        "from players import services as players\n"
        "from datetime import timedelta\n"
        "from django.utils import timezone\n"
        "mod = User.objects.filter(username='moderator').first()\n"
        "if mod is None:\n"
        "    mod = players.user_register(username='moderator', password='a long passphrase 42')\n"
        "    moderation.moderator_add(user=mod)\n"
        "    mod = User.objects.get(pk=mod.pk)\n"
        f"{lookups}"
        f"print(repr({call}))\n"
    )
    return manage_shell(server, code)


def log_in(driver: Any, server: Any, username: str, *, password: str = PASSWORD) -> dict[str, Any]:
    """Sign the page in as an existing account, as the log-in form does (POST
    /api/v1/session/ from the page: the HttpOnly session cookie, the account in
    localStorage); answers this browser's device ({id, name, current, ...}: the token
    row its sign-in made, as GET /api/v1/tokens/ lists it to the page)."""
    session_sign_in(driver, server, username, password=password)
    status, page = driver.execute_async_script(
        """const [done] = arguments;
        fetch("/api/v1/tokens/", {credentials: "same-origin", headers: {Accept: "application/json"}})
          .then(async (r) => done([r.status, await r.json()]), (e) => done([0, String(e)]));"""
    )
    assert status == 200, (status, page)
    driver.get(base_url(server) + "/")
    return dict(next(device for device in page["results"] if device["current"]))


def visible(driver: Any, selector: str) -> bool:
    return bool(
        driver.execute_script(
            "const e = document.querySelector(arguments[0]); return Boolean(e && !e.closest('[hidden]') && e.getClientRects().length);",
            selector,
        )
    )


def chat_messages(driver: Any) -> list[dict[str, Any]]:
    """The chat panel's messages: {id, removed, text}."""
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=chat-list] li[data-message]')].map(li => ({"
            "id: Number(li.dataset.message), removed: li.dataset.removed === 'true',"
            "text: li.querySelector('.chat-text').textContent}));"
        )
    )


def write_chat(driver: Any, text: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.CSS_SELECTOR, "[data-testid=chat-input]")
    box.clear()
    box.send_keys(text)
    driver.find_element(By.CSS_SELECTOR, "[data-testid=chat-send]").click()

"""The screenshots of docs/moderation.md: a seeded scratch server, a moderator logged
in to the admin in headless Chromium, one PNG per admin page in ``PAGES``.

    .venv/bin/python tools/moderation_screens.py [--port 8300] [--out docs/screens] [--only NAME ...]

What it does, each step its own function:

1. ``manage.py migrate`` on a new SQLite database in a temporary folder (never the
   development database), then ``SEED`` through ``manage.py shell``: a moderator
   (``week_mod``, with a confirmed second factor whose secret the seed prints) and a
   second one, players, a finished table with chat, reports (an account, a game, a
   chat message), a warning, a mute with an appeal, a suspension, and two accounts
   that logged in from one address (alt accounts). The seed prints the ids the pages
   need as JSON.
2. ``manage.py serve --no-worker`` on ``--port`` (nothing is played; the admin only).
3. Chromium logs in as the moderator (password, then the code of the second factor,
   computed here from the secret as an authenticator app does) and saves each page
   of ``PAGES`` as ``<out>/moderation-<name>.png`` (the whole page, up to 3000 px).

``PAGES`` is the one list of what is shown (a name starting ``et-`` is shot in
Estonian, through the language cookie): add a page there (a name, a path with
``{ids}`` from the seed, what it shows) and re-run; after merging other moderation
work the lead re-runs it to refresh every PNG. Needs ``chromium`` and
``chromedriver``. Prints each file written.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "a long screenshot passphrase 42"

#: (name, path, what the page shows): the PNG is docs/screens/moderation-<name>.png.
#: Paths are formatted with the seed's ids ({report_chat}, {player}, ...).
PAGES: list[tuple[str, str, str]] = [
    ("dashboard", "/admin/moderation/report/dashboard/", "the moderators' dashboard"),
    ("queue", "/admin/moderation/report/", "the report queue: a group of reports on one account, reasons"),
    ("report-chat", "/admin/moderation/report/{report_chat}/change/", "a chat message's report, the chat around it"),
    ("report-game", "/admin/moderation/report/{report_game}/change/", "a game's report: move times, think times"),
    (
        "report-account",
        "/admin/moderation/report/{report_retaliation}/change/",
        "an account's report: its evidence, flagged as made minutes after its author was reported",
    ),
    ("account", "/admin/players/user/{player}/change/", "an account: its history and accounts sharing an address"),
    ("sanction", "/admin/players/user/{player}/sanction/", "warn, mute or suspend: canned texts, custom minutes"),
    ("lift", "/admin/players/user/{player}/lift/", "lifting a sanction in force before its end"),
    ("appeals", "/admin/moderation/appeal/", "the appeals, open ones first"),
    ("appeal-answer", "/admin/moderation/appeal/{appeal}/answer/", "answering an appeal: uphold or lift"),
    ("chat", "/admin/chat/chatmessage/?author__id__exact={player}", "the chat messages of one author"),
    ("held", "/admin/chat/heldchatmessage/", "the chat messages the filter held, to approve or reject"),
    ("filters", "/admin/chat/chatfilterrule/", "the chat's word and link filter rules"),
    ("audit", "/admin/moderation/auditentry/", "the audit trail"),
    # In Estonian (the language cookie): the admin's moderation pages are translated.
    ("et-dashboard", "/admin/moderation/report/dashboard/", "the dashboard in Estonian"),
    ("et-queue", "/admin/moderation/report/", "the report queue in Estonian"),
    ("et-report-account", "/admin/moderation/report/{report_retaliation}/change/", "an account's report in Estonian"),
]

SEED = r"""
from moderation import services as moderation
from players import second_factor
from players import services as players
from players.models import User

PASSWORD = __PASSWORD__

def account(name):
    return players.user_register(username=name, password=PASSWORD)

mod = account("week_mod")
moderation.moderator_add(user=mod)
mod = User.objects.get(pk=mod.pk)
other_mod = account("second_mod")
moderation.moderator_add(user=other_mod)
other_mod = User.objects.get(pk=other_mod.pk)
secret = second_factor.set_up(user=mod).secret
print("SECRET=" + secret)
"""

SEED_AFTER_CODE = r"""
import json
from datetime import timedelta
from django.utils import timezone
from chat import services as chat
from games import services as games
from moderation import services as moderation
from players import address_hash
from players import services as players
from players.models import User

PASSWORD = __PASSWORD__
mod = User.objects.get(username="week_mod")
other_mod = User.objects.get(username="second_mod")

def account(name):
    return players.user_register(username=name, password=PASSWORD)

alice, bob, carol, dave = (account(n) for n in ("alice", "bob_the_loud", "carol", "dave"))
bobs_alt = account("b0b_again")
# Two accounts from one address (what a log-in keeps: only a keyed hash of it).
for user in (bob, bobs_alt):
    address_hash.remember(user, "198.51.100.23")
address_hash.remember(alice, "203.0.113.5")

game = games.game_create(creator=alice, ruleset={"set_max": 6, "players": 3})
games.game_join(game_id=game.pk, player=bob)
games.game_join(game_id=game.pk, player=carol)
games.game_start(game_id=game.pk, by=alice)
# Six moves, each by the turn clock (a timeout), then spread in time: quick plays and long stalls.
from games.models import Game, Move
for _ in range(6):
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    games.turn_timeout(game_id=game.pk, expected_seq=Game.objects.get(pk=game.pk).seq)
start = timezone.now() - timedelta(minutes=10)
Game.objects.filter(pk=game.pk).update(started_at=start)
for move, seconds in zip(Move.objects.filter(game_id=game.pk).order_by("number"), (4, 58, 2, 61, 3, 59)):
    start += timedelta(seconds=seconds)
    Move.objects.filter(pk=move.pk).update(created_at=start)
chat.chat_message_create(game_id=game.pk, author=alice, channel="players", text="good luck all")
chat.chat_message_create(game_id=game.pk, author=carol, channel="players", text="hi!")
rude = chat.chat_message_create(game_id=game.pk, author=bob, channel="players", text="you all play like bots, idiots")
chat.chat_message_create(game_id=game.pk, author=alice, channel="players", text="please keep it friendly")

report_chat = moderation.report_create(reporter=alice, reason="abuse", text="insults at the table", message_id=rude.pk)
report_game = moderation.report_create(reporter=carol, reason="stalling", text="waits out every turn", game_id=game.pk)
report_account = moderation.report_create(reporter=dave, reason="offensive_name", account=bobs_alt)
moderation.report_assign(report_id=report_account.pk, by=mod)
# A group: two more reports on Bob's account; and Bob's answer minutes later (a retaliation).
moderation.report_create(reporter=carol, reason="abuse", text="rude all game", account=bob)
moderation.report_create(reporter=dave, reason="abuse", text="insults", account=bob)
report_retaliation = moderation.report_create(reporter=bob, reason="cheating", text="she cheats", account=alice)

# The chat's filter: a link held for review (Carol's account is not new: no link limit).
from chat.models import ChatFilterRule
ChatFilterRule.objects.create(pattern="cheap-chips.example", kind="link", action="hold")
ChatFilterRule.objects.create(pattern="idiot", kind="word", action="block")
User.objects.filter(pk=carol.pk).update(date_joined=timezone.now() - timedelta(days=60))
carol = User.objects.get(pk=carol.pk)
chat.chat_message_create(game_id=game.pk, author=carol, channel="players", text="chips at www.cheap-chips.example/deal")

moderation.moderation_player_warn(player=bob, by=other_mod, text="Keep the table chat friendly.")
mute = moderation.moderation_player_mute(
    player=bob, by=other_mod, reason="Insults in the chat after a warning.", until=timezone.now() + timedelta(days=3)
)
appeal = moderation.appeal_create(player=bob, sanction_id=mute.pk, text="It was a joke between friends.")
moderation.moderation_note_add(player=bob, by=other_mod, text="Second chat incident this month; see the report.")
moderation.moderation_player_suspend(
    player=dave, by=other_mod, reason="Bots at a rated table.", until=timezone.now() + timedelta(days=7)
)
print("IDS=" + json.dumps({
    "report_chat": report_chat.pk, "report_game": report_game.pk, "report_account": report_account.pk,
    "player": bob.pk, "alt": bobs_alt.pk, "appeal": appeal.pk, "game": game.pk,
    "report_retaliation": report_retaliation.pk,
}))
"""


def totp(secret: str, step: int) -> str:
    """The 6-digit code of the base32 ``secret`` for the 30-second ``step`` (RFC 6238)."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def shell(env: dict[str, str], code: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code.replace("__PASSWORD__", repr(PASSWORD))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"the seed failed:\n{done.stderr}")
    return done.stdout


def printed(output: str, prefix: str) -> str:
    return next(line[len(prefix) :] for line in output.splitlines() if line.startswith(prefix))


def seed(env: dict[str, str]) -> tuple[str, int, dict[str, int]]:
    """Migrate and seed the scratch database: (the moderator's secret, the step of
    the code that confirmed it, the ids)."""
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    secret = printed(shell(env, SEED), "SECRET=")
    step = int(time.time() // 30)
    shell(
        env,
        "from players import second_factor\nfrom players.models import User\n"
        f"second_factor.confirm(user=User.objects.get(username='week_mod'), code={totp(secret, step)!r})\n",
    )
    ids = json.loads(printed(shell(env, SEED_AFTER_CODE), "IDS="))
    return secret, step, ids


def serve(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} is taken: another server would answer instead (--port)")
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--no-worker"],
        cwd=ROOT,
        env={**env, "PORT": str(port)},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"serve exited:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/admin/login/", timeout=2):
                return process
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"serve did not answer on port {port}:\n{log.read_text()}")


def browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"):
        options.add_argument(flag)
    options.add_argument("--window-size=1600,900")
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)


def log_in(driver: Any, base: str, secret: str, used_step: int) -> None:
    """The admin's password form, then the second factor's code (of a step after
    ``used_step``: a code is accepted once)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(base + "/admin/")
    driver.find_element(By.NAME, "username").send_keys("week_mod")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "second-factor-form"))
    while int(time.time() // 30) <= used_step or 30 - time.time() % 30 < 3:  # a new step, with time left
        time.sleep(0.5)
    driver.find_element(By.NAME, "code").send_keys(totp(secret, int(time.time() // 30)))
    driver.find_element(By.CSS_SELECTOR, "#second-factor-form input[type=submit]").click()
    WebDriverWait(driver, 20).until(lambda d: "/admin/second-factor/" not in d.current_url)


def shoot(driver: Any, base: str, path: str, target: Path, language: str = "en") -> None:
    driver.get(base + "/admin/")
    driver.add_cookie({"name": "language", "value": language, "path": "/"})
    driver.get(base + path)
    driver.execute_script("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1600, min(max(int(height) + 140, 700), 3000))
    driver.execute_script("window.scrollTo(0, 0)")
    if not driver.save_screenshot(str(target)):
        raise SystemExit(f"no screenshot of {path}")
    driver.set_window_size(1600, 900)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8300)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screens")
    parser.add_argument("--only", nargs="*", help="names of PAGES to shoot (default: all)")
    options = parser.parse_args()
    pages = [page for page in PAGES if not options.only or page[0] in options.only]
    options.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cf-moderation-screens-") as folder:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
            "RUN_DIR": f"{folder}/run",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "LADDER_INTERVAL_SECONDS": "0",
        }
        for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_QUEUE", "METRICS_DIR"):
            env.pop(name, None)
        secret, used_step, ids = seed(env)
        process = serve(env, options.port, Path(folder) / "serve.log")
        driver = None
        try:
            driver = browser(Path(folder) / "chromium")
            base = f"http://127.0.0.1:{options.port}"
            log_in(driver, base, secret, used_step)
            for name, path, what in pages:
                target = options.out / f"moderation-{name}.png"
                shoot(driver, base, path.format(**ids), target, "et" if name.startswith("et-") else "en")
                print(f"{target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}: {what}")
        finally:
            if driver is not None:
                driver.quit()
            os.killpg(process.pid, 15)
            process.wait(timeout=30)


if __name__ == "__main__":
    main()

"""Where a web process's CPU goes, from a py-spy profile: the share of samples in
each step of serving a move (docs/performance.md says how the profile is taken).

    py-spy record --subprocesses --gil -r 200 -d 15 --format raw -o web.txt -p <gunicorn master pid>
    python tools/profile_categories.py web.txt

``--gil`` keeps only samples of threads holding the GIL: CPU, not waiting on the
database or the network. A sample counts for the first step whose marker is in its
stack, in the order below (a stack inside the token lookup is "auth", whatever
called it)."""

from __future__ import annotations

import sys
from collections import Counter

STEPS = [
    ("auth (token lookup)", ["authentication.py"]),
    ("throttling", ["throttling.py", "core/limits.py"]),
    ("parse + validate input", ["core/inputs.py", "parsers.py", "_load_data_and_files"]),
    ("idempotency check", ["_replay_idempotent"]),
    # After the commit (inside GameChange._finish's on_commit callback, so before the
    # "_finish" marker of the row writes): the follow-up task (a turn clock or a bot
    # turn) sent to Celery, then the notice published.
    ("follow-up task sent (Celery)", ["send_task (celery/"]),
    ("publish + dispatch", ["dispatch.py", "core/notify.py", "live/hub.py"]),
    ("lock + load game (+ seats)", ["_lock (games/services/commit.py", "_lock_with_seats", "_seats_and_replay"]),
    ("engine", ["games/engine/"]),
    ("move + event rows, game row write", ["move_record", "events_append", "_finish", "_write (games"]),
    ("commit", ["commit (django/db/backends", "__exit__ (django/db/transaction.py"]),
    # What is left inside the move service: on the old path, the seats' own query.
    ("seats read (the rest of move_submit)", ["move_submit (games/services/play.py"]),
    ("response build", ["games/output.py", "game_view (games/selectors.py"]),
    ("render", ["renderers.py", "finalize_response"]),
]


def step(stack: str) -> str:
    for name, markers in STEPS:
        if any(marker in stack for marker in markers):
            return name
    if "dispatch (rest_framework/views.py" in stack:
        return "DRF (other)"
    if "django/core/handlers" in stack:
        return "Django handler + middleware"
    # What the bridge calls: Django's end of the request, uvicorn's write of the answer.
    if "HttpResponseBase.close" in stack:
        return "Django handler + middleware"
    if "RequestResponseCycle.send" in stack:
        return "uvicorn (HTTP)"
    if "wsgi_bridge" in stack or "a2wsgi" in stack or "run_coroutine_threadsafe" in stack:
        return "ASGI/WSGI bridge (core.wsgi_bridge, a2wsgi)"
    if "uvicorn" in stack or "httptools" in stack:
        return "uvicorn (HTTP)"
    if "asyncio" in stack or "uvloop" in stack:
        return "event loop"
    return "other"


def main(path: str) -> None:
    counts: Counter[str] = Counter()
    with open(path) as profile:
        for line in profile:
            stack, _, samples = line.rstrip().rpartition(" ")
            counts[step(stack)] += int(samples)
    total = sum(counts.values())
    for name, share in counts.most_common():
        print(f"{share / total * 100:5.1f}%  {name}")
    print(f"{total} samples")


if __name__ == "__main__":
    main(sys.argv[1])

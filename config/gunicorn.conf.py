"""gunicorn settings for the web processes: ``gunicorn -c config/gunicorn.conf.py``
(the Procfile's ``web``; ``manage.py loadtest --spawn`` serves with it too).

gunicorn supervises ``WEB_CONCURRENCY`` workers (default 4), each an asyncio
loop running ``config.asgi`` (uvicorn's worker, with httptools and uvloop):
requests that wait (streams, long-polls) are coroutines, the rest run on a small
thread pool (``WSGI_THREADS``, see ``config/asgi.py``).

``reuse_port``: each worker listens on a socket of its own and the kernel spreads
new connections over them. With one shared socket (``uvicorn --workers``, or
gunicorn without it) the worker that is already busy keeps winning the race to
accept, and its single core then caps the whole server (measured:
docs/performance.md, "Measurements behind the code").
"""

import os

wsgi_app = "config.asgi:application"
bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
# 4 on 2 cores: each worker is one core at most (the GIL), and with keep-alive
# connections spread by hash a worker may get several times its share; with 3,
# an uneven split left the machine idle (docs/performance.md).
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
worker_class = "uvicorn_worker.UvicornWorker"
reuse_port = True
# Idle keep-alive connections are closed after this many seconds (clients that
# poll more slowly reconnect). gunicorn's default, 2, is shorter than most
# clients' reuse window.
keepalive = int(os.environ.get("WEB_KEEPALIVE", "5"))
# Streams stay open for as long as their clients like: give them this long to
# finish on shutdown, then close them (clients resume from Last-Event-ID).
graceful_timeout = 10
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
# Proxy headers (X-Forwarded-For) are read by the app alone, and only as far as
# NUM_PROXIES says (core.middleware.ClientAddress): gunicorn/uvicorn would
# otherwise believe them from any client on 127.0.0.1.
forwarded_allow_ips = ""


def on_starting(server: object) -> None:
    """Before the workers: the metrics folder exists, without a dead process's files."""
    from config.settings import observability  # the settings alone (no app is loaded in the master)
    from core import metrics

    if observability.METRICS_ENABLED:
        metrics.prepare_dir(observability.METRICS_DIR)


def child_exit(server: object, worker: object) -> None:
    """A worker ended: its open streams no longer count (prometheus-client's multiprocess mode)."""
    from core import metrics

    metrics.process_gone(int(getattr(worker, "pid", 0)))


# Web processes keep a PostgreSQL connection pool per process (config/settings/database.py).
os.environ.setdefault("DB_POOL", "true")

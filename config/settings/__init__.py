"""Django settings (``config.settings``): every value comes from an environment variable.

The defaults give the embedded mode (``make serve`` on a laptop): DEBUG on,
SQLite in ``db.sqlite3`` beside this repository, no Redis.  Production sets at
least ``DEBUG=false``, ``SECRET_KEY``, ``ALLOWED_HOSTS``, ``DATABASE_URL``
(PostgreSQL) and ``REDIS_URL``.

| variable             | default                               |
| -------------------- | ------------------------------------- |
| DEBUG                | true                                  |
| SECRET_KEY           | an insecure key, only while DEBUG     |
| ALLOWED_HOSTS        | localhost,127.0.0.1,[::1] while DEBUG |
| CSRF_TRUSTED_ORIGINS | (none)                                |
| DATABASE_URL         | sqlite:///<repo>/db.sqlite3           |
| DB_POOL              | false; true in web processes          |
| DB_POOL_MIN/MAX      | 2 / 16 connections per process        |
| CONN_MAX_AGE         | 60 (PostgreSQL with DB_POOL=false)    |
| DB_PREPARED_STATEMENTS | true (PostgreSQL)                   |
| REDIS_URL            | (empty: no Redis)                     |
|   or sentinel://h1:26379,h2:26379,.../<master name>/<db> (Redis behind Sentinel: core.redisconn) |
| DB_POOL_RECONNECT_TIMEOUT | 5 (s a failing reconnection is retried) |
| DB_POOL_TIMEOUT      | 10 (s a request waits for a pooled connection, then 503) |
| BEAT_LEASE_SECONDS   | 10 (beat's lease: ops.beat)           |
| RUN_DIR / BROKER_DIR | <repo>/.run, <RUN_DIR>/broker (serve) |
| THROTTLE_ANON        | 120/minute                            |
| THROTTLE_USER        | 1200/minute                           |
| THROTTLE_MOVES       | 600/minute                            |
| THROTTLE_LOGIN       | 30/hour (password attempts, address)  |
| THROTTLE_REGISTER    | 10/hour (new accounts, per address)   |
| THROTTLE_TOKENS      | 60/hour (new tokens, per account)     |
| THROTTLE_REPORTS     | 20/hour (reports, per account)        |
| THROTTLE_CHAT        | 20/minute (chat messages, per account) |
| CHAT_NEW_ACCOUNT_HOURS / CHAT_NEW_ACCOUNT_LINKS | 24 / 0 (accounts younger post at most that many chat links) |
| THROTTLE_HINTS       | 120/hour (hints in practice games, per account) |
| ANALYSIS_QUEUE       | <CELERY_QUEUE>.analysis (game analyses' own queue) |
| ANALYSIS_DEALS / ANALYSIS_MAX_PENDING / ANALYSIS_PER_DAY | 160 / 2 / 20 (per account) |
| ANALYSIS_TIME_LIMIT / ANALYSIS_STALE_SECONDS | 600 / 120 |
| SANCTIONS_INTERVAL_SECONDS | 30 (beat lifts ended sanctions) |
| MAX_TOKENS_PER_ACCOUNT | 50                                  |
| TOKEN_CACHE_SECONDS  | 30 (with Redis; 0: no token cache)    |
| LOGIN_FREE_FAILURES / LOGIN_LOCK_SECONDS / LOGIN_LOCK_MAX_SECONDS | 5 / 60 / 3600 |
| LOGIN_ACCOUNT_FREE_FAILURES / LOGIN_ACCOUNT_LOCK_SECONDS | 30 / 300 |
| ADDRESS_HASH_KEY     | (empty: derived from SECRET_KEY)      |
| ADDRESS_HASH_DAYS / ADDRESS_HASH_PURGE_SECONDS | 30 / 3600 (alt accounts' address hashes) |
| SECOND_FACTOR_ISSUER | Chicken Foot (the name authenticator apps show) |
| PAGE_SIZE            | 50                                    |
| CHALLENGE_EXPIRES_SECONDS / CHALLENGE_EXPIRY_INTERVAL_SECONDS | 600 / 10 (beat) |
| NUM_PROXIES          | 0 (X-Forwarded-For is not believed)   |
| API_MAX_BODY_BYTES   | 65536                                 |
| STATIC_ROOT          | <repo>/staticfiles (collectstatic)    |
| SERVE_STATIC         | true: WhiteNoise serves /static/      |
| LOG_LEVEL            | INFO                                  |
| MATCHMAKING_INTERVAL_SECONDS | 2 (beat runs quick play's matcher) |
| MATCHMAKING_RATING_WINDOW_BASE / _PER_SECOND / _MOST | 3 / 0.1 / 25 |
| DEFAULT_TURN_SECONDS | 60 (the turn clock when none is asked for) |
| MATCHMAKING_DEFAULT_WAIT_SECONDS | 60 (a seek's wait when it does not say) |
| METRICS_ENABLED / METRICS_DIR / METRICS_ALLOW / METRICS_TOKEN | see ``observability`` |
| LOG_FORMAT           | plain (json: one JSON object a line)  |

Read by the web server, not here: WEB_CONCURRENCY (4 processes), PORT (8000),
WEB_KEEPALIVE (5 s) in ``config/gunicorn.conf.py``; WSGI_THREADS (2 per
process) and WEB_GC_THRESHOLDS (20000,10,10) in ``config/asgi.py``.

Grouped by concern, one module each, assembled here in this order (a later
module may use an earlier one's values, importing them by name):
``env`` (the one ``environ.Env()`` and ``BASE_DIR``), ``base`` (Django: secrets,
hosts, apps, middleware, templates, static files - from the apps' folders with
DEBUG on, the hashed, compressed copies ``collectstatic`` writes with DEBUG off),
``database``, ``accounts`` (log-in lock, tokens, passwords), ``redis`` (cache), ``celery`` (broker, beat,
heartbeats), ``health``, ``live`` (long-poll and streams), ``api`` (DRF,
drf-spectacular, proxies, body size), ``matchmaking`` (quick play's matcher), ``security`` (HTTPS, cookies, password
hashers, Content-Security-Policy: its own table of variables), ``observability`` (metrics, traces), ``logging``.
"""

# The order above, not the alphabet's (no module redefines another's names).
# isort: off
from config.settings.base import *  # noqa: F403
from config.settings.database import *  # noqa: F403
from config.settings.accounts import *  # noqa: F403
from config.settings.redis import *  # noqa: F403
from config.settings.celery import *  # noqa: F403
from config.settings.health import *  # noqa: F403
from config.settings.live import *  # noqa: F403
from config.settings.api import *  # noqa: F403
from config.settings.matchmaking import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.observability import *  # noqa: F403
from config.settings.logging import *  # noqa: F403
# isort: on

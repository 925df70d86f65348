"""Django settings: every value comes from an environment variable.

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
| RUN_DIR / BROKER_DIR | <repo>/.run, <RUN_DIR>/broker (serve) |
| THROTTLE_ANON        | 120/minute                            |
| THROTTLE_USER        | 1200/minute                           |
| THROTTLE_MOVES       | 600/minute                            |
| THROTTLE_LOGIN       | 30/hour (password attempts, address)  |
| THROTTLE_REGISTER    | 10/hour (new accounts, per address)   |
| THROTTLE_TOKENS      | 60/hour (new tokens, per account)     |
| MAX_TOKENS_PER_ACCOUNT | 50                                  |
| LOGIN_FREE_FAILURES / LOGIN_LOCK_SECONDS / LOGIN_LOCK_MAX_SECONDS | 5 / 60 / 3600 |
| PAGE_SIZE            | 50                                    |
| NUM_PROXIES          | 0 (X-Forwarded-For is not believed)   |
| API_MAX_BODY_BYTES   | 65536                                 |
| SERVE_STATIC         | true                                  |
| LOG_LEVEL            | INFO                                  |

Read by the web server, not here: WEB_CONCURRENCY (4 processes), PORT (8000),
WEB_KEEPALIVE (5 s) in ``config/gunicorn.conf.py``; WSGI_THREADS (2 per
process) in ``config/asgi.py``.
"""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=True)

_INSECURE_DEV_KEY = "django-insecure-chickenfoot-dev-only-never-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _INSECURE_DEV_KEY

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "players",
    "games",
    "bots",
    "moderation",
    "ops",
    "tools",
]

MIDDLEWARE = [
    "core.middleware.ApiProblems",  # every error under /api/ is a problem document
    "core.middleware.ClientAddress",  # REMOTE_ADDR: X-Forwarded-For only behind NUM_PROXIES proxies
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# --- Database ----------------------------------------------------------------
DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Reusing connections is measured 2.5x faster than a connection per request.
    # Web processes serve waiting requests as coroutines (whose database calls
    # run in passing threads) and the rest on a thread pool: they share a
    # process-wide pool (DB_POOL=true, set by config/gunicorn.conf.py). Workers
    # are long-lived sync processes - and prefork children must not inherit a
    # pool's connections and threads - so they keep persistent connections.
    if env.bool("DB_POOL", default=False):
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # a closed connection goes back to the pool
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": env.int("DB_POOL_MIN", default=2),
            "max_size": env.int("DB_POOL_MAX", default=16),
            "timeout": 10,
        }
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Server-side parameters and prepared statements: PostgreSQL plans a statement
    # once per connection, not on every execution. Measured with the load test:
    # +10% moves/s (195 against 180), p99 130 against 140 ms. Turn off behind a
    # pooler that cannot keep prepared statements (PgBouncer in transaction mode).
    if env.bool("DB_PREPARED_STATEMENTS", default=True):
        DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=2)
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite ignores SELECT ... FOR UPDATE; IMMEDIATE transactions take the write
    # lock at BEGIN instead, so services that "lock the game row" still serialize.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "players.User"

# Password log-ins go through the log-in lock (players.login): after
# LOGIN_FREE_FAILURES wrong passwords in a row an account's password log-in is
# locked for LOGIN_LOCK_SECONDS, doubling per further failure up to
# LOGIN_LOCK_MAX_SECONDS. API tokens are not affected.
AUTHENTICATION_BACKENDS = ["players.login.LockingModelBackend"]
LOGIN_FREE_FAILURES = env.int("LOGIN_FREE_FAILURES", default=5)
LOGIN_LOCK_SECONDS = env.int("LOGIN_LOCK_SECONDS", default=60)
LOGIN_LOCK_MAX_SECONDS = env.int("LOGIN_LOCK_MAX_SECONDS", default=3600)
# API tokens: at most this many active per account, at most THROTTLE_TOKENS new ones.
MAX_TOKENS_PER_ACCOUNT = env.int("MAX_TOKENS_PER_ACCOUNT", default=50)
THROTTLE_TOKENS = env.str("THROTTLE_TOKENS", default="60/hour")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Clients -----------------------------------------------------------------------
# How many proxies (load balancers) stand in front of the web server, each adding
# the address it got the request from to X-Forwarded-For. 0: none, the header is
# never believed (a client could send any address and dodge every rate limit).
NUM_PROXIES = env.int("NUM_PROXIES", default=0)
# The largest request body the API reads (413 payload_too_large above it).
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=64 * 1024)

# --- Redis: cache (throttling) and Celery broker -------------------------------
REDIS_URL = env.str("REDIS_URL", default="")

if REDIS_URL:
    CACHES = {
        "default": {
            # Falls back to memory while Redis is away: no request fails for it.
            "BACKEND": "core.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "cf",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The broker: Redis when REDIS_URL is set. Without it (the embedded default) a
# folder on disk serves as the broker, so `make serve` still runs a real worker
# and beat beside the web server: bots and clocks take the same code path as in
# production. CELERY_BROKER_URL overrides both (the tests use memory://).
# core.brokers has kombu's Redis and folder transports with the failures that
# killed workers fixed (a half-written message file; a Redis restart while
# tasks were unacknowledged).
# What `manage.py serve` keeps on disk: the embedded broker, beat's schedule.
RUN_DIR = Path(env.str("RUN_DIR", default=str(BASE_DIR / ".run")))
BROKER_DIR = Path(env.str("BROKER_DIR", default=str(RUN_DIR / "broker")))
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="") or REDIS_URL or "filesystem://"
CELERY_BROKER_TRANSPORT = {
    "redis": "core.brokers:RedisTransport",
    "rediss": "core.brokers:RedisTransport",
    "filesystem": "core.brokers:FilesystemTransport",
}.get(CELERY_BROKER_URL.partition("://")[0])
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker whose broker went away keeps trying for as long as it takes (Celery's
# default gives up after 100 attempts and exits); every due turn is re-sent when
# it is back (ops.worker).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CONSUMER = "ops.worker:Consumer"  # ... trying every 3 s at most
# Web processes send tasks after a move commits; with the broker down, one quick
# attempt, then the move's answer goes out (the sweep re-sends the work).
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.1, "interval_max": 0.1}
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(BROKER_DIR / "control"),
        "polling_interval": 0.05,
    }
else:
    # Long countdowns beyond the visibility timeout are redelivered (Celery's
    # Redis docs): turn deadlines live in the database, a periodic sweep catches
    # them, and no countdown longer than games.dispatch.MAX_COUNTDOWN_SECONDS is sent.
    # Short socket timeouts: a Redis that stopped answering is noticed in
    # seconds, not minutes, and a move never waits long on a dead broker.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": 3600,
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 10,
    }
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=30)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=20)
# Tasks are idempotent (they re-lock and check the sequence number), so a task
# lost with its worker may safely run again.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# On a lost broker connection, running tasks are cancelled rather than finished
# unacknowledged (Celery 6's default; they roll back and are re-sent).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="celery")
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# The sweep re-sends every lost timer and bot turn (ops.tasks.sweep).
SWEEP_INTERVAL_SECONDS = env.float("SWEEP_INTERVAL_SECONDS", default=2.0)
CELERY_BEAT_SCHEDULE = {
    "sweep-overdue-games": {"task": "ops.sweep", "schedule": SWEEP_INTERVAL_SECONDS, "options": {"expires": 30}},
}

# --- Health (ops.health, GET /api/v1/health/) ----------------------------------
# Workers record a heartbeat this often; one silent for HEALTH_WORKER_STALE_SECONDS
# counts as gone. The sweep is late after HEALTH_SWEEP_STALE_SECONDS (beat not
# running?), a turn after HEALTH_TURN_LATE_SECONDS past its due time.
WORKER_HEARTBEAT_SECONDS = env.float("WORKER_HEARTBEAT_SECONDS", default=5.0)
HEALTH_WORKER_STALE_SECONDS = env.float("HEALTH_WORKER_STALE_SECONDS", default=3 * WORKER_HEARTBEAT_SECONDS)
HEALTH_SWEEP_STALE_SECONDS = env.float("HEALTH_SWEEP_STALE_SECONDS", default=max(10.0, 5 * SWEEP_INTERVAL_SECONDS))
HEALTH_TURN_LATE_SECONDS = env.float("HEALTH_TURN_LATE_SECONDS", default=15.0)

# --- Live updates (games.live) --------------------------------------------------
# Waiting clients re-read the database this often even without a notice: a
# safety net with Redis, the way to see the worker's moves without it.
LIVE_POLL_SECONDS = env.float("LIVE_POLL_SECONDS", default=5.0)
LIVE_POLL_SECONDS_EMBEDDED = env.float("LIVE_POLL_SECONDS_EMBEDDED", default=0.25)
LIVE_KEEPALIVE_SECONDS = env.float("LIVE_KEEPALIVE_SECONDS", default=15.0)
# The longest a long-poll may wait (the API's `wait` maximum), and how long a
# stream stays open before the server closes it (the client reconnects and
# resumes with Last-Event-ID; 0: for as long as the client likes).
LONG_POLL_MAX_SECONDS = env.float("LONG_POLL_MAX_SECONDS", default=30)
LIVE_STREAM_MAX_SECONDS = env.float("LIVE_STREAM_MAX_SECONDS", default=0)
# A stream closes as soon as a notice says its token was revoked or its account
# suspended; without notices (Redis away) it re-checks this often.
LIVE_CREDENTIALS_RECHECK_SECONDS = env.float("LIVE_CREDENTIALS_RECHECK_SECONDS", default=10)

# --- Internationalization ---------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (admin, browsable API, Swagger UI / Redoc from the sidecar) ---
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Serve static files from the app directories even with DEBUG off, so the API
# docs work under any server without a collectstatic step.  Turn off behind a
# proxy or CDN that serves STATIC_ROOT.
SERVE_STATIC = env.bool("SERVE_STATIC", default=True)

# --- Django REST framework ------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Closed by default: a view that anonymous callers may use says so itself.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    "DEFAULT_METADATA_CLASS": "core.metadata.Metadata",  # OPTIONS
    # REMOTE_ADDR is already the client's (core.middleware.ClientAddress): DRF must
    # not read X-Forwarded-For on its own.
    "NUM_PROXIES": 0,
    # Atomic counters, keyed on the address ClientAddress settled (core.throttling).
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttling.AnonRateThrottle",
        "core.throttling.UserRateThrottle",
    ],
    # Scopes of views' own throttles: "moves" (per account), "login" (password
    # attempts per address), "register" (new accounts per address).
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("THROTTLE_ANON", default="120/minute"),
        "user": env.str("THROTTLE_USER", default="1200/minute"),
        "moves": env.str("THROTTLE_MOVES", default="600/minute"),
        "login": env.str("THROTTLE_LOGIN", default="30/hour"),
        "register": env.str("THROTTLE_REGISTER", default="10/hour"),
    },
    "DEFAULT_PAGINATION_CLASS": "core.pagination.LimitOffsetPagination",
    "PAGE_SIZE": env.int("PAGE_SIZE", default=50),
    "EXCEPTION_HANDLER": "core.exception_handler.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Chicken Foot game server",
    "VERSION": "1.0.0",
    "DESCRIPTION": (
        "Play Chicken Foot dominoes over HTTP. The server owns the rules: every "
        "move is validated server-side and hidden tiles never leak.\n\n"
        "## Authentication\n"
        "Register with `POST /api/v1/players/`, then obtain an API token with "
        "`POST /api/v1/tokens/` (username, password and a name for the token). "
        "The token is shown once; send it as `Authorization: Bearer <token>`. "
        "Browser sessions (`/api-auth/login/`) work too.\n\n"
        "## Errors\n"
        "Every error is an RFC 9457 problem document with media type "
        "`application/problem+json`: `type`, `title`, `status`, `detail` and a "
        "stable machine-readable `code` (see the `ErrorCode` schema for every "
        "code). Validation errors add `errors` (field -> messages); rate limiting "
        "adds `retry_after` (seconds) and a `Retry-After` header.\n\n"
        "## Pagination\n"
        "Lists take `limit` and `offset` and answer `{count, next, previous, results}`."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.GameStatus",
        "MoveTypeEnum": "games.serializers.MOVE_TYPES",
        "EventTypeEnum": "games.serializers.EVENT_TYPE_CHOICES",
        "MatchStatusEnum": "games.serializers.MATCH_STATUSES",
        "HandStatusEnum": "games.serializers.HAND_STATUSES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.schema.add_components",
    ],
}

# --- Logging -------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Replaces Django's own console handler for "django", which would print twice.
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # kombu warns "No hostname was supplied" for the hostless embedded brokers.
        "kombu.connection": {"level": "ERROR"},
    },
}

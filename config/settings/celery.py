"""Celery (the app is ``config.celery``): the broker, task behaviour, beat's sweep, worker heartbeats."""

from pathlib import Path

from config.settings.env import BASE_DIR, env
from config.settings.redis import REDIS_URL
from core.redisconn import broker_url

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
# A sentinel:// REDIS_URL (Redis behind Sentinel, core.redisconn) becomes kombu's
# form of it: the sentinels' URLs joined by ";" and the master's name as an option.
CELERY_BROKER_URL, _BROKER_SENTINEL_OPTIONS = broker_url(
    env.str("CELERY_BROKER_URL", default="") or REDIS_URL or "filesystem://"
)
CELERY_BROKER_TRANSPORT = {
    "redis": "core.brokers:RedisTransport",
    "rediss": "core.brokers:RedisTransport",
    "sentinel": "core.brokers:RedisSentinelTransport",
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
    # them, and no countdown longer than live.dispatch.MAX_COUNTDOWN_SECONDS is sent.
    # Short socket timeouts: a Redis that stopped answering is noticed in
    # seconds, not minutes, and a move never waits long on a dead broker.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": 3600,
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 10,
        **_BROKER_SENTINEL_OPTIONS,
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
# Game analyses (analysis.tasks.analyse) go to a queue of their own, consumed by a
# worker of their own (`manage.py serve`'s "analysis" child, the Procfile's
# `analysis`, deploy/systemd/chickenfoot-analysis.service): a long analysis never
# holds up a bot turn or a turn clock on the default queue.
ANALYSIS_QUEUE = env.str("ANALYSIS_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}.analysis")
ANALYSIS_DEALS = env.int("ANALYSIS_DEALS", default=160)  # deals sampled per decision (bots.analysis)
ANALYSIS_MAX_PENDING = env.int("ANALYSIS_MAX_PENDING", default=2)  # per account: queued or running at once
ANALYSIS_PER_DAY = env.int("ANALYSIS_PER_DAY", default=20)  # per account: new analyses in 24 hours
ANALYSIS_TIME_LIMIT = env.int("ANALYSIS_TIME_LIMIT", default=600)  # seconds one analysis may run
# An analysis queued or running with no progress for this long is sent again when asked for.
ANALYSIS_STALE_SECONDS = env.int("ANALYSIS_STALE_SECONDS", default=120)
# The sweep re-sends every lost timer and bot turn (ops.tasks.sweep).
SWEEP_INTERVAL_SECONDS = env.float("SWEEP_INTERVAL_SECONDS", default=2.0)
# The turn clock (ops.clock -> live.clock) plays the due turn deadlines this often:
# a timeout comes at most about this late (no task is sent per move).
CLOCK_INTERVAL_SECONDS = env.float("CLOCK_INTERVAL_SECONDS", default=0.5)
# Timed suspensions and mutes are lifted this often (moderation.tasks.sanctions_expire).
SANCTIONS_INTERVAL_SECONDS = env.float("SANCTIONS_INTERVAL_SECONDS", default=30.0)
# Pending challenges whose time is up become expired (challenges.tasks); answers and
# reads also expire them as they come.
CHALLENGE_EXPIRES_SECONDS = env.int("CHALLENGE_EXPIRES_SECONDS", default=600)  # a challenge's default time
CHALLENGE_EXPIRY_INTERVAL_SECONDS = env.float("CHALLENGE_EXPIRY_INTERVAL_SECONDS", default=10.0)
# Quick play's matcher also runs this often (besides the task each seek sends).
MATCHMAKING_INTERVAL_SECONDS = env.float("MATCHMAKING_INTERVAL_SECONDS", default=2.0)
CELERY_BEAT_SCHEDULE = {
    "turn-clock": {
        "task": "ops.clock",
        "schedule": CLOCK_INTERVAL_SECONDS,
        "options": {"expires": max(2.0, 4 * CLOCK_INTERVAL_SECONDS)},
    },
    "sweep-overdue-games": {"task": "ops.sweep", "schedule": SWEEP_INTERVAL_SECONDS, "options": {"expires": 30}},
    "moderation-sanctions-expire": {
        "task": "moderation.sanctions_expire",
        "schedule": SANCTIONS_INTERVAL_SECONDS,
        "options": {"expires": 60},
    },
    "expire-challenges": {
        "task": "challenges.expire",
        "schedule": CHALLENGE_EXPIRY_INTERVAL_SECONDS,
        "options": {"expires": 60},
    },
    # Address hashes older than ADDRESS_HASH_DAYS go (players.tasks.address_hashes_purge).
    "purge-address-hashes": {
        "task": "players.address_hashes_purge",
        "schedule": env.float("ADDRESS_HASH_PURGE_SECONDS", default=3600.0),
        "options": {"expires": 600},
    },
    # Quick play: match waiting seeks, fill or expire those whose wait ran out (matchmaking.tasks).
    "match-seeks": {"task": "matchmaking.match", "schedule": MATCHMAKING_INTERVAL_SECONDS, "options": {"expires": 10}},
}
# Beat runs on every worker host; only the holder of the database's lease sends
# (ops.beat), and another takes over within BEAT_LEASE_SECONDS of its host dying.
CELERY_BEAT_SCHEDULER = "ops.beat:LeasedScheduler"
BEAT_LEASE_SECONDS = env.float("BEAT_LEASE_SECONDS", default=10.0)
# Workers record a heartbeat this often (ops.worker); ops.health judges them by it.
WORKER_HEARTBEAT_SECONDS = env.float("WORKER_HEARTBEAT_SECONDS", default=5.0)

# The bot ladder (ladder.tasks.play_round): a round of rated matches among the
# server's levels and the outside bots that opted in, every LADDER_INTERVAL_SECONDS
# (0: no ladder). Beat asks every LADDER_CHECK_SECONDS (at most the interval) whether
# the current slot's round is due; the round row's unique slot makes one round per
# slot however often, and by however many beats, the task runs.
LADDER_INTERVAL_SECONDS = env.float("LADDER_INTERVAL_SECONDS", default=600.0)
LADDER_CHECK_SECONDS = env.float("LADDER_CHECK_SECONDS", default=15.0)
# Seconds a turn of an outside bot may take (the turn clock of ladder games with one).
LADDER_TURN_SECONDS = env.int("LADDER_TURN_SECONDS", default=30)
# The ladder's ruleset (players aside, set by each round): JSON, e.g. {"set_max": 6}.
LADDER_RULESET = env.json("LADDER_RULESET", default={})
# The most tables one round opens.
LADDER_MAX_TABLES = env.int("LADDER_MAX_TABLES", default=8)
if LADDER_INTERVAL_SECONDS > 0:
    CELERY_BEAT_SCHEDULE["ladder-round"] = {
        "task": "ladder.play_round",
        "schedule": min(LADDER_INTERVAL_SECONDS, LADDER_CHECK_SECONDS),
        "options": {"expires": 60},
    }

"""Logging: to the console (stderr), one handler for every logger; ``LOG_FORMAT``
``plain`` (the default: a readable line) or ``json`` (one JSON object a line, for a
log collector: time, level, logger, message, request_id, account_id, game_id, task;
``core.request_context``)."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.env import env

LOG_FORMAT = env.str("LOG_FORMAT", default="plain").lower()
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT={LOG_FORMAT!r}: give plain or json.")

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
#: The project's own loggers, at LOG_LEVEL by name: a Celery worker's ``-l`` sets the root
#: logger's level (serve's worker runs ``-l warning``, for Celery's own chatter) and must
#: not silence the project's lines, which carry the request ids across the hop.
PROJECT_LOGGERS: tuple[str, ...] = ("core", "games", "live", "players", "bots", "moderation", "ops", "challenges")
PROJECT_LOGGERS += ("matchmaking", "ratings", "ladder", "chat", "config")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "context": {"()": "core.request_context.ContextFilter"},
        # A 403 is one line, a refusal, never a traceback (core.log_filters).
        "refusal": {"()": "core.log_filters.RefusalFilter"},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "core.request_context.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["context"]},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        **{name: {"level": LOG_LEVEL} for name in PROJECT_LOGGERS},
        # Replaces Django's own console handler for "django", which would print twice.
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "django.request": {"filters": ["refusal"]},
        # kombu warns "No hostname was supplied" for the hostless embedded brokers.
        "kombu.connection": {"level": "ERROR"},
    },
}

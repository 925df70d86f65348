"""Logging: plain lines to the console (stderr), one handler for every logger."""

from config.settings.env import env

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO").upper()},
    "loggers": {
        # Replaces Django's own console handler for "django", which would print twice.
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # kombu warns "No hostname was supplied" for the hostless embedded brokers.
        "kombu.connection": {"level": "ERROR"},
    },
}

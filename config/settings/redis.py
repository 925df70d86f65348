"""Redis, when ``REDIS_URL`` is set: the cache (throttle counters) and, in ``celery``, the broker."""

from config.settings.env import env

REDIS_URL = env.str("REDIS_URL", default="")
# Another prefix keeps two deployments (or test runs) on one Redis apart: their cache
# keys, and the channels of their live notices (core.notify), "<prefix>:game:7" ...
CACHE_KEY_PREFIX = env.str("CACHE_KEY_PREFIX", default="cf")

if REDIS_URL:
    CACHES = {
        "default": {
            # Falls back to memory while Redis is away: no request fails for it.
            "BACKEND": "core.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": CACHE_KEY_PREFIX,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

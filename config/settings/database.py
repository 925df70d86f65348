"""The database: PostgreSQL in production (pooled or persistent connections), SQLite embedded."""

from config.settings.env import BASE_DIR, env

DATABASES = {"default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Reusing connections is much faster than a connection per request (docs/performance.md).
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
            # How long a request waits for a connection before it is answered 503
            # database_unavailable. While the database fails over, a request waiting
            # here does not start a new connection attempt when the pool's attempt
            # gives up: the cluster sets it shorter (deploy/app/cluster.env).
            "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
            # A connection that cannot be made is retried in the background with a
            # growing pause (1, 2, 4 ... s) for this long, then given up; the next
            # request that finds no connection starts a new attempt at once. psycopg's
            # default, 300 s, left pauses of 16 s and more after a failover or a cut
            # network healed (writes came back 14 s after Patroni's promotion).
            "reconnect_timeout": env.float("DB_POOL_RECONNECT_TIMEOUT", default=5.0),
        }
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Server-side parameters and prepared statements: PostgreSQL plans a statement
    # once per connection, not on every execution (measured: docs/performance.md,
    # "Measurements behind the code"). Turn off behind a
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

"""Accounts: the user model, password log-ins and their lock, API tokens."""

from config.settings.env import env

AUTH_USER_MODEL = "players.User"

# Password log-ins go through the log-in lock (players.login, docs/security-limits.md):
# after LOGIN_FREE_FAILURES wrong passwords in a row from one address, password log-in
# to the account from that address is locked for LOGIN_LOCK_SECONDS, doubling per
# further failure up to LOGIN_LOCK_MAX_SECONDS. API tokens are not affected.
AUTHENTICATION_BACKENDS = ["players.login.LockingModelBackend"]
LOGIN_FREE_FAILURES = env.int("LOGIN_FREE_FAILURES", default=5)
LOGIN_LOCK_SECONDS = env.int("LOGIN_LOCK_SECONDS", default=60)
# The account-wide ceiling, for guesses spread over many addresses: after
# LOGIN_ACCOUNT_FREE_FAILURES wrong passwords from addresses the account never logged
# in from, those addresses are locked out for LOGIN_ACCOUNT_LOCK_SECONDS, doubling up to
# LOGIN_LOCK_MAX_SECONDS; addresses it logged in from before are not.
LOGIN_ACCOUNT_FREE_FAILURES = env.int("LOGIN_ACCOUNT_FREE_FAILURES", default=30)
LOGIN_ACCOUNT_LOCK_SECONDS = env.int("LOGIN_ACCOUNT_LOCK_SECONDS", default=300)
LOGIN_LOCK_MAX_SECONDS = env.int("LOGIN_LOCK_MAX_SECONDS", default=3600)
# API tokens: at most this many active per account, at most THROTTLE_TOKENS new ones.
MAX_TOKENS_PER_ACCOUNT = env.int("MAX_TOKENS_PER_ACCOUNT", default=50)
THROTTLE_TOKENS = env.str("THROTTLE_TOKENS", default="60/hour")
# With Redis, each web process remembers the tokens that authenticated for at most
# this many seconds (revocations are pushed through Redis; players.token_cache).
# 0: every request reads its token from the database.
TOKEN_CACHE_SECONDS = env.float("TOKEN_CACHE_SECONDS", default=30.0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The second factor (players.second_factor, docs/security.md): the issuer name an
# authenticator app shows beside the account.
SECOND_FACTOR_ISSUER = env.str("SECOND_FACTOR_ISSUER", default="Chicken Foot")

# Alt accounts (players.address_hash, docs/security.md): sign-ups and log-ins keep a
# keyed hash (HMAC-SHA256) of the client's address, never the address, for
# ADDRESS_HASH_DAYS; beat purges older ones every ADDRESS_HASH_PURGE_SECONDS. The key
# is ADDRESS_HASH_KEY, or derived from SECRET_KEY when that is empty (changing
# either makes the kept hashes match no new log-in: they age out).
ADDRESS_HASH_KEY = env.str("ADDRESS_HASH_KEY", default="")
ADDRESS_HASH_DAYS = env.int("ADDRESS_HASH_DAYS", default=30)
ADDRESS_HASH_PURGE_SECONDS = env.float("ADDRESS_HASH_PURGE_SECONDS", default=3600.0)

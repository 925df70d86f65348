"""The HTTP API: Django REST framework, the OpenAPI document (drf-spectacular), and what
the API believes of a request (proxies in front, the largest body it reads)."""

from config.settings.env import env

# --- Clients -----------------------------------------------------------------------
# How many proxies (load balancers) stand in front of the web server, each adding
# the address it got the request from to X-Forwarded-For. 0: none, the header is
# never believed (a client could send any address and dodge every rate limit).
NUM_PROXIES = env.int("NUM_PROXIES", default=0)
# The largest request body the API reads (413 payload_too_large above it).
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=64 * 1024)

# --- Django REST framework ------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.authentication.ApiTokenAuthentication",
        "players.authentication.DeviceSessionAuthentication",  # a browser device; CSRF refusal: csrf_failed
    ],
    # Closed by default: a view that anonymous callers may use says so itself.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "core.renderers.JSONRenderer",  # DRF's, encoding with orjson
        # No browsable API: every operation answers the JSON its contract documents, or
        # a 406 problem to a client that accepts no JSON (Accept: text/html alone).
        # People read the API at /api/docs/.
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
        "reports": env.str("THROTTLE_REPORTS", default="20/hour"),
        "chat": env.str("THROTTLE_CHAT", default="20/minute"),
        "hints": env.str("THROTTLE_HINTS", default="120/hour"),
    },
    "DEFAULT_PAGINATION_CLASS": "core.pagination.LimitOffsetPagination",
    "PAGE_SIZE": env.int("PAGE_SIZE", default=50),
    "EXCEPTION_HANDLER": "core.exception_handler.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    # No ?format= override: a client chooses a media type with Accept, and the contract
    # lists no parameter that the server would ignore.
    "URL_FORMAT_OVERRIDE": None,
}

#: The chat's new-account link limit (chat.filters): an account younger than
#: CHAT_NEW_ACCOUNT_HOURS may post at most CHAT_NEW_ACCOUNT_LINKS links in all (0: none).
CHAT_NEW_ACCOUNT_HOURS = env.int("CHAT_NEW_ACCOUNT_HOURS", default=24)
CHAT_NEW_ACCOUNT_LINKS = env.int("CHAT_NEW_ACCOUNT_LINKS", default=0)

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
        "Browsers sign in with `POST /api/v1/session/` instead: an HttpOnly session cookie, "
        "whose unsafe requests send the session's CSRF token as `X-CSRFToken` (`csrf_failed` "
        "without it).\n\n"
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
    "OAS_VERSION": "3.1.0",
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,  # the enums are named and described once
    # Every choice set is one named enum (tests/contract/test_schema.py checks that
    # none is left to a generated name).
    "ENUM_NAME_OVERRIDES": {
        "GameStatus": "games.models.GameStatus",
        "ChatChannel": "chat.models.ChatChannel",
        "MoveType": "games.serializers.MOVE_TYPES",
        "MoveSource": "games.models.MoveSource",
        "EventType": "games.serializers.EVENT_TYPE_CHOICES",
        "MatchStatus": "games.serializers.MATCH_STATUSES",
        "HandStatus": "games.serializers.HAND_STATUSES",
        "RoundEndReason": "games.serializers.ROUND_END_REASONS",
        "RoundPhase": "games.serializers.ROUND_PHASES",
        "TieBreak": "games.engine.TIE_BREAKS",
        "SetMax": "games.serializers.SET_SIZE_CHOICES",
        "SpinnerArms": "games.serializers.SPINNER_ARM_CHOICES",
        "StrategyName": "games.serializers.strategy_choices",
        "HealthStatus": "ops.serializers.HEALTH_STATUSES",
        "ReportReason": "moderation.serializers.REPORT_REASONS",
        "SanctionKind": "moderation.serializers.SANCTION_KINDS",  # the account page (webtalk)
        "AppealStatus": "moderation.serializers.APPEAL_STATUSES",  # appeals (/me/, /me/sanctions/)
        "SanctionEnding": "players.standing.SANCTION_ENDINGS",  # how a sanction ended (/me/, /me/sanctions/)
        "ReportStatus": "moderation.serializers.REPORT_STATUSES",
        "ReportTarget": "moderation.serializers.REPORT_TARGETS",
        "ReportOutcome": "moderation.serializers.REPORT_OUTCOMES",
        "ChallengeStatus": "challenges.models.ChallengeStatus",
        "InviteStatus": "challenges.models.InviteStatus",
        "ChallengeRole": "challenges.serializers.CHALLENGE_ROLES",
        "RatingPool": "ratings.models.RatingPool",
        "SeekStatus": "matchmaking.models.SeekStatus",
        "SeekEndReason": "matchmaking.models.SeekEndReason",
        "SeekOnTimeout": "matchmaking.models.OnTimeout",
        "SeekPreset": "matchmaking.presets.PRESET_CHOICES",
        "LadderTableSize": "ladder.serializers.TABLE_SIZE_CHOICES",
        "AnalysisStatus": "analysis.models.AnalysisStatus",
        "AnalysisVerdict": "bots.analysis.CLASSES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema.rename_components",
        "ratings.schema.add_components",
        "core.schema.name_parameter_enums",
        "live.schema.add_components",
        "core.schema.stream_items",
    ],
}

# --- The turn clock's default (docs/api.md) -----------------------------------------
# A table, challenge or seek created over the API without `turn_time_limit` gets
# this many seconds per turn: a seat whose player left is moved by the server when
# its clock runs out and handed to the table's bot after three timeouts in a row
# (games.services.play), so nobody waits for ever. `turn_time_limit: null` asks for
# no clock (friends' games). 60 s: one Chicken Foot turn (a play, a draw or a pass)
# takes seconds, and an abandoned seat then costs the others three minutes at most.
DEFAULT_TURN_SECONDS = env.int("DEFAULT_TURN_SECONDS", default=60)

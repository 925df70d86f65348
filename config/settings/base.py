"""Django itself: debug and secrets, hosts, apps, middleware, templates, i18n and static files."""

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from config.settings.env import BASE_DIR, env

DEBUG = env.bool("DEBUG", default=True)

_INSECURE_DEV_KEY = "django-insecure-chickenfoot-dev-only-never-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _INSECURE_DEV_KEY

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",  # runserver too leaves static files to WhiteNoise
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "players",
    "games",
    "live",  # live play, above the game record (games)
    "tools",
    "moderation",
    "ops",
    "challenges",
    "ratings",
    "matchmaking",
    "ladder",
    "chat",
    "analysis",
    "web",  # the browser client (last: its catch-all pages come after every other URL)
]

MIDDLEWARE = [
    "core.request_context.RequestContext",  # request id (X-Request-ID), HTTP metrics: first, to see every answer
    "django.middleware.locale.LocaleMiddleware",  # first: every answer, problems included, in the reader's language
    "core.middleware.ApiProblems",  # every error under /api/ is a problem document
    "core.middleware.ClientAddress",  # REMOTE_ADDR: X-Forwarded-For only behind NUM_PROXIES proxies
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files (removed below with SERVE_STATIC=false)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "players.admin_gate.SecondFactorGate",  # no admin page before the second factor's code
    "core.middleware.PageMessages",  # Django's messages, for pages (none under /api/)
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

# --- Internationalization ---------------------------------------------------------
# Every text a person reads is translated (docs/i18n.md): the language comes from
# the language cookie (the page's switch sets it), else Accept-Language, else
# English. LocaleMiddleware (first in MIDDLEWARE) activates it and answers with
# Content-Language. The catalogues are locale/<lang>/LC_MESSAGES/django.po (the
# server) and djangojs.po (the web client), with their compiled .mo committed.
# Adding a language: a line here, then `make messages` (docs/i18n.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("et", "Eesti")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (the web client, admin, browsable API, Swagger UI / Redoc) ------
# WhiteNoise serves them from the web processes themselves, under any server (no
# CDN, no proxy needed). With DEBUG off (production) they come from STATIC_ROOT,
# filled by ``manage.py collectstatic`` (the Procfile's release step): every file
# under a content-hashed name (``app.3f2a1c9b04e7.js``, JS module imports
# rewritten to match), gzip-compressed, cached for a year. With DEBUG on (``make
# serve``, the tests) straight from the apps' folders under their own names, so a
# fresh clone needs no collectstatic and an edited file shows on reload.
STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
# Set SERVE_STATIC=false behind a proxy or CDN that serves STATIC_ROOT itself.
SERVE_STATIC = env.bool("SERVE_STATIC", default=True)
if not SERVE_STATIC:
    MIDDLEWARE.remove("whitenoise.middleware.WhiteNoiseMiddleware")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG else "web.storage.HashedStaticFiles"
    },
}
WHITENOISE_USE_FINDERS = WHITENOISE_AUTOREFRESH = DEBUG

"""Django itself: debug and secrets, hosts, apps, middleware, templates, i18n and static files."""

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
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "players",
    "games",
    "bots",
    "tools",
    "moderation",
    "ops",
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

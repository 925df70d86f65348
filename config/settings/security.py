"""Security: HTTPS, cookies, what a proxy may say about the scheme, password hashing,
and the Content-Security-Policy of every HTML page (docs/security.md).

Production behind TLS sets ``HTTPS=true`` (and, once sure, the HSTS options):

| variable                       | default                                   |
| ------------------------------ | ----------------------------------------- |
| HTTPS                          | false: the site is served over HTTPS      |
| SECURE_SSL_REDIRECT            | HTTPS (plain http:// answered with a 301) |
| SECURE_REDIRECT_EXEMPT         | ^api/v1/health/$ (the proxy's checks)     |
| SECURE_HSTS_SECONDS            | 31536000 with HTTPS, else 0 (no header)   |
| SECURE_HSTS_INCLUDE_SUBDOMAINS | false                                     |
| SECURE_HSTS_PRELOAD            | false                                     |
| COOKIES_SECURE                 | HTTPS (session and CSRF cookies)          |
| COOKIES_SAMESITE               | Lax (Strict also works for this site)     |
| SESSION_COOKIE_AGE             | 1209600 (two weeks: "remember me")        |
| CSP_REPORT_RATE                | 60/minute (violation reports per address) |

The scheme a proxy reports (``X-Forwarded-Proto``) is believed only from the
``NUM_PROXIES`` proxies that ``core.middleware.ClientAddress`` trusts for the client's
address; with ``NUM_PROXIES=0`` it is removed before any view sees it.
"""

from csp.constants import NONE, SELF

from config.settings.base import MIDDLEWARE
from config.settings.env import env

# --- HTTPS -------------------------------------------------------------------------
HTTPS = env.bool("HTTPS", default=False)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=HTTPS)
# Load balancers' health checks come over plain HTTP from inside the network.
SECURE_REDIRECT_EXEMPT = env.list("SECURE_REDIRECT_EXEMPT", default=[r"^api/v1/health/$"])
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 3600 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
# Believed only as core.middleware.ClientAddress settles it: removed with
# NUM_PROXIES=0, else the entry of the outermost trusted proxy.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# --- Cookies -----------------------------------------------------------------------
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env.bool("COOKIES_SECURE", default=HTTPS)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = env.str("COOKIES_SAMESITE", default="Lax")
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=14 * 24 * 3600)
# Scripts never read the CSRF cookie: the web client gets the token from the API.
CSRF_COOKIE_HTTPONLY = True

# --- Passwords: Argon2 first; older hashes still verify and are re-hashed at log-in --
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

# --- Content-Security-Policy (django-csp) on every answer ---------------------------
# Nothing inline (no <script>/<style> elements, style="" or on*= attributes), nothing
# from another host, no nonce; Redoc's page alone adds the hashes of the <style>
# elements its bundle writes (core.csp.REDOC_STYLE_HASHES). Violations are posted to
# /csp-report/ (core.csp), logged and rate-limited. core.middleware.ContentSecurityPolicy
# is django-csp's middleware with the header's text built once, not per answer.
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1, "core.middleware.ContentSecurityPolicy"
)
CSP_REPORT_URI = "/csp-report/"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "worker-src": [SELF],
        "manifest-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-src": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
        "report-uri": [CSP_REPORT_URI],
    },
}
CSP_REPORT_RATE = env.str("CSP_REPORT_RATE", default="60/minute")

"""Where browsers report Content-Security-Policy violations (``/csp-report/``, named in
every page's policy by ``report-uri``; see docs/security.md), and the one page whose
policy is wider than the rest (Redoc's, ``redoc_page``, with its bundle made to load
nothing from another host, ``redoc_bundle``).

Not part of the API: browsers post here by themselves, in either format -
``application/csp-report`` (``{"csp-report": {...}}``, ``report-uri``) or
``application/reports+json`` (a list of ``{"type": "csp-violation", "body": {...}}``,
the Reporting API). Each violation is logged (logger ``security.csp``, WARNING)
with the page, the directive and what was blocked; anything else is ignored. The
answer is always 204 - a report that is too large, not JSON or over the limit
(``CSP_REPORT_RATE`` per address) is dropped with nothing to tell the browser - so
a hostile client learns nothing and can neither fill the log nor cause a 500.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from csp.decorators import csp_update
from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from drf_spectacular.views import SpectacularRedocView

from core.limits import Limit

log = logging.getLogger("security.csp")

# The <style> elements Redoc (drf-spectacular-sidecar's bundle) writes at run time,
# allowed on its page alone by their hashes, not by 'unsafe-inline' (the bundle gives
# them no nonce before it runs): styled-components' empty elements, whose rules it
# adds through the CSS object model (not subject to the policy), and one fixed sheet
# of the bundle. A new bundle with other styles shows in
# tests/web/test_csp_browser.py as violations on /api/redoc/.
REDOC_STYLE_HASHES = [
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",  # "" (empty)
    "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",
]

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
# The one thing Redoc's bundle loads from another host: the logo beside "API docs by
# Redocly" at the foot of its menu. The bundle is served with it replaced by an empty
# image (redoc_bundle), so the page needs no foreign host in img-src.
REDOC_FOREIGN_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_IMAGE = b"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"


class RedocPage(SpectacularRedocView):
    """drf-spectacular's Redoc page, its bundle from ``redoc_bundle``."""

    @staticmethod
    def _redoc_standalone() -> str:
        return reverse("redoc-bundle")


# Redoc's search index runs in a worker it makes from a blob: URL.
redoc_page = csp_update({"style-src": REDOC_STYLE_HASHES, "worker-src": ["blob:"]})(
    RedocPage.as_view(url_name="schema", template_name="core/redoc.html")
)


@functools.cache
def _redoc_bundle() -> tuple[bytes, str]:
    path = finders.find(REDOC_BUNDLE)
    if not path:
        raise Http404("Redoc's bundle is not installed (drf-spectacular-sidecar).")
    content = Path(str(path)).read_bytes().replace(REDOC_FOREIGN_LOGO, EMPTY_IMAGE)
    return content, hashlib.sha256(content).hexdigest()[:16]


@require_GET
def redoc_bundle(request: HttpRequest) -> HttpResponse:
    content, etag = _redoc_bundle()
    response = HttpResponse(content, content_type="text/javascript; charset=utf-8")
    response["ETag"] = f'"{etag}"'
    response["Cache-Control"] = "public, max-age=86400"
    return response


MAX_REPORT_BYTES = 16 * 1024
MAX_VIOLATIONS_PER_REPORT = 10
# The fields of a violation worth a log line (both formats' spellings), each cut short.
FIELDS = {
    "document-uri": "page",
    "documentURL": "page",
    "effective-directive": "directive",
    "effectiveDirective": "directive",
    "violated-directive": "directive",
    "blocked-uri": "blocked",
    "blockedURL": "blocked",
    "source-file": "source",
    "sourceFile": "source",
    "line-number": "line",
    "lineNumber": "line",
    "disposition": "disposition",
}
MAX_FIELD_CHARS = 300


@csrf_exempt
@require_POST
def csp_report(request: HttpRequest) -> HttpResponse:
    # 204 whatever happens: the browser does nothing with the answer.
    answer = HttpResponse(status=204)
    try:
        size = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return answer
    if size > MAX_REPORT_BYTES:
        return answer
    if Limit("csp-report", settings.CSP_REPORT_RATE).hit(request.META.get("REMOTE_ADDR") or "unknown"):
        return answer
    try:
        document = json.loads(request.read(MAX_REPORT_BYTES + 1)[:MAX_REPORT_BYTES])
    except (ValueError, OSError):
        return answer
    for violation in violations(document)[:MAX_VIOLATIONS_PER_REPORT]:
        log.warning("CSP violation %s", json.dumps(violation, sort_keys=True), extra={"csp_violation": violation})
    return answer


def violations(document: Any) -> list[dict[str, str]]:
    """The violations a report carries, each reduced to its loggable fields."""
    bodies: list[Any] = []
    if isinstance(document, dict) and isinstance(document.get("csp-report"), dict):
        bodies.append(document["csp-report"])
    elif isinstance(document, list):
        bodies.extend(
            item.get("body") for item in document if isinstance(item, dict) and item.get("type") == "csp-violation"
        )
    found = []
    for body in bodies:
        if not isinstance(body, dict):
            continue
        fields = {name: str(body[key])[:MAX_FIELD_CHARS] for key, name in FIELDS.items() if key in body}
        if fields:
            found.append(fields)
    return found

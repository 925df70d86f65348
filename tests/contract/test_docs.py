"""The API docs are served, and from this server only (no CDN)."""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_docs_are_served_without_external_assets(client, url):
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    # Swagger UI's set-up is a script of its own (?script: nothing inline, docs/security.md)
    scripts = re.findall(r'src="(/api/docs/\?script=?)"', html)
    assert "/api/schema/" in html + "".join(client.get(script).content.decode() for script in scripts)
    for needle in ("cdn.jsdelivr", "unpkg"):
        assert needle not in html
    external = re.findall(r"""(?:src|href)\s*=\s*["']?(https?:)?//""", html)
    assert not external, f"{url} loads assets from another host"


def test_docs_assets_are_served(client):
    html = client.get("/api/docs/").content.decode()
    (bundle,) = re.findall(r'src="([^"]*swagger-ui-bundle\.js)"', html)
    response = client.get(bundle)
    assert response.status_code == 200


def test_schema_endpoint(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"Chicken Foot game server" in response.content

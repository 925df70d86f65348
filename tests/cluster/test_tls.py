"""The cluster's load balancer terminates TLS (``make cluster-test``): HTTPS with a
certificate the cluster's own authority signed, plain HTTP only redirected, and the
app sure of the scheme only because HAProxy said so."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.cluster]

HEALTH = "/api/v1/health/"


def test_https_verified_against_the_cluster_authority(cluster: Any) -> None:
    with httpx.Client(verify=str(cluster.ca_file()), timeout=10) as client:
        response = client.get(cluster.lb_url() + HEALTH)
        assert response.status_code == 200, response.text
        # The app knows the request came over HTTPS (HAProxy's X-Forwarded-Proto): it says
        # so with HSTS, which Django sends on secure requests only.
        assert response.headers["strict-transport-security"].startswith("max-age=")
    # A client that trusts only the public authorities refuses the certificate: it is
    # the cluster's own, made at `make cluster`, not a public one or a committed one.
    with httpx.Client(timeout=10) as client, pytest.raises(httpx.ConnectError):
        client.get(cluster.lb_url() + HEALTH)


def test_plain_http_is_only_redirected(cluster: Any) -> None:
    plain = f"http://{cluster.address('lb')}"
    with httpx.Client(timeout=10) as client:
        for method, path in (("GET", "/api/v1/games/"), ("POST", "/api/v1/tokens/")):
            response = client.request(method, plain + path, json={} if method == "POST" else None)
            assert response.status_code == 308, (method, path, response.status_code, response.text[:200])
            assert response.headers["location"] == cluster.lb_url() + path
            assert not response.content  # HAProxy answered: nothing reached the app


def test_a_client_cannot_claim_another_scheme_or_address(cluster: Any) -> None:
    """HAProxy sets X-Forwarded-Proto and X-Forwarded-For itself; the app believes only
    its one proxy (NUM_PROXIES=1): what a client sends in them changes nothing."""
    with httpx.Client(verify=str(cluster.ca_file()), timeout=10) as client:
        response = client.get(
            cluster.lb_url() + "/api/v1/games/?limit=1",
            headers={"X-Forwarded-Proto": "http", "X-Forwarded-For": "127.0.0.1"},
        )
        # Not redirected to https:// (HTTPS=true redirects what came over plain HTTP): the app saw https.
        assert response.status_code == 200, (response.status_code, response.headers.get("location"))
        assert "strict-transport-security" in response.headers
        # /metrics answers the loopback only (METRICS_ALLOW): a client claiming to be
        # 127.0.0.1 is still the machine's address on the bridge to the app.
        metrics = client.get(cluster.lb_url() + "/metrics", headers={"X-Forwarded-For": "127.0.0.1"})
        assert metrics.status_code == 403, metrics.status_code

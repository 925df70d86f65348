"""The contract fuzzer: schemathesis over every operation of ``openapi.yaml``
against a live server - the Procfile's web server with a worker and beat, on the
real PostgreSQL test database and Redis - with authentication, schema-valid and
schema-breaking requests (positive and negative), and the stateful phase that
chains operations (create a game, then act on it). Every response must be no
server error and must match the contract: status, content type, headers, body.

``make fuzz`` runs it (CI too); ``FUZZ_MAX_EXAMPLES`` (default 80 per operation
and phase) is the budget and ``FUZZ_SEED`` fixes the generation (default 1:
the same cases every run; ``random`` for a new exploration).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.web import WebServer, request
from tests.integration.workers import ROOT, wait_for

pytestmark = [
    pytest.mark.fuzz,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]

HERE = Path(__file__).resolve().parent
USERNAME, PASSWORD = "fuzzer", "a long passphrase for fuzzing"
# No 5xx; and every response as the contract says: status, media type, headers, body.
CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,"
    "response_schema_conformance,positive_data_acceptance,negative_data_rejection"
)
# The fuzz server: limits out of the way (they are tested elsewhere), waits short.
SERVER_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "fuzz",
    "THROTTLE_ANON": "1000000/minute",
    "THROTTLE_USER": "1000000/minute",
    "THROTTLE_MOVES": "1000000/minute",
    "THROTTLE_LOGIN": "1000000/hour",
    "THROTTLE_REGISTER": "1000000/hour",
    "THROTTLE_TOKENS": "1000000/hour",
    "MAX_TOKENS_PER_ACCOUNT": "1000000",
    "LONG_POLL_MAX_SECONDS": "0.5",
    "LIVE_STREAM_MAX_SECONDS": "0.5",
    "LOGIN_FREE_FAILURES": "1000000",
    "LOGIN_ACCOUNT_FREE_FAILURES": "1000000",
}


def test_every_operation_keeps_to_the_contract(start_worker, queue_name, broker_url, redis_url, tmp_path):
    start_worker(beat=True)
    web = WebServer(
        tmp_path / "web.log",
        redis_url=redis_url,
        broker_url=broker_url,
        workers=2,
        env={**SERVER_ENV, "CELERY_QUEUE": queue_name},
    )
    try:
        status, body = request(web.port, "POST", "/api/v1/players/", {"username": USERNAME, "password": PASSWORD})
        assert status == 201, body
        base = f"http://127.0.0.1:{web.port}"
        wait_for(
            lambda: request(web.port, "GET", "/api/v1/health/")[0] == 200,
            30,
            interval=0.5,
            what="the stack to be healthy",
            explain=lambda: str(request(web.port, "GET", "/api/v1/health/")[1]),
        )
        seed = os.environ.get("FUZZ_SEED", "1")
        command = [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "--config-file",
            str(HERE / "schemathesis.toml"),
            "run",
            str(ROOT / "openapi.yaml"),
            "--url",
            base,
            "--max-examples",
            os.environ.get("FUZZ_MAX_EXAMPLES", "80"),
            "--mode",
            "all",
            "--workers",
            "2",
            "--request-timeout",
            "10",
            "--checks",
            CHECKS,
            # The streams: see schemathesis.toml (their frames are checked by the
            # generated-client test and make contract-ts).
            "--exclude-path-regex",
            "stream/$",
            *([] if seed == "random" else ["--seed", seed]),
        ]
        result = subprocess.run(
            command,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1800,
            env={
                **os.environ,
                "FUZZ_BASE_URL": base,
                "FUZZ_USERNAME": USERNAME,
                "FUZZ_PASSWORD": PASSWORD,
                "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks",
                "PYTHONPATH": str(ROOT),
                "NO_COLOR": "1",
            },
        )
    finally:
        web.stop()
    report = result.stdout + result.stderr
    (tmp_path / "schemathesis.log").write_text(report)
    cases = re.search(r"(\d+) generated", report)
    print(f"fuzz: {cases.group(0) if cases else 'no count'}; exit {result.returncode}")
    assert result.returncode == 0, report[-20000:] + "\n--- web server log:\n" + web.log_path.read_text()[-5000:]
    assert cases and int(cases.group(1)) > 0

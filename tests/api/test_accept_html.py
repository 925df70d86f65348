"""``Accept: text/html`` on every operation of the contract: the JSON the operation
documents, or a 406 problem - never a 500, never an HTML page (the API has no
browsable renderer; people read it at /api/docs/). Sent anonymously and with a
token, to every path of openapi.yaml with its parameters filled from a real game."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from tests.api.problems import assert_problem
from tests.integration.workers import ROOT

pytestmark = pytest.mark.django_db

CONTRACT = yaml.safe_load((ROOT / "openapi.yaml").read_text())
OPERATIONS = sorted(
    (path, method)
    for path, item in CONTRACT["paths"].items()
    for method in item
    if method in ("get", "post", "put", "patch", "delete")
)


def _url(path: str, values: dict[str, Any]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), 1)), path)


def test_the_contract_has_operations():
    assert len(OPERATIONS) > 40


@pytest.mark.parametrize("authenticated", [False, True], ids=["anonymous", "token"])
def test_accept_html_gets_json_or_a_406_problem_from_every_operation(make_table, api_client, authenticated):
    table = make_table()
    values = {"game_id": table.game_id, "username": table.users[0].username, "number": 1}
    client = table.clients[0] if authenticated else api_client
    answers = {}
    for path, method in OPERATIONS:
        response = getattr(client, method)(_url(path, values), HTTP_ACCEPT="text/html")
        answers[f"{method.upper()} {path}"] = (response.status_code, response.get("Content-Type", ""))
        assert response.status_code < 500, (method, path, response.status_code, response.content[:500])
        if response.status_code == 406:
            assert_problem(response, 406, "not_acceptable")
        else:
            assert response.status_code == 204 or response["Content-Type"].startswith(
                ("application/json", "application/problem+json")
            ), (method, path, response.status_code, response["Content-Type"])
    # DRF negotiates before anything else: every operation refuses a client that takes no JSON.
    assert {status for status, _ in answers.values()} == {406}, answers

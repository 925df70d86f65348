"""Every event type has a payload schema in the contract, and the engine's real
events match them (the API tests check the API's own answers against it too)."""

from __future__ import annotations

import random

import yaml
from openapi_schema_validator import OAS31Validator

from games.engine import EVENT_TYPES, PLAYING, Match, Ruleset
from games.serializers import ALL_EVENT_TYPES
from live.schema import EVENT_PAYLOADS
from tests.openapi_check import OPENAPI_PATH


def test_every_event_type_has_a_payload_schema():
    assert set(EVENT_PAYLOADS) == set(ALL_EVENT_TYPES)


def test_the_engines_events_match_their_schemas():
    document = yaml.safe_load(OPENAPI_PATH.read_text())
    schema = {**document["components"]["schemas"]["EventData"], "components": document["components"]}
    validator = OAS31Validator(schema)
    seen: set[str] = set()
    for seed in range(20):
        match, events = Match.new(Ruleset(set_max=6, players=3), seed)
        rng = random.Random(seed)
        while match.status == PLAYING:
            events += match.apply(match.turn, rng.choice(match.legal_moves()))
        for event in events:
            validator.validate(event)
            seen.add(event["type"])
    assert seen == set(EVENT_TYPES)

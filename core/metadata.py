"""What ``OPTIONS`` answers: the view's name, description and media types.

DRF's default also describes the fields each method takes, which needs a
``serializer_class`` that views here do not declare (they validate with input
serializers of their own): it failed with a 500. The fields are in openapi.yaml.
"""

from __future__ import annotations

from typing import Any

from rest_framework.metadata import SimpleMetadata


class Metadata(SimpleMetadata):
    def determine_actions(self, request: Any, view: Any) -> dict[str, Any]:
        return {}

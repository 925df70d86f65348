"""deploy/grafana/chickenfoot.json draws only metrics the server has: every
``chickenfoot_*`` name in its queries is one ``core.metrics`` defines (or one read
when scraped), so a renamed metric cannot leave an empty panel behind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prometheus_client.metrics import MetricWrapperBase

from core import metrics

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "chickenfoot.json"
SUFFIXES = ("_bucket", "_count", "_sum")


def served_names() -> set[str]:
    names = set()
    for value in vars(metrics).values():
        if isinstance(value, MetricWrapperBase):
            names.add(value._name + ("_total" if value._type == "counter" else ""))
    for collect in metrics.SCRAPE_COLLECTORS:
        names.update(family.name for family in collect())
    return names


def queried_names() -> set[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert exprs
    found = set()
    for expr in exprs:
        for name in re.findall(r"chickenfoot_[a-z_]+", expr):
            for suffix in SUFFIXES:
                name = name.removesuffix(suffix) if not name.endswith("_total") else name
            found.add(name)
    return found


@pytest.mark.django_db
def test_every_metric_the_dashboard_queries_is_served():
    missing = queried_names() - served_names()
    assert not missing, f"the dashboard queries metrics the server does not have: {sorted(missing)}"


@pytest.mark.django_db
def test_the_dashboard_covers_the_metric_families():
    """Every family the server defines appears on some panel (the dashboard is where they are read)."""
    unused = served_names() - queried_names()
    assert not unused, f"no panel shows: {sorted(unused)}"

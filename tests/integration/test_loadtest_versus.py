"""``manage.py loadtest --compare-metrics`` and ``--compare-url``: two servers played
in turns in one run (``tools/loadtest/versus.py``). Smoke tests of the tool and of
its arithmetic, never a speed."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from tests.integration.loadtest_runs import made_up_report, spawned_run
from tools.loadtest.options import LoadTestError, Options, parse_url
from tools.loadtest.versus import Versus


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_compare_metrics_plays_a_server_with_metrics_and_one_without(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two spawned servers, one run on each: both rows, the ratio lines; the "on"
    server wrote its metrics and the "off" one wrote none."""
    root = os.environ.get("METRICS_DIR")  # the tests' own (tests/services.py): each side's folder in it
    folders = {
        side: Path(root) / f"metrics-{side}"
        if root
        else settings.BASE_DIR / ".run" / f"loadtest-metrics-{side}" / "metrics"
        for side in ("on", "off")
    }
    for folder in folders.values():
        shutil.rmtree(folder, ignore_errors=True)
    lines = spawned_run(monkeypatch, redis_url, compare_metrics=True)

    rows = {" ".join(line.split()[:2]): line.split() for line in lines if re.match(r"metrics-(on|off) 1 ", line)}
    assert set(rows) == {"metrics-on 1", "metrics-off 1"}, lines
    for row in rows.values():
        assert float(row[2]) > 0 and row[5] == "0", row  # moves/s, errors
    assert any(line.startswith("metrics-off/metrics-on ") for line in lines), lines
    assert "errors: 0" in lines, lines
    assert re.fullmatch(r"ratio_moves_per_second: \d+\.\d{3}", lines[-2]), lines
    assert list(folders["on"].glob("*.db")), "the metrics-on server wrote no metrics"
    assert not folders["off"].exists() or not list(folders["off"].glob("*.db")), "the metrics-off server wrote metrics"


def test_versus_medians_ratios_and_json() -> None:
    runs = [
        ("metrics-on", 1, made_up_report(100, [10.0, 20.0, 50.0], 6.0)),
        ("metrics-off", 1, made_up_report(104, [10.0, 20.0, 40.0], 5.0)),
        ("metrics-off", 2, made_up_report(106, [10.0, 20.0, 60.0], 5.0)),
        ("metrics-on", 2, made_up_report(102, [10.0, 20.0, 50.0], 6.0)),
    ]
    versus = Versus(Options(clients=16), 2, ("metrics-on", "metrics-off"), ("http://a", "http://b"), runs)

    assert versus.summary("metrics-on")["moves_per_second"] == {"median": 101.0, "range": [100.0, 102.0]}
    assert versus.summary("metrics-off")["p99_ms"]["median"] == pytest.approx(50.0, abs=10)
    ratios = versus.ratios()
    assert ratios["moves_per_second"] == pytest.approx(105 / 101, abs=0.001)
    assert ratios["moves_per_second_by_repetition"] == [pytest.approx(1.039, abs=0.001), pytest.approx(1.04)]
    assert ratios["web_cpu_ms_per_move"] == pytest.approx(5 / 6, abs=0.001)
    lines = versus.lines()
    assert "metrics_on_moves_per_second: 101.0" in lines
    assert "metrics_off_moves_per_second: 105.0" in lines
    assert lines[-2] == "ratio_moves_per_second: 1.040"
    document = json.loads(json.dumps(versus.as_dict()))
    assert document["order"] == ["metrics-on 1", "metrics-off 1", "metrics-off 2", "metrics-on 2"]
    assert document["ratio_metrics-off_to_metrics-on"]["moves_per_second"] == pytest.approx(1.04, abs=0.001)


def test_urls_on_this_machine_only_and_https_allowed() -> None:
    assert parse_url("http://127.0.0.1:8100") == ("127.0.0.1", 8100)
    assert parse_url("https://10.77.0.50") == ("10.77.0.50", 443)  # make cluster's load balancer
    for url in ("https://example.org", "http://10.78.0.50", "ftp://127.0.0.1"):
        with pytest.raises(LoadTestError):
            parse_url(url)

"""The health report's shape (``GET /api/v1/health/``), for the OpenAPI document."""

from __future__ import annotations

from rest_framework import serializers

from core.serializers import FloatField

HEALTH_STATUSES = ("ok", "degraded", "down")


class HealthCheckOutput(serializers.Serializer):
    ok = serializers.BooleanField(help_text="Is this part working?")
    detail = serializers.CharField(help_text="What was found, in a sentence for a person (what is wrong, if anything).")


class HealthDatabaseOutput(HealthCheckOutput):
    latency_ms = FloatField(allow_null=True, help_text="Round trip of a trivial query.")
    node = serializers.CharField(
        allow_null=True,
        required=False,
        help_text="The database server this web process is connected to (host:port; with a multi-host "
        "DATABASE_URL, the one that accepts writes), or the SQLite file; null while none answers.",
    )


class HealthRedisOutput(HealthCheckOutput):
    configured = serializers.BooleanField(help_text="False in the embedded mode (no REDIS_URL): that is not a problem.")
    node = serializers.CharField(
        allow_null=True,
        required=False,
        help_text="The Redis server in use (host:port; behind Sentinel, the master the sentinels name now); "
        "null when Redis is not configured or does not answer.",
    )


class HealthBrokerOutput(HealthCheckOutput):
    transport = serializers.CharField(help_text="redis, filesystem (the embedded broker), ...")


class HealthWorkerOutput(serializers.Serializer):
    name = serializers.CharField(help_text="The worker's Celery node name.")
    pid = serializers.IntegerField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    seen_at = serializers.DateTimeField(help_text="Its last heartbeat.")


class HealthWorkersOutput(HealthCheckOutput):
    last_heartbeat = serializers.DateTimeField(allow_null=True, help_text="The latest heartbeat of any worker.")
    alive = HealthWorkerOutput(many=True, help_text="Workers whose heartbeat is recent.")


class HealthSweepOutput(HealthCheckOutput):
    last_run = serializers.DateTimeField(allow_null=True)
    interval_seconds = FloatField(help_text="How often beat schedules the sweep.")


class HealthClockOutput(HealthCheckOutput):
    last_run = serializers.DateTimeField(allow_null=True, help_text="When the turn clock last ran.")
    interval_seconds = FloatField(help_text="How often beat runs the turn clock.")
    fired = serializers.IntegerField(allow_null=True, help_text="Timeouts its last run played.")
    failed = serializers.IntegerField(allow_null=True, help_text="Timeouts its last run could not play (logged).")


class HealthTurnsOutput(HealthCheckOutput):
    pending = serializers.IntegerField(allow_null=True, help_text="Running games waiting for a bot or a turn clock.")
    due = serializers.IntegerField(allow_null=True, help_text="... of which due now.")
    late = serializers.IntegerField(allow_null=True, help_text="... of which overdue by more than a few seconds.")
    oldest_late_seconds = FloatField(allow_null=True)


class HealthChecksOutput(serializers.Serializer):
    database = HealthDatabaseOutput()
    redis = HealthRedisOutput()
    broker = HealthBrokerOutput()
    workers = HealthWorkersOutput()
    sweep = HealthSweepOutput()
    clock = HealthClockOutput()
    turns = HealthTurnsOutput()


class SupervisedProcessOutput(serializers.Serializer):
    name = serializers.CharField(help_text="web, worker or beat.")
    pid = serializers.IntegerField(allow_null=True, help_text="Null while it waits to be restarted.")
    running = serializers.BooleanField()
    restarts = serializers.IntegerField()
    last_exit = serializers.CharField(help_text='How it last ended, e.g. "was killed by SIGKILL"; empty if never.')
    last_exit_at = serializers.DateTimeField(allow_null=True)


class HealthOutput(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=HEALTH_STATUSES,
        help_text="ok (HTTP 200); degraded: something is wrong but moves are still accepted; down: the database "
        "does not answer (both HTTP 503).",
    )
    checked_at = serializers.DateTimeField()
    problems = serializers.ListField(child=serializers.CharField(), help_text="What is wrong, one sentence each.")
    checks = HealthChecksOutput()
    supervised = SupervisedProcessOutput(
        many=True, help_text="Under `manage.py serve`: the processes it supervises (empty otherwise)."
    )

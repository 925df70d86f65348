"""Health (``ops.health``, GET /api/v1/health/): when a worker, the sweep, the turn clock or a turn counts as late."""

from config.settings.celery import CLOCK_INTERVAL_SECONDS, SWEEP_INTERVAL_SECONDS, WORKER_HEARTBEAT_SECONDS
from config.settings.env import env

# A worker silent for HEALTH_WORKER_STALE_SECONDS counts as gone. The sweep is
# late after HEALTH_SWEEP_STALE_SECONDS (beat not running?), the turn clock after
# HEALTH_CLOCK_STALE_SECONDS without a run, a turn after HEALTH_TURN_LATE_SECONDS
# past its due time.
HEALTH_WORKER_STALE_SECONDS = env.float("HEALTH_WORKER_STALE_SECONDS", default=3 * WORKER_HEARTBEAT_SECONDS)
HEALTH_SWEEP_STALE_SECONDS = env.float("HEALTH_SWEEP_STALE_SECONDS", default=max(10.0, 5 * SWEEP_INTERVAL_SECONDS))
HEALTH_TURN_LATE_SECONDS = env.float("HEALTH_TURN_LATE_SECONDS", default=15.0)
HEALTH_CLOCK_STALE_SECONDS = env.float("HEALTH_CLOCK_STALE_SECONDS", default=max(5.0, 10 * CLOCK_INTERVAL_SECONDS))

from django.apps import AppConfig


class LiveConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "live"

    def ready(self) -> None:
        # Every committed change of a game is told to live play (games.signals.committed):
        # the notice, the follow-up task. The lobby's open tables on the account stream
        # (live.lobby_feed) register as it is imported. The follow-up tasks' log lines
        # name their game (core.request_context).
        from core.request_context import GAME_TASKS
        from games import signals
        from live import dispatch, lobby_feed  # noqa: F401

        signals.on_committed(dispatch.after_commit)
        GAME_TASKS.update((dispatch.BOT_TURN_TASK, dispatch.TURN_CLOCK_TASK))

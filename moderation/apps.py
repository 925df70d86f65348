from django.apps import AppConfig


class ModerationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "moderation"

    def ready(self) -> None:
        from chat import guards as chat_guards  # apps ready: the guard reads models
        from live import account_feeds
        from moderation.feeds import WARNING_FEED
        from moderation.sanction_feed import SANCTION_FEED
        from moderation.selectors import mute_refusal, standing_ended_sanctions, standing_sanctions
        from players import standing

        standing.register(standing_sanctions)  # /me/ and the log-in refusal tell the player their sanctions
        standing.register_ended(standing_ended_sanctions)  # /me/: those that ended lately, how, and the appeal

        account_feeds.register(WARNING_FEED)
        account_feeds.register(SANCTION_FEED)  # mutes and suspensions, their appeals and ends
        chat_guards.register("muted", mute_refusal)  # a muted account cannot write in the chat
        from django.contrib import admin

        from moderation.admin.audited import audit_every_admin

        audit_every_admin(admin.site)  # the admin has discovered every app's admin module (it is installed first)
        from moderation import account_data  # noqa: F401  # its part of the account's data (players.account_data)

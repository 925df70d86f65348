"""Moderation's part of "download my data" and "delete my account"
(``players.account_data``): the reports the account made and the warnings it got
go with it; its sanctions stay on the moderators' record (under the anonymous
placeholder), and are in the download."""

from __future__ import annotations

from typing import Any

from moderation.models import PlayerWarning, Report, Sanction
from moderation.serializers import ReportOutput, SanctionOutput, WarningOutput
from players import account_data


def reports_export(user: Any) -> list[Any]:
    return list(Report.objects.filter(reporter_id=user.pk).select_related("account").order_by("-created_at", "-id"))


def reports_erase(user: Any) -> None:
    Report.objects.filter(reporter_id=user.pk).delete()


def warnings_export(user: Any) -> list[Any]:
    return list(PlayerWarning.objects.filter(player_id=user.pk).order_by("-created_at", "-id"))


def warnings_erase(user: Any) -> None:
    PlayerWarning.objects.filter(player_id=user.pk).delete()


def sanctions_export(user: Any) -> list[Any]:
    return list(Sanction.objects.filter(player_id=user.pk).order_by("-starts_at", "-id"))


for section in (
    account_data.AccountSection(
        name="reports",
        serializer=ReportOutput,
        export=reports_export,
        erase=reports_erase,
        description="The reports you made, newest first.",
        order=40,
    ),
    account_data.AccountSection(
        name="warnings",
        serializer=WarningOutput,
        export=warnings_export,
        erase=warnings_erase,
        description="The warnings moderators gave you, newest first.",
        order=50,
    ),
    account_data.AccountSection(
        name="sanctions",
        serializer=SanctionOutput,
        export=sanctions_export,
        description="Your mutes and suspensions, newest first (kept on the moderators' record after deletion).",
        order=60,
    ),
):
    account_data.register(section)

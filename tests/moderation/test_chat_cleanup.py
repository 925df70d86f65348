"""Safe chat clean-up in the admin (issue 43), as a member of the Moderators group
does it through the admin's pages: the search matches whole words, the list filters
by author, "remove all of this account's messages" in the game or of the last
hours, restore, the suspension that also removes recent messages, and the queue of
held messages. Each change is audited, and the readers of the table chat (the API
and the game stream's chat feed) see it at once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from chat import feed
from chat import services as chat_services
from chat.models import REMOVED_TEXT, ChatFilterRule, ChatMessage, MessageState
from moderation import services as moderation
from moderation.models import AuditAction, AuditEntry
from players.models import User

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

CHANGELIST = "admin:chat_chatmessage_changelist"


@pytest.fixture
def group_moderator(make_player: Any) -> User:
    user = make_player("cleanmod")
    moderation.moderator_add(user=user)
    return User.objects.get(pk=user.pk)


@pytest.fixture
def admin_client(group_moderator: User) -> Client:
    client = Client()
    client.force_login(group_moderator)
    return client


def post(game_id: int, author: Any, text: str, channel: str = "players") -> ChatMessage:
    return chat_services.chat_message_create(game_id=game_id, author=author, channel=channel, text=text)


def listed(client: Client, **query: Any) -> list[str]:
    answer = client.get(reverse(CHANGELIST), query)
    assert answer.status_code == 200
    return sorted(row.text for row in answer.context["cl"].result_list)


def readers_texts(game_id: int, channel: str = "spectators") -> list[str]:
    answer = APIClient().get(f"/api/v1/games/{game_id}/chat/", {"channel": channel})
    assert answer.status_code == 200
    return [m["text"] for m in answer.json()["messages"]]


def act(client: Client, action: str, ids: list[int], url: str = "", **data: Any) -> Any:
    selection = {"action": action, ACTION_CHECKBOX_NAME: [str(i) for i in ids], "index": "0"}
    answer = client.post(url or reverse(CHANGELIST), {**selection, "apply": "1", **data})
    assert answer.status_code == 302, answer.content[:3000]
    return answer


def test_the_search_matches_whole_words_and_the_list_filters_by_author(
    admin_client: Client, make_table: Any, people: Any
) -> None:
    table = make_table()
    game = table.game_id
    one, two = table.users
    for text in ("eve is here", "hello everyone", "never again", "Eve!", "steve and eve-ning"):
        post(game, one, text)
    post(game, two, "eve said so")
    # "eve" finds the word (any case), never a part of one
    assert listed(admin_client, q="eve") == sorted(["eve is here", "Eve!", "steve and eve-ning", "eve said so"])
    assert listed(admin_client, q='"eve said"') == ["eve said so"]
    assert listed(admin_client, q="everyone") == ["hello everyone"]
    # an author's name (whole), and the author filter
    assert listed(admin_client, q=two.username) == ["eve said so"]
    assert listed(admin_client, author__id__exact=two.pk) == ["eve said so"]
    assert len(listed(admin_client, author__id__exact=one.pk)) == 5
    assert listed(admin_client, q="eve", author__id__exact=two.pk) == ["eve said so"]


def test_remove_all_of_an_accounts_messages_in_this_game_then_restore_one(
    admin_client: Client, group_moderator: User, make_table: Any, people: Any
) -> None:
    table, other_table = make_table(), make_table()
    game = table.game_id
    spammer, _ = people.player()
    bystander, _ = people.player()
    ads = [post(game, spammer, f"buy chips {n}", "spectators") for n in range(3)]
    kept = post(game, bystander, "good game", "spectators")
    elsewhere = post(other_table.game_id, spammer, "buy chips there", "spectators")
    reader = feed.chat_start(game, AnonymousUser())

    # one message ticked, every message of its author in this game removed
    act(admin_client, "remove_authors_messages", [ads[0].pk], scope="game", hours="24", reason="adverts")
    assert readers_texts(game) == [REMOVED_TEXT] * 3 + ["good game"]
    assert readers_texts(other_table.game_id) == ["buy chips there"]
    assert [e for e, _ in feed.chat_items(game, AnonymousUser(), reader)] == ["chat_message_removed"] * 3
    entry = AuditEntry.objects.get(action=AuditAction.CHAT_REMOVE, moderator=group_moderator)
    assert entry.player == spammer and entry.game_id == game and entry.reason == "adverts"
    assert entry.details["messages"] == [m.pk for m in ads]
    assert ChatMessage.objects.get(pk=kept.pk).removed_at is None
    assert ChatMessage.objects.get(pk=elsewhere.pk).removed_at is None

    # restore: the text is read again, the stream brings it back once, audited
    act(admin_client, "restore_selected", [ads[1].pk], reason="this one was fine")
    assert readers_texts(game) == [REMOVED_TEXT, "buy chips 1", REMOVED_TEXT, "good game"]
    items = feed.chat_items(game, AnonymousUser(), reader)
    assert [(e, d["id"], d["text"]) for e, d in items] == [("chat_message", ads[1].pk, "buy chips 1")]
    assert feed.chat_items(game, AnonymousUser(), reader) == []
    restored = AuditEntry.objects.get(action=AuditAction.CHAT_RESTORE)
    assert (restored.moderator, restored.player, restored.details["message"]) == (group_moderator, spammer, ads[1].pk)
    # removed again after the restore: the stream says so again
    moderation.moderation_chat_remove(message_id=ads[1].pk, by=group_moderator)
    assert [e for e, _ in feed.chat_items(game, AnonymousUser(), reader)] == ["chat_message_removed"]
    # restoring a message that is not removed is refused on the page, changes nothing, leaves no entry
    before = AuditEntry.objects.count()
    answer = admin_client.post(
        reverse(CHANGELIST),
        {"action": "restore_selected", ACTION_CHECKBOX_NAME: [str(kept.pk)], "index": "0", "apply": "1"},
        follow=True,
    )
    assert "It is not removed." in answer.content.decode()
    assert AuditEntry.objects.count() == before


def test_remove_all_of_an_accounts_messages_of_the_last_hours_in_every_game(
    admin_client: Client, make_table: Any, people: Any
) -> None:
    tables = [make_table(), make_table()]
    spammer, _ = people.player()
    old = post(tables[0].game_id, spammer, "yesterday's ad", "spectators")
    ChatMessage.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=30))
    recent = [post(t.game_id, spammer, "today's ad", "spectators") for t in tables]
    act(admin_client, "remove_authors_messages", [recent[0].pk], scope="hours", hours="24")
    assert readers_texts(tables[0].game_id) == ["yesterday's ad", REMOVED_TEXT]
    assert readers_texts(tables[1].game_id) == [REMOVED_TEXT]


def test_a_suspension_can_also_remove_the_accounts_recent_messages(
    admin_client: Client, group_moderator: User, make_table: Any, people: Any
) -> None:
    table = make_table()
    game = table.game_id
    spammer, _ = people.player()
    old = post(game, spammer, "last week's hello", "spectators")
    ChatMessage.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=3))
    post(game, spammer, "CHEAP CHIPS at chips.example", "spectators")
    reader = feed.chat_start(game, None)

    url = reverse("admin:players_user_sanction", args=[spammer.pk])
    form = admin_client.get(url)
    assert b'name="remove_messages"' in form.content  # the option is on the form
    answer = admin_client.post(url, {"measure": "suspend", "period": "24", "remove_messages": "24", "reason": "spam"})
    assert answer.status_code == 302, answer.content[:3000]

    spammer.refresh_from_db()
    assert not spammer.is_active
    assert readers_texts(game) == ["last week's hello", REMOVED_TEXT]  # the anonymous reader no longer sees the advert
    assert [e for e, _ in feed.chat_items(game, None, reader)] == ["chat_message_removed"]
    actions = set(AuditEntry.objects.filter(moderator=group_moderator, player=spammer).values_list("action", flat=True))
    assert actions == {AuditAction.PLAYER_SUSPEND, AuditAction.CHAT_REMOVE}

    # without the option a suspension leaves the messages as they are
    other, _ = people.player()
    post(game, other, "hello", "spectators")
    url = reverse("admin:players_user_sanction", args=[other.pk])
    admin_client.post(url, {"measure": "suspend", "period": "24", "reason": "other"})
    assert readers_texts(game)[-1] == "hello"


def test_the_report_queues_suspend_outcome_also_removes_the_accounts_recent_messages(
    admin_client: Client, group_moderator: User, make_table: Any, people: Any
) -> None:
    table = make_table()
    game = table.game_id
    spammer, _ = people.player()
    witness, _ = people.player()
    old = post(game, spammer, "last week's hello", "spectators")
    ChatMessage.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=3))
    post(game, spammer, "CHEAP CHIPS at chips.example", "spectators")
    report = moderation.report_create(reporter=witness, account=spammer, reason="spam")

    url = reverse("admin:moderation_report_change", args=[report.pk])
    assert b'name="remove_messages"' in admin_client.get(url).content  # the option is on the outcome form
    answer = admin_client.post(
        url, {"outcome": "suspend", "duration": "24", "remove_messages": "24", "reason": "spam", "whole_group": "on"}
    )
    assert answer.status_code == 302, answer.content[:3000]

    spammer.refresh_from_db()
    assert not spammer.is_active
    assert readers_texts(game) == ["last week's hello", REMOVED_TEXT]  # the anonymous reader no longer sees the advert
    actions = set(AuditEntry.objects.filter(moderator=group_moderator, player=spammer).values_list("action", flat=True))
    assert {AuditAction.PLAYER_SUSPEND, AuditAction.CHAT_REMOVE} <= actions


def test_the_accounts_lists_suspend_action_also_removes_recent_messages(
    admin_client: Client, group_moderator: User, make_table: Any, people: Any
) -> None:
    table = make_table()
    game = table.game_id
    spammer, _ = people.player()
    bystander, _ = people.player()
    post(game, spammer, "CHEAP CHIPS at chips.example", "spectators")
    post(game, bystander, "hello", "spectators")
    users = reverse("admin:players_user_changelist")

    # the action's form asks for the option beside the reason
    asked = admin_client.post(
        users, {"action": "suspend", ACTION_CHECKBOX_NAME: [str(spammer.pk), str(bystander.pk)], "index": "0"}
    )
    assert asked.status_code == 200 and b'name="remove_messages"' in asked.content
    act(admin_client, "suspend", [spammer.pk], url=users, reason="spam", remove_messages="1")
    spammer.refresh_from_db()
    assert not spammer.is_active
    assert readers_texts(game) == [REMOVED_TEXT, "hello"]
    actions = set(AuditEntry.objects.filter(moderator=group_moderator, player=spammer).values_list("action", flat=True))
    assert actions == {AuditAction.PLAYER_SUSPEND, AuditAction.CHAT_REMOVE}

    # without it the messages stay
    act(admin_client, "suspend", [bystander.pk], url=users, reason="other")
    assert readers_texts(game) == [REMOVED_TEXT, "hello"]


def test_held_messages_wait_in_their_queue_and_are_approved_or_rejected_there(
    admin_client: Client, group_moderator: User, make_table: Any
) -> None:
    ChatFilterRule.objects.create(pattern="bad.example", kind="link", action="hold")
    table = make_table()
    game = table.game_id
    one = table.users[0]
    User.objects.filter(pk=one.pk).update(date_joined=timezone.now() - timedelta(days=30))  # no new-account limit
    one = User.objects.get(pk=one.pk)
    first = post(game, one, "see www.bad.example/1")
    second = post(game, one, "see www.bad.example/2")
    post(game, one, "hello")
    assert {first.state, second.state} == {MessageState.HELD}

    queue = reverse("admin:chat_heldchatmessage_changelist")
    answer = admin_client.get(queue)
    assert answer.status_code == 200
    assert [m.pk for m in answer.context["cl"].result_list] == [first.pk, second.pk]  # held only, oldest first
    assert "link &#x27;bad.example&#x27;" in answer.content.decode()

    act(admin_client, "approve_selected", [first.pk], url=queue, reason="a fine link")
    act(admin_client, "reject_selected", [second.pk], url=queue)
    client = APIClient()
    client.force_authenticate(table.users[1])
    texts = [m["text"] for m in client.get(f"/api/v1/games/{game}/chat/", {"channel": "players"}).json()["messages"]]
    assert texts == ["see www.bad.example/1", "hello"]
    assert list(admin_client.get(queue).context["cl"].result_list) == []
    actions = list(AuditEntry.objects.filter(moderator=group_moderator).values_list("action", flat=True))
    assert sorted(actions) == [AuditAction.CHAT_APPROVE, AuditAction.CHAT_REJECT]

"""The chat that cleans itself: what the filter says of a new message.

* The moderators' rules (``ChatFilterRule``, set in the admin): a word or phrase
  (whole words, any case; never a regular expression) or a link's domain (and its
  subdomains); each blocks the message (the author is refused) or holds it for
  review (nobody else reads it until a moderator approves it).
* The new-account link limit: an account younger than ``CHAT_NEW_ACCOUNT_HOURS``
  may post at most ``CHAT_NEW_ACCOUNT_LINKS`` links in all (0: none).
* The shadow-mute (``ChatShadowMute``): the account's messages are read by it alone.

The rules are compiled once per process and kept until they change: a change
(saved or deleted rule) bumps a version in the shared cache, which each check
reads (one cache read per message written).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from chat.models import ChatFilterRule, ChatMessage, ChatShadowMute, FilterAction, FilterKind, MessageState

VERSION_KEY = "chat-filter-rules-version"

#: A link: with a scheme, or www., or a bare domain whose ending spammers use.
_TLDS = (
    "com|net|org|info|biz|io|co|ru|ee|eu|de|uk|me|ly|gg|tv|cc|xyz|top|site|online|shop|store|app|link|click|win|"
    "bet|casino|vip|club|live|pro|fun|icu"
)
LINK = re.compile(
    rf"(?:(?:https?://|www\.)[^\s/?#<>\"']+|(?<![\w@.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:{_TLDS})(?![\w-]))"
    r"(?:[/?#][^\s]*)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Verdict:
    """What the filter says: ``block`` (with the rule), ``hold`` (with why) or ``shadow``."""

    action: str  # "block", "hold", "links", "shadow"
    why: str


@dataclass(frozen=True)
class _Compiled:
    version: Any
    words: tuple[tuple[re.Pattern[str], str, str], ...]  # (pattern, action, the rule as text)
    domains: tuple[tuple[str, str, str], ...]  # (domain, action, the rule as text)


_compiled: _Compiled | None = None
_lock = threading.Lock()


def word_pattern(phrase: str) -> re.Pattern[str]:
    """``phrase`` as whole words in any case (its blanks match any blanks)."""
    words = [re.escape(word) for word in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def normal_domain(pattern: str) -> str:
    """``https://www.Example.com/x`` -> ``example.com``."""
    host = re.sub(r"^[a-z]+://", "", pattern.strip().lower())
    host = re.split(r"[/?#:]", host, maxsplit=1)[0]
    return host.removeprefix("www.").strip(".")


def link_hosts(text: str) -> list[str]:
    """The domains of the links in ``text``, in order (one per link)."""
    return [normal_domain(match.group(0)) for match in LINK.finditer(text)]


def _version() -> Any:
    version = cache.get(VERSION_KEY)
    if version is None:
        version = timezone.now().timestamp()
        cache.add(VERSION_KEY, version, timeout=None)
        version = cache.get(VERSION_KEY, version)
    return version


def rules_changed(**_: Any) -> None:
    """A rule changed: every process compiles the rules again at its next check."""
    try:
        cache.incr(VERSION_KEY)
    except ValueError:
        cache.set(VERSION_KEY, timezone.now().timestamp(), timeout=None)


post_save.connect(rules_changed, sender=ChatFilterRule, dispatch_uid="chat-filter-rules-saved")
post_delete.connect(rules_changed, sender=ChatFilterRule, dispatch_uid="chat-filter-rules-deleted")


def _rules() -> _Compiled:
    global _compiled
    version = _version()
    compiled = _compiled
    if compiled is not None and compiled.version == version:
        return compiled
    with _lock:
        words, domains = [], []
        for rule in ChatFilterRule.objects.filter(active=True).order_by("pk"):
            label = f"{rule.kind} {rule.pattern!r}"
            if rule.kind == FilterKind.LINK:
                if normal_domain(rule.pattern):
                    domains.append((normal_domain(rule.pattern), rule.action, label))
            elif rule.pattern.split():
                words.append((word_pattern(rule.pattern), rule.action, label))
        _compiled = compiled = _Compiled(version=version, words=tuple(words), domains=tuple(domains))
    return compiled


def is_shadow_muted(user: Any) -> bool:
    now = timezone.now()
    return (
        ChatShadowMute.objects.filter(account_id=user.pk, lifted_at__isnull=True)
        .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=now))
        .exists()
    )


def _links_over_limit(author: Any, hosts: list[str]) -> bool:
    """Is ``author`` a new account whose links, with these, pass the limit?"""
    if not hosts:
        return False
    joined = getattr(author, "date_joined", None)
    if joined is None or timezone.now() - joined >= timedelta(hours=settings.CHAT_NEW_ACCOUNT_HOURS):
        return False
    allowed = settings.CHAT_NEW_ACCOUNT_LINKS
    if len(hosts) > allowed:
        return True
    earlier = ChatMessage.objects.filter(author_id=author.pk, created_at__gte=joined).exclude(
        state=MessageState.REJECTED
    )
    posted = sum(len(link_hosts(text)) for text in earlier.values_list("text", flat=True))
    return posted + len(hosts) > allowed


def verdict(*, author: Any, text: str) -> Verdict | None:
    """The filter's word on ``text`` by ``author``: None lets it through."""
    compiled = _rules()
    hosts = link_hosts(text)
    held: Verdict | None = None
    for pattern, action, label in compiled.words:
        if pattern.search(text):
            if action == FilterAction.BLOCK:
                return Verdict("block", label)
            held = held or Verdict("hold", label)
    for domain, action, label in compiled.domains:
        if any(host == domain or host.endswith("." + domain) for host in hosts):
            if action == FilterAction.BLOCK:
                return Verdict("block", label)
            held = held or Verdict("hold", label)
    if _links_over_limit(author, hosts):
        return Verdict("links", "new account's link limit")
    if is_shadow_muted(author):
        return Verdict("shadow", "shadow-muted")
    return held

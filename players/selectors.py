"""Read queries about accounts and tokens."""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import QuerySet

from players.models import ApiToken, User
from players.tokens import token_digest


def _token_with_user_sql() -> tuple[str, list[str]]:
    quote = connection.ops.quote_name
    user_columns = [str(field.column) for field in User._meta.concrete_fields]
    aliased = ", ".join(f"u.{quote(column)} AS {quote('user__' + column)}" for column in user_columns)
    sql = (
        f"SELECT t.*, {aliased} "
        f"FROM {quote(ApiToken._meta.db_table)} t JOIN {quote(User._meta.db_table)} u ON u.id = t.user_id "
        f"WHERE t.digest = %s AND t.revoked_at IS NULL"
    )
    return sql, user_columns


def token_get_active(*, secret: str) -> ApiToken | None:
    """The unrevoked token with this secret, with its user: one statement on the
    unique digest, written out once (it runs on every request, so it skips the
    ORM's query building)."""
    sql, user_columns = _token_with_user_sql()
    found = list(ApiToken.objects.raw(sql, [token_digest(secret)]))
    if not found:
        return None
    token = found[0]
    extra = vars(token)
    token.user = User.from_db(
        token._state.db,
        [field.attname for field in User._meta.concrete_fields],
        [extra.pop(f"user__{column}") for column in user_columns],
    )
    return token


def token_list_active(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).order_by("-created_at", "-id")


def token_get_active_for_user(*, user: User, token_id: int) -> ApiToken | None:
    return token_list_active(user=user).filter(pk=token_id).first()


def player_get(*, username: str) -> User | None:
    return User.objects.filter(username__iexact=username).first()


def credentials_valid(*, user_id: int, token_id: int | None) -> bool:
    """Are the credentials a request came with still good: the account active and,
    for a request with an API token, the token not revoked? (A long-lived stream
    asks this again when the account's tokens or standing change, and once a
    minute in case that notice was lost: with thousands of streams open, often,
    so the statement is written out once rather than built by the ORM each time.)"""
    if token_id is not None:
        return _exists(_token_credentials_sql(), [token_id, user_id, True])
    return _exists(_session_credentials_sql(), [user_id, True])


def _exists(sql: str, params: list[int | bool]) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone() is not None


@cache
def _token_credentials_sql() -> str:
    quote = connection.ops.quote_name
    return (
        f"SELECT 1 FROM {quote(ApiToken._meta.db_table)} t JOIN {quote(User._meta.db_table)} u ON u.id = t.user_id "
        "WHERE t.id = %s AND t.user_id = %s AND t.revoked_at IS NULL AND u.is_active = %s"
    )


@cache
def _session_credentials_sql() -> str:
    return f"SELECT 1 FROM {connection.ops.quote_name(User._meta.db_table)} WHERE id = %s AND is_active = %s"

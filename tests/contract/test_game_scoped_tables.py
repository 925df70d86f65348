"""Scale on paper (docs/deploy.md, "Past one database host"): the step past one
PostgreSQL primary is Citus with every game-scoped table distributed by
``game_id``. Citus requires the distribution column in every table it distributes
and in each of its unique keys, so that one game's rows all live on one node and
each uniqueness is checked there. This test keeps it so: every table with a
game's rows carries ``game_id`` and names it in each unique key (the surrogate
primary keys aside: see the docs for that one step)."""

from __future__ import annotations

from django.apps import apps
from django.db import models

from games.models import Game


def game_scoped_models() -> list[type[models.Model]]:
    """Every model whose rows each belong to one game (a required foreign key to it)."""
    scoped = []
    for model in apps.get_models():
        if model is Game or model._meta.proxy or not model._meta.managed:
            continue
        if any(
            field.is_relation and field.related_model is Game and not field.null
            for field in model._meta.concrete_fields
        ):
            scoped.append(model)
    return scoped


def unique_keys(model: type[models.Model]) -> list[tuple[str, ...]]:
    """Its unique keys as column names (the primary key aside)."""

    def column(name: str) -> str:
        return str(getattr(model._meta.get_field(name), "column", name))

    keys: list[tuple[str, ...]] = [
        (str(f.column),) for f in model._meta.concrete_fields if f.unique and not f.primary_key
    ]
    keys += [tuple(column(name) for name in together) for together in model._meta.unique_together]
    keys += [
        tuple(column(name) for name in constraint.fields)
        for constraint in model._meta.constraints
        if isinstance(constraint, models.UniqueConstraint) and constraint.fields
    ]
    return keys


def test_the_game_scoped_tables_are_the_expected_ones():
    """A new table with a game's rows is noticed here (and must follow the rule below)."""
    tables = {model._meta.db_table for model in game_scoped_models()}
    assert {"games_seat", "games_move", "games_event", "chat_chatmessage"} <= tables


def test_every_game_scoped_table_carries_game_id_in_each_unique_key():
    problems = []
    for model in game_scoped_models():
        table = model._meta.db_table
        columns = {field.column for field in model._meta.concrete_fields}
        if "game_id" not in columns:
            problems.append(f"{table} has no game_id column")
            continue
        if model._meta.get_field("game").null:
            problems.append(f"{table}.game_id may be null")
        for key in unique_keys(model):
            if "game_id" not in key:
                problems.append(f"{table}: unique key {key} does not include game_id")
        expressions = [
            constraint.name
            for constraint in model._meta.constraints
            if isinstance(constraint, models.UniqueConstraint) and not constraint.fields
        ]
        if expressions:
            problems.append(f"{table}: unique constraints on expressions {expressions}: check them by hand")
    assert not problems, problems

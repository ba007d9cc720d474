"""The Postgres backup's connection handling: the password travels only in the child's env."""

from __future__ import annotations

from service.backup.postgres import child_env, database_name

URL = "postgresql+psycopg://keeper:s3cret%21@db.local:5433/hearth"


def test_child_env_carries_the_connection_and_the_password() -> None:
    env = child_env(URL)
    assert (env["PGHOST"], env["PGPORT"], env["PGUSER"]) == ("db.local", "5433", "keeper")
    assert (env["PGPASSWORD"], env["PGDATABASE"]) == ("s3cret!", "hearth")


def test_database_name_in_messages_leaves_the_password_out() -> None:
    named = database_name(URL)
    assert named == "hearth on db.local:5433" and "s3cret" not in named

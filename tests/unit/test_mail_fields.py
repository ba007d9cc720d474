"""Bad fields of a mail account are refused by name before any connection is tried (the fuzz
test leaves this route out: its generated hosts would be looked up beyond loopback)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.errors import InvalidInputError
from core.settings import HearthSettings
from service.mail.service import MailService


class _NoPipeline:
    kb: Any = None


def service(tmp_path: Path) -> MailService:
    settings = HearthSettings().model_copy(update={"data_dir": tmp_path})
    return MailService(settings, _NoPipeline())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"host": "", "user": "me"}, "host"),
        ({"host": "mail.example", "user": ""}, "user"),
        ({"host": "bad host", "user": "me"}, "host"),
        ({"host": "a\x00b", "user": "me"}, "host"),
        ({"host": "user@mail", "user": "me"}, "host"),
        ({"host": "127.0.0.1", "user": "me", "port": 0}, "port"),
        ({"host": "127.0.0.1", "user": "me", "port": 70000}, "port"),
        ({"host": "127.0.0.1", "user": "me", "tls": "maybe"}, "tls"),
        ({"host": "mail.example", "user": "me", "tls": "none"}, "tls"),
        ({"host": "127.0.0.1", "user": "me", "folders": ["A"], "all_folders": True}, "folders"),
    ],
)
def test_a_bad_field_is_named(tmp_path: Path, fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        service(tmp_path).add(fields, "secret-password")
    assert err.value.field == field
    assert "secret-password" not in str(err.value)


def test_a_server_not_reached_is_the_callers_input(tmp_path: Path) -> None:
    # a loopback port nothing listens on: refused at once, a 400 naming the host, not a 503
    with pytest.raises(InvalidInputError) as err:
        service(tmp_path).add({"host": "127.0.0.1", "port": 1, "user": "me"}, "pw")
    assert err.value.field == "host"
    assert "127.0.0.1" in str(err.value) or "me@127.0.0.1" in str(err.value)

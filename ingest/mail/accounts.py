"""Mail accounts and their passwords, kept in the data directory.

``DATA_DIR/mail/accounts.json`` holds what is not secret (host, port, user, folders, transport,
the last sync's outcome); ``DATA_DIR/mail/passwords.json`` holds the passwords, and nothing else,
in a file of mode 0600 in a folder of mode 0700. Neither is part of a backup or an exported bundle
(those copy the catalogue, uploads and models only), and no log line, error message or status
output carries a password. The catalogue holds the messages themselves, so where a sync stopped is
read from it (see :mod:`ingest.mail.sync`), never from these files.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from core.errors import ConflictError, InvalidInputError, NotFoundError
from ingest.mail.keys import account_prefix

Tls = Literal["ssl", "starttls", "none"]
TLS_MODES: tuple[Tls, ...] = ("ssl", "starttls", "none")
#: Folders ``all_folders`` leaves out when the server marks none with SPECIAL-USE flags.
SKIPPED_NAMES = ("trash", "spam", "junk", "deleted items", "deleted messages", "bulk mail")


@dataclass
class Account:
    """One followed IMAP account (no password here; see :class:`AccountStore`).

    ``tls``: ``ssl`` (IMAPS), ``starttls`` or ``none`` (plaintext: loopback only unless
    ``insecure``); ``insecure`` also skips certificate verification; ``ca_file``: a PEM bundle
    to verify a self-signed server; ``folders``: followed folders, or with ``all_folders`` every
    folder but Trash, Spam and Junk (by their SPECIAL-USE flags, else by name).
    """

    name: str
    host: str
    port: int
    user: str
    tls: Tls = "ssl"
    folders: list[str] = field(default_factory=lambda: ["INBOX"])
    all_folders: bool = False
    ca_file: str | None = None
    insecure: bool = False
    collection: str = "default"
    last_sync: str | None = None
    last_error: str | None = None
    following: bool = True

    @property
    def prefix(self) -> str:
        """The catalogue path prefix of this account's documents."""
        return account_prefix(self.user, self.host)

    def public(self) -> dict[str, Any]:
        """The account as the CLI, the API and the UI show it (never a password)."""
        out = asdict(self)
        out["prefix"] = self.prefix
        return out


def default_port(tls: Tls) -> int:
    """993 for IMAPS, 143 otherwise."""
    return 993 if tls == "ssl" else 143


def _write_private(path: Path, data: dict[str, Any]) -> None:
    """Write JSON atomically into a file that only its owner can read (0600)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)  # mkstemp creates it 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"{path}: not readable JSON ({type(exc).__name__})") from exc
    return data if isinstance(data, dict) else {}


class AccountStore:
    """The accounts of one data directory; safe to use from several threads of one process."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / "mail"
        self.accounts_path = self.folder / "accounts.json"
        self.passwords_path = self.folder / "passwords.json"
        self._guard = threading.Lock()

    def accounts(self) -> list[Account]:
        """Every account, by name."""
        with self._guard:
            return self._load()

    def get(self, name: str) -> Account:
        """The account called ``name``; NotFoundError naming it otherwise."""
        for account in self.accounts():
            if account.name == name:
                return account
        raise NotFoundError(f"mail account {name!r} does not exist", field="name")

    def add(self, account: Account, password: str) -> Account:
        """Save a new account and its password; a name or user@host taken is a ConflictError."""
        if not password:
            raise InvalidInputError(
                f"mail account {account.name}: the password is empty", field="password"
            )
        with self._guard:
            accounts = self._load()
            for other in accounts:
                if other.name == account.name or other.prefix == account.prefix:
                    raise ConflictError(
                        f"mail account {account.name}: {account.user}@{account.host} is "
                        f"already followed as {other.name!r}"
                    )
            secrets = _read(self.passwords_path)
            secrets[account.name] = password
            _write_private(self.passwords_path, secrets)
            self._save([*accounts, account])
        return account

    def remove(self, name: str) -> Account:
        """Forget the account and its password (its documents are the caller's to remove)."""
        with self._guard:
            accounts = self._load()
            found = [a for a in accounts if a.name == name]
            if not found:
                raise NotFoundError(f"mail account {name!r} does not exist", field="name")
            self._save([a for a in accounts if a.name != name])
            secrets = _read(self.passwords_path)
            if secrets.pop(name, None) is not None:
                _write_private(self.passwords_path, secrets)
        return found[0]

    def password(self, name: str) -> str:
        """The stored password of account ``name`` (for the IMAP login only)."""
        with self._guard:
            secret = _read(self.passwords_path).get(name)
        if not isinstance(secret, str) or not secret:
            raise NotFoundError(
                f"mail account {name}: no password is stored; remove and add the account again",
                field="password",
            )
        return secret

    def record(
        self,
        name: str,
        *,
        last_sync: str | None = None,
        error: str | None = None,
        following: bool | None = None,
    ) -> None:
        """Note a sync's outcome (``error`` None clears the last error)."""
        with self._guard:
            accounts = self._load()
            for account in accounts:
                if account.name == name:
                    if last_sync is not None:
                        account.last_sync = last_sync
                    account.last_error = error
                    if following is not None:
                        account.following = following
            self._save(accounts)

    def _load(self) -> list[Account]:
        raw = _read(self.accounts_path).get("accounts", [])
        known = {f.name for f in fields(Account)}
        return [Account(**{k: v for k, v in a.items() if k in known}) for a in raw]

    def _save(self, accounts: list[Account]) -> None:
        rows = [asdict(a) for a in sorted(accounts, key=lambda a: a.name)]
        _write_private(self.accounts_path, {"accounts": rows})


def read_password(*, env: str | None = None, file: Path | None = None) -> str | None:
    """The password from the environment variable or the file the person named (first line of
    the file, without its line end); None when neither is given."""
    if env and file:
        raise InvalidInputError("give --password-env or --password-file, not both")
    if env:
        value = os.environ.get(env)
        if not value:
            raise InvalidInputError(f"--password-env: the variable {env} is not set or is empty")
        return value
    if file:
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidInputError(
                f"--password-file: {file} cannot be read ({exc.strerror})"
            ) from None
        value = text.splitlines()[0] if text else ""
        if not value:
            raise InvalidInputError(f"--password-file: {file} is empty")
        return value
    return None

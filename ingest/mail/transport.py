"""Connecting to an IMAP server (imapclient): IMAPS or STARTTLS with certificate verification by
default, plaintext only to a loopback address or when the account says ``insecure``; and the
folders an account follows.

imapclient's DEBUG records are dropped whatever the log level: they are the protocol itself,
and a LOGIN command carries the password.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import ssl
from imaplib import IMAP4
from typing import TYPE_CHECKING

from core.errors import InvalidInputError, UnavailableError
from ingest.mail.accounts import SKIPPED_NAMES, Account

if TYPE_CHECKING:
    from imapclient import IMAPClient


def _no_debug(record: logging.LogRecord) -> bool:
    return record.levelno > logging.DEBUG


for _name in ("imapclient", "imapclient.imapclient", "imapclient.imaplib", "imapclient.util"):
    logging.getLogger(_name).addFilter(_no_debug)

#: What a server or the network can raise while talking IMAP.
NETWORK_ERRORS: tuple[type[BaseException], ...] = (OSError, IMAP4.error, IMAP4.abort, EOFError)
SKIP_FLAGS = (b"\\Trash", b"\\Junk", b"\\Noselect", b"\\NonExistent")


class MailAuthError(InvalidInputError):
    """The server refused the account's user and password (never retried at once)."""


class MailServerError(UnavailableError):
    """The server cannot be reached, or broke off, or refused a command."""


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (no DNS look-up)."""
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_transport(account: Account) -> None:
    """Refuse plaintext beyond loopback unless the account is ``insecure``; check ``ca_file``."""
    if account.tls == "none" and not account.insecure and not is_loopback(account.host):
        raise InvalidInputError(
            f"mail account {account.name}: plaintext IMAP to {account.host} would send the "
            "password unencrypted; use --tls ssl or starttls, or --insecure if you must",
            field="tls",
        )
    if account.ca_file is not None:
        try:
            ssl.create_default_context(cafile=account.ca_file)
        except (OSError, ssl.SSLError) as exc:
            raise InvalidInputError(
                f"mail account {account.name}: --ca-file {account.ca_file} is not a readable "
                f"PEM certificate ({type(exc).__name__})",
                field="ca_file",
            ) from None


def tls_context(account: Account) -> ssl.SSLContext:
    """Verification against the system's CAs (or ``ca_file``); none at all when ``insecure``."""
    context = ssl.create_default_context(cafile=account.ca_file)
    if account.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def describe(exc: BaseException) -> str:
    """A network failure in words (the server's reply or the socket error; never a command)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the certificate is not trusted ({exc.verify_message}); see --ca-file"
    if isinstance(exc, socket.timeout | TimeoutError):
        return "the server did not answer in time"
    if isinstance(exc, ConnectionRefusedError):
        return "the connection was refused"
    if isinstance(exc, IMAP4.abort | EOFError | ConnectionResetError | BrokenPipeError):
        return "the server closed the connection"
    text = str(exc).strip() or type(exc).__name__
    return text[:300]


def connect(account: Account, password: str, timeout: float) -> IMAPClient:
    """A logged-in client; MailAuthError for a refused login, MailServerError otherwise."""
    from imapclient import IMAPClient
    from imapclient.exceptions import LoginError

    check_transport(account)
    where = f"mail account {account.name} ({account.host}:{account.port})"
    try:
        context = tls_context(account) if account.tls != "none" else None
        client = IMAPClient(
            account.host,
            port=account.port,
            use_uid=True,
            ssl=account.tls == "ssl",
            ssl_context=context,
            timeout=timeout,
        )
    except NETWORK_ERRORS as exc:
        raise MailServerError(f"{where}: cannot connect: {describe(exc)}") from None
    try:
        if account.tls == "starttls":
            client.starttls(context)
        client.login(account.user, password)
    except LoginError:
        _close(client)
        raise MailAuthError(
            f"{where}: the server refused the login of {account.user} (wrong password or user "
            "name?); fix it with 'hearth mail remove' and 'hearth mail add'",
            field="password",
        ) from None
    except NETWORK_ERRORS as exc:
        _close(client)
        raise MailServerError(f"{where}: {describe(exc)}") from None
    return client


def _close(client: IMAPClient) -> None:
    with contextlib.suppress(*NETWORK_ERRORS):
        client.shutdown()


def logout(client: IMAPClient) -> None:
    """Log out, ignoring a connection already gone."""
    try:
        client.logout()
    except NETWORK_ERRORS:
        _close(client)


def followed_folders(client: IMAPClient, account: Account) -> list[str]:
    """The folders to sync: the account's list (each must exist), or with ``all_folders`` every
    selectable folder but those flagged \\Trash or \\Junk (by name where no folder is flagged)."""
    listed = client.list_folders()
    names = {str(name) for _flags, _delim, name in listed}
    if not account.all_folders:
        missing = [f for f in account.folders if f not in names]
        if missing:
            raise InvalidInputError(
                f"mail account {account.name}: no folder {', '.join(map(repr, missing))} on "
                f"the server (it has {', '.join(sorted(names)[:20])})",
                field="folders",
            )
        return list(account.folders)
    flagged = any(f in (b"\\Trash", b"\\Junk") for flags, _d, _n in listed for f in flags)
    chosen = []
    for flags, _delim, name in listed:
        if any(f in SKIP_FLAGS for f in flags):
            continue
        if not flagged and str(name).lower() in SKIPPED_NAMES:
            continue
        chosen.append(str(name))
    return sorted(chosen, key=lambda n: (n.upper() != "INBOX", n))


def check_login(account: Account, password: str, timeout: float) -> list[str]:
    """Log in once and list the folders that would be followed (errors name the account)."""
    client = connect(account, password, timeout)
    try:
        return followed_folders(client, account)
    except NETWORK_ERRORS as exc:
        raise MailServerError(f"mail account {account.name}: {describe(exc)}") from None
    finally:
        logout(client)

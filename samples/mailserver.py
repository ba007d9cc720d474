"""A throwaway IMAP server for tests and benchmarks: Debian's dovecot on loopback ports.

:func:`start_dovecot` writes a dovecot.conf into a temporary folder (passwd-file passdb with one
user, a maildir, a self-signed certificate made with ``openssl req``, IMAP with STARTTLS and IMAPS
on free ports of 127.0.0.1, IDLE noticed within a second) and runs ``dovecot -c CONF -F`` as a
subprocess. :func:`why_no_dovecot` says why it cannot run here (None when it can). Messages are
put on it with imapclient's APPEND (:meth:`Dovecot.client`). The generated messages
(:func:`make_message`) carry PDF or DOCX attachments where asked.
"""

from __future__ import annotations

import contextlib
import io
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

DOVECOT = "/usr/sbin/dovecot"
USER = "alice"
#: A password no other text in a test contains, so grepping for it finds only leaks.
PASSWORD = "Zq8-hearth-s3cret-7Wx"
MAIL_USER = "mail"


def why_no_dovecot() -> str | None:
    """The reason the dovecot fixture cannot run here, or None."""
    if not Path(DOVECOT).is_file() and shutil.which("dovecot") is None:
        return (
            "Debian's dovecot-imapd is not installed (scripts/test.sh installs it when run as "
            "root: apt-get install dovecot-imapd)"
        )
    if os.geteuid() != 0:
        return "the dovecot fixture runs dovecot as root (it switches to the 'mail' user)"
    if shutil.which("openssl") is None:
        return "openssl is not installed (needed for the self-signed certificate)"
    try:
        pwd.getpwnam(MAIL_USER)
        pwd.getpwnam("dovecot")
        pwd.getpwnam("dovenull")
    except KeyError as exc:
        return f"the system user {exc} that dovecot needs does not exist"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Dovecot:
    """A running dovecot: ports, the certificate to trust, and how to stop or restart it."""

    root: Path
    imap_port: int
    imaps_port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def cert(self) -> Path:
        """The self-signed certificate (CN and subjectAltName 127.0.0.1, localhost)."""
        return self.root / "cert.pem"

    @property
    def conf(self) -> Path:
        """The dovecot.conf."""
        return self.root / "dovecot.conf"

    @property
    def log(self) -> Path:
        """Dovecot's own log."""
        return self.root / "dovecot.log"

    def start(self) -> None:
        """Run dovecot in the foreground as a subprocess; returns once IMAPS answers."""
        self.process = subprocess.Popen(
            [DOVECOT, "-c", str(self.conf), "-F"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"dovecot exited: {self.log.read_text(errors='replace')[-2000:]}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.imaps_port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("dovecot did not listen within 30 s")

    def stop(self) -> None:
        """Stop dovecot and every process of its session (login and imap processes)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
        # Its imap children may outlive the master for a moment; the ports must be free again.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _listening(self.imaps_port):
            time.sleep(0.1)
        self.process = None

    def kill(self) -> None:
        """Kill dovecot and its children at once (a server gone mid-sync)."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=15)
        self.process = None

    def client(self) -> Any:
        """A logged-in imapclient IMAPClient over IMAPS (verified against :attr:`cert`)."""
        import ssl

        from imapclient import IMAPClient

        context = ssl.create_default_context(cafile=str(self.cert))
        client = IMAPClient("127.0.0.1", port=self.imaps_port, ssl=True, ssl_context=context)
        client.login(USER, PASSWORD)
        return client

    def append(self, messages: list[bytes], folder: str = "INBOX") -> None:
        """APPEND these messages to ``folder`` in one connection."""
        client = self.client()
        try:
            for data in messages:
                client.append(folder, data)
        finally:
            client.logout()

    def close(self) -> None:
        """Stop and delete the folder."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


CONF = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <{root}/cert.pem
ssl_key = <{root}/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
mail_location = maildir:{root}/mail/%u
mailbox_idle_check_interval = 1 secs
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
    ssl = yes
  }}
}}
namespace inbox {{
  inbox = yes
  separator = /
  mailbox Trash {{
    auto = create
    special_use = \\Trash
  }}
  mailbox Junk {{
    auto = create
    special_use = \\Junk
  }}
  mailbox Archive {{
    auto = create
    special_use = \\Archive
  }}
}}
"""


def start_dovecot() -> Dovecot:
    """Configure and start a dovecot in a new temporary folder (see the module docstring)."""
    root = Path(tempfile.mkdtemp(prefix="hearth-dovecot-"))
    root.chmod(0o755)  # the mail user must reach its maildir
    for sub in ("run", "state", "mail"):
        (root / sub).mkdir()
    mail = pwd.getpwnam(MAIL_USER)
    os.chown(root / "mail", mail.pw_uid, mail.pw_gid)
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            str(root / "key.pem"),
            "-out",
            str(root / "cert.pem"),
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )
    (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    server = Dovecot(root, _free_port(), _free_port())
    server.conf.write_text(
        CONF.format(
            root=root,
            uid=mail.pw_uid,
            gid=mail.pw_gid,
            imap_port=server.imap_port,
            imaps_port=server.imaps_port,
        )
    )
    server.start()
    return server


@contextmanager
def running_dovecot() -> Iterator[Dovecot]:
    """A started dovecot, stopped and deleted on leaving."""
    server = start_dovecot()
    try:
        yield server
    finally:
        server.close()


def make_message(
    n: int,
    subject: str,
    body: str,
    *,
    attachments: list[tuple[str, bytes]] = (),  # type: ignore[assignment]
    sender: str = "Dana Field <dana@example.org>",
) -> bytes:
    """An RFC 5322 message numbered ``n`` (its date and Message-ID follow from it)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = f"{USER}@example.org"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=n))
    msg["Message-ID"] = make_msgid(idstring=f"m{n}", domain="example.org")
    msg.set_content(body)
    for name, data in attachments:
        if name.endswith(".pdf"):
            maintype, subtype = "application", "pdf"
        elif name.endswith(".docx"):
            maintype = "application"
            subtype = "vnd.openxmlformats-officedocument.wordprocessingml.document"
        else:
            maintype, subtype = "application", "octet-stream"
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return msg.as_bytes()


def pdf_bytes(text: str) -> bytes:
    """A one-page PDF holding ``text`` (samples/pdf.py)."""
    from samples.pdf import write_pdf

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.pdf"
        write_pdf(path, [text])
        return path.read_bytes()


def docx_bytes(text: str) -> bytes:
    """A Word document of one paragraph (python-docx)."""
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()

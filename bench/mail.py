"""Mail sync speed: first-sync messages/s from a real IMAP server against reading the same
messages from an .mbox file with the existing loader, and seconds from a message arriving to it
being searchable with IDLE.

A throwaway dovecot on loopback (samples/mailserver.py; needs Debian's dovecot-imapd, run as root)
holds ``--messages`` generated messages, every 20th with a PDF attachment; the same bytes are
written to an .mbox file. Both are ingested into fresh data directories with the bundled
embedder, SQLite, Chroma and FAISS, in one run, alternating which goes first. The latency trials
APPEND one message while a :class:`~ingest.mail.follower.MailFollower` idles, and time until its
document is ingested and all its chunks are in every vector store; the message's own ingest time
(from the ledger) is printed beside it.

    .venv/bin/python bench/mail.py [--messages 200] [--trials 5] [--rounds 2] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import select

from bench.figures import Figure, add_json_option, write_json
from core.db.models import Chunk, Document, LedgerEntry
from core.embedder import Embedder, create_embedder
from core.knowledge import KnowledgeBase
from core.settings import load_settings
from ingest.mail.accounts import Account, AccountStore
from ingest.mail.follower import MailFollower
from ingest.mail.sync import MailSync
from ingest.pipeline import IngestPipeline
from samples.mailserver import (
    PASSWORD,
    USER,
    Dovecot,
    make_message,
    pdf_bytes,
    start_dovecot,
    why_no_dovecot,
)

BODY = (
    "Message {i}: the ferry to the northern islands leaves at {h}:15 with {n} passengers, three "
    "bicycles and a crate of apples for the school kitchen. Reply before Friday, please."
)


def messages(count: int) -> list[bytes]:
    """``count`` messages; every 20th carries a one-page PDF."""
    out = []
    for i in range(count):
        attachments = (
            [(f"scan-{i}.pdf", pdf_bytes(f"Scan {i}: meter reading {i * 13}."))]
            if (i % 20 == 0)
            else []
        )
        out.append(
            make_message(
                i, f"Ferry {i}", BODY.format(i=i, h=i % 24, n=i * 3), attachments=attachments
            )
        )
    return out


def write_mbox(path: Path, data: list[bytes]) -> None:
    """An mbox file of these messages (stdlib mailbox)."""
    import mailbox

    box = mailbox.mbox(str(path), create=True)
    try:
        for raw in data:
            box.add(raw)
        box.flush()
    finally:
        box.close()


def account(server: Dovecot, folder: str) -> Account:
    """The IMAPS account of the bench user on ``folder``."""
    return Account(
        name="bench",
        host="127.0.0.1",
        port=server.imaps_port,
        user=USER,
        tls="ssl",
        folders=[folder],
        ca_file=str(server.cert),
    )


def time_mbox(root: Path, mbox: Path, embedder: Embedder) -> tuple[float, int]:
    """Seconds to ingest the .mbox file into a fresh data directory; documents made."""
    kb = KnowledgeBase(load_settings(data_dir=root))
    try:
        started = time.perf_counter()
        report = IngestPipeline(kb, embedder).ingest([mbox])
        seconds = time.perf_counter() - started
        return seconds, report.results[0].attachments + 1
    finally:
        kb.close()


def time_sync(root: Path, server: Dovecot, folder: str, embedder: Embedder) -> tuple[float, int]:
    """Seconds of a first sync of ``folder`` into a fresh data directory; messages added."""
    settings = load_settings(data_dir=root)
    kb = KnowledgeBase(settings)
    try:
        store = AccountStore(root)
        acct = account(server, folder)
        store.add(acct, PASSWORD)
        started = time.perf_counter()
        report = MailSync(IngestPipeline(kb, embedder), store, settings.mail).sync(acct)
        return time.perf_counter() - started, report.count("added")
    finally:
        kb.close()


def searchable(kb: KnowledgeBase, subject: str) -> float | None:
    """The ingest time (s, ledger) of the message titled ``subject`` once all its chunks are in
    every store; None before."""
    with kb.db.session() as s:
        rows = s.execute(
            select(Document.id, Document.path)
            .join(Chunk, Chunk.document_id == Document.id)
            .where(Chunk.text.contains(f"Subject: {subject}"))
        ).all()
        if not rows:
            return None
        doc_id, path = rows[0]
        ids = set(s.scalars(select(Chunk.id).where(Chunk.document_id == doc_id)))
        ms = s.scalar(
            select(LedgerEntry.duration_ms)
            .where(LedgerEntry.path == path)
            .order_by(LedgerEntry.id.desc())
        )
    if not ids or not all(ids <= store.ids() for store in kb.stores.values()):
        return None
    return (ms or 0) / 1000


def idle_latency(
    root: Path, server: Dovecot, folder: str, embedder: Embedder, trials: int
) -> list[tuple[float, float]]:
    """(seconds from APPEND to searchable, the message's ingest seconds) per trial."""
    settings = load_settings(data_dir=root)
    settings.mail.poll_seconds = 3600  # only IDLE can wake the follower in time
    kb = KnowledgeBase(settings)
    store = AccountStore(root)
    store.add(account(server, folder), PASSWORD)
    follower = MailFollower(MailSync(IngestPipeline(kb, embedder), store, settings.mail), "bench")
    out = []
    try:
        follower.start()
        if not follower.synced.wait(600) or not follower.idling.wait(60):
            raise SystemExit("the follower did not reach IDLE")
        for t in range(trials):
            subject = f"Arrival {t}"
            server.append([make_message(1000 + t, subject, BODY.format(i=t, h=t, n=t))], folder)
            sent = time.monotonic()
            deadline = sent + 120
            ingest = None
            while ingest is None and time.monotonic() < deadline:
                time.sleep(0.02)
                ingest = searchable(kb, subject)
            if ingest is None:
                raise SystemExit(f"trial {t}: not searchable within 120 s")
            out.append((time.monotonic() - sent, ingest))
            follower.idling.wait(60)
    finally:
        follower.stop()
        kb.close()
    return out


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2, help="Timed pairs (mbox, sync).")
    add_json_option(parser)
    return parser


def run(args: argparse.Namespace) -> list[Figure]:
    """Start dovecot, time both ways in and the IDLE latency, print the table."""
    reason = why_no_dovecot()
    if reason:
        print(f"skipped: {reason}")
        return []
    data = messages(args.messages)
    server = start_dovecot()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            mbox = root / "mail.mbox"
            write_mbox(mbox, data)
            client = server.client()
            client.create_folder("Bench")
            client.create_folder("Idle")
            client.logout()
            server.append(data, "Bench")
            embedder = create_embedder(load_settings().embedder)
            embedder.embed(["warm up"])
            mbox_s, sync_s = [], []
            for r in range(args.rounds):
                order = ("mbox", "sync") if r % 2 == 0 else ("sync", "mbox")
                for way in order:
                    if way == "mbox":
                        seconds, _docs = time_mbox(root / f"mbox{r}", mbox, embedder)
                        mbox_s.append(seconds)
                    else:
                        seconds, added = time_sync(root / f"sync{r}", server, "Bench", embedder)
                        assert added == args.messages, f"synced {added} of {args.messages}"
                        sync_s.append(seconds)
            lat = idle_latency(root / "idle", server, "Idle", embedder, args.trials)
    finally:
        server.close()
    n = args.messages
    mbox_rate, sync_rate = n / statistics.median(mbox_s), n / statistics.median(sync_s)
    arrive = [a for a, _ in lat]
    ingest = [i for _, i in lat]
    print(f"{n} messages ({n // 20} with a PDF), median of {args.rounds} rounds, 2 shared cores")
    print(f"{'way in':34} {'seconds':>8} {'messages/s':>11}")
    print(f"{'.mbox file, existing loader':34} {statistics.median(mbox_s):8.2f} {mbox_rate:11.1f}")
    sync_median = statistics.median(sync_s)
    print(f"{'IMAP first sync (dovecot, IMAPS)':34} {sync_median:8.2f} {sync_rate:11.1f}")
    print(f"ratio sync / mbox: {sync_rate / mbox_rate:.2f} (goal >= 0.8)")
    print(
        f"APPEND -> searchable with IDLE: median {statistics.median(arrive):.2f} s (min "
        f"{min(arrive):.2f}, max {max(arrive):.2f}, {len(arrive)} messages); the message's own "
        f"ingest median {statistics.median(ingest):.2f} s (goal < 10 s + ingest)"
    )
    return [
        Figure(
            "mail",
            "first sync",
            sync_rate,
            "messages/s",
            raw=mbox_rate,
            better="higher",
            note=f"{n} messages; raw = the same messages from an .mbox file",
        ),
        Figure(
            "mail",
            "APPEND -> searchable (IDLE)",
            statistics.median(arrive),
            "s",
            better="lower",
            note=f"median of {len(arrive)}; ingest itself {statistics.median(ingest):.2f} s",
        ),
    ]


def main() -> None:
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()

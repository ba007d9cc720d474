"""Uploads, documents, collections and prompt templates through a real server on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.conftest import Server, run_hearth


def test_upload_ingests_into_a_collection_and_delete_clears_it(server: Server) -> None:
    with server.client() as c:
        files = {"file": ("boats.md", b"# Boats\nThe red dinghy is moored at jetty four.\n")}
        resp = c.post("/api/documents", files=files, data={"collection": "sailing"})
        assert resp.status_code == 201, resp.text
        body = resp.json()
        assert body["action"] == "added" and body["chunks"] >= 1
        doc = body["document"]
        assert doc["collection"] == "sailing" and doc["path"].endswith("boats.md")

        again = c.post("/api/documents", files=files, data={"collection": "sailing"}).json()
        assert again["action"] == "unchanged"

        cols = {col["name"]: col for col in c.get("/api/collections").json()}
        assert cols["sailing"]["documents"] == 1

        detail = c.get(f"/api/documents/{doc['id']}").json()
        assert detail["chunks"][0]["provenance"] == {"heading": "Boats"}

        listed = c.get("/api/documents", params={"collection": "sailing"}).json()
        assert [d["id"] for d in listed] == [doc["id"]]

        assert c.delete(f"/api/documents/{doc['id']}").json()["removed_chunks"] >= 1
        assert c.get(f"/api/documents/{doc['id']}").status_code == 404


@pytest.mark.parametrize(
    ("name", "content", "status", "words"),
    [
        ("empty.txt", b"", 400, "empty"),
        ("blob.txt", b"\x00\x01\x02\x03" * 64, 415, "blob.txt"),
        ("cut.pdf", b"%PDF-1.4\n1 0 obj\n<<", 422, "cut.pdf"),
        ("../../etc/passwd.txt", b"innocent words here", 201, ""),
        ("a\x07b\nc.txt", b"control characters in the name", 201, ""),
        ("x" * 400 + ".txt", b"a very long name", 201, ""),
    ],
)
def test_bad_uploads_are_4xx_and_names_are_made_safe(
    server: Server, name: str, content: bytes, status: int, words: str
) -> None:
    with server.client() as c:
        resp = c.post("/api/documents", files={"file": (name, content)})
    assert resp.status_code == status, resp.text
    if status >= 400:
        assert words in resp.json()["detail"]
        return
    path = Path(resp.json()["document"]["path"])
    uploads = server.data_dir / "uploads"
    assert uploads in path.parents and path.parent.parent == uploads
    assert len(path.name) <= 200 and "\x07" not in path.name and "/" not in path.name


def test_templates_add_activate_rollback_diff(server: Server) -> None:
    with server.client() as c:
        active = {t["name"]: t for t in c.get("/api/templates").json()}
        assert {"qa", "summarize", "translate", "code", "write", "condense-question"} <= set(active)
        assert active["qa"]["version"] == 2 and len(active["qa"]["content_hash"]) == 64  # 0006

        bad = c.post("/api/templates/qa/versions", json={"system": "{{ nope }}"})
        assert bad.status_code == 400 and bad.json()["field"] == "system"

        added = c.post(
            "/api/templates/qa/versions",
            json={"system": "Be brief. Cite [n].", "note": "brief", "activate": True},
        )
        assert added.status_code == 201, added.text
        assert added.json()["version"] == 3 and added.json()["active"]
        assert not any(v["active"] for v in c.get("/api/templates/qa/versions").json()[:2])

        diff = c.get("/api/templates/qa/diff", params={"a": 2, "b": 3}).json()["diff"]
        assert "+Be brief. Cite [n]." in diff

        assert c.post("/api/templates/qa/rollback").json()["version"] == 2
        assert c.post("/api/templates/qa/activate", json={"version": 9}).status_code == 404
        assert c.get("/api/templates/nope/versions").status_code == 404


def test_template_export_import_between_data_directories(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    (tmp_path / "s.txt").write_text("System v2: answer only from sources, cite [n].")
    assert (
        run_hearth(
            a,
            "templates",
            "add",
            "qa",
            "--system",
            str(tmp_path / "s.txt"),
            "--note",
            "v2",
            "--activate",
        ).returncode
        == 0
    )
    assert run_hearth(a, "templates", "export", str(tmp_path / "t.json")).returncode == 0
    imported = run_hearth(b, "templates", "import", str(tmp_path / "t.json"))
    assert imported.returncode == 0 and "imported 1 versions" in imported.stdout

    def versions(data: Path) -> list[tuple[str, int, str, bool]]:
        out = json.loads(run_hearth(data, "templates", "export").stdout)
        return [
            (t["name"], v["version"], v["content_hash"], v["active"])
            for t in out["templates"]
            for v in t["versions"]
        ]

    in_b = versions(b)
    assert versions(a) == in_b
    qa_active = [v[1] for v in in_b if v[0] == "qa" and v[3]]
    assert qa_active == [3]  # 1-2 seeded by migrations, 3 added here


def test_upload_while_another_process_writes_is_409(server: Server) -> None:
    import subprocess
    import sys

    from tests.integration import backends

    active = backends.active()  # on the scaled pass the lock is the catalogue's advisory lock
    url = active.env(server.data_dir)["HEARTH_DATABASE_URL"] if active else None
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; from pathlib import Path; from core.lock import WriterLock; "
            f"WriterLock(Path({str(server.data_dir)!r}), {url!r}).acquire(); "
            "print('held', flush=True); "
            "time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    files = {"file": ("late.txt", b"Written while another process held the lock.")}
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with server.client() as c:
            resp = c.post("/api/documents", files=files)
        assert resp.status_code == 409, resp.text
        assert f"pid {holder.pid}" in resp.json()["detail"]
    finally:
        holder.kill()
        holder.wait()
    with server.client() as c:
        assert c.post("/api/documents", files=files).status_code == 201


def test_a_failed_upload_is_recorded_in_its_collection(server: Server) -> None:
    with server.client() as c:
        resp = c.post(
            "/api/documents",
            files={"file": ("torn.pdf", b"%PDF-1.4\n1 0 obj\n<<")},
            data={"collection": "torn"},
        )
        assert resp.status_code == 422
        docs = c.get("/api/documents", params={"collection": "torn"}).json()
    assert [(Path(d["path"]).name, d["status"]) for d in docs] == [("torn.pdf", "failed")]
    assert "torn.pdf" in docs[0]["error"]

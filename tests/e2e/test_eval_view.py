"""The web UI's evaluation view in a real headless Chromium against a real `hearth serve`: the
empty state before any `hearth eval`, then the last report's figures, model, date and gold set
once <data_dir>/eval/last.json exists, and a clear message when that file is corrupt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PHONE, Tab, new_tab
from tests.integration.conftest import Server
from tests.integration.test_eval_report import REPORT

pytestmark = [pytest.mark.slow]


def report_file(server: Server) -> Path:
    path = Path(server.data_dir) / "eval" / "last.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def cell(tab: Tab, table: str, label: str) -> str:
    row = tab.page.locator(f"#{table} tbody tr").filter(has=tab.page.locator("th", has_text=label))
    return str(row.locator("td").inner_text())


def test_empty_state_then_the_last_report(desktop: Tab, server: Server) -> None:
    page = desktop.page
    report_file(server).unlink(missing_ok=True)
    desktop.open("#/chat")
    page.click("nav.views a[data-view='eval']")
    expect(page.locator("#eval-empty")).to_be_visible()
    expect(page.locator("#eval-empty")).to_contain_text("No evaluation has been run yet")
    expect(page.locator("#eval-empty")).to_contain_text("hearth eval GOLD.jsonl")
    expect(page.locator("#eval-report")).to_be_hidden()
    expect(page.locator("#view-chat")).to_be_hidden()
    desktop.shot("desktop-eval-empty")

    report_file(server).write_text(json.dumps(REPORT))
    page.click("#eval-refresh")
    expect(page.locator("#eval-report")).to_be_visible()
    expect(page.locator("#eval-empty")).to_be_hidden()
    r, a = REPORT["retrieval"], REPORT["answers"]
    assert cell(desktop, "eval-retrieval", "Questions") == str(r["questions"])
    assert cell(desktop, "eval-retrieval", "Recall@5") == f"{r['recall@5']:.3f}"
    assert cell(desktop, "eval-retrieval", "Recall@10") == f"{r['recall@10']:.3f}"
    assert cell(desktop, "eval-retrieval", f"Recall@{REPORT['k']}") == f"{r['recall@k']:.3f}"
    assert cell(desktop, "eval-retrieval", "MRR") == f"{r['mrr']:.3f}"
    assert cell(desktop, "eval-retrieval", "nDCG@10") == f"{r['ndcg@10']:.3f}"
    assert cell(desktop, "eval-answers", "Abstention accuracy") == f"{a['abstention_accuracy']:.3f}"
    assert cell(desktop, "eval-answers", "Time to first token (median)") == (
        f"{a['ttft_s']['median']:.2f} s"
    )
    assert cell(desktop, "eval-answers", "Tokens/s (median)") == (
        f"{a['tokens_per_s']['median']:.1f} tokens/s"
    )
    meta = page.locator("#eval-meta").inner_text()
    assert REPORT["gold"] in meta and REPORT["model"] in meta
    assert "2026" in meta  # the date, in the browser's locale
    desktop.shot("desktop-eval-report")

    # A retrieval-only run: no answers table, a note instead.
    report_file(server).write_text(json.dumps({**REPORT, "answers": None, "model": None}))
    page.click("#eval-refresh")
    expect(page.locator("#eval-no-answers")).to_be_visible()
    expect(page.locator("#eval-answers")).to_be_hidden()

    # A corrupt file: the view says what is wrong instead of showing stale figures.
    report_file(server).write_text("{oops")
    page.click("#eval-refresh")
    expect(page.locator("#eval-status")).to_contain_text("not a valid report")
    expect(page.locator("#eval-report")).to_be_hidden()
    expect(page.locator("#eval-empty")).to_be_hidden()
    errors = [e for e in desktop.console_errors if "status of 404" not in e and "422" not in e]
    assert errors == []


def test_report_on_a_phone(browser: object, server: Server) -> None:
    report_file(server).write_text(json.dumps(REPORT))
    for tab in new_tab(browser, server, viewport=PHONE, color_scheme="dark", is_mobile=True):
        tab.open("#/eval")
        expect(tab.page.locator("#eval-report")).to_be_visible()
        assert cell(tab, "eval-retrieval", "nDCG@10") == f"{REPORT['retrieval']['ndcg@10']:.3f}"
        # Nothing wider than the screen.
        width = tab.page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        tab.shot("phone-eval-report")

"""The web UI's files: everything they reference is served locally, no model or document text is
ever parsed as HTML, and the page and its assets carry a same-origin Content-Security-Policy."""

from __future__ import annotations

import re

from litestar.testing import create_test_client

from service.ui import STATIC_DIR, ui_routes

JS = sorted((STATIC_DIR / "js").glob("*.js"))
TEXT_FILES = [p for p in STATIC_DIR.rglob("*") if p.suffix in {".html", ".js", ".css", ".svg"}]
SVG_NAMESPACE = "http://www.w3.org/2000/svg"  # a name, not a request


def test_every_asset_the_page_names_exists() -> None:
    html = (STATIC_DIR / "index.html").read_text()
    refs = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    assert refs, "index.html names no assets"
    for ref in refs:
        assert (STATIC_DIR / ref.removeprefix("/static/")).is_file(), ref


def test_every_module_import_resolves() -> None:
    for js in JS:
        for target in re.findall(r'from\s+"(\./[^"]+)"', js.read_text()):
            assert (js.parent / target).is_file(), f"{js.name} imports missing {target}"


def test_nothing_is_loaded_from_another_host() -> None:
    for path in TEXT_FILES:
        text = path.read_text().replace(SVG_NAMESPACE, "")
        assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", text), path.name
        assert "@import" not in text and "url(" not in text, path.name


def test_no_html_is_ever_parsed_from_strings() -> None:
    for js in JS:
        text = js.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, f"{js.name} uses {sink}"


def test_page_has_no_inline_script_or_style() -> None:
    html = (STATIC_DIR / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"


def test_routes_serve_page_and_assets_with_csp() -> None:
    with create_test_client(route_handlers=ui_routes()) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert "default-src 'self'" in page.headers["content-security-policy"]
        js = client.get("/static/js/main.js")
        assert js.status_code == 200
        assert "javascript" in js.headers["content-type"]
        assert "default-src 'self'" in js.headers["content-security-policy"]
        assert client.get("/static/../routes.py").status_code == 404

"""A page's byline is read although no paragraph holds it (held-out batch 11 dev h1145: "By
Michael Hingston" sat in a ``div`` of the National Geographic page's share bar, and "Who wrote
the article?" found no author)."""

from __future__ import annotations

from ingest.loaders.html import html_sections

PAGE = """<html><body><article>
<h1>Redonda's comeback</h1>
<div class="ng-sharekit__contributors"><div class="ng-sharekit__contributors--author">By
<span class="ng-sharekit--dark">Michael Hingston</span></div></div>
<div class="share-buttons"><span>Share</span><span>Tweet</span></div>
<p>It takes four hours to sail to Redonda.</p>
<p>Written by the island's rangers, <span class="author">quoted here</span>.</p>
<div class="comment-author">{long}</div>
</article></body></html>"""


def _lines(html: str) -> list[str]:
    return [ln for s in html_sections(html) for ln in s.text.splitlines()]


def test_a_byline_outside_every_paragraph_is_a_line_in_page_order() -> None:
    lines = _lines(PAGE.format(long="Ann"))
    assert lines.index("By Michael Hingston") < lines.index(
        "It takes four hours to sail to Redonda."
    )
    assert not any("Tweet" in ln for ln in lines)  # other text outside blocks stays out
    # one inside a paragraph is read with it, once
    assert sum("quoted here" in ln for ln in lines) == 1


def test_a_long_author_block_is_no_byline() -> None:
    lines = _lines(PAGE.format(long="word " * 40))
    assert not any(ln.startswith("word") for ln in lines)
    for rel in (
        '<a rel="author" href="/x">Ana Silva</a>',
        '<span itemprop="author">Ana Silva</span>',
    ):
        assert "Ana Silva" in _lines(f"<html><body><main>{rel}<p>Text.</p></main></body></html>")

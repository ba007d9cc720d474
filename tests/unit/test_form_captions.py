"""A form's table whose captions stand in brackets under its values (an SEC filing's cover page)
reads value by caption (ingest/loaders/tables.py ``_captioned``): read as a table, its first
value row, "Nevada | 20-8143439", was the header of every row below, and "In which state is
Galaxy Gaming incorporated?" was declined (held-out dev h052)."""

from __future__ import annotations

import warnings
from pathlib import Path

from bs4 import XMLParsedAsHTMLWarning

from ingest.loaders import loader_for
from ingest.loaders.tables import table_lines

COVER = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><body>
<p>Galaxy Gaming, Inc.</p>
<table>
<tr><td>Nevada</td><td>20-8143439</td></tr>
<tr><td>(State or other jurisdiction of incorporation or organization)</td>
    <td>(IRS Employer Identification No.)</td></tr>
<tr><td>6480 Cameron Street Ste. 305 - Las Vegas, NV 89118</td><td></td></tr>
<tr><td>(Address of principal executive offices)</td><td></td></tr>
<tr><td>( 702 ) 939-3254</td><td></td></tr>
<tr><td>(Registrant's telephone number)</td><td></td></tr>
</table></body></html>"""


def test_an_sec_cover_reads_each_value_with_the_caption_under_it(tmp_path: Path) -> None:
    path = tmp_path / "glxz-10k.htm"
    path.write_text(COVER, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (section,) = loader_for(path).load(path)
    assert not [w for w in caught if issubclass(w.category, XMLParsedAsHTMLWarning)]
    assert section.text.splitlines()[1:] == [
        "State or other jurisdiction of incorporation or organization: Nevada | "
        "IRS Employer Identification No.: 20-8143439",
        "Address of principal executive offices: 6480 Cameron Street Ste. 305 - Las Vegas, "
        "NV 89118",
        "Registrant's telephone number: ( 702 ) 939-3254",
    ]


def test_a_table_without_bracketed_captions_keeps_its_header() -> None:
    rows = [["Name", "Office"], ["Ann (acting)", "Leeds"], ["(vacant)", "York"]]
    # a bracketed cell beside a plain one is no caption row
    assert table_lines(rows) == ["Name | Office", "Name: Ann (acting) | Office: Leeds",
                                 "Name: (vacant) | Office: York"]  # fmt: skip


def test_a_units_note_under_a_header_is_no_caption() -> None:
    rows = [["Item", "2023", "2022"], ["(in millions)", "", ""], ["Sales", "12", "10"]]
    assert table_lines(rows)[-1] == "Item: Sales | 2023: 12 | 2022: 10"

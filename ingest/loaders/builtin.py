"""Hearth's own loaders as a plugin (core/plugins.py): one ``register_loaders`` hook, in the
order that decides which loader an extension claimed twice goes to (the first)."""

from __future__ import annotations

from core.plugins import Register, hookimpl


@hookimpl
def register_loaders(register: Register) -> None:
    """Register every built-in loader class by its file type (importing their modules)."""
    from ingest.loaders import (
        audio,
        code,
        csv,
        docx,
        eml,
        epub,
        html,
        image,
        json,
        markdown,
        mbox,
        odt,
        pdf,
        pptx,
        rtf,
        text,
        xls,
        xlsx,
        yaml,
    )

    for cls in (
        text.TextLoader,
        markdown.MarkdownLoader,
        html.HtmlLoader,
        pdf.PdfLoader,
        docx.DocxLoader,
        audio.AudioLoader,
        image.ImageLoader,
        pptx.PptxLoader,
        xlsx.XlsxLoader,
        xls.XlsLoader,
        csv.CsvLoader,
        epub.EpubLoader,
        eml.EmlLoader,
        mbox.MboxLoader,
        odt.OdtLoader,
        rtf.RtfLoader,
        json.JsonLoader,
        yaml.YamlLoader,
        code.CodeLoader,
    ):
        register(cls.file_type, cls)

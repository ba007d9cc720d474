"""The services one Hearth process holds, built once at start from the settings."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from core.embedder import Embedder, create_embedder
from core.knowledge import KnowledgeBase, RepairReport
from core.settings import HearthSettings
from core.speech import SpeechModel
from service.answers import AnswerService
from service.library import Library
from service.llm import LLMRuntime, create_runtime
from service.retrieval import Retriever
from service.templates import TemplateService
from service.voice import VoiceService

if TYPE_CHECKING:
    from ingest.watcher import FolderWatcher

log = logging.getLogger(__name__)


@dataclass
class Hearth:
    """Knowledge base, embedder, model and the answer service, wired together."""

    settings: HearthSettings
    kb: KnowledgeBase
    embedder: Embedder
    llm: LLMRuntime
    answers: AnswerService
    repair: RepairReport
    timings: dict[str, float] = field(default_factory=dict)

    @cached_property
    def speech(self) -> SpeechModel:
        """Whisper for voice questions; loads on first use, freed when idle."""
        return SpeechModel(self.settings.speech)

    @cached_property
    def templates(self) -> TemplateService:
        """Versioned prompt templates in the catalogue database."""
        return TemplateService(self.kb.db)

    @cached_property
    def library(self) -> Library:
        """Uploads, documents and collections; ingests with the same pipeline as the CLI."""
        from core.ocr import OcrModel
        from ingest.loaders import LoaderContext
        from ingest.pipeline import IngestPipeline

        context = LoaderContext(self.settings, self.speech, OcrModel(self.settings.ocr))
        return Library(self.kb, IngestPipeline(self.kb, self.embedder, context))

    @cached_property
    def voice(self) -> VoiceService:
        """Voice questions: transcribe, then answer."""
        return VoiceService(self.speech, self.answers)

    @classmethod
    def start(cls, settings: HearthSettings, *, load_llm: bool = True) -> Hearth:
        """Migrate the catalogue, repair the stores, load the embedder and the model."""
        t0 = time.perf_counter()
        kb = KnowledgeBase(settings)
        report = kb.repair_unless_busy() or RepairReport({}, {})
        if report.changed:
            log.warning(
                "repaired vector stores at start: removed %s, added %s",
                report.removed,
                report.added,
            )
        t1 = time.perf_counter()
        embedder = create_embedder(settings.embedder)
        t2 = time.perf_counter()
        llm = create_runtime(settings)
        t3 = time.perf_counter()
        answers = AnswerService(settings, Retriever(kb, embedder), llm)
        return cls(
            settings,
            kb,
            embedder,
            llm,
            answers,
            report,
            {"catalogue_s": t1 - t0, "embedder_load_s": t2 - t1, "llm_load_s": t3 - t2},
        )

    def close(self) -> None:
        """Free the model and persist the stores."""
        self.llm.close()
        if "speech" in self.__dict__:
            self.speech.holder.unload()
        self.kb.close()


def start_watcher(hearth: Hearth) -> FolderWatcher | None:
    """Watch ``watch.folders`` in a background thread (None when none are set).

    Returns once the folders are reconciled with the catalogue; the caller holds the writer lock.
    """
    folders = hearth.settings.watch.folders
    if not folders:
        return None
    from ingest.pipeline import IngestPipeline
    from ingest.watcher import create_watcher

    pipeline = IngestPipeline(hearth.kb, hearth.embedder)
    watcher = create_watcher(pipeline, hearth.settings.watch, folders)
    watcher.start()
    return watcher

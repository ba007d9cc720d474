"""The services one Hearth process holds, built once at start from the settings."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from core.embedder import Embedder, create_embedder
from core.errors import ConfigError
from core.knowledge import KnowledgeBase, RepairReport
from core.languages import warm_up as warm_languages
from core.memsize import current_rss
from core.settings import HearthSettings
from core.speech import SpeechModel
from core.threads import budget
from core.tts import TextToSpeech
from service.answering.orchestration import AnswerService, VoiceService
from service.answering.retrieval import Retriever
from service.bridge import Generations
from service.library.service import Library
from service.llm.planner import MemoryPlan, plan_from_settings
from service.llm.pool import ModelPool
from service.templates.service import TemplateService

if TYPE_CHECKING:
    from ingest.watcher import FolderWatcher

log = logging.getLogger(__name__)


@dataclass
class Hearth:
    """Knowledge base, embedder, models and the answer service, wired together."""

    settings: HearthSettings
    kb: KnowledgeBase
    embedder: Embedder
    pool: ModelPool
    answers: AnswerService
    repair: RepairReport
    timings: dict[str, float] = field(default_factory=dict)
    plan: MemoryPlan | None = None
    memory: dict[str, Any] = field(default_factory=dict)
    #: Every generation running for the HTTP API, stopped together when the process stops.
    generations: Generations = field(default_factory=Generations)

    @cached_property
    def speech(self) -> SpeechModel:
        """Whisper for voice questions; loads on first use, freed when idle."""
        return SpeechModel(self.settings.speech, self.settings.models_dir)

    @cached_property
    def tts(self) -> TextToSpeech:
        """The read-aloud voice; loads on first use, freed when idle."""
        return TextToSpeech(self.settings.tts)

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
    def start(cls, settings: HearthSettings, plan: MemoryPlan | None = None) -> Hearth:
        """Plan memory (refuse when over budget), migrate and repair the stores, load and warm
        up the embedder and every model. ``plan``: the plan the caller computed already (``hearth
        serve`` does, to refuse before the app is built), so it is computed once at start."""
        plan = plan or plan_from_settings(settings)
        if not plan.fits:
            raise ConfigError(plan.advice(), field="memory_budget")
        rss_start = current_rss()
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
        timings = {"catalogue_s": t1 - t0, "embedder_load_s": t2 - t1}
        if settings.llm.warmup:
            for label in ("embed_cold_s", "embed_warm_s"):
                e0 = time.perf_counter()
                embedder.embed(["warm-up sentence for the embedder"])
                timings[label] = round(time.perf_counter() - e0, 4)
            l0 = time.perf_counter()
            warm_languages()
            timings["languages_s"] = round(time.perf_counter() - l0, 4)
        rss_models, t3 = current_rss(), time.perf_counter()
        pool = ModelPool.load(settings, plan)
        timings["llm_load_s"] = time.perf_counter() - t3
        answers = AnswerService(settings, Retriever(kb, embedder), pool)
        if settings.llm.warmup and settings.llm.prompt_cache_mib:
            p0 = time.perf_counter()
            answers.prefill()
            timings["prefill_s"] = round(time.perf_counter() - p0, 4)
        rss_end = current_rss()
        memory = {
            "planned_total": plan.total,
            "planned_models": sum(m.total for m in plan.models if m.backend == "local"),
            "rss_growth_models": rss_end - rss_models,
            "rss_growth_total": rss_end - rss_start,
            "rss": rss_end,
        }
        return cls(
            settings,
            kb,
            embedder,
            pool,
            answers,
            report,
            timings,
            plan,
            memory,
        )

    def system(self) -> dict[str, Any]:
        """Plan versus measured memory, warm-up and queue figures, and the cores other programs
        keep busy now (``GET /api/system``)."""
        models = self.pool.snapshot()
        return {
            "plan": self.plan.as_dict() if self.plan else None,
            "memory": {**self.memory, "rss_now": current_rss()},
            "mlock": self.pool.mlock,
            "timings": self.timings,
            "models": models,
            "cores": budget().load().as_dict(),
        }

    def close(self) -> None:
        """Stop what is still generating, free the models and persist the stores (a clean
        close: the stores' in-step mark is written)."""
        self.generations.stop_all()
        self.pool.close()
        if "speech" in self.__dict__:
            self.speech.holder.unload()
        if "tts" in self.__dict__:
            self.tts.holder.unload()
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

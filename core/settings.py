"""One settings tree for the whole application (``HEARTH_`` prefix, ``__`` for nesting).

Sources, strongest first: constructor arguments, environment variables, a TOML file named by
``HEARTH_CONFIG``, then the defaults below. Entry points build it once with
:func:`load_settings` and pass it down.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/hearth`` or ``~/.local/share/hearth``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hearth"


class EmbedderSettings(BaseModel):
    """The sentence-transformers model that embeds chunks and questions."""

    model: str = Field(
        "all-MiniLM-L6-v2",
        description="Bundled model name (all-MiniLM-L6-v2) or a sentence-transformers folder.",
    )
    batch_size: int = Field(32, ge=1, le=1024, description="Chunks embedded per batch.")
    device: str = Field("cpu", description="Torch device for the embedder.")
    resident_memory: str = Field(
        "512MiB",
        description="Memory the loaded embedder keeps resident, counted in the memory plan "
        "(all-MiniLM-L6-v2 with torch: ~500 MiB RSS growth measured after encoding).",
    )


class ChunkingSettings(BaseModel):
    """How sections are cut into chunks (sizes in embedder tokens)."""

    chunk_tokens: int = Field(200, ge=16, le=512, description="Target size of a chunk in tokens.")
    overlap_tokens: int = Field(40, ge=0, le=256, description="Tokens repeated between neighbours.")


class IngestSettings(BaseModel):
    """Limits and behaviour of the ingest pipeline."""

    max_file_bytes: int = Field(
        200 * 1024 * 1024, ge=1, description="Files larger than this are refused (bytes)."
    )
    faiss_save_every: int = Field(
        50, ge=1, description="Save the FAISS index after this many documents in a batch."
    )
    follow_symlinks: bool = Field(
        True,
        description="Read symbolic links below an ingested or watched folder (`hearth ingest`, "
        "`hearth watch`, the sync at start): a link to a file is recorded under the link's path, "
        "a link to a folder is walked; a link loop is one failed file. False: links below a "
        "folder are left out (a path named on the command line is read even when it is a link).",
    )


DEFAULT_IGNORE = (
    "*.swp",
    "*.swo",
    "*.swx",
    "*~",
    "~$*",
    ".~lock.*",
    "#*#",
    "*.part",
    "*.partial",
    "*.crdownload",
    "*.download",
    "*.tmp",
    "*.temp",
)


class WatchSettings(BaseModel):
    """The folder watcher (`hearth watch`, and `hearth serve` when folders are set)."""

    folders: list[Path] = Field(
        default_factory=list,
        description="Folders `hearth serve` keeps the knowledge base in step with (recursively); "
        "empty: serve watches nothing.",
    )
    quiet_seconds: float = Field(
        1.0,
        ge=0.0,
        le=600.0,
        description="A created or changed file is ingested once its size and modification time "
        "have not changed for this long (so a file being copied is not read half-written).",
    )
    batch_size: int = Field(
        50, ge=1, le=10000, description="Files ingested per batch (stores saved after each)."
    )
    ignore_hidden: bool = Field(True, description="Ignore dot files and anything in dot folders.")
    ignore: list[str] = Field(
        default_factory=lambda: list(DEFAULT_IGNORE),
        description="Glob patterns (on the file name) of temporary files that are never ingested: "
        "editor swap and backup files, Office locks, partial downloads.",
    )
    include: list[str] = Field(
        default_factory=list,
        description="If set, only files matching one of these globs are watched (a pattern "
        "without '/' matches the file name, one with '/' the path relative to the folder).",
    )
    exclude: list[str] = Field(
        default_factory=list,
        description="Files matching any of these globs are not watched (same matching as include); "
        "applied after include.",
    )
    force_polling: bool = Field(
        False, description="Poll the file system instead of using OS events (network drives)."
    )


class MailSettings(BaseModel):
    """IMAP mailboxes followed like folders (`hearth mail`; `hearth serve` and `hearth watch`)."""

    follow: bool = Field(
        True, description="`hearth serve` and `hearth watch` keep every mail account in step."
    )
    poll_seconds: float = Field(
        300.0,
        ge=1.0,
        le=86400.0,
        description="Seconds between syncs of a server without IDLE, and of the folders IDLE "
        "does not watch (IDLE watches INBOX, or the first followed folder).",
    )
    idle_seconds: float = Field(
        600.0,
        ge=5.0,
        le=1740.0,
        description="An IDLE is renewed after this long (servers drop it after 30 minutes).",
    )
    fetch_batch: int = Field(
        100,
        ge=1,
        le=1000,
        description="Messages fetched per round trip; their chunks are embedded together and "
        "their vectors stored in one write (each message is committed on its own).",
    )
    max_message_bytes: int = Field(
        25 * 1024 * 1024,
        ge=1,
        description="A larger message is recorded as failed with the reason, not downloaded.",
    )
    max_failures: int = Field(
        5,
        ge=1,
        le=1000,
        description="A follower stops following an account after this many failed syncs in a "
        "row (a wrong password counts at once as one); waits double after each, from 5 s.",
    )
    timeout_seconds: float = Field(
        60.0, ge=1.0, le=3600.0, description="Network timeout of one IMAP command."
    )


KVType = Literal["f16", "q8_0", "q4_0"]
TASKS = ("qa", "summarize", "translate", "code", "write")


class ModelEntry(BaseModel):
    """One model of several served under the one memory budget."""

    name: str = Field(description="Name requests use to pick this model.")
    model: str = Field(
        description="Bundled model name or a GGUF path (the remote model's name "
        "for the openai backend)."
    )
    n_ctx: int | None = Field(None, ge=256, le=131072, description="Context; default llm.n_ctx.")
    kv_type: KVType | None = Field(None, description="KV cache type; default llm.kv_type.")
    backend: str | None = Field(
        None,
        description="local (llama.cpp in process), openai (HTTP) or a plugin's runtime; "
        "default llm.backend.",
    )
    url: str | None = Field(None, description="Base URL of the OpenAI-compatible server.")


class LLMSettings(BaseModel):
    """The local assistant model."""

    model: str = Field(
        "qwen2.5-coder-1.5b",
        description="Bundled model name (qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, smollm2-135m) "
        "or a path to any GGUF file.",
    )
    n_ctx: int = Field(4096, ge=256, le=131072, description="Context length in tokens.")
    n_threads: int = Field(
        0,
        ge=0,
        description="CPU threads; 0 means every core, fewer while ingest runs (threads section).",
    )
    n_batch: int = Field(
        256,
        ge=32,
        le=8192,
        description="Prompt batch size. 256 reads a prompt as fast as 512 here with half the "
        "compute buffer (bench/prompt_batch.py, NOTES.md).",
    )
    max_tokens: int = Field(384, ge=1, le=8192, description="Most tokens generated per answer.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    top_p: float = Field(0.95, gt=0.0, le=1.0, description="Nucleus sampling threshold.")
    seed: int = Field(0, ge=0, description="Sampling seed, recorded with every answer.")
    translate_to: str = Field("English", description="Target language of the translate task.")
    chat_format: str | None = Field(
        None, description="Force a llama-cpp-python chat format; by default read from the GGUF."
    )
    n_ubatch: int = Field(
        256, ge=32, le=8192, description="Physical batch; the compute buffer grows with it x vocab."
    )
    kv_type: KVType = Field(
        "f16", description="KV cache element type (q8_0/q4_0 need flash attention, turned on)."
    )
    flash_attn: bool = Field(False, description="Flash attention (always on for a quantized KV).")
    prompt_cache_mib: int = Field(
        192,
        ge=0,
        le=65536,
        description="Saved KV states per local model (MiB) so a prompt starting like an earlier "
        "one (the template's system text, a conversation's previous turns) is not evaluated "
        "again, even after another template (condensing a follow-up) used the context; 0 turns "
        "it off. Counted in the memory plan. A replay reuses no more of its prompt than the "
        "original answer did, so it is evaluated the same way.",
    )
    use_mlock: bool = Field(
        False, description="Lock the model in RAM; reported, not fatal, when ulimit -l is too low."
    )
    warmup: bool = Field(True, description="Run a short generation and an embedding at start.")
    warmup_prompt_tokens: int = Field(
        256,
        ge=8,
        le=8192,
        description="Length of the warm-up prompt; a full n_ubatch touches the whole compute "
        "buffer so the first real question is not slowed by first-touch page faults.",
    )
    queue_size: int = Field(
        8, ge=0, le=1000, description="Requests that may wait per model; more are answered 429."
    )
    request_timeout_s: float = Field(
        300.0, gt=0, description="A request waiting plus generating longer than this is stopped."
    )
    backend: str = Field(
        "local",
        description="local: llama.cpp in process; openai: an OpenAI-compatible server; or the "
        "name of a runtime a plugin registers (core/plugins.py).",
    )
    remote_url: str | None = Field(
        None, description="Base URL of the OpenAI-compatible server (e.g. http://127.0.0.1:8080)."
    )
    remote_timeout_s: float = Field(120.0, gt=0, description="HTTP timeout for the remote server.")
    models: list[ModelEntry] = Field(
        default_factory=list,
        description="Several models under one budget; empty means the one model above.",
    )
    routes: dict[str, str] = Field(
        default_factory=dict,
        description=f"Task ({', '.join(TASKS)}) -> model name; unrouted tasks use default_model.",
    )
    default_model: str | None = Field(
        None, description="Model name used when a request names neither a model nor a routed task."
    )

    @field_validator("routes")
    @classmethod
    def _known_tasks(cls, routes: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(routes) - set(TASKS))
        if unknown:
            raise ValueError(f"unknown task(s) {unknown}; tasks are {', '.join(TASKS)}")
        return routes


class RetrievalSettings(BaseModel):
    """How passages are found for a question."""

    top_k: int = Field(5, ge=1, le=50, description="Passages given to the model.")
    min_score: float = Field(
        0.2,
        ge=-1.0,
        le=1.0,
        description="Passages whose cosine similarity to the question is below this are not "
        "given to the model, unless they hold every name the question asks about (and are "
        "within relative_margin of the best); with none "
        "left, Hearth says it does not know. A table's chunk "
        "scored 0.09-0.15 against a question about one cell on the hard set (bench/hard.py) "
        "before rows carried their headers; lower it only with the hard set re-measured.",
    )
    relative_margin: float = Field(
        0.1,
        ge=0.0,
        le=2.0,
        description="Drop passages scoring more than this below the best one (cosine); small "
        "models answer from a near-miss passage when it is in the prompt.",
    )
    passage_tokens: int = Field(
        144,
        ge=0,
        le=32768,
        description="Token budget for all passages of a prompt: the sentences bearing on the "
        "question are kept until it is spent (0: whole passages, top_k of them). Prompt "
        "evaluation is most of the wait for a first token; at 144 the 1.5B's first token came "
        "at 0.36 of whole passages' wait with answers as often right (bench/answers.py).",
    )
    keyword_postings: int = Field(
        30_000,
        ge=0,
        description="Most (word, chunk) pairs one keyword search scores: past it the question's "
        "commonest words are left out (they weigh least in BM25), so keyword search stays fast "
        "in a library of a million chunks: FTS5's bm25() costs ~0.65 us a pair here, 24 ms "
        "at 30,000 (bench/scale.py: retrieval p50 45 ms at 1M; 60,000: 77 ms). 0: no limit.",
    )
    dense_backend: Literal["faiss", "chroma"] = Field(
        "faiss", description="Which vector store answers dense queries."
    )
    faiss: bool = Field(
        True,
        description="Keep a FAISS index in the data directory. On: it is rebuilt from the "
        "catalogue at start and refreshed when the catalogue changes (fastest queries; each "
        "replica holds every vector in RAM). Off: Chroma answers every dense query (set "
        "dense_backend = chroma); the choice for replicas sharing a Chroma server.",
    )

    @model_validator(mode="after")
    def _dense_store_exists(self) -> RetrievalSettings:
        if not self.faiss and self.dense_backend == "faiss":
            raise ValueError(
                "retrieval.faiss is off but retrieval.dense_backend is faiss; "
                "set dense_backend = chroma (or turn faiss back on)"
            )
        return self


class VectorSettings(BaseModel):
    """The FAISS index: exact while that is fast, approximate (IVF) past a size."""

    approximate_from: int = Field(
        50_000,
        ge=0,
        description="From this many vectors the FAISS index is approximate (IVF), below it "
        "exact (flat); 0: always exact. Chosen when the index is saved (after the start-up "
        "repair and each ingest batch). An exact search of 100,000 vectors took 27 ms a "
        "question on one core here, IVF 1.5-3.4 ms at recall@10 1.0 (bench/faiss_kinds.py).",
    )
    nprobe: int = Field(
        64,
        ge=1,
        le=65536,
        description="Inverted lists an approximate (IVF) search visits: more is slower and "
        "closer to exact. Measured recall@10 vs exact (bench/faiss_kinds.py, 100,000 clustered "
        "vectors, 512 lists): 1.0 from 16 lists on text-like clusters, 0.97 at 64 on a "
        "near-uniform worst case; 64 costs ~3 ms a question there.",
    )


class ChromaSettings(BaseModel):
    """Where Chroma lives: a directory in data_dir (embedded) or a Chroma server (HTTP)."""

    mode: Literal["embedded", "server"] = Field(
        "embedded",
        description="embedded: a PersistentClient on data_dir/chroma (one machine); server: "
        "an HttpClient on chroma.url, shared by every replica.",
    )
    url: str | None = Field(
        None, description="Base URL of the Chroma server (e.g. http://127.0.0.1:8000)."
    )
    collection: str = Field(
        "hearth_chunks",
        min_length=3,
        max_length=63,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]$",
        description="Collection holding the chunk vectors (one per knowledge base).",
    )

    @model_validator(mode="after")
    def _server_needs_url(self) -> ChromaSettings:
        if self.mode == "server":
            if not self.url:
                raise ValueError("chroma.mode is server but chroma.url is not set")
            parsed = urlsplit(self.url)
            if parsed.scheme not in ("http", "https") or not parsed.hostname:
                raise ValueError(f"chroma.url must be http(s)://host[:port], not {self.url!r}")
        return self


class SpeechSettings(BaseModel):
    """Whisper (faster-whisper) for recordings and voice questions."""

    model: str = Field(
        "whisper-tiny.en",
        description="Bundled model name (whisper-tiny.en) or a folder holding any CTranslate2 "
        "Whisper model (e.g. base or a multilingual one).",
    )
    second_model: str | None = Field(
        "whisper-base",
        description="Model a recording is read again with when the first leaves speech out or "
        "reads it with low confidence (another language, for the English-only tiny.en): the "
        "bundled multilingual whisper-base or a CTranslate2 Whisper folder; null: never.",
    )
    compute_type: str = Field("int8", description="CTranslate2 compute type on the CPU.")
    n_threads: int = Field(
        0, ge=0, description="CPU threads; 0 means the cores ingest keeps beside an answer."
    )
    beam_size: int = Field(5, ge=1, le=10, description="Beam width; 1 is greedy (faster).")
    vad: bool = Field(True, description="Skip non-speech with the Silero VAD bundled in the wheel.")
    language: str | None = Field(
        None, description="Spoken language for multilingual models; None detects it."
    )
    idle_seconds: float = Field(
        300.0, ge=0.0, description="Free the model after this long unused (0: right after use)."
    )
    resident: bool = Field(False, description="Keep the model loaded once it has been used.")
    max_voice_seconds: float = Field(
        120.0, gt=0.0, description="Longest recording accepted as a voice question (seconds)."
    )


class DiarizationSettings(BaseModel):
    """Who spoke when in recordings: the bundled GE2E speaker encoder over voice-activity
    windows, clustered into speakers (ingest/speakers/)."""

    enabled: bool = Field(True, description="Tell speakers apart in recordings at ingest.")
    num_speakers: int = Field(
        0, ge=0, le=20, description="Speakers in every recording; 0 estimates the count."
    )
    threshold: float = Field(
        0.32,
        gt=0.0,
        lt=2.0,
        description="Mean cosine distance between two groups of voice windows above which "
        "they are two speakers, when the count is estimated (lower splits more readily; "
        "chosen on bench/diarization.py's dev split).",
    )
    n_threads: int = Field(2, ge=1, le=64, description="CPU threads for the speaker encoder.")
    idle_seconds: float = Field(
        300.0, ge=0.0, description="Free the encoder after this long unused (0: right after use)."
    )
    resident: bool = Field(False, description="Keep the encoder loaded once it has been used.")


class TtsSettings(BaseModel):
    """Text to speech (read-aloud) with a piper voice, or espeak-ng when piper is absent."""

    voice: str = Field(
        "en_US-joe-medium",
        description="Bundled voice name (en_US-joe-medium) or the path of any piper voice "
        "(.onnx, with its .onnx.json beside it).",
    )
    backend: str = Field(
        "auto",
        description="piper, espeak-ng, or auto (piper when installed, else espeak-ng).",
    )
    n_threads: int = Field(0, ge=0, description="CPU threads for piper; 0 means every core.")
    speed: float = Field(1.0, ge=0.25, le=4.0, description="Speaking rate (1.0 is normal).")
    max_chars: int = Field(
        4096, ge=1, description="Longest text read aloud at once (the OpenAI limit)."
    )
    idle_seconds: float = Field(
        300.0, ge=0.0, description="Free the voice after this long unused (0: right after use)."
    )
    resident: bool = Field(False, description="Keep the voice loaded once it has been used.")


class OcrSettings(BaseModel):
    """rapidocr (its bundled default models) for images and scanned PDF pages."""

    max_side: int = Field(
        4096,
        ge=256,
        le=16384,
        description="Images whose longer side exceeds this many pixels are scaled down to it "
        "before OCR (boxes are given in the original image's pixels).",
    )
    max_pixels: int = Field(
        200_000_000,
        ge=1_000_000,
        description="Images with more pixels than this are refused as unreadable "
        "(decompression-bomb guard).",
    )
    pdf_dpi: int = Field(
        200, ge=72, le=600, description="Resolution at which PDF pages without text are rendered."
    )
    min_score: float = Field(
        0.5, ge=0.0, le=1.0, description="OCR lines recognised with less confidence are dropped."
    )
    idle_seconds: float = Field(
        300.0, ge=0.0, description="Free the models after this long unused (0: right after use)."
    )
    resident: bool = Field(False, description="Keep the models loaded once they have been used.")


class ThreadSettings(BaseModel):
    """How the CPU cores are shared between answering and ingest (core/threads.py)."""

    cores: int = Field(
        0, ge=0, description="Cores to use; 0 means every core this process may use."
    )
    answer_cores: int = Field(
        0,
        ge=0,
        description="Cores the answer's model keeps while ingest runs at the same time (ingest "
        "gets the rest); 0 means half, rounded up. Either alone uses every core.",
    )
    share: bool = Field(
        True,
        description="false: every component takes every core, as the libraries do by default "
        "(they then oversubscribe the cores when an answer and an ingest run at once).",
    )
    adaptive: bool = Field(
        True,
        description="Leave out the cores other programs keep busy (read from /proc/stat before "
        "each answer step and ingest slice); false uses the cores whatever else runs.",
    )
    prompt_every_core: bool = Field(
        False,
        description="Read a prompt on every core even when other programs keep some busy "
        "(generation still leaves them out): prompt evaluation is long matrix products with "
        "few barriers between them, so a second thread gains more than it waits.",
    )


class ServerSettings(BaseModel):
    """The HTTP service."""

    host: str = Field("127.0.0.1", description="Address to bind; loopback by default.")
    port: int = Field(8377, ge=1, le=65535, description="TCP port.")
    max_upload_bytes: int = Field(
        200 * 1024 * 1024, ge=1, description="Largest accepted request body (bytes)."
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers besides 127.0.0.1, localhost, [::1] and the "
        "bound address (a request with another Host header is refused: DNS rebinding). Names "
        'or addresses without scheme or port, e.g. ["hearth.lan"]; "*" turns the check off '
        "(only behind a proxy that checks Host itself).",
    )

    @field_validator("allowed_hosts")
    @classmethod
    def _bare_hosts(cls, hosts: list[str]) -> list[str]:
        bad = [h for h in hosts if not h.strip() or any(c in h for c in "/@ ")]
        if bad:
            raise ValueError(f"allowed_hosts: {bad[0]!r} is not a host name (e.g. hearth.lan)")
        return [h.strip().lower().rstrip(".") for h in hosts]


class McpSettings(BaseModel):
    """The MCP server (`hearth mcp`, /mcp of `hearth serve`): what it may change, how much text
    one call returns."""

    allow_writes: bool = Field(
        False, description="Let MCP clients ingest and remove paths (inside write_folders only)."
    )
    write_folders: list[Path] = Field(
        default_factory=list,
        description="Folders MCP clients may ingest from and remove below (links resolved).",
    )
    max_page_chars: int = Field(
        32000,
        ge=1000,
        le=1_000_000,
        description="Most characters of document text one MCP call or resource read returns.",
    )


class ViewerSettings(BaseModel):
    """Citations shown in place: PDF pages and photos rendered to PNG with the passage marked."""

    scale: float = Field(
        1.5, ge=0.25, le=4.0, description="Rendered pixels per PDF point (1.5 = 108 dpi)."
    )
    cache_mib: int = Field(
        256, ge=0, description="Rendered pages kept in DATA_DIR/viewer (MiB; 0 keeps none)."
    )


class GroundingSettings(BaseModel):
    """What happens to an answer whose names and numbers are not in the passages it cites."""

    on_fail: Literal["flag", "replace"] = Field(
        "flag",
        description="flag: keep the answer and mark it unverified; replace: show the cited "
        "passages instead of the answer.",
    )


class HearthSettings(BaseSettings):
    """Every Hearth setting. Environment: ``HEARTH_<FIELD>`` and ``HEARTH_<GROUP>__<FIELD>``."""

    model_config = SettingsConfigDict(
        env_prefix="HEARTH_", env_nested_delimiter="__", extra="ignore", validate_default=True
    )

    data_dir: Path = Field(
        default_factory=default_data_dir,
        description="Where the catalogue, Chroma and FAISS live.",
    )
    models_dir: Path = Field(
        default_factory=lambda: default_data_dir() / "models",
        description="Where bundled models split over several packages are assembled.",
    )
    database_url: str | None = Field(
        None,
        description="SQLAlchemy URL of the catalogue; default: SQLite file catalogue.db in "
        "data_dir. Postgres: postgresql+psycopg://user:password@host:5432/hearth (needed for "
        "several replicas).",
    )
    memory_budget: str = Field(
        "80%",
        description="Memory the models may plan to use: bytes, 6GB, 6GiB, or a share of the "
        "memory available at start such as 60%.",
    )
    memory_extra: dict[str, str] = Field(
        default_factory=dict,
        description="Other resident parts in the plan, name -> size (e.g. whisper: 300MiB).",
    )
    log_level: str = Field("WARNING", description="Log level; DEBUG may log user text.")
    log_file: str | None = Field(None, description="Also write logs to this file (off by default).")
    embedder: EmbedderSettings = Field(
        default_factory=EmbedderSettings,  # type: ignore[arg-type]
        description=EmbedderSettings.__doc__,
    )
    chunking: ChunkingSettings = Field(
        default_factory=ChunkingSettings,  # type: ignore[arg-type]
        description=ChunkingSettings.__doc__,
    )
    ingest: IngestSettings = Field(
        default_factory=IngestSettings,  # type: ignore[arg-type]
        description=IngestSettings.__doc__,
    )
    watch: WatchSettings = Field(
        default_factory=WatchSettings,  # type: ignore[arg-type]
        description=WatchSettings.__doc__,
    )
    mail: MailSettings = Field(
        default_factory=MailSettings,  # type: ignore[arg-type]
        description=MailSettings.__doc__,
    )
    grounding: GroundingSettings = Field(
        default_factory=GroundingSettings,  # type: ignore[arg-type]
        description=GroundingSettings.__doc__,
    )
    llm: LLMSettings = Field(
        default_factory=LLMSettings,  # type: ignore[arg-type]
        description=LLMSettings.__doc__,
    )
    retrieval: RetrievalSettings = Field(
        default_factory=RetrievalSettings,  # type: ignore[arg-type]
        description=RetrievalSettings.__doc__,
    )
    vectors: VectorSettings = Field(
        default_factory=VectorSettings,  # type: ignore[arg-type]
        description=VectorSettings.__doc__,
    )
    chroma: ChromaSettings = Field(
        default_factory=ChromaSettings,  # type: ignore[arg-type]
        description=ChromaSettings.__doc__,
    )
    server: ServerSettings = Field(
        default_factory=ServerSettings,  # type: ignore[arg-type]
        description=ServerSettings.__doc__,
    )
    mcp: McpSettings = Field(
        default_factory=McpSettings,  # type: ignore[arg-type]
        description=McpSettings.__doc__,
    )
    speech: SpeechSettings = Field(
        default_factory=SpeechSettings,  # type: ignore[arg-type]
        description=SpeechSettings.__doc__,
    )
    diarization: DiarizationSettings = Field(
        default_factory=DiarizationSettings,  # type: ignore[arg-type]
        description=DiarizationSettings.__doc__,
    )
    ocr: OcrSettings = Field(
        default_factory=OcrSettings,  # type: ignore[arg-type]
        description=OcrSettings.__doc__,
    )
    tts: TtsSettings = Field(
        default_factory=TtsSettings,  # type: ignore[arg-type]
        description=TtsSettings.__doc__,
    )
    threads: ThreadSettings = Field(
        default_factory=ThreadSettings,  # type: ignore[arg-type]
        description=ThreadSettings.__doc__,
    )
    viewer: ViewerSettings = Field(
        default_factory=ViewerSettings,  # type: ignore[arg-type]
        description=ViewerSettings.__doc__,
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = os.environ.get("HEARTH_CONFIG")
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if toml_path:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_path))
        return tuple(sources)

    @field_validator("memory_budget", mode="before")
    @classmethod
    def _budget_format(cls, value: object) -> str:
        from core.memsize import parse_budget

        text = str(value)
        try:
            parse_budget(text, available=1 << 30)
        except Exception as exc:
            raise ValueError(str(exc)) from exc
        return text

    @property
    def sqlalchemy_url(self) -> str:
        """The catalogue's database URL (sync driver)."""
        return self.database_url or f"sqlite:///{self.data_dir / 'catalogue.db'}"

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, url: str | None) -> str | None:
        if url is None:
            return None
        scheme = url.split("://", 1)[0] if "://" in url else ""
        if not scheme.startswith(("sqlite", "postgres")):
            raise ValueError(
                f"database_url must be sqlite:///PATH or postgresql+psycopg://..., not {scheme!r}"
            )
        if scheme in ("postgres", "postgresql"):
            # The plain scheme means psycopg2, which Hearth does not install.
            url = "postgresql+psycopg" + url[len(scheme) :]
        return url

    @property
    def shared_catalogue(self) -> bool:
        """True when the catalogue is a database server (other replicas may write to it)."""
        return not self.sqlalchemy_url.startswith("sqlite")

    @property
    def chroma_dir(self) -> Path:
        """Persistent Chroma directory."""
        return self.data_dir / "chroma"

    @property
    def faiss_path(self) -> Path:
        """FAISS index file."""
        return self.data_dir / "faiss.index"


def load_settings(**overrides: Any) -> HearthSettings:
    """Build the settings tree once; entry points pass it down."""
    settings = HearthSettings(**overrides)
    settings.data_dir = settings.data_dir.expanduser().resolve()
    settings.models_dir = settings.models_dir.expanduser().resolve()
    settings.watch.folders = [f.expanduser().resolve() for f in settings.watch.folders]
    settings.mcp.write_folders = [f.expanduser().resolve() for f in settings.mcp.write_folders]
    from core.threads import configure

    threads = settings.threads
    configure(
        threads.cores,
        threads.answer_cores,
        threads.share,
        threads.adaptive,
        threads.prompt_every_core,
    )
    return settings

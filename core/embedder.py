"""Text embedders: a Protocol and the sentence-transformers implementation."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from core.bundled import PACKAGED, packaged_path
from core.errors import ModelError
from core.offline import enforce_offline

if TYPE_CHECKING:
    from core.settings import EmbedderSettings


#: Texts a large embedding call encodes at a time before letting a waiting question in.
BULK_SLICE = 8


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors and counts tokens the way it sees them."""

    model_id: str
    dimension: int
    max_tokens: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts; returns an (n, dimension) float32 array of unit vectors."""
        ...

    def embed_questions(self, questions: list[str], threads: int = 1) -> np.ndarray:
        """Embed questions (short texts), ahead of bulk calls, on ``threads`` torch threads;
        same vectors as :meth:`embed`."""
        ...

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Token counts (without special tokens) of each text."""
        ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each token of ``text``."""
        ...


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (bundled) or any sentence-transformers folder, on the CPU."""

    def __init__(self, settings: EmbedderSettings) -> None:
        enforce_offline()
        name = settings.model
        path = _existing_model_path(settings)
        from sentence_transformers import SentenceTransformer

        try:
            self._model = SentenceTransformer(
                str(path), device=settings.device, local_files_only=True
            )
        except Exception as exc:
            raise ModelError(f"embedder model at {path} failed to load: {exc}") from exc
        self.model_id = name if name in PACKAGED else str(path)
        self.batch_size = settings.batch_size
        dim = self._model.get_embedding_dimension()
        self.dimension = int(dim) if dim else 384
        self.max_tokens = int(self._model.max_seq_length or 256)
        self._tokenizer: Any = self._model.tokenizer
        # Tokenizers (Rust) and torch modules are not safe to share between threads mid-call.
        self._lock = threading.Lock()
        self._turns = threading.Condition()
        self._urgent = 0

    def _encode(self, texts: list[str], threads: int | None = None) -> np.ndarray:
        import torch

        from core.threads import budget

        with self._lock:
            # Questions are short texts, too small a job to split: with the cores shared,
            # torch's threads wait for each other. MiniLM, one 13-token question, another
            # process busy on one of 2 cores: 299 ms on 2 threads, 31 ms on 1; 256 squad_dev
            # questions in one call, load average 5.8 on 2 cores: 7 ms each on 1 thread, 33 ms
            # on 2. Bulk slices take the cores ingest has now (core/threads.py): all of them,
            # or its share while an answer is being written. Safe under the lock: torch here
            # serves only this model.
            before = torch.get_num_threads()
            torch.set_num_threads(threads or budget().ingest_threads())
            try:
                vectors = self._model.encode(
                    texts,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            finally:
                torch.set_num_threads(before)
        return np.asarray(vectors, dtype=np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts in batches; unit-normalised float32 vectors, shape (n, dimension).

        One text is taken for a question (:meth:`embed_questions`). Larger calls (ingest
        batches) run in slices of ``BULK_SLICE`` texts and let a waiting question in between
        slices, so a question waits for one slice at most, never for a whole ingest batch.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if len(texts) == 1:
            return self.embed_questions(texts)
        from core.threads import budget

        parts = []
        for start in range(0, len(texts), BULK_SLICE):
            with self._turns:
                self._turns.wait_for(lambda: self._urgent == 0)
            budget().wait_for_prompts()  # a prompt being read takes every core first
            with budget().ingesting():
                parts.append(self._encode(texts[start : start + BULK_SLICE]))
        return np.concatenate(parts)

    def embed_questions(self, questions: list[str], threads: int = 1) -> np.ndarray:
        """Embed questions in one call on ``threads`` torch threads (one by default), ahead of
        any waiting bulk slice; unit-normalised float32 vectors, shape (n, dimension). One
        question, or a batch of them (``hearth eval`` embeds its questions a few hundred at a
        time; an answer scores its passages' sentences on the cores answering has now)."""
        if not questions:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._turns:
            self._urgent += 1
        try:
            return self._encode(questions, threads=max(1, threads))
        finally:
            with self._turns:
                self._urgent -= 1
                self._turns.notify_all()

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Token counts as the embedder's tokenizer sees them."""
        if not texts:
            return []
        with self._lock:
            enc = self._tokenizer(texts, add_special_tokens=False)["input_ids"]
        return [len(ids) for ids in enc]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character offsets of each token (needs a fast tokenizer)."""
        with self._lock:
            enc = self._tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [(int(a), int(b)) for a, b in enc["offset_mapping"]]


def configured_dimension(settings: EmbedderSettings) -> int:
    """The configured model's embedding dimension, read from its sentence-transformers files
    (the last ``*_Dense`` layer's ``out_features``, else ``1_Pooling``'s
    ``word_embedding_dimension``) without loading it; ModelError when neither is there."""
    import json

    path = _model_path(settings)
    dense = sorted(path.glob("*_Dense/config.json"))
    try:
        if dense:
            return int(json.loads(dense[-1].read_text())["out_features"])
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
        return int(pooling["word_embedding_dimension"])
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(
            f"embedder model at {path}: cannot read its embedding dimension ({exc})"
        ) from exc


def configured_max_tokens(settings: EmbedderSettings) -> int | None:
    """The configured model's longest input in tokens, from its ``sentence_bert_config.json``'s
    ``max_seq_length`` without loading it; None when the file does not say (the model itself
    then decides, from its tokenizer, once loaded)."""
    import json

    try:
        config = json.loads((_model_path(settings) / "sentence_bert_config.json").read_text())
        value = config.get("max_seq_length")
    except (OSError, ValueError, AttributeError):
        return None
    return int(value) if isinstance(value, int) and value > 0 else None


def _model_path(settings: EmbedderSettings) -> Path:
    name = settings.model
    return packaged_path(name) if name in PACKAGED else Path(name).expanduser()


def _existing_model_path(settings: EmbedderSettings) -> Path:
    path = _model_path(settings)
    if not path.exists():
        raise ModelError(f"embedder model {settings.model!r} is not a bundled model nor a folder")
    return path


class LazyEmbedder:
    """The configured embedder, loaded on its first text rather than when made.

    ``hearth ingest`` of files that are unchanged, empty or unreadable embeds nothing, and
    loading sentence-transformers is most of its time (8.3 s of a 9.9 s run of one unchanged
    file, quiet machine): the load now waits for a text to embed or count. ``model_id``,
    ``dimension`` and ``max_tokens`` are read from the model's files without loading it
    (it is loaded at once when ``sentence_bert_config.json`` gives no ``max_seq_length``). A
    missing model is still a :class:`~core.errors.ModelError` at once; a model that fails to
    load raises it at the first text.
    """

    def __init__(self, settings: EmbedderSettings) -> None:
        path = _existing_model_path(settings)
        self._settings = settings
        self._loaded: SentenceTransformerEmbedder | None = None
        self._loading = threading.Lock()
        self.model_id = settings.model if settings.model in PACKAGED else str(path)
        self.dimension = configured_dimension(settings)
        max_tokens = configured_max_tokens(settings)
        self.max_tokens = max_tokens if max_tokens is not None else self.model.max_tokens

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded."""
        return self._loaded is not None

    @property
    def model(self) -> SentenceTransformerEmbedder:
        """The loaded embedder (loaded now if it is not yet)."""
        with self._loading:
            if self._loaded is None:
                self._loaded = SentenceTransformerEmbedder(self._settings)
            return self._loaded

    def embed(self, texts: list[str]) -> np.ndarray:
        """:meth:`SentenceTransformerEmbedder.embed`; an empty call loads nothing."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.model.embed(texts)

    def embed_questions(self, questions: list[str], threads: int = 1) -> np.ndarray:
        """:meth:`SentenceTransformerEmbedder.embed_questions`."""
        if not questions:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.model.embed_questions(questions, threads)

    def count_tokens(self, texts: list[str]) -> list[int]:
        """:meth:`SentenceTransformerEmbedder.count_tokens`; an empty call loads nothing."""
        return self.model.count_tokens(texts) if texts else []

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """:meth:`SentenceTransformerEmbedder.token_offsets`."""
        return self.model.token_offsets(text)


def create_embedder(settings: EmbedderSettings, lazy: bool = False) -> Embedder:
    """The configured embedder; with ``lazy``, one that loads its model on its first text
    (:class:`LazyEmbedder`: for commands that may have nothing to embed)."""
    return LazyEmbedder(settings) if lazy else SentenceTransformerEmbedder(settings)

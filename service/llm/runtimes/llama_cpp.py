"""In-process GGUF model through llama-cpp-python, one generation at a time."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.bundled import known_sha256, sha256_file
from core.cpuload import Load
from core.errors import ModelError
from core.gguf import read_gguf
from core.settings import LLMSettings
from core.threads import budget
from service.llm.abort import AbortFlag
from service.llm.base import ChatMessage, PromptStats, SamplingParams
from service.llm.logprobs import LoggedPiece, LogprobRecorder

#: Seconds :meth:`LlamaCppRuntime.close` waits for a running generation to end.
CLOSE_WAIT_S = 10.0


def choose_chat_format(metadata: dict[str, str], forced: str | None) -> str | None:
    """The chat format to use: forced by settings, the GGUF's own template, else ChatML.

    A GGUF without ``tokenizer.chat_template`` would otherwise fall back to the llama-2 format
    silently, which most small instruct models were not trained on.
    """
    if forced:
        return forced
    if metadata.get("tokenizer.chat_template"):
        return None  # llama-cpp-python uses the template from the file
    return "chatml"


class LlamaCppRuntime:
    """A local GGUF model; a lock makes generations take turns on the one context."""

    #: Log-probabilities are read from the last row of logits (``service.llm.logprobs``).
    supports_logprobs = True

    def __init__(
        self,
        name: str,
        path: Path,
        settings: LLMSettings,
        *,
        n_ctx: int | None = None,
        kv_type: str | None = None,
    ) -> None:
        import llama_cpp

        from service.llm.prefix_cache import PrefixCachingLlama

        self.model_name = name
        self.model_path = str(path)
        self.n_ctx = n_ctx or settings.n_ctx
        self.kv_type = kv_type or settings.kv_type
        ggml_type = int(getattr(llama_cpp, f"GGML_TYPE_{self.kv_type.upper()}"))
        # Quantized KV needs flash attention, else llama.cpp fails to create the context.
        self.flash_attn = settings.flash_attn or self.kv_type != "f16"
        self._known_sha = known_sha256(name)
        self._sha: str | None = self._known_sha
        # n_threads 0: every core other programs leave free, less ingest's share while ingest
        # runs (core/threads.py), set again before each step of a generation (_fit_threads).
        self._fixed_threads = settings.n_threads
        threads = settings.n_threads or budget().cores
        self._threads = threads
        self._batch_threads = threads
        self._prompt_seen: tuple[int, Load] = (threads, budget().load())  # starts the watcher
        try:
            probe_meta = self._read_metadata(path)
            self._llm: Any = PrefixCachingLlama(
                model_path=str(path),
                prompt_cache_bytes=settings.prompt_cache_mib * 1024 * 1024,
                n_ctx=self.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                n_batch=settings.n_batch,
                n_ubatch=settings.n_ubatch,
                type_k=ggml_type,
                type_v=ggml_type,
                flash_attn=self.flash_attn,
                use_mlock=settings.use_mlock,
                chat_format=choose_chat_format(probe_meta, settings.chat_format),
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"model {name} at {path} failed to load: {exc}") from exc
        self.metadata: dict[str, str] = dict(self._llm.metadata)
        self._lock = threading.Lock()
        self._abort = AbortFlag(self._llm._ctx.ctx)  # stops a prompt evaluation half-way

    @staticmethod
    def _read_metadata(path: Path) -> dict[str, str]:
        """GGUF key/values read from the header, without loading anything."""
        return {k: str(v) for k, v in read_gguf(path).metadata.items()}

    def _fit_threads(self, prompt: bool = False) -> None:
        """Give llama.cpp the threads the core budget allows now, of the cores other programs
        leave free (unless fixed by settings): for generation (``n_threads``) and, before a
        ``prompt``, for batches (``n_threads_batch``); a prompt's count and load go to its
        stats."""
        load = budget().load()
        threads = self._fixed_threads or budget().answer_threads(load)
        batch = self._batch_threads
        if prompt:
            batch = self._fixed_threads or budget().prompt_threads(load)
        if (threads, batch) != (self._threads, self._batch_threads):
            self._llm._ctx.set_n_threads(threads, batch)
            self._threads, self._batch_threads = threads, batch
        if prompt:
            self._prompt_seen = (batch, load)

    def model_sha256(self) -> str:
        """sha256 of the model file (published value for bundled models)."""
        if self._sha is None:
            self._sha = sha256_file(Path(self.model_path))
        return self._sha

    def prompt_stats(self) -> PromptStats | None:
        """How the last generation's prompt was evaluated (tokens reused and new, seconds,
        threads, and the load other programs put on the cores then)."""
        stats: PromptStats | None = self._llm.last_prompt
        if stats is None:
            return None
        threads, load = self._prompt_seen
        return replace(
            stats,
            threads=threads,
            generation_threads=self._threads,
            cores=load.cores,
            cores_busy=round(load.busy, 2),
        )

    def prefill(self, messages: list[ChatMessage]) -> None:
        """Evaluate ``messages`` once (one token generated) so that later prompts starting
        the same way, such as every answer of a template version, reuse their KV state."""
        with self._lock, budget().answering(), budget().reading_prompt():
            self._fit_threads(prompt=True)
            self._llm.create_chat_completion(messages=list(messages), max_tokens=1, temperature=0)

    def count_tokens(self, text: str) -> int:
        """Tokens in the model's vocabulary."""
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def stream_chat(
        self, messages: list[ChatMessage], params: SamplingParams, stop: threading.Event
    ) -> Iterator[str]:
        """Stream the reply; the context is held for the whole generation."""
        with self._lock, budget().answering(), ExitStack() as reading:
            if stop.is_set():
                return
            reading.enter_context(budget().reading_prompt())  # until the first token
            self._fit_threads(prompt=True)
            from llama_cpp.llama_grammar import LlamaGrammar

            grammar = None
            if params.json_schema is not None:  # sampling constrained to the schema
                grammar = LlamaGrammar.from_json_schema(params.json_schema, verbose=False)
            elif params.grammar is not None:
                grammar = LlamaGrammar.from_string(params.grammar, verbose=False)
            recorder = None if params.logprobs is None else LogprobRecorder(params.logprobs)
            self._llm.recorder = recorder
            self._llm.reuse_limit = params.reuse_at_most
            stream = self._llm.create_chat_completion(
                messages=list(messages),
                temperature=params.temperature,
                top_p=params.top_p,
                max_tokens=params.max_tokens,
                seed=params.seed,
                stop=list(params.stop) or None,
                grammar=grammar,
                stream=True,
            )
            sent = 0  # bytes of reply text yielded so far
            try:
                reading.enter_context(self._abort.watching(stop))
                for part in stream:
                    reading.close()  # the prompt is read
                    self._fit_threads()  # between steps: ingest may have started or ended
                    piece = part["choices"][0]["delta"].get("content")
                    if piece and recorder is not None:
                        sent += len(piece.encode("utf-8"))
                        yield LoggedPiece(piece, recorder.take(sent))
                    elif piece:
                        yield piece
                    if stop.is_set():
                        break
            except RuntimeError:  # "llama_decode returned 2": the evaluation was aborted
                if not stop.is_set():
                    raise
            finally:
                stream.close()
                self._llm.recorder = None
                self._llm.reuse_limit = None

    def close(self) -> None:
        """Free the model's memory once no generation uses it (a stopped one ends at its next
        token); left to the process's exit if one is still running after ``CLOSE_WAIT_S``."""
        if not self._lock.acquire(timeout=CLOSE_WAIT_S):
            return
        try:
            self._llm.close()
        finally:
            self._lock.release()

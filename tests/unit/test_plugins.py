"""One registration mechanism for every kind of backend (core/plugins.py): a third-party
package found through the ``hearth`` entry-point group is chosen by its settings name, exactly
as Hearth's built-ins are; an unknown name is refused by name with the known ones."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from core import plugins
from core.errors import ModelError
from core.plugins import UnknownBackendError
from core.settings import HearthSettings, LLMSettings, TtsSettings

PLUGIN = '''
from pathlib import Path

from core.plugins import hookimpl
from core.types import Hit, Section
from core.vectorstores.base import StoreBackend


class RiverLoader:
    """Reads .river files."""

    file_type = "river"
    extensions = (".river",)

    def load(self, path):
        return [Section(text="river: " + Path(path).read_text(), provenance={})]


class MemoryStore:
    name = "memory"

    def __init__(self, settings, dimension):
        self.dimension, self.vectors = dimension, {}

    def add(self, ids, vectors, metadatas):
        self.vectors.update(zip(ids, vectors))

    def query(self, vector, k, filters=None):
        return [Hit(i, 1.0) for i in sorted(self.vectors)][:k]


class Hum:
    sample_rate = 8000

    def __init__(self, settings):
        pass

    def pcm(self, text, speed):
        yield b"\\x01\\x00" * len(text)


class EchoRuntime:
    def __init__(self, settings, config):
        self.model_name, self.n_ctx = config.name, config.n_ctx


@hookimpl
def register_loaders(register):
    register("river", RiverLoader)


@hookimpl
def register_vector_stores(register):
    register("memory", StoreBackend(MemoryStore, lambda settings: 123))


@hookimpl
def register_keyword_indexes(register):
    register("duckdb", lambda db, max_postings: ("duckdb index", max_postings))


@hookimpl
def register_voices(register):
    register("hum", Hum)


@hookimpl
def register_llm_runtimes(register):
    register("echo", EchoRuntime)
'''


@pytest.fixture()
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An installed distribution (a dist-info with an entry point in the ``hearth`` group) on
    sys.path, the way ``pip install hearth-river`` would leave it; the manager is reset around."""
    (tmp_path / "hearth_river.py").write_text(PLUGIN)
    info = tmp_path / "hearth_river-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hearth-river\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            f"""\
            [{plugins.ENTRY_POINT_GROUP}]
            river = hearth_river
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.reset()
    yield tmp_path
    sys.modules.pop("hearth_river", None)
    monkeypatch.undo()
    plugins.reset()


def test_a_third_party_loader_reads_its_file_type(third_party: Path) -> None:
    from ingest.loaders.base import LOADERS, LoaderContext, Loaders, file_type_of, loader_for

    path = third_party / "notes.river"
    path.write_text("upstream")
    assert file_type_of(path) == "river"
    assert loader_for(path).load(path)[0].text == "river: upstream"
    bound = Loaders(LoaderContext.create(HearthSettings(data_dir=third_party / "data")))
    assert type(bound.for_path(path)).__name__ == "RiverLoader"
    assert {"text", "pdf", "code", "river"} <= set(LOADERS.names())  # built-ins alongside


def test_a_third_party_voice_is_chosen_by_tts_backend(third_party: Path) -> None:
    from core.tts import TextToSpeech

    speech = TextToSpeech(TtsSettings(backend="hum"))
    assert speech.backend == "hum"
    out = speech.synthesize("hello")
    assert (out.sample_rate, len(out.pcm)) == (8000, 10)


def test_a_third_party_llm_runtime_is_chosen_by_llm_backend(third_party: Path) -> None:
    from service.llm.config import model_configs
    from service.llm.pool import create_slot_runtime

    settings = HearthSettings(data_dir=third_party / "data", llm=LLMSettings(backend="echo"))
    config = model_configs(settings)[0]
    runtime = create_slot_runtime(settings, config)
    assert type(runtime).__name__ == "EchoRuntime"
    assert runtime.model_name == config.name


def test_third_party_stores_and_indexes_open_by_name(third_party: Path) -> None:
    from core.keywords.base import KEYWORD_INDEXES
    from core.vectorstores.base import STORES, open_store

    settings = HearthSettings(data_dir=third_party / "data")
    store = open_store("memory", settings, 3)
    store.add([7, 2], np.eye(2, 3, dtype=np.float32), [{}, {}])
    assert [h.chunk_id for h in store.query(np.ones(3), 5)] == [2, 7]
    resident = STORES.get("memory").resident
    assert resident is not None and resident(settings) == 123
    assert KEYWORD_INDEXES.get("duckdb")(None, 9) == ("duckdb index", 9)  # type: ignore[arg-type]
    assert {"chroma", "chroma-server", "faiss", "memory"} <= set(STORES.names())


def test_without_the_plugin_its_names_are_unknown(tmp_path: Path) -> None:
    from core.tts import TextToSpeech

    plugins.reset()
    with pytest.raises(ModelError, match=r"tts.backend 'hum': one of auto, piper, espeak-ng"):
        TextToSpeech(TtsSettings(backend="hum"))


def test_an_unknown_name_is_refused_by_name_with_the_known_ones(tmp_path: Path) -> None:
    from core.vectorstores.base import open_store
    from service.llm.config import model_configs

    settings = HearthSettings(data_dir=tmp_path, llm=LLMSettings(backend="vllm-magic"))
    with pytest.raises(UnknownBackendError) as llm:
        model_configs(settings)
    assert str(llm.value) == "llm.backend 'vllm-magic' is not a known backend: one of local, openai"
    with pytest.raises(UnknownBackendError) as store:
        open_store("qdrant", settings, 384)
    assert "vector store 'qdrant'" in str(store.value)
    assert "chroma, chroma-server, faiss" in str(store.value)

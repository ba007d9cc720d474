"""Retrieval: the passages a question is answered from.

Public: ``Retriever`` (hybrid dense + keyword search fused by ``reciprocal_rank_fusion``, the
``METHODS`` it offers), ``Passage`` and ``Filters``; the second hop for two-step questions
(``second_hop``, ``bridge_names``; an arithmetic question's two sides, ``side_hop``); passage
fitting (``fit_passages``, ``GAP``: the mark of sentences left out, ``merge_identical``,
``narrow_row``, ``focus_rows``, ``rows_numbered``, the days and months a question asks for and
a table cut to them (``asked_whens``, ``keep_asked_dates``, ``row_whens``), the rows a question
names (``value_named_rows``) and the piece of a wide row holding the column it asks for
(``lacked_names``, ``piece_holding``), ``under_label``,
``split_sentences``, ``is_tabular``, the shape of value a question asks for (``asked_shapes``,
``holds_shape``), ``lexical_scores``, the documents' first chunks (``with_heads``),
``SentenceVectors``); a recording's turn with the turns around it (``with_exchanges``,
``is_turn``); a filter by speaker checked (``check_speakers``) and the speaker a question asks about
(``asked_speaker``); context fitting in
tokens (``check_fits``, ``counted_tokens``, ``prompt_tokens``, ``overflow``,
``ContextOverflowError``); what names a document in a question and in the document's head
(``people_named``, ``dates_named``, ``titles_named``, ``kinds_named``, ``proper_words``,
``head_of``, ``Head``;
the words a camel-cased file name joins, ``joined_words``).
The ``_modules`` are private.
Retrieval does not import grounding: ``side_hop`` is given the check of completeness.
"""

from service.answering.retrieval._context import (
    ContextOverflowError,
    check_fits,
    counted_tokens,
    overflow,
    prompt_tokens,
)
from service.answering.retrieval._documents import (
    Head,
    dates_named,
    head_of,
    joined_words,
    kinds_named,
    people_named,
    proper_words,
    titles_named,
)
from service.answering.retrieval._exchanges import is_turn, with_exchanges
from service.answering.retrieval._lexical import lexical_scores
from service.answering.retrieval._multihop import bridge_names, second_hop, side_hop
from service.answering.retrieval._passages import (
    SentenceVectors,
    fit_passages,
    focus_rows,
    is_tabular,
    keep_asked_dates,
    merge_identical,
    narrow_row,
    rows_numbered,
    under_label,
)
from service.answering.retrieval._retriever import (
    METHODS,
    READABLE_SHARE,
    Filters,
    Passage,
    Retriever,
    reciprocal_rank_fusion,
    with_heads,
)
from service.answering.retrieval._rows import (
    asked_whens,
    lacked_names,
    piece_holding,
    row_whens,
    value_named_rows,
)
from service.answering.retrieval._sentences import GAP, split_sentences
from service.answering.retrieval._shapes import asked_shapes, holds_shape
from service.answering.retrieval._speakers import asked_speaker, check_speakers

__all__ = [
    "GAP",
    "METHODS",
    "READABLE_SHARE",
    "ContextOverflowError",
    "Filters",
    "Head",
    "Passage",
    "Retriever",
    "SentenceVectors",
    "asked_shapes",
    "asked_speaker",
    "asked_whens",
    "bridge_names",
    "check_fits",
    "check_speakers",
    "counted_tokens",
    "dates_named",
    "fit_passages",
    "focus_rows",
    "head_of",
    "holds_shape",
    "is_tabular",
    "is_turn",
    "joined_words",
    "keep_asked_dates",
    "kinds_named",
    "lacked_names",
    "lexical_scores",
    "merge_identical",
    "narrow_row",
    "overflow",
    "people_named",
    "piece_holding",
    "prompt_tokens",
    "proper_words",
    "reciprocal_rank_fusion",
    "row_whens",
    "rows_numbered",
    "second_hop",
    "side_hop",
    "split_sentences",
    "titles_named",
    "under_label",
    "value_named_rows",
    "with_exchanges",
    "with_heads",
]

"""Answering a question, in five packages a newcomer can name; import from them, never from a
``_module`` inside one:

- ``service.answering.retrieval``: the passages (hybrid search and its fusion, the second hop,
  passage and context fitting);
- ``service.answering.grounding``: every check of a reply against its passages, and the review
  that applies them;
- ``service.answering.prompting``: the one place a template is rendered, the messages built
  from it, and the default template texts the migrations read;
- ``service.answering.orchestration``: ``AnswerService`` and what is kept of an answer
  (records, conversations, replay, voice);
- ``service.answering.controllers``: the HTTP controllers.

This package itself exports nothing, so importing one part does not load the others.
"""

"""Answering a question, in five packages a newcomer can name and the API's shapes; import from
them, never from a ``_module`` inside one:

- ``service.answering.retrieval``: the passages (hybrid search and its fusion, the second hop,
  passage and context fitting);
- ``service.answering.grounding``: every check of a reply against its passages, and the review
  that applies them;
- ``service.answering.prompting``: the one place a template is rendered, the messages built
  from it, and the default template texts the migrations read;
- ``service.answering.orchestration``: ``AnswerService`` and what is kept of an answer
  (records, conversations, replay, voice);
- ``service.answering.controllers``: the HTTP controllers;
- ``service.answering.schemas``: the ask/answer request and response shapes of the API
  (``AskRequest``, ``AnswerFields``, ``Source``, ``AskResponse``, ``VoiceAskResponse``; a
  module of dataclasses that imports nothing of answering).

This package itself exports nothing, so importing one part does not load the others.
"""

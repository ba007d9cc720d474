"""Speakers of recordings: list them and name them (CLI ``hearth speakers``, ``/api/documents/
{id}/speakers``); the work is ingest/speakers/names.py's."""

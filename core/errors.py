"""Hearth's exception tree. Every error a user can cause is a ``HearthError``.

    HearthError
    ├── ConfigError            a setting is wrong or a configured file is missing
    ├── NotFoundError          a document, answer or model that does not exist
    ├── ConflictError          the request clashes with the current state (e.g. a second writer)
    ├── InvalidInputError      a request field or argument is malformed
    │   └── PayloadTooLargeError
    ├── UnsupportedTypeError   a file type no loader handles
    ├── LoaderError            a file could not be read (names the file and why)
    ├── ModelError             a model file is missing, corrupt or failed to load
    ├── OverloadedError        the generation queue is full (retry later)
    └── UnavailableError       a component is not ready (model still loading)

The service maps these to HTTP status codes in one place (``service/errors.py``).
"""

from __future__ import annotations


class HearthError(Exception):
    """Base of every error Hearth raises on purpose; ``str(err)`` is meant for the user."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ConfigError(HearthError):
    """A setting is invalid or points at something that is not there."""


class NotFoundError(HearthError):
    """The thing asked for does not exist."""


class ConflictError(HearthError):
    """The request conflicts with the current state."""


class InvalidInputError(HearthError):
    """A request field or command argument is malformed."""


class PayloadTooLargeError(InvalidInputError):
    """An input is larger than the configured limit."""


class UnsupportedTypeError(HearthError):
    """No loader handles this kind of file."""


class LoaderError(HearthError):
    """A file could not be read; the message names the file and the reason."""


class ModelError(HearthError):
    """A model file is missing, fails its checksum or fails to load."""


class OverloadedError(HearthError):
    """Too many requests are waiting; the client should retry later."""

    def __init__(self, message: str, *, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UnavailableError(HearthError):
    """A component is not ready yet."""

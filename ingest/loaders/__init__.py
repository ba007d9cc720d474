"""File loaders, one module per kind of file, registered by file type."""

from ingest.loaders.base import (
    Loader,
    LoaderContext,
    Loaders,
    file_type_of,
    loader_for,
    supported_types,
)

__all__ = ["Loader", "LoaderContext", "Loaders", "file_type_of", "loader_for", "supported_types"]

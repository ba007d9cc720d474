"""Hearth's shared core: settings, errors, the SQL catalogue, the embedder and the vector stores.

Importing ``core`` switches every model hub client to offline mode, so that nothing in the process
can fetch weights at run time (see :mod:`core.offline`).
"""

from core.offline import enforce_offline

enforce_offline()

__all__ = ["enforce_offline"]

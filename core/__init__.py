"""Hearth's shared core: settings, errors, the SQL catalogue, the embedder and the vector stores.

Importing ``core`` switches every model hub client to offline mode, so that nothing in the process
can fetch weights at run time (see :mod:`core.offline`), and bounds OpenMP's spin-wait before any
library loads libgomp, so that threads waiting on a busy machine give their core away
(:func:`core.threads.calm_spinning`).
"""

from core.offline import enforce_offline
from core.threads import calm_spinning

enforce_offline()
calm_spinning()

__all__ = ["calm_spinning", "enforce_offline"]

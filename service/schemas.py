"""Types of the REST API shared across features (they feed the OpenAPI document): the row-id
bounds every controller uses. A feature's own shapes live in its folder (the ask/answer shapes in
``service/answering/schemas.py``, ``service/library/schemas.py``, ``service/system/schemas.py``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar.params import Parameter

# Row ids are INTEGER columns: 64-bit on SQLite but 32-bit on Postgres, where a larger id is a
# driver error (a 500). One bound for both backends, checked before the database sees it.
MAX_ID = 2**31 - 1
# The same bound on a row id in a JSON body (msgspec enforces it while decoding).
BodyId = Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]


# A row id in a path: SQLite and Postgres integers are 64-bit, so a larger number is a 400 naming
# the parameter, not an OverflowError deep in the driver.
Id = Annotated[int, Parameter(ge=1, le=MAX_ID, description="A row id (1 to 2^31-1).")]

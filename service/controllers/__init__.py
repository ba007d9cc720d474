"""HTTP controllers."""

from service.controllers.ask import AskController
from service.controllers.documents import DocumentController
from service.controllers.health import HealthController
from service.controllers.system import SystemController

__all__ = ["AskController", "DocumentController", "HealthController", "SystemController"]

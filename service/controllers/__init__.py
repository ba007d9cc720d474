"""HTTP controllers."""

from service.controllers.ask import AskController
from service.controllers.documents import DocumentController
from service.controllers.health import HealthController
from service.controllers.voice import VoiceAskController

__all__ = ["AskController", "DocumentController", "HealthController", "VoiceAskController"]

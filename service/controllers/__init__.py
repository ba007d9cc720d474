"""HTTP controllers."""

from service.controllers.ask import AskController
from service.controllers.conversations import AnswerController, ConversationController
from service.controllers.documents import CollectionController, DocumentController
from service.controllers.evaluation import EvaluationController
from service.controllers.health import HealthController
from service.controllers.metrics import MetricsController
from service.controllers.openai import OpenAIController
from service.controllers.system import SystemController
from service.controllers.templates import TemplateController
from service.controllers.voice import VoiceAskController

__all__ = [
    "AnswerController",
    "AskController",
    "CollectionController",
    "ConversationController",
    "DocumentController",
    "EvaluationController",
    "HealthController",
    "MetricsController",
    "OpenAIController",
    "SystemController",
    "TemplateController",
    "VoiceAskController",
]

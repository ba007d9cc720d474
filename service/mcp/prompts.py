"""The active prompt templates as MCP prompts, by name and version (``qa``, ``summarize``, ...).

Getting one with a ``question`` fills the template the way an answer does: the passages Hearth
retrieves for the question (optionally in one ``collection``) become its sources, so a client's
own model can answer from the user's documents with Hearth's instructions. The template's system
part and user part come as one user message (MCP prompts have no system role).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anyio import to_thread
from mcp_types import GetPromptResult, Prompt, PromptArgument, PromptMessage, TextContent

from core.errors import InvalidInputError
from core.filters import Filters
from service.answering.orchestration import validate_question
from service.library.service import valid_collection

if TYPE_CHECKING:
    from service.mcp.server import HearthMCP
    from service.state import Hearth

ARGUMENTS = [
    PromptArgument(name="question", description="The question or request.", required=True),
    PromptArgument(name="collection", description="Only this collection.", required=False),
]


def listed(hearth: Hearth) -> list[Prompt]:
    """Every template's active version as a prompt."""
    return [
        Prompt(
            name=t.name,
            title=f"{t.name} v{t.version}",
            description=f"Hearth's {t.name!r} template, version {t.version} (sha256 "
            f"{t.content_hash[:12]}), filled with the passages found for the question.",
            arguments=ARGUMENTS,
        )
        for t in hearth.templates.active()
    ]


def rendered(hearth: Hearth, name: str, arguments: dict[str, Any]) -> GetPromptResult:
    """The active version of template ``name`` rendered for ``arguments["question"]`` with the
    passages retrieved for it; errors name the argument."""
    unknown = sorted(set(arguments) - {a.name for a in ARGUMENTS})
    if unknown:
        raise InvalidInputError(f"{unknown[0]}: not an argument of this prompt", field=unknown[0])
    question = validate_question(str(arguments.get("question") or ""))
    collection = arguments.get("collection")
    filters = Filters(collection=valid_collection(str(collection)) if collection else None)
    version = hearth.templates.get(name)
    service = hearth.answers
    passages = service.retriever.retrieve(question, filters=filters)
    prompt = hearth.templates.render(name, service.prompts.variables(question, passages, []))
    text = f"{prompt.system.strip()}\n\n{prompt.user.strip()}"
    return GetPromptResult(
        description=f"{name} v{version.version} with {len(passages)} passages",
        messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
    )


async def template_prompts(server: HearthMCP) -> list[Prompt]:
    """The prompts, read in a worker thread."""
    hearth = await server.provider()
    return await to_thread.run_sync(lambda: listed(hearth))


async def template_prompt(
    server: HearthMCP, name: str, arguments: dict[str, Any] | None
) -> GetPromptResult:
    """One prompt rendered, in a worker thread."""
    hearth = await server.provider()
    return await to_thread.run_sync(lambda: rendered(hearth, name, arguments or {}))

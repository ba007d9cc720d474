"""Prompt templates: versioned in the catalogue (service.py), the `hearth templates` commands
(commands.py) and the HTTP controller (controller.py)."""

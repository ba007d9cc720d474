"""The web UI: plain HTML, CSS and ES modules served by Hearth itself (no CDN, no build step)."""

from service.ui.routes import STATIC_DIR, ui_routes

__all__ = ["STATIC_DIR", "ui_routes"]

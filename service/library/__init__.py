"""The library: documents and collections in the knowledge base as the service shows and changes
them (service.py), and their HTTP controller (controller.py)."""

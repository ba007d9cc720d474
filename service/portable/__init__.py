"""A carried assistant: the model files in use and where they came from (export/import)."""

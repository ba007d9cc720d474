"""Back up and restore the knowledge base (catalogue, uploaded files; stores rebuilt)."""

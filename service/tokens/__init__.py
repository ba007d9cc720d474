"""Access tokens: the token store (service.py), the `hearth tokens` commands (commands.py) and the
gate that lets a request in, with its login routes (auth.py)."""

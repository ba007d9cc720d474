"""Mail accounts over HTTP (``/api/mail``) and the followers a running server keeps."""

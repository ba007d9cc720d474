"""The system routes: health (health_controller.py), status, settings and models
(controller.py), Prometheus metrics (metrics_controller.py)."""

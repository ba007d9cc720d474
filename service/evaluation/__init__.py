"""`hearth eval` and `hearth models bench`: gold sets (gold.py), a scratch knowledge base for BEIR
corpora (scratch.py), scoring (runner.py), the report and its file (report.py), the model table
(models_bench.py)."""

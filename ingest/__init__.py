"""Turning files into knowledge: loaders, chunking, the pipeline and its ledger."""

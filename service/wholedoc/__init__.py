"""Whole documents: summarise, extract ("every X") and compare by map-reduce over every chunk."""

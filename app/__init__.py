"""Dejarik: the authoritative match server."""

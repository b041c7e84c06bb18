"""Leagues' pure core (issue 32): pairing (round-robin by Berger tables, Swiss by the FIDE Dutch system)
and standings, as small functions over plain values: no database, no I/O."""

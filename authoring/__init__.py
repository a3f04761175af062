"""Authoring: turn the miner's candidates into cases (review screen, scriptable twins, leakage lint)."""

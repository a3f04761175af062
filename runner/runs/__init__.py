"""Runs on disk: the manifest, each trial's result.json, the aggregates, and the runtime fingerprint."""

"""The real agent CLIs, pinned and cached, run end to end against the scripted model provider."""

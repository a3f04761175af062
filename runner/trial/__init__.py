"""One trial, and a run of many trials over variants, cases and modes, resumable."""

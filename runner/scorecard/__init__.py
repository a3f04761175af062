"""The patch scorecard: what a candidate patch changed besides passing, measured against the oracle patch."""

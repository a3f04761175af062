"""The one-commit workspace of a case's base, its per-case template, and a trial's prepared workspace."""

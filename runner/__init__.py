"""`runner`: check and prove the corpus, score coding agents on its cases, report and gate the runs."""

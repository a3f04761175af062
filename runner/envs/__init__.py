"""The process environment of the commands a trial runs, and the Python interpreters a case names."""

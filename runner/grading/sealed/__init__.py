"""What the grader's Python runs inside its sandbox, copied there read-only: the audit hook and the pytest plugin."""

"""The hidden grader written into a workspace and judged, after the fail-closed restoration; what every trial and
verify attempt of a case shares (its template, pristine checkout and test configuration)."""

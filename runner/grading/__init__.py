"""The hidden grader written into a workspace and judged, after the fail-closed restoration."""

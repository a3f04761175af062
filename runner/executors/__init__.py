"""Where trials run: threads on this machine (local), or tasks on a Ray cluster the user already has (ray)."""

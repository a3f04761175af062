"""Where jobs (trials, verify attempts) run: threads on this machine (local), or tasks on a Ray cluster the user
already has (ray); one job type, one retry rule and one publish path, below the trial and verify that use them."""

"""Mine a repository's history for fix commits and propose them as candidate cases (`miner.scan.scan`)."""

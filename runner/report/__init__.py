"""`runner report`: a run as a terminal table, one JSON document, or a self-contained HTML page."""

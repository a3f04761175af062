"""The sandbox agents and graders run in: bubblewrap, showing nothing of the host but what a trial needs."""

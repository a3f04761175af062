"""One module per transcript format (how it is recognised and read), and the registry whose order is detection's."""

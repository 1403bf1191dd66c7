"""What serving costs: the server around the app, observability, live streams."""

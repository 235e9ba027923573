"""play room."""

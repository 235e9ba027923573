"""solver room."""

"""model room."""

"""players room."""

"""What rulebook writes for readers: step descriptions, rule diagrams, rule pages and plots."""

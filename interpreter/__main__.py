"""`python -m interpreter` (from a checkout) or `python -m rulebook.interpreter`: the rulebook CLI."""
from rulebook.tools.cli import main

raise SystemExit(main())

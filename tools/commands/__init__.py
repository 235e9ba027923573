"""One module per `rulebook` command, each with `add_arguments(parser)` and `run(args)`."""

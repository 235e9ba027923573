from .bench_engine import main

raise SystemExit(main())

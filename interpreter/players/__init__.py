"""The players room: computer players. The policies that need no solver (`base`: random, the turn planner
all bots share), greedy (`greedy`), optimal (`optimal`), strong (`strong`), and the registry by name
(`registry.make_bot`). It imports the model, the engine and the solver."""

"""Qt views over the engine: they observe, they compute no physics."""

"""Evidence tests: store, fix rates, feedback, stats."""

"""The Slack front end: bolt listeners (listeners/) over services (services/),
Block Kit messages (blocks.py), the `serve` command (commands.py)."""

"""Fixtures of the Slack tests: the fake Slack Web API, signed requests, a bot served
over a real socket (see fake_slack.py and harness.py beside this file)."""

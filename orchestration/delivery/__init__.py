"""Delivery of each week's report edition to Slack, email and GitHub, once per target."""

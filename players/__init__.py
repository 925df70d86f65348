"""Accounts (people and bots), API tokens and token authentication."""

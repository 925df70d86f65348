"""Tests of the developer tools (``tools/``) that run without a server."""

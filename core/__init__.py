"""Shared API plumbing: error codes and problem documents, schema helpers,
pagination.  No models."""
